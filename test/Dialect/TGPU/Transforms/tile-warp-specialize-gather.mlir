// RUN: tilec-opt %s -tile-warp-specialize | FileCheck %s
//
// The input is MLA's step (examples/mla_decode.mlir, reduced) after
// tile-insert-channels: a load partition whose threads gather 288 elements
// a thread an iteration (a 64x512 and a 64x64 tile over a warpgroup) takes
// 120 registers, not a copying partition's 72 (at 72 its unrolled rows and
// run checks spilled 2 KB into L2), and the compute warps the rest (192).
// CHECK-LABEL: func.func @mla_mini(
// CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 120>, #tgpu.partition<compute, warps = 8, regs = 192>]

#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 256]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 32]]>
#linear2 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [0]], warp = [[0], [0], [0]]>
#linear3 = #tile.linear<register = [[8], [16], [32]], lane = [[0], [0], [0], [0], [0]], warp = [[1], [2], [4]]>
#linear4 = #tile.linear<register = [[1], [2], [4], [256]], lane = [[8], [16], [32], [64], [128]], warp = [[0], [0], [0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear7 = #tile.linear<register = [[32]], lane = [[0], [0], [0], [1], [2]], warp = [[4], [8], [16]]>
#linear8 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0], [0]]>
#linear9 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear10 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear11 = #tile.linear<register = [[1], [2], [4], [8]], lane = [[0], [0], [0], [0], [0]], warp = [[16], [32]]>
#linear12 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [[16, 0], [32, 0]]>
#linear13 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256], [1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[16, 0], [32, 0]]>
#linear14 = #tile.linear<register = [[1], [2], [4], [256]], lane = [[8], [16], [32], [64], [128]], warp = [[0], [0]]>
#linear15 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[0, 0], [0, 0]]>
#linear16 = #tile.linear<register = [[4], [8]], lane = [[0], [0], [0], [1], [2]], warp = [[16], [32]]>
#linear17 = #tile.linear<register = [[4, 0], [8, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>
#linear18 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>
#linear19 = #tile.linear<register = [[1], [2], [4]], lane = [[8], [16], [32], [0], [0]], warp = [[0], [0]]>
#linear20 = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [0, 32], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear21 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 256], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0]]>
#linear22 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128], [0, 256]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [64, 0], [128, 0], [256, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @mla_mini(%arg0: !tile.tensor<?x576xbf16, tma = 64x64, swizzle = 128>, %arg1: !tile.tensor<?x?x576xbf16, tma = 1x16x64, swizzle = 128>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x512xf32>, %arg4: i32) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @mla_mini__plain, tile.tma_fallback = array<i32: 1>} {
    %channel, %buffers = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma> : !tgpu.smem<?x64x512xbf16, #shared>
    %0 = tgpu.transpose %buffers : <?x64x512xbf16, #shared> -> <?x512x64xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma> : !tgpu.smem<?x64x64xbf16, #shared2>
    %1 = tgpu.transpose %buffers_1 : <?x64x64xbf16, #shared2> -> <?x64x64xbf16, #shared3>
    %channel_2, %buffers_3:2 = tgpu.channel consumer_warps 8 depth 1 kind <fill = tma, release = mma> : !tgpu.smem<?x64x512xbf16, #shared>, !tgpu.smem<?x64x64xbf16, #shared2>
    %cst = arith.constant dense<5.000000e-01> : tensor<64x512xf32, #linear>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #linear>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c512_i32 = arith.constant 512 : i32
    %c64_i32 = arith.constant 64 : i32
    %c0_i32_6 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %2 = tgpu.channel_acquire %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 0>}
    tgpu.tma_load %arg0[%c0_i32, %c0_i32] -> %buffers_3#0[%2], %channel_2 {tgpu.partition = array<i32: 0>} : <?x576xbf16, tma = 64x64, swizzle = 128>, <?x64x512xbf16, #shared>, !tgpu.channel
    tgpu.tma_load %arg0[%c0_i32, %c512_i32] -> %buffers_3#1[%2], %channel_2 {tgpu.partition = array<i32: 0>} : <?x576xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared2>, !tgpu.channel
    %3 = tile.iota : tensor<64xi32, #linear2>
    %4 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear2>
    %5 = tile.iota : tensor<64xi32, #linear3>
    %6 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear3>
    %7 = tile.iota : tensor<512xi32, #linear4>
    %8 = tile.expand_dims %7 axis 0 : tensor<512xi32, #linear4> -> tensor<1x512xi32, #linear5>
    %9 = tile.broadcast %8 : tensor<1x512xi32, #linear5> -> tensor<64x512xi32, #linear6>
    %10 = tile.iota : tensor<64xi32, #linear7>
    %11 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear7>
    %12 = tile.iota : tensor<64xi32, #linear8>
    %13 = tile.splat %c512_i32 : i32 -> tensor<64xi32, #linear8>
    %14 = arith.addi %12, %13 : tensor<64xi32, #linear8>
    %15 = tile.expand_dims %14 axis 0 : tensor<64xi32, #linear8> -> tensor<1x64xi32, #linear9>
    %16 = tile.broadcast %15 : tensor<1x64xi32, #linear9> -> tensor<64x64xi32, #linear10>
    %c0_i32_7 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %17 = tgpu.channel_wait %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 1>}
    %18:2 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_4, %arg7 = %c0_i32_7) -> (tensor<64x512xf32, #linear>, i32)  : i32 {
      %19 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %20 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %21 = arith.addi %19, %20 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %22 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %23 = arith.divui %21, %22 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %24 = tile.gather %arg2[%23] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear11> -> tensor<64xi32, #linear11>
      %25 = tile.expand_dims %24 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11> -> tensor<64x1xi32, #linear12>
      %26 = tile.broadcast %25 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear12> -> tensor<64x512xi32, #linear13>
      %27 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %28 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %29 = arith.addi %27, %28 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %30 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %31 = arith.remui %29, %30 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %32 = tile.expand_dims %31 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11> -> tensor<64x1xi32, #linear12>
      %33 = tile.broadcast %32 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear12> -> tensor<64x512xi32, #linear13>
      %34 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<512xi32, #linear14>
      %35 = tile.expand_dims %34 axis 0 {tgpu.partition = array<i32: 0>} : tensor<512xi32, #linear14> -> tensor<1x512xi32, #linear15>
      %36 = tile.broadcast %35 {tgpu.partition = array<i32: 0>} : tensor<1x512xi32, #linear15> -> tensor<64x512xi32, #linear13>
      %37 = tgpu.channel_acquire %channel[%arg7] {tgpu.partition = array<i32: 0>}
      tgpu.thread_gather %arg1[%26, %33, %36] -> %buffers[%37] boxes %channel : !tgpu.channel as tensor<64x512xbf16, #linear13> {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?x576xbf16, tma = 1x16x64, swizzle = 128>, !tgpu.smem<?x64x512xbf16, #shared>, tensor<64x512xi32, #linear13>, tensor<64x512xi32, #linear13>, tensor<64x512xi32, #linear13>
      tgpu.channel_fill %channel[%arg7] {tgpu.partition = array<i32: 0>}
      %38 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %39 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %40 = arith.addi %38, %39 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %41 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %42 = arith.divui %40, %41 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %43 = tile.gather %arg2[%42] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear16> -> tensor<64xi32, #linear16>
      %44 = tile.expand_dims %43 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16> -> tensor<64x1xi32, #linear17>
      %45 = tile.broadcast %44 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear17> -> tensor<64x64xi32, #linear18>
      %46 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %47 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %48 = arith.addi %46, %47 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %49 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %50 = arith.remui %48, %49 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %51 = tile.expand_dims %50 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16> -> tensor<64x1xi32, #linear17>
      %52 = tile.broadcast %51 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear17> -> tensor<64x64xi32, #linear18>
      %53 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear19>
      %54 = tile.splat %c512_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear19>
      %55 = arith.addi %53, %54 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear19>
      %56 = tile.expand_dims %55 axis 0 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear19> -> tensor<1x64xi32, #linear20>
      %57 = tile.broadcast %56 {tgpu.partition = array<i32: 0>} : tensor<1x64xi32, #linear20> -> tensor<64x64xi32, #linear18>
      %58 = tgpu.channel_acquire %channel_0[%arg7] {tgpu.partition = array<i32: 0>}
      tgpu.thread_gather %arg1[%45, %52, %57] -> %buffers_1[%58] boxes %channel_0 : !tgpu.channel as tensor<64x64xbf16, #linear18> {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?x576xbf16, tma = 1x16x64, swizzle = 128>, !tgpu.smem<?x64x64xbf16, #shared2>, tensor<64x64xi32, #linear18>, tensor<64x64xi32, #linear18>, tensor<64x64xi32, #linear18>
      tgpu.channel_fill %channel_0[%arg7] {tgpu.partition = array<i32: 0>}
      %59 = tgpu.channel_wait %channel[%arg7] {tgpu.partition = array<i32: 1>}
      %60 = tgpu.wgmma %buffers_3#0[%17], %0[%59], %cst_5 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x64x512xbf16, #shared>, <?x512x64xbf16, #shared1>, tensor<64x64xf32, #linear1>
      %61 = tgpu.channel_wait %channel_0[%arg7] {tgpu.partition = array<i32: 1>}
      %62 = tgpu.wgmma %buffers_3#1[%17], %1[%61], %60 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x64x64xbf16, #shared2>, <?x64x64xbf16, #shared3>, tensor<64x64xf32, #linear1>
      %63 = tgpu.wgmma_wait %62 : tensor<64x64xf32, #linear1> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel_0[%arg7] {tgpu.partition = array<i32: 1>}
      %64 = arith.truncf %63 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear1> to tensor<64x64xbf16, #linear1>
      %65 = arith.mulf %arg6, %cst {tgpu.partition = array<i32: 1>} : tensor<64x512xf32, #linear>
      %66 = tgpu.local_stage %64 {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> <1x64x64xbf16, #shared2>
      %c0_i32_8 = arith.constant {tgpu.partition = array<i32: 1>} 0 : i32
      %67 = tgpu.wgmma %66[%c0_i32_8], %buffers[%59], %65 {tgpu.partition = array<i32: 1>} : !tgpu.smem<1x64x64xbf16, #shared2>, <?x64x512xbf16, #shared>, tensor<64x512xf32, #linear>
      %68 = tgpu.wgmma_wait %67 : tensor<64x512xf32, #linear> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel[%arg7] {tgpu.partition = array<i32: 1>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 1>} 1 : i32
      %69 = arith.addi %arg7, %c1_i32 {tgpu.partition = array<i32: 0, 1>} : i32
      scf.yield %68, %69 : tensor<64x512xf32, #linear>, i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.channel_release %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 1>}
    tile.store %18#0, %arg3[%c0_i32, %c0_i32] : tensor<64x512xf32, #linear>, !tile.tensor<?x512xf32>
    return
  }
  func.func @mla_mini__plain(%arg0: !tile.tensor<?x576xbf16>, %arg1: !tile.tensor<?x?x576xbf16, tma = 1x16x64, swizzle = 128>, %arg2: !tile.tensor<?xi32>, %arg3: !tile.tensor<?x512xf32>, %arg4: i32) attributes {tgpu.persistent, tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant_of = @mla_mini, tile.tma_fallback = array<i32: 1>} {
    %channel, %buffers = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma> : !tgpu.smem<?x64x512xbf16, #shared>
    %0 = tgpu.transpose %buffers : <?x64x512xbf16, #shared> -> <?x512x64xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 8 producer_warps 4 kind <fill = async_copy, release = mma> : !tgpu.smem<?x64x64xbf16, #shared2>
    %1 = tgpu.transpose %buffers_1 : <?x64x64xbf16, #shared2> -> <?x64x64xbf16, #shared3>
    %channel_2, %buffers_3:2 = tgpu.channel consumer_warps 8 producer_warps 4 depth 1 kind <fill = arrive, release = mma> : !tgpu.smem<?x64x512xbf16, #shared>, !tgpu.smem<?x64x64xbf16, #shared2>
    %cst = arith.constant dense<5.000000e-01> : tensor<64x512xf32, #linear>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x512xf32, #linear>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c512_i32 = arith.constant 512 : i32
    %c64_i32 = arith.constant 64 : i32
    %c0_i32_6 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %2 = tgpu.channel_acquire %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 0>}
    tgpu.thread_copy %arg0[%c0_i32, %c0_i32] -> %buffers_3#0[%2] as tensor<64x512xbf16, #linear21> {tgpu.partition = array<i32: 0>} : !tile.tensor<?x576xbf16>, <?x64x512xbf16, #shared>
    tgpu.thread_copy %arg0[%c0_i32, %c512_i32] -> %buffers_3#1[%2] as tensor<64x64xbf16, #linear22> {tgpu.partition = array<i32: 0>} : !tile.tensor<?x576xbf16>, <?x64x64xbf16, #shared2>
    tgpu.channel_fill %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 0>}
    %3 = tile.iota : tensor<64xi32, #linear2>
    %4 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear2>
    %5 = tile.iota : tensor<64xi32, #linear3>
    %6 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear3>
    %7 = tile.iota : tensor<512xi32, #linear4>
    %8 = tile.expand_dims %7 axis 0 : tensor<512xi32, #linear4> -> tensor<1x512xi32, #linear5>
    %9 = tile.broadcast %8 : tensor<1x512xi32, #linear5> -> tensor<64x512xi32, #linear6>
    %10 = tile.iota : tensor<64xi32, #linear7>
    %11 = tile.splat %c64_i32 : i32 -> tensor<64xi32, #linear7>
    %12 = tile.iota : tensor<64xi32, #linear8>
    %13 = tile.splat %c512_i32 : i32 -> tensor<64xi32, #linear8>
    %14 = arith.addi %12, %13 : tensor<64xi32, #linear8>
    %15 = tile.expand_dims %14 axis 0 : tensor<64xi32, #linear8> -> tensor<1x64xi32, #linear9>
    %16 = tile.broadcast %15 : tensor<1x64xi32, #linear9> -> tensor<64x64xi32, #linear10>
    %c0_i32_7 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
    %17 = tgpu.channel_wait %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 1>}
    %18:2 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_4, %arg7 = %c0_i32_7) -> (tensor<64x512xf32, #linear>, i32)  : i32 {
      %19 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %20 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %21 = arith.addi %19, %20 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %22 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %23 = arith.divui %21, %22 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %24 = tile.gather %arg2[%23] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear11> -> tensor<64xi32, #linear11>
      %25 = tile.expand_dims %24 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11> -> tensor<64x1xi32, #linear12>
      %26 = tile.broadcast %25 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear12> -> tensor<64x512xi32, #linear13>
      %27 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %28 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %29 = arith.addi %27, %28 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %30 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear11>
      %31 = arith.remui %29, %30 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11>
      %32 = tile.expand_dims %31 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear11> -> tensor<64x1xi32, #linear12>
      %33 = tile.broadcast %32 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear12> -> tensor<64x512xi32, #linear13>
      %34 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<512xi32, #linear14>
      %35 = tile.expand_dims %34 axis 0 {tgpu.partition = array<i32: 0>} : tensor<512xi32, #linear14> -> tensor<1x512xi32, #linear15>
      %36 = tile.broadcast %35 {tgpu.partition = array<i32: 0>} : tensor<1x512xi32, #linear15> -> tensor<64x512xi32, #linear13>
      %37 = tgpu.channel_acquire %channel[%arg7] {tgpu.partition = array<i32: 0>}
      tgpu.thread_gather %arg1[%26, %33, %36] -> %buffers[%37] boxes %channel : !tgpu.channel as tensor<64x512xbf16, #linear13> {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?x576xbf16, tma = 1x16x64, swizzle = 128>, !tgpu.smem<?x64x512xbf16, #shared>, tensor<64x512xi32, #linear13>, tensor<64x512xi32, #linear13>, tensor<64x512xi32, #linear13>
      tgpu.channel_fill %channel[%arg7] {tgpu.partition = array<i32: 0>}
      %38 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %39 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %40 = arith.addi %38, %39 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %41 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %42 = arith.divui %40, %41 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %43 = tile.gather %arg2[%42] {tgpu.partition = array<i32: 0>} : !tile.tensor<?xi32>, tensor<64xi32, #linear16> -> tensor<64xi32, #linear16>
      %44 = tile.expand_dims %43 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16> -> tensor<64x1xi32, #linear17>
      %45 = tile.broadcast %44 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear17> -> tensor<64x64xi32, #linear18>
      %46 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %47 = tile.splat %arg5 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %48 = arith.addi %46, %47 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %49 = tile.splat %c64_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear16>
      %50 = arith.remui %48, %49 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16>
      %51 = tile.expand_dims %50 axis 1 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear16> -> tensor<64x1xi32, #linear17>
      %52 = tile.broadcast %51 {tgpu.partition = array<i32: 0>} : tensor<64x1xi32, #linear17> -> tensor<64x64xi32, #linear18>
      %53 = tile.iota {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear19>
      %54 = tile.splat %c512_i32 {tgpu.partition = array<i32: 0>} : i32 -> tensor<64xi32, #linear19>
      %55 = arith.addi %53, %54 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear19>
      %56 = tile.expand_dims %55 axis 0 {tgpu.partition = array<i32: 0>} : tensor<64xi32, #linear19> -> tensor<1x64xi32, #linear20>
      %57 = tile.broadcast %56 {tgpu.partition = array<i32: 0>} : tensor<1x64xi32, #linear20> -> tensor<64x64xi32, #linear18>
      %58 = tgpu.channel_acquire %channel_0[%arg7] {tgpu.partition = array<i32: 0>}
      tgpu.thread_gather %arg1[%45, %52, %57] -> %buffers_1[%58] boxes %channel_0 : !tgpu.channel as tensor<64x64xbf16, #linear18> {tgpu.partition = array<i32: 0>} : !tile.tensor<?x?x576xbf16, tma = 1x16x64, swizzle = 128>, !tgpu.smem<?x64x64xbf16, #shared2>, tensor<64x64xi32, #linear18>, tensor<64x64xi32, #linear18>, tensor<64x64xi32, #linear18>
      tgpu.channel_fill %channel_0[%arg7] {tgpu.partition = array<i32: 0>}
      %59 = tgpu.channel_wait %channel[%arg7] {tgpu.partition = array<i32: 1>}
      %60 = tgpu.wgmma %buffers_3#0[%17], %0[%59], %cst_5 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x64x512xbf16, #shared>, <?x512x64xbf16, #shared1>, tensor<64x64xf32, #linear1>
      %61 = tgpu.channel_wait %channel_0[%arg7] {tgpu.partition = array<i32: 1>}
      %62 = tgpu.wgmma %buffers_3#1[%17], %1[%61], %60 {tgpu.partition = array<i32: 1>} : !tgpu.smem<?x64x64xbf16, #shared2>, <?x64x64xbf16, #shared3>, tensor<64x64xf32, #linear1>
      %63 = tgpu.wgmma_wait %62 : tensor<64x64xf32, #linear1> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel_0[%arg7] {tgpu.partition = array<i32: 1>}
      %64 = arith.truncf %63 {tgpu.partition = array<i32: 1>} : tensor<64x64xf32, #linear1> to tensor<64x64xbf16, #linear1>
      %65 = arith.mulf %arg6, %cst {tgpu.partition = array<i32: 1>} : tensor<64x512xf32, #linear>
      %66 = tgpu.local_stage %64 {tgpu.partition = array<i32: 1>} : tensor<64x64xbf16, #linear1> -> <1x64x64xbf16, #shared2>
      %c0_i32_8 = arith.constant {tgpu.partition = array<i32: 1>} 0 : i32
      %67 = tgpu.wgmma %66[%c0_i32_8], %buffers[%59], %65 {tgpu.partition = array<i32: 1>} : !tgpu.smem<1x64x64xbf16, #shared2>, <?x64x512xbf16, #shared>, tensor<64x512xf32, #linear>
      %68 = tgpu.wgmma_wait %67 : tensor<64x512xf32, #linear> {pendings = 0 : i32, tgpu.partition = array<i32: 1>}
      tgpu.channel_release %channel[%arg7] {tgpu.partition = array<i32: 1>}
      %c1_i32 = arith.constant {tgpu.partition = array<i32: 0, 1>} 1 : i32
      %69 = arith.addi %arg7, %c1_i32 {tgpu.partition = array<i32: 0, 1>} : i32
      scf.yield %68, %69 : tensor<64x512xf32, #linear>, i32
    } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
    tgpu.channel_release %channel_2[%c0_i32_6] {tgpu.partition = array<i32: 1>}
    tile.store %18#0, %arg3[%c0_i32, %c0_i32] : tensor<64x512xf32, #linear>, !tile.tensor<?x512xf32>
    return
  }
}


