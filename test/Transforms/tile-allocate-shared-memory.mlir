// RUN: tilec-opt %s -split-input-file -tile-allocate-shared-memory -verify-diagnostics | FileCheck %s
//
// Buffers first (1024-byte aligned, program order), then barriers (8
// bytes each) packed after them, then scratch (128-byte aligned). A buffer
// in a region that runs as two copies gets a place for each, the copies
// one after the other; each compute group gets its own part of scratch
// (the op's `scratch` shifts: load group, copy 0, copy 1).

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
