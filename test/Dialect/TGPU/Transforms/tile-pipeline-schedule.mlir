// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-select-mma-and-tma -tile-pipeline-schedule | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-select-mma-and-tma -tile-pipeline-schedule -verify-diagnostics -o /dev/null

// A loop that is not warp-specialized: the load TMA can issue ahead (from a
// kernel argument, at indices of the induction variable) and the index code
// only it uses go to stage 0, cluster 0; the rest to stage N - 1, cluster 1.
// N: as many 8 KiB slots as fit, at most 3.

// CHECK-LABEL: func.func @colsum
// CHECK: scf.for
// CHECK:   arith.addi {{.*}} {tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32}
// CHECK:   tile.load {{.*}}tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32}
// CHECK:   arith.addf {{.*}} {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 2 : i32}
// CHECK: } {tile.pipeline.num_stages = 3 : i32}
func.func @colsum(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<cdiv(dim(0, 0), 32)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c32 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<32x64xf32>
  %acc = scf.for %k = %c0 to %n step %c32 iter_args(%a = %zero) -> (!tile.tile<32x64xf32>) : i32 {
    %k2 = arith.addi %k, %k : i32
    %t = tile.load %x[%m0, %k2] : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
    %s = arith.addf %a, %t : !tile.tile<32x64xf32>
    scf.yield %s : !tile.tile<32x64xf32>
  }
  tile.store %acc, %y[%m0, %c0] : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// tile.num_stages overrides the choice.

// CHECK-LABEL: func.func @two_stages
// CHECK:   tile.load {{.*}}tile.pipeline.cluster = 0 : i32, tile.pipeline.stage = 0 : i32}
// CHECK:   arith.addf {{.*}} {tile.pipeline.cluster = 1 : i32, tile.pipeline.stage = 1 : i32}
// CHECK: } {tile.pipeline.num_stages = 2 : i32}
func.func @two_stages(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.num_stages = 2 : i32,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 32)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c32 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<32x64xf32>
  %acc = scf.for %k = %c0 to %n step %c32 iter_args(%a = %zero) -> (!tile.tile<32x64xf32>) : i32 {
    %t = tile.load %x[%m0, %k] : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
    %s = arith.addf %a, %t : !tile.tile<32x64xf32>
    scf.yield %s : !tile.tile<32x64xf32>
  }
  tile.store %acc, %y[%m0, %c0] : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// TMA fills with zeros only: a load padded with -inf stays in its
// iteration, with a remark, and the loop is not scheduled.

// CHECK-LABEL: func.func @rowmax
// CHECK-NOT: tile.pipeline
// CHECK: return
func.func @rowmax(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<cdiv(dim(0, 0), 32)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c32 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<32x64xf32>
  %acc = scf.for %k = %c0 to %n step %c32 iter_args(%a = %ninf) -> (!tile.tile<32x64xf32>) : i32 {
    // expected-remark @+1 {{load not copied with TMA: the padding is not zero}}
    %t = tile.load %x[%m0, %k] {padding = 0xFF800000 : f32} : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
    %s = arith.maximumf %a, %t : !tile.tile<32x64xf32>
    scf.yield %s : !tile.tile<32x64xf32>
  }
  tile.store %acc, %y[%m0, %c0] : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// Scratch that only ops after the loop use (here a 64 KiB conversion of the
// result, once every buffer is dead) takes the ring's bytes
// (tile-allocate-shared-memory places it there): it does not count
// against the stages, 3 of 64 KiB. Counted, it would leave room for 2.

#blk = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0], [64, 0], [0, 64]], lane = [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
#other = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32], [0, 64], [64, 0]], lane = [[16, 0], [32, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 8], [0, 16]]>

// CHECK-LABEL: func.func @scratch_after_loop
// CHECK: } {tile.pipeline.num_stages = 3 : i32}
// CHECK: tile.convert_layout
func.func @scratch_after_loop(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c128 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #blk>
  %acc = scf.for %k = %c0 to %n step %c128 iter_args(%a = %zero) -> (tensor<128x128xf32, #blk>) : i32 {
    %t = tile.load %x[%m0, %k] {tgpu.tma = #tgpu.tma_copy<box = [128, 32], swizzle = 128>} : !tile.tensor<?x?xf32> -> tensor<128x128xf32, #blk>
    %s = arith.addf %a, %t : tensor<128x128xf32, #blk>
    scf.yield %s : tensor<128x128xf32, #blk>
  }
  %c = tile.convert_layout %acc : tensor<128x128xf32, #blk> -> tensor<128x128xf32, #other>
  tile.store %c, %y[%m0, %c0] : tensor<128x128xf32, #other>, !tile.tensor<?x?xf32>
  return
}
