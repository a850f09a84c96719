// RUN: tilec-opt %s -split-input-file -tile-persistent-tiles -verify-diagnostics | FileCheck %s
//
// Inputs are tile-warp-specialize's output for kernels
// tile-partition-schedule marked tgpu.persistent.

// Both regions walk the program's tiles by their ordinal w: whole waves
// (tiles / P) and one in the last if the program's place there is below
// tiles % P; tile t = w * P + p, or w * P + P - 1 - p when w is odd, in
// groups of 8 rows of tiles; program ids become the tile's coordinates;
// each region's use counter (%i0) becomes its tile loop's running count;
// the grid becomes min(sms, tiles); the store wait stays after the tile
// loop.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: tile.grid = #tile.grid<min(sms, mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256))), 1, 1>
// CHECK-NOT: tgpu.persistent
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK-NEXT: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[TILES:.*]] = arith.muli
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[NP]], %c1_i32
// CHECK-NEXT: %[[MIRROR:.*]] = arith.subi %[[LAST]], %[[PID]]
// CHECK-NEXT: %[[WAVES:.*]] = arith.divui %[[TILES]], %[[NP]]
// CHECK-NEXT: %[[LEFT:.*]] = arith.remui %[[TILES]], %[[NP]]
// CHECK: %[[WODD:.*]] = arith.andi %[[WAVES]], %c1
// CHECK-NEXT: %[[WNE:.*]] = arith.cmpi ne, %[[WODD]]
// CHECK-NEXT: %[[LSLOT:.*]] = arith.select %[[WNE]], %[[MIRROR]], %[[PID]]
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[LSLOT]], %[[LEFT]]
// CHECK-NEXT: %[[EXT:.*]] = arith.extui %[[IN]] : i1 to i32
// CHECK-NEXT: %[[COUNT:.*]] = arith.addi %[[WAVES]], %[[EXT]]
// CHECK: scf.for %[[W:.*]] = %c0_i32 to %[[COUNT]] step %c1{{.*}} iter_args(%[[PU:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[ODD:.*]] = arith.andi %[[W]], %c1
// CHECK-NEXT: %[[NE:.*]] = arith.cmpi ne, %[[ODD]]
// CHECK-NEXT: %[[SLOT:.*]] = arith.select %[[NE]], %[[MIRROR]], %[[PID]]
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[W]], %[[NP]]
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[BASE]], %[[SLOT]]
// CHECK: arith.constant 8 : i32
// CHECK-NOT: tile.program_id
// CHECK: %[[PL:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[PU]]) -> (i32)
// CHECK: scf.yield %[[PL]] : i32
// CHECK: }, {
// CHECK-NEXT: tgpu.alloc
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CU:.*]] = %{{.*}}) -> (i32)
// CHECK-NOT: tile.program_id
// CHECK: %[[G:.*]]:2 = scf.if
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[I:.*]] = %[[CU]])
// CHECK: arith.cmpi ugt, %[[I]], %[[CU]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}}, %[[CU]]
// CHECK: tgpu.tma_store %
// CHECK-NEXT: scf.yield %[[G]]#1 : i32
// CHECK-NEXT: }
// CHECK-NEXT: tgpu.tma_store_wait {
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
  func.func @gemm(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
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

// Ping-pong: consumer copy c takes the program's tiles c, c + 2, ...
// (ordinals w from c by 2 up to the program's count); its
// counter starts at (2m + c) * iterations; it waits for its main-loop turn
// (barrier c of group "pingpong_mma") before the loop and passes it on
// after, and the same for the epilogue ("pingpong_epilogue").
// CHECK-LABEL: func.func @gemm_pingpong(
// CHECK-SAME: tile.grid = #tile.grid<min(sms, mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128))), 1, 1>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>]
// CHECK: }, {
// CHECK-NEXT: tgpu.alloc
// CHECK-NEXT: %[[C:.*]] = tgpu.consumer_index : i32
// CHECK: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[COUNT:.*]] = arith.addi
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 2 : i32
// CHECK-NEXT: scf.for %{{.*}} = %[[C]] to %[[COUNT]] step %[[STEP]] iter_args(%[[M:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[M2:.*]] = arith.muli %[[M]], %{{.*}}
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[M2]], %[[C]]
// CHECK: %[[START:.*]] = arith.muli %[[G]], %{{.*}}
// CHECK: scf.if
// CHECK-NEXT: %[[TURN:.*]] = tgpu.named_barrier_id "pingpong_mma" count 2 [%[[C]]] : i32
// CHECK-NEXT: tgpu.named_barrier_wait %[[TURN]], 256
// CHECK: scf.if
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[START]])
// CHECK: %[[PASS:.*]] = tgpu.named_barrier_id "pingpong_mma" count 2 [%{{.*}}] : i32
// CHECK-NEXT: tgpu.named_barrier_arrive %[[PASS]], 256
// CHECK: %[[ETURN:.*]] = tgpu.named_barrier_id "pingpong_epilogue" count 2 [%[[C]]] : i32
// CHECK-NEXT: tgpu.named_barrier_wait %[[ETURN]], 256
// CHECK: tgpu.tma_store %
// CHECK: %[[EPASS:.*]] = tgpu.named_barrier_id "pingpong_epilogue" count 2 [%{{.*}}] : i32
// CHECK-NEXT: tgpu.named_barrier_arrive %[[EPASS]], 256
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tgpu.tma_store_wait {
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear4 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
module {
  func.func @gemm_pingpong(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64, tile.schedule = #tile.schedule<pingpong>} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %0 = tile.program_id x
      %1 = tile.program_id y
      %2 = arith.muli %0, %c128_i32 : i32
      %3 = arith.muli %1, %c128_i32 : i32
      %4 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      %5 = scf.for %arg3 = %c0_i32 to %4 step %c64_i32 iter_args(%arg4 = %c0_i32_0) -> (i32)  : i32 {
        %6 = tgpu.channel_acquire %channel[%arg4]
        tgpu.tma_load %arg0[%2, %arg3] -> %buffers#0[%6], %channel : <?x?xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x128xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
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
      %c0_i32_0 = arith.constant 0 : i32
      %6 = arith.cmpi slt, %c0_i32, %5 : i32
      %7:2 = scf.if %6 -> (tensor<128x128xf32, #linear>, i32) {
        %9:2 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x128xf32, #linear>, i32)  : i32 {
          %12 = tgpu.channel_wait %channel[%arg5]
          %13 = tgpu.wgmma %buffers#0[%12], %buffers#1[%12], %arg4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x128xbf16, #shared1>, tensor<128x128xf32, #linear>
          tgpu.wgmma_wait {pendings = 1 : i32}
          %c1_i32 = arith.constant 1 : i32
          %14 = arith.cmpi ugt, %arg5, %c0_i32_0 : i32
          scf.if %14 {
            %c1_i32_1 = arith.constant 1 : i32
            %16 = arith.subi %arg5, %c1_i32_1 : i32
            tgpu.channel_release %channel[%16]
          }
          %15 = arith.addi %arg5, %c1_i32 : i32
          scf.yield %13, %15 : tensor<128x128xf32, #linear>, i32
        }
        %10 = tgpu.wgmma_wait %9#0 : tensor<128x128xf32, #linear> {pendings = 0 : i32}
        %11 = arith.cmpi ugt, %9#1, %c0_i32_0 : i32
        scf.if %11 {
          %c1_i32 = arith.constant 1 : i32
          %12 = arith.subi %9#1, %c1_i32 : i32
          tgpu.channel_release %channel[%12]
        }
        scf.yield %10, %9#1 : tensor<128x128xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_0 : tensor<128x128xf32, #linear>, i32
      }
      %8 = arith.truncf %7#0 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
      tgpu.tma_store %8, %arg2[%3, %4] via %0 : tensor<128x128xbf16, #linear>, <?x?xbf16, tma = 128x64, swizzle = 128>, <2x128x64xbf16, #shared>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}

// -----

// A cluster of 2 programs along x: the grid counts whole clusters; a
// cluster walks tiles of 2 rows of tiles, program rank r taking row r.
// CHECK-LABEL: func.func @gemm_cluster(
// CHECK-SAME: tile.grid = #tile.grid<mul(min(div(sms, 2), mul(cdiv(cdiv(dim(0, 0), 128), 2), cdiv(dim(1, 1), 256))), 2), 1, 1>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[RANK:.*]] = arith.remui %[[PID]], %c2_i32
// CHECK: arith.divui %[[PID]], %c2_i32
// CHECK: scf.for
// CHECK: arith.muli %{{.*}}, %c2_i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[RANK]]
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
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 cluster 2 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
    tgpu.cluster_sync
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
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel multicast 2 : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x256xbf16, #shared1>, !tgpu.channel
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
    tgpu.cluster_sync
    return
  }
}

// -----

// Attention's shape: the tiles copied once (Q) are use w of their channel
// (the tile's ordinal among the program's tiles, the tile loop's induction
// variable) on both sides.
// CHECK-LABEL: func.func @chain(
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK-NEXT: %[[NP:.*]] = tile.num_programs x
// CHECK: scf.for %[[ORD:.*]] = %c0_i32 to
// CHECK: tgpu.channel_acquire %{{.*}}[%[[ORD]]]
// CHECK: }, {
// CHECK: scf.for %[[CORD:.*]] = %c0_i32 to
// CHECK: tgpu.channel_wait %{{.*}}[%[[CORD]]]
// CHECK: tgpu.channel_release %{{.*}}[%[[CORD]]]
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 16]], lane = [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear8 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]]>
#shared1 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
#shared4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @chain(%arg0: !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>, %arg1: !tile.tensor<?x?x64xbf16, tma = 1x32x64, swizzle = 128>, %arg2: !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>, %arg3: !tile.tensor<?x64xf32, tma = 64x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<dim(1, 0)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #shared>
    %0 = tgpu.transpose %buffers : <?x32x64xbf16, #shared> -> <?x64x32xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 kind <fill = tma, release = mma> : !tgpu.smem<?x32x64xbf16, #shared>
    %channel_2, %buffers_3 = tgpu.channel consumer_warps 4 depth 1 kind <fill = tma, release = mma> : !tgpu.smem<?x64x64xbf16, #shared2>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 240>] {
      %c0_i32 = arith.constant 0 : i32
      %c32_i32 = arith.constant 32 : i32
      %1 = tile.program_id x
      %2 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
      %c0_i32_4 = arith.constant 0 : i32
      %3 = tgpu.channel_acquire %channel_2[%c0_i32_4]
      tgpu.tma_load %arg0[%c0_i32, %c0_i32] -> %buffers_3[%3], %channel_2 : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared2>, !tgpu.channel
      %c0_i32_5 = arith.constant 0 : i32
      %4 = scf.for %arg4 = %c0_i32 to %2 step %c32_i32 iter_args(%arg5 = %c0_i32_5) -> (i32)  : i32 {
        %5 = tgpu.channel_acquire %channel[%arg5]
        tgpu.tma_load %arg1[%1, %arg4, %c0_i32] -> %buffers[%5], %channel : <?x?x64xbf16, tma = 1x32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
        %6 = tgpu.channel_acquire %channel_0[%arg5]
        tgpu.tma_load %arg2[%arg4, %c0_i32] -> %buffers_1[%6], %channel_0 : <?x64xbf16, tma = 32x64, swizzle = 128>, <?x32x64xbf16, #shared>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg5, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
      %1 = tgpu.alloc : <2x64x32xf32, #shared3>
      %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
      %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #linear1>
      %c0_i32 = arith.constant 0 : i32
      %c32_i32 = arith.constant 32 : i32
      %2 = tile.program_id x
      %3 = tile.dim %arg2, 0 : !tile.tensor<?x64xbf16, tma = 32x64, swizzle = 128>
      %c0_i32_5 = arith.constant 0 : i32
      %c0_i32_6 = arith.constant 0 : i32
      %4 = tgpu.channel_wait %channel_2[%c0_i32_5]
      %5 = arith.cmpi slt, %c0_i32, %3 : i32
      %6:2 = scf.if %5 -> (tensor<64x64xf32, #linear>, i32) {
        %7:2 = scf.for %arg4 = %c0_i32 to %3 step %c32_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32_6) -> (tensor<64x64xf32, #linear>, i32)  : i32 {
          %8 = tgpu.channel_wait %channel[%arg6]
          %9 = tgpu.wgmma %buffers_3[%4], %0[%8], %cst_4 : !tgpu.smem<?x64x64xbf16, #shared2>, <?x64x32xbf16, #shared1>, tensor<64x32xf32, #linear1>
          %10 = tgpu.wgmma_wait %9 : tensor<64x32xf32, #linear1> {pendings = 0 : i32}
          tgpu.channel_release %channel[%arg6]
          %11 = math.exp %10 : tensor<64x32xf32, #linear1>
          %12 = arith.truncf %11 : tensor<64x32xf32, #linear1> to tensor<64x32xbf16, #linear1>
          %13 = tgpu.channel_wait %channel_0[%arg6]
          %14 = tgpu.wgmma %12, %buffers_1[%13], %arg5 : tensor<64x32xbf16, #linear1>, <?x32x64xbf16, #shared>, tensor<64x64xf32, #linear>
          %15 = tgpu.wgmma_wait %14 : tensor<64x64xf32, #linear> {pendings = 0 : i32}
          tgpu.channel_release %channel_0[%arg6]
          %c1_i32 = arith.constant 1 : i32
          %16 = arith.addi %arg6, %c1_i32 : i32
          scf.yield %15, %16 : tensor<64x64xf32, #linear>, i32
        }
        scf.yield %7#0, %7#1 : tensor<64x64xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_6 : tensor<64x64xf32, #linear>, i32
      }
      tgpu.channel_release %channel_2[%c0_i32_5]
      tgpu.tma_store %6#0, %arg3[%c0_i32, %c0_i32] via %1 : tensor<64x64xf32, #linear>, <?x64xf32, tma = 64x32, swizzle = 128>, <2x64x32xf32, #shared3>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
}

// -----

// The kernel reads num_programs: its programs cannot walk the tiles.
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
  // expected-error @+1 {{a kernel marked tgpu.persistent whose grid its programs cannot walk}}
  func.func @reads_num_programs(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
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
      %np = tile.num_programs y
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

// A batch (grid z): tiles = the gx x gy grid times gz, the batch member
// t / (gx * gy) outermost, the rest of t walked in groups of rows as in 2-d;
// program_id z becomes the tile's batch member; the grid becomes
// min(sms, gx * gy * gz).
// CHECK-LABEL: func.func @gemm_batched(
// CHECK-SAME: tile.grid = #tile.grid<min(sms, mul(mul(cdiv(dim(0, 1), 128), cdiv(dim(1, 2), 128)), dim(0, 0))), 1, 1>
// CHECK: tgpu.warp_specialize [#tgpu.partition<load
// CHECK: %[[PLANE:.*]] = arith.muli
// CHECK-NEXT: %[[TILES:.*]] = arith.muli %[[PLANE]], %
// CHECK: scf.for %[[W:.*]] = %c0_i32 to
// CHECK: %[[T:.*]] = arith.addi
// CHECK-NEXT: %[[Z:.*]] = arith.divui %[[T]], %[[PLANE]]
// CHECK-NEXT: %[[TXY:.*]] = arith.remui %[[T]], %[[PLANE]]
// CHECK-NOT: tile.program_id
// CHECK: tgpu.tma_load %{{.*}}[%[[Z]],
// CHECK: }, {
// CHECK: arith.divui %{{.*}}, %[[PLANE2:.*]] :
// CHECK-NOT: tile.program_id
// CHECK: tgpu.tma_store
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear1 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 32, 0], [0, 64, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 1, 0], [0, 2, 0]], warp = [[0, 4, 0], [0, 8, 0], [0, 16, 0]]>
#linear2 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0], [16, 0]]>
#linear3 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0], [0, 32, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 1, 0]], warp = [[0, 2, 0], [0, 4, 0], [0, 8, 0]]>
#linear4 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]], warp = [[2, 0], [4, 0], [8, 0]]>
#linear5 = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#linear6 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0], [0, 0]]>
#linear7 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [[1, 0], [2, 0], [4, 0]]>
#linear8 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 8, 0], [0, 16, 0], [0, 32, 0], [0, 64, 0]], lane = [[0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64]], warp = [[0, 1, 0], [0, 2, 0], [0, 4, 0]]>
#linear9 = #tile.linear<register = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 16, 0], [0, 32, 0], [0, 64, 0]], lane = [[0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 1, 0]], warp = [[0, 2, 0], [0, 4, 0], [0, 8, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared4 = #tile.shared<offset = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 32, 0], [0, 64, 0]]>
module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @gemm_batched(%arg0: !tile.tensor<?x?x?xbf16, tma = 1x128x64, swizzle = 128>, %arg1: !tile.tensor<?x?x?xbf16, tma = 1x64x64, swizzle = 128>, %arg2: !tile.tensor<?x?x?xbf16, tma = 1x128x64, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 2), 128), dim(0, 0)>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant = @gemm_batched__plain} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %0 = tile.program_id x
      %1 = tile.program_id y
      %2 = tile.program_id z
      %3 = arith.muli %0, %c128_i32 : i32
      %4 = arith.muli %1, %c128_i32 : i32
      %5 = tile.dim %arg0, 2 : !tile.tensor<?x?x?xbf16, tma = 1x128x64, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %c0_i32_0) -> (i32)  : i32 {
        %7 = tgpu.channel_acquire %channel[%arg4]
        tgpu.tma_load %arg0[%2, %3, %arg3] -> %buffers#0[%7], %channel : <?x?x?xbf16, tma = 1x128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
        tgpu.tma_load %arg1[%2, %arg3, %4] -> %buffers#1[%7], %channel : <?x?x?xbf16, tma = 1x64x64, swizzle = 128>, <?x64x128xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %8 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %8 : i32
      }
    }, {
      %0 = tgpu.alloc : <2x128x64xbf16, #shared>
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %1 = tile.program_id x
      %2 = tile.program_id y
      %3 = tile.program_id z
      %4 = arith.muli %1, %c128_i32 : i32
      %5 = arith.muli %2, %c128_i32 : i32
      %6 = tile.dim %arg0, 2 : !tile.tensor<?x?x?xbf16, tma = 1x128x64, swizzle = 128>
      %c0_i32_0 = arith.constant 0 : i32
      %7 = arith.cmpi slt, %c0_i32, %6 : i32
      %8:2 = scf.if %7 -> (tensor<128x128xf32, #linear>, i32) {
        %10:2 = scf.for %arg3 = %c0_i32 to %6 step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %c0_i32_0) -> (tensor<128x128xf32, #linear>, i32)  : i32 {
          %13 = tgpu.channel_wait %channel[%arg5]
          %14 = tgpu.wgmma %buffers#0[%13], %buffers#1[%13], %arg4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x128xbf16, #shared1>, tensor<128x128xf32, #linear>
          tgpu.wgmma_wait {pendings = 1 : i32}
          %c1_i32 = arith.constant 1 : i32
          %15 = arith.cmpi ugt, %arg5, %c0_i32_0 : i32
          scf.if %15 {
            %c1_i32_1 = arith.constant 1 : i32
            %17 = arith.subi %arg5, %c1_i32_1 : i32
            tgpu.channel_release %channel[%17]
          }
          %16 = arith.addi %arg5, %c1_i32 : i32
          scf.yield %14, %16 : tensor<128x128xf32, #linear>, i32
        }
        %11 = tgpu.wgmma_wait %10#0 : tensor<128x128xf32, #linear> {pendings = 0 : i32}
        %12 = arith.cmpi ugt, %10#1, %c0_i32_0 : i32
        scf.if %12 {
          %c1_i32 = arith.constant 1 : i32
          %13 = arith.subi %10#1, %c1_i32 : i32
          tgpu.channel_release %channel[%13]
        }
        scf.yield %11, %10#1 : tensor<128x128xf32, #linear>, i32
      } else {
        scf.yield %cst, %c0_i32_0 : tensor<128x128xf32, #linear>, i32
      }
      %9 = arith.truncf %8#0 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
      tgpu.tma_store %9, %arg2[%3, %4, %5] via %0 : tensor<128x128xbf16, #linear>, <?x?x?xbf16, tma = 1x128x64, swizzle = 128>, <2x128x64xbf16, #shared>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }
    return
  }
  func.func @gemm_batched__plain(%arg0: !tile.tensor<?x?x?xbf16>, %arg1: !tile.tensor<?x?x?xbf16>, %arg2: !tile.tensor<?x?x?xbf16>) attributes {tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 2), 128), dim(0, 0)>, tile.kernel, tile.num_warps = 8 : i64, tile.plain_variant_of = @gemm_batched} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id x
    %1 = tile.program_id y
    %2 = tile.program_id z
    %3 = arith.muli %0, %c128_i32 : i32
    %4 = arith.muli %1, %c128_i32 : i32
    %5 = tile.dim %arg0, 2 : !tile.tensor<?x?x?xbf16>
    %6 = scf.for %arg3 = %c0_i32 to %5 step %c64_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #linear>)  : i32 {
      %11 = tile.load %arg0[%2, %3, %arg3] {tgpu.tma = #tgpu.tma_copy<box = [1, 128, 64], swizzle = 128>} : !tile.tensor<?x?x?xbf16> -> tensor<1x128x64xbf16, #linear1>
      %12 = tile.reshape %11 : tensor<1x128x64xbf16, #linear1> -> tensor<128x64xbf16, #linear2>
      %13 = tile.load %arg1[%2, %arg3, %4] {tgpu.tma = #tgpu.tma_copy<box = [1, 64, 64], swizzle = 128>} : !tile.tensor<?x?x?xbf16> -> tensor<1x64x128xbf16, #linear3>
      %14 = tile.reshape %13 : tensor<1x64x128xbf16, #linear3> -> tensor<64x128xbf16, #linear4>
      %15 = tile.convert_layout %12 {shared = #shared} : tensor<128x64xbf16, #linear2> -> tensor<128x64xbf16, #linear5>
      %16 = tile.convert_layout %14 {shared = #shared2} : tensor<64x128xbf16, #linear4> -> tensor<64x128xbf16, #linear6>
      %17 = tile.dot %15, %16, %arg4 {tgpu.mma = #tgpu.mma<mma_sync, a = regs, b = regs>} : tensor<128x64xbf16, #linear5>, tensor<64x128xbf16, #linear6> -> tensor<128x128xf32, #linear>
      scf.yield %17 : tensor<128x128xf32, #linear>
    }
    %7 = arith.truncf %6 : tensor<128x128xf32, #linear> to tensor<128x128xbf16, #linear>
    %8 = tile.convert_layout %7 {shared = #shared3} : tensor<128x128xbf16, #linear> -> tensor<128x128xbf16, #linear7>
    %9 = tile.reshape %8 : tensor<128x128xbf16, #linear7> -> tensor<1x128x128xbf16, #linear8>
    %10 = tile.convert_layout %9 {shared = #shared4} : tensor<1x128x128xbf16, #linear8> -> tensor<1x128x128xbf16, #linear9>
    tile.store %10, %arg2[%2, %3, %4] : tensor<1x128x128xbf16, #linear9>, !tile.tensor<?x?x?xbf16>
    return
  }
}

// -----

// Stream-K (tile.stream_k = 8): a grid of every SM (at most 8 units a
// tile); R = tiles % P tiles of the last wave cut S ways (P / R if at
// least 2, else 2P / R if at least 3, else 1; at most 8), units p, p + P,
// ... a program; tile.stream_k_unit of a cut unit: K steps [z per, (z +
// 1) per) (per = cdiv(steps, S)), slot v (its index among the cut units),
// first slot v - z, S units; of a whole tile (0, steps, 0, 0, 1); tiles
// in groups of 8 rows as above.
// CHECK-LABEL: func.func @gemm_sk(
// CHECK-SAME: tile.grid = #tile.grid<min(sms, mul(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), 8)), 1, 1>
// CHECK: %[[STEPS:.*]] = arith.ceildivsi
// CHECK: %[[TILES:.*]] = arith.muli
// CHECK-NEXT: %[[P:.*]] = tile.program_id x
// CHECK-NEXT: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[R:.*]] = arith.remui %[[TILES]], %[[NP]]
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[TILES]], %[[R]]
// CHECK-NEXT: %[[R1:.*]] = arith.maxui %[[R]], %c1
// CHECK-NEXT: %[[ONCE:.*]] = arith.divui %[[NP]], %[[R1]]
// CHECK: %[[TWICE:.*]] = arith.divui %{{.*}}, %[[R1]]
// CHECK: %[[S0:.*]] = arith.select %{{.*}}, %[[TWICE]], %c1
// CHECK: %[[S1:.*]] = arith.select %{{.*}}, %[[ONCE]], %[[S0]]
// CHECK: %[[S:.*]] = arith.minui %[[S1]], %c8
// CHECK: %[[PER:.*]] = arith.ceildivui %[[STEPS]], %[[S]]
// CHECK: scf.for %[[W:.*]] = %c0_i32 to %{{.*}} step %c1{{.*}} iter_args
// CHECK: %[[U:.*]] = arith.addi %{{.*}}, %[[P]]
// CHECK-NEXT: %[[CUT:.*]] = arith.cmpi uge, %[[U]], %[[D]]
// CHECK-NEXT: %[[V:.*]] = arith.subi %[[U]], %[[D]]
// CHECK-NEXT: %[[Z:.*]] = arith.remui %[[V]], %[[S]]
// CHECK: %[[LO:.*]] = arith.muli %[[Z]], %[[PER]]
// CHECK: %[[LOSEL:.*]] = arith.select %[[CUT]], %[[LO]], %c0
// CHECK: %[[NZ:.*]] = arith.select %[[CUT]], %[[S]], %c1
// CHECK-NOT: tile.program_id
// CHECK-NOT: tile.stream_k_unit
// CHECK: arith.muli %[[LOSEL]], %[[NZ]]
// CHECK: }, {
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
  func.func @gemm_sk(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent, tile.stream_k = 8 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x256xbf16, #shared1>
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %c256_i32 = arith.constant 256 : i32
      %0 = tile.program_id x
      %slo, %shi, %sslot, %sfirst, %sunits = tile.stream_k_unit #tile.expr<cdiv(dim(0, 1), 64)>
      %sprod = arith.muli %slo, %sunits : i32
      %sprod2 = arith.muli %sslot, %sfirst : i32
      %sprod3 = arith.muli %shi, %sprod2 : i32
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

// sm_100a: the load and MMA partitions walk the tiles with their use
// counters running on; the MMA partition's accumulator use and the
// epilogue's (the compute partition, which has no loop of channel uses and
// walks the tiles with no counter) are the tile's ordinal, so with the
// accumulator ring two deep tile t + 1's MMAs fill one accumulator while
// the epilogue reads tile t's. The first MMA of each tile overwrites the
// accumulator (the counter above the tile's start).
// CHECK-LABEL: func.func @gemm_tcgen05_persistent(
// CHECK: tgpu.warp_specialize [#tgpu.partition<compute, warps = 4>, #tgpu.partition<load, warps = 1>, #tgpu.partition<mma, warps = 1>] {
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (i32)
// CHECK-NEXT: arith.andi %[[T]]
// CHECK: tgpu.channel_wait %[[ACC:[a-z_0-9]+]][%[[T]]]
// CHECK: tgpu.tmem_load
// CHECK: tgpu.channel_release %[[ACC]][%[[T]]]
// CHECK: tgpu.tma_store
// CHECK: scf.yield %[[C]] : i32
// CHECK: tgpu.tma_store_wait
// CHECK: }, {
// CHECK: scf.for %{{.*}} iter_args(%[[LC:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[LI:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[LC]]) -> (i32)
// CHECK: tgpu.channel_acquire
// CHECK: scf.yield %[[LI]] : i32
// CHECK: }, {
// CHECK: scf.for %[[MT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MC:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[D:.*]] = tgpu.channel_acquire %[[ACC]][%[[MT]]]
// CHECK-NEXT: %[[MI:.*]] = scf.for %{{.*}} iter_args(%[[I:.*]] = %[[MC]]) -> (i32)
// CHECK-NEXT: %[[W:.*]] = tgpu.channel_wait
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi ugt, %[[I]], %[[MC]]
// CHECK-NEXT: tgpu.tcgen05_mma %{{.*}}[%[[W]]], %{{.*}}[%[[W]]], %{{.*}}[%[[D]]], %[[ON]]
// CHECK: tgpu.channel_fill %[[ACC]][%[[MT]]]
// CHECK-NEXT: scf.yield %[[MI]] : i32
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05_persistent(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    tgpu.warp_specialize [#tgpu.partition<compute, warps = 4>, #tgpu.partition<load, warps = 1>, #tgpu.partition<mma, warps = 1>] {
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
      tgpu.tma_store %10, %arg2[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared2>
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
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x128xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_2 = arith.constant 0 : i32
      %c0_i32_3 = arith.constant 0 : i32
      %1 = tgpu.channel_acquire %channel_0[%c0_i32_3]
      %2 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %c0_i32_2) -> (i32)  : i32 {
        %3 = tgpu.channel_wait %channel[%arg4]
        %4 = arith.cmpi ugt, %arg4, %c0_i32_2 : i32
        tgpu.tcgen05_mma %buffers#0[%3], %buffers#1[%3], %buffers_1[%1], %4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x128xbf16, #shared1>, <?x128x128xf32>
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

// -----

// sm_100a with launch control: the grid has a block a tile; the three
// regions walk tiles in a while loop from the block's own (program id x)
// while the tile is >= 0, the tile's ordinal k second and the use counter
// third. At the top of tile k the load region waits until every warp has
// released response k mod 2 (parity flipped: the first two pass), expects
// its 16 bytes and asks for the next tile; at the bottom every region
// waits for it, reads it (-1: none left) and releases it. Two responses,
// their full barriers (one arrival: the expect_tx) and empty ones (the 6
// warps of the three regions).
// CHECK-LABEL: func.func @gemm_tcgen05_launch_control(
// CHECK-SAME: tile.grid = #tile.grid<mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)), 1, 1>
// CHECK: %[[R:.*]] = tgpu.alloc : <2x4xi32, #{{.*}}>
// CHECK-NEXT: %[[F:.*]] = tgpu.barriers arrive_count 1 : <2>
// CHECK-NEXT: %[[E:.*]] = tgpu.barriers arrive_count 6 : <2>
// CHECK-NEXT: tgpu.warp_specialize
// CHECK: %[[P0:.*]] = tile.program_id x
// CHECK: scf.while (%[[T:.*]] = %[[P0]], %[[K:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, i32, i32) -> (i32, i32, i32) {
// CHECK: %[[GO:.*]] = arith.cmpi sge, %[[T]], %{{.*}}
// CHECK-NEXT: scf.condition(%[[GO]])
// CHECK: } do {
// CHECK-NOT: tgpu.try_cancel
// CHECK: tgpu.channel_wait %[[ACC:[a-z_0-9]+]][%[[K1:.*]]]
// CHECK: tgpu.tma_store
// CHECK: tgpu.wait %[[F]][%[[S:.*]]], %{{.*}}
// CHECK-NEXT: %[[N:.*]] = tgpu.query_cancel %[[R]][%[[S]]]
// CHECK-NEXT: tgpu.arrive %[[E]][%[[S]]] : <2>
// CHECK: scf.yield %[[N]], %{{.*}}, %{{.*}} : i32, i32, i32
// CHECK: tgpu.tma_store_wait
// CHECK: }, {
// CHECK: scf.while
// CHECK: } do {
// CHECK: %[[LS:.*]] = arith.remui
// CHECK: tgpu.wait %[[E]][%[[LS]]], %{{.*}}
// CHECK-NEXT: tgpu.arrive %[[F]][%[[LS]]] expect_tx 16
// CHECK-NEXT: tgpu.try_cancel %[[R]][%[[LS]]], %[[F]]
// CHECK: %[[LI:.*]] = scf.for
// CHECK: tgpu.channel_acquire
// CHECK: tgpu.query_cancel %[[R]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[LI]] : i32, i32, i32
// CHECK: }, {
// CHECK: scf.while
// CHECK: } do {
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %[[MK:.*]]: i32, %[[MC:.*]]: i32):
// CHECK-NOT: tgpu.try_cancel
// CHECK: tgpu.channel_acquire %{{.*}}[%[[MK]]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[MC]]) -> (i32)
// CHECK: tgpu.query_cancel %[[R]]
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05_launch_control(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent = #tile.tile_scheduler<launch_control>, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    tgpu.warp_specialize [#tgpu.partition<compute, warps = 4>, #tgpu.partition<load, warps = 1>, #tgpu.partition<mma, warps = 1>] {
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
      tgpu.tma_store %10, %arg2[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared2>
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
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x128xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_2 = arith.constant 0 : i32
      %c0_i32_3 = arith.constant 0 : i32
      %1 = tgpu.channel_acquire %channel_0[%c0_i32_3]
      %2 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %c0_i32_2) -> (i32)  : i32 {
        %3 = tgpu.channel_wait %channel[%arg4]
        %4 = arith.cmpi ugt, %arg4, %c0_i32_2 : i32
        tgpu.tcgen05_mma %buffers#0[%3], %buffers#1[%3], %buffers_1[%1], %4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x128xbf16, #shared1>, <?x128x128xf32>
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

// -----

// Launch control in clusters of two: the grid in whole clusters, t the
// cluster's index (program id x / 2, the rank x % 2 taking its row), the
// barriers set up before the cluster synchronizes (the other CTA arrives
// on them), only the first CTA asking (multicast: the response lands in
// both), every warp releasing the response in both CTAs (12 arrivals: 6
// warps a CTA), the first block's x divided by 2 (-1 kept).
// CHECK-LABEL: func.func @gemm_tcgen05_launch_control_cluster(
// CHECK-SAME: tile.grid = #tile.grid<mul(mul(cdiv(cdiv(dim(0, 0), 128), 2), cdiv(dim(1, 1), 128)), 2), 1, 1>
// CHECK: tgpu.alloc : <2x4xi32
// CHECK-NEXT: tgpu.barriers arrive_count 1 : <2>
// CHECK-NEXT: tgpu.barriers arrive_count 12 : <2>
// CHECK-NEXT: tgpu.cluster_sync
// CHECK-NEXT: tgpu.warp_specialize
// CHECK: %[[P:.*]] = tile.program_id x
// CHECK: %[[R:.*]] = arith.remui %[[P]], %[[TWO:.*]] : i32
// CHECK-NEXT: %[[T0:.*]] = arith.divui %[[P]], %[[TWO]] : i32
// CHECK: scf.while (%{{.*}} = %[[T0]],
// CHECK: %[[N:.*]] = tgpu.query_cancel
// CHECK: %[[NONE:.*]] = arith.cmpi slt, %[[N]]
// CHECK: %[[Q:.*]] = arith.divui %[[N]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.select %[[NONE]], %[[N]], %[[Q]] : i32
// CHECK-NEXT: tgpu.arrive %{{.*}} cluster 2 : <2>
// CHECK: scf.yield %[[NEXT]]
// CHECK: }, {
// CHECK: tgpu.try_cancel %{{.*}} multicast
#linear = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>
#shared2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
module attributes {tile.target = #tile.target<sm_100a>} {
  func.func @gemm_tcgen05_launch_control_cluster(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>) attributes {tgpu.persistent = #tile.tile_scheduler<launch_control>, tile.cluster = 2 : i64, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>, tile.kernel, tile.num_warps = 4 : i64} {
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x128xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    tgpu.cluster_sync
    tgpu.warp_specialize [#tgpu.partition<compute, warps = 4>, #tgpu.partition<load, warps = 1>, #tgpu.partition<mma, warps = 1>] {
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
      tgpu.tma_store %10, %arg2[%3, %4] via %0 : tensor<128x128xf32, #linear>, <?x?xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared2>
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
        tgpu.tma_load %arg1[%arg3, %3] -> %buffers#1[%6], %channel : <?x?xbf16, tma = 64x64, swizzle = 128>, <?x64x128xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %7 = arith.addi %arg4, %c1_i32 : i32
        scf.yield %7 : i32
      }
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.dim %arg0, 1 : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>
      %c0_i32_2 = arith.constant 0 : i32
      %c0_i32_3 = arith.constant 0 : i32
      %1 = tgpu.channel_acquire %channel_0[%c0_i32_3]
      %2 = scf.for %arg3 = %c0_i32 to %0 step %c64_i32 iter_args(%arg4 = %c0_i32_2) -> (i32)  : i32 {
        %3 = tgpu.channel_wait %channel[%arg4]
        %4 = arith.cmpi ugt, %arg4, %c0_i32_2 : i32
        tgpu.tcgen05_mma %buffers#0[%3], %buffers#1[%3], %buffers_1[%1], %4 : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x128xbf16, #shared1>, <?x128x128xf32>
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

// -----

// sm_100a attention: all three regions walk the tiles. The compute region
// (the softmax warps) and the MMA region each carry their use counter
// across tiles; the tile's first use starts the first block's S (MMA
// region) and is what the rescale's "after the first block" and P·V's
// "accumulate" compare with; Q's use is the tile's ordinal (load and MMA
// regions).
// CHECK-LABEL: func.func @attention_tcgen05
// CHECK: tgpu.warp_specialize
// CHECK: scf.for %{{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[L:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[I:.*]] = %[[C]]) -> (tensor<128xf32, #{{.*}}>, i32)
// CHECK: arith.cmpi ugt, %[[I]], %[[C]]
// CHECK: scf.yield %[[L]]#1
// CHECK: }, {
// CHECK: scf.for %[[T:.*]] = %{{.*}} iter_args(%[[PC:.*]] = %{{.*}}) -> (i32)
// CHECK: tgpu.channel_acquire %{{.*}}[%[[T]]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[PC]]) -> (i32)
// CHECK: }, {
// CHECK: scf.for %[[MT:.*]] = %{{.*}} iter_args(%[[MC:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[QW:.*]] = tgpu.channel_wait %{{.*}}[%[[MT]]]
// CHECK: scf.if
// CHECK-NEXT: tgpu.channel_wait %{{.*}}[%[[MC]]]
// CHECK: %[[ML:.*]] = scf.for {{.*}} iter_args(%[[MI:.*]] = %[[MC]]) -> (i32)
// CHECK: %[[ON:.*]] = arith.cmpi ugt, %[[MI]], %[[MC]]
// CHECK-NEXT: tgpu.tcgen05_mma {{.*}}, %[[ON]]
// CHECK: tgpu.channel_release %{{.*}}[%[[MT]]]
// CHECK-NEXT: scf.yield %[[ML]]

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
    tgpu.warp_specialize [#tgpu.partition<compute, warps = 4>, #tgpu.partition<load, warps = 1>, #tgpu.partition<mma, warps = 1>] {
      %1 = tgpu.alloc : <2x128x32xf32, #shared3>
      %cst = arith.constant dense<0xFF800000> : tensor<128xf32, #linear>
      %cst_10 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #linear1>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %2 = tile.program_id x
      %3 = arith.muli %2, %c128_i32 : i32
      %4 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>
      %c0_i32_11 = arith.constant 0 : i32
      %5 = arith.cmpi slt, %c0_i32, %4 : i32
      %6:2 = scf.for %arg4 = %c0_i32 to %4 step %c64_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32_11) -> (tensor<128xf32, #linear>, i32)  : i32 {
        %8 = tgpu.channel_wait %channel_2[%arg6]
        tgpu.tcgen05_fence after_thread_sync
        %9 = tgpu.tmem_load %buffers_3[%8] : <?x128x64xf32> -> tensor<128x64xf32, #linear1>
        %10 = tgpu.tmem_wait load %9 : tensor<128x64xf32, #linear1>
        tgpu.tcgen05_fence before_thread_sync
        tgpu.channel_release %channel_2[%arg6]
        %11 = tile.reduce  max %10 dim 1 : tensor<128x64xf32, #linear1> -> tensor<128xf32, #linear>
        %12 = arith.maximumf %arg5, %11 : tensor<128xf32, #linear>
        %13 = tile.expand_dims %12 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear2>
        %14 = tile.broadcast %13 : tensor<128x1xf32, #linear2> -> tensor<128x64xf32, #linear1>
        %15 = arith.subf %10, %14 : tensor<128x64xf32, #linear1>
        %16 = math.exp2 %15 : tensor<128x64xf32, #linear1>
        %17 = arith.subf %arg5, %12 : tensor<128xf32, #linear>
        %18 = math.exp2 %17 : tensor<128xf32, #linear>
        %19 = tile.expand_dims %18 axis 1 : tensor<128xf32, #linear> -> tensor<128x1xf32, #linear2>
        %20 = tile.broadcast %19 : tensor<128x1xf32, #linear2> -> tensor<128x64xf32, #linear1>
        %21 = arith.truncf %16 : tensor<128x64xf32, #linear1> to tensor<128x64xbf16, #linear1>
        %22 = tgpu.channel_acquire %channel_0[%arg6]
        tgpu.tcgen05_fence after_thread_sync
        tgpu.tmem_store %21, %buffers_1[%22] : tensor<128x64xbf16, #linear1>, <?x128x64xbf16>
        tgpu.tmem_wait store
        tgpu.tcgen05_fence before_thread_sync
        tgpu.channel_fill %channel_0[%arg6]
        %23 = arith.cmpi ugt, %arg6, %c0_i32_11 : i32
        scf.if %23 {
          %c1_i32_12 = arith.constant 1 : i32
          %25 = arith.subi %arg6, %c1_i32_12 : i32
          %26 = tgpu.channel_wait %channel[%25]
          tgpu.tcgen05_fence after_thread_sync
          %27 = tgpu.tmem_load %buffers[%26] : <?x128x64xf32> -> tensor<128x64xf32, #linear1>
          %28 = tgpu.tmem_wait load %27 : tensor<128x64xf32, #linear1>
          %29 = arith.mulf %28, %20 : tensor<128x64xf32, #linear1>
          tgpu.tmem_store %29, %buffers[%26] : tensor<128x64xf32, #linear1>, <?x128x64xf32>
          tgpu.tmem_wait store
          tgpu.tcgen05_fence before_thread_sync
          tgpu.channel_release %channel[%25]
        }
        %c1_i32 = arith.constant 1 : i32
        %24 = arith.addi %arg6, %c1_i32 : i32
        scf.yield %12, %24 : tensor<128xf32, #linear>, i32
      }
      %7 = scf.if %5 -> (tensor<128x64xf32, #linear1>) {
        %c1_i32 = arith.constant 1 : i32
        %8 = arith.subi %6#1, %c1_i32 : i32
        %9 = tgpu.channel_wait %channel[%8]
        tgpu.tcgen05_fence after_thread_sync
        %10 = tgpu.tmem_load %buffers[%9] : <?x128x64xf32> -> tensor<128x64xf32, #linear1>
        %11 = tgpu.tmem_wait load %10 : tensor<128x64xf32, #linear1>
        tgpu.tcgen05_fence before_thread_sync
        tgpu.channel_release %channel[%8]
        scf.yield %11 : tensor<128x64xf32, #linear1>
      } else {
        scf.yield %cst_10 : tensor<128x64xf32, #linear1>
      }
      tgpu.tma_store %7, %arg3[%3, %c0_i32] via %1 : tensor<128x64xf32, #linear1>, <?x64xf32, tma = 128x32, swizzle = 128>, <2x128x32xf32, #shared3>
      tgpu.tma_store_wait {pendings = 0 : i32}
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %1 = tile.program_id x
      %2 = arith.muli %1, %c128_i32 : i32
      %3 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>
      %c0_i32_10 = arith.constant 0 : i32
      %4 = tgpu.channel_acquire %channel_4[%c0_i32_10]
      tgpu.tma_load %arg0[%2, %c0_i32] -> %buffers_5[%4], %channel_4 : <?x64xbf16, tma = 128x64, swizzle = 128>, <?x128x64xbf16, #shared>, !tgpu.channel
      %c0_i32_11 = arith.constant 0 : i32
      %5 = scf.for %arg4 = %c0_i32 to %3 step %c64_i32 iter_args(%arg5 = %c0_i32_11) -> (i32)  : i32 {
        %6 = tgpu.channel_acquire %channel_8[%arg5]
        tgpu.tma_load %arg1[%arg4, %c0_i32] -> %buffers_9[%6], %channel_8 : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared1>, !tgpu.channel
        %7 = tgpu.channel_acquire %channel_6[%arg5]
        tgpu.tma_load %arg2[%arg4, %c0_i32] -> %buffers_7[%7], %channel_6 : <?x64xbf16, tma = 64x64, swizzle = 128>, <?x64x64xbf16, #shared1>, !tgpu.channel
        %c1_i32 = arith.constant 1 : i32
        %8 = arith.addi %arg5, %c1_i32 : i32
        scf.yield %8 : i32
      }
    }, {
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %1 = tile.dim %arg1, 0 : !tile.tensor<?x64xbf16, tma = 64x64, swizzle = 128>
      %c0_i32_10 = arith.constant 0 : i32
      %c0_i32_11 = arith.constant 0 : i32
      %2 = tgpu.channel_wait %channel_4[%c0_i32_10]
      %3 = arith.cmpi slt, %c0_i32, %1 : i32
      scf.if %3 {
        %5 = tgpu.channel_wait %channel_8[%c0_i32_11]
        %6 = tgpu.channel_acquire %channel_2[%c0_i32_11]
        tgpu.tcgen05_fence after_thread_sync
        %false = arith.constant false
        tgpu.tcgen05_mma %buffers_5[%2], %0[%5], %buffers_3[%6], %false : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x64xbf16, #shared2>, <?x128x64xf32>
        tgpu.channel_fill %channel_2[%c0_i32_11]
        tgpu.channel_release %channel_8[%c0_i32_11]
      }
      %4 = scf.for %arg4 = %c0_i32 to %1 step %c64_i32 iter_args(%arg5 = %c0_i32_11) -> (i32)  : i32 {
        %5 = arith.addi %arg4, %c64_i32 : i32
        %6 = arith.cmpi slt, %5, %1 : i32
        scf.if %6 {
          %c1_i32_12 = arith.constant 1 : i32
          %12 = arith.addi %arg5, %c1_i32_12 : i32
          %13 = tgpu.channel_wait %channel_8[%12]
          %14 = tgpu.channel_acquire %channel_2[%12]
          tgpu.tcgen05_fence after_thread_sync
          %false = arith.constant false
          tgpu.tcgen05_mma %buffers_5[%2], %0[%13], %buffers_3[%14], %false : !tgpu.smem<?x128x64xbf16, #shared>, <?x64x64xbf16, #shared2>, <?x128x64xf32>
          tgpu.channel_fill %channel_2[%12]
          tgpu.channel_release %channel_8[%12]
        }
        %7 = tgpu.channel_acquire %channel[%arg5]
        %8 = tgpu.channel_wait %channel_0[%arg5]
        tgpu.tcgen05_fence after_thread_sync
        %9 = tgpu.channel_wait %channel_6[%arg5]
        %10 = arith.cmpi ugt, %arg5, %c0_i32_11 : i32
        tgpu.tcgen05_mma %buffers_1[%8], %buffers_7[%9], %buffers[%7], %10 : !tgpu.tmem<?x128x64xbf16>, <?x64x64xbf16, #shared1>, <?x128x64xf32>
        tgpu.channel_fill %channel[%arg5]
        tgpu.channel_release %channel_6[%arg5]
        tgpu.channel_release %channel_0[%arg5]
        %c1_i32 = arith.constant 1 : i32
        %11 = arith.addi %arg5, %c1_i32 : i32
        scf.yield %11 : i32
      }
      tgpu.channel_release %channel_4[%c0_i32_10]
    }
    return
  }
}

// -----

// A CTA pair's GEMM (tgpu.cta_group = 2): the MMA partition's code of a
// tile runs in the pair's first CTA only (cluster rank 0), the use
// counter passing through the if (the other CTA's MMA warp only walks the
// tiles); the load and compute partitions run in both CTAs.
// CHECK-LABEL: func.func @gemm_pair(
// CHECK: tgpu.warp_specialize
// CHECK: }, {
// CHECK: scf.for
// CHECK: tgpu.channel_acquire %channel[
// CHECK: }, {
// CHECK: %{{.*}} = scf.for %[[T:.*]] = %{{.*}} iter_args(%[[I:.*]] = %c0_i32) -> (i32)
// CHECK: %[[RANK:.*]] = tgpu.cluster_rank : i32
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[RANK]], %{{.*}} : i32
// CHECK-NEXT: %[[NEXT:.*]] = scf.if %[[LEAD]] -> (i32) {
// CHECK: tgpu.channel_acquire %channel_0[%[[T]]]
// CHECK: %[[AFTER:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[I]]) -> (i32)
// CHECK: tgpu.tcgen05_mma {{.*}} cta_group 2
// CHECK: tgpu.channel_fill %channel_0[%[[T]]]
// CHECK-NEXT: scf.yield %[[AFTER]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[I]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[NEXT]] : i32
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
    %channel, %buffers:2 = tgpu.channel consumer_warps 1 pair kind <fill = tma, release = mma> : !tgpu.smem<?x128x64xbf16, #shared>, !tgpu.smem<?x64x64xbf16, #shared1>
    %channel_0, %buffers_1 = tgpu.channel consumer_warps 4 pair depth 2 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
    tgpu.cluster_sync
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
    tgpu.cluster_sync
    return
  }
}

// -----

// The dynamic scheduler: the grid stays min(sms, tiles); every region
// walks an scf.while from its program's own tile (program id x); at the
// bottom of tile k the load region waits for response k mod 2 to be free
// and claims the next tile from the counter (two words of the kernel's
// semaphores, which the kernel now has), every region reads it (P + the
// counter's old value, -1 past the last tile) and releases the response;
// after its loop the load region releases the counter.
// CHECK-LABEL: func.func @gemm_dynamic(
// CHECK-SAME: tile.grid = #tile.grid<min(sms, mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256))), 1, 1>
// CHECK-SAME: tile.semaphores = #tile.expr<8>
// CHECK: %[[R:.*]] = tgpu.alloc : <2x4xi32, #{{.*}}>
// CHECK-NEXT: %[[F:.*]] = tgpu.barriers arrive_count 1 : <2>
// CHECK-NEXT: %[[E:.*]] = tgpu.barriers arrive_count 12 : <2>
// CHECK: %[[CTR:.*]] = tile.workspace semaphores[%c2_i32] offset %c0_i64 : !tile.tensor<?xi32>
// CHECK-NEXT: tgpu.warp_specialize
// CHECK: %[[P0:.*]] = tile.program_id x
// CHECK: %[[PLANE:.*]] = arith.muli
// CHECK-NEXT: %[[NP:.*]] = tile.num_programs x
// A program past the last tile (a launch given a wider grid) takes none.
// CHECK: %[[HAS:.*]] = arith.cmpi ult, %[[P0]], %[[PLANE]]
// CHECK-NEXT: %[[T0:.*]] = arith.select %[[HAS]], %[[P0]], %c-1_i32
// CHECK: %[[LOOP:.*]]:3 = scf.while (%[[T:.*]] = %[[T0]], %[[K:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, i32, i32) -> (i32, i32, i32) {
// CHECK: arith.cmpi sge, %[[T]]
// CHECK: } do {
// CHECK: %[[S:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: %[[PH:.*]] = arith.andi
// CHECK-NOT: tgpu.claim_tile
// CHECK: tgpu.channel_acquire
// CHECK: %[[FREE:.*]] = arith.xori %[[PH]]
// CHECK-NEXT: tgpu.wait %[[E]][%[[S]]], %[[FREE]]
// CHECK-NEXT: tgpu.claim_tile %[[CTR]], %[[R]][%[[S]]], %[[F]]
// CHECK-NEXT: tgpu.wait %[[F]][%[[S]]], %[[PH]]
// CHECK-NEXT: %[[OLD:.*]] = tgpu.claimed_tile %[[R]][%[[S]]]
// CHECK-NEXT: %[[N:.*]] = arith.addi %[[OLD]], %[[NP]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[N]], %[[PLANE]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.select %[[IN]], %[[N]], %{{.*}}
// CHECK-NEXT: tgpu.arrive %[[E]][%[[S]]] : <2>
// CHECK: scf.yield %[[NEXT]], %{{.*}}, %{{.*}} : i32, i32, i32
// CHECK: tgpu.release_tile_counter %[[CTR]]
// CHECK-NEXT: }, {
// CHECK: scf.while
// CHECK: } do {
// CHECK-NOT: tgpu.claim_tile
// CHECK: tgpu.tma_store %
// CHECK-NOT: tgpu.claim_tile
// CHECK: tgpu.wait %[[F]]
// CHECK-NEXT: tgpu.claimed_tile %[[R]]
// CHECK-NOT: tgpu.release_tile_counter
// CHECK: tgpu.tma_store_wait {
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
  func.func @gemm_dynamic(%arg0: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %arg1: !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>, %arg2: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>) attributes {tgpu.persistent = #tile.tile_scheduler<dynamic>, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>, tile.kernel, tile.num_warps = 8 : i64} {
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

