// RUN: tilec-opt %s -split-input-file -convert-tile-to-llvm | FileCheck %s
//
// How each tgpu op is lowered (inside convert-tile-to-llvm). Today every
// one is inline PTX; as they move onto upstream NVVM ops (issue 11) these
// checks change with them.

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// 128x64 bf16, K contiguous, 128-byte swizzle (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 64x256 bf16, N contiguous, four 64-column swizzle atoms (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>

// CHECK-LABEL: func.func @all
// tgpu.barriers: one thread initializes every barrier of the array, then a
// block barrier.
// CHECK: mbarrier.init.shared::cta.b64 [$1+0], 1;{{.*}}mbarrier.init.shared::cta.b64 [$1+16], 1;{{.*}}fence.mbarrier_init.release.cluster;
// CHECK: mbarrier.init.shared::cta.b64 [$1+0], 8;
// CHECK: nvvm.barrier
// tgpu.warp_specialize: branches on the thread index, each recorded as a
// thread range (first thread, count, named barrier, scratch shift), the
// producer lowering its registers.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// tgpu.wait: a try_wait.parity spin.
// CHECK: TILEC_WAIT:{{.*}}mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1, 0x989680;{{.*}}@p bra TILEC_DONE;{{.*}}bra TILEC_WAIT;
// tgpu.arrive with expect_tx: one thread arms the barrier with the bytes.
// CHECK: @p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 49152;
// tgpu.tma_load: one thread issues the bulk tensor copy (the 64-wide boxes
// of B each one copy).
// CHECK: @p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$4, $5}], [$3];
// tgpu.tma_load multicast 2: the CTA's rank picks its share of the boxes.
// CHECK: mov.u32 $0, %cluster_ctarank;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// tgpu.wgmma: fence, one m64n256k16 per k-step of 16 (4 for K = 64) per
// 64-row warpgroup, commit.
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// tgpu.wgmma_wait: the pending count; the accumulators pass through.
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// tgpu.arrive: lane 0 of each warp.
// CHECK: bar.warp.sync -1;{{.*}}@p mbarrier.arrive.shared::cta.b64 _, [$1];
// tgpu.arrive cluster 2: lane i arrives on CTA i's barrier through mapa.
// CHECK: @p mapa.shared::cluster.u32 r, $1, $0;{{.*}}@p mbarrier.arrive.shared::cluster.b64 _, [r]
// The scf.if's thread ranges: producer threads 0..127 on named barrier 1,
// consumers from 128 on barrier 2 (a function that is not a kernel has no
// warp count, so 0 consumer threads here).
// CHECK: } {tgpu.thread_range = array<i32: 0, 128, 1, 0, 128, 0, 2, 0>}
// Ping-pong copies: named barriers with the copy's index.
// CHECK: bar.sync $0, 256;
// CHECK: bar.arrive $0, 256;
func.func @all(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
               %b: !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
               %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  %rb = tgpu.alloc : !tgpu.smem<3x64x256xbf16, #sb>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
  %empty = tgpu.barriers arrive_count 8 : !tgpu.mbarriers<3>
  tgpu.warp_specialize producer(warps = 4, regs = 40) {
    tgpu.wait %empty[%i], %i : !tgpu.mbarriers<3>
    tgpu.arrive %full[%i] expect_tx 49152 : !tgpu.mbarriers<3>
    tgpu.tma_load %a[%i, %i] -> %ra[%i], %full
        : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
          !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.mbarriers<3>
    tgpu.tma_load %b[%i, %i] -> %rb[%i], %full
        : !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
          !tgpu.smem<3x64x256xbf16, #sb>, !tgpu.mbarriers<3>
    // In a cluster of 2, each CTA copies two of the four boxes to both.
    tgpu.tma_load %b[%i, %i] -> %rb[%i], %full multicast 2
        : !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
          !tgpu.smem<3x64x256xbf16, #sb>, !tgpu.mbarriers<3>
  } consumer(regs = 232) {
    tgpu.wait %full[%i], %i : !tgpu.mbarriers<3>
    %d = tgpu.wgmma %ra[%i], %rb[%i], %acc
        : !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.smem<3x64x256xbf16, #sb>,
          tensor<128x256xf32, #acc>
    // A K-major view of the A ring, as a B operand would read it.
    %at = tgpu.transpose %ra : !tgpu.smem<3x128x64xbf16, #sa>
        -> !tgpu.smem<3x64x128xbf16, #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>>
    tgpu.wgmma_wait {pendings = 1 : i32}
    %r = tgpu.wgmma_wait %d : tensor<128x256xf32, #acc> {pendings = 0 : i32}
    tgpu.arrive %empty[%i] : !tgpu.mbarriers<3>
    tgpu.arrive %empty[%i] cluster 2 : !tgpu.mbarriers<3>
  }
  // Ping-pong: two consumer copies that take turns through named barriers.
  tgpu.warp_specialize producer(warps = 4, regs = 40) {
  } consumer(regs = 232, copies = 2) {
    %c = tgpu.consumer_index : i32
    tgpu.named_barrier_wait %c, 256 : i32
    tgpu.named_barrier_arrive %c, 256 : i32
  }
  return
}


// -----

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// 128x64 bf16, K contiguous, 128-byte swizzle (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 64x256 bf16, N contiguous, four 64-column swizzle atoms (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>

// CHECK-LABEL: func.func @store
// tgpu.tma_store: per box-wide chunk, wait until the slot's last copy read
// it, registers to the slot, fence for the async proxy, one thread copies
// and commits.
// CHECK: @p cp.async.bulk.wait_group.read 1;
// CHECK: fence.proxy.async.shared::cta;
// CHECK: @p cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$3, $4}], [$2];{{.*}}@p cp.async.bulk.commit_group;
// tgpu.tma_store_wait 0.
// CHECK: @p cp.async.bulk.wait_group.read 0;
// tgpu.cluster_sync.
// CHECK: barrier.cluster.arrive.release;{{.*}}barrier.cluster.wait.acquire;
// The epilogue's TMA store: a 128x256 f32 accumulator in 128x32 boxes
// (128-byte rows) through two slots; then the wait for their reads.
#sc = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
func.func @store(%c: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
                 %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sc>
  tgpu.tma_store %acc, %c[%i, %i] via %buf
      : tensor<128x256xf32, #acc>, !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
        !tgpu.smem<2x128x32xf32, #sc>
  tgpu.tma_store_wait {pendings = 0 : i32}
  tgpu.cluster_sync
  return
}


// -----

// tgpu.tma_ready: the first 16 bytes of the descriptor, tested for zero.
// tgpu.local_load: a swizzled 128x64 bf16 slot into mma.sync A fragments
// with ldmatrix.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#opa = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// CHECK-LABEL: func.func @ready_and_local_load
// CHECK: %[[LO:.*]] = llvm.load %arg0 {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: %[[HI_PTR:.*]] = llvm.getelementptr %arg0[1]
// CHECK: %[[HI:.*]] = llvm.load %[[HI_PTR]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
func.func @ready_and_local_load(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
                                %i: i32, %flag: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %ok = tgpu.tma_ready %a : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
  %ra = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %t = tgpu.local_load %ra[%i] : !tgpu.smem<2x128x64xbf16, #sa> -> tensor<128x64xbf16, #opa>
  return
}

// -----

// tgpu.wgmma with A in registers (P·V in attention): per k-step of 16 the
// four 32-bit words of each thread's A fragment (bf16 pairs packed from
// the tile's registers), then B's descriptor; no A transpose immediate.
// CHECK-LABEL: func.func @wgmma_register_a
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{{.*}}}, {$256, $257, $258, $259}, $260, 1, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#a = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
func.func @wgmma_register_a(%p: tensor<128x64xbf16, #a>, %i: i32,
                            %acc: tensor<128x256xf32, #acc>) {
  %rb = tgpu.alloc : !tgpu.smem<3x64x256xbf16, #sb>
  %d = tgpu.wgmma %p, %rb[%i], %acc
      : tensor<128x64xbf16, #a>, !tgpu.smem<3x64x256xbf16, #sb>,
        tensor<128x256xf32, #acc>
  return
}
