// RUN: tilec-opt %s -split-input-file -convert-tile-to-llvm | FileCheck %s
//
// A profiled kernel takes its profile buffer's address and the records a
// warp group has room for last. At its entry: the recorder (thread index
// a multiple of 128, with a buffer), the group's slice (64 + (CTA * groups
// + tid / 128) * (64 + 16 * capacity)), the buffer header (version,
// capacity, groups) from thread 0 of the first CTA, a local record
// counter, and the slice header's SM id and start times. Each record: one predicated 16-byte store (scope
// id, with bit 31 at an end; the argument or -1; clock64), the counter
// incremented. At the return: the count and the end times.

// CHECK-LABEL: func.func @k(
// CHECK-SAME: %{{.*}}: i32, %[[BUF:.*]]: !llvm.ptr<1>, %[[CAP:.*]]: i32)
// CHECK: llvm.ptrtoint %[[BUF]] : !llvm.ptr<1> to i64
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: arith.select %{{.*}}, %[[CAP]], %{{.*}} : i32
// CHECK: st.global.v4.b32
// CHECK: %[[CTR:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: nvvm.read.ptx.sreg.smid
// CHECK: st.global.b32
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: nvvm.read.ptx.sreg.clock64
// CHECK: st.global.v4.b32
// The kernel's begin (scope 0, no argument): the counter's value is the
// record's index, the predicate the recorder's with room left.
// CHECK: %[[IDX:.*]] = llvm.load %[[CTR]] : !llvm.ptr -> i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[IDX]], %{{.*}} : i32
// CHECK: llvm.store %[[NEXT]], %[[CTR]]
// CHECK: arith.cmpi ult, %[[IDX]], %{{.*}} : i32
// CHECK: arith.constant -1 : i32
// CHECK: nvvm.read.ptx.sreg.clock64
// CHECK: @p st.global.v4.b32 [$1], {$2, $3, $4, $5};
// The loop's begin: scope 1, its argument the induction variable.
// CHECK: scf.for %[[I:[a-z0-9]*]] =
// CHECK: llvm.insertelement %[[I]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// Its end: scope 1 with bit 31; the kernel's end: scope 0 with bit 31.
// CHECK: arith.constant -2147483647 : i32
// CHECK: }
// CHECK: arith.constant -2147483648 : i32
// At the return: the count, then the end times.
// CHECK: %[[N:.*]] = llvm.load %[[CTR]] : !llvm.ptr -> i32
// CHECK: @p st.global.b32 [$1], $2;{{.*}} %[[N]]
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: return
func.func @k(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile, tile.profile_scopes = ["kernel", "iteration"]} {
  tile.profile_begin "kernel"
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.profile_begin "iteration"(%i)
    tile.profile_end "iteration"
  }
  tile.profile_end "kernel"
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
