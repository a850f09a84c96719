// RUN: tilec-opt %s -split-input-file -tile-warp-specialize -verify-diagnostics | FileCheck %s
//
// Materialization alone: inputs are tile-insert-channels' output (one loop,
// its ops tagged with their partitions, channels at the top).

// The producer gets the scalar code the load partition needs and a loop of
// its ops (the counter alone carried); the consumer the kernel with the
// load partition's ops gone and the loop, its last wait and its last
// release in a branch taken when the loop runs (the epilogue after it).
// The load partition takes a warpgroup with 24 registers a thread, the
// compute partition the kernel's 8 warps with what is left of the
// register file (up to 240).
// CHECK-LABEL: func.func @gemm(
// CHECK-NEXT: %[[CH:.*]], %[[R:.*]]:2 = tgpu.channel consumer_warps 8
// CHECK-NEXT: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 24>, #tgpu.partition<compute, warps = 8, regs = 240>] {
// CHECK: tile.dim
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: scf.for {{.*}} iter_args(%[[I:.*]] = %[[I0]]) -> (i32)
// CHECK-NEXT: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%[[I]]]
// CHECK-NEXT: tgpu.tma_load %arg0{{.*}} -> %[[R]]#0[%[[S]]], %[[CH]]
// CHECK-NEXT: tgpu.tma_load %arg1{{.*}} -> %[[R]]#1[%[[S]]], %[[CH]]
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[N:.*]] = arith.addi %[[I]]
// CHECK-NEXT: scf.yield %[[N]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: }, {
// CHECK-NEXT: tgpu.alloc
// CHECK-NOT: tgpu.partition
// CHECK-NOT: tgpu.tma_load
// CHECK: %[[RUNS:.*]] = arith.cmpi slt
// CHECK-NEXT: %[[G:.*]]:2 = scf.if %[[RUNS]] -> (tensor<128x256xf32, #linear>, i32) {
// CHECK-NEXT: %[[L:.*]]:2 = scf.for
// CHECK-NEXT: tgpu.channel_wait
// CHECK-NEXT: tgpu.wgmma
// CHECK: %[[F:.*]] = tgpu.wgmma_wait %[[L]]#0 : {{.*}} {pendings = 0 : i32}
// CHECK-NEXT: arith.cmpi ugt, %[[L]]#1
// CHECK-NEXT: scf.if
// CHECK: scf.yield %[[F]], %[[L]]#1
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %cst, %{{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: arith.truncf %[[G]]#0
// CHECK-NEXT: tgpu.tma_store %
// CHECK-NEXT: tgpu.tma_store_wait {
// CHECK-NEXT: {{^ +\}$}}
// CHECK-NEXT: return
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
module {
  func.func @gemm(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
    %0 = tgpu.alloc : <2x128x64xbf16, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %c256_i32 = arith.constant 256 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c256_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
    %c0_i32_0 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %6:2 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x256xf32, #linear>, i32)  : i32 {
      %10 = tgpu.channel_acquire %channel[%arg5] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg0[%3, %arg3] -> %buffers#0[%10], %channel {tgpu.partition = array<i32: 0>} : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
      tgpu.tma_load %arg1[%arg3, %4] -> %buffers#1[%10], %channel {tgpu.partition = array<i32: 0>} : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x256xbf16, #shared1>, !tgpu.channel
      %11 = tgpu.channel_wait %channel[%arg5] {tgpu.partition = array<i32: 1>}
      %12 = tgpu.wgmma %buffers#0[%11], %buffers#1[%11], %arg4 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x256xbf16, #shared1>, tensor<128x256xf32, #linear>
      tgpu.wgmma_wait {pendings = 1 : i32, tgpu.partition = array<i32: 1>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 1>} 1 : i32
      %13 = arith.cmpi ugt, %arg5, %c0_i32_0 {tgpu.partition = array<i32: 1>} : i32
      scf.if %13 {
        %c1_i32_1 = arith.constant 1 : i32
        %15 = arith.subi %arg5, %c1_i32_1 : i32
        tgpu.channel_release %channel[%15]
      } {tgpu.partition = array<i32: 1>}
      %14 = arith.addi %arg5, %c1_i32 {tgpu.partition = array<i32: 0, 1>} : i32
      scf.yield %12, %14 : tensor<128x256xf32, #linear>, i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %7 = tgpu.wgmma_wait %6#0 : tensor<128x256xf32, #linear> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
    %8 = arith.cmpi ugt, %6#1, %c0_i32_0 {tgpu.partition = array<i32: 1>} : i32
    scf.if %8 {
      %c1_i32 = arith.constant 1 : i32
      %10 = arith.subi %6#1, %c1_i32 : i32
      tgpu.channel_release %channel[%10]
    } {tgpu.partition = array<i32: 1>}
    %9 = arith.truncf %7 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
    tgpu.tma_store %9, %arg2[%3, %4] via %0 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// Attention's shape: the producer copies Q once (use %t0) before its loop of
// K and V copies; the consumer waits for Q before the branch and releases
// it after.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[QCH:.*]], %[[QB:.*]] = tgpu.channel consumer_warps 4 depth 1
// CHECK-NEXT: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 24>, #tgpu.partition<compute, warps = 4, regs = 240>] {
// CHECK: tile.dim
// CHECK-NEXT: %[[T0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[QS:.*]] = tgpu.channel_acquire %[[QCH]][%[[T0]]]
// CHECK-NEXT: tgpu.tma_load %arg0{{.*}} -> %[[QB]][%[[QS]]], %[[QCH]]
// CHECK: scf.for
// CHECK-NEXT: tgpu.channel_acquire
// CHECK-NEXT: tgpu.tma_load %arg1
// CHECK-NEXT: tgpu.channel_acquire
// CHECK-NEXT: tgpu.tma_load %arg2
// CHECK: }, {
// CHECK: tile.dim
// CHECK-NEXT: %[[CT0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: tgpu.channel_wait %[[QCH]][%[[CT0]]]
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK: } else {
// CHECK: }
// CHECK-NEXT: tgpu.channel_release %[[QCH]][%[[CT0]]]
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @chain(%arg0: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %arg1: !tile.tensor<?x?x64xbf16, tma = 1x32x64, swizzle = 128>, %arg2: !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>, %arg3: !tile.tensor<?x64xf32, tma = 64x32, swizzle = 128>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #shared>
    %0 = tgpu.transpose %buffers : <?x32x64xbf16, #shared> -> <?x64x32xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #shared>
    %channel_2, %buffers_3 = tgpu.channel consumer_warps 4 depth 1 kind <fill = tma, release = mma> : !tgpu.smem<?x64x64xbf16, #shared2>
    %1 = tgpu.alloc : <2x64x32xf32, #shared3>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %2 = tile.program_id x
    %3 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
    %c0_i32_5 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %4 = tgpu.channel_acquire %channel_2[%c0_i32_5] {tgpu.partition = array<i32: 0>}
    tgpu.tma_load %arg0[%c0_i32, %c0_i32] -> %buffers_3[%4], %channel_2 {tgpu.partition = array<i32: 0>} : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared2>, !tgpu.channel
    %c0_i32_6 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %5 = tgpu.channel_wait %channel_2[%c0_i32_5] {tgpu.partition = array<i32: 1>}
    %6:2 = scf.for %arg4 = %c0_i32 to %3 step %c32_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32_6) -> (tensor<64x64xf32, #linear>, i32)  : i32 {
      %7 = tgpu.channel_acquire %channel[%arg6] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg1[%2, %arg4, %c0_i32] -> %buffers[%7], %channel {tgpu.partition = array<i32: 0>} : <?x?x64xbf16, tma = 1x32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
      %8 = tgpu.channel_wait %channel[%arg6] {tgpu.partition = array<i32: 1>}
      %9 = tgpu.wgmma %buffers_3[%5], %0[%8], %cst_4 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x64x64xbf16, #shared2>, <?x64x32xbf16, #shared1>, tensor<64x32xf32, #linear1>
      %10 = tgpu.wgmma_wait %9 : tensor<64x32xf32, #linear1> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel[%arg6] {tgpu.partition = array<i32: 1>}
      %11 = math.exp %10 {tgpu.partition = array<i32: 1>} : tensor<64x32xf32, #linear1>
      %12 = arith.truncf %11 {tgpu.partition = array<i32: 1>} : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
      %13 = tgpu.channel_acquire %channel_0[%arg6] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg2[%arg4, %c0_i32] -> %buffers_1[%13], %channel_0 {tgpu.partition = array<i32: 0>} : <?x64xbf16, tma = 32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
      %14 = tgpu.channel_wait %channel_0[%arg6] {tgpu.partition = array<i32: 1>}
      %15 = tgpu.wgmma %12, %buffers_1[%14], %arg5 {tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear1>, <?x32x64xbf16, #shared>, tensor<64x64xf32, #linear>
      %16 = tgpu.wgmma_wait %15 : tensor<64x64xf32, #linear> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel_0[%arg6] {tgpu.partition = array<i32: 1>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 1>} 1 : i32
      %17 = arith.addi %arg6, %c1_i32 {tgpu.partition = array<i32: 0, 1>} : i32
      scf.yield %16, %17 : tensor<64x64xf32, #linear>, i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.channel_release %channel_2[%c0_i32_5] {tgpu.partition = array<i32: 1>}
    tgpu.tma_store %6#0, %arg3[%c0_i32, %c0_i32] via %1 : tensor<64x64xf32, #linear>, <?x64xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared3>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// A scheduled loop tile-insert-channels has not seen.
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @no_channels(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %0 = tgpu.alloc : <2x128x64xbf16, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %c256_i32 = arith.constant 256 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c256_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-error @+1 {{a scheduled loop without channels: run tile-insert-channels first}}
    %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %8 = tile.load %arg0[%3, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %9 = tile.load %arg1[%arg3, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %10 = tile.convert_layout %8 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %11 = tile.convert_layout %9 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %12 = tile.dot %10, %11, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %12 : tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %7 = arith.truncf %6 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
    tgpu.tma_store %7, %arg2[%3, %4] via %0 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// Profiled scopes (a profiled build keeps the user's records): a scope of
// both partitions in the loop is in both loops, one of the compute
// partition only in the consumer's; a scope around the loop stays in the
// consumer, outside the branch around the loop, which still takes the
// last wait and release.
// CHECK-LABEL: func.func @gemm_scopes(
// CHECK: tgpu.warp_specialize
// CHECK: scf.for
// CHECK-NEXT: tile.profile_begin "step"
// CHECK-NEXT: tgpu.channel_acquire
// CHECK-NOT: tile.profile_begin "mma"
// CHECK: tile.profile_end "step"
// CHECK-NEXT: scf.yield
// CHECK: }, {
// CHECK: tile.profile_begin "k_loop"
// CHECK-NEXT: %[[RUNS:.*]] = arith.cmpi slt
// CHECK-NEXT: scf.if %[[RUNS]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.profile_begin "step"
// CHECK-NEXT: tile.profile_begin "mma"
// CHECK-NEXT: tgpu.channel_wait
// CHECK: tile.profile_end "mma"
// CHECK: tile.profile_end "step"
// CHECK-NEXT: scf.yield
// CHECK: tgpu.wgmma_wait {{.*}} {pendings = 0 : i32}
// CHECK: tgpu.channel_release
// CHECK: } else {
// CHECK: tile.profile_end "k_loop"
// CHECK-NEXT: arith.truncf
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
module {
  func.func @gemm_scopes(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
    %0 = tgpu.alloc : <2x128x64xbf16, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %c256_i32 = arith.constant 256 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c256_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
    %c0_i32_0 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    tile.profile_begin "k_loop"
    %6:2 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x256xf32, #linear>, i32)  : i32 {
      tile.profile_begin "step"(%arg3) {tgpu.partition = array<i32: 0, 1>}
      %10 = tgpu.channel_acquire %channel[%arg5] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg0[%3, %arg3] -> %buffers#0[%10], %channel {tgpu.partition = array<i32: 0>} : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
      tgpu.tma_load %arg1[%arg3, %4] -> %buffers#1[%10], %channel {tgpu.partition = array<i32: 0>} : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x256xbf16, #shared1>, !tgpu.channel
      tile.profile_begin "mma" {tgpu.partition = array<i32: 1>}
      %11 = tgpu.channel_wait %channel[%arg5] {tgpu.partition = array<i32: 1>}
      %12 = tgpu.wgmma %buffers#0[%11], %buffers#1[%11], %arg4 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x256xbf16, #shared1>, tensor<128x256xf32, #linear>
      tgpu.wgmma_wait {pendings = 1 : i32, tgpu.partition = array<i32: 1>}
      tile.profile_end "mma" {tgpu.partition = array<i32: 1>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 1>} 1 : i32
      %13 = arith.cmpi ugt, %arg5, %c0_i32_0 {tgpu.partition = array<i32: 1>} : i32
      scf.if %13 {
        %c1_i32_1 = arith.constant 1 : i32
        %15 = arith.subi %arg5, %c1_i32_1 : i32
        tgpu.channel_release %channel[%15]
      } {tgpu.partition = array<i32: 1>}
      %14 = arith.addi %arg5, %c1_i32 {tgpu.partition = array<i32: 0, 1>} : i32
      tile.profile_end "step" {tgpu.partition = array<i32: 0, 1>}
      scf.yield %12, %14 : tensor<128x256xf32, #linear>, i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %7 = tgpu.wgmma_wait %6#0 : tensor<128x256xf32, #linear> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
    %8 = arith.cmpi ugt, %6#1, %c0_i32_0 {tgpu.partition = array<i32: 1>} : i32
    scf.if %8 {
      %c1_i32 = arith.constant 1 : i32
      %10 = arith.subi %6#1, %c1_i32 : i32
      tgpu.channel_release %channel[%10]
    } {tgpu.partition = array<i32: 1>}
    tile.profile_end "k_loop"
    %9 = arith.truncf %7 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
    tgpu.tma_store %9, %arg2[%3, %4] via %0 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// sm_100a: three regions, the compute partition first (its warps start at
// warp 0, so warp w reads TMEM lanes 32 (w % 4) ..), then the load and
// MMA partitions, one warp each, sharing the next warpgroup and its budget
// (96 registers; the compute warps take the rest, at most 240). The
// compute region keeps the epilogue and loses the loop; the MMA region
// acquires the accumulator before its loop and fills it after.
// CHECK-LABEL: func.func @gemm_tcgen05(
// CHECK: tgpu.warp_specialize [#tgpu.partition<compute, warps = 4, regs = 240>, #tgpu.partition<load, warps = 1, regs = 96>, #tgpu.partition<mma, warps = 1, regs = 96>] {
// CHECK-NOT: scf.for
// CHECK: tgpu.channel_wait %[[ACC:[a-z_0-9]+]][
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync
// CHECK-NEXT: tgpu.tmem_load
// CHECK-NEXT: tgpu.tmem_wait load
// CHECK-NEXT: tgpu.tcgen05_fence before_thread_sync
// CHECK-NEXT: tgpu.channel_release %[[ACC]][
// CHECK: tgpu.tma_store
// CHECK: }, {
// CHECK: scf.for
// CHECK-NEXT: tgpu.channel_acquire %[[CH:[a-z_0-9]+]][
// CHECK-NEXT: tgpu.tma_load
// CHECK-NEXT: tgpu.tma_load
// CHECK-NOT: tgpu.tcgen05_mma
// CHECK: }, {
// CHECK: %[[D:.*]] = tgpu.channel_acquire %[[ACC]][%[[T0:.*]]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait %[[CH]][
// CHECK-NEXT: arith.cmpi ugt
// CHECK-NEXT: tgpu.tcgen05_mma %{{.*}}[%[[W]]], %{{.*}}[%[[W]]], %{{.*}}[%[[D]]]
// CHECK-NEXT: tgpu.channel_release %[[CH]][
// CHECK: }
// CHECK-NEXT: tgpu.channel_fill %[[ACC]][%[[T0]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 depth 1 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    %0 = tgpu.alloc : <2x128x32xf32, #shared2>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
    %c0_i32_2 = arith.constant {tgpu.partition = array<i32: 0, 2>} 0 : i32
    %c0_i32_3 = arith.constant {tgpu.partition = array<i32: 1, 2>} 0 : i32
    %6 = tgpu.channel_acquire %channel_0[%c0_i32_3] {tgpu.partition = array<i32: 2>}
    %7 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %c0_i32_2) -> (i32)  : i32 {
      %13 = tgpu.channel_acquire %channel[%arg4] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg0[%3, %arg3] -> %buffers#0[%13], %channel {tgpu.partition = array<i32: 0>} : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
      tgpu.tma_load %arg1[%arg3, %4] -> %buffers#1[%13], %channel {tgpu.partition = array<i32: 0>} : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x128xbf16, #shared1>, !tgpu.channel
      %14 = tgpu.channel_wait %channel[%arg4] {tgpu.partition = array<i32: 2>}
      %15 = arith.cmpi ugt, %arg4, %c0_i32_2 {tgpu.partition = array<i32: 2>} : i32
      tgpu.tcgen05_mma %buffers#0[%14], %buffers#1[%14], %buffers_1[%6], %15 {tgpu.partition = array<i32: 2>} : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x128xbf16, #shared1>, <?x128x128xf32>
      tgpu.channel_release %channel[%arg4] {tgpu.partition = array<i32: 2>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 2>} 1 : i32
      %16 = arith.addi %arg4, %c1_i32 {tgpu.partition = array<i32: 0, 2>} : i32
      scf.yield %16 : i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tgpu.channel_fill %channel_0[%c0_i32_3] {tgpu.partition = array<i32: 2>}
    %8 = tgpu.channel_wait %channel_0[%c0_i32_3] {tgpu.partition = array<i32: 1>}
    tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 1>}
    %9 = tgpu.tmem_load %buffers_1[%8] {tgpu.partition = array<i32: 1>} : <?x128x128xf32> -> tensor<128x128xf32, #linear>
    %10 = tgpu.tmem_wait load %9 : tensor<128x128xf32, #linear> {tgpu.partition = array<i32: 1>}
    tgpu.tcgen05_fence before_thread_sync {tgpu.partition = array<i32: 1>}
    tgpu.channel_release %channel_0[%c0_i32_3] {tgpu.partition = array<i32: 1>}
    %11 = arith.cmpi slt, %c0_i32, %5 {tgpu.partition = array<i32: 1>} : i32
    %12 = scf.if %11 -> (tensor<128x128xf32, #linear>) {
      scf.yield %10 : tensor<128x128xf32, #linear>
    } else {
      scf.yield %cst : tensor<128x128xf32, #linear>
    } {tgpu.partition = array<i32: 1>}
    tgpu.tma_store %12, %arg2[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared2>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// sm_100a attention after tile-insert-channels: three regions, the 4
// softmax warps first. The compute region keeps the loop, carrying the row
// max and its use counter (it waits for S, writes P, rescales O by use);
// the load region copies Q once and K and V a block; the MMA region waits
// for Q, issues the first block's S before its loop and, in it, the next
// block's S before this block's P·V; it carries the use counter alone.
// CHECK-LABEL: func.func @attention_tcgen05
// CHECK: tgpu.warp_specialize [#tgpu.partition<compute, warps = 4, regs = 240>, #tgpu.partition<load, warps = 1, regs = 96>, #tgpu.partition<mma, warps = 1, regs = 96>] {
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #{{.*}}>, i32)
// CHECK: tgpu.channel_wait
// CHECK: tgpu.tmem_load
// CHECK: tgpu.tmem_store
// CHECK: tgpu.channel_fill
// CHECK: scf.if
// CHECK: tgpu.tmem_load
// CHECK: arith.mulf
// CHECK: tgpu.tmem_store
// CHECK: scf.if %{{.*}} -> (tensor<128x64xf32
// CHECK: tgpu.tma_store
// CHECK: }, {
// CHECK: tgpu.channel_acquire
// CHECK-NEXT: tgpu.tma_load %arg0
// CHECK: scf.for {{.*}} -> (i32)
// CHECK-NEXT: tgpu.channel_acquire
// CHECK-NEXT: tgpu.tma_load %arg1
// CHECK-NEXT: tgpu.channel_acquire
// CHECK-NEXT: tgpu.tma_load %arg2
// CHECK: }, {
// CHECK: tgpu.channel_wait
// CHECK: scf.if
// CHECK: tgpu.tcgen05_mma
// CHECK: scf.for {{.*}} -> (i32)
// CHECK: scf.if
// CHECK: tgpu.tcgen05_mma
// CHECK: tgpu.channel_acquire
// CHECK: tgpu.tcgen05_mma
// CHECK-NOT: tile.
// CHECK: tgpu.channel_release

#linear = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear2 = #tile.linear<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @attention_tcgen05(%arg0: !tile.tensor<?x64xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %arg3: !tile.tensor<?x64xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @attention_tcgen05__plain} {
    %channel, %buffers = tgpu.channel consumer_warps 4 depth 1 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x64xf32>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 1 producer_warps 4 depth 1 kind <fill = arrive, release = mma> : !tgpu.tmem<?x128x64xbf16>
    %channel_2, %buffers_3 = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x64xf32>
    %channel_4, %buffers_5 = tgpu.channel consumer_warps 1 depth 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>
    %channel_6, %buffers_7 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x64x64xbf16, #shared1>
    %channel_8, %buffers_9 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x64x64xbf16, #shared1>
    %0 = tgpu.transpose %buffers_9 : <?x64x64xbf16, #shared1> -> <?x64x64xbf16, #shared2>
    %1 = tgpu.alloc : <2x128x32xf32, #shared3>
    %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_10 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %2 = tile.program_id x
    %3 = arith.muli %2, %c128_i32 : i32
    %4 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>
    %c0_i32_11 = arith.constant {tgpu.partition = array<i32: 0, 2>} 0 : i32
    %5 = tgpu.channel_acquire %channel_4[%c0_i32_11] {tgpu.partition = array<i32: 0>}
    tgpu.tma_load %arg0[%3, %c0_i32] -> %buffers_5[%5], %channel_4 {tgpu.partition = array<i32: 0>} : <?x64xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
    %c0_i32_12 = arith.constant {tgpu.partition = array<i32: 0, 1, 2>} 0 : i32
    %6 = tgpu.channel_wait %channel_4[%c0_i32_11] {tgpu.partition = array<i32: 2>}
    %7 = arith.cmpi slt, %c0_i32, %4 {tgpu.partition = array<i32: 1, 2>} : i32
    scf.if %7 {
      %10 = tgpu.channel_wait %channel_8[%c0_i32_12]
      %11 = tgpu.channel_acquire %channel_2[%c0_i32_12]
      tgpu.tcgen05_fence after_thread_sync
      %false = arith.constant false
      tgpu.tcgen05_mma %buffers_5[%6], %0[%10], %buffers_3[%11], %false : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x64xbf16, #shared2>, <?x128x64xf32>
      tgpu.channel_fill %channel_2[%c0_i32_12]
      tgpu.channel_release %channel_8[%c0_i32_12]
    } {tgpu.partition = array<i32: 2>}
    %8:2 = scf.for %arg4 = %c0_i32 to %4 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32_12) -> (tensor<128xf32, #linear>, i32)  : i32 {
      %10 = tgpu.channel_acquire %channel_8[%arg6] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg1[%arg4, %c0_i32] -> %buffers_9[%10], %channel_8 {tgpu.partition = array<i32: 0>} : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared1>, !tgpu.channel
      %11 = tgpu.channel_wait %channel_2[%arg6] {tgpu.partition = array<i32: 1>}
      tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 1>}
      %12 = tgpu.tmem_load %buffers_3[%11] {tgpu.partition = array<i32: 1>} : <?x128x64xf32> -> tensor<128x64xf32, #linear1>
      %13 = tgpu.tmem_wait load %12 : tensor<128x64xf32, #linear1> {tgpu.partition = array<i32: 1>}
      tgpu.tcgen05_fence before_thread_sync {tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel_2[%arg6] {tgpu.partition = array<i32: 1>}
      %14 = tile.reduce  max %13 dim 1 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %15 = arith.maximumf %arg5, %14 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %16 = tile.expand_dims %15 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear2>
      %17 = tile.broadcast %16 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear2> -> tensor<128x64xf32, #linear1>
      %18 = arith.subf %13, %17 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %19 = math.exp2 %18 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %20 = arith.subf %arg5, %15 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %21 = math.exp2 %20 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %22 = tile.expand_dims %21 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear2>
      %23 = tile.broadcast %22 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear2> -> tensor<128x64xf32, #linear1>
      %24 = tgpu.channel_acquire %channel_6[%arg6] {tgpu.partition = array<i32: 0>}
      tgpu.tma_load %arg2[%arg4, %c0_i32] -> %buffers_7[%24], %channel_6 {tgpu.partition = array<i32: 0>} : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared1>, !tgpu.channel
      %25 = arith.truncf %19 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %26 = tgpu.channel_acquire %channel_0[%arg6] {tgpu.partition = array<i32: 1>}
      tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 1>}
      tgpu.tmem_store %25, %buffers_1[%26] {tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1>, <?x128x64xbf16>
      tgpu.tmem_wait store {tgpu.partition = array<i32: 1>}
      tgpu.tcgen05_fence before_thread_sync {tgpu.partition = array<i32: 1>}
      tgpu.channel_fill %channel_0[%arg6] {tgpu.partition = array<i32: 1>}
      %27 = arith.cmpi ugt, %arg6, %c0_i32_12 {tgpu.partition = array<i32: 1>} : i32
      scf.if %27 {
        %c1_i32_13 = arith.constant 1 : i32
        %35 = arith.subi %arg6, %c1_i32_13 : i32
        %36 = tgpu.channel_wait %channel[%35]
        tgpu.tcgen05_fence after_thread_sync
        %37 = tgpu.tmem_load %buffers[%36] : <?x128x64xf32> -> tensor<128x64xf32, #linear1>
        %38 = tgpu.tmem_wait load %37 : tensor<128x64xf32, #linear1>
        %39 = arith.mulf %38, %23 : tensor<128x64xf32, #linear1>
        tgpu.tmem_store %39, %buffers[%36] : tensor<128x64xf32, #linear1>, <?x128x64xf32>
        tgpu.tmem_wait store
        tgpu.tcgen05_fence before_thread_sync
        tgpu.channel_release %channel[%35]
      } {tgpu.partition = array<i32: 1>}
      %28 = arith.addi %arg4, %c64_i32 {tgpu.partition = array<i32: 2>} : i32
      %29 = arith.cmpi slt, %28, %4 {tgpu.partition = array<i32: 2>} : i32
      scf.if %29 {
        %c1_i32_13 = arith.constant 1 : i32
        %35 = arith.addi %arg6, %c1_i32_13 : i32
        %36 = tgpu.channel_wait %channel_8[%35]
        %37 = tgpu.channel_acquire %channel_2[%35]
        tgpu.tcgen05_fence after_thread_sync
        %false = arith.constant false
        tgpu.tcgen05_mma %buffers_5[%6], %0[%36], %buffers_3[%37], %false : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x64xbf16, #shared2>, <?x128x64xf32>
        tgpu.channel_fill %channel_2[%35]
        tgpu.channel_release %channel_8[%35]
      } {tgpu.partition = array<i32: 2>}
      %30 = tgpu.channel_acquire %channel[%arg6] {tgpu.partition = array<i32: 2>}
      %31 = tgpu.channel_wait %channel_0[%arg6] {tgpu.partition = array<i32: 2>}
      tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 2>}
      %32 = tgpu.channel_wait %channel_6[%arg6] {tgpu.partition = array<i32: 2>}
      %33 = arith.cmpi ugt, %arg6, %c0_i32_12 {tgpu.partition = array<i32: 2>} : i32
      tgpu.tcgen05_mma %buffers_1[%31], %buffers_7[%32], %buffers[%30], %33 {tgpu.partition = array<i32: 2>} : !tgpu.tmem<?x128x64xbf16>, <?x64x64xbf16, #shared1>, <?x128x64xf32>
      tgpu.channel_fill %channel[%arg6] {tgpu.partition = array<i32: 2>}
      tgpu.channel_release %channel_6[%arg6] {tgpu.partition = array<i32: 2>}
      tgpu.channel_release %channel_0[%arg6] {tgpu.partition = array<i32: 2>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 1, 2>} 1 : i32
      %34 = arith.addi %arg6, %c1_i32 {tgpu.partition = array<i32: 0, 1, 2>} : i32
      scf.yield %15, %34 : tensor<128xf32, #linear>, i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tgpu.channel_release %channel_4[%c0_i32_11] {tgpu.partition = array<i32: 2>}
    %9 = scf.if %7 -> (tensor<128x64xf32, #linear1>) {
      %c1_i32 = arith.constant 1 : i32
      %10 = arith.subi %8#1, %c1_i32 : i32
      %11 = tgpu.channel_wait %channel[%10]
      tgpu.tcgen05_fence after_thread_sync
      %12 = tgpu.tmem_load %buffers[%11] : <?x128x64xf32> -> tensor<128x64xf32, #linear1>
      %13 = tgpu.tmem_wait load %12 : tensor<128x64xf32, #linear1>
      tgpu.tcgen05_fence before_thread_sync
      tgpu.channel_release %channel[%10]
      scf.yield %13 : tensor<128x64xf32, #linear1>
    } else {
      scf.yield %cst_10 : tensor<128x64xf32, #linear1>
    } {tgpu.partition = array<i32: 1>}
    tgpu.tma_store %9, %arg3[%3, %c0_i32] via %1 : tensor<128x64xf32, #linear1>, <?x64xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared3>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}
