// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: non-pow2-tile.mlir:6:16: error: expected tile dims to be static powers of two, found '!tile.tile<100x64xf32>'
func.func @k(%x: !tile.tensor<?x?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32>
      -> !tile.tile<100x64xf32>
  return
}
