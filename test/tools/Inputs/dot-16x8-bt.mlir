// A 16x8 dot, B loaded as 8x64 and transposed, in a TMA-able loop of a
// 4-warp kernel (test/tools/valid-programs.test).
func.func @k(%a: !tile.tensor<?x?xbf16>, %bt: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.num_warps = 4} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<16x8xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%ai = %z) -> (!tile.tile<16x8xf32>) : i32 {
    %ta = tile.load %a[%c0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<16x64xbf16>
    %tbt = tile.load %bt[%c0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<8x64xbf16>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<8x64xbf16> -> !tile.tile<64x8xbf16>
    %d = tile.dot %ta, %tb, %ai : !tile.tile<16x64xbf16>, !tile.tile<64x8xbf16> -> !tile.tile<16x8xf32>
    scf.yield %d : !tile.tile<16x8xf32>
  }
  tile.store %acc, %c[%c0, %c0] : !tile.tile<16x8xf32>, !tile.tensor<?x?xf32>
  return
}
