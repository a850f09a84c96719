// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// Every tgpu op and type round-trips; TMA views print their box and swizzle.

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// 128x64 bf16, K contiguous, 128-byte swizzle (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 64x256 bf16, N contiguous, four 64-column swizzle atoms (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>

// CHECK-LABEL: func.func @all
// CHECK-SAME: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
// CHECK-SAME: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
func.func @all(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
               %b: !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
               %i: i32, %acc: tensor<128x256xf32, #acc>) {
  // CHECK: tgpu.alloc : <3x128x64xbf16, #shared>
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  %rb = tgpu.alloc : !tgpu.smem<3x64x256xbf16, #sb>
  // CHECK: tgpu.barriers arrive_count 8 : <3>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
  %empty = tgpu.barriers arrive_count 8 : !tgpu.mbarriers<3>
  // CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
    // CHECK: tgpu.wait %{{.*}}[%{{.*}}], %{{.*}} : <3>
    tgpu.wait %empty[%i], %i : !tgpu.mbarriers<3>
    // CHECK: tgpu.arrive %{{.*}}[%{{.*}}] expect_tx 49152 : <3>
    tgpu.arrive %full[%i] expect_tx 49152 : !tgpu.mbarriers<3>
    // CHECK: tgpu.tma_load %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}], %{{.*}} : <?x?xbf16, tma = 128x64, swizzle = 128>, <3x128x64xbf16, #shared>, !tgpu.mbarriers<3>
    tgpu.tma_load %a[%i, %i] -> %ra[%i], %full
        : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
          !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.mbarriers<3>
    tgpu.tma_load %b[%i, %i] -> %rb[%i], %full
        : !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
          !tgpu.smem<3x64x256xbf16, #sb>, !tgpu.mbarriers<3>
    // In a cluster of 2, each CTA copies two of the four boxes to both.
    // CHECK: tgpu.tma_load %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}], %{{.*}} multicast 2 :
    tgpu.tma_load %b[%i, %i] -> %rb[%i], %full multicast 2
        : !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
          !tgpu.smem<3x64x256xbf16, #sb>, !tgpu.mbarriers<3>
  // CHECK: }, {
  }, {
    tgpu.wait %full[%i], %i : !tgpu.mbarriers<3>
    // CHECK: tgpu.wgmma %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : !tgpu.smem<3x128x64xbf16, #shared>, <3x64x256xbf16, #shared1>, tensor<128x256xf32, #linear>
    %d = tgpu.wgmma %ra[%i], %rb[%i], %acc
        : !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.smem<3x64x256xbf16, #sb>,
          tensor<128x256xf32, #acc>
    // A K-major view of the A ring, as a B operand would read it.
    // CHECK: tgpu.transpose %{{.*}} : <3x128x64xbf16, #shared> -> <3x64x128xbf16, #shared2>
    %at = tgpu.transpose %ra : !tgpu.smem<3x128x64xbf16, #sa>
        -> !tgpu.smem<3x64x128xbf16, #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>>
    // CHECK: tgpu.wgmma_wait {pendings = 1 : i32}
    tgpu.wgmma_wait {pendings = 1 : i32}
    // CHECK: tgpu.wgmma_wait %{{.*}} : tensor<128x256xf32, #linear> {pendings = 0 : i32}
    %r = tgpu.wgmma_wait %d : tensor<128x256xf32, #acc> {pendings = 0 : i32}
    // CHECK: tgpu.wgmma_wait %{{.*}} : tensor<128x256xf32, #linear> after(%{{.*}} : i32) {pendings = 0 : i32}
    %r2 = tgpu.wgmma_wait %r : tensor<128x256xf32, #acc> after(%i : i32) {pendings = 0 : i32}
    // CHECK: tgpu.arrive %{{.*}}[%{{.*}}] : <3>
    tgpu.arrive %empty[%i] : !tgpu.mbarriers<3>
    // CHECK: tgpu.arrive %{{.*}}[%{{.*}}] cluster 2 : <3>
    tgpu.arrive %empty[%i] cluster 2 : !tgpu.mbarriers<3>
  }
  // Ping-pong: two consumer copies that take turns through named barriers.
  // CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  }, {
    // CHECK: tgpu.consumer_index : i32
    %c = tgpu.consumer_index : i32
    // CHECK: tgpu.named_barrier_wait %{{.*}}, 256 : i32
    tgpu.named_barrier_wait %c, 256 : i32
    // CHECK: tgpu.named_barrier_arrive %{{.*}}, 256 : i32
    tgpu.named_barrier_arrive %c, 256 : i32
  }
  return
}

// The epilogue's TMA store: a 128x256 f32 accumulator in 128x32 boxes
// (128-byte rows) through two slots; then the wait for their reads.
#sc = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
// CHECK-LABEL: func.func @store
func.func @store(%c: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
                 %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sc>
  // CHECK: tgpu.tma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] via %{{.*}} : tensor<128x256xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared3>
  tgpu.tma_store %acc, %c[%i, %i] via %buf
      : tensor<128x256xf32, #acc>, !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
        !tgpu.smem<2x128x32xf32, #sc>
  // CHECK: tgpu.tma_store_wait {pendings = 0 : i32}
  tgpu.tma_store_wait {pendings = 0 : i32}
  // CHECK: tgpu.cluster_sync
  tgpu.cluster_sync
  return
}

// A channel: rings of unknown depth (`?`), the producer's acquire and TMA
// copies that complete the use, the consumers' wait and release.
// CHECK-LABEL: func.func @channel
func.func @channel(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
                   %b: !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
                   %i: i32, %acc: tensor<128x256xf32, #acc>) {
  // CHECK: %[[CH:.*]], %[[RA:.*]]:2 = tgpu.channel consumer_warps 8 cluster 2 : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
  %ch, %ra, %rb = tgpu.channel consumer_warps 8 cluster 2
      : !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.smem<?x64x256xbf16, #sb>
  // CHECK: tgpu.channel consumer_warps 4 depth 3 : !tgpu.smem<?x128x64xbf16, #shared>
  %ch2, %r2 = tgpu.channel consumer_warps 4 depth 3 : !tgpu.smem<?x128x64xbf16, #sa>
  // CHECK: tgpu.channel consumer_warps 8 depth 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>
  %ch3, %r3 = tgpu.channel consumer_warps 8 depth 1 kind <fill = tma, release = mma>
      : !tgpu.smem<?x128x64xbf16, #sa>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
    // CHECK: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%{{.*}}]
    %s = tgpu.channel_acquire %ch[%i]
    // CHECK: tgpu.tma_load %{{.*}}[%{{.*}}, %{{.*}}] -> %[[RA]]#0[%[[S]]], %[[CH]] : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
    tgpu.tma_load %a[%i, %i] -> %ra[%s], %ch
        : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
          !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.channel
    tgpu.tma_load %b[%i, %i] -> %rb[%s], %ch multicast 2
        : !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
          !tgpu.smem<?x64x256xbf16, #sb>, !tgpu.channel
  }, {
    // CHECK: %[[W:.*]] = tgpu.channel_wait %[[CH]][%{{.*}}]
    %s = tgpu.channel_wait %ch[%i]
    // CHECK: tgpu.wgmma %[[RA]]#0[%[[W]]], %[[RA]]#1[%[[W]]], %{{.*}} : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x256xbf16, #shared1>
    %d = tgpu.wgmma %ra[%s], %rb[%s], %acc
        : !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.smem<?x64x256xbf16, #sb>,
          tensor<128x256xf32, #acc>
    // CHECK: tgpu.channel_release %[[CH]][%{{.*}}]
    tgpu.channel_release %ch[%i]
  }
  return
}

// A scheduled loop: partitions (the compute one as two ping-pong copies),
// the ops beside the loop tagged with its partitions too, and a kernel
// that walks its tiles persistently.
// CHECK-LABEL: func.func @schedule
// CHECK-SAME: tgpu.persistent
func.func @schedule(%n: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>, tgpu.persistent} {
  // CHECK: arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
  %c0 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = arith.addi %i, %c1 {tgpu.partition = array<i32: 1>} : i32
  // CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute, copies = 2>]}
  } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute, copies = 2>]}
  // CHECK: arith.addi {{.*}} {tgpu.partition = array<i32: 1>}
  %y = arith.addi %n, %c1 {tgpu.partition = array<i32: 1>} : i32
  return
}

// The load partition's gather into a slot (index tiles, a mask), and the
// barrier ops of a channel filled by its cp.async copies.
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
// CHECK-LABEL: func.func @thread_gather
// CHECK: tgpu.thread_gather %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<128x64xi1, #{{.*}}>) -> %{{.*}}[%{{.*}}] as tensor<128x64xbf16, #{{.*}}> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #shared>, tensor<128x64xi32, #{{.*}}>, tensor<128x64xi32, #{{.*}}>
// CHECK: tgpu.arrive %{{.*}}[%{{.*}}] async_copies : <2>
// CHECK: tgpu.wait %{{.*}}[%{{.*}}], %{{.*}} proxy_fence : <2>
// CHECK: kind <fill = async_copy, release = mma>
func.func @thread_gather(%a: !tile.tensor<?x?xbf16>, %r: tensor<128x64xi32, #co>,
                         %m: tensor<128x64xi1, #co>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  tgpu.thread_gather %a[%r, %r] mask(%m : tensor<128x64xi1, #co>) -> %buf[%i] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #co>, tensor<128x64xi32, #co>
  %b = tgpu.barriers arrive_count 128 : !tgpu.mbarriers<2>
  tgpu.arrive %b[%i] async_copies : !tgpu.mbarriers<2>
  tgpu.wait %b[%i], %i proxy_fence : !tgpu.mbarriers<2>
  %ch, %ring = tgpu.channel consumer_warps 4 producer_warps 4 kind <fill = async_copy, release = mma> : !tgpu.smem<?x128x64xbf16, #sa>
  return
}
