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

// -----

// A tile of fewer elements than the kernel has threads (64 < 128) is stored
// in the layout it has: the conversion that only widened the writes (to 4
// contiguous elements a thread) goes, and the reshape takes the source's
// layout. Threads that hold the same element store the same value.
// CHECK-LABEL: func.func @small_store
// CHECK-NOT: tile.convert_layout
// CHECK: %[[R:.*]] = tile.reshape %{{.*}} : tensor<64xf32, #[[A:linear[0-9]*]]> -> tensor<1x64xf32
// CHECK: tile.store %[[R]]
#rows = #tile.linear<register = [[32]], lane = [[0], [0], [1], [2], [4]], warp = [[8], [16]]>
#wide = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [0]], warp = [[0], [0]]>
#wide2 = #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [0, 0]], warp = [[0, 0], [0, 0]]>
func.func @small_store(%x: !tile.tensor<?xf32>, %o: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %v = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<64xf32, #rows>
  %e = math.exp %v : tensor<64xf32, #rows>
  %c = tile.convert_layout %e : tensor<64xf32, #rows> -> tensor<64xf32, #wide>
  %r = tile.reshape %c : tensor<64xf32, #wide> -> tensor<1x64xf32, #wide2>
  tile.store %r, %o[%c0, %c0] : tensor<1x64xf32, #wide2>, !tile.tensor<?x?xf32>
  return
}

// -----

// 128 elements, 128 threads: the conversion for wide stores stays.
// CHECK-LABEL: func.func @store_converted
// CHECK: tile.convert_layout
// CHECK: tile.store
#rows128 = #tile.linear<register = [[32], [64]], lane = [[0], [0], [1], [2], [4]], warp = [[8], [16]]>
#wide128 = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[0], [0]]>
func.func @store_converted(%x: !tile.tensor<?xf32>, %o: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %v = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<128xf32, #rows128>
  %e = math.exp %v : tensor<128xf32, #rows128>
  %c = tile.convert_layout %e : tensor<128xf32, #rows128> -> tensor<128xf32, #wide128>
  tile.store %c, %o[%c0] : tensor<128xf32, #wide128>, !tile.tensor<?xf32>
  return
}

// -----

// A masked store of a 2-D result into a 3-D view (O[h, rows, :] in
// attention): the conversion after the reshape sinks through it and folds
// with the one before, so the value converts once; the row mask is
// rebuilt from its iota in the store's layout, not converted through
// shared memory.
// CHECK-LABEL: func.func @masked_store_3d
// CHECK: %[[D:.*]] = tile.dot
// CHECK: %[[T:.*]] = arith.truncf %[[D]]
// CHECK: %[[C:.*]] = tile.convert_layout %[[T]] : tensor<64x64xbf16, #{{.*}}> -> tensor<64x64xbf16, #[[ST:linear[0-9]*]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[V:.*]] = tile.reshape %[[C]]
// CHECK: arith.cmpi slt, {{.*}} : tensor<64xi32, #{{.*}}>
// CHECK: %[[MB:.*]] = tile.broadcast {{.*}} -> tensor<64x64xi1, #[[ST]]>
// CHECK: %[[M:.*]] = tile.reshape %[[MB]]
// CHECK: tile.store %[[V]], {{.*}} mask(%[[M]]
func.func @masked_store_3d(%a: !tile.tensor<?x?xbf16>, %o: !tile.tensor<?x?x64xbf16>, %n: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  %t = arith.truncf %d : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  %t3 = tile.reshape %t : !tile.tile<64x64xbf16> -> !tile.tile<1x64x64xbf16>
  %i = tile.iota : !tile.tile<64xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<64xi32>
  %mine = arith.cmpi slt, %i, %nt : !tile.tile<64xi32>
  %me = tile.expand_dims %mine axis 1 : !tile.tile<64xi1> -> !tile.tile<64x1xi1>
  %mb = tile.broadcast %me : !tile.tile<64x1xi1> -> !tile.tile<64x64xi1>
  %m3 = tile.reshape %mb : !tile.tile<64x64xi1> -> !tile.tile<1x64x64xi1>
  tile.store %t3, %o[%c0, %c0, %c0] mask(%m3 : !tile.tile<1x64x64xi1>) : !tile.tile<1x64x64xbf16>, !tile.tensor<?x?x64xbf16>
  return
}
