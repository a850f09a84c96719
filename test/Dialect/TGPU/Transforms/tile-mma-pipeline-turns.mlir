// RUN: tilec-opt %s -tile-mma-pipeline=warpgroup-turns | FileCheck %s
// RUN: tilec-opt %s -tile-mma-pipeline | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt %s -tile-mma-pipeline=warpgroup-turns -tile-allocate-named-barriers | FileCheck %s --check-prefix=IDS

// tile-mma-pipeline on a consumer of two warpgroups (8 warps, 128 query
// rows) whose two MMAs read channels of their own (K's, V's) and Q's slot
// copied once. The late MMA (P·V) follows V's channel: its use is waited
// for in the iteration that computes P, carried with P, and released
// after the late MMA's wait one iteration later; K's use is released
// after Q·Kᵀ's wait (pendings = 1) in its own iteration. The warpgroups
// take turns issuing on the barriers of group "warpgroup_turn", one a
// warpgroup: the last gives warpgroup 0 its first turn (barrier 0 of the
// group); each waits on its own before issuing and passes to the next
// after; the last does not pass after the final P·V. The group gets ids
// 4 and 5 (IDS). Without the option (the default) no turns (OFF).
// OFF-LABEL: func.func @turns
// OFF-NOT: named_barrier
// OFF-NOT: warpgroup_index
// IDS-LABEL: func.func @turns
// IDS-SAME: tgpu.named_barriers = {warpgroup_turn = 4 : i32}
// IDS-NOT: named_barrier_id
// IDS: %[[WG:.*]] = tgpu.warpgroup_index : i32
// IDS-NEXT: %[[FIRST:.*]] = arith.constant 4 : i32
// IDS-NEXT: %[[BASE:.*]] = arith.constant 4 : i32
// IDS-NEXT: %[[MINE:.*]] = arith.addi %[[WG]], %[[BASE]] : i32
// IDS: tgpu.named_barrier_arrive %[[FIRST]], 256
// IDS: tgpu.named_barrier_wait %[[MINE]], 256
// CHECK-LABEL: func.func @turns
// CHECK: }, {
// CHECK: %[[WG:.*]] = tgpu.warpgroup_index : i32
// CHECK-NEXT: %[[FIRST:.*]] = tgpu.named_barrier_id "warpgroup_turn" count 2 : i32
// CHECK-NEXT: %[[MINE:.*]] = tgpu.named_barrier_id "warpgroup_turn" count 2 [%[[WG]]] : i32
// CHECK: %[[NOTLAST:.*]] = arith.cmpi ne, %[[WG]], %[[ONE:c1_i32[_0-9]*]] : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[WG]], %[[ONE]] : i32
// CHECK: scf.if %[[LAST]] {
// CHECK: tgpu.named_barrier_arrive %[[FIRST]], 256
// CHECK: %[[K0:.*]] = tgpu.channel_wait %channel[
// CHECK: tgpu.named_barrier_wait %[[MINE]], 256
// CHECK-NEXT: tgpu.wgmma %{{.*}}, %{{.*}}[%[[K0]]]
// CHECK: tgpu.named_barrier_arrive
// CHECK: %[[V0:.*]] = tgpu.channel_wait %channel_0[
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[SV:.*]] = %[[V0]])
// CHECK-NEXT: %[[K:.*]] = tgpu.channel_wait %channel[%[[I]]]
// CHECK: tgpu.named_barrier_wait
// CHECK-NEXT: %[[X:.*]] = tgpu.wgmma %{{.*}}, %{{.*}}[%[[K]]], %{{.*}} : !tgpu.smem<?x128x64xbf16
// CHECK-NEXT: %[[Y:.*]] = tgpu.wgmma %[[P]], %{{.*}}[%[[SV]]], %[[ACC]]
// CHECK: tgpu.named_barrier_arrive
// CHECK-NEXT: tgpu.wgmma_wait %[[X]] {{.*}} {pendings = 1 : i32}
// CHECK-NEXT: tgpu.channel_release %channel[%[[I]]]
// CHECK: %[[V:.*]] = tgpu.channel_wait %channel_0[%[[I]]]
// CHECK: tgpu.wgmma_wait %[[Y]] {{.*}} {pendings = 0 : i32}
// CHECK: %[[PREV:.*]] = arith.subi %[[I]], %{{.*}}
// CHECK-NEXT: tgpu.channel_release %channel_0[%[[PREV]]]
// CHECK: scf.yield {{.*}}, %[[V]]
// CHECK: tgpu.named_barrier_wait
// CHECK-NEXT: %[[L:.*]] = tgpu.wgmma
// CHECK-NEXT: tgpu.wgmma_wait %[[L]] {{.*}} {pendings = 0 : i32}
// CHECK-NEXT: scf.if %[[NOTLAST]] {
// CHECK-NEXT: tgpu.named_barrier_arrive
// CHECK: tgpu.channel_release %channel_0
// CHECK: tgpu.channel_release %channel_2

#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear3 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @turns(%arg0: !tile.tensor<?x64xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %arg3: !tile.tensor<?x64xf32, tma = 128x32, swizzle = 128>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @turns__plain} {
    %channel, %buffers = tgpu.channel consumer_warps 8 : !tgpu.smem<?x64x64xbf16, #shared>
    %0 = tgpu.transpose %buffers : <?x64x64xbf16, #shared> -> <?x64x64xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 8 : !tgpu.smem<?x64x64xbf16, #shared>
    %channel_2, %buffers_3 = tgpu.channel consumer_warps 8 depth 1 : !tgpu.smem<?x128x64xbf16, #shared2>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_4 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %1 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>
      %2 = tgpu.channel_acquire %channel_2[%c0_i32]
      tgpu.tma_load %arg0[%c0_i32_4, %c0_i32_4] -> %buffers_3[%2], %channel_2 : <?x64xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared2>, !tgpu.channel
      %3 = scf.for %arg4 = %c0_i32_4 to %1 step %c64_i32 iter_args(%arg5 = %c0_i32) -> (i32)  : i32 {
        %4 = tgpu.channel_acquire %channel[%arg5]
        tgpu.tma_load %arg1[%arg4, %c0_i32_4] -> %buffers[%4], %channel : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared>, !tgpu.channel
        %5 = tgpu.channel_acquire %channel_0[%arg5]
        tgpu.tma_load %arg2[%arg4, %c0_i32_4] -> %buffers_1[%5], %channel_0 : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %6 = arith.addi %arg5, %c1_i32 : i32
        scf.yield %6 : i32
      }
    }, {
      %1 = tgpu.alloc : <2x128x32xf32, #shared3>
      %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %2 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>
      %c0_i32_4 = arith.constant 0 : i32
      %3 = tgpu.channel_wait %channel_2[%c0_i32_4]
      %4 = arith.cmpi slt, %c0_i32, %2 : i32
      %5:2 = scf.if %4 -> (tensor<128x64xf32, #linear>, i32) {
        %6:2 = scf.for %arg4 = %c0_i32 to %2 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32_4) -> (tensor<128x64xf32, #linear>, i32)  : i32 {
          %7 = tgpu.channel_wait %channel[%arg6]
          %8 = tgpu.wgmma %buffers_3[%3], %0[%7], %cst : !tgpu.smem<?x128x64xbf16, #shared2>, <?x64x64xbf16, #shared1>, tensor<128x64xf32, #linear>
          %9 = tgpu.wgmma_wait %8 : tensor<128x64xf32, #linear> {pendings = 0 : i32}
          tgpu.channel_release %channel[%arg6]
          %10 = math.exp %9 : tensor<128x64xf32, #linear>
          %11 = arith.truncf %10 : tensor<128x64xf32, #linear> to tensor<128x64xbf16, #linear>
          %12 = tgpu.channel_wait %channel_0[%arg6]
          %13 = tgpu.wgmma %11, %buffers_1[%12], %arg5 : tensor<128x64xbf16, #linear>, <?x64x64xbf16, #shared>, tensor<128x64xf32, #linear>
          %14 = tgpu.wgmma_wait %13 : tensor<128x64xf32, #linear> {pendings = 0 : i32}
          tgpu.channel_release %channel_0[%arg6]
          %c1_i32 = arith.constant 1 : i32
          %15 = arith.addi %arg6, %c1_i32 : i32
          scf.yield %14, %15 : tensor<128x64xf32, #linear>, i32
        }
        scf.yield %6#0, %6#1 : tensor<128x64xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_4 : tensor<128x64xf32, #linear>, i32
      }
      tgpu.channel_release %channel_2[%c0_i32_4]
      tgpu.tma_store %5#0, %arg3[%c0_i32, %c0_i32] via %1 : tensor<128x64xf32, #linear>, <?x64xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared3>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}
