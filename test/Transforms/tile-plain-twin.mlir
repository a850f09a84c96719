// RUN: tilec-opt %s -split-input-file -tile-plain-twin -verify-diagnostics | FileCheck %s
//
// Inputs carry what the pass needs: kernels after tile-partition-schedule.

// A kernel with a scheduled main loop: the twin follows it, without
// partitions, its dot on mma.sync; the kernel names it. A kernel without a
// schedule gets none.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: tile.plain_variant = "gemm__plain"
// CHECK: tile.dot {{.*}}#tgpu.mma<wgmma, a = smem, b = smem>
// CHECK: } {tgpu.partitions =
// CHECK-LABEL: func.func @gemm__plain(
// CHECK-SAME: tile.plain_variant_of = "gemm"
// CHECK-NOT: tgpu.partition
// CHECK: tile.dot {{.*}}#tgpu.mma<mma_sync, a = regs, b = regs>
// CHECK-NOT: tgpu.partition
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
