// RUN: tilec-opt %s -split-input-file -tile-plain-twin -verify-diagnostics | FileCheck %s
//
// Inputs carry what the pass needs: kernels after tile-partition-schedule.

// A GEMM's scheduled main loop (every dot reads both operands from shared
// memory, TMA copies of the loop): the twin follows it and keeps the
// kernel's partitions and MMAs; its operand loads lose their TMA copies,
// so that tile-insert-channels has the load partition's threads copy them
// (views TMA cannot read). The kernel names it. A kernel without a
// schedule gets none.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: tile.plain_variant = "gemm__plain"
// CHECK: tile.dot {{.*}}#tgpu.mma<wgmma, a = smem, b = smem>
// CHECK: } {tgpu.partitions =
// CHECK-LABEL: func.func @gemm__plain(
// CHECK-SAME: tile.plain_variant_of = "gemm"
// CHECK: tile.load %arg0{{.*}} {tgpu.partition = array<i32: 0>} :
// CHECK-NEXT: tile.load %arg1{{.*}} {tgpu.partition = array<i32: 0>} :
// CHECK: tile.dot {{.*}}#tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
// CHECK-LABEL: func.func @unscheduled(
// CHECK-NOT: plain_variant
// CHECK-NOT: func.func @unscheduled__plain
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

// The twin's name is taken: an error at the kernel, nothing made.
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
  // expected-error @+1 {{the kernel's plain twin would be named 'gemm__plain', which the module already defines; rename that function}}
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
  func.func @gemm__plain() {
    return
  }
}

// -----

// sm_100a: the twin of a GEMM whose dot runs on tcgen05 keeps it and the
// partitions (load, compute, mma), the loads without their TMA copies.
// CHECK-LABEL: func.func @gemm_tcgen05(
// CHECK: tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>
// CHECK-LABEL: func.func @gemm_tcgen05__plain(
// CHECK-NOT: tgpu.tma =
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>}
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg1[%arg3, %3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %6 = tile.load %arg0[%2, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.convert_layout %6 {shared = #shared, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.dot %8, %9, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %10 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tile.store %5, %arg2[%2, %3] : tensor<128x128xf32, #linear>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// sm_100a, a dot whose result the loop's math reads (attention's S): in
// the layout tcgen05.ld gives (a row a thread), mma.sync's S would be
// converted back to it every iteration through shared memory. The twin is
// laid out again as on sm_90a instead: the row max reads S where the MMAs
// leave it, and nothing in the loop but the operands converts.
// CHECK-LABEL: func.func @rowmax_tcgen05__plain(
// CHECK: scf.for
// CHECK: %[[S:.*]] = tile.dot {{.*}}tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>
// CHECK-NEXT: tile.reduce  max %[[S]] dim 1
// CHECK-NOT: tile.convert_layout
// CHECK: scf.yield
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#row = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @rowmax_tcgen05(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %2 = arith.muli %0, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %ninf) -> (tensor<128xf32, #row>)  : i32 {
      %7 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %6 = tile.load %arg0[%2, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.convert_layout %6 {shared = #shared, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.dot %8, %9, %cst {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      %11 = tile.reduce max %10 dim 1 {tgpu.partition = array<i32: 1>} : tensor<128x128xf32, #linear> -> tensor<128xf32, #row>
      %12 = arith.maximumf %arg4, %11 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #row>
      scf.yield %12 : tensor<128xf32, #row>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tile.store %5, %arg2[%2] : tensor<128xf32, #row>, !tile.tensor<?xf32>
    return
  }
}

// -----

// An operand converted before the loop (loop-invariant, as attention's Q)
// stays in shared memory in the twin: a buffer of its own, stored once
// where the conversion was, read right before the dot in the loop (so the
// mma.sync lowering loads it a k-step at a time). The kernel keeps its
// conversion.
// CHECK-LABEL: func.func @invariant_a(
// CHECK: tile.convert_layout
// CHECK: scf.for
// CHECK-LABEL: func.func @invariant_a__plain(
// CHECK: %[[BUF:.*]] = tgpu.alloc : <1x128x64xbf16, #shared>
// CHECK: tgpu.local_store %{{.*}}, %[[BUF]][%{{.*}}] : tensor<128x64xbf16, #{{.*}}>, <1x128x64xbf16, #shared>
// CHECK-NOT: tile.convert_layout %{{.*}} {shared = #shared} : tensor<128x64xbf16
// CHECK: scf.for
// CHECK: %[[Q:.*]] = tgpu.local_load %[[BUF]][%{{.*}}] : <1x128x64xbf16, #shared> -> tensor<128x64xbf16
// CHECK-NEXT: tile.dot %[[Q]],
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
  func.func @invariant_a(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg1, 0 : !tile.tensor<?x?xbf16>
    %3 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
    %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %6 = tile.convert_layout %4 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}
