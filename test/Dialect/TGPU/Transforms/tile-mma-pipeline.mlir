// RUN: tilec-opt %s -tile-mma-pipeline | FileCheck %s
//
// The input is tile-warp-specialize's consumer loop for attention's shape
// (two wgmmas, each waited for at once; the second, P·V, only feeds the
// next iteration). The pass peels iteration 0 without P·V, then issues
// iteration j's Q·Kᵀ and iteration j - 1's P·V back to back, waits for
// Q·Kᵀ alone (one group left in flight), runs the math, waits for P·V and
// releases use j - 1 where its result is first needed (here only at the
// end: the accumulator is carried alone), and issues the last P·V after
// the loop.

// CHECK-LABEL: func.func @chain
// CHECK: }, {
// Prologue: use 0, Q·Kᵀ, its wait, the math; no P·V.
// CHECK: %[[S0:.*]] = tgpu.channel_wait %channel[%{{.*}}]
// CHECK-NEXT: %[[X0:.*]] = tgpu.wgmma %{{.*}}, %{{.*}}[%[[S0]]], %{{.*}} : tensor<64x64xbf16
// CHECK-NEXT: tgpu.wgmma_wait %[[X0]] {{.*}} {pendings = 0 : i32}
// CHECK-NEXT: math.exp
// CHECK-NEXT: %[[P0:.*]] = arith.truncf
// CHECK-NOT: tgpu.wgmma
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}, %[[P:.*]] = %[[P0]], %[[SP:.*]] = %[[S0]])
// CHECK-NEXT: %[[S:.*]] = tgpu.channel_wait %channel[%[[I]]]
// CHECK-NEXT: %[[X:.*]] = tgpu.wgmma %{{.*}}, %{{.*}}[%[[S]]], %{{.*}} : tensor<64x64xbf16
// CHECK-NEXT: %[[Y:.*]] = tgpu.wgmma %[[P]], %{{.*}}[%[[SP]]], %[[ACC]] : tensor<64x32xbf16
// CHECK-NEXT: tgpu.wgmma_wait %[[X]] {{.*}} {pendings = 1 : i32}
// CHECK: %[[YR:.*]] = tgpu.wgmma_wait %[[Y]] : tensor<64x64xf32, #linear> {pendings = 0 : i32}
// CHECK: %[[PREV:.*]] = arith.subi %[[I]], %{{.*}}
// CHECK-NEXT: tgpu.channel_release %channel[%[[PREV]]]
// CHECK-NEXT: scf.yield %[[YR]], %{{.*}}, %{{.*}}, %[[S]]
// Epilogue: the last P·V, its wait and release.
// CHECK: %[[L:.*]] = tgpu.wgmma
// CHECK-NEXT: tgpu.wgmma_wait %[[L]] {{.*}} {pendings = 0 : i32}
// CHECK: tgpu.channel_release %channel
// CHECK: tgpu.tma_store

// With math whose small result (a row sum) is still needed after P·V's
// wait, the wait lists it: the lowering keeps the wait below the math, so
// the math overlaps P·V (ptxas would hoist the wait). The exponentials
// themselves (a 64x32 tile) are pinned through the sum.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.for
// CHECK: tgpu.wgmma_wait %{{.*}} {pendings = 1 : i32}
// CHECK: %[[RS:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<64xf32
// CHECK: tgpu.wgmma_wait %{{.*}} : tensor<64x64xf32, #{{.*}}> after(%[[RS]] : tensor<64xf32, #{{.*}}>) {pendings = 0 : i32}

#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#row = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x?x64xbf16, tma = 1x32x64, swizzle = 128>, %arg2: !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>, %arg3: !tile.tensor<?x64xf32, tma = 64x32, swizzle = 128>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 4 : !tgpu.smem<?x32x64xbf16, #shared>, !tgpu.smem<?x32x64xbf16, #shared>
    %0 = tgpu.transpose %buffers#0 : <?x32x64xbf16, #shared> -> <?x64x32xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 240>] {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c32_i32 = arith.constant 32 : i32
      %1 = tile.program_id x
      %2 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
      %3 = scf.for %arg4 = %c0_i32_0 to %2 step %c32_i32 iter_args(%arg5 = %c0_i32) -> (i32)  : i32 {
        %4 = tgpu.channel_acquire %channel[%arg5]
        tgpu.tma_load %arg1[%1, %arg4, %c0_i32_0] -> %buffers#0[%4], %channel : <?x?x64xbf16, tma = 1x32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
        tgpu.tma_load %arg2[%arg4, %c0_i32_0] -> %buffers#1[%4], %channel : <?x64xbf16, tma = 32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %5 = arith.addi %arg5, %c1_i32 : i32
        scf.yield %5 : i32
      }
    }, {
      %1 = tgpu.alloc : <2x64x32xf32, #shared2>
      %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
      %c0_i32 = arith.constant 0 : i32
      %c32_i32 = arith.constant 32 : i32
      %2 = tile.program_id x
      %3 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
      %4 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear2>
      %5 = tile.convert_layout %4 {shared = #shared3} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear>
      %c0_i32_1 = arith.constant 0 : i32
      %6 = arith.cmpi slt, %c0_i32, %3 : i32
      %7:2 = scf.if %6 -> (tensor<64x64xf32, #linear>, i32) {
        %8:2 = scf.for %arg4 = %c0_i32 to %3 step %c32_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32_1) -> (tensor<64x64xf32, #linear>, i32)  : i32 {
          %9 = tgpu.channel_wait %channel[%arg6]
          %10 = tgpu.wgmma %5, %0[%9], %cst_0 : tensor<64x64xbf16, #linear>, <?x64x32xbf16, #shared1>, tensor<64x32xf32, #linear1>
          %11 = tgpu.wgmma_wait %10 : tensor<64x32xf32, #linear1> {pendings = 0 : i32}
          %12 = math.exp %11 : tensor<64x32xf32, #linear1>
          %13 = arith.truncf %12 : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
          %14 = tgpu.wgmma %13, %buffers#1[%9], %arg5 : tensor<64x32xbf16, #linear1>, <?x32x64xbf16, #shared>, tensor<64x64xf32, #linear>
          %15 = tgpu.wgmma_wait %14 : tensor<64x64xf32, #linear> {pendings = 0 : i32}
          tgpu.channel_release %channel[%arg6]
          %c1_i32 = arith.constant 1 : i32
          %16 = arith.addi %arg6, %c1_i32 : i32
          scf.yield %15, %16 : tensor<64x64xf32, #linear>, i32
        }
        scf.yield %8#0, %8#1 : tensor<64x64xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_1 : tensor<64x64xf32, #linear>, i32
      }
      tgpu.tma_store %7#0, %arg3[%c0_i32, %c0_i32] via %1 : tensor<64x64xf32, #linear>, <?x64xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared2>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
  func.func @row_sum(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x?x64xbf16, tma = 1x32x64, swizzle = 128>, %arg2: !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>, %arg3: !tile.tensor<?x64xf32, tma = 64x32, swizzle = 128>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 4 : !tgpu.smem<?x32x64xbf16, #shared>, !tgpu.smem<?x32x64xbf16, #shared>
    %0 = tgpu.transpose %buffers#0 : <?x32x64xbf16, #shared> -> <?x64x32xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 240>] {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c32_i32 = arith.constant 32 : i32
      %1 = tile.program_id x
      %2 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
      %3 = scf.for %arg4 = %c0_i32_0 to %2 step %c32_i32 iter_args(%arg5 = %c0_i32) -> (i32)  : i32 {
        %4 = tgpu.channel_acquire %channel[%arg5]
        tgpu.tma_load %arg1[%1, %arg4, %c0_i32_0] -> %buffers#0[%4], %channel : <?x?x64xbf16, tma = 1x32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
        tgpu.tma_load %arg2[%arg4, %c0_i32_0] -> %buffers#1[%4], %channel : <?x64xbf16, tma = 32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %5 = arith.addi %arg5, %c1_i32 : i32
        scf.yield %5 : i32
      }
    }, {
      %1 = tgpu.alloc : <2x64x32xf32, #shared2>
      %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
      %c0_i32 = arith.constant 0 : i32
      %c32_i32 = arith.constant 32 : i32
      %2 = tile.program_id x
      %3 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
      %4 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear2>
      %5 = tile.convert_layout %4 {shared = #shared3} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear>
      %c0_i32_1 = arith.constant 0 : i32
      %zr = arith.constant dense<0.000000e+00> : tensor<64xf32, #row>
      %6 = arith.cmpi slt, %c0_i32, %3 : i32
      %7:2 = scf.if %6 -> (tensor<64x64xf32, #linear>, i32) {
        %8:3 = scf.for %arg4 = %c0_i32 to %3 step %c32_i32 iter_args(%arg5 = %cst, %arg7 = %zr, %arg6 = %c0_i32_1) -> (tensor<64x64xf32, #linear>, tensor<64xf32, #row>, i32)  : i32 {
          %9 = tgpu.channel_wait %channel[%arg6]
          %10 = tgpu.wgmma %5, %0[%9], %cst_0 : tensor<64x64xbf16, #linear>, <?x64x32xbf16, #shared1>, tensor<64x32xf32, #linear1>
          %11 = tgpu.wgmma_wait %10 : tensor<64x32xf32, #linear1> {pendings = 0 : i32}
          %12 = math.exp %11 : tensor<64x32xf32, #linear1>
          %rs = tile.reduce sum %12 dim 1 : tensor<64x32xf32, #linear1> -> tensor<64xf32, #row>
          %rs2 = arith.addf %arg7, %rs : tensor<64xf32, #row>
          %13 = arith.truncf %12 : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
          %14 = tgpu.wgmma %13, %buffers#1[%9], %arg5 : tensor<64x32xbf16, #linear1>, <?x32x64xbf16, #shared>, tensor<64x64xf32, #linear>
          %15 = tgpu.wgmma_wait %14 : tensor<64x64xf32, #linear> {pendings = 0 : i32}
          tgpu.channel_release %channel[%arg6]
          %c1_i32 = arith.constant 1 : i32
          %16 = arith.addi %arg6, %c1_i32 : i32
          scf.yield %15, %rs2, %16 : tensor<64x64xf32, #linear>, tensor<64xf32, #row>, i32
        }
        scf.yield %8#0, %8#2 : tensor<64x64xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_1 : tensor<64x64xf32, #linear>, i32
      }
      tgpu.tma_store %7#0, %arg3[%c0_i32, %c0_i32] via %1 : tensor<64x64xf32, #linear>, <?x64xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared2>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}
