// RUN: tilec-opt %s | FileCheck %s
// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s -mlir-print-op-generic | tilec-opt | FileCheck %s

// CHECK-DAG: #[[L:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>

// CHECK-LABEL: func.func @views
// CHECK-SAME: !tile.tensor<?x?xbf16>
// CHECK-SAME: !tile.tensor<?x128xf32, strides = [128, 1]>
// CHECK-SAME: !tile.tensor<?x?xf16, strides = [1, ?]>
// CHECK-SAME: !tile.tensor<2x3x4x5x8xi8>
func.func @views(%a: !tile.tensor<?x?xbf16>,
                 %b: !tile.tensor<?x128xf32, strides = [128, 1]>,
                 %c: !tile.tensor<?x?xf16, strides = [1, ?]>,
                 %d: !tile.tensor<2x3x4x5x8xi8>) {
  return
}

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 64), arg(2)>
// CHECK-SAME: tile.kernel
// CHECK-SAME: tile.num_warps = 8
func.func @kernel(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), arg(2)>} {
  // CHECK: %[[PX:.*]] = tile.program_id x
  // CHECK: tile.program_id y
  // CHECK: tile.num_programs z
  %px = tile.program_id x
  %py = tile.program_id y
  %nz = tile.num_programs z
  // CHECK: %[[D:.*]] = tile.dim %{{.*}}, 1 : !tile.tensor<?x?xf32>
  %d = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  // CHECK: %[[T:.*]] = tile.load %{{.*}}[%[[PX]], %[[D]]] : !tile.tensor<?x?xf32> -> tensor<64x32xf32>
  %t = tile.load %x[%px, %d] : !tile.tensor<?x?xf32> -> !tile.tile<64x32xf32>
  // CHECK: tile.load %{{.*}} {padding = 0xFF800000 : f32}
  %u = tile.load %x[%px, %d] {padding = 0xFF800000 : f32} : !tile.tensor<?x?xf32> -> !tile.tile<64x32xf32>
  // CHECK: tile.reduce sum %[[T]] dim 1 : tensor<64x32xf32> -> tensor<64xf32>
  %r = tile.reduce sum %t dim 1 : !tile.tile<64x32xf32> -> !tile.tile<64xf32>
  // CHECK: tile.reduce max %{{.*}} dim 0 : tensor<64xf32> -> f32
  %s = tile.reduce max %r dim 0 : !tile.tile<64xf32> -> f32
  // CHECK: tile.expand_dims %{{.*}} axis 1 : tensor<64xf32> -> tensor<64x1xf32>
  %e = tile.expand_dims %r axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x32xf32>
  %b = tile.broadcast %e : !tile.tile<64x1xf32> -> !tile.tile<64x32xf32>
  // CHECK: tile.transpose %{{.*}} [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  %tr = tile.transpose %b [1, 0] : !tile.tile<64x32xf32> -> !tile.tile<32x64xf32>
  // CHECK: tile.reshape %{{.*}} : tensor<32x64xf32> -> tensor<2048xf32>
  %rs = tile.reshape %tr : !tile.tile<32x64xf32> -> !tile.tile<2048xf32>
  // CHECK: tile.extract_slice %{{.*}} [16, 0] : tensor<32x64xf32> -> tensor<16x64xf32>
  %ex = tile.extract_slice %tr [16, 0] : !tile.tile<32x64xf32> -> !tile.tile<16x64xf32>
  // CHECK: tile.insert_slice %{{.*}} into %{{.*}} [0, 0] : tensor<16x64xf32> into tensor<32x64xf32>
  %ins = tile.insert_slice %ex into %tr [0, 0] : !tile.tile<16x64xf32> into !tile.tile<32x64xf32>
  // CHECK: tile.concat %{{.*}}, %{{.*}}, %{{.*}} dim 0 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %cat = tile.concat %ex, %ex, %ins dim 0 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<32x64xf32> -> !tile.tile<64x64xf32>
  // CHECK: tile.splat %{{.*}} : f32 -> tensor<64x32xf32>
  %sp = tile.splat %s : f32 -> !tile.tile<64x32xf32>
  // CHECK: tile.iota : tensor<64xi32>
  %io = tile.iota : !tile.tile<64xi32>
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<64x32xf32>
  %sum = arith.addf %t, %sp : !tile.tile<64x32xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%[[PX]], %[[D]]] : tensor<64x32xf32>, !tile.tensor<?x?xf32>
  tile.store %sum, %y[%px, %d] : !tile.tile<64x32xf32>, !tile.tensor<?x?xf32>
  return
}

// CHECK-LABEL: func.func @dots
func.func @dots(%a: !tile.tile<64x32xbf16>, %b: !tile.tile<32x16xbf16>,
                %c: !tile.tile<64x16xf32>, %h: !tile.tile<16x16xf16>,
                %hc: !tile.tile<16x16xf16>, %f8: !tile.tile<16x32xf8E4M3FN>,
                %g8: !tile.tile<32x8xf8E4M3FN>, %c8: !tile.tile<16x8xf32>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xf32>
  %0 = tile.dot %a, %b, %c : !tile.tile<64x32xbf16>, !tile.tile<32x16xbf16> -> !tile.tile<64x16xf32>
  // CHECK: tile.dot {{.*}} -> tensor<16x16xf16>
  %1 = tile.dot %h, %h, %hc : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf16>
  // CHECK: tile.dot {{.*}} : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN> -> tensor<16x8xf32>
  %2 = tile.dot %f8, %g8, %c8 : !tile.tile<16x32xf8E4M3FN>, !tile.tile<32x8xf8E4M3FN> -> !tile.tile<16x8xf32>
  return
}

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<16x8xf32, #[[L]]>
func.func @layouts(%x: !tile.tile<16x8xf32, #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>) {
  // CHECK: tile.convert_layout
  %y = tile.convert_layout %x : !tile.tile<16x8xf32, #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>> -> !tile.tile<16x8xf32, #tile.linear<register = [[1, 0], [0, 1]], lane = [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], warp = []>>
  return
}

// CHECK-LABEL: func.func @shared_attr
// CHECK: tile.convert_layout %{{.*}} {shared = #[[S:shared[0-9]*]]}
func.func @shared_attr(%x: !tile.tile<4x4xf32>) {
  %r = tile.convert_layout %x {shared = #tile.shared<offset = [[0, 1], [0, 2], [1, 1], [2, 2]]>} : !tile.tile<4x4xf32> -> !tile.tile<4x4xf32>
  return
}

// Element-wise addressing: gather, scatter, atomics.
// CHECK-LABEL: func.func @indexed
func.func @indexed(%t: !tile.tensor<?x?xf32>, %n: !tile.tensor<?xi32>,
                   %h: !tile.tensor<?xbf16>, %i: !tile.tile<64xi32>,
                   %j: !tile.tile<64xi32>, %m: !tile.tile<64xi1>,
                   %v: !tile.tile<64xf32>, %w: !tile.tile<64xi32>,
                   %b: !tile.tile<64xbf16>) {
  // CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tensor<?x?xf32>, tensor<64xi32>, tensor<64xi32> -> tensor<64xf32>
  %g = tile.gather %t[%i, %j] : !tile.tensor<?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xf32>
  // CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<64xi1>) {padding = 1.000000e+00 : f32}
  %g2 = tile.gather %t[%i, %j] mask(%m : !tile.tile<64xi1>) {padding = 1.0 : f32} : !tile.tensor<?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xf32>
  // CHECK: tile.scatter %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<64xi1>) : tensor<64xf32>, !tile.tensor<?x?xf32>, tensor<64xi32>, tensor<64xi32>
  tile.scatter %v, %t[%i, %j] mask(%m : !tile.tile<64xi1>) : !tile.tile<64xf32>, !tile.tensor<?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32>
  // CHECK: tile.atomic_rmw add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64xf32>
  %o = tile.atomic_rmw add %v, %t[%i, %j] : !tile.tile<64xf32>, !tile.tensor<?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32>
  // CHECK: tile.atomic_rmw umax %{{.*}}, %{{.*}}[%{{.*}}] mask(%{{.*}} : tensor<64xi1>) sem relaxed scope cta : tensor<64xi32>
  %o2 = tile.atomic_rmw umax %w, %n[%i] mask(%m : !tile.tile<64xi1>) sem relaxed scope cta : !tile.tile<64xi32>, !tile.tensor<?xi32>, !tile.tile<64xi32>
  // CHECK: tile.atomic_rmw add %{{.*}}, %{{.*}}[%{{.*}}] sem release : tensor<64xbf16>
  %o3 = tile.atomic_rmw add %b, %h[%i] sem release : !tile.tile<64xbf16>, !tile.tensor<?xbf16>, !tile.tile<64xi32>
  // CHECK: tile.atomic_cas %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} scope sys : !tile.tensor<?xi32>, tensor<64xi32> -> tensor<64xi32>
  %c = tile.atomic_cas %n[%i], %w, %w scope sys : !tile.tensor<?xi32>, !tile.tile<64xi32> -> !tile.tile<64xi32>
  return
}

// CHECK-LABEL: func.func @masked
func.func @masked(%t: !tile.tensor<?x?xf32>, %m: !tile.tile<16x16xi1>, %i: i32) {
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<16x16xi1>) {padding = 3.000000e+00 : f32} : !tile.tensor<?x?xf32> -> tensor<16x16xf32>
  %x = tile.load %t[%i, %i] mask(%m : !tile.tile<16x16xi1>) {padding = 3.0 : f32} : !tile.tensor<?x?xf32> -> !tile.tile<16x16xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<16x16xi1>) : tensor<16x16xf32>, !tile.tensor<?x?xf32>
  tile.store %x, %t[%i, %i] mask(%m : !tile.tile<16x16xi1>) : !tile.tile<16x16xf32>, !tile.tensor<?x?xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<16x16xi1>) reduce add : tensor<16x16xf32>, !tile.tensor<?x?xf32>
  tile.store %x, %t[%i, %i] mask(%m : !tile.tile<16x16xi1>) reduce add : !tile.tile<16x16xf32>, !tile.tensor<?x?xf32>
  return
}

// CHECK-LABEL: func.func @random
func.func @random(%c: !tile.tile<64xi32>, %k: i32) {
  // CHECK: tile.philox %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} key %{{.*}}, %{{.*}} : tensor<64xi32>
  %r:4 = tile.philox %c, %c, %c, %c key %k, %k : !tile.tile<64xi32>
  // CHECK: tile.rand uniform %{{.*}} key %{{.*}}, %{{.*}} : tensor<64xi32> -> tensor<64xf32>
  %u = tile.rand uniform %c key %k, %k : !tile.tile<64xi32> -> !tile.tile<64xf32>
  // CHECK: tile.rand normal
  %z = tile.rand normal %c key %k, %k : !tile.tile<64xi32> -> !tile.tile<64xf32>
  return
}

// CHECK-LABEL: func.func @lines
func.func @lines(%x: !tile.tile<16x64xf32>, %i: !tile.tile<16x64xi32>) {
  // CHECK: tile.scan sum %{{.*}} dim 1 : tensor<16x64xf32>
  %s = tile.scan sum %x dim 1 : !tile.tile<16x64xf32>
  // CHECK: tile.scan max %{{.*}} dim 0 exclusive : tensor<16x64xi32>
  %e = tile.scan max %i dim 0 exclusive : !tile.tile<16x64xi32>
  // CHECK: tile.scan %{{.*}} dim 1 combine {
  // CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
  // CHECK:   %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
  // CHECK:   tile.yield %[[M]] : f32
  // CHECK: } : tensor<16x64xf32>
  %p = tile.scan %x dim 1 combine {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    tile.yield %m : f32
  } : !tile.tile<16x64xf32>
  // CHECK: tile.sort %{{.*}}, %{{.*}} dim 1 descending : tensor<16x64xf32>, tensor<16x64xi32>
  %k, %v = tile.sort %x, %i dim 1 descending : !tile.tile<16x64xf32>, !tile.tile<16x64xi32>
  // CHECK: tile.sort %{{.*}} dim 0 : tensor<16x64xi32>
  %k2 = tile.sort %i dim 0 : !tile.tile<16x64xi32>
  // CHECK: tile.topk %{{.*}}, %{{.*}} dim 1 k 8 : tensor<16x64xf32>, tensor<16x64xi32> -> tensor<16x8xf32>, tensor<16x8xi32>
  %t, %ti = tile.topk %x, %i dim 1 k 8 : !tile.tile<16x64xf32>, !tile.tile<16x64xi32> -> !tile.tile<16x8xf32>, !tile.tile<16x8xi32>
  // CHECK: tile.topk %{{.*}} dim 0 k 4 smallest : tensor<16x64xf32> -> tensor<4x64xf32>
  %l = tile.topk %x dim 0 k 4 smallest : !tile.tile<16x64xf32> -> !tile.tile<4x64xf32>
  return
}

// CHECK-LABEL: func.func @debugging
func.func @debugging(%x: !tile.tile<16x64xf32>, %c: !tile.tile<16x64xi1>, %n: i32) {
  // CHECK: tile.print "x" %{{.*}}, %{{.*}} program [0, 1, 0] : tensor<16x64xf32>, i32
  tile.print "x" %x, %n program [0, 1, 0] : !tile.tile<16x64xf32>, i32
  // CHECK: tile.print "here" always
  tile.print "here" always
  // CHECK: tile.assert %{{.*}}, "positive" always : tensor<16x64xi1>
  tile.assert %c, "positive" always : !tile.tile<16x64xi1>
  return
}

// CHECK-LABEL: func.func @int_and_tf32_dots
func.func @int_and_tf32_dots(%a: !tile.tile<64x32xi8>, %b: !tile.tile<32x64xi8>, %c: !tile.tile<64x64xi32>,
                %fa: !tile.tile<64x8xf32>, %fb: !tile.tile<8x64xf32>, %fc: !tile.tile<64x64xf32>) {
  // CHECK: tile.dot {{.*}} : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi32>
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xi8>, !tile.tile<32x64xi8> -> !tile.tile<64x64xi32>
  // CHECK: tile.dot {{.*}} : tensor<64x8xf32>, tensor<8x64xf32> -> tensor<64x64xf32>
  %e = tile.dot %fa, %fb, %fc : !tile.tile<64x8xf32>, !tile.tile<8x64xf32> -> !tile.tile<64x64xf32>
  return
}

// A stream-K kernel's unit (tile-persistent-tiles computes it).
// CHECK-LABEL: func.func @stream_k_unit(
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = tile.stream_k_unit <cdiv(dim(0, 1), 64)>
func.func @stream_k_unit(%a: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.stream_k = 8 : i64,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), 1>} {
  %lo, %hi, %slot, %first, %units = tile.stream_k_unit #tile.expr<cdiv(dim(0, 1), 64)>
  tile.store %lo, %a[%hi, %units] : i32, !tile.tensor<?x?xi32>
  return
}
