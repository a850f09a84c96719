// RUN: tilec-opt %s -split-input-file -tile-pipeline -verify-diagnostics | FileCheck %s

// The schedule tile-pipeline-schedule wrote (load and its index at stage 0,
// the sum at stage 2 of 3) becomes a producer and a consumer of a channel
// of depth 3, which then becomes: a 3-slot ring in the 128-byte swizzle
// TMA writes (32x64 f32 = two 32x32 boxes a slot), a TMA view, full
// barriers (one arrival plus the bytes) and empty barriers (one arrival per
// warp); a prologue acquiring uses 0 and 1 (if they exist; the first
// round's slots are free, so no wait) and issuing their copies; in the
// loop, the acquire of use j + 2 (the wait until every warp released use
// j - 1, which had its slot) and its copies, then the wait for use j and a
// local_load in place of the load; the release at the end. All of it runs
// where the runtime encoded the view's descriptor (tgpu.tma_ready);
// otherwise the loop as it was, with its plain load (the kernel lists the
// view in tile.tma_fallback, so the runtime zeroes a descriptor it cannot
// encode instead of refusing the launch). No schedule attributes and no
// channel ops remain.

#linear = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>

// CHECK-LABEL: func.func @colsum
// CHECK-SAME: %[[X:.*]]: !tile.tensor<?x?xf32, tma = 32x32, swizzle = 128>
// CHECK-SAME: tile.tma_fallback = array<i32: 0>
// CHECK: %[[RING:.*]] = tgpu.alloc : <3x32x64xf32, #shared>
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 1 : <3>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 4 : <3>
// CHECK: %[[OK:.*]] = tgpu.tma_ready %[[X]]
// CHECK: scf.if %[[OK]] -> (tensor<32x64xf32, #linear>) {
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: scf.if
// CHECK-NOT: tgpu.wait
// CHECK:   tgpu.arrive %[[FULL]][%{{.*}}] expect_tx 8192
// CHECK:   tgpu.tma_load %[[X]][%{{.*}}, %{{.*}}] -> %[[RING]][%{{.*}}], %[[FULL]]
// CHECK: scf.if
// CHECK-NOT: tgpu.wait
// CHECK:   tgpu.tma_load
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[J:.*]] = %{{.*}})
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[J]], %c2_i32
// CHECK:   %[[MORE:.*]] = arith.cmpi slt, %[[AHEAD]], %[[TRIPS]]
// CHECK:   scf.if %[[MORE]] {
// CHECK:     %[[FREE:.*]] = arith.remui %[[AHEAD]], %c3
// CHECK:     tgpu.wait %[[EMPTY]][%[[FREE]]]
// CHECK:     tgpu.arrive %[[FULL]][%[[FREE]]] expect_tx 8192
// CHECK:     tgpu.tma_load %[[X]]{{.*}} -> %[[RING]][%[[FREE]]], %[[FULL]]
// CHECK:   }
// CHECK:   %[[SLOT:.*]] = arith.remui %[[J]], %c3_i32
// CHECK:   tgpu.wait %[[FULL]][%[[SLOT]]]
// CHECK:   %[[T:.*]] = tgpu.local_load %[[RING]][%[[SLOT]]] : <3x32x64xf32, #shared> -> tensor<32x64xf32, #linear>
// CHECK:   arith.addf %{{.*}}, %[[T]]
// CHECK:   %[[DONE:.*]] = arith.remui %[[J]], %c3
// CHECK:   tgpu.arrive %[[EMPTY]][%[[DONE]]] : <3>
// CHECK:   scf.yield
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     tile.load %[[X]]
// CHECK-NOT: tgpu.channel
// CHECK-NOT: tile.pipeline
func.func @colsum(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<cdiv(dim(0, 0), 32)>} {
  %zero = arith.constant dense<0.0> : tensor<32x64xf32, #linear>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c32 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %acc = scf.for %k = %c0 to %n step %c32 iter_args(%a = %zero) -> (tensor<32x64xf32, #linear>) : i32 {
    %k2 = arith.addi %k, %k {tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32} : i32
    %t = tile.load %x[%m0, %k2] {tgpu.tma = #tgpu.tma_copy<box = [32, 32], swizzle = 128>, tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32} : !tile.tensor<?x?xf32> -> tensor<32x64xf32, #linear>
    %s = arith.addf %a, %t {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 2 : i32} : tensor<32x64xf32, #linear>
    scf.yield %s : tensor<32x64xf32, #linear>
  } {tile.pipeline.num_stages = 3 : i32}
  tile.store %acc, %y[%m0, %c0] : tensor<32x64xf32, #linear>, !tile.tensor<?x?xf32>
  return
}

// -----

// A load that reaches its one conversion through a reshape and a
// transpose (attention's K: 1x32x64 -> 32x64 -> 64x32) reads its slot
// straight into the layout those carry to the conversion's (no round trip
// through registers and scratch), where the conversion was (after the
// addf: tile-plain-twin places an MMA operand's conversion right before
// its dot); the shape ops follow it there.

#ld = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0]]>
#r2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#tr = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#dst = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>

// CHECK-LABEL: func.func @reshaped
// CHECK: %[[RING:.*]] = tgpu.alloc : <2x1x32x64xbf16, #shared>
// CHECK: scf.for
// CHECK:   tgpu.wait
// CHECK:   arith.addf %{{.*}}, %{{.*}} : tensor<64x32xf32, #[[DST:linear[0-9]*]]>
// CHECK:   %[[T:.*]] = tgpu.local_load %[[RING]][%{{.*}}] : <2x1x32x64xbf16, #shared> -> tensor<1x32x64xbf16, #[[L:linear[0-9]*]]>
// CHECK:   %[[R:.*]] = tile.reshape %[[T]] : tensor<1x32x64xbf16, #[[L]]> -> tensor<32x64xbf16, #[[LR:linear[0-9]*]]>
// CHECK:   tile.transpose %[[R]] [1, 0] : tensor<32x64xbf16, #[[LR]]> -> tensor<64x32xbf16, #[[DST]]>
// CHECK-NOT: tile.convert_layout
// CHECK:   arith.extf
// CHECK: } else {
func.func @reshaped(%x: !tile.tensor<?x?x?xbf16>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<cdiv(dim(0, 1), 32)>} {
  %zero = arith.constant dense<0.0> : tensor<64x32xf32, #dst>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c64 : i32
  %n = tile.dim %x, 2 : !tile.tensor<?x?x?xbf16>
  %acc = scf.for %k = %c0 to %n step %c64 iter_args(%a = %zero) -> (tensor<64x32xf32, #dst>) : i32 {
    %t = tile.load %x[%c0, %m0, %k] {tgpu.tma = #tgpu.tma_copy<box = [1, 32, 64], swizzle = 128>, tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32} : !tile.tensor<?x?x?xbf16> -> tensor<1x32x64xbf16, #ld>
    %r = tile.reshape %t {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32} : tensor<1x32x64xbf16, #ld> -> tensor<32x64xbf16, #r2>
    %tt = tile.transpose %r [1, 0] {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32} : tensor<32x64xbf16, #r2> -> tensor<64x32xbf16, #tr>
    %w = arith.addf %a, %a {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32} : tensor<64x32xf32, #dst>
    %c = tile.convert_layout %tt {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32} : tensor<64x32xbf16, #tr> -> tensor<64x32xbf16, #dst>
    %e = arith.extf %c {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32} : tensor<64x32xbf16, #dst> to tensor<64x32xf32, #dst>
    %s = arith.addf %w, %e {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32} : tensor<64x32xf32, #dst>
    scf.yield %s : tensor<64x32xf32, #dst>
  } {tile.pipeline.num_stages = 2 : i32}
  return
}

// -----

// A channel of tile-warp-specialize's (no depth, a cluster of 2, B read
// transposed): as many slots as fit next to the kernel's other buffers,
// barriers and scratch (SharedMemoryPlan, the layout tile-allocate-shared-
// memory makes). A use takes 16 KiB + 32 KiB; the store buffers (16 KiB)
// are the consumer region's, one set per copy of two: 4 uses and the rest
// take 229504 bytes of the 232448 a block has, 5 would take 278656. The
// kernel records the depth, tgpu.num_stages, and the plan's bytes,
// tgpu.shared_memory_plan (what tile-allocate-shared-memory must come to). The transposed view is rebuilt on the ring; releases
// arrive on the empty barrier of both CTAs (8 warps each, so 16 arrivals).

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]]>
#sa2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>

// CHECK-LABEL: func.func @ws
// CHECK-SAME: tgpu.num_stages = 4 : i32, tgpu.shared_memory_plan = 229504 : i64
// CHECK: %[[RA:.*]] = tgpu.alloc : <4x128x64xbf16, #shared>
// CHECK: %[[RB:.*]] = tgpu.alloc : <4x256x64xbf16, #shared1>
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 1 : <4>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 16 : <4>
// CHECK: %[[BT:.*]] = tgpu.transpose %[[RB]] : <4x256x64xbf16, #shared1> -> <4x64x256xbf16, #shared2>
// CHECK: tgpu.warp_specialize
// CHECK:   %[[S:.*]] = arith.remui %[[I:.*]], %c4_i32
// CHECK:   %[[R:.*]] = arith.divui %[[I]], %c4_i32
// CHECK:   %[[P:.*]] = arith.andi %[[R]], %c1_i32
// CHECK:   %[[Q:.*]] = arith.xori %[[P]], %c1_i32
// CHECK:   tgpu.wait %[[EMPTY]][%[[S]]], %[[Q]]
// CHECK:   tgpu.arrive %[[FULL]][%[[S]]] expect_tx 49152
// CHECK:   tgpu.tma_load %{{.*}} -> %[[RA]][%[[S]]], %[[FULL]]
// CHECK:   tgpu.tma_load %{{.*}} -> %[[RB]][%[[S]]], %[[FULL]]
// CHECK: }, {
// CHECK:   %[[C:.*]] = arith.remui %[[J:.*]], %c4_i32
// CHECK:   %[[CR:.*]] = arith.divui %[[J]], %c4_i32
// CHECK:   %[[CP:.*]] = arith.andi %[[CR]], %c1_i32
// CHECK:   tgpu.wait %[[FULL]][%[[C]]], %[[CP]]
// CHECK:   tgpu.wgmma %[[RA]][%[[C]]], %[[BT]][%[[C]]]
// CHECK:   %[[D:.*]] = arith.remui %[[J]], %c4_i32
// CHECK:   tgpu.arrive %[[EMPTY]][%[[D]]] cluster 2
// CHECK-NOT: tgpu.channel
func.func @ws(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
              %b: !tile.tensor<?x?xbf16, tma = 256x64, swizzle = 128>,
              %i: i32, %j: i32)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %ch, %ra, %rb = tgpu.channel consumer_warps 8 cluster 2
      : !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.smem<?x256x64xbf16, #sb>
  %bt = tgpu.transpose %rb : !tgpu.smem<?x256x64xbf16, #sb>
      -> !tgpu.smem<?x64x256xbf16, #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]>>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
    %s = tgpu.channel_acquire %ch[%i]
    tgpu.tma_load %a[%i, %i] -> %ra[%s], %ch
        : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
          !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.channel
    tgpu.tma_load %b[%i, %i] -> %rb[%s], %ch
        : !tile.tensor<?x?xbf16, tma = 256x64, swizzle = 128>,
          !tgpu.smem<?x256x64xbf16, #sb>, !tgpu.channel
  }, {
    %buf = tgpu.alloc : !tgpu.smem<2x64x64xbf16, #sa2>
    %acc = arith.constant dense<0.0> : tensor<128x256xf32, #acc>
    %s = tgpu.channel_wait %ch[%j]
    %d = tgpu.wgmma %ra[%s], %bt[%s], %acc
        : !tgpu.smem<?x128x64xbf16, #sa>,
          !tgpu.smem<?x64x256xbf16, #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]>>,
          tensor<128x256xf32, #acc>
    tgpu.channel_release %ch[%j]
  }
  return
}

// -----

// The kernel's tile.num_stages overrides the choice; both the knob and
// the choice (tgpu.num_stages) stay visible.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

// CHECK-LABEL: func.func @override
// CHECK-SAME: tgpu.num_stages = 2 : i32
// CHECK-SAME: tile.num_stages = 2 : i32
// CHECK: tgpu.alloc : <2x128x64xbf16, #shared>
// CHECK: tgpu.barriers arrive_count 4 : <2>
func.func @override() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>, tile.num_stages = 2 : i32} {
  %ch, %ra = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  return
}

// -----

// A use too large for two slots.

#big = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 64], [0, 128]]>

func.func @too_big() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{a 131072-byte pipeline stage leaves room for 1 stages; at least 2 are needed}}
  %ch, %ra = tgpu.channel consumer_warps 4 : !tgpu.smem<?x256x256xbf16, #big>
  return
}

// -----

// Two channels without a depth share what is left alike (a use of each is
// in flight together): 232448 - 3 * 1024 bytes fit 7 uses of both.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

// CHECK-LABEL: func.func @two
// CHECK: tgpu.alloc : <7x128x64xbf16, #shared>
// CHECK: tgpu.alloc : <7x128x64xbf16, #shared>
func.func @two() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  %ch2, %rb = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func private @sink(!tgpu.smem<?x128x64xbf16, #sa>)

func.func @buffer_escapes() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  // expected-error @+1 {{uses a channel's buffer in a way tile-pipeline cannot lower}}
  func.call @sink(%ra) : (!tgpu.smem<?x128x64xbf16, #sa>) -> ()
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func private @sink(!tgpu.channel)

func.func @channel_escapes() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  // expected-error @+1 {{uses a channel in a way tile-pipeline cannot lower}}
  func.call @sink(%ch) : (!tgpu.channel) -> ()
  return
}

// -----

// Shared-memory slots the load partition's threads fill (fill = arrive: a
// view TMA cannot read, in a GEMM's plain twin): the full barrier counts
// the 4 producer warps' arrivals, the acquire waits for a free slot and
// expects no bytes, the stores go into the ring's slot and the fill is each
// warp's arrival; the consumer waits for the full phase as for TMA copies.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

// CHECK-LABEL: func.func @filled_by_warps
// CHECK: %[[RING:.*]] = tgpu.alloc : <2x128x64xbf16
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 4 : <2>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 4 : <2>
// CHECK: tgpu.wait %[[EMPTY]]
// CHECK-NOT: expect_tx
// CHECK: tgpu.thread_copy %{{.*}} -> %[[RING]][%{{.*}}]
// CHECK-NOT: tgpu.wait
// CHECK: tgpu.arrive %[[FULL]][%{{.*}}] : <2>
// CHECK: tgpu.wait %[[FULL]]
// CHECK: tgpu.local_load %[[RING]]
// CHECK: tgpu.arrive %[[EMPTY]]
// CHECK-NOT: tgpu.channel
func.func @filled_by_warps(%t: i32, %a: !tile.tensor<?x?xbf16>, %m: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra = tgpu.channel consumer_warps 4 producer_warps 4 depth 2 kind <fill = arrive, release = arrive> : !tgpu.smem<?x128x64xbf16, #sa>
  %s = tgpu.channel_acquire %ch[%t]
  tgpu.thread_copy %a[%m, %k] -> %ra[%s] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<?x128x64xbf16, #sa>
  tgpu.channel_fill %ch[%t]
  %w = tgpu.channel_wait %ch[%t]
  %x = tgpu.local_load %ra[%w] : !tgpu.smem<?x128x64xbf16, #sa> -> tensor<128x64xbf16, #co>
  tgpu.channel_release %ch[%t]
  func.call @use(%x) : (tensor<128x64xbf16, #co>) -> ()
  return
}
func.func private @use(tensor<128x64xbf16, #co>)

// -----

// Slots the load partition's threads gather into without waiting for their
// cp.async copies (fill = async_copy: paged K and V): the full barrier
// counts the 128 producer threads, the fill is each thread's arrival as its
// copies complete, and the consumer fences the async proxy after its wait
// where anything but a shared load reads the slot (an MMA: here a call).

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

// CHECK-LABEL: func.func @filled_by_async_copies
// CHECK: %[[RING:.*]] = tgpu.alloc : <2x128x64xbf16
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 128 : <2>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 4 : <2>
// CHECK: tgpu.wait %[[EMPTY]]
// CHECK-NOT: expect_tx
// CHECK: tgpu.thread_gather %{{.*}} -> %[[RING]][%{{.*}}]
// CHECK: tgpu.arrive %[[FULL]][%{{.*}}] async_copies : <2>
// CHECK: tgpu.wait %[[FULL]][%{{.*}}], %{{.*}} proxy_fence : <2>
// CHECK: tgpu.local_load %[[RING]]
// CHECK-NOT: tgpu.channel
func.func @filled_by_async_copies(%t: i32, %a: !tile.tensor<?x?xbf16>, %m: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %rows = tile.splat %m : i32 -> tensor<128x64xi32, #co>
  %cols = tile.splat %k : i32 -> tensor<128x64xi32, #co>
  %ch, %ra = tgpu.channel consumer_warps 4 producer_warps 4 depth 2 kind <fill = async_copy, release = arrive> : !tgpu.smem<?x128x64xbf16, #sa>
  %s = tgpu.channel_acquire %ch[%t]
  tgpu.thread_gather %a[%rows, %cols] -> %ra[%s] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<?x128x64xbf16, #sa>, tensor<128x64xi32, #co>, tensor<128x64xi32, #co>
  tgpu.channel_fill %ch[%t]
  %w = tgpu.channel_wait %ch[%t]
  %x = tgpu.local_load %ra[%w] : !tgpu.smem<?x128x64xbf16, #sa> -> tensor<128x64xbf16, #co>
  func.call @mma(%w) : (i32) -> ()
  tgpu.channel_release %ch[%t]
  func.call @use(%x) : (tensor<128x64xbf16, #co>) -> ()
  return
}
func.func private @use(tensor<128x64xbf16, #co>)
func.func private @mma(i32)

// -----

// Where only shared loads read the slot (a block-scaled GEMM's scale that
// the threads copy), the consumer's wait does not fence: the copies and
// the loads are both the generic proxy's.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

// CHECK-LABEL: func.func @read_by_shared_loads
// CHECK: tgpu.thread_copy %{{.*}} no_wait
// CHECK: tgpu.arrive %[[FULL:.*]][%{{.*}}] async_copies : <2>
// CHECK: tgpu.wait %[[FULL]][%{{.*}}], %{{.*}} : <2>
// CHECK-NEXT: tgpu.local_load
func.func @read_by_shared_loads(%t: i32, %a: !tile.tensor<?x?xbf16>, %m: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra = tgpu.channel consumer_warps 4 producer_warps 4 depth 2 kind <fill = async_copy, release = arrive> : !tgpu.smem<?x128x64xbf16, #sa>
  %s = tgpu.channel_acquire %ch[%t]
  tgpu.thread_copy %a[%m, %k] -> %ra[%s] as tensor<128x64xbf16, #co> no_wait : !tile.tensor<?x?xbf16>, !tgpu.smem<?x128x64xbf16, #sa>
  tgpu.channel_fill %ch[%t]
  %w = tgpu.channel_wait %ch[%t]
  %x = tgpu.local_load %ra[%w] : !tgpu.smem<?x128x64xbf16, #sa> -> tensor<128x64xbf16, #co>
  tgpu.channel_release %ch[%t]
  func.call @use(%x) : (tensor<128x64xbf16, #co>) -> ()
  return
}
func.func private @use(tensor<128x64xbf16, #co>)

// -----

// A thread gather that takes TMA boxes (a TMA view) completes them on the
// channel's full barrier: the boxes' bytes join the threads' arrivals.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#cr = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>

// CHECK-LABEL: func.func @gather_boxes_complete_on_full
// CHECK: %[[RING:.*]] = tgpu.alloc : <2x128x64xbf16
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 128 : <2>
// CHECK: tgpu.thread_gather %{{.*}} -> %[[RING]][%{{.*}}] boxes %[[FULL]] : !tgpu.mbarriers<2>
// CHECK: tgpu.arrive %[[FULL]][%{{.*}}] async_copies : <2>
// CHECK-NOT: tgpu.channel
func.func @gather_boxes_complete_on_full(%t: i32, %a: !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, %m: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %rows = tile.splat %m : i32 -> tensor<128x64xi32, #cr>
  %cols = tile.splat %k : i32 -> tensor<128x64xi32, #cr>
  %ch, %ra = tgpu.channel consumer_warps 4 producer_warps 4 depth 2 kind <fill = async_copy, release = arrive> : !tgpu.smem<?x128x64xbf16, #sa>
  %s = tgpu.channel_acquire %ch[%t]
  tgpu.thread_gather %a[%rows, %cols] -> %ra[%s] boxes %ch : !tgpu.channel as tensor<128x64xbf16, #cr> : !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, !tgpu.smem<?x128x64xbf16, #sa>, tensor<128x64xi32, #cr>, tensor<128x64xi32, #cr>
  tgpu.channel_fill %ch[%t]
  %w = tgpu.channel_wait %ch[%t]
  %x = tgpu.local_load %ra[%w] : !tgpu.smem<?x128x64xbf16, #sa> -> tensor<128x64xbf16, #cr>
  tgpu.channel_release %ch[%t]
  func.call @use(%x) : (tensor<128x64xbf16, #cr>) -> ()
  return
}
func.func private @use(tensor<128x64xbf16, #cr>)

// -----

// sm_100a: slots the tcgen05 MMAs release (release = mma) are released by
// the MMAs' completion, a tcgen05.commit to the empty barrier from the
// thread that issued them: the empty barriers expect one arrival a CTA
// (two in a cluster of two, the commit multicast), not one a warp. Such a
// commit arrives after its thread went on, and this one reaches the other
// CTA too: the producer drains after its loops (waits each slot's next
// empty phase, uses n and n + 1 of a 2-deep ring), so no commit is still
// on its way to a CTA that leaves.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]]>
#bt = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]>

// CHECK-LABEL: func.func @tcgen05
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 1 : <2>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 2 : <2>
// CHECK: tgpu.warp_specialize
// CHECK: %[[N:.*]] = scf.for
// CHECK:   scf.for
// CHECK:     tgpu.wait %[[EMPTY]]
// CHECK:     tgpu.arrive %[[FULL]][%{{.*}}] expect_tx 49152
// CHECK: %[[R0:.*]] = arith.divui %[[N]], %c2
// CHECK: %[[S0:.*]] = arith.remui %[[N]], %c2
// CHECK: tgpu.wait %[[EMPTY]][%[[S0]]]
// CHECK: %[[N1:.*]] = arith.addi %[[N]], %c1
// CHECK: %[[S1:.*]] = arith.remui %[[N1]], %c2
// CHECK: tgpu.wait %[[EMPTY]][%[[S1]]]
// CHECK-NOT: tgpu.wait %[[EMPTY]]
// CHECK: }, {
// CHECK: tgpu.wait %[[FULL]]
// CHECK: tgpu.tcgen05_mma
// CHECK: %[[S:.*]] = arith.remui %{{.*}}, %c2_i32
// CHECK: tgpu.tcgen05_commit %[[EMPTY]][%[[S]]] multicast 2 : <2>
// CHECK-NOT: tgpu.arrive %[[EMPTY]]
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @tcgen05(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
                   %b: !tile.tensor<?x?xbf16, tma = 256x64, swizzle = 128>,
                   %tiles: i32, %k: i32, %j: i32, %on: i1)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra, %rb = tgpu.channel consumer_warps 1 cluster 2 depth 2 kind <fill = tma, release = mma>
      : !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.smem<?x256x64xbf16, #sb>
  %bt = tgpu.transpose %rb : !tgpu.smem<?x256x64xbf16, #sb> -> !tgpu.smem<?x64x256xbf16, #bt>
  %acc = tgpu.tmem_alloc : !tgpu.tmem<128x256xf32>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 1, regs = 96>, #tgpu.partition<mma, warps = 1, regs = 96>] {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // The tile loop carries the use counter through the k loop.
    %n = scf.for %t = %c0 to %tiles step %c1 iter_args(%u = %c0) -> (i32) : i32 {
      %m = scf.for %kk = %c0 to %k step %c1 iter_args(%i = %u) -> (i32) : i32 {
        %s = tgpu.channel_acquire %ch[%i]
        tgpu.tma_load %a[%t, %kk] -> %ra[%s], %ch
            : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.channel
        tgpu.tma_load %b[%kk, %t] -> %rb[%s], %ch
            : !tile.tensor<?x?xbf16, tma = 256x64, swizzle = 128>, !tgpu.smem<?x256x64xbf16, #sb>, !tgpu.channel
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %i1 : i32
      }
      scf.yield %m : i32
    }
  }, {
    %c0 = arith.constant 0 : i32
    %t = tgpu.channel_wait %ch[%j]
    tgpu.tcgen05_mma %ra[%t], %bt[%t], %acc[%c0], %on
        : !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.smem<?x64x256xbf16, #bt>, !tgpu.tmem<128x256xf32>
    tgpu.channel_release %ch[%j]
  }
  return
}
}

// -----

// Draining needs the producer's use counter at the end of its loops.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

module attributes {tile.target = #tile.target<sm_100a>} {
func.func @no_counter(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %ch, %ra = tgpu.channel consumer_warps 1 cluster 2 depth 2 kind <fill = tma, release = mma>
      : !tgpu.smem<?x128x64xbf16, #sa>
  // expected-error @+1 {{a channel whose release commits to other CTAs needs its producer's use counter carried by loops at the top of the partition}}
  %s = tgpu.channel_acquire %ch[%i]
  tgpu.tma_load %a[%i, %i] -> %ra[%s], %ch
      : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.channel
  return
}
}

// -----

// sm_100a: accumulators handed from the MMA thread to the epilogue's warps
// through a channel of tensor memory (fill = mma): a ring of `depth`
// accumulators; the acquire only waits for a free one (no bytes to
// expect), the fill is a commit to the full barrier (one arrival), the
// epilogue's 4 warps release it.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

// CHECK-LABEL: func.func @accumulators
// CHECK: %[[RING:.*]] = tgpu.tmem_alloc : <2x128x128xf32>
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 1 : <2>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 4 : <2>
// CHECK: %[[S:.*]] = arith.remui %[[T:.*]], %c2_i32
// CHECK: tgpu.wait %[[EMPTY]][%[[S]]]
// CHECK-NOT: expect_tx
// CHECK: tgpu.tcgen05_mma %{{.*}}, %[[RING]][%[[S]]]
// CHECK: %[[F:.*]] = arith.remui %[[T]], %c2_i32
// CHECK: tgpu.tcgen05_commit %[[FULL]][%[[F]]] : <2>
// CHECK: tgpu.wait %[[FULL]]
// CHECK: tgpu.tmem_load %[[RING]]
// CHECK: tgpu.arrive %[[EMPTY]]
// CHECK-NOT: tgpu.channel
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @accumulators(%t: i32, %on: i1)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %a = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<64x128xbf16, #sb>
  %ch, %ring = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive>
      : !tgpu.tmem<?x128x128xf32>
  %c0 = arith.constant 0 : i32
  %s = tgpu.channel_acquire %ch[%t]
  tgpu.tcgen05_mma %a[%c0], %b[%c0], %ring[%s], %on
      : !tgpu.smem<128x64xbf16, #sa>, !tgpu.smem<64x128xbf16, #sb>, !tgpu.tmem<?x128x128xf32>
  tgpu.channel_fill %ch[%t]
  %r = tgpu.channel_wait %ch[%t]
  %l = tgpu.tmem_load %ring[%r] : !tgpu.tmem<?x128x128xf32> -> tensor<128x128xf32, #t32>
  %w = tgpu.tmem_wait load %l : tensor<128x128xf32, #t32>
  tgpu.channel_release %ch[%t]
  return
}
}

// -----

// sm_100a: a tile the compute warps write into tensor memory for an MMA
// (attention's P) goes through a channel they fill (fill = arrive): the
// full barrier counts the 4 producer warps' arrivals, the acquire waits
// for a free slot (no bytes to expect), the MMA's commit releases it.

#sv = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

// CHECK-LABEL: func.func @written_by_warps
// CHECK: %[[RING:.*]] = tgpu.tmem_alloc : <1x128x128xbf16>
// CHECK: %[[FULL:.*]] = tgpu.barriers arrive_count 4 : <1>
// CHECK: %[[EMPTY:.*]] = tgpu.barriers arrive_count 1 : <1>
// CHECK: tgpu.wait %[[EMPTY]]
// CHECK-NOT: expect_tx
// CHECK: tgpu.tmem_store %{{.*}}, %[[RING]]
// CHECK: tgpu.tmem_wait store
// CHECK: tgpu.tcgen05_fence before_thread_sync
// CHECK: tgpu.arrive %[[FULL]]
// CHECK: tgpu.wait %[[FULL]]
// CHECK: tgpu.tcgen05_fence after_thread_sync
// CHECK: tgpu.tcgen05_mma %[[RING]]
// CHECK: tgpu.tcgen05_commit %[[EMPTY]]
// CHECK-NOT: tgpu.channel
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @written_by_warps(%t: i32, %on: i1)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %p = arith.constant dense<1.0> : tensor<128x128xbf16, #t32>
  %v = tgpu.alloc : !tgpu.smem<128x64xbf16, #sv>
  %o = tgpu.tmem_alloc : !tgpu.tmem<128x64xf32>
  %ch, %ring = tgpu.channel consumer_warps 1 producer_warps 4 depth 1 kind <fill = arrive, release = mma>
      : !tgpu.tmem<?x128x128xbf16>
  %c0 = arith.constant 0 : i32
  %s = tgpu.channel_acquire %ch[%t]
  tgpu.tmem_store %p, %ring[%s] : tensor<128x128xbf16, #t32>, !tgpu.tmem<?x128x128xbf16>
  tgpu.tmem_wait store
  tgpu.tcgen05_fence before_thread_sync
  tgpu.channel_fill %ch[%t]
  %w = tgpu.channel_wait %ch[%t]
  tgpu.tcgen05_fence after_thread_sync
  tgpu.tcgen05_mma %ring[%w], %v[%c0], %o[%c0], %on
      : !tgpu.tmem<?x128x128xbf16>, !tgpu.smem<128x64xbf16, #sv>, !tgpu.tmem<128x64xf32>
  tgpu.channel_release %ch[%t]
  return
}
}

// -----

// sm_100a, a CTA pair's channels (`pair`): what the leader's MMA thread
// waits on is the leader's barrier and counts both CTAs (the operands'
// full barrier two expect_tx arrivals, `leader`, with both CTAs' copies
// completing on it; the accumulators' empty barrier both CTAs' 4 epilogue
// warps); the operands' empty and the accumulators' full barriers are each
// CTA's own, the MMA thread's commits multicast to both. B's slot is half
// of B (64 columns): 8 stages of 24 KiB.
// CHECK-LABEL: func.func @gemm_pair(
// CHECK-SAME: tgpu.num_stages = 8 : i32
// CHECK: %[[A:.*]] = tgpu.alloc : <8x128x64xbf16
// CHECK-NEXT: %[[B:.*]] = tgpu.alloc : <8x64x64xbf16
// CHECK-NEXT: %[[FULL:.*]] = tgpu.barriers arrive_count 2 : <8>
// CHECK-NEXT: %[[EMPTY:.*]] = tgpu.barriers arrive_count 1 : <8>
// CHECK-NEXT: tgpu.tmem_alloc : <2x128x128xf32>
// CHECK-NEXT: %[[ACCFULL:.*]] = tgpu.barriers arrive_count 1 : <2>
// CHECK-NEXT: %[[ACCEMPTY:.*]] = tgpu.barriers arrive_count 8 : <2>
// CHECK: tgpu.wait %[[ACCFULL]][
// CHECK: tgpu.arrive %[[ACCEMPTY]][{{.*}}] leader : <2>
// CHECK: tgpu.wait %[[EMPTY]][
// CHECK-NEXT: tgpu.arrive %[[FULL]][{{.*}}] expect_tx 24576 leader : <8>
// CHECK-NEXT: tgpu.tma_load %arg0[{{.*}}] -> %[[A]][{{.*}}], %[[FULL]] leader :
// CHECK: tgpu.tma_load %arg1[{{.*}}] -> %[[B]][{{.*}}], %[[FULL]] leader :
// CHECK: tgpu.wait %[[ACCEMPTY]][
// CHECK: tgpu.wait %[[FULL]][
// CHECK: tgpu.tcgen05_mma {{.*}} cta_group 2
// CHECK: tgpu.tcgen05_commit %[[EMPTY]][{{.*}}] multicast 2 : <8>
// CHECK: tgpu.tcgen05_commit %[[ACCFULL]][{{.*}}] multicast 2 : <2>
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 8]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_pair(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.cta_group = 2 : i32, tile.cluster = 2 : i64, tile.cta_group = 2 : i64, tile.grid = #tile.grid<mul(min(div(sms, 2), mul(cdiv(cdiv(dim(0, 0), 128), 2), cdiv(dim(1, 1), 128))), 2), 1, 1>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @gemm_pair__plain} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 pair kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x64xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 pair depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    tgpu.cluster_sync
    tgpu.warp_specialize [#tgpu.partition<compute, warps = 4, regs = 240>, #tgpu.partition<load, warps = 1, regs = 96>, #tgpu.partition<mma, warps = 1, regs = 96>] {
      %0 = tgpu.alloc : <2x128x64xbf16, #shared>
      %1 = tile.dim %arg0, 0 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c128_i32 = arith.constant 128 : i32
      %2 = arith.ceildivsi %1, %c128_i32 : i32
      %3 = tile.dim %arg1, 1 : !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
      %c128_i32_2 = arith.constant 128 : i32
      %4 = arith.ceildivsi %3, %c128_i32_2 : i32
      %5 = tile.program_id x
      %6 = tile.num_programs x
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %7 = arith.remui %5, %c2_i32 : i32
      %8 = arith.divui %5, %c2_i32 : i32
      %9 = arith.divui %6, %c2_i32 : i32
      %10 = arith.ceildivsi %2, %c2_i32 : i32
      %11 = arith.muli %10, %4 : i32
      %12 = arith.subi %9, %c1_i32 : i32
      %13 = arith.subi %12, %8 : i32
      %14 = arith.divui %11, %9 : i32
      %15 = arith.remui %11, %9 : i32
      %16 = arith.andi %14, %c1_i32 : i32
      %17 = arith.cmpi ne, %16, %c0_i32 : i32
      %18 = arith.select %17, %13, %8 : i32
      %19 = arith.cmpi ult, %18, %15 : i32
      %20 = arith.extui %19 : i1 to i32
      %21 = arith.addi %14, %20 : i32
      %c1_i32_3 = arith.constant 1 : i32
      %22 = scf.for %arg3 = %c0_i32 to %21 step %c1_i32_3 iter_args(%arg4 = %c0_i32) -> (i32)  : i32 {
        %23 = arith.andi %arg3, %c1_i32 : i32
        %24 = arith.cmpi ne, %23, %c0_i32 : i32
        %25 = arith.select %24, %13, %8 : i32
        %26 = arith.muli %arg3, %9 : i32
        %27 = arith.addi %26, %25 : i32
        %c8_i32 = arith.constant 8 : i32
        %28 = arith.muli %c8_i32, %4 : i32
        %29 = arith.divui %27, %28 : i32
        %30 = arith.muli %29, %c8_i32 : i32
        %31 = arith.subi %10, %30 : i32
        %32 = arith.minsi %31, %c8_i32 : i32
        %33 = arith.remui %27, %28 : i32
        %34 = arith.remui %33, %32 : i32
        %35 = arith.addi %30, %34 : i32
        %36 = arith.divui %33, %32 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %37 = arith.muli %35, %c2_i32_4 : i32
        %38 = arith.addi %37, %7 : i32
        %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
        %c0_i32_5 = arith.constant 0 : i32
        %c64_i32 = arith.constant 64 : i32
        %c128_i32_6 = arith.constant 128 : i32
        %39 = arith.muli %38, %c128_i32_6 : i32
        %40 = arith.muli %36, %c128_i32_6 : i32
        %41 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
        %42 = tgpu.channel_wait %channel_0[%arg3]
        tgpu.tcgen05_fence after_thread_sync
        %43 = tgpu.tmem_load %buffers_1[%42] : <?x128x128xf32> -> tensor<128x128xf32, #linear>
        %44 = tgpu.tmem_wait load %43 : tensor<128x128xf32, #linear>
        tgpu.tcgen05_fence before_thread_sync
        tgpu.channel_release %channel_0[%arg3]
        %45 = arith.cmpi slt, %c0_i32_5, %41 : i32
        %46 = scf.if %45 -> (tensor<128x128xf32, #linear>) {
          scf.yield %44 : tensor<128x128xf32, #linear>
        } else {
          scf.yield %cst : tensor<128x128xf32, #linear>
        }
        %47 = arith.truncf %46 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
        tgpu.tma_store %47, %arg2[%39, %40] via %0 : tensor<128x128xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
        scf.yield %arg4 : i32
      }
      tgpu.tma_store_wait {pendings = 0 : i32}
    }, {
      %0 = tile.dim %arg0, 0 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c128_i32 = arith.constant 128 : i32
      %1 = arith.ceildivsi %0, %c128_i32 : i32
      %2 = tile.dim %arg1, 1 : !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
      %c128_i32_2 = arith.constant 128 : i32
      %3 = arith.ceildivsi %2, %c128_i32_2 : i32
      %4 = tile.program_id x
      %5 = tile.num_programs x
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %6 = arith.remui %4, %c2_i32 : i32
      %7 = arith.divui %4, %c2_i32 : i32
      %8 = arith.divui %5, %c2_i32 : i32
      %9 = arith.ceildivsi %1, %c2_i32 : i32
      %10 = arith.muli %9, %3 : i32
      %11 = arith.subi %8, %c1_i32 : i32
      %12 = arith.subi %11, %7 : i32
      %13 = arith.divui %10, %8 : i32
      %14 = arith.remui %10, %8 : i32
      %15 = arith.andi %13, %c1_i32 : i32
      %16 = arith.cmpi ne, %15, %c0_i32 : i32
      %17 = arith.select %16, %12, %7 : i32
      %18 = arith.cmpi ult, %17, %14 : i32
      %19 = arith.extui %18 : i1 to i32
      %20 = arith.addi %13, %19 : i32
      %c1_i32_3 = arith.constant 1 : i32
      %21 = scf.for %arg3 = %c0_i32 to %20 step %c1_i32_3 iter_args(%arg4 = %c0_i32) -> (i32)  : i32 {
        %22 = arith.andi %arg3, %c1_i32 : i32
        %23 = arith.cmpi ne, %22, %c0_i32 : i32
        %24 = arith.select %23, %12, %7 : i32
        %25 = arith.muli %arg3, %8 : i32
        %26 = arith.addi %25, %24 : i32
        %c8_i32 = arith.constant 8 : i32
        %27 = arith.muli %c8_i32, %3 : i32
        %28 = arith.divui %26, %27 : i32
        %29 = arith.muli %28, %c8_i32 : i32
        %30 = arith.subi %9, %29 : i32
        %31 = arith.minsi %30, %c8_i32 : i32
        %32 = arith.remui %26, %27 : i32
        %33 = arith.remui %32, %31 : i32
        %34 = arith.addi %29, %33 : i32
        %35 = arith.divui %32, %31 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %36 = arith.muli %34, %c2_i32_4 : i32
        %37 = arith.addi %36, %6 : i32
        %c0_i32_5 = arith.constant 0 : i32
        %c64_i32 = arith.constant 64 : i32
        %c128_i32_6 = arith.constant 128 : i32
        %38 = arith.muli %37, %c128_i32_6 : i32
        %39 = arith.muli %35, %c128_i32_6 : i32
        %40 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
        %41 = scf.for %arg5 = %c0_i32_5 to %40 step %c64_i32 iter_args(%arg6 = %arg4) -> (i32)  : i32 {
          %42 = tgpu.channel_acquire %channel[%arg6]
          tgpu.tma_load %arg0[%38, %arg5] -> %buffers#0[%42], %channel : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
          %43 = tgpu.cluster_rank : i32
          %c64_i32_7 = arith.constant 64 : i32
          %44 = arith.muli %43, %c64_i32_7 : i32
          %45 = arith.addi %39, %44 : i32
          tgpu.tma_load %arg1[%arg5, %45] -> %buffers#1[%42], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared1>, !tgpu.channel
          %c1_i32_8 = arith.constant 1 : i32
          %46 = arith.addi %arg6, %c1_i32_8 : i32
          scf.yield %46 : i32
        }
        scf.yield %41 : i32
      }
    }, {
      %0 = tile.dim %arg0, 0 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c128_i32 = arith.constant 128 : i32
      %1 = arith.ceildivsi %0, %c128_i32 : i32
      %2 = tile.dim %arg1, 1 : !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
      %c128_i32_2 = arith.constant 128 : i32
      %3 = arith.ceildivsi %2, %c128_i32_2 : i32
      %4 = tile.program_id x
      %5 = tile.num_programs x
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %6 = arith.remui %4, %c2_i32 : i32
      %7 = arith.divui %4, %c2_i32 : i32
      %8 = arith.divui %5, %c2_i32 : i32
      %9 = arith.ceildivsi %1, %c2_i32 : i32
      %10 = arith.muli %9, %3 : i32
      %11 = arith.subi %8, %c1_i32 : i32
      %12 = arith.subi %11, %7 : i32
      %13 = arith.divui %10, %8 : i32
      %14 = arith.remui %10, %8 : i32
      %15 = arith.andi %13, %c1_i32 : i32
      %16 = arith.cmpi ne, %15, %c0_i32 : i32
      %17 = arith.select %16, %12, %7 : i32
      %18 = arith.cmpi ult, %17, %14 : i32
      %19 = arith.extui %18 : i1 to i32
      %20 = arith.addi %13, %19 : i32
      %c1_i32_3 = arith.constant 1 : i32
      %21 = scf.for %arg3 = %c0_i32 to %20 step %c1_i32_3 iter_args(%arg4 = %c0_i32) -> (i32)  : i32 {
        %22 = arith.andi %arg3, %c1_i32 : i32
        %23 = arith.cmpi ne, %22, %c0_i32 : i32
        %24 = arith.select %23, %12, %7 : i32
        %25 = arith.muli %arg3, %8 : i32
        %26 = arith.addi %25, %24 : i32
        %c8_i32 = arith.constant 8 : i32
        %27 = arith.muli %c8_i32, %3 : i32
        %28 = arith.divui %26, %27 : i32
        %29 = arith.muli %28, %c8_i32 : i32
        %30 = arith.subi %9, %29 : i32
        %31 = arith.minsi %30, %c8_i32 : i32
        %32 = arith.remui %26, %27 : i32
        %33 = arith.remui %32, %31 : i32
        %34 = arith.addi %29, %33 : i32
        %35 = arith.divui %32, %31 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %36 = arith.muli %34, %c2_i32_4 : i32
        %37 = arith.addi %36, %6 : i32
        %38 = tgpu.cluster_rank : i32
        %c0_i32_5 = arith.constant 0 : i32
        %39 = arith.cmpi eq, %38, %c0_i32_5 : i32
        %40 = scf.if %39 -> (i32) {
          %c0_i32_6 = arith.constant 0 : i32
          %c64_i32 = arith.constant 64 : i32
          %41 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
          %42 = tgpu.channel_acquire %channel_0[%arg3]
          tgpu.tcgen05_fence after_thread_sync
          %43 = scf.for %arg5 = %c0_i32_6 to %41 step %c64_i32 iter_args(%arg6 = %arg4) -> (i32)  : i32 {
            %44 = tgpu.channel_wait %channel[%arg6]
            %45 = arith.cmpi ugt, %arg6, %arg4 : i32
            tgpu.tcgen05_mma %buffers#0[%44], %buffers#1[%44], %buffers_1[%42], %45 cta_group 2 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x64xbf16, #shared1>, <?x128x128xf32>
            tgpu.channel_release %channel[%arg6]
            %c1_i32_7 = arith.constant 1 : i32
            %46 = arith.addi %arg6, %c1_i32_7 : i32
            scf.yield %46 : i32
          }
          tgpu.channel_fill %channel_0[%arg3]
          scf.yield %43 : i32
        } else {
          scf.yield %arg4 : i32
        }
        scf.yield %40 : i32
      }
    }
    tgpu.cluster_sync
    return
  }
}

// -----

// A stage-0 load without the TMA copy its schedule implies: tile-pipeline
// reads the slot from tgpu.tma and says so.

#l = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[0, 0], [0, 0]]>
func.func @stage0_without_tma(%x: !tile.tensor<?x?xf32>) attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  scf.for %k = %c0 to %n step %c32 : i32 {
    // expected-error @+1 {{scheduled for stage 0 but TMA cannot load it ahead: it has no tgpu.tma copy}}
    %t = tile.load %x[%c0, %k] {tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32} : !tile.tensor<?x?xf32> -> tensor<32x64xf32, #l>
  } {tile.pipeline.num_stages = 2 : i32}
  return
}
