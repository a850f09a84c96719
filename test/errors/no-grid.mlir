// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: no-grid.mlir:3:1: error: a kernel needs a launch grid: add tile.grid = #tile.grid<cdiv(dim(0, 0), 128), ...>
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel} {
  return
}
