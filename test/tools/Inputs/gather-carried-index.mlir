// A main loop gathering through an index tile the loop carries (each
// step reads the next column): the load partition cannot compute it.
func.func @carried(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                   %s: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %one = arith.constant dense<1> : !tile.tile<1x128xi32>
  %io = tile.iota : !tile.tile<128xi32>
  %col0 = tile.expand_dims %io axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
  %acc:2 = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero, %col = %col0)
      -> (!tile.tile<128x128xf32>, !tile.tile<1x128xi32>) : i32 {
    %ta = tile.load %a[%c0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %row = tile.splat %kr : i32 -> !tile.tile<1x128xi32>
    %sv = tile.gather %s[%row, %col]
        : !tile.tensor<?x?xf32>, !tile.tile<1x128xi32>, !tile.tile<1x128xi32> -> !tile.tile<1x128xf32>
    %rb = tile.broadcast %sv : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %rb : !tile.tile<128x128xf32>
    %next = arith.addi %col, %one : !tile.tile<1x128xi32>
    scf.yield %e, %next : !tile.tile<128x128xf32>, !tile.tile<1x128xi32>
  }
  tile.store %acc#0, %c[%c0, %c0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
