// C[i] = A[i] · B[i] for every batch index i: a batched bf16 GEMM over 3-d
// views (A: batch x M x K, B: batch x K x N, C: batch x M x N), f32
// accumulation, bf16 C. One 128x128 tile of one batch member a program: the
// batch is program_id z. Each load takes a 1x128x64 (1x64x128) box of its
// 3-d view and drops the unit dim with tile.reshape, so the main loop is
// the 2-d GEMM's: on sm_90a warp-specialized, TMA copies of 3-d boxes and
// wgmma, with a TMA store of C; persistent, the batch member outermost in
// the tile loop. (No other tile shapes are made: tile.reshape pins them.)
func.func @gemm_batched(%a: !tile.tensor<?x?x?xbf16>, %b: !tile.tensor<?x?x?xbf16>,
                        %c: !tile.tensor<?x?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 2), 128), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %pb = tile.program_id z
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 2 : !tile.tensor<?x?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (!tile.tile<128x128xf32>) : i32 {
    %ta3 = tile.load %a[%pb, %m0, %k0] : !tile.tensor<?x?x?xbf16> -> !tile.tile<1x128x64xbf16>
    %ta = tile.reshape %ta3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %tb3 = tile.load %b[%pb, %k0, %n0] : !tile.tensor<?x?x?xbf16> -> !tile.tile<1x64x128xbf16>
    %tb = tile.reshape %tb3 : !tile.tile<1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %o3 = tile.reshape %o : !tile.tile<128x128xbf16> -> !tile.tile<1x128x128xbf16>
  tile.store %o3, %c[%pb, %m0, %n0] : !tile.tile<1x128x128xbf16>, !tile.tensor<?x?x?xbf16>
  return
}
