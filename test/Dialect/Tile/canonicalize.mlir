// RUN: tilec-opt %s -split-input-file -canonicalize | FileCheck %s

#a = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>
#b = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = []>

// A conversion to the layout a value already has folds away; two in a row
// become one.
// CHECK-LABEL: func.func @fold
// CHECK-SAME: (%[[X:.*]]: tensor<32xf32, #[[A:.*]]>)
func.func @fold(%x: !tile.tile<32xf32, #a>) -> !tile.tile<32xf32, #a> {
  // CHECK-NOT: tile.convert_layout
  // CHECK: return %[[X]]
  %0 = tile.convert_layout %x : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  %1 = tile.convert_layout %0 : !tile.tile<32xf32, #b> -> !tile.tile<32xf32, #a>
  return %1 : !tile.tile<32xf32, #a>
}

// -----

#a = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>
#b = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = []>

// Splats, splat constants and iota are rebuilt in the target layout.
// CHECK-LABEL: func.func @remat
func.func @remat(%s: f32) -> (!tile.tile<32xf32, #b>, !tile.tile<32xi32, #b>, !tile.tile<32xf32, #b>) {
  // CHECK-NOT: tile.convert_layout
  // CHECK-DAG: tile.splat %{{.*}} : f32 -> tensor<32xf32, #[[B:.*]]>
  // CHECK-DAG: tile.iota : tensor<32xi32, #[[B]]>
  // CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<32xf32, #[[B]]>
  %0 = tile.splat %s : f32 -> !tile.tile<32xf32, #a>
  %1 = tile.convert_layout %0 : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  %2 = tile.iota : !tile.tile<32xi32, #a>
  %3 = tile.convert_layout %2 : !tile.tile<32xi32, #a> -> !tile.tile<32xi32, #b>
  %4 = arith.constant dense<1.0> : !tile.tile<32xf32, #a>
  %5 = tile.convert_layout %4 : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  return %1, %3, %5 : !tile.tile<32xf32, #b>, !tile.tile<32xi32, #b>, !tile.tile<32xf32, #b>
}

// -----

#row = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>
#col = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []>
#v = #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>

// A conversion of a broadcast moves to the (smaller) operand, whose layout
// becomes the broadcast slice of the target.
// CHECK-DAG: #[[S:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], lane = {{\[\[}}0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = []>
// CHECK-LABEL: func.func @sink_broadcast
func.func @sink_broadcast(%x: !tile.tile<1x32xf32, #v>) -> !tile.tile<32x32xf32, #col> {
  // CHECK: %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<1x32xf32, {{.*}}> -> tensor<1x32xf32, #[[S]]>
  // CHECK: %[[B:.*]] = tile.broadcast %[[C]]
  // CHECK: return %[[B]]
  %0 = tile.broadcast %x : !tile.tile<1x32xf32, #v> -> !tile.tile<32x32xf32, #row>
  %1 = tile.convert_layout %0 : !tile.tile<32x32xf32, #row> -> !tile.tile<32x32xf32, #col>
  return %1 : !tile.tile<32x32xf32, #col>
}
