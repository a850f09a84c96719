// RUN: tilec-opt %s -split-input-file -tile-tma-store-epilogue -verify-diagnostics | FileCheck %s
//
// Inputs carry what the pass needs: kernels after tile-partition-schedule.

// A scheduled GEMM: C becomes a TMA view (128 rows by one 128-byte
// swizzle span of f32), the accumulator goes out in its wgmma layout (the
// store's conversion is gone) through two 128x32 slots, and the wait for
// the copies ends the kernel. A kernel without a schedule keeps its store.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>
// CHECK-NEXT: %[[BUF:.*]] = tgpu.alloc : <2x128x32xf32
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: } {tgpu.partitions =
// CHECK-NEXT: tgpu.tma_store %[[ACC]], %arg2[%c0_i32, %c0_i32] via %[[BUF]]
// CHECK-NEXT: tgpu.tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @unscheduled(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>)
// CHECK-NOT: tgpu.tma_store
// CHECK: tile.store
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
  func.func @unscheduled(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A view stored twice where the tiles overlap (rows 0 and 64 of 128-row
// tiles): each store says why it stays as it is.
// CHECK-LABEL: func.func @two_stores(
// CHECK-NOT: tgpu.tma_store
// CHECK-COUNT-2: tile.store
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @two_stores(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    // expected-remark @+1 {{epilogue store not through TMA: the view has other uses}}
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    // expected-remark @+1 {{epilogue store not through TMA: the view has other uses}}
    tile.store %2, %arg2[%c64_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A view stored twice at column blocks that do not overlap (a 128x192
// tile as 128 + 64 columns stores two blocks): both stores go through TMA,
// each through slots of its own, with the view's one box.
// CHECK-LABEL: func.func @column_blocks(
// CHECK-SAME: %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>
// CHECK-DAG: %[[B0:.*]] = tgpu.alloc : <2x128x32xf32
// CHECK-DAG: %[[B1:.*]] = tgpu.alloc : <2x128x32xf32
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: tgpu.tma_store %[[ACC]], %arg2[%c0_i32, %c0_i32] via
// CHECK: %[[N1:.*]] = arith.addi %c0_i32, %c256_i32
// CHECK-NEXT: tgpu.tma_store %[[ACC]], %arg2[%c0_i32, %[[N1]]] via
// CHECK-NOT: tile.store
// CHECK: tgpu.tma_store_wait
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @column_blocks(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tile.store %1, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear>, !tile.tensor<?x?xf32>
    %c256_i32 = arith.constant 256 : i32
    %n1 = arith.addi %c0_i32, %c256_i32 : i32
    tile.store %1, %arg2[%c0_i32, %n1] : tensor<128x256xf32, #linear>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A store in an scf.if after the loop (a split-K member's last unit runs
// the epilogue): its condition is a scalar, the same in every thread, so
// the store goes through TMA too; the wait still ends the kernel.
// CHECK-LABEL: func.func @gemm_if(
// CHECK-SAME: %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>
// CHECK-NEXT: %[[BUF:.*]] = tgpu.alloc : <2x128x32xf32
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: scf.if
// CHECK-NEXT: tgpu.tma_store %[[ACC]], %arg2[%c0_i32, %c0_i32] via %[[BUF]]
// CHECK-NEXT: }
// CHECK-NEXT: tgpu.tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: return
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>module {
  func.func @gemm_if(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %last: i32) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    %ready = arith.cmpi eq, %last, %c0_i32 : i32
    scf.if %ready {
      tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    }
    return
  }
}

// -----

// A reducing store of the main loop (attention backward's dQ) adds with
// TMA in the compute partition: a 64x128 f32 tile whose columns 64 and up
// are the second warpgroup's goes out in rounds of two 64x32 chunks (one
// a warpgroup), two rounds in flight: four slots. The masked one keeps
// red.global, saying why.
// CHECK-LABEL: func.func @loop_reduce(
// CHECK-SAME: %arg1: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>
// CHECK-SAME: %arg2: !tile.tensor<?x?xf32>)
// CHECK-NEXT: %[[BUF:.*]] = tgpu.alloc : <4x64x32xf32
// CHECK: scf.for
// CHECK: %[[V:.*]] = tile.convert_layout
// CHECK-NEXT: tgpu.tma_store %[[V]], %arg1[%c0_i32, %c0_i32] via %[[BUF]] reduce add {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.store %[[V]], %arg2[%c0_i32, %c0_i32] mask({{.*}}) reduce add
// CHECK: tgpu.tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: return
#load = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#split_n = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 64]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @loop_reduce(%arg0: !tile.tensor<?x?xf32>, %arg1: !tile.tensor<?x?xf32>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x128xi1, #split_n>
    %0 = tile.dim %arg0, 0 : !tile.tensor<?x?xf32>
    scf.for %arg3 = %c0_i32 to %0 step %c64_i32 : i32 {
      %1 = tile.load %arg0[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 32], swizzle = 128>} : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #load>
      %2 = tile.convert_layout %1 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<64x128xf32, #load> -> tensor<64x128xf32, #split_n>
      tile.store %2, %arg1[%c0_i32, %c0_i32] reduce add {tgpu.partition = array<i32: 1>} : tensor<64x128xf32, #split_n>, !tile.tensor<?x?xf32>
      // expected-remark @+1 {{reducing store of the main loop not through TMA (red.global): the store has a mask (TMA writes whole boxes)}}
      tile.store %2, %arg2[%c0_i32, %c0_i32] mask(%true : tensor<64x128xi1, #split_n>) reduce add {tgpu.partition = array<i32: 1>} : tensor<64x128xf32, #split_n>, !tile.tensor<?x?xf32>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    return
  }
}

// -----

// A release after the loop's TMA reduce (deterministic attention
// backward's counter, in a branch) waits for the adds' writes first, in
// the atomic's partition (a remark says it waits each iteration); an
// acquire and a relaxed atomic wait for nothing. The acquire (it may precede the reduce) fences the async proxy
// after it; the relaxed atomic does not.
// CHECK-LABEL: func.func @release_after_reduce(
// CHECK: scf.for
// CHECK: tile.atomic_rmw add %{{.*}} sem acquire {tgpu.async_proxy_fence, tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tma_store %{{.*}} reduce add
// CHECK-NEXT: tile.atomic_rmw add %{{.*}} sem relaxed {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: scf.if
// CHECK-NEXT: tgpu.tma_store_wait {pendings = 0 : i32, writes}
// CHECK-NEXT: tile.atomic_rmw add %{{.*}} sem release
// CHECK: tgpu.tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: return
#load = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#split_n = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 64]]>
#one = #tile.linear<register = [], lane = [[0], [0], [0], [0], [0]], warp = [[0], [0], [0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @release_after_reduce(%arg0: !tile.tensor<?x?xf32>, %arg1: !tile.tensor<?x?xf32>, %arg2: !tile.tensor<?xi32>, %arg3: i1) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %one = arith.constant dense<1> : tensor<1xi32, #one>
    %idx = arith.constant dense<0> : tensor<1xi32, #one>
    %0 = tile.dim %arg0, 0 : !tile.tensor<?x?xf32>
    scf.for %arg4 = %c0_i32 to %0 step %c64_i32 : i32 {
      %1 = tile.load %arg0[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 32], swizzle = 128>} : !tile.tensor<?x?xf32> -> tensor<64x128xf32, #load>
      %2 = tile.convert_layout %1 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<64x128xf32, #load> -> tensor<64x128xf32, #split_n>
      %3 = tile.atomic_rmw add %one, %arg2[%idx] sem acquire {tgpu.partition = array<i32: 1>} : tensor<1xi32, #one>, !tile.tensor<?xi32>, tensor<1xi32, #one>
      tile.store %2, %arg1[%c0_i32, %c0_i32] reduce add {tgpu.partition = array<i32: 1>} : tensor<64x128xf32, #split_n>, !tile.tensor<?x?xf32>
      %4 = tile.atomic_rmw add %one, %arg2[%idx] sem relaxed {tgpu.partition = array<i32: 1>} : tensor<1xi32, #one>, !tile.tensor<?xi32>, tensor<1xi32, #one>
      scf.if %arg3 {
        // expected-remark @+1 {{'tile.atomic_rmw' with release ordering waits each iteration for the writes of the TMA stores before it (their adds or copies done in memory); `sem relaxed` waits for nothing}}
        %5 = tile.atomic_rmw add %one, %arg2[%idx] sem release : tensor<1xi32, #one>, !tile.tensor<?xi32>, tensor<1xi32, #one>
      } {tgpu.partition = array<i32: 1>}
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    return
  }
}

// -----

// A 256x128 tile (two warpgroups of 128 rows): its 256x64 boxes at two
// rounds (64 KB) would leave the main loop three stages where one round
// (32 KB) leaves it four, so it takes one round (one slot).
// CHECK-LABEL: func.func @gemm_256x128(
// CHECK: tgpu.alloc : <1x256x64xbf16
// CHECK: tgpu.tma_store {{.*}} tma = 256x64, swizzle = 128>, <1x256x64xbf16
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared5 = #tile.shared<offset = [[1], [2], [4], [8], [16], [32], [64]]>
#shared9 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear11 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear12 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0], [0]]>
#linear13 = #tile.linear<register = [[1], [8], [16], [32], [64]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0], [0]]>
#linear14 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear39 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [128, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear40 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0], [128, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear41 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [128, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear42 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0], [128, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#shared10 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]]>
module {
  func.func @gemm_256x128(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?xf32>, %arg3: !tile.tensor<?x?xbf16>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 256), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<256x128xf32, #linear39>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %c256_i32 = arith.constant 256 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c256_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %5 = scf.for %arg4 = %c0_i32 to %4 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<256x128xf32, #linear39>)  : i32 {
      %14 = tile.load %arg0[%2, %arg4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [256, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<256x64xbf16, #linear40>
      %15 = tile.load %arg1[%arg4, %3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear10>
      %16 = tile.convert_layout %14 {shared = #shared9, tgpu.partition = array<i32: 1>} : tensor<256x64xbf16, #linear40> -> tensor<256x64xbf16, #linear41>
      %17 = tile.convert_layout %15 {shared = #shared4, tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear10> -> tensor<64x128xbf16, #linear11>
      %18 = tile.dot %16, %17, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<256x64xbf16, #linear41>, tensor<64x128xbf16, #linear11> -> tensor<256x128xf32, #linear39>
      scf.yield %18 : tensor<256x128xf32, #linear39>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %6 = tile.load %arg2[%3] : !tile.tensor<?xf32> -> tensor<128xf32, #linear12>
    %7 = tile.convert_layout %6 {shared = #shared5} : tensor<128xf32, #linear12> -> tensor<128xf32, #linear13>
    %8 = tile.expand_dims %7 axis 0 : tensor<128xf32, #linear13> -> tensor<1x128xf32, #linear14>
    %9 = tile.broadcast %8 : tensor<1x128xf32, #linear14> -> tensor<256x128xf32, #linear39>
    %10 = arith.addf %5, %9 : tensor<256x128xf32, #linear39>
    %11 = arith.maximumf %10, %cst : tensor<256x128xf32, #linear39>
    %12 = arith.truncf %11 : tensor<256x128xf32, #linear39> to tensor<256x128xbf16, #linear39>
    %13 = tile.convert_layout %12 {shared = #shared10} : tensor<256x128xbf16, #linear39> -> tensor<256x128xbf16, #linear42>
    tile.store %13, %arg3[%2, %3] : tensor<256x128xbf16, #linear42>, !tile.tensor<?x?xbf16>
    return
  }
}
