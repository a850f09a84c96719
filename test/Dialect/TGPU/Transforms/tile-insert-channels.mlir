// RUN: tilec-opt %s -split-input-file -tile-insert-channels -verify-diagnostics | FileCheck %s
//
// Inputs carry what the pass needs: the partition schedule
// (tile-partition-schedule), tile-select-mma-and-tma's tgpu.tma and tgpu.mma,
// and the TMA-store epilogue (tile-tma-store-epilogue), as
// tile-tma-store-epilogue leaves them (persistent=false).

// A GEMM: its MMAs stay in flight across iterations, so one channel carries
// a use (A's and B's slots), released once the next use's MMAs are issued;
// after the loop, the last MMAs are waited for and the last use released.
// The loads become acquires and TMA copies (partition 0) where they stood.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %{{.*}}: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
// CHECK-NEXT: %[[CH:.*]], %[[R:.*]]:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
// CHECK: %[[I0:.*]] = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
// CHECK-NEXT: %[[L:.*]]:2 = scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[I:.*]] = %[[I0]])
// CHECK-NEXT: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg0[%{{.*}}, %[[K]]] -> %[[R]]#0[%[[S]]], %[[CH]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg1[%[[K]], %{{.*}}] -> %[[R]]#1[%[[S]]], %[[CH]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait %[[CH]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[D:.*]] = tgpu.wgmma %[[R]]#0[%[[W]]], %[[R]]#1[%[[W]]], %[[ACC]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.wgmma_wait {pendings = 1 : i32, tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {tgpu.partition = array<i32: 0, 1>} 1 : i32
// CHECK-NEXT: %[[ST:.*]] = arith.cmpi ugt, %[[I]], %[[I0]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: scf.if %[[ST]] {
// CHECK: tgpu.channel_release %[[CH]]
// CHECK-NEXT: } {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[N:.*]] = arith.addi %[[I]], %[[ONE]] {tgpu.partition = array<i32: 0, 1>}
// CHECK-NEXT: scf.yield %[[D]], %[[N]]
// CHECK-NEXT: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
// CHECK-NEXT: %[[F:.*]] = tgpu.wgmma_wait %[[L]]#0 : {{.*}} {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
// CHECK-NEXT: arith.cmpi ugt, %[[L]]#1, %[[I0]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: scf.if
// CHECK: tgpu.channel_release %[[CH]]
// CHECK: } {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: arith.truncf %[[F]]
// CHECK-NOT: tile.load
// CHECK-NOT: tile.dot
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
  func.func @gemm(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
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

// Math in the loop reads the MMA's result: the MMA is waited for at once
// and its use released in its own iteration.
// CHECK-LABEL: func.func @scaled(
// CHECK: scf.for
// CHECK: %[[W:.*]] = tgpu.channel_wait %[[CH:.*]][%[[I:.*]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[D:.*]] = tgpu.wgmma
// CHECK-NEXT: %[[F:.*]] = tgpu.wgmma_wait %[[D]] : {{.*}} {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.channel_release %[[CH]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: arith.mulf %[[F]], %[[F]]
// CHECK: scf.yield
// CHECK-NEXT: } {tgpu.partitions
// CHECK-NEXT: tgpu.tma_store
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @scaled(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %1 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %2 = scf.for %arg3 = %c0_i32 to %1 step %c32_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 32], swizzle = 64>} : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [32, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear1> -> tensor<64x32xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<32x64xbf16, #linear2> -> tensor<32x64xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear3>, tensor<32x64xbf16, #linear4> -> tensor<64x64xf32, #linear>
      %8 = arith.mulf %7, %7 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear>
      scf.yield %8 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %2, %arg2[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x?xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// Attention's shape: each MMA has a channel of its own (K's slot frees
// while P·V still reads V's); the dot reads K transposed, through a
// transposed view of the ring; Q, copied once before the loop, goes
// through a channel of depth 1 (one consumer copy), use %t0, waited for
// before the loop and released after it.
// CHECK-LABEL: func.func @chain(
// CHECK-NEXT: %[[KCH:.*]], %[[KB:.*]] = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #shared>
// CHECK-NEXT: %[[KT:.*]] = tgpu.transpose %[[KB]]
// CHECK-NEXT: %[[VCH:.*]], %[[VB:.*]] = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma>
// CHECK-NEXT: %[[QCH:.*]], %[[QB:.*]] = tgpu.channel consumer_warps 4 depth 1 kind <fill = tma, release = mma>
// CHECK: %[[T0:.*]] = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
// CHECK-NEXT: %[[QS:.*]] = tgpu.channel_acquire %[[QCH]][%[[T0]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg0[{{.*}}] -> %[[QB]][%[[QS]]], %[[QCH]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: %[[I0:.*]] = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
// CHECK-NEXT: %[[QW:.*]] = tgpu.channel_wait %[[QCH]][%[[T0]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: scf.for {{.*}} iter_args({{.*}}, %[[I:.*]] = %[[I0]])
// CHECK-NEXT: %[[KS:.*]] = tgpu.channel_acquire %[[KCH]][%[[I]]]
// CHECK-NEXT: tgpu.tma_load %arg1[{{.*}}] -> %[[KB]][%[[KS]]], %[[KCH]]
// CHECK-NEXT: %[[KW:.*]] = tgpu.channel_wait %[[KCH]][%[[I]]]
// CHECK-NEXT: %[[S:.*]] = tgpu.wgmma %[[QB]][%[[QW]]], %[[KT]][%[[KW]]]
// CHECK-NEXT: tgpu.wgmma_wait %[[S]]
// CHECK-NEXT: tgpu.channel_release %[[KCH]][%[[I]]]
// CHECK: %[[VS:.*]] = tgpu.channel_acquire %[[VCH]][%[[I]]]
// CHECK-NEXT: tgpu.tma_load %arg2[{{.*}}] -> %[[VB]][%[[VS]]], %[[VCH]]
// CHECK-NEXT: %[[VW:.*]] = tgpu.channel_wait %[[VCH]][%[[I]]]
// CHECK-NEXT: %[[O:.*]] = tgpu.wgmma %{{.*}}, %[[VB]][%[[VW]]]
// CHECK-NEXT: tgpu.wgmma_wait %[[O]]
// CHECK-NEXT: tgpu.channel_release %[[VCH]][%[[I]]]
// CHECK: } {tgpu.partitions
// CHECK-NEXT: tgpu.channel_release %[[QCH]][%[[T0]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tma_store
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @chain(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32, tma = 64x32, swizzle = 128>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %1 = tile.program_id x
    %2 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16>
    %3 = tile.load %arg0[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear2>
    %4 = scf.for %arg4 = %c0_i32 to %2 step %c32_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %5 = tile.load %arg1[%1, %arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [1, 32, 64], swizzle = 128>} : !tile.tensor<?x?x64xbf16> -> tensor<1x32x64xbf16, #linear3>
      %6 = tile.reshape %5 {tgpu.partition = array<i32: 1>} : tensor<1x32x64xbf16, #linear3> -> tensor<32x64xbf16, #linear4>
      %7 = tile.transpose %6 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<32x64xbf16, #linear4> -> tensor<64x32xbf16, #linear5>
      %8 = tile.convert_layout %3 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear>
      %9 = tile.convert_layout %7 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear5> -> tensor<64x32xbf16, #linear6>
      %10 = tile.dot %8, %9, %cst_0 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x32xbf16, #linear6> -> tensor<64x32xf32, #linear1>
      %11 = math.exp %10 {tgpu.partition = array<i32: 1>} : tensor<64x32xf32, #linear1>
      %12 = arith.truncf %11 {tgpu.partition = array<i32: 1>} : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
      %13 = tile.load %arg2[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [32, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<32x64xbf16, #linear4>
      %14 = tile.convert_layout %13 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<32x64xbf16, #linear4> -> tensor<32x64xbf16, #linear7>
      %15 = tile.dot %12, %14, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear1>, tensor<32x64xbf16, #linear7> -> tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %4, %arg3[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x64xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}


// -----

// Math in the loop that reads no MMA result (another carried tile) does
// not make the MMAs wait at once: the use is still released one iteration
// late, one MMA group in flight.
// CHECK-LABEL: func.func @independent_math(
// CHECK: scf.for
// CHECK: tgpu.wgmma
// CHECK-NEXT: arith.addf
// CHECK-NEXT: tgpu.wgmma_wait {pendings = 1 : i32, tgpu.partition = array<i32: 1>}
// CHECK: } {tgpu.partitions
// CHECK-NEXT: tgpu.wgmma_wait %{{.*}}#0, %{{.*}}#1 : {{.*}} {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
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
  func.func @independent_math(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
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
    %6:2 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst, %arg9 = %cst) -> (tensor<128x256xf32, #linear>, tensor<128x256xf32, #linear>)  : i32 {
      %8 = tile.load %arg0[%3, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %9 = tile.load %arg1[%arg3, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %10 = tile.convert_layout %8 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %11 = tile.convert_layout %9 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %12 = tile.dot %10, %11, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      %z = arith.addf %arg9, %arg9 {tgpu.partition = array<i32: 1>} : tensor<128x256xf32, #linear>
      scf.yield %12, %z : tensor<128x256xf32, #linear>, tensor<128x256xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %7 = arith.truncf %6#0 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
    tgpu.tma_store %7, %arg2[%3, %4] via %0 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// Index math only the load partition runs, read by the compute partition:
// no channel kind carries a scalar.
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @crossing(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %1 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %2 = scf.for %arg3 = %c0_i32 to %1 step %c32_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %kx = arith.addi %arg3, %c32_i32 {tgpu.partition = array<i32: 0>} : i32
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 32], swizzle = 64>} : !tile.tensor<?x?xbf16> -> tensor<64x32xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [32, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear1> -> tensor<64x32xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<32x64xbf16, #linear2> -> tensor<32x64xbf16, #linear4>
      // expected-error @+1 {{value crosses from partition 0 to 1 and no channel kind carries it ('arith.addi')}}
      %kk = arith.muli %kx, %kx {tgpu.partition = array<i32: 1>} : i32
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x32xbf16, #linear3>, tensor<32x64xbf16, #linear4> -> tensor<64x64xf32, #linear>
      %8 = arith.mulf %7, %7 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear>
      scf.yield %8 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %2, %arg2[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x?xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// sm_100a: the loop's one tcgen05 MMA (partition 2, the MMA partition's).
// Its operands go through a channel the MMA thread releases (one consumer:
// a commit frees the slot when the MMAs complete), its accumulator moves
// into tensor memory, handed to the epilogue (partition 1) through a
// channel of its own (depth 1: the kernel is not persistent); the loop no
// longer carries it. The first k-step overwrites the accumulator (use
// counter > its first value); a loop that does not run leaves the init.
// CHECK-LABEL: func.func @gemm_tcgen05(
// CHECK-NEXT: %[[CH:.*]], %[[R:.*]]:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
// CHECK-NEXT: %[[ACC:.*]], %[[RING:.*]] = tgpu.channel consumer_warps 4 depth 1 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
// CHECK: %[[CST:.*]] = arith.constant dense<0.000000e+00>
// CHECK: %[[I0:.*]] = arith.constant {tgpu.partition = array<i32: 0, 2>} 0 : i32
// CHECK-NEXT: %[[T0:.*]] = arith.constant {tgpu.partition = array<i32: 1, 2>} 0 : i32
// CHECK-NEXT: %[[D:.*]] = tgpu.channel_acquire %[[ACC]][%[[T0]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: scf.for %{{.*}} = %[[LB:.*]] to %[[UB:.*]] step %{{.*}} iter_args(%[[I:.*]] = %[[I0]]) -> (i32)
// CHECK-NEXT: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg0{{.*}} -> %[[R]]#0[%[[S]]], %[[CH]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg1{{.*}} -> %[[R]]#1[%[[S]]], %[[CH]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait %[[CH]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi ugt, %[[I]], %[[I0]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.tcgen05_mma %[[R]]#0[%[[W]]], %[[R]]#1[%[[W]]], %[[RING]][%[[D]]], %[[ON]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.channel_release %[[CH]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: arith.constant {tgpu.partition = array<i32: 0, 2>} 1
// CHECK-NEXT: arith.addi %[[I]], %{{.*}} {tgpu.partition = array<i32: 0, 2>}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
// CHECK-NEXT: tgpu.channel_fill %[[ACC]][%[[T0]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[E:.*]] = tgpu.channel_wait %[[ACC]][%[[T0]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[V:.*]] = tgpu.tmem_load %[[RING]][%[[E]]] {tgpu.partition = array<i32: 1>} : <?x128x128xf32> -> tensor<128x128xf32, #linear>
// CHECK-NEXT: %[[V2:.*]] = tgpu.tmem_wait load %[[V]]
// CHECK-NEXT: tgpu.tcgen05_fence before_thread_sync {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.channel_release %[[ACC]][%[[T0]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[RUNS:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[OUT:.*]] = scf.if %[[RUNS]]
// CHECK-NEXT: scf.yield %[[V2]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[CST]]
// CHECK: tgpu.tma_store %[[OUT]], %arg2
// CHECK-NOT: tile.dot
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %0 = tgpu.alloc : <2x128x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%3, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.load %arg1[%arg3, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.convert_layout %8 {shared = #shared2, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %11 = tile.dot %9, %10, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %11 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tgpu.tma_store %6, %arg2[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// sm_100a attention (FlashAttention-4's structure): S = Q·Kᵀ and O = P·V
// on tcgen05 (the MMA partition, 2), the softmax and the rescale of O in
// the compute partition (1). S, P and O go into tensor memory through
// channels of their own: S two deep (filled by its MMA's commit, released
// by the softmax warps once read), P one (filled by the 4 softmax warps'
// arrivals after their tcgen05 stores, released by P·V's commit), O one
// (filled by P·V's commit, released once rescaled, and by the epilogue).
// The MMA thread issues S of the first iteration before the loop and S of
// iteration i + 1 before P·V of iteration i; the first P·V of a tile
// overwrites O (the zero init's rescale is skipped); the loop no longer
// carries O, and where it did not run the epilogue takes the init.
// CHECK-LABEL: func.func @attention_tcgen05(
// CHECK: %[[O:.*]], %[[OR:.*]] = tgpu.channel consumer_warps 4 depth 1 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x64xf32>
// CHECK: %[[P:.*]], %[[PR:.*]] = tgpu.channel consumer_warps 1 producer_warps 4 depth 1 kind <fill = arrive, release = mma> : !tgpu.tmem<?x128x64xbf16>
// CHECK: %[[S:.*]], %[[SR:.*]] = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x64xf32>
// CHECK: %[[Q:.*]], %[[QR:.*]] = tgpu.channel consumer_warps 1 depth 1 kind <fill = tma, release = mma>
// CHECK: %[[V:.*]], %[[VR:.*]] = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma>
// CHECK: %[[K:.*]], %[[KR:.*]] = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma>
// CHECK: %[[KT:.*]] = tgpu.transpose %[[KR]]
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32
// CHECK: tgpu.tma_load %arg0{{.*}} -> %[[QR]]
// CHECK: %[[I0:.*]] = arith.constant {tgpu.partition = array<i32: 0, 1, 2>} 0 : i32
// CHECK: %[[QW:.*]] = tgpu.channel_wait %[[Q]][%{{.*}}] {tgpu.partition = array<i32: 2>}
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %{{.*}} {tgpu.partition = array<i32: 1, 2>}
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK-NEXT: %[[KW0:.*]] = tgpu.channel_wait %[[K]][%[[I0]]]
// CHECK-NEXT: %[[SA0:.*]] = tgpu.channel_acquire %[[S]][%[[I0]]]
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT: tgpu.tcgen05_mma %[[QR]][%[[QW]]], %[[KT]][%[[KW0]]], %[[SR]][%[[SA0]]], %[[FALSE]]
// CHECK-NEXT: tgpu.channel_fill %[[S]][%[[I0]]]
// CHECK-NEXT: tgpu.channel_release %[[K]][%[[I0]]]
// CHECK-NEXT: } {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[R:.*]]:2 = scf.for %[[N0:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[I:.*]] = %[[I0]]) -> (tensor<128xf32, #{{.*}}>, i32)
// CHECK: tgpu.tma_load %arg1{{.*}} -> %[[KR]]
// CHECK-NEXT: %[[SW:.*]] = tgpu.channel_wait %[[S]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[SL:.*]] = tgpu.tmem_load %[[SR]][%[[SW]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[SV:.*]] = tgpu.tmem_wait load %[[SL]]
// CHECK-NEXT: tgpu.tcgen05_fence before_thread_sync {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.channel_release %[[S]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.reduce max %[[SV]]
// CHECK: tgpu.tma_load %arg2{{.*}} -> %[[VR]]
// CHECK-NEXT: %[[PB:.*]] = arith.truncf
// CHECK-NEXT: %[[PA:.*]] = tgpu.channel_acquire %[[P]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tmem_store %[[PB]], %[[PR]][%[[PA]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tmem_wait store {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tcgen05_fence before_thread_sync {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.channel_fill %[[P]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[STARTED:.*]] = arith.cmpi ugt, %[[I]], %[[I0]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: scf.if %[[STARTED]] {
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: %[[PREV:.*]] = arith.subi %[[I]],
// CHECK-NEXT: %[[OW:.*]] = tgpu.channel_wait %[[O]][%[[PREV]]]
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync
// CHECK-NEXT: %[[OL:.*]] = tgpu.tmem_load %[[OR]][%[[OW]]]
// CHECK-NEXT: %[[OV:.*]] = tgpu.tmem_wait load %[[OL]]
// CHECK-NEXT: %[[OS:.*]] = arith.mulf %[[OV]], %{{.*}}
// CHECK-NEXT: tgpu.tmem_store %[[OS]], %[[OR]][%[[OW]]]
// CHECK-NEXT: tgpu.tmem_wait store
// CHECK-NEXT: tgpu.tcgen05_fence before_thread_sync
// CHECK-NEXT: tgpu.channel_release %[[O]][%[[PREV]]]
// CHECK-NEXT: } {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[N0]], %{{.*}} {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[I]],
// CHECK-NEXT: %[[KW:.*]] = tgpu.channel_wait %[[K]][%[[J]]]
// CHECK-NEXT: %[[SA:.*]] = tgpu.channel_acquire %[[S]][%[[J]]]
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync
// CHECK-NEXT: arith.constant false
// CHECK-NEXT: tgpu.tcgen05_mma %[[QR]][%[[QW]]], %[[KT]][%[[KW]]], %[[SR]][%[[SA]]],
// CHECK-NEXT: tgpu.channel_fill %[[S]][%[[J]]]
// CHECK-NEXT: tgpu.channel_release %[[K]][%[[J]]]
// CHECK-NEXT: } {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[OA:.*]] = tgpu.channel_acquire %[[O]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[PW:.*]] = tgpu.channel_wait %[[P]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[VW:.*]] = tgpu.channel_wait %[[V]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi ugt, %[[I]], %[[I0]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.tcgen05_mma %[[PR]][%[[PW]]], %[[VR]][%[[VW]]], %[[OR]][%[[OA]]], %[[ON]] {tgpu.partition = array<i32: 2>} : !tgpu.tmem<?x128x64xbf16>
// CHECK-NEXT: tgpu.channel_fill %[[O]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.channel_release %[[V]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tgpu.channel_release %[[P]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {tgpu.partition = array<i32: 0, 1, 2>} 1 : i32
// CHECK-NEXT: %[[INC:.*]] = arith.addi %[[I]], %[[ONE]] {tgpu.partition = array<i32: 0, 1, 2>}
// CHECK-NEXT: scf.yield %{{.*}}, %[[INC]]
// CHECK-NEXT: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
// CHECK-NEXT: tgpu.channel_release %[[Q]][%{{.*}}] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[OUT:.*]] = scf.if %[[RUNS]] -> (tensor<128x64xf32
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[R]]#1,
// CHECK-NEXT: %[[EW:.*]] = tgpu.channel_wait %[[O]][%[[LAST]]]
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync
// CHECK-NEXT: %[[EL:.*]] = tgpu.tmem_load %[[OR]][%[[EW]]]
// CHECK-NEXT: %[[EV:.*]] = tgpu.tmem_wait load %[[EL]]
// CHECK-NEXT: tgpu.tcgen05_fence before_thread_sync
// CHECK-NEXT: tgpu.channel_release %[[O]][%[[LAST]]]
// CHECK-NEXT: scf.yield %[[EV]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO]]
// CHECK-NEXT: } {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.tma_store %[[OUT]]

#linear = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @attention_tcgen05(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @attention_tcgen05__plain} {
    %0 = tgpu.alloc : <2x128x32xf32, #shared>
    %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = arith.muli %1, %c128_i32 : i32
    %3 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16>
    %4 = tile.load %arg0[%2, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<128x64xbf16, #linear2>
    %5 = tile.convert_layout %4 {shared = #shared1} : tensor<128x64xbf16, #linear2> -> tensor<128x64xbf16, #linear3>
    %6:2 = scf.for %arg4 = %c0_i32 to %3 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %cst_0) -> (tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>)  : i32 {
      %7 = tile.load %arg1[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %8 = tile.transpose %7 [1, 0] {tgpu.partition = array<i32: 2>} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear5>
      %9 = tile.convert_layout %8 {shared = #shared2, tgpu.partition = array<i32: 2>} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %10 = tile.dot %5, %9, %cst_0 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      %11 = tile.reduce  max %10 dim 1 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %12 = arith.maximumf %arg5, %11 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %13 = tile.expand_dims %12 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %14 = tile.broadcast %13 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %15 = arith.subf %10, %14 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %16 = math.exp2 %15 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %17 = arith.subf %arg5, %12 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %18 = math.exp2 %17 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %19 = tile.expand_dims %18 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %20 = tile.broadcast %19 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %21 = arith.mulf %arg6, %20 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %22 = tile.load %arg2[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %23 = arith.truncf %16 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %24 = tile.convert_layout %22 {shared = #shared3, tgpu.partition = array<i32: 2>} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear6>
      %25 = tile.dot %23, %24, %21 {tgpu.mma = #tgpu.mma<tcgen05, a = tmem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      scf.yield %12, %25 : tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tgpu.tma_store %6#1, %arg3[%2, %c0_i32] via %0 : tensor<128x64xf32, #linear1>, <?x64xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// sm_100a, two tcgen05 dots in one GEMM loop (swiglu's gate and up, both
// reading X's slot): one operand channel (X, Wg, Wu), one accumulator
// channel of two tensor-memory buffers (two deep in a persistent kernel:
// 2 x 2 x 128 = 512 columns); per use the MMA thread waits once, issues
// both MMAs (each into its buffer) and releases the use once; after the
// loop one commit fills both, and the epilogue reads both with one wait.
// CHECK-LABEL: func.func @swiglu(
// CHECK: %[[CH:.*]], %[[R:.*]]:3 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma>
// CHECK-NEXT: %[[ACC:.*]], %[[RING:.*]]:2 = tgpu.channel consumer_warps 8 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>, !tgpu.tmem<?x128x128xf32>
// CHECK: %[[D:.*]] = tgpu.channel_acquire %[[ACC]][%[[T0:.*]]] {tgpu.partition = array<i32: 2>}
// CHECK: scf.for {{.*}} iter_args(%[[I:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[W:.*]] = tgpu.channel_wait %[[CH]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi ugt, %[[I]]
// CHECK-NEXT: tgpu.tcgen05_mma %[[R]]#0[%[[W]]], %[[R]]#1[%[[W]]], %[[RING]]#0[%[[D]]], %[[ON]]
// CHECK-NEXT: tgpu.tcgen05_mma %[[R]]#0[%[[W]]], %[[R]]#2[%[[W]]], %[[RING]]#1[%[[D]]], %[[ON]]
// CHECK-NEXT: tgpu.channel_release %[[CH]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK: tgpu.channel_fill %[[ACC]][%[[T0]]]
// CHECK-NEXT: %[[E:.*]] = tgpu.channel_wait %[[ACC]][%[[T0]]]
// CHECK-NEXT: tgpu.tcgen05_fence after_thread_sync
// CHECK-NEXT: %[[LG:.*]] = tgpu.tmem_load %[[RING]]#0[%[[E]]]
// CHECK-NEXT: %[[LU:.*]] = tgpu.tmem_load %[[RING]]#1[%[[E]]]
// CHECK-NEXT: %[[V:.*]]:2 = tgpu.tmem_wait load %[[LG]], %[[LU]]
// CHECK: scf.if %{{.*}} -> (tensor<128x128xf32, #{{.*}}>, tensor<128x128xf32, #{{.*}}>)
// CHECK-NEXT: scf.yield %[[V]]#0, %[[V]]#1

#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0], [0, 16]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 8]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0], [0, 16]]>
#linear6 = #tile.linear<register = [[0, 1], [8, 0], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 8]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear8 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @swiglu(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16>, %arg3: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)), sms), mul(cdiv(dim(0, 1), 64), 20753)), div(mul(add(mul(dim(0, 0), 2), mul(dim(1, 1), 2)), dim(0, 1)), 56)), div(min(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)), sms), mul(cdiv(dim(0, 1), 64), 20753)), div(mul(add(mul(dim(0, 0), 2), mul(dim(1, 1), 2)), dim(0, 1)), 56)), 2))>, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @swiglu__plain, tile.variants = [@swiglu__128x64]} {
    %0 = tgpu.alloc : <2x128x64xbf16, #shared>
    %cst = arith.constant dense<1.000000e+00> : tensor<128x128xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %6:2 = scf.for %arg4 = %c0_i32 to %5 step %c64_i32 iter_args(%arg5 = %cst_0, %arg6 = %cst_0) -> (tensor<128x128xf32, #linear>, tensor<128x128xf32, #linear>)  : i32 {
      %13 = tile.load %arg0[%3, %arg4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %14 = tile.load %arg1[%arg4, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %15 = tile.load %arg2[%arg4, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %16 = tile.convert_layout %13 {shared = #shared, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %17 = tile.convert_layout %14 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %18 = tile.dot %16, %17, %arg5 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      %19 = tile.convert_layout %15 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %20 = tile.dot %16, %19, %arg6 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %18, %20 : tensor<128x128xf32, #linear>, tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    %7 = arith.negf %6#0 : tensor<128x128xf32, #linear>
    %8 = math.exp %7 : tensor<128x128xf32, #linear>
    %9 = arith.addf %8, %cst : tensor<128x128xf32, #linear>
    %10 = arith.divf %6#0, %9 : tensor<128x128xf32, #linear>
    %11 = arith.mulf %10, %6#1 : tensor<128x128xf32, #linear>
    %12 = arith.truncf %11 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
    tgpu.tma_store %12, %arg3[%3, %4] via %0 : tensor<128x128xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// A CTA pair's GEMM (tgpu.cta_group = 2, as tile-partition-schedule
// decides it): each CTA's B slot holds half of B's 128 columns, which its
// copy reads at n0 + cluster_rank * 64; the MMA runs over the pair
// (cta_group 2: 256 rows, the accumulator still 128x128 a CTA).
// CHECK-LABEL: func.func @gemm_pair(
// CHECK-SAME: %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
// CHECK: %[[CH:.*]], %[[BUF:.*]]:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #{{.*}}>, !tgpu.smem<?x64x64xbf16, #{{.*}}>
// CHECK: tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
// CHECK: arith.muli %{{.*}}, %c128_i32 : i32
// CHECK-NEXT: %[[N0:.*]] = arith.muli %{{.*}}, %c128_i32 : i32
// CHECK: scf.for
// CHECK: tgpu.tma_load %arg0[
// CHECK-NEXT: %[[RANK:.*]] = tgpu.cluster_rank {tgpu.partition = array<i32: 0>} : i32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant {tgpu.partition = array<i32: 0>} 64 : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[RANK]], %[[HALF]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: %[[COL:.*]] = arith.addi %[[N0]], %[[OFF]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg1[%arg3, %[[COL]]] -> %[[BUF]]#1[
// CHECK: tgpu.tcgen05_mma %[[BUF]]#0[{{.*}}], %[[BUF]]#1[{{.*}}], {{.*}} cta_group 2 {tgpu.partition = array<i32: 2>} : !tgpu.smem<?x128x64xbf16, #{{.*}}>, <?x64x64xbf16, #{{.*}}>, <?x128x128xf32>
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#linear5 = #tile.linear<register = [[0, 1], [8, 0], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_pair(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.cta_group = 2 : i32, tgpu.persistent, tile.cluster = 2 : i64, tile.cta_group = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @gemm_pair__plain} {
    %0 = tgpu.alloc : <2x128x64xbf16, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %8 = tile.load %arg0[%3, %arg3] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %9 = tile.load %arg1[%arg3, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %10 = tile.convert_layout %8 {shared = #shared, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %11 = tile.convert_layout %9 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %12 = tile.dot %10, %11, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %12 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    %7 = arith.truncf %6 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
    tgpu.tma_store %7, %arg2[%3, %4] via %0 : tensor<128x128xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// A GEMM's loads without TMA copies (a plain twin: views TMA cannot read):
// the load partition's four warps copy each tile into its slot themselves
// (tgpu.thread_copy in the coalesced layout of 4 warps, not waiting for
// their cp.async copies), then fill the use (fill = async_copy,
// producer_warps 4: each thread's arrival as its copies complete); the
// views keep their plain types; the consumer side is the TMA case's.
// CHECK-LABEL: func.func @gemm_threads(
// CHECK-SAME: %arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>,
// CHECK-NEXT: %[[CH:.*]], %[[R:.*]]:2 = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[I:.*]] = %{{.*}})
// CHECK-NEXT: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg0[%{{.*}}, %[[K]]] -> %[[R]]#0[%[[S]]] as tensor<128x64xbf16, #[[LA:.*]]> no_wait {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg1[%[[K]], %{{.*}}] -> %[[R]]#1[%[[S]]] as tensor<64x256xbf16, #{{.*}}> no_wait {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.channel_fill %[[CH]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait %[[CH]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.wgmma %[[R]]#0[%[[W]]], %[[R]]#1[%[[W]]]
// CHECK-NOT: tile.load
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
  func.func @gemm_threads(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
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
    %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %8 = tile.load %arg0[%3, %arg3] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %9 = tile.load %arg1[%arg3, %4] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
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

// sm_100a: the same, two copy warps (they share a warpgroup with the MMA
// warp), the MMA partition's tcgen05 MMAs reading the slots.
// CHECK-LABEL: func.func @gemm_tcgen05_threads(
// CHECK-NEXT: %[[CH:.*]], %[[R:.*]]:2 = tgpu.channel consumer_warps 1 producer_warps 2 kind <fill = arrive, release = mma>
// CHECK: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%[[I:.*]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg0{{.*}} -> %[[R]]#0[%[[S]]] as tensor<128x64xbf16, #{{.*}}> {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg1{{.*}} -> %[[R]]#1[%[[S]]] as tensor<64x128xbf16, #{{.*}}> {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.channel_fill %[[CH]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait %[[CH]][%[[I]]] {tgpu.partition = array<i32: 2>}
// CHECK: tgpu.tcgen05_mma %[[R]]#0[%[[W]]], %[[R]]#1[%[[W]]]
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05_threads(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %0 = tgpu.alloc : <2x128x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%3, %arg3] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.load %arg1[%arg3, %4] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared1, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.convert_layout %8 {shared = #shared2, tgpu.partition = array<i32: 2>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %11 = tile.dot %9, %10, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %11 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tgpu.tma_store %6, %arg2[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}


// -----

// sm_100a attention whose views TMA cannot read (a plain twin): the same
// channels, Q, K and V filled by the two copy warps' arrivals; Q copied
// and filled once before the loop, K and V each use.
// CHECK-LABEL: func.func @attention_tcgen05_threads(
// CHECK: %[[Q:.*]], %[[QR:.*]] = tgpu.channel consumer_warps 1 producer_warps 2 depth 1 kind <fill = arrive, release = mma>
// CHECK: %[[V:.*]], %[[VR:.*]] = tgpu.channel consumer_warps 1 producer_warps 2 kind <fill = arrive, release = mma>
// CHECK: %[[K:.*]], %[[KR:.*]] = tgpu.channel consumer_warps 1 producer_warps 2 kind <fill = arrive, release = mma>
// CHECK: %[[T0:.*]] = arith.constant {tgpu.partition = array<i32: 0, 2>} 0 : i32
// CHECK-NEXT: %[[QA:.*]] = tgpu.channel_acquire %[[Q]][%[[T0]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg0{{.*}} -> %[[QR]][%[[QA]]] as tensor<128x64xbf16, #{{.*}}> {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.channel_fill %[[Q]][%[[T0]]] {tgpu.partition = array<i32: 0>}
// CHECK: %[[QW:.*]] = tgpu.channel_wait %[[Q]][%[[T0]]] {tgpu.partition = array<i32: 2>}
// CHECK: scf.for
// CHECK: %[[KA:.*]] = tgpu.channel_acquire %[[K]][%[[I:.*]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg1{{.*}} -> %[[KR]][%[[KA]]] as tensor<64x64xbf16, #{{.*}}> {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.channel_fill %[[K]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK: %[[VA:.*]] = tgpu.channel_acquire %[[V]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.thread_copy %arg2{{.*}} -> %[[VR]][%[[VA]]] as tensor<64x64xbf16, #{{.*}}> {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.channel_fill %[[V]][%[[I]]] {tgpu.partition = array<i32: 0>}
// CHECK: tgpu.tcgen05_mma %[[PR:.*]][%{{.*}}], %[[VR]][%{{.*}}]
// CHECK-NOT: tgpu.tma_load
#linear = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @attention_tcgen05_threads(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @attention_tcgen05_threads__plain} {
    %0 = tgpu.alloc : <2x128x32xf32, #shared>
    %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = arith.muli %1, %c128_i32 : i32
    %3 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16>
    %4 = tile.load %arg0[%2, %c0_i32] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x64xbf16> -> tensor<128x64xbf16, #linear2>
    %5 = tile.convert_layout %4 {shared = #shared1} : tensor<128x64xbf16, #linear2> -> tensor<128x64xbf16, #linear3>
    %6:2 = scf.for %arg4 = %c0_i32 to %3 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %cst_0) -> (tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>)  : i32 {
      %7 = tile.load %arg1[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %8 = tile.transpose %7 [1, 0] {tgpu.partition = array<i32: 2>} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear5>
      %9 = tile.convert_layout %8 {shared = #shared2, tgpu.partition = array<i32: 2>} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %10 = tile.dot %5, %9, %cst_0 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear3>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      %11 = tile.reduce  max %10 dim 1 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %12 = arith.maximumf %arg5, %11 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %13 = tile.expand_dims %12 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %14 = tile.broadcast %13 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %15 = arith.subf %10, %14 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %16 = math.exp2 %15 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %17 = arith.subf %arg5, %12 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %18 = math.exp2 %17 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear>
      %19 = tile.expand_dims %18 axis 1 {tgpu.partition = array<i32: 1>} : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %20 = tile.broadcast %19 {tgpu.partition = array<i32: 1>} : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %21 = arith.mulf %arg6, %20 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1>
      %22 = tile.load %arg2[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %23 = arith.truncf %16 {tgpu.partition = array<i32: 1>} : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %24 = tile.convert_layout %22 {shared = #shared3, tgpu.partition = array<i32: 2>} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear6>
      %25 = tile.dot %23, %24, %21 {tgpu.mma = #tgpu.mma<tcgen05, a = tmem, b = smem>, tgpu.partition = array<i32: 2>} : tensor<128x64xbf16, #linear1>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      scf.yield %12, %25 : tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
    tgpu.tma_store %6#1, %arg3[%2, %c0_i32] via %0 : tensor<128x64xf32, #linear1>, <?x64xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// A dot operand without a TMA copy that the load partition's threads cannot
// copy alone: its mask comes from elsewhere.
#lm = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#lb = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#la3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#lb4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sm = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sm1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
func.func @masked_threads(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>, %k: i32) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
  %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #acc>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %m = arith.constant {tgpu.partition = array<i32: 0>} dense<true> : tensor<128x64xi1, #lm>
  %r = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %cst) -> (tensor<128x256xf32, #acc>) : i32 {
    // expected-error @+1 {{a dot operand the load partition's threads copy is loaded in the loop or right before it, without a mask}}
    %x = tile.load %a[%c0, %k0] mask(%m : tensor<128x64xi1, #lm>) {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #lm>
    %y = tile.load %b[%k0, %c0] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #lb>
    %xa = tile.convert_layout %x {shared = #sm, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #lm> -> tensor<128x64xbf16, #la3>
    %yb = tile.convert_layout %y {shared = #sm1, tgpu.partition = array<i32: 1>} : tensor<64x256xbf16, #lb> -> tensor<64x256xbf16, #lb4>
    %d = tile.dot %xa, %yb, %acc_i {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #la3>, tensor<64x256xbf16, #lb4> -> tensor<128x256xf32, #acc>
    scf.yield %d : tensor<128x256xf32, #acc>
  } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
  tile.store %r, %c[%c0, %c0] : tensor<128x256xf32, #acc>, !tile.tensor<?x?xf32>
  return
}

// -----

// A side load (a 1x128 f32 row of S each K step, which no dot reads) is the
// load partition's TMA copy into a channel of its own, <fill = tma,
// release = arrive>, one use an iteration on the loop's counter; the
// compute partition waits before its first reader, reads the slot into the
// layout that reader needs (the conversion goes) and releases the use at
// once. (Input: examples of test/gpu/kernels/side_loads.mlir's gemm_vec
// after tile-tma-store-epilogue.)
// CHECK-LABEL: func.func @gemm_vec
// CHECK: %[[SCH:.*]], %[[SBUF:.*]] = tgpu.channel consumer_warps 8 kind <fill = tma, release = arrive> : !tgpu.smem<?x1x128xf32, #{{.*}}>
// CHECK: scf.for
// CHECK: %[[S:.*]] = tgpu.channel_acquire %[[SCH]][%[[I:.*]]] {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tgpu.tma_load %arg2[%{{.*}}, %{{.*}}] -> %[[SBUF]][%[[S]]], %[[SCH]] {tgpu.partition = array<i32: 0>} : <?x?xf32, tma = 1x128, swizzle = 0>
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait %[[SCH]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: %[[V:.*]] = tgpu.local_load %[[SBUF]][%[[W]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tgpu.channel_release %[[SCH]][%[[I]]] {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.broadcast %[[V]]
// CHECK-NOT: tile.load
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @gemm_vec(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @gemm_vec__plain} {
    %0 = tgpu.alloc : <2x128x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %6 = scf.for %arg4 = %c0_i32 to %5 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%3, %arg4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.load %arg1[%arg4, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.convert_layout %8 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %11 = tile.dot %9, %10, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      %12 = arith.divsi %arg4, %c64_i32 {tgpu.partition = array<i32: 0>} : i32
      %13 = tile.load %arg2[%12, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [1, 128], swizzle = 0>} : !tile.tensor<?x?xf32> -> tensor<1x128xf32, #linear5>
      %14 = tile.convert_layout %13 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<1x128xf32, #linear5> -> tensor<1x128xf32, #linear6>
      %15 = tile.broadcast %14 {tgpu.partition = array<i32: 1>} : tensor<1x128xf32, #linear6> -> tensor<128x128xf32, #linear>
      %16 = arith.addf %11, %15 {tgpu.partition = array<i32: 1>} : tensor<128x128xf32, #linear>
      scf.yield %16 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %6, %arg3[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// One tile read both ways (attention backward's K: S = Q·Kᵀ reads it
// transposed, dQ = dS·K as it is) is copied once: one slot, one
// tgpu.transpose of it for the dot that reads it transposed.
// CHECK-LABEL: func.func @k_both_ways
// CHECK: tgpu.channel consumer_warps 4 kind
// CHECK-NEXT: %{{.*}}, %[[ONCE:.*]] = tgpu.channel consumer_warps 4 depth 1
// CHECK-NEXT: %[[T:.*]] = tgpu.transpose %[[ONCE]]
// CHECK-NOT: tgpu.channel consumer_warps
// CHECK: tgpu.tma_load %arg1{{.*}} -> %[[ONCE]]
// CHECK-NOT: tgpu.tma_load %arg1
// CHECK: tgpu.wgmma %{{.*}}, %[[T]][
// CHECK: tgpu.wgmma %{{.*}}, %[[ONCE]][
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear3 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @k_both_ways(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @k_both_ways__plain} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = tile.dim %arg0, 0 : !tile.tensor<?x?xbf16>
    %2 = tile.load %arg1[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %3 = tile.transpose %2 [1, 0] : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear2>
    %4 = tile.convert_layout %3 {shared = #shared1} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear3>
    %5 = tile.convert_layout %2 {shared = #shared2} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear3>
    %6 = scf.for %arg3 = %c0_i32 to %1 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
      %8 = tile.convert_layout %7 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear>
      %9 = tile.dot %8, %4, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      %10 = arith.truncf %9 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear> to tensor<64x64xbf16, #linear>
      %11 = tile.dot %10, %5, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      scf.yield %11 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %6, %arg2[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x?xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// A staged A (attention backward's Pᵀ): the dot reads a tile the loop
// computes, transposed, through a conversion to the register-A layout
// that moves elements between threads. The compute partition writes the
// tile once into scratch in wgmma's 128-byte swizzle (tgpu.local_stage)
// and the MMA reads it by descriptor, MN-major through a tgpu.transpose;
// the conversion and the transpose are gone.
// CHECK-LABEL: func.func @staged_a
// CHECK: scf.for
// CHECK: %[[S:.*]] = tgpu.wgmma
// CHECK: %[[SW:.*]] = tgpu.wgmma_wait %[[S]]
// CHECK: %[[P:.*]] = arith.truncf %[[SW]]
// CHECK-NOT: tile.convert_layout
// CHECK: %[[ST:.*]] = tgpu.local_stage %[[P]] {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #{{.*}}> -> <1x64x64xbf16, #[[SW128:.*]]>
// CHECK-NEXT: %[[PT:.*]] = tgpu.transpose %[[ST]] {tgpu.partition = array<i32: 1>} : <1x64x64xbf16, #[[SW128]]> -> <1x64x64xbf16, #{{.*}}>
// CHECK-NEXT: %[[Z:.*]] = arith.constant {tgpu.partition = array<i32: 1>} 0 : i32
// CHECK: tgpu.wgmma %[[PT]][%[[Z]]], %{{.*}}, %{{.*}} : !tgpu.smem<1x64x64xbf16
// CHECK-NOT: tile.transpose
// CHECK: scf.yield
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear3 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 16], [0, 32]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @staged_a(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @staged_a__plain} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = tile.dim %arg0, 0 : !tile.tensor<?x?xbf16>
    %2 = tile.load %arg1[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %3 = tile.transpose %2 [1, 0] : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear2>
    %4 = tile.convert_layout %3 {shared = #shared1} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear3>
    %5 = tile.convert_layout %2 {shared = #shared2} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear3>
    %6 = scf.for %arg3 = %c0_i32 to %1 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
      %8 = tile.convert_layout %7 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear>
      %9 = tile.dot %8, %4, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      %10 = arith.truncf %9 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear> to tensor<64x64xbf16, #linear>
      %11 = tile.transpose %10 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear> -> tensor<64x64xbf16, #linear5>
      %12 = tile.convert_layout %11 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %13 = tile.dot %12, %5, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      scf.yield %13 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %6, %arg2[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x?xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// Two dots read one staged tile, and a conversion through shared memory
// stands between them: it overwrites scratch, so the second dot's A is
// staged again (attention backward's dS serves dK and dQ from one stage
// when nothing stands between).
// CHECK-LABEL: func.func @restaged
// CHECK: scf.for
// CHECK: tgpu.local_stage %[[P:[^ ]*]]
// CHECK: tgpu.wgmma
// CHECK: tile.convert_layout %{{.*}} {shared
// CHECK: tgpu.local_stage %[[P]]
// CHECK: tgpu.wgmma
// CHECK-NOT: tgpu.local_stage
// CHECK: scf.yield
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear3 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 16], [0, 32]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[1], [2], [4], [8], [16], [32]]>
#row = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [0]], warp = [[0], [0]]>
#row2 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#rowe = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @restaged(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @restaged__plain} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = tile.dim %arg0, 0 : !tile.tensor<?x?xbf16>
    %2 = tile.load %arg1[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %3 = tile.transpose %2 [1, 0] : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear2>
    %4 = tile.convert_layout %3 {shared = #shared1} : tensor<64x64xbf16, #linear2> -> tensor<64x64xbf16, #linear3>
    %5 = tile.convert_layout %2 {shared = #shared2} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear3>
    %6 = scf.for %arg3 = %c0_i32 to %1 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%arg3, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
      %8 = tile.convert_layout %7 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear>
      %9 = tile.dot %8, %4, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      %10 = arith.truncf %9 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear> to tensor<64x64xbf16, #linear>
      %11 = tile.transpose %10 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear> -> tensor<64x64xbf16, #linear5>
      %12 = tile.convert_layout %11 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %13 = tile.dot %12, %5, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      %r = arith.constant {tgpu.partition = array<i32: 1>} dense<1.0> : tensor<64xf32, #row>
      %r2 = tile.convert_layout %r {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<64xf32, #row> -> tensor<64xf32, #row2>
      %14 = tile.transpose %10 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear> -> tensor<64x64xbf16, #linear5>
      %15 = tile.convert_layout %14 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %16 = tile.dot %15, %5, %13 {tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear3> -> tensor<64x64xf32, #linear>
      %e = tile.expand_dims %r2 axis 1 {tgpu.partition = array<i32: 1>} : tensor<64xf32, #row2> -> tensor<64x1xf32, #rowe>
      %b = tile.broadcast %e {tgpu.partition = array<i32: 1>} : tensor<64x1xf32, #rowe> -> tensor<64x64xf32, #linear>
      %17 = arith.addf %16, %b {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear>
      scf.yield %17 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %6, %arg2[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x?xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}


// -----

// A gather of the load partition (tile-partition-schedule): a channel of
// its own, filled by the partition's 4 copy warps; they compute the index
// tiles again in their own layout (the iota, the splat of kr, the product
// with 3), gather the row and store it into the slot; the compute
// partition reads the slot in the layout the broadcast needs. The index
// tiles of the kernel's layout are left to nobody.
// CHECK-LABEL: func.func @gemm_gather
// CHECK: %[[CH:.*]], %[[BUF:.*]] = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = arrive, release = arrive> : !tgpu.smem<?x1x128xf32,
// CHECK: scf.for
// CHECK: %[[S:.*]] = tgpu.channel_acquire %[[CH]][%{{.*}}] {tgpu.partition = array<i32: 0>}
// CHECK: %[[ROW:.*]] = tile.splat %{{.*}} {tgpu.partition = array<i32: 0>} : i32 -> tensor<1x128xi32, #[[COPY:linear[0-9]*]]>
// CHECK: tile.iota {tgpu.partition = array<i32: 0>}
// CHECK: %[[COL:.*]] = arith.muli %{{.*}} {tgpu.partition = array<i32: 0>} : tensor<1x128xi32, #[[COPY]]>
// CHECK: %[[G:.*]] = tile.gather %arg2[%[[ROW]], %[[COL]]] {tgpu.partition = array<i32: 0>} : {{.*}} -> tensor<1x128xf32, #[[COPY]]>
// CHECK: tgpu.slot_store %[[G]], %[[BUF]][%[[S]]] {tgpu.partition = array<i32: 0>}
// CHECK: tgpu.channel_fill %[[CH]]
// CHECK: %[[W:.*]] = tgpu.channel_wait %[[CH]]{{.*}} {tgpu.partition = array<i32: 1>}
// CHECK: %[[R:.*]] = tgpu.local_load %[[BUF]][%[[W]]] {tgpu.partition = array<i32: 1>}
// CHECK: tgpu.channel_release %[[CH]]
// CHECK: tile.broadcast %[[R]]
// CHECK-NOT: tile.gather
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear2 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0], [0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @gemm_gather(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %cst_0 = arith.constant dense<3> : tensor<1x128xi32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<128xi32, #linear2>
    %2 = tile.expand_dims %1 axis 0 : tensor<128xi32, #linear2> -> tensor<1x128xi32, #linear1>
    %3 = arith.muli %2, %cst_0 : tensor<1x128xi32, #linear1>
    %4 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %6 = tile.load %arg0[%c0_i32, %arg4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear3>
      %7 = tile.load %arg1[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear4>
      %8 = tile.convert_layout %6 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear3> -> tensor<128x64xbf16, #linear5>
      %9 = tile.convert_layout %7 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear4> -> tensor<64x128xbf16, #linear6>
      %10 = tile.dot %8, %9, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear5>, tensor<64x128xbf16, #linear6> -> tensor<128x128xf32, #linear>
      %11 = arith.divsi %arg4, %c64_i32 {tgpu.partition = array<i32: 0>} : i32
      %12 = tile.splat %11 {tgpu.partition = array<i32: 0>} : i32 -> tensor<1x128xi32, #linear1>
      %13 = tile.gather %arg2[%12, %3] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xf32>, tensor<1x128xi32, #linear1>, tensor<1x128xi32, #linear1> -> tensor<1x128xf32, #linear1>
      %14 = tile.convert_layout %13 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<1x128xf32, #linear1> -> tensor<1x128xf32, #linear7>
      %15 = tile.broadcast %14 {tgpu.partition = array<i32: 1>} : tensor<1x128xf32, #linear7> -> tensor<128x128xf32, #linear>
      %16 = arith.addf %10, %15 {tgpu.partition = array<i32: 1>} : tensor<128x128xf32, #linear>
      scf.yield %16 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %5 = tile.convert_layout %4 {shared = #shared3} : tensor<128x128xf32, #linear> -> tensor<128x128xf32, #linear8>
    tile.store %5, %arg3[%c0_i32, %c0_i32] : tensor<128x128xf32, #linear8>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A gathered dot operand (A rows through an index table, tile-select-mma-and-tma
// marked it tgpu.thread_gather): the load partition's threads gather it into
// A's swizzled slot at index tiles they compute again in their own layout
// (the table read with them), and copy B beside it; the channel is filled
// as their cp.async copies complete (fill = async_copy). A's view becomes a
// TMA view of 16-row boxes the runtime may leave unencoded
// (tile.tma_fallback), and the gather takes a box where a run of 16 rows
// proves one at run time (consecutive table entries), completing on the
// channel; its layout puts whole runs in each warp (the verifier checks).
// The table is read before the slot is acquired (its latency overlaps the
// wait for the slot).
// CHECK-LABEL: func.func @gemm_rows(%arg0: !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>
// CHECK-SAME: tile.tma_fallback = array<i32: 0>
// CHECK: tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma>
// CHECK: scf.for
// CHECK: tile.load %arg2{{.*}}tgpu.partition = array<i32: 0>
// CHECK: %[[S:.*]] = tgpu.channel_acquire %[[CH:[a-z_0-9]+]][
// CHECK-NEXT: tgpu.thread_gather %arg0[{{.*}}] mask({{.*}}) -> %buffers#0[%[[S]]] boxes %[[CH]] : !tgpu.channel
// CHECK-NEXT: tgpu.thread_copy %arg1
// CHECK-NEXT: tgpu.channel_fill
// CHECK-NOT: tile.gather
// CHECK: tgpu.wgmma
// CHECK-LABEL: func.func @gemm_rows__plain(
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0], [0]]>
#linear2 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0], [0]]>
#linear3 = #tile.linear<register = [[32], [64]], lane = [[0], [0], [0], [1], [2]], warp = [[4], [8], [16]]>
#linear4 = #tile.linear<register = [[32, 0], [64, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear9 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1], [2], [4], [8], [16], [32], [64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_rows(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tile.grid = #tile.grid<cdiv(dim(2, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @gemm_rows__plain} {
    %0 = tgpu.alloc : <2x128x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = tile.program_id x
    %2 = tile.program_id y
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = arith.muli %2, %c128_i32 : i32
    %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %6 = tile.dim %arg2, 0 : !tile.tensor<?xi32>
    %7 = tile.iota : tensor<128xi32, #linear1>
    %8 = tile.splat %3 : i32 -> tensor<128xi32, #linear1>
    %9 = arith.addi %7, %8 : tensor<128xi32, #linear1>
    %10 = tile.splat %6 : i32 -> tensor<128xi32, #linear1>
    %11 = arith.cmpi slt, %9, %10 : tensor<128xi32, #linear1>
    %12 = tile.iota : tensor<64xi32, #linear2>
    %13 = tile.iota : tensor<128xi32, #linear3>
    %14 = tile.splat %3 : i32 -> tensor<128xi32, #linear3>
    %15 = arith.addi %13, %14 : tensor<128xi32, #linear3>
    %16 = tile.splat %6 : i32 -> tensor<128xi32, #linear3>
    %17 = arith.cmpi slt, %15, %16 : tensor<128xi32, #linear3>
    %18 = tile.expand_dims %17 axis 1 : tensor<128xi1, #linear3> -> tensor<128x1xi1, #linear4>
    %19 = tile.broadcast %18 : tensor<128x1xi1, #linear4> -> tensor<128x64xi1, #linear5>
    %20 = scf.for %arg4 = %c0_i32 to %5 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %21 = tile.load %arg2[%3] mask(%11 : tensor<128xi1, #linear1>) {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32> -> tensor<128xi32, #linear1>
      %22 = tile.convert_layout %21 {shared = #shared1, tgpu.partition = array<i32: 0>} : tensor<128xi32, #linear1> -> tensor<128xi32, #linear3>
      %23 = tile.expand_dims %22 axis 1 {tgpu.partition = array<i32: 0>} : tensor<128xi32, #linear3> -> tensor<128x1xi32, #linear4>
      %24 = tile.broadcast %23 {tgpu.partition = array<i32: 0>} : tensor<128x1xi32, #linear4> -> tensor<128x64xi32, #linear5>
      %25 = tile.splat %arg4 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear2>
      %26 = arith.addi %12, %25 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2>
      %27 = tile.expand_dims %26 axis 0 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2> -> tensor<1x64xi32, #linear6>
      %28 = tile.broadcast %27 {tgpu.partition = array<i32: 0>} : tensor<1x64xi32, #linear6> -> tensor<128x64xi32, #linear5>
      %29 = tile.gather %arg0[%24, %28] mask(%19 : tensor<128x64xi1, #linear5>) {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?xbf16>, tensor<128x64xi32, #linear5>, tensor<128x64xi32, #linear5> -> tensor<128x64xbf16, #linear5>
      %30 = tile.load %arg1[%arg4, %4] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear7>
      %31 = tile.convert_layout %29 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear5> -> tensor<128x64xbf16, #linear8>
      %32 = tile.convert_layout %30 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear7> -> tensor<64x128xbf16, #linear9>
      %33 = tile.dot %31, %32, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear8>, tensor<64x128xbf16, #linear9> -> tensor<128x128xf32, #linear>
      scf.yield %33 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %20, %arg3[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
  func.func @gemm_rows__plain(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(2, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant_of = @gemm_rows} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %5 = tile.dim %arg2, 0 : !tile.tensor<?xi32>
    %6 = tile.iota : tensor<128xi32, #linear1>
    %7 = tile.splat %2 : i32 -> tensor<128xi32, #linear1>
    %8 = arith.addi %6, %7 : tensor<128xi32, #linear1>
    %9 = tile.splat %5 : i32 -> tensor<128xi32, #linear1>
    %10 = arith.cmpi slt, %8, %9 : tensor<128xi32, #linear1>
    %11 = tile.iota : tensor<64xi32, #linear2>
    %12 = tile.iota : tensor<128xi32, #linear3>
    %13 = tile.splat %2 : i32 -> tensor<128xi32, #linear3>
    %14 = arith.addi %12, %13 : tensor<128xi32, #linear3>
    %15 = tile.splat %5 : i32 -> tensor<128xi32, #linear3>
    %16 = arith.cmpi slt, %14, %15 : tensor<128xi32, #linear3>
    %17 = tile.expand_dims %16 axis 1 : tensor<128xi1, #linear3> -> tensor<128x1xi1, #linear4>
    %18 = tile.broadcast %17 : tensor<128x1xi1, #linear4> -> tensor<128x64xi1, #linear5>
    %19 = scf.for %arg4 = %c0_i32 to %4 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %21 = tile.load %arg2[%2] mask(%10 : tensor<128xi1, #linear1>) {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32> -> tensor<128xi32, #linear1>
      %22 = tile.convert_layout %21 {shared = #shared1, tgpu.partition = array<i32: 0>} : tensor<128xi32, #linear1> -> tensor<128xi32, #linear3>
      %23 = tile.expand_dims %22 axis 1 {tgpu.partition = array<i32: 0>} : tensor<128xi32, #linear3> -> tensor<128x1xi32, #linear4>
      %24 = tile.broadcast %23 {tgpu.partition = array<i32: 0>} : tensor<128x1xi32, #linear4> -> tensor<128x64xi32, #linear5>
      %25 = tile.splat %arg4 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear2>
      %26 = arith.addi %11, %25 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2>
      %27 = tile.expand_dims %26 axis 0 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2> -> tensor<1x64xi32, #linear6>
      %28 = tile.broadcast %27 {tgpu.partition = array<i32: 0>} : tensor<1x64xi32, #linear6> -> tensor<128x64xi32, #linear5>
      %29 = tile.gather %arg0[%24, %28] mask(%18 : tensor<128x64xi1, #linear5>) {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?xbf16>, tensor<128x64xi32, #linear5>, tensor<128x64xi32, #linear5> -> tensor<128x64xbf16, #linear5>
      %30 = tile.load %arg1[%arg4, %3] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear7>
      %31 = tile.convert_layout %29 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear5> -> tensor<128x64xbf16, #linear8>
      %32 = tile.convert_layout %30 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear7> -> tensor<64x128xbf16, #linear9>
      %33 = tile.dot %31, %32, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear8>, tensor<64x128xbf16, #linear9> -> tensor<128x128xf32, #linear>
      scf.yield %33 : tensor<128x128xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    %20 = tile.convert_layout %19 {shared = #shared4} : tensor<128x128xf32, #linear> -> tensor<128x128xf32, #linear10>
    tile.store %20, %arg3[%2, %3] : tensor<128x128xf32, #linear10>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A paged gather of K (rows page · P + key % P of a (blocks, P, heads, D)
// cache, through a block table): the runs go along the view's dim 1, the
// innermost whose index changes along the rows (the page's slot; the head
// is a splat), so the view becomes a TMA view of 1x16x1x64 boxes
// (tile.tma_fallback), the copy layout one whose warps hold whole runs of
// 16 rows (warp bases rows 16 and 32), the table read before the slot's
// acquire, and the gather's boxes complete on the channel.
// CHECK: #[[RUNS:linear[0-9]*]] = #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], lane = {{\[}}[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = {{\[}}[16, 0], [32, 0]]>
// CHECK-LABEL: func.func @paged_rows(%arg0: !tile.tensor<?x128xbf16, tma = 64x64, swizzle = 128>, %arg1: !tile.tensor<?x?x?x128xbf16, tma = 1x16x1x64, swizzle = 128>
// CHECK-SAME: tile.tma_fallback = array<i32: 1>
// CHECK: scf.for
// CHECK: tile.gather %arg2
// CHECK: %[[S:.*]] = tgpu.channel_acquire %[[CH:[a-z_0-9]+]][
// CHECK-NEXT: tgpu.thread_gather %arg1[{{.*}}] -> %{{.*}}[%[[S]]] boxes %[[CH]] : !tgpu.channel as tensor<64x128xbf16, #[[RUNS]]>
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear2 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [0]], warp = [[0], [0]]>
#linear3 = #tile.linear<register = [[8], [16], [32]], lane = [[0], [0], [0], [0], [1]], warp = [[2], [4]]>
#linear4 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [64], [0]], warp = [[0], [0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear7 = #tile.linear<register = [[8, 0], [16, 0], [32, 0]], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear8 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 8], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [64, 0], [0, 1]], warp = [[0, 2], [0, 4]]>
#linear9 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[1], [2], [4], [8], [16], [32]]>
#shared3 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @paged_rows(%arg0: !tile.tensor<?x128xbf16>, %arg1: !tile.tensor<?x?x?x128xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x?xf32, tma = 64x32, swizzle = 128>, %arg4: i32, %arg5: i32) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = tile.load %arg0[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x128xbf16> -> tensor<64x128xbf16, #linear1>
    %2 = tile.dim %arg1, 1 : !tile.tensor<?x?x?x128xbf16>
    %3 = tile.splat %2 : i32 -> tensor<64xi32, #linear2>
    %4 = tile.iota : tensor<64xi32, #linear2>
    %5 = tile.iota : tensor<64xi32, #linear3>
    %6 = tile.splat %2 : i32 -> tensor<64xi32, #linear3>
    %7 = tile.splat %arg5 : i32 -> tensor<64x128xi32, #linear1>
    %8 = tile.iota : tensor<128xi32, #linear4>
    %9 = tile.expand_dims %8 axis 0 : tensor<128xi32, #linear4> -> tensor<1x128xi32, #linear5>
    %10 = tile.broadcast %9 : tensor<1x128xi32, #linear5> -> tensor<64x128xi32, #linear1>
    %11 = tile.convert_layout %1 {shared = #shared1} : tensor<64x128xbf16, #linear1> -> tensor<64x128xbf16, #linear6>
    %12 = scf.for %arg6 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg7 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %13 = tile.splat %arg6 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear2>
      %14 = arith.addi %4, %13 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2>
      %15 = arith.divui %14, %3 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2>
      %16 = tile.gather %arg2[%15] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear2> -> tensor<64xi32, #linear2>
      %17 = tile.convert_layout %16 {shared = #shared2, tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear2> -> tensor<64xi32, #linear3>
      %18 = tile.expand_dims %17 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear3> -> tensor<64x1xi32, #linear7>
      %19 = tile.broadcast %18 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear7> -> tensor<64x128xi32, #linear1>
      %20 = tile.splat %arg6 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear3>
      %21 = arith.addi %5, %20 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear3>
      %22 = arith.remui %21, %6 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear3>
      %23 = tile.expand_dims %22 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear3> -> tensor<64x1xi32, #linear7>
      %24 = tile.broadcast %23 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear7> -> tensor<64x128xi32, #linear1>
      %25 = tile.gather %arg1[%19, %24, %7, %10] {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?x?x128xbf16>, tensor<64x128xi32, #linear1>, tensor<64x128xi32, #linear1>, tensor<64x128xi32, #linear1>, tensor<64x128xi32, #linear1> -> tensor<64x128xbf16, #linear1>
      %26 = tile.transpose %25 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear1> -> tensor<128x64xbf16, #linear8>
      %27 = tile.convert_layout %26 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<128x64xbf16, #linear8> -> tensor<128x64xbf16, #linear9>
      %28 = tile.dot %11, %27, %arg7 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x128xbf16, #linear6>, tensor<128x64xbf16, #linear9> -> tensor<64x64xf32, #linear>
      scf.yield %28 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %12, %arg3[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x?xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// MLA's step (examples/mla_decode.mlir, reduced; P·V's accumulator rescaled
// in the loop, as attention's is): three MMAs whose results the math reads,
// with waits deferred where the results are first read. The rotary MMA
// takes the latent one's in-flight result as its accumulator and chains
// onto it without a wait (as wgmma's K steps do); one wait covers both.
// The rescaled accumulator counts as the carried one in the register
// estimate (128 + 2·16 + 8 a thread), so the waits are deferred.
// CHECK-LABEL: func.func @mla_mini(
// CHECK: %[[S0:.*]] = tgpu.wgmma {{.*}} : !tgpu.smem<?x64x512xbf16
// CHECK-NOT: tgpu.wgmma_wait
// CHECK: %[[S1:.*]] = tgpu.wgmma {{.*}}, %[[S0]] {{.*}} : !tgpu.smem<?x64x64xbf16
// CHECK-NEXT: tgpu.wgmma_wait %[[S1]] : tensor<64x64xf32
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 256]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 32]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear4 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [0]], warp = [[0], [0], [0]]>
#linear5 = #tile.linear<register = [[8], [16], [32]], lane = [[0], [0], [0], [0], [0]], warp = [[1], [2], [4]]>
#linear6 = #tile.linear<register = [[1], [2], [4], [256]], lane = [[8], [16], [32], [64], [128]], warp = [[0], [0], [0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[32]], lane = [[0], [0], [0], [1], [2]], warp = [[4], [8], [16]]>
#linear9 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0], [0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear11 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 0]]>
#linear12 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 0]]>
#linear13 = #tile.linear<register = [[8, 0], [16, 0], [32, 0]], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear14 = #tile.linear<register = [[32, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear15 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [256, 0], [0, 8], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [64, 0], [128, 0]], warp = [[0, 1], [0, 2], [0, 4]]>
#linear16 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear17 = #tile.linear<register = [[1, 0], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 32]]>
#linear18 = #tile.linear<register = [[1, 0], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 32]]>
#linear19 = #tile.linear<register = [[1, 0], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 256]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[1], [2], [4], [8], [16], [32]]>
#shared3 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared4 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @mla_mini(%arg0: !tile.tensor<?x576xbf16>, %arg1: !tile.tensor<?x?x576xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x512xf32>, %arg4: i32) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @mla_mini__plain} {
    %cst = arith.constant dense<5.000000e-01> : tensor<64x512xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #linear>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c512_i32 = arith.constant 512 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x576xbf16> -> tensor<64x512xbf16, #linear2>
    %1 = tile.load %arg0[%c0_i32, %c512_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x576xbf16> -> tensor<64x64xbf16, #linear3>
    %2 = tile.iota : tensor<64xi32, #linear4>
    %3 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear4>
    %4 = tile.iota : tensor<64xi32, #linear5>
    %5 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear5>
    %6 = tile.iota : tensor<512xi32, #linear6>
    %7 = tile.expand_dims %6 axis 0 : tensor<512xi32, #linear6> -> tensor<1x512xi32, #linear7>
    %8 = tile.broadcast %7 : tensor<1x512xi32, #linear7> -> tensor<64x512xi32, #linear2>
    %9 = tile.iota : tensor<64xi32, #linear8>
    %10 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear8>
    %11 = tile.iota : tensor<64xi32, #linear9>
    %12 = tile.splat %c512_i32 : i32 -> tensor<64xi32, #linear9>
    %13 = arith.addi %11, %12 : tensor<64xi32, #linear9>
    %14 = tile.expand_dims %13 axis 0 : tensor<64xi32, #linear9> -> tensor<1x64xi32, #linear10>
    %15 = tile.broadcast %14 : tensor<1x64xi32, #linear10> -> tensor<64x64xi32, #linear3>
    %16 = tile.convert_layout %0 {shared = #shared} : tensor<64x512xbf16, #linear2> -> tensor<64x512xbf16, #linear11>
    %17 = tile.convert_layout %1 {shared = #shared1} : tensor<64x64xbf16, #linear3> -> tensor<64x64xbf16, #linear12>
    %18 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_0) -> (tensor<64x512xf32, #linear>)  : i32 {
      %19 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear4>
      %20 = arith.addi %2, %19 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4>
      %21 = arith.divui %20, %3 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4>
      %22 = tile.gather %arg2[%21] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear4> -> tensor<64xi32, #linear4>
      %23 = tile.convert_layout %22 {shared = #shared2, tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4> -> tensor<64xi32, #linear5>
      %24 = tile.expand_dims %23 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5> -> tensor<64x1xi32, #linear13>
      %25 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear5>
      %26 = arith.addi %4, %25 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5>
      %27 = arith.remui %26, %5 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5>
      %28 = tile.expand_dims %27 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5> -> tensor<64x1xi32, #linear13>
      %29 = tile.broadcast %24 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear13> -> tensor<64x512xi32, #linear2>
      %30 = tile.broadcast %28 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear13> -> tensor<64x512xi32, #linear2>
      %31 = tile.gather %arg1[%29, %30, %8] {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?x576xbf16>, tensor<64x512xi32, #linear2>, tensor<64x512xi32, #linear2>, tensor<64x512xi32, #linear2> -> tensor<64x512xbf16, #linear2>
      %32 = tile.convert_layout %22 {shared = #shared2, tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4> -> tensor<64xi32, #linear8>
      %33 = tile.expand_dims %32 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8> -> tensor<64x1xi32, #linear14>
      %34 = tile.broadcast %33 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear14> -> tensor<64x64xi32, #linear3>
      %35 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear8>
      %36 = arith.addi %9, %35 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8>
      %37 = arith.remui %36, %10 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8>
      %38 = tile.expand_dims %37 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8> -> tensor<64x1xi32, #linear14>
      %39 = tile.broadcast %38 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear14> -> tensor<64x64xi32, #linear3>
      %40 = tile.gather %arg1[%34, %39, %15] {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?x576xbf16>, tensor<64x64xi32, #linear3>, tensor<64x64xi32, #linear3>, tensor<64x64xi32, #linear3> -> tensor<64x64xbf16, #linear3>
      %41 = tile.transpose %31 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x512xbf16, #linear2> -> tensor<512x64xbf16, #linear15>
      %42 = tile.transpose %40 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear3> -> tensor<64x64xbf16, #linear16>
      %43 = tile.convert_layout %41 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<512x64xbf16, #linear15> -> tensor<512x64xbf16, #linear17>
      %44 = tile.dot %16, %43, %cst_1 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x512xbf16, #linear11>, tensor<512x64xbf16, #linear17> -> tensor<64x64xf32, #linear1>
      %45 = tile.convert_layout %42 {shared = #shared4, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear16> -> tensor<64x64xbf16, #linear18>
      %46 = tile.dot %17, %45, %44 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear12>, tensor<64x64xbf16, #linear18> -> tensor<64x64xf32, #linear1>
      %47 = arith.truncf %46 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear1> to tensor<64x64xbf16, #linear1>
      %48 = arith.mulf %arg6, %cst {tgpu.partition = array<i32: 1>} : tensor<64x512xf32, #linear>
      %49 = tile.convert_layout %47 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear12>
      %50 = tile.convert_layout %31 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<64x512xbf16, #linear2> -> tensor<64x512xbf16, #linear19>
      %51 = tile.dot %49, %50, %48 {tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear12>, tensor<64x512xbf16, #linear19> -> tensor<64x512xf32, #linear>
      scf.yield %51 : tensor<64x512xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tile.store %18, %arg3[%c0_i32, %c0_i32] : tensor<64x512xf32, #linear>, !tile.tensor<?x512xf32>
    return
  }
  func.func @mla_mini__plain(%arg0: !tile.tensor<?x576xbf16>, %arg1: !tile.tensor<?x?x576xbf16>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x512xf32>, %arg4: i32) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant_of = @mla_mini} {
    %cst = arith.constant dense<5.000000e-01> : tensor<64x512xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #linear>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c512_i32 = arith.constant 512 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x576xbf16> -> tensor<64x512xbf16, #linear2>
    %1 = tile.load %arg0[%c0_i32, %c512_i32] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x576xbf16> -> tensor<64x64xbf16, #linear3>
    %2 = tile.iota : tensor<64xi32, #linear4>
    %3 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear4>
    %4 = tile.iota : tensor<64xi32, #linear5>
    %5 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear5>
    %6 = tile.iota : tensor<512xi32, #linear6>
    %7 = tile.expand_dims %6 axis 0 : tensor<512xi32, #linear6> -> tensor<1x512xi32, #linear7>
    %8 = tile.broadcast %7 : tensor<1x512xi32, #linear7> -> tensor<64x512xi32, #linear2>
    %9 = tile.iota : tensor<64xi32, #linear8>
    %10 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear8>
    %11 = tile.iota : tensor<64xi32, #linear9>
    %12 = tile.splat %c512_i32 : i32 -> tensor<64xi32, #linear9>
    %13 = arith.addi %11, %12 : tensor<64xi32, #linear9>
    %14 = tile.expand_dims %13 axis 0 : tensor<64xi32, #linear9> -> tensor<1x64xi32, #linear10>
    %15 = tile.broadcast %14 : tensor<1x64xi32, #linear10> -> tensor<64x64xi32, #linear3>
    %16 = tile.convert_layout %0 {shared = #shared} : tensor<64x512xbf16, #linear2> -> tensor<64x512xbf16, #linear11>
    %17 = tile.convert_layout %1 {shared = #shared1} : tensor<64x64xbf16, #linear3> -> tensor<64x64xbf16, #linear12>
    %18 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_0) -> (tensor<64x512xf32, #linear>)  : i32 {
      %19 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear4>
      %20 = arith.addi %2, %19 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4>
      %21 = arith.divui %20, %3 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4>
      %22 = tile.gather %arg2[%21] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear4> -> tensor<64xi32, #linear4>
      %23 = tile.convert_layout %22 {shared = #shared2, tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4> -> tensor<64xi32, #linear5>
      %24 = tile.expand_dims %23 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5> -> tensor<64x1xi32, #linear13>
      %25 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear5>
      %26 = arith.addi %4, %25 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5>
      %27 = arith.remui %26, %5 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5>
      %28 = tile.expand_dims %27 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear5> -> tensor<64x1xi32, #linear13>
      %29 = tile.broadcast %24 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear13> -> tensor<64x512xi32, #linear2>
      %30 = tile.broadcast %28 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear13> -> tensor<64x512xi32, #linear2>
      %31 = tile.gather %arg1[%29, %30, %8] {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?x576xbf16>, tensor<64x512xi32, #linear2>, tensor<64x512xi32, #linear2>, tensor<64x512xi32, #linear2> -> tensor<64x512xbf16, #linear2>
      %32 = tile.convert_layout %22 {shared = #shared2, tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear4> -> tensor<64xi32, #linear8>
      %33 = tile.expand_dims %32 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8> -> tensor<64x1xi32, #linear14>
      %34 = tile.broadcast %33 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear14> -> tensor<64x64xi32, #linear3>
      %35 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear8>
      %36 = arith.addi %9, %35 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8>
      %37 = arith.remui %36, %10 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8>
      %38 = tile.expand_dims %37 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear8> -> tensor<64x1xi32, #linear14>
      %39 = tile.broadcast %38 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear14> -> tensor<64x64xi32, #linear3>
      %40 = tile.gather %arg1[%34, %39, %15] {tgpu.partition = array<i32: 0>, tgpu.thread_gather} : !tile.tensor<?x?x576xbf16>, tensor<64x64xi32, #linear3>, tensor<64x64xi32, #linear3>, tensor<64x64xi32, #linear3> -> tensor<64x64xbf16, #linear3>
      %41 = tile.transpose %31 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x512xbf16, #linear2> -> tensor<512x64xbf16, #linear15>
      %42 = tile.transpose %40 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear3> -> tensor<64x64xbf16, #linear16>
      %43 = tile.convert_layout %41 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<512x64xbf16, #linear15> -> tensor<512x64xbf16, #linear17>
      %44 = tile.dot %16, %43, %cst_1 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x512xbf16, #linear11>, tensor<512x64xbf16, #linear17> -> tensor<64x64xf32, #linear1>
      %45 = tile.convert_layout %42 {shared = #shared4, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear16> -> tensor<64x64xbf16, #linear18>
      %46 = tile.dot %17, %45, %44 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear12>, tensor<64x64xbf16, #linear18> -> tensor<64x64xf32, #linear1>
      %47 = arith.truncf %46 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear1> to tensor<64x64xbf16, #linear1>
      %48 = arith.mulf %arg6, %cst {tgpu.partition = array<i32: 1>} : tensor<64x512xf32, #linear>
      %49 = tile.convert_layout %47 {shared = #shared1, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear12>
      %50 = tile.convert_layout %31 {shared = #shared, tgpu.partition = array<i32: 1>} : tensor<64x512xbf16, #linear2> -> tensor<64x512xbf16, #linear19>
      %51 = tile.dot %49, %50, %48 {tgpu.mma = #tgpu.mma<wgmma, a = staged, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear12>, tensor<64x512xbf16, #linear19> -> tensor<64x512xf32, #linear>
      scf.yield %51 : tensor<64x512xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tile.store %18, %arg3[%c0_i32, %c0_i32] : tensor<64x512xf32, #linear>, !tile.tensor<?x512xf32>
    return
  }
}

// -----

// fp8 attention's chain with V row-major (b = kmajor_copy): K's channel is
// TMA's, V's the load partition's threads' (each MMA's operands a channel
// of their own, each filled one way). The threads copy V transposed into
// its DxKeys slot, through the keys' renaming: `in_slot` lays the copy's
// registers (8 bytes along D, then the two keys of a slot word), lanes (the
// slot's next key bits) and warps out over the slot; the consumer reads
// the slot transposed, as a B loaded NxK.
// CHECK: #[[COPY:linear[0-9]*]] = #tile.linear<register = {{\[\[0, 1\], \[0, 2\], \[0, 4\], \[1, 0\], \[8, 0\]\], lane = \[\[2, 0\], \[4, 0\], \[16, 0\], \[32, 0\], \[0, 8\]\], warp = \[\[0, 16\], \[0, 32\]\]}}>
// CHECK: #[[SLOT:linear[0-9]*]] = #tile.linear<register = {{\[\[1, 0\], \[2, 0\], \[4, 0\], \[0, 1\], \[0, 2\]\], lane = \[\[0, 4\], \[0, 8\], \[0, 16\], \[0, 32\], \[8, 0\]\], warp = \[\[16, 0\], \[32, 0\]\]}}>
// CHECK-LABEL: func.func @chain_fp8_vrow
// CHECK: %[[K:.*]], %[[KB:.*]] = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma>
// CHECK: %[[V:.*]], %[[VB:.*]] = tgpu.channel consumer_warps 4 producer_warps 4 kind <fill = async_copy, release = mma>
// CHECK: %[[VT:.*]] = tgpu.transpose %[[VB]]
// CHECK: tgpu.tma_load %arg1[{{.*}}] -> %[[KB]]
// CHECK: %[[S:.*]] = tgpu.channel_acquire %[[V]][%arg6]
// CHECK-NEXT: tgpu.thread_copy %arg2[%arg4, %c0_i32] -> %[[VB]][%[[S]]] as tensor<64x64xf8E4M3FN, #[[COPY]]> no_wait in_slot #[[SLOT]]
// CHECK-NEXT: tgpu.channel_fill %[[V]][%arg6]
// CHECK: %[[W:.*]] = tgpu.channel_wait %[[V]][%arg6]
// CHECK-NEXT: tgpu.wgmma %{{.*}}, %[[VT]][%[[W]]]
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0]], lane = [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 32, 0]], lane = [[0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0], [0, 4, 0]], warp = [[0, 8, 0], [0, 16, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], lane = [[16, 0], [32, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 8], [0, 16]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 0, 0, 0, 1], [8, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 0, 1, 0], [0, 0, 0, 2, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear7 = #tile.linear<register = [[0, 0, 0, 0, 1], [8, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 1, 0, 0], [0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear8 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [2, 0, 0, 0, 0]], lane = [[0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [0, 0, 2, 0, 0]], warp = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]>
#linear9 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [2, 0, 0, 0, 0]], lane = [[0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], warp = [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0]]>
#linear10 = #tile.linear<register = [[0, 0, 0, 0, 1], [0, 0, 0, 1, 0], [8, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 2, 0, 0, 0]], lane = [[0, 0, 1, 0, 0], [0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [4, 0, 0, 0, 0]], warp = [[16, 0, 0, 0, 0], [32, 0, 0, 0, 0]]>
#linear11 = #tile.linear<register = [[0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 0, 0, 8], [0, 0, 0, 0, 16], [0, 0, 0, 0, 32]], lane = [[0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4]], warp = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]>
#linear12 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared3 = #tile.shared<offset = [[0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain_fp8_vrow(%arg0: !tile.tensor<?x64xf8E4M3FN>, %arg1: !tile.tensor<?x?x64xf8E4M3FN>, %arg2: !tile.tensor<?x64xf8E4M3FN>, %arg3: !tile.tensor<?x64xf32, tma = 64x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @chain_fp8_vrow__plain} {
    %0 = tgpu.alloc : <2x64x32xf32, #shared>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = tile.program_id x
    %2 = tile.dim %arg2, 0 : !tile.tensor<?x64xf8E4M3FN>
    %3 = tile.load %arg0[%c0_i32, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 64>} : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
    %4 = tile.convert_layout %3 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear2>
    %5 = scf.for %arg4 = %c0_i32 to %2 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %6 = tile.load %arg1[%1, %arg4, %c0_i32] {tgpu.partition = array<i32: 0>, tgpu.tma = #tgpu.tma_copy<box = [1, 64, 64], swizzle = 64>} : !tile.tensor<?x?x64xf8E4M3FN> -> tensor<1x64x64xf8E4M3FN, #linear3>
      %7 = tile.reshape %6 {tgpu.partition = array<i32: 1>} : tensor<1x64x64xf8E4M3FN, #linear3> -> tensor<64x64xf8E4M3FN, #linear1>
      %8 = tile.transpose %7 [1, 0] {tgpu.partition = array<i32: 1>} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %9 = tile.convert_layout %8 {shared = #shared2, tgpu.partition = array<i32: 1>} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      %10 = tile.dot %4, %9, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>, tgpu.partition = array<i32: 1>} : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      %11 = math.exp2 %10 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear>
      %12 = arith.truncf %11 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear> to tensor<64x64xf8E4M3FN, #linear>
      %13 = tile.reshape %12 {tgpu.partition = array<i32: 1>} : tensor<64x64xf8E4M3FN, #linear> -> tensor<64x4x2x4x2xf8E4M3FN, #linear6>
      %14 = tile.transpose %13 [0, 1, 3, 2, 4] {tgpu.partition = array<i32: 1>} : tensor<64x4x2x4x2xf8E4M3FN, #linear6> -> tensor<64x4x4x2x2xf8E4M3FN, #linear7>
      %15 = tile.load %arg2[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>} : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
      %16 = tile.reshape %15 {tgpu.partition = array<i32: 1>} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<4x2x4x2x64xf8E4M3FN, #linear8>
      %17 = tile.transpose %16 [0, 2, 1, 3, 4] {tgpu.partition = array<i32: 1>} : tensor<4x2x4x2x64xf8E4M3FN, #linear8> -> tensor<4x4x2x2x64xf8E4M3FN, #linear9>
      %18 = tile.convert_layout %14 {tgpu.partition = array<i32: 1>} : tensor<64x4x4x2x2xf8E4M3FN, #linear7> -> tensor<64x4x4x2x2xf8E4M3FN, #linear10>
      %19 = tile.reshape %18 {tgpu.partition = array<i32: 1>} : tensor<64x4x4x2x2xf8E4M3FN, #linear10> -> tensor<64x64xf8E4M3FN, #linear2>
      %20 = tile.convert_layout %17 {shared = #shared3, tgpu.partition = array<i32: 1>} : tensor<4x4x2x2x64xf8E4M3FN, #linear9> -> tensor<4x4x2x2x64xf8E4M3FN, #linear11>
      %21 = tile.reshape %20 {tgpu.partition = array<i32: 1>} : tensor<4x4x2x2x64xf8E4M3FN, #linear11> -> tensor<64x64xf8E4M3FN, #linear5>
      %22 = tile.dot %19, %21, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = kmajor_copy>, tgpu.partition = array<i32: 1>} : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      scf.yield %22 : tensor<64x64xf32, #linear>
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.tma_store %5, %arg3[%c0_i32, %c0_i32] via %0 : tensor<64x64xf32, #linear>, <?x64xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared>
    tgpu.tma_store_wait {pendings = 0 : i32}
    return
  }

}
