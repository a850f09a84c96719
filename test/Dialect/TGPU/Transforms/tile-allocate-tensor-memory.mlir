// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tile-allocate-tensor-memory | FileCheck %s
// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tile-allocate-tensor-memory -tile-allocate-shared-memory | FileCheck %s --check-prefix=SMEM

// Buffers side by side from column 0, each 32-column aligned; the kernel
// allocates the power of two that holds them (256 + 32 -> 512).
// CHECK-LABEL: func.func @two
// CHECK-SAME: tgpu.tensor_memory = #tgpu.tensor_memory<columns = 512>
// CHECK: tgpu.tmem_alloc column [0] : <2x128x128xf32>
// CHECK: tgpu.tmem_alloc column [256] : <128x32xbf16>
// tile-allocate-shared-memory puts the address word after the barriers
// (a 16 KiB buffer, two barriers: 16384 + 16; the word: 8 bytes more; no
// scratch).
// SMEM-LABEL: func.func @two
// SMEM-SAME: tgpu.tensor_memory = #tgpu.tensor_memory<columns = 512, address = 16400>
// SMEM-SAME: tile.shared_memory = 16408
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
func.func @two() attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %s = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %b = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  %acc = tgpu.tmem_alloc : !tgpu.tmem<2x128x128xf32>
  %p = tgpu.tmem_alloc : !tgpu.tmem<128x32xbf16>
  return
}

// -----

// A buffer of a region that runs two copies gets a place per copy; a
// small allocation still takes 32 columns.
// CHECK-LABEL: func.func @copies
// CHECK-SAME: tgpu.tensor_memory = #tgpu.tensor_memory<columns = 64>
// CHECK: tgpu.tmem_alloc column [0, 32] : <128x16xf32>
// SMEM-LABEL: func.func @copies
// SMEM-SAME: address = 0
func.func @copies() attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  }, {
    %t = tgpu.tmem_alloc : !tgpu.tmem<128x16xf32>
  }
  return
}

// -----

// A kernel whose MMAs run on a CTA pair allocates for the pair.
// CHECK-LABEL: func.func @pair
// CHECK-SAME: tgpu.tensor_memory = #tgpu.tensor_memory<columns = 256, cta_group = 2>
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
func.func @pair(%i: i32, %on: i1) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %a = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<2x64x128xbf16, #sb>
  %d = tgpu.tmem_alloc : !tgpu.tmem<128x256xf32>
  tgpu.tcgen05_mma %a[%i], %b[%i], %d[%i], %on cta_group 2
      : !tgpu.smem<2x128x64xbf16, #sa>, !tgpu.smem<2x64x128xbf16, #sb>, !tgpu.tmem<128x256xf32>
  return
}

// -----

// Kernels without tensor memory get no attribute.
// CHECK-LABEL: func.func @none
// CHECK-NOT: tgpu.tensor_memory
func.func @none() attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{needs 640 columns of tensor memory, more than the 512 a CTA has}}
func.func @too_many() attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %a = tgpu.tmem_alloc : !tgpu.tmem<2x128x256xf32>
  %b = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  return
}
