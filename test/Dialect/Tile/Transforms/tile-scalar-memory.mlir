// RUN: tilec-opt %s -tile-scalar-memory | FileCheck %s

// A scalar load is a load of a one-element tile reduced to the scalar (one
// reduction a dim, over one element: the element as it is); a scalar store
// a store of the one-element tile it splats to. Padding and in_bounds stay.
// CHECK-LABEL: func.func @k
// CHECK: %[[T:.*]] = tile.load %arg0[%arg2, %arg3] {padding = -1.000000e+00 : f32} : !tile.tensor<?x?xf32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[U:.*]] = tile.reduce  max %[[T]] dim 1 : tensor<1x1xf32> -> tensor<1xf32>
// CHECK-NEXT: %[[S:.*]] = tile.reduce  max %[[U]] dim 0 : tensor<1xf32> -> f32
// CHECK: %[[I:.*]] = tile.load %arg1[%arg2] : !tile.tensor<?xi32> -> tensor<1xi32>
// CHECK-NEXT: %[[J:.*]] = tile.reduce  max %[[I]] dim 0 : tensor<1xi32> -> i32
// CHECK: %[[P:.*]] = tile.splat %[[S]] : f32 -> tensor<1x1xf32>
// CHECK-NEXT: tile.store %[[P]], %arg0[%arg3, %arg2] : tensor<1x1xf32>, !tile.tensor<?x?xf32>
// CHECK: %[[Q:.*]] = tile.splat %[[J]] : i32 -> tensor<1xi32>
// CHECK-NEXT: tile.store %[[Q]], %arg1[%arg3] : tensor<1xi32>, !tile.tensor<?xi32>
// CHECK-NOT: -> f32
func.func @k(%x: !tile.tensor<?x?xf32>, %n: !tile.tensor<?xi32>, %i: i32, %j: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %s = tile.load %x[%i, %j] {padding = -1.0 : f32} : !tile.tensor<?x?xf32> -> f32
  %m = tile.load %n[%i] : !tile.tensor<?xi32> -> i32
  tile.store %s, %x[%j, %i] : f32, !tile.tensor<?x?xf32>
  tile.store %m, %n[%j] : i32, !tile.tensor<?xi32>
  return
}
