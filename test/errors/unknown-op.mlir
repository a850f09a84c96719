// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: unknown-op.mlir:5:8: error: custom op 'tile.frobnicate' is unknown
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.frobnicate %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<16xf32>
  return
}
