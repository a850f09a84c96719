// RUN: tilec-opt %s -tile-allocate-tensor-memory -tile-allocate-shared-memory -convert-tile-to-llvm -tilec-lower-to-llvm \
// RUN:   | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_100a -mattr=+ptx86 --nvptx-short-ptr -O3 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_100a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %if nvdisasm %{ %nvdisasm %t.cubin | FileCheck %s --check-prefix=SASS %}
//
// The tensor-memory and tcgen05 lowerings, through LLVM's NVPTX backend,
// are PTX that ptxas accepts for sm_100a without spilling, and the SASS
// (nvdisasm) runs the fifth-generation tensor-core instructions: the
// allocation (UTCATOMSWS), the MMAs (UTCHMMA, one a k-step), the commit
// (UTCBAR), the tensor-memory load and store (LDTM, STTM) in the shapes
// the tiles' layouts pick (32x32b; 16x256b, 16x64b, 16x128b).

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#t64 = #tile.linear<register = [[0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [16, 0]], lane = [[8, 0], [0, 1], [1, 0], [2, 0], [4, 0]], warp = [[32, 0], [64, 0]]>
#t128 = #tile.linear<register = [[8, 0], [0, 4], [0, 8], [0, 16], [0, 32], [16, 0]], lane = [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], warp = [[32, 0], [64, 0]]>
#t256 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [16, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[32, 0], [64, 0]]>

// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tilec_smem+{{[0-9]+}}], %r{{[0-9]+}};
// PTX: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// PTX: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX: tcgen05.ld.sync.aligned.32x32b.x64.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX: tcgen05.st.sync.aligned.16x256b.x8.b32
// PTX: tcgen05.st.sync.aligned.16x256b.x8.b32
// PTX-COUNT-2: tcgen05.st.sync.aligned.16x64b.x32.b32
// PTX-COUNT-2: tcgen05.st.sync.aligned.16x128b.x16.b32
// PTX: tcgen05.wait::st.sync.aligned;
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// PTXAS: Compiling entry function 'gemm_step' for 'sm_100a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// SASS: UTCATOMSWS
// SASS-COUNT-4: UTCHMMA
// SASS: UTCBAR
// SASS: LDTM
// SASS: STTM
func.func @gemm_step(%i: i32, %on: i1) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %a = tgpu.alloc : !tgpu.smem<128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<64x128xbf16, #sb>
  %bars = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<1>
  %acc = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  %out = tgpu.tmem_alloc : !tgpu.tmem<128x64xf32>
  %c0 = arith.constant 0 : i32
  tgpu.tcgen05_mma %a[%c0], %b[%c0], %acc[%c0], %on
      : !tgpu.smem<128x64xbf16, #sa>, !tgpu.smem<64x128xbf16, #sb>, !tgpu.tmem<128x128xf32>
  tgpu.tcgen05_commit %bars[%c0] : !tgpu.mbarriers<1>
  tgpu.wait %bars[%c0], %c0 : !tgpu.mbarriers<1>
  tgpu.tcgen05_fence after_thread_sync
  %l = tgpu.tmem_load %acc[%c0] column 64 : !tgpu.tmem<128x128xf32> -> tensor<128x64xf32, #t32>
  %w = tgpu.tmem_wait load %l : tensor<128x64xf32, #t32>
  %cv = tile.convert_layout %w : tensor<128x64xf32, #t32> -> tensor<128x64xf32, #t256>
  tgpu.tmem_store %cv, %out[%c0] : tensor<128x64xf32, #t256>, !tgpu.tmem<128x64xf32>
  %c64 = tile.convert_layout %w : tensor<128x64xf32, #t32> -> tensor<128x64xf32, #t64>
  tgpu.tmem_store %c64, %out[%c0] : tensor<128x64xf32, #t64>, !tgpu.tmem<128x64xf32>
  %c128 = tile.convert_layout %w : tensor<128x64xf32, #t32> -> tensor<128x64xf32, #t128>
  tgpu.tmem_store %c128, %out[%c0] : tensor<128x64xf32, #t128>, !tgpu.tmem<128x64xf32>
  tgpu.tmem_wait store
  tgpu.tcgen05_fence before_thread_sync
  return
}
