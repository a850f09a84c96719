// RUN: tilec-opt %s -split-input-file -tile-allocate-shared-memory -convert-tile-to-llvm | FileCheck %s
//
// How each tgpu op is lowered (inside convert-tile-to-llvm): onto upstream
// NVVM ops, an op one thread issues predicated on that thread; inline PTX
// only for wgmma.mma_async and wgmma.wait_group (see TGPUOpsToLLVM.cpp).

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// 128x64 bf16, K contiguous, 128-byte swizzle (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 64x256 bf16, N contiguous, four 64-column swizzle atoms (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>

// CHECK-LABEL: func.func @all
// tgpu.barriers: thread 0 initializes every barrier of the array, then a
// block barrier.
// CHECK: %[[T0:.*]] = arith.cmpi eq
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c1_i32, predicate = %[[T0]] : !llvm.ptr<3>, i32, i1
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c8_i32, predicate
// tgpu.warp_specialize: branches on the thread index, each recorded as a
// thread range (first thread, count, named barrier, scratch shift), the
// producer lowering its registers.
// CHECK: nvvm.setmaxregister  decrease 40
// tgpu.wait: a try_wait.parity loop.
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %c10000000_i32 : !llvm.ptr<3>, i32, i32
// tgpu.arrive with expect_tx: one thread arms the barrier with the bytes.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32{{.*}}, predicate =
// tgpu.tma_load: one thread issues the bulk tensor copy (the 64-wide boxes
// of B each one copy), innermost coordinate first.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%arg12, %arg12] predicate = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6,
// tgpu.tma_load multicast 2: the CTA's rank picks its share of the boxes.
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask = %c3_i16 predicate
// CHECK: nvvm.setmaxregister  increase 232
// tgpu.wgmma: fence, one m64n256k16 per k-step of 16 (4 for K = 64) per
// 64-row warpgroup, commit. Each k-step's descriptors are formed in the
// asm from the slots' low words ($256 A, $257 B): start + offset / 16
// (A's k-steps are 32 bytes apart, B's 16 rows 2048 bytes), the high word
// (swizzle mode, stride byte offset) an immediate.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: add.s32 dal, $256, 0;\0Amov.b64 da, {dal, 1073741888};\0Aadd.s32 dbl, $257, 0;{{.*}}wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{{.*}}}, da, db, 1, 1, 1, 0, 1;
// CHECK: add.s32 dal, $256, 2;{{.*}}add.s32 dbl, $257, 128;
// CHECK: add.s32 dal, $256, 4;{{.*}}add.s32 dbl, $257, 256;
// CHECK: add.s32 dal, $256, 6;{{.*}}add.s32 dbl, $257, 384;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// tgpu.wgmma_wait: the pending count; the accumulators pass through.
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// With `after` values, stores of their words under a predicate false at run
// time (no dynamic shared memory) come first in the same asm: ptxas keeps
// the wait below them. Four words a v4 store, the fifth (an i16, widened)
// alone.
// CHECK: %[[W:.*]] = llvm.zext %{{.*}} : i16 to i32
// CHECK: %[[DSZ:.*]] = nvvm.read.ptx.sreg.dynamic.smem.size : i32
// CHECK: %[[NEVER:.*]] = arith.cmpi eq, %[[DSZ]], %c0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A@$0 st.shared.v4.b32 [$1], {$2, $3, $4, $5};\0A@$0 st.shared.b32 [$1], $6;\0Awgmma.wait_group.sync.aligned 0;\0A}", "b,r,r,r,r,r,r" %[[NEVER]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[W]]
// tgpu.arrive: one elected lane of each warp, after the warp syncs (an
// arrive expecting 0 bytes: NVVM's mbarrier.arrive takes no predicate).
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c0_i32{{.*}}, predicate = %[[E]]
// tgpu.arrive cluster 2: lane i arrives on CTA i's barrier through mapa.
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// The scf.if's thread ranges: producer threads 0..127 on named barrier 1
// at 40 registers, the consumer's 256 from 128 on barrier 2 at 232.
// CHECK: } {tgpu.thread_range = array<i32: 0, 128, 1, 0, 40, 128, 256, 2, 0, 232>}
// Ping-pong copies: an scf.if a group, the copies' budgets raised, named
// barriers with the copy's index (tgpu.consumer_index 0 and 1).
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvvm.barrier id = %c0_i32{{.*}} number_of_threads = %c256_i32
// CHECK: nvvm.barrier.arrive id = %c0_i32{{.*}} number_of_threads = %c256_i32
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvvm.barrier id = %c1_i32{{.*}} number_of_threads = %c256_i32
// CHECK: } {tgpu.thread_range = array<i32: 128, 128, 2, 0, 232, 256, 128, 3, 0, 232>}
// CHECK: } {tgpu.thread_range = array<i32: 0, 128, 1, 0, 40, 128, 256, 2, 0, 232>}
func.func @all(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
               %b: !tile.tensor<?x?xbf16, strides = [?, 1], tma = 64x64, swizzle = 128>,
               %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  %rb = tgpu.alloc : !tgpu.smem<3x64x256xbf16, #sb>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
  %empty = tgpu.barriers arrive_count 8 : !tgpu.mbarriers<3>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
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
  }, {
    tgpu.wait %full[%i], %i : !tgpu.mbarriers<3>
    %d = tgpu.wgmma %ra[%i], %rb[%i], %acc
        : !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.smem<3x64x256xbf16, #sb>,
          tensor<128x256xf32, #acc>
    // A K-major view of the A ring, as a B operand would read it.
    %at = tgpu.transpose %ra : !tgpu.smem<3x128x64xbf16, #sa>
        -> !tgpu.smem<3x64x128xbf16, #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>>
    tgpu.wgmma_wait {pendings = 1 : i32}
    %r = tgpu.wgmma_wait %d : tensor<128x256xf32, #acc> {pendings = 0 : i32}
    %f = arith.constant 2.0 : f32
    %h = arith.constant 3 : i16
    tgpu.wgmma_wait after(%f, %f, %f, %f, %h : f32, f32, f32, f32, i16) {pendings = 0 : i32}
    tgpu.arrive %empty[%i] : !tgpu.mbarriers<3>
    tgpu.arrive %empty[%i] cluster 2 : !tgpu.mbarriers<3>
  }
  // Ping-pong: two consumer copies that take turns through named barriers.
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  }, {
    %c = tgpu.consumer_index : i32
    tgpu.named_barrier_wait %c, 256 : i32
    tgpu.named_barrier_arrive %c, 256 : i32
  }
  return
}


// -----

// A view whose box has fewer rows than the slot (its tiles of 128 and 64
// rows share a 64-row box: a 128x192 tile's column blocks of B given N x
// K): rows of boxes fill the slot, each copy 64 rows further in the view
// and 64 rows (8192 bytes) further in the slot.
// CHECK-LABEL: func.func @row_boxes
// CHECK-SAME: %[[I:arg6]]: i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%[[I]], %[[I]]]
// CHECK: %[[OFF:.*]] = arith.constant 8192 : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[OFF]]]
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[R1:.*]] = arith.addi %[[I]], %[[C64]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%[[I]], %[[R1]]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
func.func @row_boxes(%a: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %i: i32) {
  %ra = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  tgpu.tma_load %a[%i, %i] -> %ra[%i], %full
      : !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>,
        !tgpu.smem<2x128x64xbf16, #sa>, !tgpu.mbarriers<2>
  return
}

// -----

// Three regions: the warps are dealt out in order (cumulative thread
// ranges), region r's group on named barrier 1 + r; the kernel launches
// what they take (tgpu.launch_warps). A budget below the even share of
// the register file (65536 / 512 threads = 128) lowers it, one above
// raises it.
// CHECK-LABEL: func.func @three
// CHECK-SAME: tgpu.launch_warps = 16 : i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: arith.cmpi ult, %[[TID]], %c128_i32
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: arith.cmpi ult, %[[TID]], %c256_i32
// CHECK: nvvm.setmaxregister  decrease 120
// CHECK: nvvm.barrier id = %c2_i32 number_of_threads = %c128_i32
// CHECK: nvvm.setmaxregister  increase 200
// CHECK: nvvm.barrier id = %c3_i32 number_of_threads = %c256_i32
// tgpu.warpgroup_index: the thread index within the region over 128.
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[R:.*]] = arith.subi %[[T]], %c256_i32
// CHECK: arith.shrui %[[R]], %c7_i32
// CHECK: } {tgpu.thread_range = array<i32: 128, 128, 2, 0, 120, 256, 256, 3, 0, 200>}
// CHECK: } {tgpu.thread_range = array<i32: 0, 128, 1, 0, 40, 128, 384, 2, 0, 120>}
func.func @three() attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 120>, #tgpu.partition<compute, warps = 8, regs = 200>] {
  }, {
    %b1 = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<1>
  }, {
    %b2 = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<1>
    %wg = tgpu.warpgroup_index : i32
    tgpu.named_barrier_wait %wg, 256 : i32
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
// and every thread commits (the others an empty group).
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg0, %{{.*}}, box[%{{.*}}, %{{.*}}], predicate =
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// tgpu.tma_store_wait 0.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// tgpu.tma_store_wait 0 with writes: the writes done, a proxy fence for
// global memory, the executing warps' barrier.
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NEXT: nvvm.barrier
// tgpu.cluster_sync.
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
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
  tgpu.tma_store_wait {pendings = 0 : i32, writes}
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
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
func.func @ready_and_local_load(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
                                %i: i32, %flag: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %ok = tgpu.tma_ready %a : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
  %ra = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %t = tgpu.local_load %ra[%i] : !tgpu.smem<2x128x64xbf16, #sa> -> tensor<128x64xbf16, #opa>
  return
}

// -----

// tgpu.local_store: the block synchronizes, each thread's fragments go into
// the swizzled slot (stmatrix where the offsets allow), the block
// synchronizes again; the local_load after it reads with ldmatrix.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#opa = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// CHECK-LABEL: func.func @local_store
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: nvvm.ldmatrix
func.func @local_store(%i: i32)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %q = arith.constant dense<1.0> : tensor<128x64xbf16, #opa>
  %buf = tgpu.alloc : !tgpu.smem<1x128x64xbf16, #sa>
  %c0 = arith.constant 0 : i32
  tgpu.local_store %q, %buf[%c0] : tensor<128x64xbf16, #opa>, !tgpu.smem<1x128x64xbf16, #sa>
  %t = tgpu.local_load %buf[%c0] : !tgpu.smem<1x128x64xbf16, #sa> -> tensor<128x64xbf16, #opa>
  return
}

// -----

// tgpu.slot_store: the same stores with no barrier before or after (the
// channel that owns the slot orders them).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#opa = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// CHECK-LABEL: func.func @slot_store
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK-NOT: nvvm.barrier
// CHECK: return
func.func @slot_store(%i: i32)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %q = arith.constant dense<1.0> : tensor<128x64xbf16, #opa>
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  tgpu.slot_store %q, %buf[%i] : tensor<128x64xbf16, #opa>, !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

// tgpu.local_stage: a tile computed in registers written into scratch for
// wgmma to read by descriptor: the warps synchronize, store (stmatrix),
// fence the writes for the async proxy, synchronize again. Scratch starts
// on 1024 bytes (the swizzle's period) past the barriers; the wgmma reads
// the transposed view MN-major (its A transpose immediate 1).
#acc64 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#sw = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#swt = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
// CHECK-LABEL: func.func @local_stage
// CHECK: %[[AT:.*]] = arith.constant 9216 : i32
// CHECK-NEXT: llvm.getelementptr %{{.*}}[%[[AT]]]
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}} da, db, 1, 1, 1, 1, 1;
func.func @local_stage()
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %p = arith.constant dense<1.0> : tensor<64x64xbf16, #acc64>
  %b = tgpu.alloc : !tgpu.smem<1x64x64xbf16, #sw>
  %bars = tgpu.barriers arrive_count 1 : <1>
  %c0 = arith.constant 0 : i32
  %s = tgpu.local_stage %p : tensor<64x64xbf16, #acc64> -> !tgpu.smem<1x64x64xbf16, #sw>
  %t = tgpu.transpose %s : !tgpu.smem<1x64x64xbf16, #sw> -> !tgpu.smem<1x64x64xbf16, #swt>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #acc64>
  %d = tgpu.wgmma %t[%c0], %b[%c0], %acc : !tgpu.smem<1x64x64xbf16, #swt>, !tgpu.smem<1x64x64xbf16, #sw>, tensor<64x64xf32, #acc64>
  %w = tgpu.wgmma_wait %d : tensor<64x64xf32, #acc64> {pendings = 0 : i32}
  return
}

// -----

// tgpu.thread_copy: the threads' copy of a view's tile into a channel's
// slot (a view TMA cannot read). Uniform run-time checks of the view pick
// the path, each a run-time loop (kept rolled: llvm.loop_annotation) over
// chunks of the thread's registers (64 a thread here): rows 16- or 4-byte
// aligned go by cp.async (16 bytes .cg, 4 bytes .ca; no registers,
// zero-filled out of bounds by a source size of 0), chunks of 16; rows of
// unit stride but odd in shifted words, chunks of 32 (four 16-byte runs
// of 8 elements: five aligned 4-byte loads each, all the chunk's loads
// first, then per run four funnel shifts and one 16-byte store) where the
// tile starts at a column >= 0; else element by element. After the paths the thread waits for its
// cp.async copies and fences its writes for the async proxy
// (fence.proxy.async.shared::cta): the MMA reads them once the channel's
// fill hands the slot over. No barrier.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
// CHECK-LABEL: func.func @thread_copy
// CHECK-NOT: nvvm.barrier
// CHECK: scf.if
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c4_i32
// CHECK-COUNT-2: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: } {llvm.loop_annotation = #loop_annotation}
// CHECK-NEXT: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4_i32
// CHECK-COUNT-8: cp.async.ca.shared.global [$0], [$1], 4, $2;
// CHECK: } {llvm.loop_annotation = #loop_annotation}
// CHECK-NEXT: } else {
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2_i32
// CHECK-COUNT-20: @p ld.global.b32
// CHECK-COUNT-4: shf.r.clamp.b32
// CHECK: llvm.store {{.*}} : vector<8xi16>, !llvm.ptr<3>
// CHECK: } {llvm.loop_annotation = #loop_annotation}
// CHECK-NEXT: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4_i32
// CHECK-COUNT-8: ld.global.u16
// CHECK: llvm.store {{.*}} : vector<8xi16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier
// CHECK: cp.async.wait_all;
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvvm.barrier
// CHECK: return
func.func @thread_copy(%a: !tile.tensor<?x?xbf16>, %m: i32, %k: i32, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  tgpu.thread_copy %a[%m, %k] -> %buf[%i] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

// With no_wait (the channel is filled as each thread's cp.async copies
// complete: fill = async_copy), the cp.async paths end without a wait or a
// fence; the paths through registers end with a release fence (the
// arrival orders the thread's cp.async copies, not its stores), the
// readers fence the async proxy.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
// CHECK-LABEL: func.func @thread_copy_no_wait
// CHECK: cp.async.cg.shared.global
// CHECK-NOT: fence
// CHECK: cp.async.ca.shared.global
// CHECK-NOT: fence
// CHECK: shf.r.clamp.b32
// CHECK: fence.acq_rel.cta;
// CHECK: ld.global.u16
// CHECK: fence.acq_rel.cta;
// CHECK-NOT: cp.async.wait_all
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return
func.func @thread_copy_no_wait(%a: !tile.tensor<?x?xbf16>, %m: i32, %k: i32, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  tgpu.thread_copy %a[%m, %k] -> %buf[%i] as tensor<128x64xbf16, #co> no_wait : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

// A K-major copy (in_slot: fp8 attention's V, rows of keys, into a DxKeys
// slot): loads along the view's contiguous dim (8 bytes here: the layout's
// first three registers), 4-byte stores of the words in_slot makes
// contiguous (the registers of two keys, wherever they are), never
// cp.async (which moves runs as they are). The element path loads each
// store word's four elements right before its store.
#sv = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#cv = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [1, 0], [8, 0]], lane = [[2, 0], [4, 0], [16, 0], [32, 0], [0, 8]], warp = [[0, 16], [0, 32]]>
#iv = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [8, 0]], warp = [[16, 0], [32, 0]]>
// CHECK-LABEL: func.func @thread_copy_kmajor
// CHECK-NOT: cp.async.{{c[ag]}}.shared
// CHECK: scf.if
// CHECK-COUNT-4: ld.global.v2.b32
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<3>
// CHECK: } else {
// CHECK: scf.if
// CHECK-COUNT-8: ld.global.b32
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<3>
// CHECK: } else {
// CHECK: scf.if
// CHECK-COUNT-4: ld.global.u8
// CHECK: llvm.store {{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<3>
// CHECK-NOT: cp.async.{{c[ag]}}.shared
// CHECK: cp.async.wait_all;
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: return
func.func @thread_copy_kmajor(%v: !tile.tensor<?x64xf8E4M3FN>, %n: i32, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %buf = tgpu.alloc : !tgpu.smem<2x64x64xf8E4M3FN, #sv>
  tgpu.thread_copy %v[%n, %c0] -> %buf[%i] as tensor<64x64xf8E4M3FN, #cv> in_slot #iv : !tile.tensor<?x64xf8E4M3FN>, !tgpu.smem<2x64x64xf8E4M3FN, #sv>
  return
}

// -----

// tgpu.thread_gather: rows gathered through index tiles (paged K) into a
// channel's slot. Columns consecutive by AxisInfo (an iota along the
// view's contiguous dim), the rest constant along it: one 16-byte cp.async
// a run of 8 elements, its source size 0 where the index is out of the
// view, under the view's uniform check (element loads and shared stores,
// then a proxy fence, otherwise). No wait: the channel (fill =
// async_copy) arrives as each thread's copies complete
// (cp.async.mbarrier.arrive.noinc), and its consumer fences the async
// proxy after its wait.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#r = #tile.linear<register = [[16], [32], [64]], lane = [[0], [0], [0], [1], [2]], warp = [[4], [8]]>
#r2 = #tile.linear<register = [[16, 0], [32, 0], [64, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#c = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0]]>
#c2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
// CHECK-LABEL: func.func @thread_gather
// CHECK: scf.if
// CHECK-COUNT-8: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: } else {
// CHECK-COUNT-64: ld.global.u16
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: cp.async.wait_all
// CHECK: cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: return
func.func @thread_gather(%a: !tile.tensor<?x?xbf16>, %m: i32, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %rows = tile.splat %m : i32 -> tensor<128xi32, #r>
  %full = tgpu.barriers arrive_count 128 : !tgpu.mbarriers<2>
  %r2 = tile.expand_dims %rows axis 1 : tensor<128xi32, #r> -> tensor<128x1xi32, #r2>
  %rb = tile.broadcast %r2 : tensor<128x1xi32, #r2> -> tensor<128x64xi32, #co>
  %c = tile.iota : tensor<64xi32, #c>
  %c2 = tile.expand_dims %c axis 0 : tensor<64xi32, #c> -> tensor<1x64xi32, #c2>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #c2> -> tensor<128x64xi32, #co>
  tgpu.thread_gather %a[%rb, %cb] -> %buf[%i] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #co>, tensor<128x64xi32, #co>
  tgpu.arrive %full[%i] async_copies : !tgpu.mbarriers<2>
  tgpu.wait %full[%i], %i proxy_fence : !tgpu.mbarriers<2>
  return
}

// -----

// tgpu.thread_gather of a TMA view (box 16 rows x 64 columns): each warp
// holds whole runs of 16 rows (two a thread here). Per run the warp checks
// that the row index less the row is the same over the run (redux.sync
// min, then a vote that every element has it; the columns, an iota along
// the whole row, and the mask-free rest need no check) and that the
// runtime encoded the descriptor; a lane of the warp adds the box's 2048
// bytes to the slot's barrier and issues the box, and a run that is no box
// is the threads' cp.async copies.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#cr = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>
#r = #tile.linear<register = [[4], [8], [64]], lane = [[0], [0], [0], [1], [2]], warp = [[16], [32]]>
#r2 = #tile.linear<register = [[4, 0], [8, 0], [64, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>
#c = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0]]>
#c2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
// CHECK-LABEL: func.func @thread_gather_boxes
// CHECK: scf.if
// CHECK: nvvm.redux.sync min
// CHECK: nvvm.vote.sync all
// CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$1], $2;
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.if
// CHECK-COUNT-4: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: nvvm.redux.sync min
// CHECK: nvvm.vote.sync all
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.if
// CHECK-COUNT-4: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: } else {
// CHECK: return
func.func @thread_gather_boxes(%a: !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, %m: i32, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 128 : !tgpu.mbarriers<2>
  %ri = tile.iota : tensor<128xi32, #r>
  %ms = tile.splat %m : i32 -> tensor<128xi32, #r>
  %rows = arith.addi %ri, %ms : tensor<128xi32, #r>
  %r2 = tile.expand_dims %rows axis 1 : tensor<128xi32, #r> -> tensor<128x1xi32, #r2>
  %rb = tile.broadcast %r2 : tensor<128x1xi32, #r2> -> tensor<128x64xi32, #cr>
  %c = tile.iota : tensor<64xi32, #c>
  %c2 = tile.expand_dims %c axis 0 : tensor<64xi32, #c> -> tensor<1x64xi32, #c2>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #c2> -> tensor<128x64xi32, #cr>
  tgpu.thread_gather %a[%rb, %cb] -> %buf[%i] boxes %full : !tgpu.mbarriers<2> as tensor<128x64xbf16, #cr> : !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #cr>, tensor<128x64xi32, #cr>
  tgpu.arrive %full[%i] async_copies : !tgpu.mbarriers<2>
  return
}

// -----

// tgpu.wgmma with A in registers (P·V in attention): per k-step of 16 the
// four 32-bit words of each thread's A fragment (bf16 pairs packed from
// the tile's registers), then B's descriptor; no A transpose immediate.
// CHECK-LABEL: func.func @wgmma_register_a
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: mov.b64 db, {dbl, 1073741888};\0Awgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{{.*}}}, {$256, $257, $258, $259}, db, 1, 1, 1, 1;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
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

// -----

// tgpu.wgmma on i8 (k-steps of 32, s32 accumulators in "r" registers,
// only scale-d: integer wgmma has no input negation or transposes) and on
// f32 read as tf32 (k-steps of 8, both K-major, no transpose immediates).
// CHECK-LABEL: func.func @wgmma_i8_tf32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {{{.*}}}, da, db, 1;\0A}", "=r,=r,
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{{.*}}}, da, db, 1, 1, 1;\0A}", "=f,=f,
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
// 128x128 i8, K contiguous (A); its transpose view for B (N x K rows).
#sa8 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb8 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
// 128x32 f32, K contiguous (A); 32x128 f32 with K contiguous (B).
#sa32 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb32 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [4, 1], [8, 2], [16, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
func.func @wgmma_i8_tf32(%i: i32, %acc: tensor<128x128xi32, #acc>,
                         %facc: tensor<128x128xf32, #acc>) {
  %ra = tgpu.alloc : !tgpu.smem<2x128x128xi8, #sa8>
  %rb = tgpu.alloc : !tgpu.smem<2x128x128xi8, #sb8>
  %d = tgpu.wgmma %ra[%i], %rb[%i], %acc
      : !tgpu.smem<2x128x128xi8, #sa8>, !tgpu.smem<2x128x128xi8, #sb8>,
        tensor<128x128xi32, #acc>
  %fa = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sa32>
  %fb = tgpu.alloc : !tgpu.smem<2x32x128xf32, #sb32>
  %e = tgpu.wgmma %fa[%i], %fb[%i], %facc
      : !tgpu.smem<2x128x32xf32, #sa32>, !tgpu.smem<2x32x128xf32, #sb32>,
        tensor<128x128xf32, #acc>
  return
}

// -----

// tgpu.wgmma of 64 rows on two warpgroups that split N (8 warps: the third
// warp bit moves 128 columns): each warpgroup issues m64n128k16 on the
// same A, its B descriptor starting at its columns (warpgroup index bit 0
// times the byte offset of column 128 of B's slot, 16384).
// CHECK-LABEL: func.func @wgmma_split_n
// CHECK: %[[SH:.*]] = arith.shrui %{{.*}}, %c0_i32
// CHECK: %[[BIT:.*]] = arith.andi %[[SH]], %c1_i32
// CHECK: %[[OFF:.*]] = arith.muli %[[BIT]], %c16384_i32
// CHECK: arith.xori %{{.*}}, %[[OFF]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, da, db, 1, 1, 1, 0, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 128]]>
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
func.func @wgmma_split_n(%i: i32, %acc: tensor<64x256xf32, #acc>) {
  %ra = tgpu.alloc : !tgpu.smem<2x64x64xbf16, #sa>
  %rb = tgpu.alloc : !tgpu.smem<2x64x256xbf16, #sb>
  %d = tgpu.wgmma %ra[%i], %rb[%i], %acc
      : !tgpu.smem<2x64x64xbf16, #sa>, !tgpu.smem<2x64x256xbf16, #sb>,
        tensor<64x256xf32, #acc>
  return
}

// -----

// A reducing TMA store of a tile split by columns across two warpgroups
// (the main loop's dQ in attention backward): each round every warp writes
// its warpgroup's chunk into a slot of its own (slot = round's first +
// warp bit 2); the four slots hold both rounds, so the tile is one batch:
// one wait for the last tile's copies, both rounds written, then one
// thread adds the four chunks with cp.reduce.async.bulk.tensor (inline
// PTX: NVVM's op takes no predicate) and commits them as one group.
#split_n = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 64]]>
#sd = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
// CHECK-LABEL: func.func @store_reduce
// CHECK: %[[WARP:.*]] = arith.shrui %{{.*}}, %c5_i32 : i32
// CHECK-NEXT: %[[BIT2:.*]] = arith.shrui %[[WARP]], %c2_i32 : i32
// CHECK-NEXT: %[[WG:.*]] = arith.andi %[[BIT2]], %c1_i32 : i32
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: arith.addi %{{.*}}, %[[WG]] : i32
// CHECK: arith.addi %{{.*}}, %[[WG]] : i32
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvvm.cp.async.bulk.commit.group
// CHECK-COUNT-4: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: cp.reduce.async.bulk.tensor
// CHECK-NOT: nvvm.cp.async.bulk.wait_group
func.func @store_reduce(%c: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>,
                        %i: i32, %dq: tensor<64x128xf32, #split_n>) {
  %buf = tgpu.alloc : !tgpu.smem<4x64x32xf32, #sd>
  tgpu.tma_store %dq, %c[%i, %i] via %buf reduce add
      : tensor<64x128xf32, #split_n>, !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>,
        !tgpu.smem<4x64x32xf32, #sd>
  return
}

// -----

// The dynamic tile scheduler's ops: the claim is one asm block on the first
// thread (the counter's atom.add, its old value to the response row's
// first word, then the full barrier's arrival); the read is a 4-byte shared
// load of that word; the release counts the program done (acq_rel) and the
// last of the launch's programs zeroes both words. The counter is the
// kernel's semaphores (a trailing parameter).
// CHECK-LABEL: func.func @dynamic_tiles(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0A.reg .b32 old;\0Asetp.ne.b32 p, $0, 0;\0A@p atom.relaxed.gpu.global.add.u32 old, [$1], 1;\0A@p st.shared.u32 [$2], old;\0A@p mbarrier.arrive.shared::cta.b64 _, [$3];\0A}", "r,l,r,r"
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: llvm.inline_asm has_side_effects {{.*}}@p atom.acq_rel.gpu.global.add.u32 old, [$1+4], 1;\0Asetp.eq.and.u32 last, old, n, p;\0A@last st.relaxed.gpu.global.u32 [$1], 0;\0A@last st.relaxed.gpu.global.u32 [$1+4], 0;\0A}", "r,l"
#rows = #tile.shared<offset = [[0, 1], [0, 2], [1, 0]]>
func.func @dynamic_tiles(%i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>, tile.semaphores = #tile.expr<8>} {
  %c2 = arith.constant 2 : i32
  %c0 = arith.constant 0 : i64
  %ctr = tile.workspace semaphores [%c2] offset %c0 : !tile.tensor<?xi32>
  %resp = tgpu.alloc : !tgpu.smem<2x4xi32, #rows>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  tgpu.claim_tile %ctr, %resp[%i], %full : !tile.tensor<?xi32>, !tgpu.smem<2x4xi32, #rows>, !tgpu.mbarriers<2>
  %old = tgpu.claimed_tile %resp[%i] : !tgpu.smem<2x4xi32, #rows>
  tgpu.arrive %full[%old] : !tgpu.mbarriers<2>
  tgpu.release_tile_counter %ctr : !tile.tensor<?xi32>
  return
}
