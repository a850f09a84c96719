// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: unsupported-tile-element.mlir:6:8: error: unsupported tile element type 'f64'
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<16xf32>
  %d = arith.extf %t : tensor<16xf32> to tensor<16xf64>
  return
}
