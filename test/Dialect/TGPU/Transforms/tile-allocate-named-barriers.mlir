// RUN: tilec-opt %s -split-input-file -tile-allocate-named-barriers -verify-diagnostics | FileCheck %s

// Two groups of two barriers: the first to appear gets ids 4 and 5, the
// next 6 and 7; each id becomes base + index (base alone without one).
// CHECK-LABEL: func.func @two_groups
// CHECK-SAME: tgpu.named_barriers = {pingpong_epilogue = 6 : i32, pingpong_mma = 4 : i32}
// CHECK: %[[B0:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[M:.*]] = arith.addi %arg0, %[[B0]] : i32
// CHECK-NEXT: tgpu.named_barrier_wait %[[M]], 256
// CHECK-NEXT: %[[B1:.*]] = arith.constant 6 : i32
// CHECK-NEXT: %[[E:.*]] = arith.addi %arg1, %[[B1]] : i32
// CHECK-NEXT: tgpu.named_barrier_arrive %[[E]], 256
// CHECK-NEXT: %[[B2:.*]] = arith.constant 4 : i32
// CHECK-NEXT: tgpu.named_barrier_arrive %[[B2]], 256
// CHECK-NOT: named_barrier_id
func.func @two_groups(%copy: i32, %other: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %m = tgpu.named_barrier_id "pingpong_mma" count 2 [%copy] : i32
  tgpu.named_barrier_wait %m, 256 : i32
  %e = tgpu.named_barrier_id "pingpong_epilogue" count 2 [%other] : i32
  tgpu.named_barrier_arrive %e, 256 : i32
  %f = tgpu.named_barrier_id "pingpong_mma" count 2 : i32
  tgpu.named_barrier_arrive %f, 256 : i32
  return
}

// -----

// A kernel without named-barrier groups records nothing.
// CHECK-LABEL: func.func @none
// CHECK-NOT: tgpu.named_barriers
func.func @none() attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

// 4 + 8 + 5 ids: more than the 16 a CTA has.
func.func @too_many(%i: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %a = tgpu.named_barrier_id "a" count 8 [%i] : i32
  tgpu.named_barrier_wait %a, 256 : i32
  // expected-error @+1 {{named-barrier group 'b' needs ids up to 16; a CTA has 16 (0..3 are the regions')}}
  %b = tgpu.named_barrier_id "b" count 5 [%i] : i32
  tgpu.named_barrier_wait %b, 256 : i32
  return
}

// -----

func.func @two_counts(%i: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %a = tgpu.named_barrier_id "a" count 2 [%i] : i32
  tgpu.named_barrier_wait %a, 256 : i32
  // expected-error @+1 {{named-barrier group 'a' has 2 barriers elsewhere, 3 here}}
  %b = tgpu.named_barrier_id "a" count 3 [%i] : i32
  tgpu.named_barrier_wait %b, 256 : i32
  return
}
