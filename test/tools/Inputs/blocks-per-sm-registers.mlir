// A 64x256 f32 accumulator (64 registers a thread) on two warpgroups at two
// blocks an SM (384 threads: ptxas caps a thread at 80 registers, too few
// for the wgmma): ptxas fails, and tilec says what to change.
func.func @gemm_split_n(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                        %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.blocks_per_sm = 2,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    scf.yield %d : !tile.tile<64x256xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x256xf32>, !tile.tensor<?x?xf32>
  return
}
