// RUN: tilec-opt %s -split-input-file -tile-allocate-tensor-memory -tile-allocate-shared-memory -convert-tile-to-llvm | FileCheck %s
//
// How the tensor-memory and tcgen05 ops (sm_100a) are lowered onto NVVM's
// tcgen05 ops (TensorMemoryOpsToLLVM.cpp; the PTX ISA rules in
// docs/BLACKWELL.md).

// 128x64 bf16, K contiguous, 128-byte swizzle (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 64x128 bf16 as B (KxN), N contiguous, two 64-column swizzle atoms (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
// tcgen05.ld/st 32x32b over 4 warps.
#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#p16 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

// CHECK-LABEL: func.func @gemm_step
// Entry: warp 0 allocates the kernel's 512 columns (a 2x128x128 f32
// accumulator and a 128x64 bf16 tile: 256 + 32) into the address word
// after the buffers and barriers (32768 + 16), gives up the permit; the
// block synchronizes between tcgen05 fences.
// CHECK: %[[W0:.*]] = arith.cmpi eq
// CHECK: scf.if %[[W0]] {
// CHECK: %[[WORD:.*]] = llvm.getelementptr %{{.*}}[%c32784_i32{{.*}}]
// CHECK: nvvm.tcgen05.alloc %[[WORD]], %c512_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: }
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: nvvm.barrier0
// CHECK: nvvm.tcgen05.fence <after>
// tgpu.tmem_alloc: the base read from the word, plus the buffer's column.
// CHECK: %[[BASE:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[ACC:.*]] = arith.addi %[[BASE]], %c0_i32
// CHECK: arith.addi %{{.*}}, %c256_i32
// tgpu.tcgen05_mma: thread 0 issues an MMA per k-step of 16 (4 for K =
// 64), D in the accumulator's slot, the descriptors of A (K-major: 32
// bytes a k-step) and B (MN-major: 16 rows, 2048 bytes a k-step), the
// instruction descriptor (bf16 inputs, f32 D, B transposed, N = 128, M =
// 128) and the first step accumulating as the operand says.
// CHECK: %[[T0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32
// CHECK: scf.if %[[T0]] {
// CHECK: %[[D:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.mma %[[D]], %{{.*}}, %{{.*}}, %c136381584_i32, %arg1 {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK: arith.addi %{{.*}}, %c32_i32
// CHECK: arith.addi %{{.*}}, %c2048_i32
// CHECK: nvvm.tcgen05.mma %[[D]], %{{.*}}, %{{.*}}, %c136381584_i32, %true
// CHECK-COUNT-2: nvvm.tcgen05.mma %[[D]]
// CHECK-NOT: nvvm.tcgen05.mma
// tgpu.tcgen05_commit: the same thread, one arrive on completion.
// CHECK: scf.if
// CHECK: nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// tgpu.tmem_load: the warp's quadrant (warp bits: lanes 32 and 64, lane
// << 16) and the column (64); one 32x32b.x64 load, then the registers pass
// through tcgen05.wait::ld.
// CHECK: arith.muli %{{.*}}, %c2097152_i32
// CHECK: arith.muli %{{.*}}, %c4194304_i32
// CHECK: %[[LD:.*]] = nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: llvm.extractelement %[[LD]]
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "tcgen05.wait::ld.sync.aligned;", "=f,=f,
// tgpu.tmem_store of bf16: two elements a 32-bit column (32 words).
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.wait <store>
// CHECK: nvvm.tcgen05.fence <before>
// Before the return: fence, block barrier, warp 0 frees the columns.
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c512_i32 : !llvm.ptr<6>, i32
// CHECK: return
func.func @gemm_step(%i: i32, %on: i1)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %a = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<64x128xbf16, #sb>
  %bars = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  %acc = tgpu.tmem_alloc : !tgpu.tmem<2x128x128xf32>
  %p = tgpu.tmem_alloc : !tgpu.tmem<128x64xbf16>
  %c0 = arith.constant 0 : i32
  tgpu.tcgen05_mma %a[%c0], %b[%c0], %acc[%i], %on
      : !tgpu.smem<128x64xbf16, #sa>, !tgpu.smem<64x128xbf16, #sb>, !tgpu.tmem<2x128x128xf32>
  tgpu.tcgen05_commit %bars[%c0] : !tgpu.mbarriers<2>
  tgpu.wait %bars[%c0], %c0 : !tgpu.mbarriers<2>
  tgpu.tcgen05_fence after_thread_sync
  %l = tgpu.tmem_load %acc[%i] column 64 : !tgpu.tmem<2x128x128xf32> -> tensor<128x64xf32, #t32>
  %w = tgpu.tmem_wait load %l : tensor<128x64xf32, #t32>
  %pv = arith.constant dense<1.0> : tensor<128x64xbf16, #p16>
  tgpu.tmem_store %pv, %p[%c0] : tensor<128x64xbf16, #p16>, !tgpu.tmem<128x64xbf16>
  tgpu.tmem_wait store
  tgpu.tcgen05_fence before_thread_sync
  return
}

// -----

// Over 8 warps (two warpgroups) each warpgroup holds every other 16-column
// run (LinearLayout::tmem32x32b): a warp loads its two runs with one
// 32x32b.x16 each, 32 columns apart; the fifth warp on starts 16 columns
// in (warp bit 2 of the layout). Regions without a register budget set
// none (no setmaxnreg).
// CHECK-LABEL: func.func @eight_warps
// CHECK-NOT: setmaxregister
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: arith.muli %{{.*}}, %[[C16]] : i32
// CHECK: %[[P0:.*]] = llvm.inttoptr %[[A0:.*]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: nvvm.tcgen05.ld %[[P0]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[A1:.*]] = arith.addi %{{.*}}, %[[C32]] : i32
// CHECK-NEXT: %[[P1:.*]] = llvm.inttoptr %[[A1]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: nvvm.tcgen05.ld %[[P1]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK-NOT: setmaxregister
// tcgen05.ld 32x32b over 8 warps (LinearLayout::tmem32x32b, 128x64): each
// warpgroup holds every other 16-column run.
#t8 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0], [0, 16]]>
func.func @eight_warps(%i: i32)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %acc = tgpu.tmem_alloc : !tgpu.tmem<128x64xf32>
  tgpu.warp_specialize [#tgpu.partition<compute, warps = 8>, #tgpu.partition<mma, warps = 1>] {
    %c0 = arith.constant 0 : i32
    %l = tgpu.tmem_load %acc[%c0] : !tgpu.tmem<128x64xf32> -> tensor<128x64xf32, #t8>
    %w = tgpu.tmem_wait load %l : tensor<128x64xf32, #t8>
  }, {
  }
  return
}

// -----

// sm_100a's budgets: 8 compute warps (two warpgroups) raise theirs; the
// one-warp load and MMA regions share the third warpgroup, whose budget
// its four warps set at one instruction before they split (the launch is
// rounded up to 384 threads: the two warps past the MMA warp only join
// the budget). Thread ranges: compute 0..255, load 256..287, MMA 288..319.
// CHECK-LABEL: func.func @shared_warpgroup
// CHECK-SAME: tgpu.launch_warps = 12 : i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[TID]], %[[C256]]
// CHECK: scf.if %[[IN0]] {
// CHECK: nvvm.setmaxregister increase 208
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister decrease 96
// CHECK-NEXT: %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi ult, %[[TID]], %[[C288]]
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NOT: setmaxregister
// CHECK: } else {
// CHECK-NEXT: %[[C320:.*]] = arith.constant 320 : i32
// CHECK-NEXT: %[[IN2:.*]] = arith.cmpi ult, %[[TID]], %[[C320]]
// CHECK-NEXT: scf.if %[[IN2]] {
// CHECK-NOT: setmaxregister
// CHECK: } {tgpu.thread_range = array<i32: 288, 32, 3, 0, 96, 320, 64, 3, 0, 96>}
// CHECK-NEXT: } {tgpu.thread_range = array<i32: 256, 32, 2, 0, 96, 288, 96, 3, 0, 96>}
// CHECK-NEXT: } {tgpu.thread_range = array<i32: 0, 256, 1, 0, 208, 256, 128, 2, 0, 96>}
func.func @shared_warpgroup(%i: i32)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  tgpu.warp_specialize [#tgpu.partition<compute, warps = 8, regs = 208>, #tgpu.partition<load, warps = 1, regs = 96>, #tgpu.partition<mma, warps = 1, regs = 96>] {
    %a = arith.addi %i, %i : i32
  }, {
    %b = arith.muli %i, %i : i32
  }, {
    %c = arith.subi %i, %i : i32
  }
  return
}

// -----

// Cluster launch control: the first thread asks (try_cancel into response
// row %i, 16 bytes a row, the barrier's transactions completed by it; a
// 32-byte buffer of two rows, 16-byte aligned, after the 1024-aligned
// ring); any thread reads a row as one i128 and queries it: the first
// block's x where the launch was cancelled, else -1.
// CHECK-LABEL: func.func @launch_control
// CHECK: arith.constant 32768 : i32
// CHECK: arith.constant 32800 : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %arg0, %[[C16]] : i32
// CHECK-NEXT: %[[RESP:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]]
// CHECK: scf.if
// CHECK-NEXT: nvvm.clusterlaunchcontrol.try.cancel %[[RESP]], %{{.*}}
// CHECK: %[[BITS:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> i128
// CHECK-NEXT: %[[OK:.*]] = nvvm.clusterlaunchcontrol.query.cancel query = is_canceled, %[[BITS]] : i1
// CHECK-NEXT: %[[X:.*]] = nvvm.clusterlaunchcontrol.query.cancel query = get_first_cta_id_x, %[[BITS]] : i32
// CHECK-NEXT: %[[NONE:.*]] = arith.constant -1 : i32
// CHECK-NEXT: arith.select %[[OK]], %[[X]], %[[NONE]] : i32
// With multicast only the cluster's first CTA asks, for the pair.
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: scf.if
// CHECK-NEXT: nvvm.clusterlaunchcontrol.try.cancel multicast, %{{.*}}, %{{.*}}
#ring = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]]>
#rows = #tile.shared<offset = [[0, 1], [0, 2], [1, 0]]>
func.func @launch_control(%i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ring = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #ring>
  %resp = tgpu.alloc : !tgpu.smem<2x4xi32, #rows>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  tgpu.arrive %full[%i] expect_tx 16 : !tgpu.mbarriers<2>
  tgpu.try_cancel %resp[%i], %full : !tgpu.smem<2x4xi32, #rows>, !tgpu.mbarriers<2>
  %next = tgpu.query_cancel %resp[%i] : !tgpu.smem<2x4xi32, #rows>
  tgpu.arrive %full[%next] : !tgpu.mbarriers<2>
  tgpu.try_cancel %resp[%i], %full multicast : !tgpu.smem<2x4xi32, #rows>, !tgpu.mbarriers<2>
  return
}

// -----

// A CTA pair's barrier side: `leader` arrivals go to the cluster's first
// CTA's barrier (mapa to rank 0, then an arrive on the shared::cluster
// address: with the bytes by one thread, else by lane 0 of each warp after
// the warp syncs); `leader` copies are inline PTX with .cta_group::2 (which
// may signal the peer's barrier), its shared::cluster address as the
// 32-bit operand, the first thread's predicate set in the asm;
// tgpu.cluster_rank is %cluster_ctarank.
// CHECK-LABEL: func.func @pair
// CHECK: %[[LB:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[LB]], %c24576_i32 : !llvm.ptr<7>, i32
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CHECK: %[[MB:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[MB32:.*]] = llvm.ptrtoint %[[MB]] : !llvm.ptr<7> to i32
// CHECK-COUNT-2: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $0, 0;\0A@p cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$1], [$2, {$4, $5}], [$3];\0A}", "r,r,l,r,r,r" {{.*}}, %[[MB32]],
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank : i32
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
func.func @pair(%b: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %rb = tgpu.alloc : !tgpu.smem<2x64x128xbf16, #sb>
  %full = tgpu.barriers arrive_count 2 : !tgpu.mbarriers<2>
  tgpu.arrive %full[%i] expect_tx 24576 leader : !tgpu.mbarriers<2>
  tgpu.arrive %full[%i] leader : !tgpu.mbarriers<2>
  tgpu.tma_load %b[%i, %i] -> %rb[%i], %full leader
      : !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>,
        !tgpu.smem<2x64x128xbf16, #sb>, !tgpu.mbarriers<2>
  %r = tgpu.cluster_rank : i32
  tgpu.arrive %full[%r] : !tgpu.mbarriers<2>
  return
}

// -----

// In a cluster, tensor memory is allocated after the cluster's first
// barrier (a cta_group::2 allocation, a CTA pair's, takes a warp of each
// CTA; every CTA has started by then), and freed before each return.
// CHECK-LABEL: func.func @cluster_alloc
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: scf.if
// CHECK: nvvm.tcgen05.alloc
// CHECK: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.tcgen05.dealloc
func.func @cluster_alloc() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %acc = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  tgpu.cluster_sync
  tgpu.cluster_sync
  return
}
