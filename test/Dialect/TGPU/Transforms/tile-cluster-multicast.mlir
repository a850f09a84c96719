// RUN: tilec-opt %s -split-input-file -tile-cluster-multicast -verify-diagnostics | FileCheck %s
//
// Inputs are tile-warp-specialize's output for kernels with tile.cluster = 2
// (tile-partition-schedule marked them tgpu.persistent).

// B's copies ([k, n0]: n0 from program_id y) are the same for the two
// programs of a cluster along x: they multicast, their channel counts both
// CTAs' consumers, and cluster barriers surround the regions. A's ([m0, k]:
// m0 from program_id x) do not.
// CHECK-LABEL: func.func @gemm_cluster(
// CHECK-SAME: tile.cluster = 2
// CHECK-NEXT: %[[CH:.*]], %{{.*}}:2 = tgpu.channel consumer_warps 8 cluster 2 kind <fill = tma, release = mma>
// CHECK-NEXT: tgpu.cluster_sync
// CHECK-NEXT: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: tgpu.tma_load %arg0[{{.*}}] -> {{.*}}, %[[CH]] :
// CHECK-NEXT: tgpu.tma_load %arg1[{{.*}}] -> {{.*}}, %[[CH]] multicast 2 :
// CHECK: }, {
// CHECK: tgpu.cluster_sync
// CHECK-NEXT: return
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_cluster(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.cluster = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %c256_i32 = arith.constant 256 : i32
      %0 = tile.program_id x
      %1 = tile.program_id y
      %2 = arith.muli %0, %c128_i32 : i32
      %3 = arith.muli %1, %c256_i32 : i32
      %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %c0_i32_0) -> (i32)  : i32 {
        %6 = tgpu.channel_acquire %channel[%arg4]
        tgpu.tma_load %arg0[%2, %arg3] -> %buffers#0[%6], %channel : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x256xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
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
      %c0_i32_0 = arith.constant 0 : i32
      %6 = arith.cmpi slt, %c0_i32, %5 : i32
      %7:2 = scf.if %6 -> (tensor<128x256xf32, #linear>, i32) {
        %9:2 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x256xf32, #linear>, i32)  : i32 {
          %12 = tgpu.channel_wait %channel[%arg5]
          %13 = tgpu.wgmma %buffers#0[%12], %buffers#1[%12], %arg4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x256xbf16, #shared1>, tensor<128x256xf32, #linear>
          tgpu.wgmma_wait {pendings = 1 : i32}
          %c1_i32 = arith.constant 1 : i32
          %14 = arith.cmpi ugt, %arg5, %c0_i32_0 : i32
          scf.if %14 {
            %c1_i32_1 = arith.constant 1 : i32
            %16 = arith.subi %arg5, %c1_i32_1 : i32
            tgpu.channel_release %channel[%16]
          }
          %15 = arith.addi %arg5, %c1_i32 : i32
          scf.yield %13, %15 : tensor<128x256xf32, #linear>, i32
        }
        %10 = tgpu.wgmma_wait %9#0 : tensor<128x256xf32, #linear> {pendings = 0 : i32}
        %11 = arith.cmpi ugt, %9#1, %c0_i32_0 : i32
        scf.if %11 {
          %c1_i32 = arith.constant 1 : i32
          %12 = arith.subi %9#1, %c1_i32 : i32
          tgpu.channel_release %channel[%12]
        }
        scf.yield %10, %9#1 : tensor<128x256xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_0 : tensor<128x256xf32, #linear>, i32
      }
      %8 = arith.truncf %7#0 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
      tgpu.tma_store %8, %arg2[%3, %4] via %0 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}

// -----

// fp8 with Bᵀ: B's slot is one 128-byte box wide, which two CTAs cannot
// split: no cluster.
// CHECK-LABEL: func.func @gemm_fp8_cluster(
// CHECK-NOT: tile.cluster
// CHECK-NOT: cluster_sync
// CHECK-NOT: multicast
// CHECK: return
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0], [128, 0]], lane = [[0, 16], [0, 32], [0, 64], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear3 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32], [0, 64], [0, 128]], lane = [[16, 0], [32, 0], [64, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8], [0, 16]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [0, 64]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear6 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]]>
#shared2 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_fp8_cluster(%arg0: !tile.tensor<?x?xf8E4M3FN, tma = 128x128, swizzle = 128>, %arg1: !tile.tensor<?x?xf8E4M3FN, tma = 256x128, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.cluster = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x128xf8E4M3FN, #shared>, !tgpu.smem<?x256x128xf8E4M3FN, #shared1>
    %0 = tgpu.transpose %buffers#1 : <?x256x128xf8E4M3FN, #shared1> -> <?x128x256xf8E4M3FN, #shared2>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
      %c0_i32 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %c256_i32 = arith.constant 256 : i32
      %1 = tile.program_id x
      %2 = tile.program_id y
      %3 = arith.muli %1, %c128_i32 : i32
      %4 = arith.muli %2, %c256_i32 : i32
      %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xf8E4M3FN, tma = 128x128, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      // expected-remark @+1 {{cluster of 2 not used: a slot the cluster shares is not a multiple of 2 TMA boxes}}
      %6 = scf.for %arg3 = %c0_i32 to %5 step %c128_i32 iter_args(%arg4 = %c0_i32_0) -> (i32)  : i32 {
        %7 = tgpu.channel_acquire %channel[%arg4]
        tgpu.tma_load %arg0[%3, %arg3] -> %buffers#0[%7], %channel : <?x?xf8E4M3FN, tma = 128x128, swizzle = 128>, <?x128x128xf8E4M3FN, #shared>, !tgpu.channel
        tgpu.tma_load %arg1[%4, %arg3] -> %buffers#1[%7], %channel : <?x?xf8E4M3FN, tma = 256x128, swizzle = 128>, <?x256x128xf8E4M3FN, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %8 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %8 : i32
      }
    }, {
      %1 = tgpu.alloc : <2x128x64xbf16, #shared3>
      %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
      %c0_i32 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %c256_i32 = arith.constant 256 : i32
      %2 = tile.program_id x
      %3 = tile.program_id y
      %4 = arith.muli %2, %c128_i32 : i32
      %5 = arith.muli %3, %c256_i32 : i32
      %6 = tile.dim %arg0, 1 : !tile.tensor<?x?xf8E4M3FN, tma = 128x128, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      %7 = arith.cmpi slt, %c0_i32, %6 : i32
      %8:2 = scf.if %7 -> (tensor<128x256xf32, #linear>, i32) {
        %10:2 = scf.for %arg3 = %c0_i32 to %6 step %c128_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x256xf32, #linear>, i32)  : i32 {
          %13 = tgpu.channel_wait %channel[%arg5]
          %14 = tgpu.wgmma %buffers#0[%13], %0[%13], %arg4 : !tgpu.smem<?x128x128xf8E4M3FN, #shared>, <?x128x256xf8E4M3FN, #shared2>, tensor<128x256xf32, #linear>
          tgpu.wgmma_wait {pendings = 1 : i32}
          %c1_i32 = arith.constant 1 : i32
          %15 = arith.cmpi ugt, %arg5, %c0_i32_0 : i32
          scf.if %15 {
            %c1_i32_1 = arith.constant 1 : i32
            %17 = arith.subi %arg5, %c1_i32_1 : i32
            tgpu.channel_release %channel[%17]
          }
          %16 = arith.addi %arg5, %c1_i32 : i32
          scf.yield %14, %16 : tensor<128x256xf32, #linear>, i32
        }
        %11 = tgpu.wgmma_wait %10#0 : tensor<128x256xf32, #linear> {pendings = 0 : i32}
        %12 = arith.cmpi ugt, %10#1, %c0_i32_0 : i32
        scf.if %12 {
          %c1_i32 = arith.constant 1 : i32
          %13 = arith.subi %10#1, %c1_i32 : i32
          tgpu.channel_release %channel[%13]
        }
        scf.yield %11, %10#1 : tensor<128x256xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_0 : tensor<128x256xf32, #linear>, i32
      }
      %9 = arith.truncf %8#0 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
      tgpu.tma_store %9, %arg2[%4, %5] via %1 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared3>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}

// -----

// Without the persistent tile loop, programs of a cluster would not walk
// tiles together.
// CHECK-LABEL: func.func @not_persistent(
// CHECK-NOT: tile.cluster
// CHECK-NOT: cluster_sync
// CHECK: return
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @not_persistent(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tile.cluster = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %c256_i32 = arith.constant 256 : i32
      %0 = tile.program_id x
      %1 = tile.program_id y
      %2 = arith.muli %0, %c128_i32 : i32
      %3 = arith.muli %1, %c256_i32 : i32
      %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      // expected-remark @+1 {{cluster of 2 not used: it needs the persistent tile loop}}
      %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %c0_i32_0) -> (i32)  : i32 {
        %6 = tgpu.channel_acquire %channel[%arg4]
        tgpu.tma_load %arg0[%2, %arg3] -> %buffers#0[%6], %channel : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x256xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
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
      %c0_i32_0 = arith.constant 0 : i32
      %6 = arith.cmpi slt, %c0_i32, %5 : i32
      %7:2 = scf.if %6 -> (tensor<128x256xf32, #linear>, i32) {
        %9:2 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x256xf32, #linear>, i32)  : i32 {
          %12 = tgpu.channel_wait %channel[%arg5]
          %13 = tgpu.wgmma %buffers#0[%12], %buffers#1[%12], %arg4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x256xbf16, #shared1>, tensor<128x256xf32, #linear>
          tgpu.wgmma_wait {pendings = 1 : i32}
          %c1_i32 = arith.constant 1 : i32
          %14 = arith.cmpi ugt, %arg5, %c0_i32_0 : i32
          scf.if %14 {
            %c1_i32_1 = arith.constant 1 : i32
            %16 = arith.subi %arg5, %c1_i32_1 : i32
            tgpu.channel_release %channel[%16]
          }
          %15 = arith.addi %arg5, %c1_i32 : i32
          scf.yield %13, %15 : tensor<128x256xf32, #linear>, i32
        }
        %10 = tgpu.wgmma_wait %9#0 : tensor<128x256xf32, #linear> {pendings = 0 : i32}
        %11 = arith.cmpi ugt, %9#1, %c0_i32_0 : i32
        scf.if %11 {
          %c1_i32 = arith.constant 1 : i32
          %12 = arith.subi %9#1, %c1_i32 : i32
          tgpu.channel_release %channel[%12]
        }
        scf.yield %10, %9#1 : tensor<128x256xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_0 : tensor<128x256xf32, #linear>, i32
      }
      %8 = arith.truncf %7#0 : tensor<128x256xf32, #linear> to tensor<128x256xbf16, #linear>
      tgpu.tma_store %8, %arg2[%3, %4] via %0 : tensor<128x256xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}

// -----

// No warp-specialized regions (a loop that was not specialized, or a
// target without wgmma): no cluster.
// CHECK-LABEL: func.func @no_regions(
// CHECK-NOT: tile.cluster
// expected-remark @+1 {{tile.cluster ignored: clusters need the warp-specialized TMA main loop (sm_90a)}}
func.func @no_regions() attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.cluster = 2 : i64} {
  return
}

// -----

// A CTA pair's GEMM (tgpu.cta_group = 2): nothing multicasts (each CTA
// copies its A and its half of B); the MMA thread's channels, the
// operands' and the accumulators', join the pair; cluster barriers
// surround the regions as for any cluster.
// CHECK-LABEL: func.func @gemm_pair(
// CHECK-NEXT: %[[CH:.*]], %{{.*}}:2 = tgpu.channel consumer_warps 1 pair kind <fill = tma, release = mma>
// CHECK-NEXT: tgpu.channel consumer_warps 4 pair depth 2 kind <fill = mma, release = arrive>
// CHECK-NEXT: tgpu.cluster_sync
// CHECK-NEXT: tgpu.warp_specialize
// CHECK-NOT: multicast
// CHECK: tgpu.tma_load %arg0[{{.*}}] -> {{.*}}, %[[CH]] :
// CHECK: tgpu.tma_load %arg1[{{.*}}] -> {{.*}}, %[[CH]] :
// CHECK-NOT: multicast
// CHECK: tgpu.cluster_sync
// CHECK-NEXT: return
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 8]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_pair(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.cta_group = 2 : i32, tgpu.persistent, tile.cluster = 2 : i64, tile.cta_group = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64, tile.plain_variant = @gemm_pair__plain} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x64xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    tgpu.warp_specialize [#tgpu.partition<compute, warps = 4, regs = 240>, #tgpu.partition<load, warps = 1, regs = 96>, #tgpu.partition<mma, warps = 1, regs = 96>] {
      %0 = tgpu.alloc : <2x128x64xbf16, #shared>
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %1 = tile.program_id x
      %2 = tile.program_id y
      %3 = arith.muli %1, %c128_i32 : i32
      %4 = arith.muli %2, %c128_i32 : i32
      %5 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_2 = arith.constant 0 : i32
      %6 = tgpu.channel_wait %channel_0[%c0_i32_2]
      tgpu.tcgen05_fence after_thread_sync
      %7 = tgpu.tmem_load %buffers_1[%6] : <?x128x128xf32> -> tensor<128x128xf32, #linear>
      %8 = tgpu.tmem_wait load %7 : tensor<128x128xf32, #linear>
      tgpu.tcgen05_fence before_thread_sync
      tgpu.channel_release %channel_0[%c0_i32_2]
      %9 = arith.cmpi slt, %c0_i32, %5 : i32
      %10 = scf.if %9 -> (tensor<128x128xf32, #linear>) {
        scf.yield %8 : tensor<128x128xf32, #linear>
      } else {
        scf.yield %cst : tensor<128x128xf32, #linear>
      }
      %11 = arith.truncf %10 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
      tgpu.tma_store %11, %arg2[%3, %4] via %0 : tensor<128x128xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %0 = tile.program_id x
      %1 = tile.program_id y
      %2 = arith.muli %0, %c128_i32 : i32
      %3 = arith.muli %1, %c128_i32 : i32
      %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_2 = arith.constant 0 : i32
      %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %c0_i32_2) -> (i32)  : i32 {
        %6 = tgpu.channel_acquire %channel[%arg4]
        tgpu.tma_load %arg0[%2, %arg3] -> %buffers#0[%6], %channel : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
        %7 = tgpu.cluster_rank : i32
        %c64_i32_3 = arith.constant 64 : i32
        %8 = arith.muli %7, %c64_i32_3 : i32
        %9 = arith.addi %3, %8 : i32
        tgpu.tma_load %arg1[%arg3, %9] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %10 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %10 : i32
      }
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_2 = arith.constant 0 : i32
      %c0_i32_3 = arith.constant 0 : i32
      %1 = tgpu.channel_acquire %channel_0[%c0_i32_3]
      tgpu.tcgen05_fence after_thread_sync
      %2 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %c0_i32_2) -> (i32)  : i32 {
        %3 = tgpu.channel_wait %channel[%arg4]
        %4 = arith.cmpi ugt, %arg4, %c0_i32_2 : i32
        tgpu.tcgen05_mma %buffers#0[%3], %buffers#1[%3], %buffers_1[%1], %4 cta_group 2 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x64xbf16, #shared1>, <?x128x128xf32>
        tgpu.channel_release %channel[%arg4]
        %c1_i32 = arith.constant 1 : i32
        %5 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %5 : i32
      }
      tgpu.channel_fill %channel_0[%c0_i32_3]
    }
    return
  }
}
