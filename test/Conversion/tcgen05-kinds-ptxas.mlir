// RUN: tilec-opt %s -tile-allocate-tensor-memory -tile-allocate-shared-memory -convert-tile-to-llvm -tilec-lower-to-llvm \
// RUN:   | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_100a -mattr=+ptx86 --nvptx-short-ptr -O3 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_100a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %if nvdisasm %{ %nvdisasm %t.cubin | FileCheck %s --check-prefix=SASS %}
//
// The other tcgen05.mma forms the issue asks for, through ptxas for
// sm_100a: 8-bit inputs (.kind::f8f6f4, k32 steps, both operands
// K-major), A in tensor memory (a 16-bit P as attention's second MMA reads
// it), and a CTA pair (cta_group::2, which the kernel's allocation,
// commit and deallocation then use too).

// 128x128 e4m3, K contiguous, 128-byte swizzle: A (MxK) and, seen
// transposed, B (KxN) loaded as NxK.
#a8 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#b8 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
// 64x128 bf16 as B (KxN), N contiguous (MN-major B).
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
// 128x64 bf16, K contiguous (K-major A).
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

// PTX-LABEL: .entry fp8_and_tmem_a(
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4{{.*}} [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f16{{.*}} [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}}
// PTX-LABEL: .entry pair(
// PTX: tcgen05.alloc.cta_group::2.sync.aligned
// PTX-COUNT-4: tcgen05.mma.cta_group::2.kind::f16
// PTX: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// PTX: tcgen05.dealloc.cta_group::2.sync.aligned

// ptxas compiles the entries last to first.
// PTXAS: Compiling entry function 'pair' for 'sm_100a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'fp8_and_tmem_a' for 'sm_100a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// In the SASS, the 8-bit MMAs (UTCQMMA), the pair's MMAs, allocation and
// multicast commit (.2CTA).
// SASS-DAG: UTCQMMA
// SASS-DAG: UTCHMMA.2CTA
// SASS-DAG: UTCATOMSWS.2CTA
// SASS-DAG: UTCBAR.2CTA.MULTICAST
func.func @fp8_and_tmem_a(%on: i1) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %a = tgpu.alloc : !tgpu.smem<128x128xf8E4M3FN, #a8>
  %b = tgpu.alloc : !tgpu.smem<128x128xf8E4M3FN, #b8>
  %vb = tgpu.alloc : !tgpu.smem<64x128xbf16, #sb>
  %bars = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<1>
  %s = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  %p = tgpu.tmem_alloc : !tgpu.tmem<128x64xbf16>
  %o = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  tgpu.tcgen05_mma %a[%c0], %b[%c0], %s[%c0], %on
      : !tgpu.smem<128x128xf8E4M3FN, #a8>, !tgpu.smem<128x128xf8E4M3FN, #b8>, !tgpu.tmem<128x128xf32>
  tgpu.tcgen05_mma %p[%c0], %vb[%c0], %o[%c0], %on
      : !tgpu.tmem<128x64xbf16>, !tgpu.smem<64x128xbf16, #sb>, !tgpu.tmem<128x128xf32>
  tgpu.tcgen05_commit %bars[%c0] : !tgpu.mbarriers<1>
  tgpu.wait %bars[%c0], %c0 : !tgpu.mbarriers<1>
  return
}

func.func @pair(%on: i1) attributes {tile.kernel, tile.grid = #tile.grid<2>} {
  %c0 = arith.constant 0 : i32
  %a = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<64x128xbf16, #sb>
  %bars = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<1>
  %d = tgpu.tmem_alloc : !tgpu.tmem<128x256xf32>
  tgpu.tcgen05_mma %a[%c0], %b[%c0], %d[%c0], %on cta_group 2
      : !tgpu.smem<128x64xbf16, #sa>, !tgpu.smem<64x128xbf16, #sb>, !tgpu.tmem<128x256xf32>
  tgpu.tcgen05_commit %bars[%c0] multicast 2 : !tgpu.mbarriers<1>
  tgpu.wait %bars[%c0], %c0 : !tgpu.mbarriers<1>
  return
}
