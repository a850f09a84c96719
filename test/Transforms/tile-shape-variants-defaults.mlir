// RUN: tilec-opt %s -tile-shape-variants -verify-diagnostics | FileCheck %s
//
// The extra tile shapes tilec compiles by default on sm_90a (128x128 and
// 128x64 where the program's tile is larger) are an offer, not a demand: one
// that cannot be built is left out with a remark, never an error (issue 12:
// a valid fp8 GEMM with a K step of 128 was rejected).

// CHECK-LABEL: func.func @kstep_default(
// CHECK-SAME: tile.variants = ["kstep_default__128x128_k2", "kstep_default__128x128_k4"]
// CHECK: return
// CHECK-NOT: func.func @kstep_default__128x64
// The same kernel without tile.tile_shapes: the default 128x64 shape cannot
// be built, so it is left out with a remark; the kernel compiles as
// written, with its split-K members only.
// expected-remark @+1 {{'kstep_default' is not also compiled at tile shape 128x64: the constant 128 is also used by 'scf.for', which may depend on the tile size}}
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

