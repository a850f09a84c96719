// RUN: tilec-opt %s -split-input-file -convert-tile-to-llvm | FileCheck %s
//
// A profiled kernel takes its profile buffer's address and the records a
// warp group has room for last. At its entry: the recorder (lane 0 of
// warp G mod 4 of warp group G, with a buffer) and its warp,
// the group's slice (64 + (CTA * groups + tid / 128) * (64 + 16 *
// capacity)), the buffer header (version 2, capacity, groups) from thread 0
// of the first CTA, a local record counter, and the slice header's SM id
// and start times. Each slot of a frame reads the 32-bit clock (every
// thread); after a frame's last record, in the recorder's warp only, the
// counter advances by the frame's 16-byte records and one predicated
// vector store a record writes [frame id, arguments, clocks, zeros] while
// they all fit. At the return: the count and the end times.

// CHECK-LABEL: func.func @k(
// CHECK-SAME: %{{.*}}: i32, %[[BUF:.*]]: !llvm.ptr<1>, %[[CAP:.*]]: i32)
// CHECK: llvm.ptrtoint %[[BUF]] : !llvm.ptr<1> to i64
// The recorder's warp: warp (tid / 32) % 4 == group % 4 (group = tid /
// 128), with a buffer; the recorder: its lane 0.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[G:.*]] = arith.shrui %[[TID]], %{{.*}} : i32
// CHECK: %[[WANT:.*]] = arith.andi %[[G]], %{{.*}} : i32
// CHECK: %[[W32:.*]] = arith.shrui %[[TID]], %{{.*}} : i32
// CHECK: %[[W:.*]] = arith.andi %[[W32]], %{{.*}} : i32
// CHECK: %[[WEQ:.*]] = arith.cmpi eq, %[[W]], %[[WANT]] : i32
// CHECK: %[[WARP:.*]] = arith.andi %{{.*}}, %[[WEQ]] : i1
// CHECK: %[[LANE0:.*]] = arith.cmpi eq
// CHECK: %[[OK:.*]] = arith.andi %[[WARP]], %[[LANE0]] : i1
// CHECK: %[[ROOM:.*]] = arith.select %{{.*}}, %[[CAP]], %{{.*}} : i32
// CHECK: %[[V2:.*]] = arith.constant 2 : i32
// CHECK: llvm.insertelement %[[V2]]
// CHECK: st.global.v4.b32
// CHECK: %[[CTR:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: nvvm.read.ptx.sreg.smid
// CHECK: st.global.b32
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: nvvm.read.ptx.sreg.clock64
// CHECK: st.global.v4.b32
// Frame 0, the kernel's begin: one slot, one record [0, clock, 0, 0].
// CHECK: %[[K0:.*]] = nvvm.read.ptx.sreg.clock : i32
// CHECK-NEXT: scf.if %[[WARP]] {
// CHECK-NEXT: %[[ID0:.*]] = arith.constant 0 : i32
// CHECK: %[[IDX:.*]] = llvm.load %[[CTR]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IDX]], %[[ONE]] : i32
// CHECK-NEXT: llvm.store %[[NEXT]], %[[CTR]]
// CHECK-NEXT: %[[FITS:.*]] = arith.cmpi ule, %[[NEXT]], %[[ROOM]] : i32
// CHECK-NEXT: arith.andi %[[OK]], %[[FITS]] : i1
// CHECK: llvm.insertelement %[[ID0]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: llvm.insertelement %[[K0]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// CHECK: @p st.global.v4.b32 [$1], {$2, $3, $4, $5};
// CHECK-NEXT: {{^ *}}}
// Frame 2, the loop's body: the iteration's and the inner scope's begins
// share a slot; their ends are the second: [2, %i, clock 0, clock 1].
// CHECK: scf.for %[[I:[a-z0-9]*]] =
// CHECK-NEXT: %[[T0:.*]] = nvvm.read.ptx.sreg.clock : i32
// CHECK-NEXT: arith.addi %[[I]], %[[I]]
// CHECK-NEXT: %[[T1:.*]] = nvvm.read.ptx.sreg.clock : i32
// CHECK-NEXT: scf.if %[[WARP]] {
// CHECK: llvm.insertelement %[[I]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: llvm.insertelement %[[T0]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: llvm.insertelement %[[T1]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// CHECK: @p st.global.v4.b32
// Frame 1, the kernel's end, then at the return the count and the end
// times.
// CHECK: nvvm.read.ptx.sreg.clock : i32
// CHECK-NEXT: scf.if %[[WARP]] {
// CHECK: @p st.global.v4.b32
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: %[[N:.*]] = llvm.load %[[CTR]] : !llvm.ptr -> i32
// CHECK: @p st.global.b32 [$1], $2;{{.*}} %[[N]]
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: return
func.func @k(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile, tile.profile_scopes = ["kernel", "iteration", "inner"]} {
  tile.profile_begin "kernel" {frame = 0 : i32, slot = 0 : i32}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.profile_begin "iteration"(%i) {frame = 2 : i32, slot = 0 : i32}
    tile.profile_begin "inner" {frame = 2 : i32, slot = 0 : i32}
    %x = arith.addi %i, %i : i32
    tile.profile_end "inner" {frame = 2 : i32, slot = 1 : i32}
    tile.profile_end "iteration" {frame = 2 : i32, slot = 1 : i32}
  }
  tile.profile_end "kernel" {frame = 1 : i32, slot = 0 : i32}
  return
}

// -----

// Two warps: a group of fewer than 4 warps picks its recorder's warp as
// group % the warps it has (warp-specialized kernels can end in such a
// group: a partition of warps = 1 or 2 after whole groups).
// CHECK-LABEL: func.func @two(
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[G:.*]] = arith.shrui %[[TID]], %{{.*}} : i32
// CHECK: %[[G4:.*]] = arith.andi %[[G]], %{{.*}} : i32
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[G2:.*]] = arith.remui %[[G]], %[[C2]] : i32
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[G]], %[[C0]] : i32
// CHECK: arith.select %[[LAST]], %[[G2]], %[[G4]] : i32
func.func @two() attributes {tile.kernel, tile.num_warps = 2 : i64, tile.grid = #tile.grid<1>, tile.profile, tile.profile_scopes = ["kernel"]} {
  tile.profile_begin "kernel" {frame = 0 : i32, slot = 0 : i32}
  tile.profile_end "kernel" {frame = 1 : i32, slot = 0 : i32}
  return
}

// -----

// A kernel without tile.profile_scopes keeps its signature.
// CHECK-LABEL: func.func @unprofiled(
// CHECK-SAME: %{{.*}}: i32)
// CHECK-NOT: clock64
func.func @unprofiled(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  return
}

// -----

// A partition with copies: lowering the warp specialization clones its
// region per copy, records and all, so each copy's frame is stored where
// that copy's records are (a frame is keyed by its id and block).
// CHECK-LABEL: func.func @copies(
// CHECK-COUNT-2: nvvm.read.ptx.sreg.clock : i32
// CHECK-NOT: nvvm.read.ptx.sreg.clock : i32
// CHECK: return
func.func @copies() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile, tile.profile_scopes = ["work"]} {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  }, {
    tile.profile_begin "work" {frame = 0 : i32, slot = 0 : i32}
    tile.profile_end "work" {frame = 0 : i32, slot = 0 : i32}
  }
  return
}
