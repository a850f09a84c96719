// RUN: tilec-opt %s -split-input-file -tile-allocate-shared-memory -verify-diagnostics | FileCheck %s
//
// Buffers first (1024-byte aligned, program order), then barriers (8
// bytes each) packed after them, then, in a warp-specialized kernel,
// scratch (128-byte aligned). A buffer in a region that runs as two copies
// gets a place for each, the copies one after the other; each compute
// group gets its own part of scratch (the op's `scratch` shifts: load
// group, copy 0, copy 1), and so does a load partition that writes
// scratch (@load_writes_scratch). Without warp specialization each op's scratch
// has its own place (@reuse).

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#rows = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>

// (Every function with a body is laid out, kernel or not.)
// CHECK-LABEL: func.func @pingpong
// CHECK-SAME: tgpu.scratch_offset = 131200 : i64
// CHECK-SAME: tile.shared_memory = [[#mul(2, 16384) + 131200]] : i64
// CHECK: tgpu.alloc offset [0] : <4x128x64xbf16
// CHECK: tgpu.barriers arrive_count 1 offset [131072] : <4>
// CHECK: tgpu.barriers arrive_count 8 offset [131104] : <4>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] scratch [0, 0, 16384] {
// CHECK: }, {
// CHECK: tgpu.alloc offset [65536, 98304] : <2x128x64xbf16
// CHECK: tile.convert_layout
func.func @pingpong(%t: tensor<64x64xf32, #acc>) {
  %r = tgpu.alloc : !tgpu.smem<4x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<4>
  %empty = tgpu.barriers arrive_count 8 : !tgpu.mbarriers<4>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  }, {
    %s = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
    %c = tile.convert_layout %t : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #rows>
  }
  return
}

// -----

// One compute group: one scratch area, shared with the code outside the
// regions (they never run at once). No buffers: scratch starts at 0 and the
// kernel records no offset for it.
// CHECK-LABEL: func.func @cooperative
// CHECK-NOT: tgpu.scratch_offset
// CHECK-SAME: tile.shared_memory = 16384 : i64
// CHECK: scratch [0, 0]
func.func @cooperative(%t: tensor<64x64xf32, #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>>) {
  %c = tile.convert_layout %t : tensor<64x64xf32, #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>> -> tensor<64x64xf32, #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>>
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232>] {
  }, {
  }
  return
}

// -----

// A load partition whose region writes scratch (the code before a main
// loop is in every region: a conversion or reduction across its warps
// there) takes a part of its own after the compute groups', as it runs at
// the same time as they do: shifts [16384, 0].
// CHECK-LABEL: func.func @load_writes_scratch
// CHECK-SAME: tile.shared_memory = 32768 : i64
// CHECK: scratch [16384, 0]
func.func @load_writes_scratch(%t: tensor<64x64xf32, #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>>) {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232>] {
    %l = tile.convert_layout %t : tensor<64x64xf32, #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>> -> tensor<64x64xf32, #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>>
  }, {
    %c = tile.convert_layout %t : tensor<64x64xf32, #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>> -> tensor<64x64xf32, #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>>
  }
  return
}

// -----

// Without regions of warps, each op's scratch (a 64x64 f32 conversion:
// 16 KiB) gets an offset of its own, the lowest that overlaps neither the
// barriers nor a buffer still in use at the op. The ring (32 KiB at 0) is
// used in the loop, so the conversion in the loop goes after the barriers
// (49152 + 16, 128-aligned: 49280); the one after the loop takes the
// ring's bytes (the buffer at 32768 is still read after it); the last one,
// after every use, starts at 0 too. The kernel needs 49280 + 16384.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#rows = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#rows128 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

// CHECK-LABEL: func.func @reuse
// CHECK-NOT: tgpu.scratch_offset =
// CHECK-SAME: tile.shared_memory = 65664 : i64
// CHECK: tgpu.alloc offset [0] : <2x128x64xbf16
// CHECK: tgpu.alloc offset [32768] : <128x64xbf16
// CHECK: tgpu.barriers arrive_count 1 offset [49152] : <2>
// CHECK: scf.for
// CHECK:   tile.convert_layout %{{.*}} {tgpu.scratch_offset = 49280 : i64}
// CHECK: tile.convert_layout %{{.*}} {tgpu.scratch_offset = 0 : i64}
// CHECK: tgpu.local_load
// CHECK: tile.convert_layout %{{.*}} {tgpu.scratch_offset = 0 : i64}
func.func @reuse(%t: tensor<64x64xf32, #acc>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %q = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  scf.for %i = %c0 to %n step %c1 : i32 {
    tgpu.wait %full[%c0], %c0 : !tgpu.mbarriers<2>
    %v = tgpu.local_load %r[%c0] : !tgpu.smem<2x128x64xbf16, #sa> -> tensor<128x64xbf16, #rows128>
    %c = tile.convert_layout %t : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #rows>
  }
  %c2 = tile.convert_layout %t : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #rows>
  %w = tgpu.local_load %q[%c0] : !tgpu.smem<128x64xbf16, #sa> -> tensor<128x64xbf16, #rows128>
  %c3 = tile.convert_layout %t : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #rows>
  return
}

// -----

// A TMA copy's bytes land when its barrier's wait says so: its buffer is
// in use up to the last op on that barrier (here after the conversion),
// so the conversion goes after the barriers.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#rows = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>

// CHECK-LABEL: func.func @copy_lands_later
// CHECK: tgpu.alloc offset [0] : <128x64xbf16
// CHECK: tgpu.barriers arrive_count 1 offset [16384] : <1>
// CHECK: tile.convert_layout %{{.*}} {tgpu.scratch_offset = 16512 : i64}
func.func @copy_lands_later(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %t: tensor<64x64xf32, #acc>) {
  %c0 = arith.constant 0 : i32
  %s = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<1>
  tgpu.tma_load %a[%c0, %c0] -> %s[%c0], %full : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, !tgpu.smem<128x64xbf16, #sa>, !tgpu.mbarriers<1>
  %c = tile.convert_layout %t : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #rows>
  tgpu.wait %full[%c0], %c0 : !tgpu.mbarriers<1>
  return
}

// -----

// A buffer made in a loop lives again in the next iteration (which may
// write it before the scratch's last reads without a barrier): scratch
// never takes its bytes, though its last use precedes the conversion.
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#rows = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#rows128 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

// CHECK-LABEL: func.func @made_in_loop
// CHECK: tgpu.alloc offset [0] : <128x64xbf16
// CHECK: tile.convert_layout %{{.*}} {tgpu.scratch_offset = 16384 : i64}
func.func @made_in_loop(%t: tensor<64x64xf32, #acc>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %q = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
    %w = tgpu.local_load %q[%c0] : !tgpu.smem<128x64xbf16, #sa> -> tensor<128x64xbf16, #rows128>
    %c = tile.convert_layout %t : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #rows>
  }
  return
}

// -----

// Nothing in shared memory: 0 bytes.
// CHECK-LABEL: func.func @none
// CHECK-SAME: tile.shared_memory = 0 : i64
func.func @none() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  return
}

// -----

// More shared memory than a block can have is an error here, not at launch.

#big = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 64], [0, 128]]>

// expected-error @+1 {{needs 262144 bytes of shared memory, more than the 232448 a block can have}}
func.func @too_much_smem() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %r = tgpu.alloc : !tgpu.smem<2x256x256xbf16, #big>
  return
}

// -----

// A staged tile lives in scratch until the next op that writes scratch: a
// layout conversion between the stage and the wgmma reading it would
// overwrite it, an error at the op.
#acc64 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#row = #tile.linear<register = [[1], [2], [4], [8], [16], [32]], lane = [[0], [0], [0], [0], [0]], warp = [[0], [0]]>
#row2 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#sw = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
func.func @stage_overwritten()
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %r = arith.constant dense<1.0> : tensor<64xf32, #row>
  %p = arith.constant dense<1.0> : tensor<64x64xbf16, #acc64>
  %b = tgpu.alloc : !tgpu.smem<1x64x64xbf16, #sw>
  %c0 = arith.constant 0 : i32
  %s = tgpu.local_stage %p : tensor<64x64xbf16, #acc64> -> !tgpu.smem<1x64x64xbf16, #sw>
  // expected-error @+1 {{writes scratch while a staged tile in it is still to be read}}
  %c = tile.convert_layout %r : tensor<64xf32, #row> -> tensor<64xf32, #row2>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #acc64>
  %d = tgpu.wgmma %s[%c0], %b[%c0], %acc : !tgpu.smem<1x64x64xbf16, #sw>, !tgpu.smem<1x64x64xbf16, #sw>, tensor<64x64xf32, #acc64>
  return
}
