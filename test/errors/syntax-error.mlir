// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: syntax-error.mlir:6:25: error: expected ':'
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  // A missing type.
  %t = tile.load %x[%c0] -> !tile.tile<16xf32>
  return
}
