// RUN: tilec-opt %s -split-input-file -tile-select-mma-and-tma -verify-diagnostics | FileCheck %s
//
// Inputs carry what the pass needs: layouts (tile-assign-layouts,
// tile-remove-layout-conversions) and shared layouts (tile-swizzle).

// A bf16 GEMM's main loop on sm_90a: both loads are TMA copies into
// 128-byte-swizzled slots (A's 64-element rows are one box wide, B's
// 256-element rows four 64-wide boxes), and the dot, its accumulator in
// the wgmma layout, runs on wgmma from shared memory.
// CHECK-LABEL: func.func @gemm
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>}
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>}
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
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// The same loop in a module for sm_100a (tile.target): TMA copies, but the
// accumulator is in the mma.sync layout (tile-assign-layouts gives a dot
// tcgen05 can run the layout tcgen05.ld reads tensor memory in), so
// mma.sync, and a remark says why.
// CHECK: module attributes {tile.target = #tile.target<sm_100a>}
// CHECK-LABEL: func.func @gemm_sm100
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_sm100(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      // expected-remark @+1 {{dot runs on mma.sync: the accumulator is not in tensor memory}}
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// sm_100a with the accumulator in the layout of tcgen05.ld 32x32b over 8
// warps (LinearLayout::tmem32x32b, what tile-assign-layouts gives a GEMM
// loop's dot there): tcgen05, both operands from shared memory.
// CHECK: module attributes {tile.target = #tile.target<sm_100a>}
// CHECK-LABEL: func.func @gemm_tcgen05
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>}
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 32], [0, 64], [0, 128]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0], [0, 16]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// The same, but A's view is also read after the loop, so TMA cannot copy
// A: mma.sync after all, and the accumulator laid out for tcgen05.ld is
// carried in the mma.sync layout through the loop, converted once before
// and once after it.
// CHECK-LABEL: func.func @gemm_tcgen05_fallback
// CHECK: %[[IN:.*]] = tile.convert_layout %{{.*}} : tensor<128x256xf32, #[[TMEM:[a-z0-9]+]]> -> tensor<128x256xf32, #[[MMA:[a-z0-9]+]]>
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[IN]]) -> (tensor<128x256xf32, #[[MMA]]>)
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>} : {{.*}} -> tensor<128x256xf32, #[[MMA]]>
// CHECK: tile.convert_layout %[[L]] : tensor<128x256xf32, #[[MMA]]> -> tensor<128x256xf32, #[[TMEM]]>
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 32], [0, 64], [0, 128]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0], [0, 16]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05_fallback(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      // expected-remark @+1 {{load not copied with TMA: the view has other uses}}
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      // expected-remark @+1 {{dot runs on mma.sync: A is not a load TMA copies}}
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    %again = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// fp8 with a row-major B (KxN): wgmma reads 8-bit operands K-major only,
// so the dot stays on mma.sync and the remark says how to write B.
// CHECK-LABEL: func.func @fp8_row_major_b
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [0, 64]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear3 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 16], [4, 32], [8, 64], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @fp8_row_major_b(%arg0: !tile.tensor<?x?xf8E4M3FN>, %arg1: !tile.tensor<?x?xf8E4M3FN>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xf8E4M3FN>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c128_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #linear1>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x128xf8E4M3FN, #linear1> -> tensor<128x128xf8E4M3FN, #linear2>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<128x128xf8E4M3FN, #linear1> -> tensor<128x128xf8E4M3FN, #linear3>
      // expected-remark @+1 {{dot runs on mma.sync: 8-bit wgmma reads K-major operands only; B is loaded as KxN (load Bt as NxK and transpose it)}}
      %7 = tile.dot %5, %6, %arg4 : tensor<128x128xf8E4M3FN, #linear2>, tensor<128x128xf8E4M3FN, #linear3> -> tensor<128x128xf32, #linear>
      scf.yield %7 : tensor<128x128xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x128xf32, #linear> -> tensor<128x128xf32, #linear4>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x128xf32, #linear4>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// TMA fills with zeros: a load padded with 1.0 stays a plain load, and the
// dot it feeds runs on mma.sync; both with remarks.
// CHECK-LABEL: func.func @padded
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>}
// CHECK-NOT: tgpu.tma
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
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
  func.func @padded(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      // expected-remark @+1 {{load not copied with TMA: the padding is not zero}}
      %4 = tile.load %arg1[%arg3, %c0_i32] {padding = 1.000000e+00 : bf16} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      // expected-remark @+1 {{dot runs on mma.sync: B is not a load TMA copies}}
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// TMA addresses rows 16-byte aligned: a view whose static row stride is
// 3 elements is no TMA copy, decided here (the runtime refused the bundle
// the copy made); the dot runs on mma.sync, both with remarks.
// CHECK-LABEL: func.func @stride3
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>}
// CHECK-NOT: tgpu.tma
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
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
  func.func @stride3(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16, strides = [3, 1]>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      // expected-remark @+1 {{load not copied with TMA: the view's stride 0 (3 elements) is not a multiple of 16 bytes under 2^40}}
      %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xbf16, strides = [3, 1]> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      // expected-remark @+1 {{dot runs on mma.sync: B is not a load TMA copies}}
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// TMA copies whole boxes: a masked load stays a plain load, and the dot
// it feeds runs on mma.sync; both with remarks.
// CHECK-LABEL: func.func @masked
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>}
// CHECK-NOT: tgpu.tma
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
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
  func.func @masked(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %arg5 = arith.constant dense<true> : tensor<64x256xi1, #linear2>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      // expected-remark @+1 {{load not copied with TMA: the load has a mask (TMA copies whole boxes)}}
      %4 = tile.load %arg1[%arg3, %c0_i32] mask(%arg5 : tensor<64x256xi1, #linear2>) : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      // expected-remark @+1 {{dot runs on mma.sync: B is not a load TMA copies}}
      %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// TMA copies are planned for the kernel's top-level loops: a loop inside
// an scf.if keeps plain loads, and the dot's remark says why (a grouped
// GEMM guarded its loop so and ran on mma.sync without a word).
// CHECK-LABEL: func.func @nested_loop
// CHECK-NOT: tgpu.tma
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
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
  func.func @nested_loop(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %any = arith.cmpi sgt, %0, %c0_i32 : i32
    scf.if %any {
      %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
        %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
        %4 = tile.load %arg1[%arg3, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
        %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
        %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
        // expected-remark @+1 {{dot runs on mma.sync: B is not a load TMA copies (its loop is nested in an 'scf.if': TMA copies are planned for loops at the kernel's top level)}}
        %7 = tile.dot %5, %6, %arg4 : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
        scf.yield %7 : tensor<128x256xf32, #linear>
      }
      %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
      tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    }
    return
  }
}

// -----

// Loads outside a loop are not planned (nothing to overlap them with), so
// a dot outside one runs on mma.sync; no remark.
// CHECK-LABEL: func.func @no_loop
// CHECK-NOT: tgpu.tma
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @no_loop(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %1 = tile.load %arg1[%c0_i32, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %2 = tile.convert_layout %0 {shared = #shared} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear>
    %3 = tile.convert_layout %1 {shared = #shared} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear2>
    %4 = tile.dot %2, %3, %cst : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear2> -> tensor<64x64xf32, #linear>
    %5 = tile.convert_layout %4 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear3>
    tile.store %5, %arg2[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear3>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// Attention's two dots (Q·Kᵀ, then P·V) on sm_90a. Q, loaded before the
// loop and read only by its first dot, is a TMA copy too (made once, before
// the loop), and that dot reads it from shared memory. K is a 1x32x64 tile
// of a 3-d view (box [1, 32, 64]) and V a 2-d one: both TMA copies. The
// second dot reads A from registers: P is the first dot's accumulator,
// exp'd and cast to bf16, and that layout is already the register-A layout
// (no conversion at all).
// CHECK-LABEL: func.func @chain
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>}
// CHECK: scf.for
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [1, 32, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>}
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [32, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16>
    %2 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear2>
    %3 = scf.for %arg4 = %c0_i32 to %1 step %c32_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %5 = tile.load %arg1[%0, %arg4, %c0_i32] : !tile.tensor<?x?x64xbf16> -> tensor<1x32x64xbf16, #linear3>
      %6 = tile.reshape %5 : tensor<1x32x64xbf16, #linear3> -> tensor<32x64xbf16, #linear4>
      %7 = tile.transpose %6 [1, 0] : tensor<32x64xbf16, #linear4> -> tensor<64x32xbf16, #linear5>
      %8 = tile.convert_layout %2 {shared = #shared} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear>
      %9 = tile.convert_layout %7 {shared = #shared1} : tensor<64x32xbf16, #linear5> -> tensor<64x32xbf16, #linear6>
      %10 = tile.dot %8, %9, %cst_0 : tensor<64x64xbf16, #linear>, tensor<64x32xbf16, #linear6> -> tensor<64x32xf32, #linear1>
      %11 = math.exp %10 : tensor<64x32xf32, #linear1>
      %12 = arith.truncf %11 : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
      %13 = tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<32x64xbf16, #linear4>
      %14 = tile.convert_layout %13 {shared = #shared2} : tensor<32x64xbf16, #linear4> -> tensor<32x64xbf16, #linear7>
      %15 = tile.dot %12, %14, %arg5 : tensor<64x32xbf16, #linear1>, tensor<32x64xbf16, #linear7> -> tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %4 = tile.convert_layout %3 {shared = #shared3} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear8>
    tile.store %4, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear8>, !tile.tensor<?x64xf32>
    return
  }
}

// -----

// As @chain, but Q is scaled before the loop, so it is no copy: both dots
// run on wgmma with A computed in registers. Q reaches the wgmma
// register-A layout only through shared memory (the conversion moves
// elements between threads, once an iteration), so it is staged: written
// into shared memory in wgmma's layout and read by descriptor. P is the
// first dot's accumulator, exp'd and cast to bf16, and that layout is
// already the register-A layout (no conversion at all): registers.
// CHECK-LABEL: func.func @chain_scaled
// CHECK-NOT: tgpu.tma_copy<box = [64, 64]
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [1, 32, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>}
// CHECK: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [32, 64], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain_scaled(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16>
    %2 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear2>
    %qs = arith.mulf %2, %2 : tensor<64x64xbf16, #linear2>
    %3 = scf.for %arg4 = %c0_i32 to %1 step %c32_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %5 = tile.load %arg1[%0, %arg4, %c0_i32] : !tile.tensor<?x?x64xbf16> -> tensor<1x32x64xbf16, #linear3>
      %6 = tile.reshape %5 : tensor<1x32x64xbf16, #linear3> -> tensor<32x64xbf16, #linear4>
      %7 = tile.transpose %6 [1, 0] : tensor<32x64xbf16, #linear4> -> tensor<64x32xbf16, #linear5>
      %8 = tile.convert_layout %qs {shared = #shared} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear>
      %9 = tile.convert_layout %7 {shared = #shared1} : tensor<64x32xbf16, #linear5> -> tensor<64x32xbf16, #linear6>
      %10 = tile.dot %8, %9, %cst_0 : tensor<64x64xbf16, #linear>, tensor<64x32xbf16, #linear6> -> tensor<64x32xf32, #linear1>
      %11 = math.exp %10 : tensor<64x32xf32, #linear1>
      %12 = arith.truncf %11 : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
      %13 = tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<32x64xbf16, #linear4>
      %14 = tile.convert_layout %13 {shared = #shared2} : tensor<32x64xbf16, #linear4> -> tensor<32x64xbf16, #linear7>
      %15 = tile.dot %12, %14, %arg5 : tensor<64x32xbf16, #linear1>, tensor<32x64xbf16, #linear7> -> tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %4 = tile.convert_layout %3 {shared = #shared3} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear8>
    tile.store %4, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear8>, !tile.tensor<?x64xf32>
    return
  }
}


// -----

// i8 with both operands K-major (A MxK, Bt NxK transposed): TMA copies both
// and the dot runs on wgmma (s32 accumulation).
// CHECK-LABEL: func.func @i8_k_major
// CHECK-COUNT-2: tile.load {{.*}} {tgpu.tma = #tgpu.tma_copy<box = [128, 128], swizzle = 128>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : {{.*}} -> tensor<128x128xi32
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32], [0, 64]], lane = [[16, 0], [32, 0], [64, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [0, 64]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @i8_k_major(%arg0: !tile.tensor<?x?xi8>, %arg1: !tile.tensor<?x?xi8>, %arg2: !tile.tensor<?x?xi32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0> : tensor<128x128xi32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xi8>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c128_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xi32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] : !tile.tensor<?x?xi8> -> tensor<128x128xi8, #linear1>
      %4 = tile.load %arg1[%c0_i32, %arg3] : !tile.tensor<?x?xi8> -> tensor<128x128xi8, #linear1>
      %5 = tile.transpose %4 [1, 0] : tensor<128x128xi8, #linear1> -> tensor<128x128xi8, #linear2>
      %6 = tile.convert_layout %3 {shared = #shared} : tensor<128x128xi8, #linear1> -> tensor<128x128xi8, #linear3>
      %7 = tile.convert_layout %5 {shared = #shared1} : tensor<128x128xi8, #linear2> -> tensor<128x128xi8, #linear4>
      %8 = tile.dot %6, %7, %arg4 : tensor<128x128xi8, #linear3>, tensor<128x128xi8, #linear4> -> tensor<128x128xi32, #linear>
      scf.yield %8 : tensor<128x128xi32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x128xi32, #linear> -> tensor<128x128xi32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x128xi32, #linear5>, !tile.tensor<?x?xi32>
    return
  }
}

// -----

// sm_100a attention laid out for tensor memory (tile-assign-layouts): S =
// Q·Kᵀ reads both operands from shared memory (TMA copies Q once, K in
// the loop); O = P·V reads P, computed in the layout of tcgen05.st 32x32b,
// from tensor memory.
// CHECK-LABEL: func.func @attention_tcgen05
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<tcgen05, a = tmem, b = smem>}

#linear = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @attention_tcgen05(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16>
    %3 = tile.load %arg0[%1, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<128x64xbf16, #linear2>
    %4 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear2> -> tensor<128x64xbf16, #linear3>
    %5:2 = scf.for %arg4 = %c0_i32 to %2 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %cst_0) -> (tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>)  : i32 {
      %6 = tile.load %arg1[%arg4, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %7 = tile.transpose %6 [1, 0] : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear5>
      %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %9 = tile.dot %4, %8, %cst_0 : tensor<128x64xbf16, #linear3>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      %10 = tile.reduce  max %9 dim 1 : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %11 = arith.maximumf %arg5, %10 : tensor<128xf32, #linear>
      %12 = tile.expand_dims %11 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %13 = tile.broadcast %12 : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %14 = arith.subf %9, %13 : tensor<128x64xf32, #linear1>
      %15 = math.exp2 %14 : tensor<128x64xf32, #linear1>
      %16 = arith.subf %arg5, %11 : tensor<128xf32, #linear>
      %17 = math.exp2 %16 : tensor<128xf32, #linear>
      %18 = tile.expand_dims %17 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %19 = tile.broadcast %18 : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %20 = arith.mulf %arg6, %19 : tensor<128x64xf32, #linear1>
      %21 = tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %22 = arith.truncf %15 : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %23 = tile.convert_layout %21 {shared = #shared2} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear6>
      %24 = tile.dot %22, %23, %20 : tensor<128x64xbf16, #linear1>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      scf.yield %11, %24 : tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>
    }
    tile.store %5#1, %arg3[%1, %c0_i32] : tensor<128x64xf32, #linear1>, !tile.tensor<?x64xf32>
    return
  }
}

// -----

// The same, but V's view is also read after the loop, so TMA cannot copy
// V: P·V runs on mma.sync after all, converting where it stands (P into
// the mma.sync A fragments, O's accumulator into the mma.sync layout and
// its result back into tensor memory's).
// CHECK-LABEL: func.func @attention_tcgen05_fallback
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>}
// CHECK: %[[A:.*]] = tile.convert_layout %{{.*}} : tensor<128x64xbf16, #[[TMEM:[a-z0-9]+]]> -> tensor<128x64xbf16, #[[FRAG:[a-z0-9]+]]>
// CHECK-NEXT: %[[ACC:.*]] = tile.convert_layout %{{.*}} : tensor<128x64xf32, #[[TMEM]]> -> tensor<128x64xf32, #[[MMA:[a-z0-9]+]]>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %{{.*}}, %[[ACC]] {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>} : {{.*}} -> tensor<128x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[BACK:.*]] = tile.convert_layout %[[D]] : tensor<128x64xf32, #[[MMA]]> -> tensor<128x64xf32, #[[TMEM]]>
// CHECK-NEXT: scf.yield %{{.*}}, %[[BACK]]

#linear = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @attention_tcgen05_fallback(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16>
    %3 = tile.load %arg0[%1, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<128x64xbf16, #linear2>
    %4 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear2> -> tensor<128x64xbf16, #linear3>
    %5:2 = scf.for %arg4 = %c0_i32 to %2 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %cst_0) -> (tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>)  : i32 {
      %6 = tile.load %arg1[%arg4, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %7 = tile.transpose %6 [1, 0] : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear5>
      %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %9 = tile.dot %4, %8, %cst_0 : tensor<128x64xbf16, #linear3>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      %10 = tile.reduce  max %9 dim 1 : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %11 = arith.maximumf %arg5, %10 : tensor<128xf32, #linear>
      %12 = tile.expand_dims %11 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %13 = tile.broadcast %12 : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %14 = arith.subf %9, %13 : tensor<128x64xf32, #linear1>
      %15 = math.exp2 %14 : tensor<128x64xf32, #linear1>
      %16 = arith.subf %arg5, %11 : tensor<128xf32, #linear>
      %17 = math.exp2 %16 : tensor<128xf32, #linear>
      %18 = tile.expand_dims %17 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %19 = tile.broadcast %18 : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %20 = arith.mulf %arg6, %19 : tensor<128x64xf32, #linear1>
      // expected-remark @+1 {{load not copied with TMA: the view has other uses}}
      %21 = tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %22 = arith.truncf %15 : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %23 = tile.convert_layout %21 {shared = #shared2} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear6>
      // expected-remark @+1 {{dot runs on mma.sync: B is not a load TMA copies}}
      %24 = tile.dot %22, %23, %20 : tensor<128x64xbf16, #linear1>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      scf.yield %11, %24 : tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>
    }
    tile.store %5#1, %arg3[%1, %c0_i32] : tensor<128x64xf32, #linear1>, !tile.tensor<?x64xf32>
    %again = tile.load %arg2[%c0_i32, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
    return
  }
}


// -----

// A masked tile no dot reads, padded with zero (a row of S where its
// column is even): copied whole by TMA (an unswizzled 1x128 box) and
// masked in registers, so that the load partition copies it.
// CHECK-LABEL: func.func @side_masked
// CHECK: %[[EVEN:.*]] = arith.cmpi eq
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = tile.load %arg2[{{.*}}] {tgpu.tma = #tgpu.tma_copy<box = [1, 128], swizzle = 0>} :
// CHECK-NOT: mask(
// CHECK: arith.select %[[EVEN]], %[[ROW]], %{{.*}} : tensor<1x128xi1, {{.*}}>, tensor<1x128xf32
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear2 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0], [0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @side_masked(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %cst_0 = arith.constant dense<0> : tensor<1x128xi32, #linear1>
    %cst_1 = arith.constant dense<2> : tensor<1x128xi32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<128xi32, #linear2>
    %2 = tile.expand_dims %1 axis 0 : tensor<128xi32, #linear2> -> tensor<1x128xi32, #linear1>
    %3 = arith.remsi %2, %cst_1 : tensor<1x128xi32, #linear1>
    %4 = arith.cmpi eq, %3, %cst_0 : tensor<1x128xi32, #linear1>
    %5 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%c0_i32, %arg4] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear3>
      %8 = tile.load %arg1[%arg4, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear4>
      %9 = tile.convert_layout %7 {shared = #shared} : tensor<128x64xbf16, #linear3> -> tensor<128x64xbf16, #linear5>
      %10 = tile.convert_layout %8 {shared = #shared1} : tensor<64x128xbf16, #linear4> -> tensor<64x128xbf16, #linear6>
      %11 = tile.dot %9, %10, %arg5 : tensor<128x64xbf16, #linear5>, tensor<64x128xbf16, #linear6> -> tensor<128x128xf32, #linear>
      %12 = arith.divsi %arg4, %c64_i32 : i32
      // expected-remark@+1 {{masked load copied whole, its mask applied in registers}}
      %13 = tile.load %arg2[%12, %c0_i32] mask(%4 : tensor<1x128xi1, #linear1>) : !tile.tensor<?x?xf32> -> tensor<1x128xf32, #linear1>
      %14 = tile.convert_layout %13 {shared = #shared2} : tensor<1x128xf32, #linear1> -> tensor<1x128xf32, #linear7>
      %15 = tile.broadcast %14 : tensor<1x128xf32, #linear7> -> tensor<128x128xf32, #linear>
      %16 = arith.addf %11, %15 : tensor<128x128xf32, #linear>
      scf.yield %16 : tensor<128x128xf32, #linear>
    }
    %6 = tile.convert_layout %5 {shared = #shared3} : tensor<128x128xf32, #linear> -> tensor<128x128xf32, #linear8>
    tile.store %6, %arg3[%c0_i32, %c0_i32] : tensor<128x128xf32, #linear8>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A GEMM whose A rows are gathered through an index table (test/gpu/kernels/
// producer_loads.mlir @gemm_rows): the gather, which only the dot reads and
// whose indices and mask the load partition can compute (an index table
// read at scalar offsets, iotas), is gathered by the load partition's
// threads into A's slot (tgpu.thread_gather); the dot runs on wgmma from
// shared memory.
// CHECK-LABEL: func.func @gemm_rows
// CHECK: tile.gather {{.*}} {tgpu.thread_gather}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0], [0]]>
#linear2 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0], [0]]>
#linear3 = #tile.linear<register = [[32], [64]], lane = [[0], [0], [0], [1], [2]], warp = [[4], [8], [16]]>
#linear4 = #tile.linear<register = [[32, 0], [64, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear9 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[1], [2], [4], [8], [16], [32], [64]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_rows(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(2, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %5 = tile.dim %arg2, 0 : !tile.tensor<?xi32>
    %6 = tile.iota : tensor<128xi32, #linear1>
    %7 = tile.splat %2 : i32 -> tensor<128xi32, #linear1>
    %8 = arith.addi %6, %7 : tensor<128xi32, #linear1>
    %9 = tile.splat %5 : i32 -> tensor<128xi32, #linear1>
    %10 = arith.cmpi slt, %8, %9 : tensor<128xi32, #linear1>
    %11 = tile.iota : tensor<64xi32, #linear2>
    %12 = tile.iota : tensor<128xi32, #linear3>
    %13 = tile.splat %2 : i32 -> tensor<128xi32, #linear3>
    %14 = arith.addi %12, %13 : tensor<128xi32, #linear3>
    %15 = tile.splat %5 : i32 -> tensor<128xi32, #linear3>
    %16 = arith.cmpi slt, %14, %15 : tensor<128xi32, #linear3>
    %17 = tile.expand_dims %16 axis 1 : tensor<128xi1, #linear3> -> tensor<128x1xi1, #linear4>
    %18 = tile.broadcast %17 : tensor<128x1xi1, #linear4> -> tensor<128x64xi1, #linear5>
    %19 = scf.for %arg4 = %c0_i32 to %4 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %21 = tile.load %arg2[%2] mask(%10 : tensor<128xi1, #linear1>) : !tile.tensor<?xi32> -> tensor<128xi32, #linear1>
      %22 = tile.convert_layout %21 {shared = #shared} : tensor<128xi32, #linear1> -> tensor<128xi32, #linear3>
      %23 = tile.expand_dims %22 axis 1 : tensor<128xi32, #linear3> -> tensor<128x1xi32, #linear4>
      %24 = tile.broadcast %23 : tensor<128x1xi32, #linear4> -> tensor<128x64xi32, #linear5>
      %25 = tile.splat %arg4 : i32 -> tensor<64xi32, #linear2>
      %26 = arith.addi %11, %25 : tensor<64xi32, #linear2>
      %27 = tile.expand_dims %26 axis 0 : tensor<64xi32, #linear2> -> tensor<1x64xi32, #linear6>
      %28 = tile.broadcast %27 : tensor<1x64xi32, #linear6> -> tensor<128x64xi32, #linear5>
      %29 = tile.gather %arg0[%24, %28] mask(%18 : tensor<128x64xi1, #linear5>) : !tile.tensor<?x?xbf16>, tensor<128x64xi32, #linear5>, tensor<128x64xi32, #linear5> -> tensor<128x64xbf16, #linear5>
      %30 = tile.load %arg1[%arg4, %3] : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear7>
      %31 = tile.convert_layout %29 {shared = #shared1} : tensor<128x64xbf16, #linear5> -> tensor<128x64xbf16, #linear8>
      %32 = tile.convert_layout %30 {shared = #shared2} : tensor<64x128xbf16, #linear7> -> tensor<64x128xbf16, #linear9>
      %33 = tile.dot %31, %32, %arg5 : tensor<128x64xbf16, #linear8>, tensor<64x128xbf16, #linear9> -> tensor<128x128xf32, #linear>
      scf.yield %33 : tensor<128x128xf32, #linear>
    }
    %20 = tile.convert_layout %19 {shared = #shared3} : tensor<128x128xf32, #linear> -> tensor<128x128xf32, #linear10>
    tile.store %20, %arg3[%2, %3] : tensor<128x128xf32, #linear10>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// MLA's step (examples/mla_decode.mlir, reduced): Q's 512 latent columns and
// its 64 rotary ones are two loads of one view, both in 64x64 boxes, so
// both are TMA copies of one TMA view; the page's latent and rotary rows
// are two gathers sharing one block-table read (each gathered by the load
// partition's threads); the 64x512 P·V accumulator is split by N over the
// two warpgroups (m64n256 each), P staged.
// CHECK-LABEL: func.func @mla_mini
// CHECK: tile.load %arg0{{.*}}{tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} {{.*}} -> tensor<64x512xbf16
// CHECK: tile.load %arg0{{.*}}{tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} {{.*}} -> tensor<64x64xbf16
// CHECK: tile.gather %arg1{{.*}}{tgpu.thread_gather}{{.*}} -> tensor<64x512xbf16
// CHECK: tile.gather %arg1{{.*}}{tgpu.thread_gather}{{.*}} -> tensor<64x64xbf16
// CHECK: tile.dot {{.*}}{tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} {{.*}} -> tensor<64x64xf32
// CHECK: tile.dot {{.*}}{tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} {{.*}} -> tensor<64x64xf32
// CHECK: tile.dot {{.*}}{tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>} {{.*}} -> tensor<64x512xf32
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 32]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 256]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear4 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [0]], warp = [[0], [0], [0]]>
#linear5 = #tile.linear<register = [[8], [16], [32]], lane = [[0], [0], [0], [0], [0]], warp = [[1], [2], [4]]>
#linear6 = #tile.linear<register = [[1], [2], [4], [256]], lane = [[8], [16], [32], [64], [128]], warp = [[0], [0], [0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[32]], lane = [[0], [0], [0], [1], [2]], warp = [[4], [8], [16]]>
#linear9 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0], [0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear11 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 0]]>
#linear12 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 0]]>
#linear13 = #tile.linear<register = [[8, 0], [16, 0], [32, 0]], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear14 = #tile.linear<register = [[32, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear15 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [256, 0], [0, 8], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [64, 0], [128, 0]], warp = [[0, 1], [0, 2], [0, 4]]>
#linear16 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear17 = #tile.linear<register = [[1, 0], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 32]]>
#linear18 = #tile.linear<register = [[1, 0], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 32]]>
#linear19 = #tile.linear<register = [[1, 0], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 256]]>
#linear20 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [0, 256], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[1], [2], [4], [8], [16], [32]]>
#shared3 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared4 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared5 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @mla_mini(%arg0: !tile.tensor<?x576xbf16>, %arg1: !tile.tensor<?x?x576xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x512xf32>, %arg4: i32) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c512_i32 = arith.constant 512 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x576xbf16> -> tensor<64x512xbf16, #linear2>
    %1 = tile.load %arg0[%c0_i32, %c512_i32] : !tile.tensor<?x576xbf16> -> tensor<64x64xbf16, #linear3>
    %2 = tile.iota : tensor<64xi32, #linear4>
    %3 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear4>
    %4 = tile.iota : tensor<64xi32, #linear5>
    %5 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear5>
    %6 = tile.iota : tensor<512xi32, #linear6>
    %7 = tile.expand_dims %6 axis 0 : tensor<512xi32, #linear6> -> tensor<1x512xi32, #linear7>
    %8 = tile.broadcast %7 : tensor<1x512xi32, #linear7> -> tensor<64x512xi32, #linear2>
    %9 = tile.iota : tensor<64xi32, #linear8>
    %10 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear8>
    %11 = tile.iota : tensor<64xi32, #linear9>
    %12 = tile.splat %c512_i32 : i32 -> tensor<64xi32, #linear9>
    %13 = arith.addi %11, %12 : tensor<64xi32, #linear9>
    %14 = tile.expand_dims %13 axis 0 : tensor<64xi32, #linear9> -> tensor<1x64xi32, #linear10>
    %15 = tile.broadcast %14 : tensor<1x64xi32, #linear10> -> tensor<64x64xi32, #linear3>
    %16 = tile.convert_layout %0 {shared = #shared} : tensor<64x512xbf16, #linear2> -> tensor<64x512xbf16, #linear11>
    %17 = tile.convert_layout %1 {shared = #shared1} : tensor<64x64xbf16, #linear3> -> tensor<64x64xbf16, #linear12>
    %18 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_0) -> (tensor<64x512xf32, #linear1>)  : i32 {
      %20 = tile.splat %arg5 : i32 -> tensor<64xi32, #linear4>
      %21 = arith.addi %2, %20 : tensor<64xi32, #linear4>
      %22 = arith.divui %21, %3 : tensor<64xi32, #linear4>
      %23 = tile.gather %arg2[%22] : !tile.tensor<?xi32>, tensor<64xi32, #linear4> -> tensor<64xi32, #linear4>
      %24 = tile.convert_layout %23 {shared = #shared2} : tensor<64xi32, #linear4> -> tensor<64xi32, #linear5>
      %25 = tile.expand_dims %24 axis 1 : tensor<64xi32, #linear5> -> tensor<64x1xi32, #linear13>
      %26 = tile.splat %arg5 : i32 -> tensor<64xi32, #linear5>
      %27 = arith.addi %4, %26 : tensor<64xi32, #linear5>
      %28 = arith.remui %27, %5 : tensor<64xi32, #linear5>
      %29 = tile.expand_dims %28 axis 1 : tensor<64xi32, #linear5> -> tensor<64x1xi32, #linear13>
      %30 = tile.broadcast %25 : tensor<64x1xi32, #linear13> -> tensor<64x512xi32, #linear2>
      %31 = tile.broadcast %29 : tensor<64x1xi32, #linear13> -> tensor<64x512xi32, #linear2>
      %32 = tile.gather %arg1[%30, %31, %8] : !tile.tensor<?x?x576xbf16>, tensor<64x512xi32, #linear2>, tensor<64x512xi32, #linear2>, tensor<64x512xi32, #linear2> -> tensor<64x512xbf16, #linear2>
      %33 = tile.convert_layout %23 {shared = #shared2} : tensor<64xi32, #linear4> -> tensor<64xi32, #linear8>
      %34 = tile.expand_dims %33 axis 1 : tensor<64xi32, #linear8> -> tensor<64x1xi32, #linear14>
      %35 = tile.broadcast %34 : tensor<64x1xi32, #linear14> -> tensor<64x64xi32, #linear3>
      %36 = tile.splat %arg5 : i32 -> tensor<64xi32, #linear8>
      %37 = arith.addi %9, %36 : tensor<64xi32, #linear8>
      %38 = arith.remui %37, %10 : tensor<64xi32, #linear8>
      %39 = tile.expand_dims %38 axis 1 : tensor<64xi32, #linear8> -> tensor<64x1xi32, #linear14>
      %40 = tile.broadcast %39 : tensor<64x1xi32, #linear14> -> tensor<64x64xi32, #linear3>
      %41 = tile.gather %arg1[%35, %40, %15] : !tile.tensor<?x?x576xbf16>, tensor<64x64xi32, #linear3>, tensor<64x64xi32, #linear3>, tensor<64x64xi32, #linear3> -> tensor<64x64xbf16, #linear3>
      %42 = tile.transpose %32 [1, 0] : tensor<64x512xbf16, #linear2> -> tensor<512x64xbf16, #linear15>
      %43 = tile.transpose %41 [1, 0] : tensor<64x64xbf16, #linear3> -> tensor<64x64xbf16, #linear16>
      %44 = tile.convert_layout %42 {shared = #shared3} : tensor<512x64xbf16, #linear15> -> tensor<512x64xbf16, #linear17>
      %45 = tile.dot %16, %44, %cst : tensor<64x512xbf16, #linear11>, tensor<512x64xbf16, #linear17> -> tensor<64x64xf32, #linear>
      %46 = tile.convert_layout %43 {shared = #shared4} : tensor<64x64xbf16, #linear16> -> tensor<64x64xbf16, #linear18>
      %47 = tile.dot %17, %46, %45 : tensor<64x64xbf16, #linear12>, tensor<64x64xbf16, #linear18> -> tensor<64x64xf32, #linear>
      %48 = arith.truncf %47 : tensor<64x64xf32, #linear> to tensor<64x64xbf16, #linear>
      %49 = tile.convert_layout %48 {shared = #shared1} : tensor<64x64xbf16, #linear> -> tensor<64x64xbf16, #linear12>
      %50 = tile.convert_layout %32 {shared = #shared} : tensor<64x512xbf16, #linear2> -> tensor<64x512xbf16, #linear19>
      %51 = tile.dot %49, %50, %arg6 : tensor<64x64xbf16, #linear12>, tensor<64x512xbf16, #linear19> -> tensor<64x512xf32, #linear1>
      scf.yield %51 : tensor<64x512xf32, #linear1>
    }
    %19 = tile.convert_layout %18 {shared = #shared5} : tensor<64x512xf32, #linear1> -> tensor<64x512xf32, #linear20>
    tile.store %19, %arg3[%c0_i32, %c0_i32] : tensor<64x512xf32, #linear20>, !tile.tensor<?x512xf32>
    return
  }
}



// -----

// In clusters of two along x, a tile the pair shares (B: its offsets do
// not depend on program_id x) whose boxes side by side are not a multiple
// of two (fp8 Bt, 256 rows of 128 bytes: one box) is copied in boxes of
// half its rows, one a CTA (tile-cluster-multicast); A keeps its box.
// Without the cluster, one box of 256 rows.

// CHECK-LABEL: func.func @gemm_fp8_cluster
// CHECK: tile.load %arg0{{.*}}box = [128, 128]
// CHECK: tile.load %arg1{{.*}}box = [128, 128]{{.*}} -> tensor<256x128xf8E4M3FN
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0], [128, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear3 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32], [0, 64], [0, 128]], lane = [[16, 0], [32, 0], [64, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [0, 64]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_fp8_cluster(%arg0: !tile.tensor<?x?xf8E4M3FN>, %arg1: !tile.tensor<?x?xf8E4M3FN>, %arg2: !tile.tensor<?x?xbf16>) attributes {tile.cluster = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %c256_i32 = arith.constant 256 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c256_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xf8E4M3FN>
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c128_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %8 = tile.load %arg0[%2, %arg3] : !tile.tensor<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #linear1>
      %9 = tile.load %arg1[%3, %arg3] : !tile.tensor<?x?xf8E4M3FN> -> tensor<256x128xf8E4M3FN, #linear2>
      %10 = tile.transpose %9 [1, 0] : tensor<256x128xf8E4M3FN, #linear2> -> tensor<128x256xf8E4M3FN, #linear3>
      %11 = tile.convert_layout %8 {shared = #shared} : tensor<128x128xf8E4M3FN, #linear1> -> tensor<128x128xf8E4M3FN, #linear4>
      %12 = tile.convert_layout %10 {shared = #shared1} : tensor<128x256xf8E4M3FN, #linear3> -> tensor<128x256xf8E4M3FN, #linear5>
      %13 = tile.dot %11, %12, %arg4 : tensor<128x128xf8E4M3FN, #linear4>, tensor<128x256xf8E4M3FN, #linear5> -> tensor<128x256xf32, #linear>
      scf.yield %13 : tensor<128x256xf32, #linear>
    }
    %6 = arith.truncf %5 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
    %7 = tile.convert_layout %6 {shared = #shared2} : tensor<128x256xbf16, #linear> -> tensor<128x256xbf16, #linear6>
    tile.store %7, %arg2[%2, %3] : tensor<128x256xbf16, #linear6>, !tile.tensor<?x?xbf16>
    return
  }
}


// -----

// CHECK-LABEL: func.func @gemm_fp8_no_cluster
// CHECK: tile.load %arg1{{.*}}box = [256, 128]{{.*}} -> tensor<256x128xf8E4M3FN
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0], [128, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear3 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32], [0, 64], [0, 128]], lane = [[16, 0], [32, 0], [64, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [0, 64]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_fp8_no_cluster(%arg0: !tile.tensor<?x?xf8E4M3FN>, %arg1: !tile.tensor<?x?xf8E4M3FN>, %arg2: !tile.tensor<?x?xbf16>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %c256_i32 = arith.constant 256 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c256_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xf8E4M3FN>
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c128_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %8 = tile.load %arg0[%2, %arg3] : !tile.tensor<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #linear1>
      %9 = tile.load %arg1[%3, %arg3] : !tile.tensor<?x?xf8E4M3FN> -> tensor<256x128xf8E4M3FN, #linear2>
      %10 = tile.transpose %9 [1, 0] : tensor<256x128xf8E4M3FN, #linear2> -> tensor<128x256xf8E4M3FN, #linear3>
      %11 = tile.convert_layout %8 {shared = #shared} : tensor<128x128xf8E4M3FN, #linear1> -> tensor<128x128xf8E4M3FN, #linear4>
      %12 = tile.convert_layout %10 {shared = #shared1} : tensor<128x256xf8E4M3FN, #linear3> -> tensor<128x256xf8E4M3FN, #linear5>
      %13 = tile.dot %11, %12, %arg4 : tensor<128x128xf8E4M3FN, #linear4>, tensor<128x256xf8E4M3FN, #linear5> -> tensor<128x256xf32, #linear>
      scf.yield %13 : tensor<128x256xf32, #linear>
    }
    %6 = arith.truncf %5 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
    %7 = tile.convert_layout %6 {shared = #shared2} : tensor<128x256xbf16, #linear> -> tensor<128x256xbf16, #linear6>
    tile.store %7, %arg2[%2, %3] : tensor<128x256xbf16, #linear6>, !tile.tensor<?x?xbf16>
    return
  }
}

// -----

// fp8 attention's chain: P (the first dot's f32 accumulator, exp2'd and
// cast to e4m3) is the second dot's A, with its columns renamed (k3 k2 k1
// k0) -> (k2 k1 k3 k0) by a reshape, transpose and reshape, as
// examples/attention_fp8.mlir writes it. That is 8-bit wgmma's register-A
// layout up to a permutation of each thread's registers, so wgmma reads P
// from registers with no data moved; Vᵀ is loaded N x K and transposed
// (K-major, as 8-bit wgmma reads B).
// CHECK-LABEL: func.func @chain_fp8
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>}
// CHECK: tile.convert_layout %{{[0-9]+}} : tensor<64x4x4x2x2xf8E4M3FN
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>} : tensor<64x64xf8E4M3FN
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0]], lane = [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 32, 0]], lane = [[0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0], [0, 4, 0]], warp = [[0, 8, 0], [0, 16, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], lane = [[16, 0], [32, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 8], [0, 16]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 0, 0, 0, 1], [8, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 0, 1, 0], [0, 0, 0, 2, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear7 = #tile.linear<register = [[0, 0, 0, 0, 1], [8, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 1, 0, 0], [0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear8 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 1, 0], [8, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 1, 0, 0], [0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear9 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain_fp8(%arg0: !tile.tensor<?x64xf8E4M3FN>, %arg1: !tile.tensor<?x?x64xf8E4M3FN>, %arg2: !tile.tensor<64x?xf8E4M3FN>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg2, 1 : !tile.tensor<64x?xf8E4M3FN>
    %2 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
    %3 = tile.convert_layout %2 {shared = #shared} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear2>
    %4 = scf.for %arg4 = %c0_i32 to %1 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %6 = tile.load %arg1[%0, %arg4, %c0_i32] : !tile.tensor<?x?x64xf8E4M3FN> -> tensor<1x64x64xf8E4M3FN, #linear3>
      %7 = tile.reshape %6 : tensor<1x64x64xf8E4M3FN, #linear3> -> tensor<64x64xf8E4M3FN, #linear1>
      %8 = tile.transpose %7 [1, 0] : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %9 = tile.convert_layout %8 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      %10 = tile.dot %3, %9, %cst : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      %11 = math.exp2 %10 : tensor<64x64xf32, #linear>
      %12 = arith.truncf %11 : tensor<64x64xf32, #linear> to tensor<64x64xf8E4M3FN, #linear>
      %13 = tile.reshape %12 : tensor<64x64xf8E4M3FN, #linear> -> tensor<64x4x2x4x2xf8E4M3FN, #linear6>
      %14 = tile.transpose %13 [0, 1, 3, 2, 4] : tensor<64x4x2x4x2xf8E4M3FN, #linear6> -> tensor<64x4x4x2x2xf8E4M3FN, #linear7>
      %15 = tile.load %arg2[%c0_i32, %arg4] : !tile.tensor<64x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
      %16 = tile.transpose %15 [1, 0] : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %17 = tile.convert_layout %14 : tensor<64x4x4x2x2xf8E4M3FN, #linear7> -> tensor<64x4x4x2x2xf8E4M3FN, #linear8>
      %18 = tile.reshape %17 : tensor<64x4x4x2x2xf8E4M3FN, #linear8> -> tensor<64x64xf8E4M3FN, #linear2>
      %19 = tile.convert_layout %16 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      %20 = tile.dot %18, %19, %arg5 : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      scf.yield %20 : tensor<64x64xf32, #linear>
    }
    %5 = tile.convert_layout %4 {shared = #shared2} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear9>
    tile.store %5, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear9>, !tile.tensor<?x64xf32>
    return
  }
}

// -----

// The same chain without the renaming: the accumulator gives a thread
// columns 8j + 2t + {0, 1} of each 32, 8-bit A wants 4t + {0..3}, so P
// moves between lanes, through shared memory each iteration (still wgmma,
// a = regs after the conversion); a remark says how to keep it in
// registers.
// CHECK-LABEL: func.func @chain_fp8_unrenamed
// CHECK: tile.convert_layout %{{.*}} {shared = #{{.*}}} : tensor<64x64xf8E4M3FN
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>} : tensor<64x64xf8E4M3FN
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0]], lane = [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 32, 0]], lane = [[0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0], [0, 4, 0]], warp = [[0, 8, 0], [0, 16, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], lane = [[16, 0], [32, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 8], [0, 16]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain_fp8_unrenamed(%arg0: !tile.tensor<?x64xf8E4M3FN>, %arg1: !tile.tensor<?x?x64xf8E4M3FN>, %arg2: !tile.tensor<64x?xf8E4M3FN>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg2, 1 : !tile.tensor<64x?xf8E4M3FN>
    %2 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
    %3 = tile.convert_layout %2 {shared = #shared} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear2>
    %4 = scf.for %arg4 = %c0_i32 to %1 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %6 = tile.load %arg1[%0, %arg4, %c0_i32] : !tile.tensor<?x?x64xf8E4M3FN> -> tensor<1x64x64xf8E4M3FN, #linear3>
      %7 = tile.reshape %6 : tensor<1x64x64xf8E4M3FN, #linear3> -> tensor<64x64xf8E4M3FN, #linear1>
      %8 = tile.transpose %7 [1, 0] : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %9 = tile.convert_layout %8 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      %10 = tile.dot %3, %9, %cst : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      %11 = math.exp2 %10 : tensor<64x64xf32, #linear>
      %12 = arith.truncf %11 : tensor<64x64xf32, #linear> to tensor<64x64xf8E4M3FN, #linear>
      %13 = tile.load %arg2[%c0_i32, %arg4] : !tile.tensor<64x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
      %14 = tile.transpose %13 [1, 0] : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %15 = tile.convert_layout %12 {shared = #shared2} : tensor<64x64xf8E4M3FN, #linear> -> tensor<64x64xf8E4M3FN, #linear2>
      %16 = tile.convert_layout %14 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      // expected-remark @below {{its 8-bit A reaches wgmma's register-A layout through shared memory each iteration}}
      %17 = tile.dot %15, %16, %arg5 : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      scf.yield %17 : tensor<64x64xf32, #linear>
    }
    %5 = tile.convert_layout %4 {shared = #shared3} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear6>
    tile.store %5, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear6>, !tile.tensor<?x64xf32>
    return
  }
}

// -----

// The chain with V given row-major (keys x D, as fp8 attention's V): 8-bit
// wgmma reads B K-major only, and A is computed, so B is the load
// partition's K-major copy (its threads write V transposed, keys renamed
// as the program renames them, into the slot): b = kmajor_copy, and V's
// load gets no TMA copy.
// CHECK-LABEL: func.func @chain_fp8_vrow
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>}
// CHECK: tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xf8E4M3FN>
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = kmajor_copy>} : tensor<64x64xf8E4M3FN
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0]], lane = [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 32, 0]], lane = [[0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0], [0, 4, 0]], warp = [[0, 8, 0], [0, 16, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], lane = [[16, 0], [32, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 8], [0, 16]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 0, 0, 0, 1], [8, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 0, 1, 0], [0, 0, 0, 2, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear7 = #tile.linear<register = [[0, 0, 0, 0, 1], [8, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 1, 0, 0], [0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear8 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [2, 0, 0, 0, 0]], lane = [[0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [0, 0, 2, 0, 0]], warp = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]>
#linear9 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [2, 0, 0, 0, 0]], lane = [[0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], warp = [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0]]>
#linear10 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 1, 0], [8, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 1, 0, 0], [0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear11 = #tile.linear<register = [[0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 0, 0, 8], [0, 0, 0, 0, 16], [0, 0, 0, 0, 32]], lane = [[0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4]], warp = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]>
#linear12 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain_fp8_vrow(%arg0: !tile.tensor<?x64xf8E4M3FN>, %arg1: !tile.tensor<?x?x64xf8E4M3FN>, %arg2: !tile.tensor<?x64xf8E4M3FN>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg2, 0 : !tile.tensor<?x64xf8E4M3FN>
    %2 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
    %3 = tile.convert_layout %2 {shared = #shared} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear2>
    %4 = scf.for %arg4 = %c0_i32 to %1 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %6 = tile.load %arg1[%0, %arg4, %c0_i32] : !tile.tensor<?x?x64xf8E4M3FN> -> tensor<1x64x64xf8E4M3FN, #linear3>
      %7 = tile.reshape %6 : tensor<1x64x64xf8E4M3FN, #linear3> -> tensor<64x64xf8E4M3FN, #linear1>
      %8 = tile.transpose %7 [1, 0] : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %9 = tile.convert_layout %8 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      %10 = tile.dot %3, %9, %cst : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      %11 = math.exp2 %10 : tensor<64x64xf32, #linear>
      %12 = arith.truncf %11 : tensor<64x64xf32, #linear> to tensor<64x64xf8E4M3FN, #linear>
      %13 = tile.reshape %12 : tensor<64x64xf8E4M3FN, #linear> -> tensor<64x4x2x4x2xf8E4M3FN, #linear6>
      %14 = tile.transpose %13 [0, 1, 3, 2, 4] : tensor<64x4x2x4x2xf8E4M3FN, #linear6> -> tensor<64x4x4x2x2xf8E4M3FN, #linear7>
      %15 = tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
      %16 = tile.reshape %15 : tensor<64x64xf8E4M3FN, #linear1> -> tensor<4x2x4x2x64xf8E4M3FN, #linear8>
      %17 = tile.transpose %16 [0, 2, 1, 3, 4] : tensor<4x2x4x2x64xf8E4M3FN, #linear8> -> tensor<4x4x2x2x64xf8E4M3FN, #linear9>
      %18 = tile.convert_layout %14 : tensor<64x4x4x2x2xf8E4M3FN, #linear7> -> tensor<64x4x4x2x2xf8E4M3FN, #linear10>
      %19 = tile.reshape %18 : tensor<64x4x4x2x2xf8E4M3FN, #linear10> -> tensor<64x64xf8E4M3FN, #linear2>
      %20 = tile.convert_layout %17 {shared = #shared2} : tensor<4x4x2x2x64xf8E4M3FN, #linear9> -> tensor<4x4x2x2x64xf8E4M3FN, #linear11>
      %21 = tile.reshape %20 : tensor<4x4x2x2x64xf8E4M3FN, #linear11> -> tensor<64x64xf8E4M3FN, #linear5>
      %22 = tile.dot %19, %21, %arg5 : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      scf.yield %22 : tensor<64x64xf32, #linear>
    }
    %5 = tile.convert_layout %4 {shared = #shared3} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear12>
    tile.store %5, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear12>, !tile.tensor<?x64xf32>
    return
  }
}
