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
// CHECK-SAME: tile.plain_variant = @gemm__plain
// CHECK: tile.dot {{.*}}#tgpu.mma<wgmma, a = smem, b = smem>
// CHECK: } {tgpu.partitions =
// CHECK-LABEL: func.func @gemm__plain(
// CHECK-SAME: tile.plain_variant_of = @gemm
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

// sm_100a, a dot whose result the loop's math reads (attention's S), in a
// kernel whose buffers (192 KiB) leave no room for two stages of the
// slots its load partition's threads would copy: the twin runs mma.sync.
// In the layout tcgen05.ld gives (a row a thread), mma.sync's S would be
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
#big = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @rowmax_tcgen05(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %big = tgpu.alloc : <3x128x128xf32, #big>
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

// -----

// Attention at D = 256 (sm_90a): its loop keeps its partitions (Q copied
// once before the loop, K and V in it; P·V's A in registers), its copies
// lose TMA. Two stages beside the O epilogue's conversions (64 KiB of
// scratch, a TMA store's staging buffer in the kernel) do not fit, so the
// twin stores O in the layout the MMAs leave it in.
// CHECK-LABEL: func.func @attention_wide(
// CHECK: tile.convert_layout %{{.*}} : tensor<1x1x128x256xbf16
// CHECK-NEXT: tile.store
// CHECK-LABEL: func.func @attention_wide__plain(
// CHECK-NOT: tgpu.tma =
// CHECK: tile.load %arg0{{.*}} {tgpu.partition = array<i32: 0>} :
// CHECK: tile.dot {{.*}}#tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>
// CHECK: tile.dot {{.*}}#tgpu.mma<wgmma, a = regs, b = smem>, tgpu.partition = array<i32: 1>
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
// CHECK: %[[O:.*]] = arith.truncf
// CHECK-NEXT: %[[O4:.*]] = tile.reshape %[[O]]
// CHECK-NEXT: tile.store %[[O4]], %arg3
#linear = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear9 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear13 = #tile.linear<register = [[0, 0, 8]], lane = [[0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]], warp = [[0, 0, 16], [0, 0, 32], [0, 0, 64]]>
#linear20 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear21 = #tile.linear<register = [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 8, 0], [0, 0, 16, 0], [0, 0, 32, 0], [0, 0, 64, 0]], lane = [[0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 0, 32], [0, 0, 0, 64], [0, 0, 0, 128]], warp = [[0, 0, 1, 0], [0, 0, 2, 0], [0, 0, 4, 0]]>
#linear22 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear23 = #tile.linear<register = [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 8, 0], [0, 0, 16, 0], [0, 0, 32, 0]], lane = [[0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 0, 32], [0, 0, 0, 64], [0, 0, 0, 128]], warp = [[0, 0, 1, 0], [0, 0, 2, 0], [0, 0, 4, 0]]>
#linear24 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear25 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 8], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [64, 0], [128, 0]], warp = [[0, 1], [0, 2], [0, 4]]>
#linear26 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear27 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0], [0]]>
#linear28 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear29 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear30 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear31 = #tile.linear<register = [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 128], [0, 0, 8, 0], [0, 0, 16, 0], [0, 0, 32, 0], [0, 0, 64, 0]], lane = [[0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 0, 32], [0, 0, 0, 64]], warp = [[0, 0, 1, 0], [0, 0, 2, 0], [0, 0, 4, 0]]>
#shared6 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared7 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared8 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared9 = #tile.shared<offset = [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 0, 32], [0, 0, 0, 64], [0, 0, 0, 128], [0, 0, 1, 0], [0, 0, 2, 0], [0, 0, 4, 0], [0, 0, 8, 0], [0, 0, 16, 0], [0, 0, 32, 0], [0, 0, 64, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @attention_wide(%arg0: !tile.tensor<?x?x?x256xbf16>, %arg1: !tile.tensor<?x?x?x256xbf16>, %arg2: !tile.tensor<?x?x?x256xbf16>, %arg3: !tile.tensor<?x?x?x256xbf16>, %arg4: !tile.tensor<?x?x?xf32>, %arg5: f32, %arg6: i32) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<1.000000e+00> : tensor<128xf32, #linear>
    %cst_0 = arith.constant dense<1> : tensor<128xi32, #linear>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear20>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128xf32, #linear>
    %cst_3 = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_4 = arith.constant dense<0xFF800000> : tensor<128x64xf32, #linear1>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %cst_6 = arith.constant 1.44269502 : f32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg0, 2 : !tile.tensor<?x?x?x256xbf16>
    %2 = arith.ceildivsi %1, %c128_i32 : i32
    %3 = arith.subi %2, %c1_i32 : i32
    %4 = arith.subi %3, %0 : i32
    %5 = tile.program_id y
    %6 = tile.dim %arg0, 1 : !tile.tensor<?x?x?x256xbf16>
    %7 = tile.dim %arg1, 1 : !tile.tensor<?x?x?x256xbf16>
    %8 = arith.divui %5, %6 : i32
    %9 = arith.remui %5, %6 : i32
    %10 = arith.divui %6, %7 : i32
    %11 = arith.divui %9, %10 : i32
    %12 = arith.muli %4, %c128_i32 : i32
    %13 = tile.dim %arg1, 2 : !tile.tensor<?x?x?x256xbf16>
    %14 = tile.load %arg0[%8, %9, %12, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [1, 1, 128, 64], swizzle = 128>} : !tile.tensor<?x?x?x256xbf16> -> tensor<1x1x128x256xbf16, #linear21>
    %15 = tile.reshape %14 : tensor<1x1x128x256xbf16, #linear21> -> tensor<128x256xbf16, #linear22>
    %16 = arith.mulf %arg5, %cst_6 : f32
    %17 = arith.cmpi ne, %arg6, %c0_i32 : i32
    %18 = arith.addi %12, %c128_i32 : i32
    %19 = arith.minsi %13, %18 : i32
    %20 = arith.select %17, %19, %13 : i32
    %21 = arith.addi %12, %c1_i32 : i32
    %22 = arith.minsi %21, %13 : i32
    %23 = arith.select %17, %22, %13 : i32
    %24 = tile.convert_layout %15 {shared = #shared6} : tensor<128x256xbf16, #linear22> -> tensor<128x256xbf16, #linear20>
    %25 = tile.splat %16 : f32 -> tensor<128xf32, #linear>
    %26 = tile.splat %16 : f32 -> tensor<128x64xf32, #linear1>
    %27:3 = scf.for %arg7 = %c0_i32 to %20 step %c64_i32 iter_args(%arg8 = %cst_3, %arg9 = %cst_2, %arg10 = %cst_1) -> (tensor<128xf32, #linear>, tensor<128xf32, #linear>, tensor<128x256xf32, #linear20>)  : i32 {
      %41 = tile.load %arg1[%8, %11, %arg7, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [1, 1, 64, 64], swizzle = 128>} : !tile.tensor<?x?x?x256xbf16> -> tensor<1x1x64x256xbf16, #linear23>
      %42 = tile.reshape %41 {tgpu.partition = array<i32: 1>} : tensor<1x1x64x256xbf16, #linear23> -> tensor<64x256xbf16, #linear24>
      %43 = tile.transpose %42 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear24> -> tensor<256x64xbf16, #linear25>
      %44 = tile.convert_layout %43 {shared = #shared7, tgpu.partition = array<i32: 1>} : tensor<256x64xbf16, #linear25> -> tensor<256x64xbf16, #linear26>
      %45 = tile.dot %24, %44, %cst_5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x256xbf16, #linear20>, tensor<256x64xbf16, #linear26> -> tensor<128x64xf32, #linear1>
      %46 = arith.addi %arg7, %c64_i32 {tgpu.partition = array<i32: 1>} : i32
      %47 = arith.cmpi sgt, %46, %23 {tgpu.partition = array<i32: 1>} : i32
      %48 = scf.if %47 -> (tensor<128x64xf32, #linear1>) {
        %71 = tile.iota : tensor<64xi32, #linear27>
        %72 = tile.splat %arg7 : i32 -> tensor<64xi32, #linear27>
        %73 = arith.addi %71, %72 : tensor<64xi32, #linear27>
        %74 = tile.expand_dims %73 axis 0 : tensor<64xi32, #linear27> -> tensor<1x64xi32, #linear28>
        %75 = tile.broadcast %74 : tensor<1x64xi32, #linear28> -> tensor<128x64xi32, #linear1>
        %76 = tile.iota : tensor<128xi32, #linear>
        %77 = tile.splat %12 : i32 -> tensor<128xi32, #linear>
        %78 = arith.addi %76, %77 : tensor<128xi32, #linear>
        %79 = arith.addi %78, %cst_0 : tensor<128xi32, #linear>
        %80 = tile.splat %13 : i32 -> tensor<128xi32, #linear>
        %81 = arith.minsi %79, %80 : tensor<128xi32, #linear>
        %82 = arith.select %17, %81, %80 : tensor<128xi32, #linear>
        %83 = tile.expand_dims %82 axis 1 : tensor<128xi32, #linear> -> tensor<128x1xi32, #linear9>
        %84 = tile.broadcast %83 : tensor<128x1xi32, #linear9> -> tensor<128x64xi32, #linear1>
        %85 = arith.cmpi slt, %75, %84 : tensor<128x64xi32, #linear1>
        %86 = arith.select %85, %45, %cst_4 : tensor<128x64xi1, #linear1>, tensor<128x64xf32, #linear1>
        scf.yield %86 : tensor<128x64xf32, #linear1>
      } else {
        scf.yield %45 : tensor<128x64xf32, #linear1>
      } {tgpu.partition = array<i32: 1>}
      %49 = tile.reduce  max %48 dim 1 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %50 = arith.maximumf %arg8, %49 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %51 = arith.mulf %50, %25 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %52 = arith.mulf %48, %26 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %53 = tile.expand_dims %51 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear9>
      %54 = tile.broadcast %53 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear9> -> tensor<128x64xf32, #linear1>
      %55 = arith.subf %52, %54 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %56 = math.exp2 %55 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %57 = arith.subf %arg8, %50 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %58 = arith.mulf %57, %25 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %59 = math.exp2 %58 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %60 = tile.reduce  sum %56 dim 1 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %61 = arith.mulf %arg9, %59 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %62 = arith.addf %61, %60 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %63 = tile.expand_dims %59 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear9>
      %64 = tile.broadcast %63 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear9> -> tensor<128x256xf32, #linear20>
      %65 = arith.mulf %arg10, %64 {tgpu.partition = array<i32: 1>} : tensor<128x256xf32, #linear20>
      %66 = tile.load %arg2[%8, %11, %arg7, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [1, 1, 64, 64], swizzle = 128>} : !tile.tensor<?x?x?x256xbf16> -> tensor<1x1x64x256xbf16, #linear23>
      %67 = tile.reshape %66 {tgpu.partition = array<i32: 1>} : tensor<1x1x64x256xbf16, #linear23> -> tensor<64x256xbf16, #linear24>
      %68 = arith.truncf %56 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %69 = tile.convert_layout %67 {shared = #shared8, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear24> -> tensor<64x256xbf16, #linear29>
      %70 = tile.dot %68, %69, %65 {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1>, tensor<64x256xbf16, #linear29> -> tensor<128x256xf32, #linear20>
      scf.yield %50, %62, %70 : tensor<128xf32, #linear>, tensor<128xf32, #linear>, tensor<128x256xf32, #linear20>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %28 = arith.divf %cst, %27#1 : tensor<128xf32, #linear>
    %29 = tile.expand_dims %28 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear9>
    %30 = tile.broadcast %29 : tensor<128x1xf32, #linear9> -> tensor<128x256xf32, #linear20>
    %31 = arith.mulf %27#2, %30 : tensor<128x256xf32, #linear20>
    %32 = arith.truncf %31 : tensor<128x256xf32, #linear20> to tensor<128x256xbf16, #linear20>
    %33 = tile.convert_layout %32 {shared = #shared6} : tensor<128x256xbf16, #linear20> -> tensor<128x256xbf16, #linear30>
    %34 = tile.reshape %33 : tensor<128x256xbf16, #linear30> -> tensor<1x1x128x256xbf16, #linear31>
    %35 = tile.convert_layout %34 {shared = #shared9} : tensor<1x1x128x256xbf16, #linear31> -> tensor<1x1x128x256xbf16, #linear21>
    tile.store %35, %arg3[%8, %9, %12, %c0_i32] : tensor<1x1x128x256xbf16, #linear21>, !tile.tensor<?x?x?x256xbf16>
    %36 = tile.splat %arg5 : f32 -> tensor<128xf32, #linear>
    %37 = arith.mulf %27#0, %36 : tensor<128xf32, #linear>
    %38 = math.log %27#1 : tensor<128xf32, #linear>
    %39 = arith.addf %37, %38 : tensor<128xf32, #linear>
    %40 = tile.reshape %39 : tensor<128xf32, #linear> -> tensor<1x1x128xf32, #linear13>
    tile.store %40, %arg4[%8, %9, %12] : tensor<1x1x128xf32, #linear13>, !tile.tensor<?x?x?xf32>
    return
  }
}
