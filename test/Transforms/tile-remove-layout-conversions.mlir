// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-remove-layout-conversions -canonicalize | FileCheck %s

// The accumulator is carried in the dot's layout: no conversion in the
// loop. After it, the bias add and ReLU run in that layout too and the one
// conversion left sits on the bf16 result, before the coalesced store.
// CHECK-LABEL: func.func @gemm_like
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #[[ACC:linear[0-9]*]]>)
// CHECK-NOT: tile.convert_layout %arg
// CHECK: %[[D:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #[[ACC]]>
// CHECK: scf.yield %[[D]]
// CHECK: arith.addf {{.*}} : tensor<64x64xf32, #[[ACC]]>
// CHECK: arith.maximumf {{.*}} : tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[T:.*]] = arith.truncf {{.*}} : tensor<64x64xf32, #[[ACC]]> to tensor<64x64xbf16, #[[ACC]]>
// CHECK: %[[C:.*]] = tile.convert_layout %[[T]]
// CHECK: tile.store %[[C]]
func.func @gemm_like(%a: !tile.tensor<?x?xbf16>, %bias: !tile.tensor<?xf32>,
                     %c: !tile.tensor<?x?xbf16>, %k: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %z) -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%c0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
    %tb = tile.load %a[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  %bv = tile.load %bias[%c0] : !tile.tensor<?xf32> -> !tile.tile<64xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
  %bb = tile.broadcast %be : !tile.tile<1x64xf32> -> !tile.tile<64x64xf32>
  %y = arith.addf %acc, %bb : !tile.tile<64x64xf32>
  %r = arith.maximumf %y, %z : !tile.tile<64x64xf32>
  %o = arith.truncf %r : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  tile.store %o, %c[%c0, %c0] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// A mask built from iota and splats is rebuilt in the layout of the value
// it selects from, instead of converting that value.
// CHECK-LABEL: func.func @mask
// CHECK: %[[D:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #[[ACC:linear[0-9]*]]>
// CHECK-NOT: tile.convert_layout %[[D]]
// CHECK: arith.select {{.*}} : tensor<64x64xi1, #[[ACC]]>, tensor<64x64xf32, #[[ACC]]>
// CHECK: tile.reduce max
func.func @mask(%a: !tile.tensor<?x?xbf16>, %out: !tile.tensor<?xf32>, %n: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  %i = tile.iota : !tile.tile<64xi32>
  %ie = tile.expand_dims %i axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %ib = tile.broadcast %ie : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<64x64xi32>
  %keep = arith.cmpi slt, %ib, %nt : !tile.tile<64x64xi32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  %s = arith.select %keep, %d, %ninf : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
  %m = tile.reduce max %s dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
  tile.store %m, %out[%c0] : !tile.tile<64xf32>, !tile.tensor<?xf32>
  return
}
