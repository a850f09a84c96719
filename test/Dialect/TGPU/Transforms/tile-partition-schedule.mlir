// RUN: tilec-opt %s -split-input-file -tile-partition-schedule | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-partition-schedule -verify-diagnostics -o /dev/null
//
// Inputs carry what the pass needs: tile-select-mma-and-tma's decisions
// (tgpu.tma on loads, tgpu.mma on dots), on IR with layouts.

// A GEMM main loop: the TMA copies are the load partition's, the
// conversions feeding the MMA and the MMA the compute partition's.
// CHECK-LABEL: func.func @gemm
// CHECK: scf.for
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: tile.dot {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// Ops are placed by what they are, not by the loop's shape: math on the
// accumulator goes to the compute partition, and scalar code both sides
// use (the next k, an index of A's copy and a factor of the math) to both.
// CHECK-LABEL: func.func @shared_index
// CHECK: scf.for
// CHECK-NEXT: arith.addi {{.*}} {tgpu.partition = array<i32: 0, 1>}
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK: tile.dot {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: arith.sitofp {{.*}} {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.splat {{.*}} {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: arith.mulf {{.*}} {tgpu.partition = array<i32: 1>}
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @shared_index(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = arith.addi %arg3, %c64_i32 : i32
      %4 = tile.load %arg0[%c0_i32, %3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %5 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %6 = tile.convert_layout %4 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %7 = tile.convert_layout %5 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %8 = tile.dot %6, %7, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      %9 = arith.sitofp %3 : i32 to f32
      %10 = tile.splat %9 : f32 -> tensor<128x256xf32, #linear>
      %11 = arith.mulf %8, %10 : tensor<128x256xf32, #linear>
      scf.yield %11 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A loop whose dot runs on mma.sync (B is padded with 1.0, so no TMA) is
// not partitioned.
// CHECK-LABEL: func.func @padded
// CHECK-NOT: tgpu.partition
// CHECK: return
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @padded(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {padding = 1.000000e+00 : bf16} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A loop whose compute partition accesses memory is not scheduled (yet):
// a remark, no partitions, and its dot runs on mma.sync.
// CHECK-LABEL: func.func @stores_in_loop
// CHECK-NOT: tgpu.partition
// CHECK: tile.dot {{.*}}#tgpu.mma<mma_sync, a = regs, b = regs>
// CHECK-NOT: tgpu.partition
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @stores_in_loop(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{not warp-specialized (TMA and wgmma not used): the compute partition accesses memory ('tile.store')}}
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      tile.store %3, %arg0[%c0_i32, %arg3] : tensor<128x64xbf16, #linear1>, !tile.tensor<?x?xbf16>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }  // A kernel that asks for launch control but gets no persistent tile
  // loop is told so.
  // expected-remark @+1 {{launch control not used: the kernel does not walk its tiles persistently}}
  func.func @stores_in_loop_launch_control(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.tile_scheduler = #tile.tile_scheduler<launch_control>, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{not warp-specialized (TMA and wgmma not used): the compute partition accesses memory ('tile.store')}}
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      tile.store %3, %arg0[%c0_i32, %arg3] : tensor<128x64xbf16, #linear1>, !tile.tensor<?x?xbf16>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A copied tile that math reads too would have to reach both partitions.
// CHECK-LABEL: func.func @operand_other_user
// CHECK-NOT: tgpu.partition
// CHECK: tile.dot {{.*}}#tgpu.mma<mma_sync, a = regs, b = regs>
// CHECK-NOT: tgpu.partition
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @operand_other_user(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{not warp-specialized (TMA and wgmma not used): a loaded dot operand has other users}}
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %x = arith.extf %3 : tensor<128x64xbf16, #linear1> to tensor<128x64xf32, #linear1>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A kernel whose grid allows it walks its tiles persistently; asking for
// the ping-pong schedule with one warpgroup a copy gets a compute partition
// of two copies.
// CHECK-LABEL: func.func @pingpong
// CHECK-SAME: tgpu.persistent
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute, copies = 2>]}

#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @pingpong(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.schedule = #tile.schedule<pingpong>} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// Ping-pong copies are one warpgroup each: with 8 warps, the cooperative
// schedule (still persistent).
// CHECK-LABEL: func.func @pingpong_8_warps
// CHECK-SAME: tgpu.persistent
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}

#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @pingpong_8_warps(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.schedule = #tile.schedule<pingpong>} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{ping-pong schedule not used (cooperative instead): each consumer copy is one warpgroup: tile.num_warps must be 4}}
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// A kernel that reads num_programs cannot walk its tiles persistently (its
// programs would see the persistent grid's), so neither can it ping-pong.
// CHECK-LABEL: func.func @reads_num_programs
// CHECK-NOT: tgpu.persistent
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}

#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @reads_num_programs(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.schedule = #tile.schedule<pingpong>} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %np = tile.num_programs x
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{ping-pong schedule not used (cooperative instead): it needs the persistent tile loop}}
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// Profiled scopes (left in a profiled build) run where the ops they
// enclose run: a scope around the whole step in both partitions, one around
// a copy in the load partition (with the scalar code of its argument), one
// around the MMA or around nothing in the compute partition. None of them
// stops the loop from being warp-specialized.
// CHECK-LABEL: func.func @gemm_scopes
// CHECK: scf.for
// CHECK-NEXT: tile.profile_begin "step"({{.*}}) {tgpu.partition = array<i32: 0, 1>}
// CHECK-NEXT: arith.addi {{.*}} {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tile.profile_begin "copy_a"({{.*}}) {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.profile_end "copy_a" {tgpu.partition = array<i32: 0>}
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: tile.profile_begin "mark" {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.profile_end "mark" {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.profile_begin "mma" {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.dot {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: tile.profile_end "mma" {tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.profile_end "step" {tgpu.partition = array<i32: 0, 1>}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_scopes(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      tile.profile_begin "step"(%arg3)
      %k1 = arith.addi %arg3, %c64_i32 : i32
      tile.profile_begin "copy_a"(%k1)
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      tile.profile_end "copy_a"
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      tile.profile_begin "mark"
      tile.profile_end "mark"
      tile.profile_begin "mma"
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      tile.profile_end "mma"
      tile.profile_end "step"
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// sm_100a: a GEMM main loop whose dot runs on tcgen05 gets a third
// partition, the MMA partition (2): the dot and the conversions that only
// feed it are its; the copies stay the load partition's, and the
// loop-carried accumulator's users after the loop are the compute
// partition's (the epilogue).
// CHECK-LABEL: func.func @gemm_tcgen05
// CHECK: scf.for
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.load {{.*}}tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 2>
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 2>
// CHECK-NEXT: tile.dot {{.*}}tgpu.partition = array<i32: 2>
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}
#acc = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #acc>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #acc>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #acc>
      scf.yield %7 : tensor<128x256xf32, #acc>
    }
    tile.store %1, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #acc>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// sm_100a: a dot the loop leaves on mma.sync is not scheduled (and says so).
#l = #tile.linear<register = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#la = #tile.linear<register = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#lb = #tile.linear<register = [[1, 0], [8, 0], [0, 8]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  // CHECK-LABEL: func.func @mixed
  // CHECK-NOT: tgpu.partitions
  func.func @mixed(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x16xf32, #l>
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %n = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{not warp-specialized (TMA and tcgen05 not used): a dot of the loop runs on mma.sync}}
    %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %cst) -> (tensor<64x16xf32, #l>) : i32 {
      %x = tile.load %a[%c0, %k] {tgpu.tma = #tgpu.tma_copy<box = [64, 16], swizzle = 32>} : !tile.tensor<?x?xbf16> -> tensor<64x16xbf16, #la>
      %y = tile.load %b[%k, %c0] {tgpu.tma = #tgpu.tma_copy<box = [16, 16], swizzle = 32>} : !tile.tensor<?x?xbf16> -> tensor<16x16xbf16, #lb>
      %d0 = tile.dot %x, %y, %acc {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>} : tensor<64x16xbf16, #la>, tensor<16x16xbf16, #lb> -> tensor<64x16xf32, #l>
      %d = tile.dot %x, %y, %d0 {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>} : tensor<64x16xbf16, #la>, tensor<16x16xbf16, #lb> -> tensor<64x16xf32, #l>
      scf.yield %d : tensor<64x16xf32, #l>
    }
    return
  }
}

// -----

// sm_100a attention: both tcgen05 MMAs (S = Q·Kᵀ, O = P·V with P from
// tensor memory) and the conversions of the operands they read from
// shared memory go to the MMA partition (2); the softmax, P (which the
// compute partition writes into tensor memory) and the rescale of O stay
// in the compute partition (1); the copies of Q, K and V are the load
// partition's (0).
// CHECK-LABEL: func.func @attention_tcgen05
// CHECK: tile.load %arg0{{.*}}{tgpu.partition = array<i32: 0>
// CHECK: scf.for
// CHECK: tile.load %arg1{{.*}}{tgpu.partition = array<i32: 0>
// CHECK-NEXT: tile.transpose {{.*}}{tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tile.dot {{.*}}tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>, tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tile.reduce max {{.*}}{tgpu.partition = array<i32: 1>}
// CHECK: arith.mulf %{{.*}}, %{{.*}} {tgpu.partition = array<i32: 1>} : tensor<128x64xf32
// CHECK-NEXT: tile.load %arg2{{.*}}{tgpu.partition = array<i32: 0>
// CHECK-NEXT: arith.truncf {{.*}}{tgpu.partition = array<i32: 1>}
// CHECK-NEXT: tile.convert_layout {{.*}}tgpu.partition = array<i32: 2>}
// CHECK-NEXT: tile.dot {{.*}}tgpu.mma = #tgpu.mma<tcgen05, a = tmem, b = smem>, tgpu.partition = array<i32: 2>}
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]}

#linear = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @attention_tcgen05(%arg0: !tile.tensor<?x64xbf16>, %arg1: !tile.tensor<?x64xbf16>, %arg2: !tile.tensor<?x64xbf16>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16>
    %3 = tile.load %arg0[%1, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<128x64xbf16, #linear2>
    %4 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear2> -> tensor<128x64xbf16, #linear3>
    %5:2 = scf.for %arg4 = %c0_i32 to %2 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %cst_0) -> (tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>)  : i32 {
      %6 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %7 = tile.transpose %6 [1, 0] : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear5>
      %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %9 = tile.dot %4, %8, %cst_0 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      %10 = tile.reduce  max %9 dim 1 : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
      %11 = arith.maximumf %arg5, %10 : tensor<128xf32, #linear>
      %12 = tile.expand_dims %11 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %13 = tile.broadcast %12 : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %14 = arith.subf %9, %13 : tensor<128x64xf32, #linear1>
      %15 = math.exp2 %14 : tensor<128x64xf32, #linear1>
      %16 = arith.subf %arg5, %11 : tensor<128xf32, #linear>
      %17 = math.exp2 %16 : tensor<128xf32, #linear>
      %18 = tile.expand_dims %17 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear7>
      %19 = tile.broadcast %18 : tensor<128x1xf32, #linear7> -> tensor<128x64xf32, #linear1>
      %20 = arith.mulf %arg6, %19 : tensor<128x64xf32, #linear1>
      %21 = tile.load %arg2[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x64xbf16> -> tensor<64x64xbf16, #linear4>
      %22 = arith.truncf %15 : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
      %23 = tile.convert_layout %21 {shared = #shared2} : tensor<64x64xbf16, #linear4> -> tensor<64x64xbf16, #linear6>
      %24 = tile.dot %22, %23, %20 {tgpu.mma = #tgpu.mma<tcgen05, a = tmem, b = smem>} : tensor<128x64xbf16, #linear1>, tensor<64x64xbf16, #linear6> -> tensor<128x64xf32, #linear1>
      scf.yield %11, %24 : tensor<128xf32, #linear>, tensor<128x64xf32, #linear1>
    }
    tile.store %5#1, %arg3[%1, %c0_i32] : tensor<128x64xf32, #linear1>, !tile.tensor<?x64xf32>
    return
  }
}

// -----

// sm_100a, tile.cta_group = 2 on a cluster of two: the kernel's MMAs run
// over the CTA pair (tgpu.cta_group = 2, beside tgpu.persistent); where
// the pair cannot run, a remark says why and the kernel keeps one CTA a
// tile.
// CHECK-LABEL: func.func @gemm_pair(
// CHECK-SAME: tgpu.cta_group = 2 : i32
// CHECK-SAME: tgpu.persistent
// CHECK: tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>, #tgpu.partition<mma>]
// CHECK-LABEL: func.func @gemm_pair_no_cluster(
// CHECK-NOT: tgpu.cta_group
// CHECK-SAME: tgpu.persistent
// CHECK-LABEL: func.func @gemm_pair_b_along_x(
// CHECK-NOT: tgpu.cta_group
// CHECK-SAME: tgpu.persistent
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 8]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_pair(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16>) attributes {tile.cluster = 2 : i64, tile.cta_group = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%2, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.load %arg1[%arg3, %3] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.convert_layout %8 {shared = #shared1} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %11 = tile.dot %9, %10, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %11 : tensor<128x128xf32, #linear>
    }
    %6 = arith.truncf %5 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
    tile.store %6, %arg2[%2, %3] : tensor<128x128xbf16, #linear>, !tile.tensor<?x?xbf16>
    return
  }
  // Without a cluster of two there is no pair.
  func.func @gemm_pair_no_cluster(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16>) attributes {tile.cta_group = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{CTA pair (cta_group 2) not used: it runs on a cluster of two (tile.cluster = 2)}}
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%2, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.load %arg1[%arg3, %3] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.convert_layout %8 {shared = #shared1} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %11 = tile.dot %9, %10, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %11 : tensor<128x128xf32, #linear>
    }
    %6 = arith.truncf %5 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
    tile.store %6, %arg2[%2, %3] : tensor<128x128xbf16, #linear>, !tile.tensor<?x?xbf16>
    return
  }
  // B read at rows that depend on program_id x differs between the CTAs.
  func.func @gemm_pair_b_along_x(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xbf16>) attributes {tile.cluster = 2 : i64, tile.cta_group = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = arith.muli %1, %c128_i32 : i32
    %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    // expected-remark @+1 {{CTA pair (cta_group 2) not used: B must be the same for both CTAs of the pair}}
    %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %7 = tile.load %arg0[%2, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %8 = tile.load %arg1[%arg3, %2] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear2>
      %9 = tile.convert_layout %7 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %10 = tile.convert_layout %8 {shared = #shared1} : tensor<64x128xbf16, #linear2> -> tensor<64x128xbf16, #linear4>
      %11 = tile.dot %9, %10, %arg4 {tgpu.mma = #tgpu.mma<tcgen05, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x128xbf16, #linear4> -> tensor<128x128xf32, #linear>
      scf.yield %11 : tensor<128x128xf32, #linear>
    }
    %6 = arith.truncf %5 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
    tile.store %6, %arg2[%2, %3] : tensor<128x128xbf16, #linear>, !tile.tensor<?x?xbf16>
    return
  }
}

// -----

// A reduction into a view the loop does not load (attention backward's
// dQ += dS K) is the compute partition's; the loop is scheduled.
// CHECK-LABEL: func.func @reduce_in_loop
// CHECK: scf.for
// CHECK: tile.dot {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: tile.atomic_rmw {{.*}}tgpu.partition = array<i32: 1>
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#linear2 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @reduce_in_loop(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<64xi32, #linear1>
    %2 = tile.expand_dims %1 axis 1 : tensor<64xi32, #linear1> -> tensor<64x1xi32, #linear2>
    %3 = tile.broadcast %2 : tensor<64x1xi32, #linear2> -> tensor<64x64xi32, #linear>
    %4 = tile.iota : tensor<64xi32, #linear3>
    %5 = tile.expand_dims %4 axis 0 : tensor<64xi32, #linear3> -> tensor<1x64xi32, #linear4>
    %6 = tile.broadcast %5 : tensor<1x64xi32, #linear4> -> tensor<64x64xi32, #linear>
    %7 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %9 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %10 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %11 = tile.convert_layout %9 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %12 = tile.convert_layout %10 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %13 = tile.dot %11, %12, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear6> -> tensor<64x64xf32, #linear>
      %14 = tile.atomic_rmw  add %13, %arg2[%3, %6] sem  relaxed : tensor<64x64xf32, #linear>, !tile.tensor<?x?xf32>, tensor<64x64xi32, #linear>, tensor<64x64xi32, #linear>
      %15 = arith.addf %arg5, %13 : tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    tile.store %8, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear7>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// So is one in a branch of the loop (made only on some steps): the
// branch is the compute partition's, the loop is scheduled.
// CHECK-LABEL: func.func @reduce_in_branch
// CHECK: scf.for
// CHECK: tile.dot {{.*}}tgpu.partition = array<i32: 1>
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.atomic_rmw
// CHECK: } {tgpu.partition = array<i32: 1>}
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#linear2 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @reduce_in_branch(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>, %on: i1) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<64xi32, #linear1>
    %2 = tile.expand_dims %1 axis 1 : tensor<64xi32, #linear1> -> tensor<64x1xi32, #linear2>
    %3 = tile.broadcast %2 : tensor<64x1xi32, #linear2> -> tensor<64x64xi32, #linear>
    %4 = tile.iota : tensor<64xi32, #linear3>
    %5 = tile.expand_dims %4 axis 0 : tensor<64xi32, #linear3> -> tensor<1x64xi32, #linear4>
    %6 = tile.broadcast %5 : tensor<1x64xi32, #linear4> -> tensor<64x64xi32, #linear>
    %7 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %9 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %10 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %11 = tile.convert_layout %9 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %12 = tile.convert_layout %10 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %13 = tile.dot %11, %12, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear6> -> tensor<64x64xf32, #linear>
      scf.if %on {
        %14 = tile.atomic_rmw  add %13, %arg2[%3, %6] sem  relaxed : tensor<64x64xf32, #linear>, !tile.tensor<?x?xf32>, tensor<64x64xi32, #linear>, tensor<64x64xi32, #linear>
      }
      %15 = arith.addf %arg5, %13 : tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    tile.store %8, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear7>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// An atomic whose old values the loop reads (a counter, a semaphore: no
// producer could issue it in its place) is the compute partition's, which
// waits for it; the loop is scheduled.
// CHECK-LABEL: func.func @reduce_used
// CHECK: tile.atomic_rmw {{.*}}tgpu.partition = array<i32: 1>
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#linear2 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @reduce_used(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<64xi32, #linear1>
    %2 = tile.expand_dims %1 axis 1 : tensor<64xi32, #linear1> -> tensor<64x1xi32, #linear2>
    %3 = tile.broadcast %2 : tensor<64x1xi32, #linear2> -> tensor<64x64xi32, #linear>
    %4 = tile.iota : tensor<64xi32, #linear3>
    %5 = tile.expand_dims %4 axis 0 : tensor<64xi32, #linear3> -> tensor<1x64xi32, #linear4>
    %6 = tile.broadcast %5 : tensor<1x64xi32, #linear4> -> tensor<64x64xi32, #linear>
    %7 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %9 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %10 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %11 = tile.convert_layout %9 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %12 = tile.convert_layout %10 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %13 = tile.dot %11, %12, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear6> -> tensor<64x64xf32, #linear>
      %14 = tile.atomic_rmw  add %13, %arg2[%3, %6] sem  relaxed : tensor<64x64xf32, #linear>, !tile.tensor<?x?xf32>, tensor<64x64xi32, #linear>, tensor<64x64xi32, #linear>
      %15 = arith.addf %arg5, %14 : tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    tile.store %8, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear7>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// But not where the kernel also writes a view the loop loads: another
// program may publish it behind the counter, and the load partition would
// read it ahead of the compute partition's acquire. Not scheduled.
// CHECK-LABEL: func.func @reduce_used_publishes
// CHECK-NOT: tgpu.partitions
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#linear2 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @reduce_used_publishes(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<64xi32, #linear1>
    %2 = tile.expand_dims %1 axis 1 : tensor<64xi32, #linear1> -> tensor<64x1xi32, #linear2>
    %3 = tile.broadcast %2 : tensor<64x1xi32, #linear2> -> tensor<64x64xi32, #linear>
    %4 = tile.iota : tensor<64xi32, #linear3>
    %5 = tile.expand_dims %4 axis 0 : tensor<64xi32, #linear3> -> tensor<1x64xi32, #linear4>
    %6 = tile.broadcast %5 : tensor<1x64xi32, #linear4> -> tensor<64x64xi32, #linear>
    // expected-remark @+1 {{not warp-specialized (TMA and wgmma not used): the compute partition accesses memory ('tile.atomic_rmw')}}
    %7 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %9 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %10 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %11 = tile.convert_layout %9 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %12 = tile.convert_layout %10 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %13 = tile.dot %11, %12, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear6> -> tensor<64x64xf32, #linear>
      %14 = tile.atomic_rmw  add %13, %arg2[%3, %6] sem  relaxed : tensor<64x64xf32, #linear>, !tile.tensor<?x?xf32>, tensor<64x64xi32, #linear>, tensor<64x64xi32, #linear>
      %15 = arith.addf %arg5, %14 : tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    tile.store %8, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear7>, !tile.tensor<?x?xf32>
    %p = tile.convert_layout %cst : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    %pb = arith.truncf %p : tensor<64x64xf32, #linear7> to tensor<64x64xbf16, #linear7>
    tile.store %pb, %arg1[%c0_i32, %c0_i32] : tensor<64x64xbf16, #linear7>, !tile.tensor<?x?xbf16>
    return
  }
}


// -----

// A reduction into a view the loop loads from: the load partition could
// read it ahead of the compute partition's adds. Not scheduled.
// CHECK-LABEL: func.func @reduce_loaded
// CHECK-NOT: tgpu.partitions
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#linear2 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @reduce_loaded(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<64xi32, #linear1>
    %2 = tile.expand_dims %1 axis 1 : tensor<64xi32, #linear1> -> tensor<64x1xi32, #linear2>
    %3 = tile.broadcast %2 : tensor<64x1xi32, #linear2> -> tensor<64x64xi32, #linear>
    %4 = tile.iota : tensor<64xi32, #linear3>
    %5 = tile.expand_dims %4 axis 0 : tensor<64xi32, #linear3> -> tensor<1x64xi32, #linear4>
    %6 = tile.broadcast %5 : tensor<1x64xi32, #linear4> -> tensor<64x64xi32, #linear>
    // expected-remark @+1 {{not warp-specialized (TMA and wgmma not used): the compute partition accesses memory ('tile.atomic_rmw')}}
    %7 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %9 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %10 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %11 = tile.convert_layout %9 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %12 = tile.convert_layout %10 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %13 = tile.dot %11, %12, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear6> -> tensor<64x64xf32, #linear>
      %14 = tile.atomic_rmw  add %13, %arg2[%3, %6] sem  relaxed : tensor<64x64xf32, #linear>, !tile.tensor<?x?xf32>, tensor<64x64xi32, #linear>, tensor<64x64xi32, #linear>
      %16 = tile.load %arg2[%c0_i32, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 0>} : !tile.tensor<?x?xf32> -> tensor<64x64xf32, #linear>
      %15 = arith.addf %arg5, %16 : tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    tile.store %8, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear7>, !tile.tensor<?x?xf32>
    return
  }
}


// -----

// A reducing store into a view the loop does not load is the compute
// partition's too.
// CHECK-LABEL: func.func @reduce_store_in_loop
// CHECK: tile.store {{.*}} reduce add {tgpu.partition = array<i32: 1>}
// CHECK: } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[8]], lane = [[0], [0], [1], [2], [4]], warp = [[16], [32]]>
#linear2 = #tile.linear<register = [[8, 0]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear3 = #tile.linear<register = [[1], [8], [16], [32]], lane = [[2], [4], [0], [0], [0]], warp = [[0], [0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @reduce_store_in_loop(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>, %arg3: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = tile.iota : tensor<64xi32, #linear1>
    %2 = tile.expand_dims %1 axis 1 : tensor<64xi32, #linear1> -> tensor<64x1xi32, #linear2>
    %3 = tile.broadcast %2 : tensor<64x1xi32, #linear2> -> tensor<64x64xi32, #linear>
    %4 = tile.iota : tensor<64xi32, #linear3>
    %5 = tile.expand_dims %4 axis 0 : tensor<64xi32, #linear3> -> tensor<1x64xi32, #linear4>
    %6 = tile.broadcast %5 : tensor<1x64xi32, #linear4> -> tensor<64x64xi32, #linear>
    %7 = scf.for %arg4 = %c0_i32 to %0 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %9 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %10 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear5>
      %11 = tile.convert_layout %9 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear>
      %12 = tile.convert_layout %10 {shared = #shared} : tensor<64x64xbf16, #linear5> -> tensor<64x64xbf16, #linear6>
      %13 = tile.dot %11, %12, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear6> -> tensor<64x64xf32, #linear>
      tile.store %13, %arg2[%c0_i32, %arg4] reduce add : tensor<64x64xf32, #linear>, !tile.tensor<?x?xf32>
      %15 = arith.addf %arg5, %13 : tensor<64x64xf32, #linear>
      scf.yield %15 : tensor<64x64xf32, #linear>
    }
    %8 = tile.convert_layout %7 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear7>
    tile.store %8, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear7>, !tile.tensor<?x?xf32>
    return
  }
}



// -----

// A gather no TMA copy brings (every third column of row kr of S), whose
// index tiles are math on the induction variable: the load partition's
// (its threads gather it), with the index tiles it reads in the loop and
// the scalar code under them; what reads the gathered row is the compute
// partition's. The loop is warp-specialized.
// CHECK-LABEL: func.func @gemm_gather
// CHECK: arith.divsi %arg4, %c64_i32 {tgpu.partition = array<i32: 0>}
// CHECK: tile.splat %{{.*}} {tgpu.partition = array<i32: 0>}
// CHECK: tile.gather %arg2[{{.*}}] {tgpu.partition = array<i32: 0>}
// CHECK: tile.convert_layout %{{.*}} {shared = #{{.*}}, tgpu.partition = array<i32: 1>}
// CHECK: tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]
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
      %6 = tile.load %arg0[%c0_i32, %arg4] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear3>
      %7 = tile.load %arg1[%arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x128xbf16, #linear4>
      %8 = tile.convert_layout %6 {shared = #shared} : tensor<128x64xbf16, #linear3> -> tensor<128x64xbf16, #linear5>
      %9 = tile.convert_layout %7 {shared = #shared1} : tensor<64x128xbf16, #linear4> -> tensor<64x128xbf16, #linear6>
      %10 = tile.dot %8, %9, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear5>, tensor<64x128xbf16, #linear6> -> tensor<128x128xf32, #linear>
      %11 = arith.divsi %arg4, %c64_i32 : i32
      %12 = tile.splat %11 : i32 -> tensor<1x128xi32, #linear1>
      %13 = tile.gather %arg2[%12, %3] : !tile.tensor<?x?xf32>, tensor<1x128xi32, #linear1>, tensor<1x128xi32, #linear1> -> tensor<1x128xf32, #linear1>
      %14 = tile.convert_layout %13 {shared = #shared2} : tensor<1x128xf32, #linear1> -> tensor<1x128xf32, #linear7>
      %15 = tile.broadcast %14 : tensor<1x128xf32, #linear7> -> tensor<128x128xf32, #linear>
      %16 = arith.addf %10, %15 : tensor<128x128xf32, #linear>
      scf.yield %16 : tensor<128x128xf32, #linear>
    }
    %5 = tile.convert_layout %4 {shared = #shared3} : tensor<128x128xf32, #linear> -> tensor<128x128xf32, #linear8>
    tile.store %5, %arg3[%c0_i32, %c0_i32] : tensor<128x128xf32, #linear8>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A kernel that asks for the dynamic tile scheduler and walks its tiles
// persistently gets it.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: tgpu.persistent = #tile.tile_scheduler<dynamic>
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @dynamic(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 8 : i64, tile.tile_scheduler = #tile.tile_scheduler<dynamic>} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// Ping-pong consumers walk a fixed order: the static waves, and a remark.
// CHECK-LABEL: func.func @dynamic_pingpong
// CHECK-SAME: tgpu.persistent,
// CHECK: #tgpu.partition<compute, copies = 2>
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 128], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  // expected-remark @+1 {{tiles scheduled in static waves, not dynamically: ping-pong consumers take alternate tiles of a fixed order}}
  func.func @dynamic_pingpong(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.schedule = #tile.schedule<pingpong>, tile.tile_scheduler = #tile.tile_scheduler<dynamic>} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16>
    %1 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x256xf32, #linear>)  : i32 {
      %3 = tile.load %arg0[%c0_i32, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16, #linear1>
      %4 = tile.load %arg1[%arg3, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> tensor<64x256xbf16, #linear2>
      %5 = tile.convert_layout %3 {shared = #shared} : tensor<128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear3>
      %6 = tile.convert_layout %4 {shared = #shared1} : tensor<64x256xbf16, #linear2> -> tensor<64x256xbf16, #linear4>
      %7 = tile.dot %5, %6, %arg4 {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<128x64xbf16, #linear3>, tensor<64x256xbf16, #linear4> -> tensor<128x256xf32, #linear>
      scf.yield %7 : tensor<128x256xf32, #linear>
    }
    %2 = tile.convert_layout %1 {shared = #shared2} : tensor<128x256xf32, #linear> -> tensor<128x256xf32, #linear5>
    tile.store %2, %arg2[%c0_i32, %c0_i32] : tensor<128x256xf32, #linear5>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// fp8 attention's chain with V row-major: V's load, which no TMA copies
// (b = kmajor_copy), is the load partition's all the same (its threads
// copy it K-major); the renaming of V's keys and the MMAs are the compute
// partition's.
// CHECK-LABEL: func.func @chain_fp8_vrow
// CHECK: tile.load %arg2[%arg4, %c0_i32] {tgpu.partition = array<i32: 0>}
// CHECK: tile.reshape %{{.*}} {tgpu.partition = array<i32: 1>}
// CHECK: tile.dot {{.*}} {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = kmajor_copy>, tgpu.partition = array<i32: 1>}
// CHECK: tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]
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
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32]]>
#shared2 = #tile.shared<offset = [[0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 4], [0, 0, 0, 0, 8], [0, 0, 0, 0, 16], [0, 0, 0, 0, 32], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @chain_fp8_vrow(%arg0: !tile.tensor<?x64xf8E4M3FN>, %arg1: !tile.tensor<?x?x64xf8E4M3FN>, %arg2: !tile.tensor<?x64xf8E4M3FN>, %arg3: !tile.tensor<?x64xf32>) attributes {tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.program_id x
    %1 = tile.dim %arg2, 0 : !tile.tensor<?x64xf8E4M3FN>
    %2 = tile.load %arg0[%c0_i32, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 64>} : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
    %3 = tile.convert_layout %2 {shared = #shared} : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear2>
    %4 = scf.for %arg4 = %c0_i32 to %1 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #linear>)  : i32 {
      %6 = tile.load %arg1[%0, %arg4, %c0_i32] {tgpu.tma = #tgpu.tma_copy<box = [1, 64, 64], swizzle = 64>} : !tile.tensor<?x?x64xf8E4M3FN> -> tensor<1x64x64xf8E4M3FN, #linear3>
      %7 = tile.reshape %6 : tensor<1x64x64xf8E4M3FN, #linear3> -> tensor<64x64xf8E4M3FN, #linear1>
      %8 = tile.transpose %7 [1, 0] : tensor<64x64xf8E4M3FN, #linear1> -> tensor<64x64xf8E4M3FN, #linear4>
      %9 = tile.convert_layout %8 {shared = #shared1} : tensor<64x64xf8E4M3FN, #linear4> -> tensor<64x64xf8E4M3FN, #linear5>
      %10 = tile.dot %3, %9, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      %11 = math.exp2 %10 : tensor<64x64xf32, #linear>
      %12 = arith.truncf %11 : tensor<64x64xf32, #linear> to tensor<64x64xf8E4M3FN, #linear>
      %13 = tile.reshape %12 : tensor<64x64xf8E4M3FN, #linear> -> tensor<64x4x2x4x2xf8E4M3FN, #linear6>
      %14 = tile.transpose %13 [0, 1, 3, 2, 4] : tensor<64x4x2x4x2xf8E4M3FN, #linear6> -> tensor<64x4x4x2x2xf8E4M3FN, #linear7>
      %15 = tile.load %arg2[%arg4, %c0_i32] : !tile.tensor<?x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #linear1>
      %16 = tile.reshape %15 : tensor<64x64xf8E4M3FN, #linear1> -> tensor<4x2x4x2x64xf8E4M3FN, #linear8>
      %17 = tile.transpose %16 [0, 2, 1, 3, 4] : tensor<4x2x4x2x64xf8E4M3FN, #linear8> -> tensor<4x4x2x2x64xf8E4M3FN, #linear9>
      %18 = tile.convert_layout %14 : tensor<64x4x4x2x2xf8E4M3FN, #linear7> -> tensor<64x4x4x2x2xf8E4M3FN, #linear10>
      %19 = tile.reshape %18 : tensor<64x4x4x2x2xf8E4M3FN, #linear10> -> tensor<64x64xf8E4M3FN, #linear2>
      %20 = tile.convert_layout %17 {shared = #shared2} : tensor<4x4x2x2x64xf8E4M3FN, #linear9> -> tensor<4x4x2x2x64xf8E4M3FN, #linear11>
      %21 = tile.reshape %20 : tensor<4x4x2x2x64xf8E4M3FN, #linear11> -> tensor<64x64xf8E4M3FN, #linear5>
      %22 = tile.dot %19, %21, %arg5 {tgpu.mma = #tgpu.mma<wgmma, a = regs, b = kmajor_copy>} : tensor<64x64xf8E4M3FN, #linear2>, tensor<64x64xf8E4M3FN, #linear5> -> tensor<64x64xf32, #linear>
      scf.yield %22 : tensor<64x64xf32, #linear>
    }
    %5 = tile.convert_layout %4 {shared = #shared3} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear12>
    tile.store %5, %arg3[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear12>, !tile.tensor<?x64xf32>
    return
  }
}
