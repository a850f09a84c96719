// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: non-splat-constant.mlir:6:8: error: 'arith.constant' op tile constants must be splats; build other tiles with tile.iota and arith ops
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = ["1"]} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<2xf32>
  %k = arith.constant dense<[1.0, 2.0]> : !tile.tile<2xf32>
  %s = arith.addf %t, %k : !tile.tile<2xf32>
  tile.store %s, %x[%c0] : !tile.tile<2xf32>, !tile.tensor<?xf32>
  return
}
