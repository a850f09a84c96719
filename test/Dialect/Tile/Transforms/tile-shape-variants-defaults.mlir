// RUN: tilec-opt %s -tile-shape-variants -verify-diagnostics | FileCheck %s
//
// The extra tile shapes tilec compiles by default on sm_90a (128x128 and
// 128x64; 64x256, 64x128 and 64x64 with one warpgroup, and those 64-row
// shapes' split-K members) are an offer, not a demand: one that cannot be
// built is left out with a remark, never an error (issue 12: a valid fp8
// GEMM with a K step of 128 was rejected).

// A K step equal to the tile size is not the tile size in disguise: every
// default shape is built (it once left out 128x64 and the 64-row shapes).
// The 64-row members have one warpgroup (4 warps).
// CHECK-LABEL: func.func @kstep_default(
// CHECK-SAME: tile.variants = [@kstep_default__128x64, @kstep_default__64x128, @kstep_default__64x64, @kstep_default__64x128_k2, @kstep_default__64x64_k2, @kstep_default__64x64_k4, @kstep_default__128x128_sk, @kstep_default__16x64_swap, @kstep_default__32x64_swap]
// CHECK-LABEL: func.func @kstep_default__128x64(
// CHECK-SAME: tile.num_warps = 8
// CHECK: scf.for {{.*}} step %c128
// CHECK-LABEL: func.func @kstep_default__64x128(
// CHECK-SAME: tile.num_warps = 4
// CHECK: scf.for {{.*}} step %c128
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32>
// Its swap-AB members read B's tile as loaded (N x K: K-major, as an fp8
// A must be) and A's transposed (K-major as an fp8 B), and double the K
// step to 256.
// CHECK-LABEL: func.func @kstep_default__16x64_swap(
// CHECK: scf.for {{.*}} -> (tensor<64x16xf32>)
// CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<16x256xf8E4M3FN>
// CHECK: %[[BT:.*]] = tile.load {{.*}} -> tensor<64x256xf8E4M3FN>
// CHECK: %[[AT:.*]] = tile.transpose %[[A]] [1, 0] : tensor<16x256xf8E4M3FN> -> tensor<256x16xf8E4M3FN>
// CHECK: tile.dot %[[BT]], %[[AT]], %{{.*}} : tensor<64x256xf8E4M3FN>, tensor<256x16xf8E4M3FN> -> tensor<64x16xf32>
func.func @kstep_default(%a: !tile.tensor<?x?xf8E4M3FN>, %bt: !tile.tensor<?x?xf8E4M3FN>,
                 %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The constant 128 also bounds the K loop, so no shape with 64 rows or 64
// columns can be built: each is left out with a remark, and the kernel
// compiles as written (its K extent is not a launch expression either, so
// it has no split members).
// CHECK-LABEL: func.func @bound_default(
// CHECK-NOT: tile.variants
// CHECK: return
// CHECK-NOT: func.func @bound_default__
// expected-remark @+3 {{'bound_default' is not also compiled at tile shape 128x64: the constant 128 is also used by 'arith.maxsi', which may depend on the tile size}}
// expected-remark @+2 {{'bound_default' is not also compiled at tile shape 64x128: the constant 128 is also used by 'arith.maxsi', which may depend on the tile size}}
// expected-remark @+1 {{'bound_default' is not also compiled at tile shape 64x64: the constant 128 is also used by 'arith.maxsi', which may depend on the tile size}}
func.func @bound_default(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                 %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %kk = arith.maxsi %k, %c128 : i32
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %kk step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// A K loop that carries two accumulators (a gated MLP) cannot be split:
// the 64-row shapes are built, and the kernel says once (not once a shape)
// that it has no split-K members.
// CHECK-LABEL: func.func @two_accumulators(
// CHECK-SAME: tile.variants = [@two_accumulators__128x64, @two_accumulators__64x128, @two_accumulators__64x64]
// CHECK-NOT: _k2
// Nor has it swap-AB members (it says so once).
// expected-remark @+2 {{'two_accumulators' has no split-K members: the K loop carries more than the accumulator}}
// expected-remark @+1 {{'two_accumulators' has no swap-AB member 16x64: the K loop carries more than the dot's accumulator}}
func.func @two_accumulators(%x: !tile.tensor<?x?xbf16>, %wg: !tile.tensor<?x?xbf16>,
                            %wu: !tile.tensor<?x?xbf16>, %h: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %x, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %g, %u = scf.for %k0 = %c0 to %k step %c64 iter_args(%ag = %zero, %au = %zero)
      -> (!tile.tile<128x128xf32>, !tile.tile<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tg = tile.load %wg[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %tu = tile.load %wu[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %dg = tile.dot %tx, %tg, %ag : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %du = tile.dot %tx, %tu, %au : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %dg, %du : !tile.tile<128x128xf32>, !tile.tile<128x128xf32>
  }
  %p = arith.mulf %g, %u : !tile.tile<128x128xf32>
  tile.store %p, %h[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// A computed in the loop (scaled) is no loaded tile: swapped it would be
// wgmma's B, which must come from shared memory, so the kernel has no
// swap-AB members (they would run on mma.sync), only the others.
// CHECK-LABEL: func.func @scaled_a(
// CHECK-NOT: _swap
// CHECK: return
// expected-remark @+1 {{'scaled_a' has no swap-AB member 16x64: A is not a loaded tile (swapped, it is wgmma's B, read from shared memory)}}
func.func @scaled_a(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                    %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %two = arith.constant dense<2.0> : !tile.tile<128x64xbf16>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tas = arith.mulf %ta, %two : !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %tas, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
