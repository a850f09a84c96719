// C = alpha * (A · B): f16 A (MxK) and B (KxN), f32 accumulation and f32 C.
// One 128x256 tile of C a program, K in steps of 64; on sm_90a a TMA
// producer warpgroup feeds two wgmma warpgroups (K and N multiples of 8).
func.func @scaled_matmul(%a: !tile.tensor<?x?xf16>, %b: !tile.tensor<?x?xf16>,
                         %c: !tile.tensor<?x?xf32>, %alpha: f32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf16> -> !tile.tile<128x64xf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xf16> -> !tile.tile<64x256xf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xf16>, !tile.tile<64x256xf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %s = tile.splat %alpha : f32 -> !tile.tile<128x256xf32>
  %o = arith.mulf %acc, %s : !tile.tile<128x256xf32>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}
