// RUN: tilec-opt %s -tile-pipeline | FileCheck %s

// The schedule tile-pipeline-schedule wrote (load and its index at stage 0,
// the sum at stage 2 of 3) becomes: a 3-slot ring in the 128-byte swizzle
// TMA writes (32x64 f32 = two 32x32 boxes a slot), a TMA view, full
// barriers (one arrival plus the bytes) and empty barriers (one arrival per
// warp); a prologue issuing iterations 0 and 1 (if they exist); in the loop,
// the refill of iteration j + 2 into the slot iteration j - 1 read, after
// every warp released it, then the wait for slot j % 3 and a local_load in
// place of the load; the release at the end. All of it runs where the
// runtime encoded the view's descriptor (tgpu.tma_ready); otherwise the
// loop as it was, with its plain load (the kernel lists the view in
// tile.tma_fallback, so the runtime zeroes a descriptor it cannot encode
// instead of refusing the launch). No schedule attributes remain.

#linear = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>

// CHECK-LABEL: func.func @colsum
// CHECK-SAME: %[[X:.*]]: !tile.tensor<?x?xf32, tma = 32x32, swizzle = 128>
// CHECK-SAME: tile.tma_fallback = array<i32: 0>
// CHECK: %[[RING:.*]] = tgpu.alloc : <3x32x64xf32, #shared>
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 1 : <3>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 4 : <3>
// CHECK: %[[OK:.*]] = tgpu.tma_ready %[[X]]
// CHECK: scf.if %[[OK]] -> (tensor<32x64xf32, #linear>) {
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: scf.if
// CHECK:   tgpu.arrive %[[FULL]][%{{.*}}] expect_tx 8192
// CHECK:   tgpu.tma_load %[[X]][%{{.*}}, %{{.*}}] -> %[[RING]][%{{.*}}], %[[FULL]]
// CHECK: scf.if
// CHECK:   tgpu.tma_load
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[J:.*]] = %{{.*}})
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[J]], %c2_i32
// CHECK:   %[[MORE:.*]] = arith.cmpi slt, %[[AHEAD]], %[[TRIPS]]
// CHECK:   scf.if %[[MORE]] {
// CHECK:     scf.if
// CHECK:       tgpu.wait %[[EMPTY]]
// CHECK:     tgpu.arrive %[[FULL]]{{.*}} expect_tx 8192
// CHECK:     tgpu.tma_load %[[X]]
// CHECK:   }
// CHECK:   %[[SLOT:.*]] = arith.remui %[[J]], %c3_i32
// CHECK:   tgpu.wait %[[FULL]][%[[SLOT]]]
// CHECK:   %[[T:.*]] = tgpu.local_load %[[RING]][%[[SLOT]]] : <3x32x64xf32, #shared> -> tensor<32x64xf32, #linear>
// CHECK:   arith.addf %{{.*}}, %[[T]]
// CHECK:   tgpu.arrive %[[EMPTY]][%[[SLOT]]] : <3>
// CHECK:   scf.yield
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     tile.load %[[X]]
// CHECK-NOT: tile.pipeline
func.func @colsum(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = ["cdiv(dim(0,0),32)"]} {
  %zero = arith.constant dense<0.0> : tensor<32x64xf32, #linear>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c32 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %acc = scf.for %k = %c0 to %n step %c32 iter_args(%a = %zero) -> (tensor<32x64xf32, #linear>) : i32 {
    %k2 = arith.addi %k, %k {tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32} : i32
    %t = tile.load %x[%m0, %k2] {tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32} : !tile.tensor<?x?xf32> -> tensor<32x64xf32, #linear>
    %s = arith.addf %a, %t {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 2 : i32} : tensor<32x64xf32, #linear>
    scf.yield %s : tensor<32x64xf32, #linear>
  } {tile.pipeline.num_stages = 3 : i32}
  tile.store %acc, %y[%m0, %c0] : tensor<32x64xf32, #linear>, !tile.tensor<?x?xf32>
  return
}
