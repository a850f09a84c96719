// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// The tensor-memory and tcgen05 ops (sm_100a) round-trip.

// 128x64 bf16, K contiguous, 128-byte swizzle (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 64x128 bf16 as B (KxN), N contiguous, two 64-column swizzle atoms (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
// tcgen05.ld/st 32x32b over 4 warps (LinearLayout::tmem32x32b).
#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

// CHECK-LABEL: func.func @all
// CHECK-SAME: tgpu.tensor_memory = #tgpu.tensor_memory<columns = 512, cta_group = 2, address = 1024>
func.func @all(%i: i32, %on: i1)
    attributes {tile.kernel, tile.grid = #tile.grid<1>,
                tgpu.tensor_memory = #tgpu.tensor_memory<columns = 512, cta_group = 2, address = 1024>} {
  %a = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<2x64x128xbf16, #sb>
  %bars = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  // CHECK: tgpu.tmem_alloc : <2x128x256xf32>
  %acc = tgpu.tmem_alloc : !tgpu.tmem<2x128x256xf32>
  // CHECK: tgpu.tmem_alloc column [0] : <128x128xbf16>
  %p = tgpu.tmem_alloc column [0] : !tgpu.tmem<128x128xbf16>
  // CHECK: tgpu.tcgen05_mma %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} cta_group 2 : !tgpu.smem<2x128x64xbf16, #shared>, <2x64x128xbf16, #shared1>, <2x128x256xf32>
  tgpu.tcgen05_mma %a[%i], %b[%i], %acc[%i], %on cta_group 2
      : !tgpu.smem<2x128x64xbf16, #sa>, !tgpu.smem<2x64x128xbf16, #sb>, !tgpu.tmem<2x128x256xf32>
  // CHECK: tgpu.tcgen05_commit %{{.*}}[%{{.*}}] multicast 2 : <2>
  tgpu.tcgen05_commit %bars[%i] multicast 2 : !tgpu.mbarriers<2>
  // CHECK: tgpu.tcgen05_commit %{{.*}}[%{{.*}}] : <2>
  tgpu.tcgen05_commit %bars[%i] : !tgpu.mbarriers<2>
  // CHECK: tgpu.tcgen05_fence after_thread_sync
  tgpu.tcgen05_fence after_thread_sync
  // CHECK: %[[L:.*]] = tgpu.tmem_load %{{.*}}[%{{.*}}] column 64 : <2x128x256xf32> -> tensor<128x64xf32, #linear>
  %l = tgpu.tmem_load %acc[%i] column 64 : !tgpu.tmem<2x128x256xf32> -> tensor<128x64xf32, #t32>
  // CHECK: tgpu.tmem_wait load %[[L]] : tensor<128x64xf32, #linear>
  %w = tgpu.tmem_wait load %l : tensor<128x64xf32, #t32>
  // CHECK: tgpu.tmem_store %{{.*}}, %{{.*}}[%{{.*}}] : tensor<128x64xf32, #linear>, <2x128x256xf32>
  tgpu.tmem_store %w, %acc[%i] : tensor<128x64xf32, #t32>, !tgpu.tmem<2x128x256xf32>
  // CHECK: tgpu.tmem_wait store
  tgpu.tmem_wait store
  // CHECK: tgpu.tcgen05_fence before_thread_sync
  tgpu.tcgen05_fence before_thread_sync
  // An accumulator channel: a ring of tensor memory the MMAs fill.
  // CHECK: tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x256xf32>
  %ch, %ring = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x256xf32>
  // CHECK: tgpu.channel_fill %{{.*}}[%{{.*}}]
  tgpu.channel_fill %ch[%i]
  // A tile the compute warps write for an MMA (attention's P): filled by
  // each of 4 warps' arrival, released by the MMA's completion.
  // CHECK: tgpu.channel consumer_warps 1 producer_warps 4 depth 1 kind <fill = arrive, release = mma> : !tgpu.tmem<?x128x128xbf16>
  %pch, %pring = tgpu.channel consumer_warps 1 producer_warps 4 depth 1 kind <fill = arrive, release = mma> : !tgpu.tmem<?x128x128xbf16>
  // CHECK: tgpu.channel_fill %{{.*}}[%{{.*}}]
  tgpu.channel_fill %pch[%i]
  return
}

// A CTA pair's ops: the pair's channels, arrivals and copies at the
// leader's barrier, the CTA's rank in its cluster.
// CHECK-LABEL: func.func @pair
#sbhalf = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
func.func @pair(%b: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %i: i32) {
  // CHECK: tgpu.channel consumer_warps 4 pair depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x256xf32>
  %ch, %acc = tgpu.channel consumer_warps 4 pair depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x256xf32>
  %rb = tgpu.alloc : !tgpu.smem<2x64x128xbf16, #sbhalf>
  %full = tgpu.barriers arrive_count 2 : !tgpu.mbarriers<2>
  // CHECK: tgpu.arrive %{{.*}}[%{{.*}}] expect_tx 16384 leader : <2>
  tgpu.arrive %full[%i] expect_tx 16384 leader : !tgpu.mbarriers<2>
  // CHECK: tgpu.tma_load %{{.*}} -> %{{.*}}[%{{.*}}], %{{.*}} leader :
  tgpu.tma_load %b[%i, %i] -> %rb[%i], %full leader
      : !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>,
        !tgpu.smem<2x64x128xbf16, #sbhalf>, !tgpu.mbarriers<2>
  // CHECK: tgpu.cluster_rank : i32
  %r = tgpu.cluster_rank : i32
  return
}
