// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-remove-layout-conversions -canonicalize -tile-swizzle -tile-select-mma-and-tma -tile-partition-schedule='persistent=false' -tile-plain-twin -tile-tma-store-epilogue -tile-insert-channels -tile-warp-specialize -tile-cluster-multicast -tile-persistent-tiles | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-remove-layout-conversions -canonicalize -tile-swizzle -tile-select-mma-and-tma -tile-partition-schedule -tile-plain-twin -tile-tma-store-epilogue -tile-insert-channels -tile-warp-specialize -tile-cluster-multicast -tile-persistent-tiles | FileCheck %s --check-prefix=PERSIST
// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-remove-layout-conversions -canonicalize -tile-swizzle -tile-select-mma-and-tma -tile-partition-schedule -tile-plain-twin -tile-tma-store-epilogue -tile-insert-channels -tile-warp-specialize -tile-cluster-multicast -tile-persistent-tiles -verify-diagnostics -o /dev/null
// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-remove-layout-conversions -canonicalize -tile-swizzle -tile-select-mma-and-tma -tile-partition-schedule -tile-plain-twin -tile-tma-store-epilogue -tile-insert-channels -tile-warp-specialize -tile-cluster-multicast -tile-persistent-tiles -tile-pipeline | FileCheck %s --check-prefix=LOWERED

// The GEMM main loop: A and B become TMA views whose box is the slot with
// its innermost dim cut to the 128-byte swizzle; the epilogue's store of C
// goes out through two 128x64 slots (allocated in the consumer region)
// with TMA stores, so C becomes a TMA view too and the store's conversion
// disappears. Producer and consumers talk through a channel with a buffer
// for A and one for B, its depth left to tile-pipeline, released by the 8
// consumer warps. The producer acquires use i and issues both copies into
// its slot; the consumers wait for use i, multiply, retire the previous
// group and release the previous use. The loop sits in a branch taken when
// it runs at all, with the final wait and release inside. The consumers'
// last act is to wait for their stores to have read shared memory.

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: %{{.*}}: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %{{.*}}: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %{{.*}}: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
// CHECK-SAME: tile.num_warps = 8 : i64, tile.plain_variant = @gemm__plain
// CHECK: %[[CH:.*]], %[[R:.*]]:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 24>, #tgpu.partition<compute, warps = 8, regs = 240>] {
// CHECK:   scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[I:.*]] = %{{.*}}) -> (i32)
// CHECK:     %[[SLOT:.*]] = tgpu.channel_acquire %[[CH]][%[[I]]]
// CHECK:     tgpu.tma_load %arg0[%{{.*}}, %[[K]]] -> %[[R]]#0[%[[SLOT]]], %[[CH]]
// CHECK:     tgpu.tma_load %arg1[%[[K]], %{{.*}}] -> %[[R]]#1[%[[SLOT]]], %[[CH]]
// CHECK:     %[[NEXT:.*]] = arith.addi %[[I]], %c1
// CHECK:     scf.yield %[[NEXT]]
// CHECK: }, {
// CHECK:   %[[RC:.*]] = tgpu.alloc : <2x128x64xbf16, #shared>
// CHECK:   scf.if
// CHECK:     scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[CI:.*]] = %{{.*}})
// CHECK:       %[[S:.*]] = tgpu.channel_wait %[[CH]][%[[CI]]]
// CHECK:       %[[D:.*]] = tgpu.wgmma %[[R]]#0[%[[S]]], %[[R]]#1[%[[S]]], %[[ACC]]
// CHECK:       tgpu.wgmma_wait {pendings = 1 : i32}
// CHECK:       scf.if
// CHECK:         %[[PREV:.*]] = arith.subi %[[CI]], %c1
// CHECK:         tgpu.channel_release %[[CH]][%[[PREV]]]
// CHECK:       scf.yield %[[D]]
// CHECK:     %[[W:.*]] = tgpu.wgmma_wait %{{.*}} : tensor<128x256xf32, #linear> {pendings = 0 : i32}
// CHECK:     scf.if
// CHECK:       tgpu.channel_release %[[CH]]
// CHECK:   %[[CVT:.*]] = arith.truncf
// CHECK-NOT: tile.convert_layout
// CHECK:   tgpu.tma_store %[[CVT]], %arg2[%{{.*}}, %{{.*}}] via %[[RC]] : tensor<128x256xbf16, #linear>
// CHECK:   tgpu.tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: }
// CHECK-NOT: tile.dot
// tile-pipeline gives the channel as many slots as fit next to the store
// buffers (4 of 48 KiB, recorded as tgpu.num_stages), full barriers that
// count one arrival (plus the TMA bytes) and empty barriers that count the
// consumer warps.
// LOWERED-LABEL: func.func @gemm
// LOWERED-SAME: tgpu.num_stages = 4 : i32
// LOWERED: %[[RA:.*]] = tgpu.alloc : <4x128x64xbf16, #shared>
// LOWERED: %[[RB:.*]] = tgpu.alloc : <4x64x256xbf16, #shared1>
// LOWERED: %[[FULL:.*]] = tgpu.barriers arrive_count 1 : <4>
// LOWERED: %[[EMPTY:.*]] = tgpu.barriers arrive_count 8 : <4>
// LOWERED: tgpu.warp_specialize
// LOWERED:   tgpu.wait %[[EMPTY]]
// LOWERED:   tgpu.arrive %[[FULL]][%{{.*}}] expect_tx 49152
// LOWERED:   tgpu.tma_load %arg0{{.*}} -> %[[RA]][%{{.*}}], %[[FULL]]
// LOWERED: }, {
// LOWERED:   tgpu.wait %[[FULL]]
// LOWERED:   tgpu.wgmma %[[RA]]
// LOWERED:   tgpu.arrive %[[EMPTY]]
// LOWERED-NOT: tgpu.channel
// The twin, for views TMA cannot read (the runtime launches it instead):
// the same partitions, the load partition's four warps copying A and B
// into the slots themselves (tgpu.thread_copy, then each thread's arrival
// as its copies complete: fill = async_copy), at 72 registers a thread;
// the consumers keep 216 of the block's 64512.
// CHECK: func.func @gemm__plain
// CHECK-SAME: tile.plain_variant_of = @gemm
// CHECK: %[[TCH:.*]], %[[TR:.*]]:2 = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 72>, #tgpu.partition<compute, warps = 8, regs = 216>]
// CHECK: %[[TS:.*]] = tgpu.channel_acquire %[[TCH]]
// CHECK-NEXT: tgpu.thread_copy %arg0{{.*}} -> %[[TR]]#0[%[[TS]]] as tensor<128x64xbf16
// CHECK-NEXT: tgpu.thread_copy %arg1{{.*}} -> %[[TR]]#1[%[[TS]]] as tensor<64x256xbf16
// CHECK-NEXT: tgpu.channel_fill %[[TCH]]
// CHECK: }, {
// CHECK: tgpu.channel_wait %[[TCH]]
// CHECK-NEXT: tgpu.wgmma %[[TR]]#0
// LOWERED: func.func @gemm__plain
// LOWERED: %[[TFULL:.*]] = tgpu.barriers arrive_count 4
// LOWERED: tgpu.thread_copy
// LOWERED-NOT: expect_tx
// LOWERED: tgpu.arrive %[[TFULL]]

// Persistent: the grid becomes min(sms, tiles) and both partitions walk the
// tiles, program ids from the grouped rasterization, slot counters carried.
// PERSIST-LABEL: func.func @gemm
// PERSIST-SAME: tile.grid = #tile.grid<min(sms, mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256))), 1, 1>
// PERSIST: tgpu.warp_specialize [#tgpu.partition<load
// PERSIST:   %[[P:.*]] = tile.program_id x
// PERSIST:   %[[NP:.*]] = tile.num_programs x
// PERSIST:   %[[LAST:.*]] = arith.subi %[[NP]], %c1_i32
// PERSIST:   arith.subi %[[LAST]], %[[P]]
// PERSIST:   scf.for %[[W:.*]] = %c0_i32 to %{{.*}} step %c1{{.*}} iter_args(%[[T:.*]] = %c0_i32)
// PERSIST:     arith.muli %[[W]], %[[NP]]
// PERSIST:     scf.for {{.*}} iter_args(%{{.*}} = %[[T]]) -> (i32)
// PERSIST:       tgpu.tma_load
// PERSIST: }, {
// PERSIST:   scf.for {{.*}} step %{{.*}} iter_args(%[[CT:.*]] = %c0_i32)
// PERSIST:     scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[CT]])
// PERSIST:       tgpu.wgmma
// PERSIST:     tile.store
func.func @gemm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// Math on the MMA's result in the loop (the compute partition does more
// than multiply): the loop is still specialized, but each wgmma is waited
// for in its iteration (wgmma_wait 0 on its result, which the math reads)
// and the use is released there, not one iteration later. The plain twin
// is specialized the same way, its load partition's threads copying.

// CHECK-LABEL: func.func @scaled(
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: tgpu.channel_acquire
// CHECK: }, {
// CHECK: scf.for
// CHECK: %[[S:.*]] = tgpu.channel_wait %{{.*}}[%[[I:.*]]]
// CHECK-NEXT: %[[D:.*]] = tgpu.wgmma
// CHECK-NEXT: %[[W:.*]] = tgpu.wgmma_wait %[[D]] : {{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tgpu.channel_release %{{.*}}[%[[I]]]
// CHECK-NEXT: arith.mulf %[[W]], %[[W]]
// CHECK-NOT: tgpu.wgmma_wait
// CHECK: tgpu.tma_store
// CHECK-LABEL: func.func @scaled__plain
// CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 256>
// CHECK: tgpu.thread_copy
// CHECK: tgpu.channel_fill
// CHECK: tgpu.wgmma_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NOT: tgpu.tma_store
func.func @scaled(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                  %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %two = arith.constant dense<2.0> : !tile.tile<64x32xbf16>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%c0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
    %tb = tile.load %b[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16>
        -> !tile.tile<64x64xf32>
    %s = arith.mulf %d, %d : !tile.tile<64x64xf32>
    scf.yield %s : !tile.tile<64x64xf32>
  }
  tile.store %acc, %c[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// fp8 with B column-major, as torch._scaled_mm takes it: the kernel loads
// Bt (NxK) and transposes the tile. Both rings keep K contiguous (128-byte
// rows of 128 fp8), the B ring is read through a transposed view, which
// makes it K-major for the 8-bit wgmma.

// CHECK-LABEL: func.func @gemm_fp8
// CHECK-SAME: %{{.*}}: !tile.tensor<?x?xf8E4M3FN, tma = 128x128, swizzle = 128>, %{{.*}}: !tile.tensor<?x?xf8E4M3FN, tma = 256x128, swizzle = 128>
// CHECK: %{{.*}}, %[[R:.*]]:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x128xf8E4M3FN, #shared>, !tgpu.smem<?x256x128xf8E4M3FN, #shared1>
// CHECK: %[[RBT:.*]] = tgpu.transpose %[[R]]#1 : <?x256x128xf8E4M3FN, #shared1> -> <?x128x256xf8E4M3FN, #shared2>
// CHECK: tgpu.warp_specialize
// CHECK:   tgpu.tma_load %arg1[%{{.*}}, %{{.*}}] -> %[[R]]#1[%{{.*}}]
// CHECK: }, {
// CHECK-NOT: tile.transpose
// CHECK:   tgpu.wgmma %[[R]]#0[%{{.*}}], %[[RBT]][%{{.*}}], %{{.*}} : !tgpu.smem<?x128x128xf8E4M3FN, #shared>, <?x128x256xf8E4M3FN, #shared2>
func.func @gemm_fp8(%a: !tile.tensor<?x?xf8E4M3FN>, %bt: !tile.tensor<?x?xf8E4M3FN>,
                    %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<256x128xf8E4M3FN>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x128xf8E4M3FN> -> !tile.tile<128x256xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x256xf8E4M3FN>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// fp8 with a row-major B (KxN, N contiguous) would need an MN-major 8-bit
// operand, which wgmma does not read: the loop keeps mma.sync, with a remark
// that says how to write it.

// CHECK-LABEL: func.func @gemm_fp8_row_major_b
// CHECK-NOT: tgpu.{{warp_specialize|channel|tma_load|wgmma}}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>}
func.func @gemm_fp8_row_major_b(%a: !tile.tensor<?x?xf8E4M3FN>, %b: !tile.tensor<?x?xf8E4M3FN>,
                                %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tb = tile.load %b[%k0, %c0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    // expected-remark @+1 {{dot runs on mma.sync: 8-bit wgmma reads K-major operands only; B is loaded as KxN (load Bt as NxK and transpose it)}}
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  tile.store %o, %c[%c0, %c0] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// tile.schedule = #tile.schedule<pingpong>: a one-warpgroup program whose two copies run
// on alternate tiles. The channel's uses are released by the 4 warps of
// one copy (its ring gets 5 slots next to both copies' store buffers);
// copy c starts at tile program_id + c * num_programs and steps by twice
// that; its use counter starts at (2m + c) * iterations; it waits for its
// turn at the main loop (named barrier 8 + c) unless it runs the program's
// first tile, passes the turn on (8 + 1 - c) if a next tile exists, and
// does the same around the epilogue (10 + c). The store buffers sit in the
// consumer region, so each copy gets its own.

// PERSIST-LABEL: func.func @gemm_pingpong
// PERSIST: tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> :
// PERSIST: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 24>, #tgpu.partition<compute, warps = 4, regs = 240, copies = 2>] {
// LOWERED-LABEL: func.func @gemm_pingpong
// LOWERED: tgpu.barriers arrive_count 4 : <5>
// PERSIST: }, {
// PERSIST:   tgpu.alloc : <2x128x64xbf16
// PERSIST:   %[[COPY:.*]] = tgpu.consumer_index : i32
// PERSIST:   %[[NP:.*]] = tile.num_programs x
// PERSIST:   scf.for %{{.*}} = %[[COPY]] to %{{.*}} step %c2_i32 iter_args(%[[M:.*]] = %c0_i32)
// PERSIST:     %[[M2:.*]] = arith.muli %[[M]], %c2_i32
// PERSIST:     %[[G:.*]] = arith.addi %[[M2]], %[[COPY]]
// PERSIST:     scf.if
// PERSIST:       %[[T:.*]] = tgpu.named_barrier_id "pingpong_mma" count 2 [%[[COPY]]] : i32
// PERSIST:       tgpu.named_barrier_wait %[[T]], 256
// PERSIST:     scf.if
// PERSIST:       tgpu.wgmma
// PERSIST:     scf.if
// PERSIST:       %[[O:.*]] = tgpu.named_barrier_id "pingpong_mma" count 2 [%{{.*}}] : i32
// PERSIST:       tgpu.named_barrier_arrive %[[O]], 256
// PERSIST:     scf.if
// PERSIST:       tgpu.named_barrier_id "pingpong_epilogue" count 2 [%[[COPY]]] : i32
// PERSIST:       tgpu.named_barrier_wait
// PERSIST:     tgpu.tma_store
// PERSIST:     scf.if
// PERSIST:       tgpu.named_barrier_id "pingpong_epilogue" count 2 [%{{.*}}] : i32
// PERSIST:       tgpu.named_barrier_arrive
// PERSIST:   tgpu.tma_store_wait
func.func @gemm_pingpong(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                         %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 4, tile.schedule = #tile.schedule<pingpong>,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// Ping-pong copies are one warpgroup each: an 8-warp program stays
// cooperative, with a remark.

// PERSIST-LABEL: func.func @pingpong_8_warps
// PERSIST-NOT: copies = 2
// PERSIST: tgpu.wgmma
func.func @pingpong_8_warps(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                            %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8, tile.schedule = #tile.schedule<pingpong>,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  // expected-remark @+1 {{ping-pong schedule not used (cooperative instead): each consumer copy is one warpgroup: tile.num_warps must be 4}}
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// tile.cluster = 2: pairs of programs along x share B. The grid is whole
// pairs; the channel's consumers are the warps of both CTAs (its empty
// barriers count 16, and releases arrive in both CTAs); the cluster
// synchronizes after the barriers are made and after the partitions; the
// producer multicasts its half of B's boxes; the tile loop walks pairs of tile rows (program_id / 2,
// stepping num_programs / 2), program rank program_id % 2 taking row
// 2 * pair_row + rank.

// PERSIST-LABEL: func.func @gemm_cluster
// PERSIST-SAME: tile.cluster = 2
// PERSIST-SAME: tile.grid = #tile.grid<mul(min(div(sms, 2), mul(cdiv(cdiv(dim(0, 0), 128), 2), cdiv(dim(1, 1), 256))), 2), 1, 1>
// PERSIST: tgpu.channel consumer_warps 8 cluster 2 kind <fill = tma, release = mma> :
// PERSIST-NEXT: tgpu.cluster_sync
// LOWERED-LABEL: func.func @gemm_cluster
// LOWERED: tgpu.barriers arrive_count 16 : <4>
// LOWERED-NEXT: tgpu.cluster_sync
// LOWERED: }, {
// LOWERED:   tgpu.arrive %{{.*}} cluster 2 :
// PERSIST-NEXT: tgpu.warp_specialize
// PERSIST:   %[[PID:.*]] = tile.program_id x
// PERSIST:   %[[NP:.*]] = tile.num_programs x
// PERSIST:   %[[RANK:.*]] = arith.remui %[[PID]], %c2_i32
// PERSIST:   %[[PAIR:.*]] = arith.divui %[[PID]], %c2_i32
// PERSIST:   %[[PAIRS:.*]] = arith.divui %[[NP]], %c2_i32
// PERSIST:   %[[LAST:.*]] = arith.subi %[[PAIRS]], %c1_i32
// PERSIST:   arith.subi %[[LAST]], %[[PAIR]]
// PERSIST:   scf.for
// PERSIST:     tgpu.tma_load %arg0
// PERSIST-NOT: multicast
// PERSIST:     tgpu.tma_load %arg1{{.*}} multicast 2 :
// PERSIST: }, {
// PERSIST:   tgpu.channel_release
// PERSIST: tgpu.cluster_sync
// PERSIST-NEXT: return
func.func @gemm_cluster(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8, tile.cluster = 2,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// fp8's Bt slot (256 rows of 128 bytes) would be one TMA box; in clusters
// of two it is two boxes of 128 rows, one a CTA, multicast to both.

// PERSIST-LABEL: func.func @gemm_fp8_cluster
// PERSIST: tgpu.cluster_sync
// PERSIST: tgpu.tma_load {{.*}} multicast 2
// PERSIST: return
func.func @gemm_fp8_cluster(%a: !tile.tensor<?x?xf8E4M3FN>, %bt: !tile.tensor<?x?xf8E4M3FN>,
                            %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8, tile.cluster = 2,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<256x128xf8E4M3FN>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x128xf8E4M3FN> -> !tile.tile<128x256xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x256xf8E4M3FN>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// A compute partition that reads or writes memory itself is not taken yet.

// CHECK-LABEL: func.func @stores_in_loop
// CHECK-NOT: tgpu.warp_specialize
// CHECK: return
func.func @stores_in_loop(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                          %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  // expected-remark @+1 {{not warp-specialized (TMA and wgmma not used): the compute partition accesses memory ('tile.store')}}
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%c0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
    %tb = tile.load %b[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16>
        -> !tile.tile<64x64xf32>
    tile.store %d, %c[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  return
}

// -----

// Attention's shape: two dots in one loop. Q, loaded before the loop and
// read only by Q·Kᵀ, is copied once through a channel of its own (depth
// 1): the producer acquires it and copies Q before its loop, the consumer
// waits for it before the loop, Q·Kᵀ reads its slot, and the consumer
// releases it after the loop. K is a 1x32x64 tile of a 3-d view: its TMA
// box keeps the view's rank and fills a 2-d 32x64 slot, read transposed as
// Q·Kᵀ's B. The loop's math waits for each MMA, so each MMA's operands
// have a channel: the producer copies K, then V, a use of each an
// iteration; the consumer waits for K's use, multiplies Q's slot by K's,
// waits for that MMA (the softmax reads its result) and releases K's use
// at once; it waits for V's use, feeds exp(S) cast to bf16 as the register
// A of P·V, waits again and releases V's use.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %{{.*}}: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %{{.*}}: !tile.tensor<?x?x64xbf16, tma = 1x32x64, swizzle = 128>, %{{.*}}: !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
// CHECK: %[[KCH:.*]], %[[KB:.*]] = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #{{.*}}>
// CHECK: %[[KT:.*]] = tgpu.transpose %[[KB]]
// CHECK: %[[VCH:.*]], %[[VB:.*]] = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #{{.*}}>
// CHECK: %[[QCH:.*]], %[[QB:.*]] = tgpu.channel consumer_warps 4 depth 1 kind <fill = tma, release = mma> : !tgpu.smem<?x64x64xbf16, #{{.*}}>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK:   %[[QS:.*]] = tgpu.channel_acquire %[[QCH]]
// CHECK:   tgpu.tma_load %arg0[%{{.*}}, %{{.*}}] -> %[[QB]][%[[QS]]], %[[QCH]]
// CHECK:   scf.for
// CHECK:   %[[KS:.*]] = tgpu.channel_acquire %[[KCH]]
// CHECK:   tgpu.tma_load %arg1[%{{.*}}, %{{.*}}, %{{.*}}] -> %[[KB]][%[[KS]]], %[[KCH]]
// CHECK:   %[[VS:.*]] = tgpu.channel_acquire %[[VCH]]
// CHECK:   tgpu.tma_load %arg2[%{{.*}}, %{{.*}}] -> %[[VB]][%[[VS]]], %[[VCH]]
// CHECK: }, {
// CHECK:   %[[QW:.*]] = tgpu.channel_wait %[[QCH]]
// CHECK:   %[[S:.*]] = tgpu.channel_wait %[[KCH]][%[[I:.*]]]
// CHECK:   %[[QK:.*]] = tgpu.wgmma %[[QB]][%[[QW]]], %[[KT]][%[[S]]], %{{.*}} : !tgpu.smem<?x64x64xbf16, #{{.*}}>, <?x64x32xbf16
// CHECK:   tgpu.wgmma_wait %[[QK]] {{.*}} {pendings = 0 : i32}
// CHECK:   tgpu.channel_release %[[KCH]][%[[I]]]
// CHECK:   math.exp
// CHECK:   %[[P:.*]] = arith.truncf
// CHECK:   %[[SV:.*]] = tgpu.channel_wait %[[VCH]][%[[I]]]
// CHECK:   %[[PV:.*]] = tgpu.wgmma %[[P]], %[[VB]][%[[SV]]], %{{.*}} : tensor<64x32xbf16, #{{.*}}>, <?x32x64xbf16
// CHECK:   tgpu.wgmma_wait %[[PV]] {{.*}} {pendings = 0 : i32}
// CHECK:   tgpu.channel_release %[[VCH]][%[[I]]]
// CHECK:   scf.yield
// CHECK:   tgpu.channel_release %[[QCH]]
func.func @chain(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x?x64xbf16>,
                 %v: !tile.tensor<?x64xbf16>, %o: !tile.tensor<?x64xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<dim(1, 0)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %h = tile.program_id x
  %n = tile.dim %v, 0 : !tile.tensor<?x64xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x32xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %r = scf.for %n0 = %c0 to %n step %c32 iter_args(%acc = %acc0) -> (!tile.tile<64x64xf32>) : i32 {
    %k3 = tile.load %k[%h, %n0, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x32x64xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x32x64xbf16> -> !tile.tile<32x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<32x64xbf16> -> !tile.tile<64x32xbf16>
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x32xbf16> -> !tile.tile<64x32xf32>
    %p = math.exp %s : !tile.tile<64x32xf32>
    %pb = arith.truncf %p : !tile.tile<64x32xf32> to !tile.tile<64x32xbf16>
    %vt = tile.load %v[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<32x64xbf16>
    %d = tile.dot %pb, %vt, %acc : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  tile.store %r, %o[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  return
}

// -----

// Math under a branch (a mask applied only to the last block, as attention
// does) is the compute partition's like any math: the loop is still
// specialized, the scf.if stays in the consumer between the MMAs.
// CHECK-LABEL: func.func @chain_masked
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: }, {
// CHECK:   tgpu.wgmma_wait
// CHECK:   scf.if %{{.*}} -> (tensor<64x32xf32, #{{.*}}>)
// CHECK:     arith.select
// CHECK:   math.exp
// CHECK:   tgpu.wgmma
func.func @chain_masked(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x?x64xbf16>,
                        %v: !tile.tensor<?x64xbf16>, %o: !tile.tensor<?x64xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<dim(1, 0)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %h = tile.program_id x
  %n = tile.dim %v, 0 : !tile.tensor<?x64xbf16>
  %qt = tile.load %q[%c0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x32xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x32xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %iota = tile.iota : !tile.tile<32xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<64x32xi32>
  %r = scf.for %n0 = %c0 to %n step %c32 iter_args(%acc = %acc0) -> (!tile.tile<64x64xf32>) : i32 {
    %k3 = tile.load %k[%h, %n0, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x32x64xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x32x64xbf16> -> !tile.tile<32x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<32x64xbf16> -> !tile.tile<64x32xbf16>
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x32xbf16> -> !tile.tile<64x32xf32>
    %end = arith.addi %n0, %c32 : i32
    %partial = arith.cmpi sgt, %end, %n : i32
    %sm = scf.if %partial -> (!tile.tile<64x32xf32>) {
      %n0t = tile.splat %n0 : i32 -> !tile.tile<32xi32>
      %cols = arith.addi %iota, %n0t : !tile.tile<32xi32>
      %c2 = tile.expand_dims %cols axis 0 : !tile.tile<32xi32> -> !tile.tile<1x32xi32>
      %cb = tile.broadcast %c2 : !tile.tile<1x32xi32> -> !tile.tile<64x32xi32>
      %keep = arith.cmpi slt, %cb, %nt : !tile.tile<64x32xi32>
      %masked = arith.select %keep, %s, %neg : !tile.tile<64x32xi1>, !tile.tile<64x32xf32>
      scf.yield %masked : !tile.tile<64x32xf32>
    } else {
      scf.yield %s : !tile.tile<64x32xf32>
    }
    %p = math.exp %sm : !tile.tile<64x32xf32>
    %pb = arith.truncf %p : !tile.tile<64x32xf32> to !tile.tile<64x32xbf16>
    %vt = tile.load %v[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<32x64xbf16>
    %d = tile.dot %pb, %vt, %acc : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  tile.store %r, %o[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  return
}
