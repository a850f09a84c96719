// RUN: tilec-opt %s -split-input-file -tile-profile | FileCheck %s
//
// A warp-specialized persistent kernel as the tile passes leave it: the
// producer's waits are acquires, the consumer's waits, MMAs and MMA waits
// are recorded, each loop iteration (the K loop's with its induction
// variable, the tile loop's as `tile`), what follows the K loop's guard in
// the tile body (the epilogue), and the kernel. Scope names in order of
// first use; a user scope is listed too. Records are grouped into frames
// (runs in a block that no op holding records interrupts; numbered in
// pre-order, a block's before its nested blocks') and slots (adjacent
// records).

// CHECK-LABEL: func.func @ws
// CHECK-SAME: tile.profile_scopes = ["kernel", "epilogue", "acquire#1", "wait#0", "mma_wait", "iteration", "tile", "softmax"]
// CHECK-NEXT: tile.profile_begin "kernel" {frame = 0 : i32, slot = 0 : i32}
// CHECK: tgpu.warp_specialize
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: tile.profile_begin "tile"(%[[T]]) {frame = 2 : i32, slot = 0 : i32}
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// The K loop's body is one frame: the iteration's begin and the acquire's
// share a slot (one clock reading), the acquire's end is the next, the
// arrive between it and the iteration's end makes a third.
// CHECK-NEXT: tile.profile_begin "iteration"(%[[K]]) {frame = 4 : i32, slot = 0 : i32}
// CHECK-NEXT: tile.profile_begin "acquire#1" {frame = 4 : i32, slot = 0 : i32}
// CHECK-NEXT: tgpu.wait %{{.*}}[%{{.*}}], %{{.*}} : <4>
// CHECK-NEXT: tile.profile_end "acquire#1" {frame = 4 : i32, slot = 1 : i32}
// CHECK-NEXT: tgpu.arrive
// CHECK-NEXT: tile.profile_end "iteration" {frame = 4 : i32, slot = 2 : i32}
// CHECK-NEXT: {{^ *}}}
// The loop ends the tile scope's first frame: its end is another.
// CHECK-NEXT: tile.profile_end "tile" {frame = 3 : i32, slot = 0 : i32}
// CHECK-NEXT: {{^ *}}}
// The producer region has no epilogue.
// CHECK-NEXT: }, {
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: tile.profile_begin "tile"(%[[T2]]) {frame = 5 : i32, slot = 0 : i32}
// CHECK-NEXT: scf.if
// CHECK-NEXT: scf.for %[[K2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: tile.profile_begin "iteration"(%[[K2]]) {frame = 8 : i32, slot = 0 : i32}
// CHECK-NEXT: tile.profile_begin "wait#0" {frame = 8 : i32, slot = 0 : i32}
// CHECK-NEXT: tgpu.wait
// CHECK-NEXT: tile.profile_end "wait#0" {frame = 8 : i32, slot = 1 : i32}
// CHECK-NEXT: tile.profile_begin "mma_wait" {frame = 8 : i32, slot = 1 : i32}
// CHECK-NEXT: tgpu.wgmma_wait {pendings = 1 : i32}
// CHECK-NEXT: tile.profile_end "mma_wait" {frame = 8 : i32, slot = 2 : i32}
// CHECK-NEXT: tile.profile_end "iteration" {frame = 8 : i32, slot = 2 : i32}
// CHECK: tile.profile_begin "mma_wait" {frame = 7 : i32, slot = 0 : i32}
// CHECK-NEXT: tgpu.wgmma_wait {pendings = 0 : i32}
// CHECK-NEXT: tile.profile_end "mma_wait" {frame = 7 : i32, slot = 1 : i32}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: tile.profile_begin "epilogue" {frame = 6 : i32, slot = 0 : i32}
// CHECK-NEXT: tile.profile_begin "softmax" {frame = 6 : i32, slot = 0 : i32}
// CHECK-NEXT: tile.profile_end "softmax" {frame = 6 : i32, slot = 0 : i32}
// CHECK-NEXT: tgpu.tma_store_wait {pendings = 1 : i32}
// CHECK-NEXT: tile.profile_end "epilogue" {frame = 6 : i32, slot = 1 : i32}
// CHECK-NEXT: tile.profile_end "tile" {frame = 6 : i32, slot = 1 : i32}
// CHECK-NEXT: {{^ *}}}
// After the tile loop: no second epilogue.
// CHECK-NEXT: tgpu.tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: tile.profile_end "kernel" {frame = 1 : i32, slot = 0 : i32}
// CHECK-NEXT: return
func.func @ws(%n: i32, %c: i1) attributes {tile.kernel, tile.profile, tile.num_warps = 8 : i64, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<4>
  %empty = tgpu.barriers arrive_count 8 : !tgpu.mbarriers<4>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
    scf.for %t = %c0 to %n step %c1 : i32 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        tgpu.wait %empty[%k], %c0 : !tgpu.mbarriers<4>
        tgpu.arrive %full[%k] expect_tx 16 : !tgpu.mbarriers<4>
      }
    }
  }, {
    scf.for %t = %c0 to %n step %c1 : i32 {
      scf.if %c {
        scf.for %k = %c0 to %n step %c1 : i32 {
          tgpu.wait %full[%k], %c0 : !tgpu.mbarriers<4>
          tgpu.wgmma_wait {pendings = 1 : i32}
        }
        tgpu.wgmma_wait {pendings = 0 : i32}
      }
      tile.profile_begin "softmax"
      tile.profile_end "softmax"
      tgpu.tma_store_wait {pendings = 1 : i32}
    }
    tgpu.tma_store_wait {pendings = 0 : i32}
  }
  return
}

// -----

// User scopes around the loop: the epilogue lies inside the scopes open
// where it starts (after the ends right after the loop, before the end of
// a scope that began before it), so scopes still nest.
// CHECK-LABEL: func.func @user_around_loop
// CHECK: tile.profile_begin "outer"
// CHECK-NEXT: tile.profile_begin "loop"
// CHECK: scf.for
// CHECK: {{^ *}}}
// CHECK-NEXT: tile.profile_end "loop"
// CHECK-NEXT: tile.profile_begin "epilogue"
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.profile_begin "inner"
// CHECK-NEXT: arith.muli
// CHECK-NEXT: tile.profile_end "inner"
// CHECK-NEXT: tile.profile_end "epilogue"
// CHECK-NEXT: tile.profile_end "outer"
// CHECK-NEXT: arith.subi
// CHECK-NEXT: tile.profile_end "kernel"
// CHECK-NEXT: return
func.func @user_around_loop(%n: i32, %x: i32) attributes {tile.kernel, tile.profile, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  tile.profile_begin "outer"
  tile.profile_begin "loop"
  scf.for %k = %c0 to %n step %c1 : i32 {
    tgpu.wait %full[%k], %c0 : !tgpu.mbarriers<2>
  }
  tile.profile_end "loop"
  %y = arith.addi %x, %x : i32
  tile.profile_begin "inner"
  %z = arith.muli %y, %y : i32
  tile.profile_end "inner"
  tile.profile_end "outer"
  %w = arith.subi %z, %x : i32
  return
}

// -----

// Without tile.profile: nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: tile.profile
// CHECK: return
func.func @plain(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  scf.for %k = %c0 to %n step %c1 : i32 {
    tgpu.wait %full[%k], %c0 : !tgpu.mbarriers<2>
  }
  return
}

// -----

// Not warp-specialized: an index loop's iteration number is cast to i32;
// its epilogue runs to the return, inside the kernel scope.
// CHECK-LABEL: func.func @pipelined
// CHECK-SAME: tile.profile_scopes = ["kernel", "epilogue", "wait#0", "iteration"]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: tile.profile_begin "iteration"(%[[I32]])
// CHECK: tile.profile_end "iteration"
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: tile.profile_begin "epilogue"
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.profile_end "epilogue"
// CHECK-NEXT: tile.profile_end "kernel"
// CHECK-NEXT: return
func.func @pipelined(%m: i32, %x: i32) attributes {tile.kernel, tile.profile, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  %n = arith.index_cast %m : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  scf.for %k = %c0 to %n step %c1 {
    tgpu.wait %full[%z], %z : !tgpu.mbarriers<2>
  }
  %y = arith.addi %x, %x : i32
  return
}

// -----

// A staged MMA operand's write (tgpu.local_stage: its barriers, stores
// and fence) is a `stage` scope; its loop is an iteration (no epilogue:
// nothing follows the loop).
// CHECK-LABEL: func.func @staged
// CHECK-SAME: tile.profile_scopes = ["kernel", "stage", "iteration"]
// CHECK: tile.profile_begin "iteration"
// CHECK-NEXT: tile.profile_begin "stage"
// CHECK-NEXT: tgpu.local_stage
// CHECK-NEXT: tile.profile_end "stage"
// CHECK-NEXT: tile.profile_end "iteration"
#acc64 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#sw = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
func.func @staged(%n: i32) attributes {tile.kernel, tile.profile, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p = arith.constant dense<1.0> : tensor<64x64xbf16, #acc64>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %s = tgpu.local_stage %p : tensor<64x64xbf16, #acc64> -> !tgpu.smem<1x64x64xbf16, #sw>
  }
  return
}

// -----

// A frame has at most 16 slots: the 17th record separated from the one
// before it by an op starts the next frame (the kernel's begin shares the
// first slot with "s0"'s).
// CHECK-LABEL: func.func @long
// CHECK-NEXT: tile.profile_begin "kernel" {frame = 0 : i32, slot = 0 : i32}
// CHECK-NEXT: tile.profile_begin "s0" {frame = 0 : i32, slot = 0 : i32}
// CHECK: tile.profile_end "s7" {frame = 0 : i32, slot = 15 : i32}
// CHECK: tile.profile_begin "s8" {frame = 1 : i32, slot = 0 : i32}
// CHECK: tile.profile_end "s8" {frame = 1 : i32, slot = 1 : i32}
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.profile_end "kernel" {frame = 1 : i32, slot = 2 : i32}
func.func @long(%x: i32) attributes {tile.kernel, tile.profile, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  tile.profile_begin "s0"
  %a0 = arith.addi %x, %x : i32
  tile.profile_end "s0"
  %b0 = arith.addi %x, %x : i32
  tile.profile_begin "s1"
  %a1 = arith.addi %x, %x : i32
  tile.profile_end "s1"
  %b1 = arith.addi %x, %x : i32
  tile.profile_begin "s2"
  %a2 = arith.addi %x, %x : i32
  tile.profile_end "s2"
  %b2 = arith.addi %x, %x : i32
  tile.profile_begin "s3"
  %a3 = arith.addi %x, %x : i32
  tile.profile_end "s3"
  %b3 = arith.addi %x, %x : i32
  tile.profile_begin "s4"
  %a4 = arith.addi %x, %x : i32
  tile.profile_end "s4"
  %b4 = arith.addi %x, %x : i32
  tile.profile_begin "s5"
  %a5 = arith.addi %x, %x : i32
  tile.profile_end "s5"
  %b5 = arith.addi %x, %x : i32
  tile.profile_begin "s6"
  %a6 = arith.addi %x, %x : i32
  tile.profile_end "s6"
  %b6 = arith.addi %x, %x : i32
  tile.profile_begin "s7"
  %a7 = arith.addi %x, %x : i32
  tile.profile_end "s7"
  %b7 = arith.addi %x, %x : i32
  tile.profile_begin "s8"
  %a8 = arith.addi %x, %x : i32
  tile.profile_end "s8"
  %b8 = arith.addi %x, %x : i32
  return
}
