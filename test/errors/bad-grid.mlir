// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: bad-grid.mlir:3:1: error: bad grid expression 'cdiv(dim(0, 1), 64)': dim(0, 1): argument 0 has rank 1
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 1), 64)>} {
  return
}
