// RUN: tilec-opt %s -split-input-file -canonicalize | FileCheck %s

#a = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>
#b = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = []>

// A conversion to the layout a value already has folds away; two in a row
// become one.
// CHECK-LABEL: func.func @fold
// CHECK-SAME: (%[[X:.*]]: tensor<32xf32, #[[A:.*]]>)
func.func @fold(%x: !tile.tile<32xf32, #a>) -> !tile.tile<32xf32, #a> {
  // CHECK-NOT: tile.convert_layout
  // CHECK: return %[[X]]
  %0 = tile.convert_layout %x : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  %1 = tile.convert_layout %0 : !tile.tile<32xf32, #b> -> !tile.tile<32xf32, #a>
  return %1 : !tile.tile<32xf32, #a>
}

// -----

#a = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>
#b = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = []>

// Splats, splat constants and iota are rebuilt in the target layout.
// CHECK-LABEL: func.func @remat
func.func @remat(%s: f32) -> (!tile.tile<32xf32, #b>, !tile.tile<32xi32, #b>, !tile.tile<32xf32, #b>) {
  // CHECK-NOT: tile.convert_layout
  // CHECK-DAG: tile.splat %{{.*}} : f32 -> tensor<32xf32, #[[B:.*]]>
  // CHECK-DAG: tile.iota : tensor<32xi32, #[[B]]>
  // CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<32xf32, #[[B]]>
  %0 = tile.splat %s : f32 -> !tile.tile<32xf32, #a>
  %1 = tile.convert_layout %0 : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  %2 = tile.iota : !tile.tile<32xi32, #a>
  %3 = tile.convert_layout %2 : !tile.tile<32xi32, #a> -> !tile.tile<32xi32, #b>
  %4 = arith.constant dense<1.0> : !tile.tile<32xf32, #a>
  %5 = tile.convert_layout %4 : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  return %1, %3, %5 : !tile.tile<32xf32, #b>, !tile.tile<32xi32, #b>, !tile.tile<32xf32, #b>
}

// -----

#row = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>
#col = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []>
#v = #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>

// A conversion of a broadcast moves to the (smaller) operand, whose layout
// becomes the broadcast slice of the target.
// CHECK-DAG: #[[S:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], lane = {{\[\[}}0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = []>
// CHECK-LABEL: func.func @sink_broadcast
func.func @sink_broadcast(%x: !tile.tile<1x32xf32, #v>) -> !tile.tile<32x32xf32, #col> {
  // CHECK: %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<1x32xf32, {{.*}}> -> tensor<1x32xf32, #[[S]]>
  // CHECK: %[[B:.*]] = tile.broadcast %[[C]]
  // CHECK: return %[[B]]
  %0 = tile.broadcast %x : !tile.tile<1x32xf32, #v> -> !tile.tile<32x32xf32, #row>
  %1 = tile.convert_layout %0 : !tile.tile<32x32xf32, #row> -> !tile.tile<32x32xf32, #col>
  return %1 : !tile.tile<32x32xf32, #col>
}

// -----

// Blocks of a loaded tile that only blocks read are loads of their own, at
// the load's offsets plus the block's, with its padding.
// CHECK-LABEL: func.func @blocks_of_a_load
// CHECK-SAME: (%[[X:.*]]: !tile.tensor<?x?xbf16>, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[A:.*]] = tile.load %[[X]][%[[I]], %[[J]]] {padding = 1.000000e+00 : bf16} : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16>
// CHECK-DAG: %[[I16:.*]] = arith.addi %[[I]], %[[C16]] : i32
// CHECK-DAG: %[[J64:.*]] = arith.addi %[[J]], %[[C64]] : i32
// CHECK: %[[B:.*]] = tile.load %[[X]][%[[I16]], %[[J64]]] {padding = 1.000000e+00 : bf16} : !tile.tensor<?x?xbf16> -> tensor<32x64xbf16>
// CHECK-NOT: tile.extract_slice
// CHECK: return %[[A]], %[[B]]
func.func @blocks_of_a_load(%x: !tile.tensor<?x?xbf16>, %i: i32, %j: i32)
    -> (!tile.tile<64x64xbf16>, !tile.tile<32x64xbf16>) {
  %t = tile.load %x[%i, %j] {padding = 1.0 : bf16} : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
  %a = tile.extract_slice %t [0, 0] : !tile.tile<64x128xbf16> -> !tile.tile<64x64xbf16>
  %b = tile.extract_slice %t [16, 64] : !tile.tile<64x128xbf16> -> !tile.tile<32x64xbf16>
  return %a, %b : !tile.tile<64x64xbf16>, !tile.tile<32x64xbf16>
}

// -----

// A load something else reads too stays whole (the blocks are registers or
// a move through shared memory, not a second read of memory).
// CHECK-LABEL: func.func @load_read_whole
// CHECK: %[[T:.*]] = tile.load
// CHECK: tile.extract_slice %[[T]] [0, 64]
func.func @load_read_whole(%x: !tile.tensor<?x?xbf16>, %i: i32)
    -> (!tile.tile<64x128xbf16>, !tile.tile<64x64xbf16>) {
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
  %a = tile.extract_slice %t [0, 64] : !tile.tile<64x128xbf16> -> !tile.tile<64x64xbf16>
  return %t, %a : !tile.tile<64x128xbf16>, !tile.tile<64x64xbf16>
}

// -----

// An f32 atomic add nobody reads whose index tiles address a box (an
// offset along each view dim, an iota along one tile dim each, in order)
// is a reducing store of the box: attention backward's dQ rows.
// CHECK-LABEL: func.func @atomic_add_box
// CHECK-SAME: (%[[ACC:.*]]: !tile.tensor<?x?x?x64xf32>, %[[V:.*]]: tensor<32x64xf32>, %[[B:.*]]: i32, %[[M0:.*]]: i32)
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[R:.*]] = tile.reshape %[[V]] : tensor<32x64xf32> -> tensor<1x1x32x64xf32>
// CHECK: tile.store %[[R]], %[[ACC]][%[[B]], %[[C0]], %[[M0]], %[[C0]]] reduce add
// CHECK-NOT: tile.atomic_rmw
func.func @atomic_add_box(%acc: !tile.tensor<?x?x?x64xf32>, %v: !tile.tile<32x64xf32>,
                          %b: i32, %m0: i32) {
  %z = arith.constant dense<0> : !tile.tile<32x64xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<32x64xi32>
  %ri = tile.iota : !tile.tile<32xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<32xi32>
  %r = arith.addi %ri, %m0t : !tile.tile<32xi32>
  %r2 = tile.expand_dims %r axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %r2 : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %ci = tile.iota : !tile.tile<64xi32>
  %c2 = tile.expand_dims %ci axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cols = tile.broadcast %c2 : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  %old = tile.atomic_rmw add %v, %acc[%bt, %z, %rows, %cols] sem relaxed
      : !tile.tile<32x64xf32>, !tile.tensor<?x?x?x64xf32>, !tile.tile<32x64xi32>,
        !tile.tile<32x64xi32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32>
  return
}

// -----

// Not a box, or not a plain reduction: kept as atomics. Columns in the
// other order (a transposed box), 2 * iota, an old value that is read,
// the default acq_rel ordering.
// CHECK-LABEL: func.func @atomic_add_not_box
// CHECK-COUNT-4: tile.atomic_rmw
// CHECK-NOT: reduce add
func.func @atomic_add_not_box(%acc: !tile.tensor<?x?xf32>, %v: !tile.tile<32x32xf32>)
    -> !tile.tile<32x32xf32> {
  %i = tile.iota : !tile.tile<32xi32>
  %i0 = tile.expand_dims %i axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %i0 : !tile.tile<32x1xi32> -> !tile.tile<32x32xi32>
  %i1 = tile.expand_dims %i axis 0 : !tile.tile<32xi32> -> !tile.tile<1x32xi32>
  %cols = tile.broadcast %i1 : !tile.tile<1x32xi32> -> !tile.tile<32x32xi32>
  %a = tile.atomic_rmw add %v, %acc[%cols, %rows] sem relaxed
      : !tile.tile<32x32xf32>, !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32>
  %two = arith.addi %cols, %cols : !tile.tile<32x32xi32>
  %b = tile.atomic_rmw add %v, %acc[%rows, %two] sem relaxed
      : !tile.tile<32x32xf32>, !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32>
  %c = tile.atomic_rmw add %v, %acc[%rows, %cols]
      : !tile.tile<32x32xf32>, !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32>
  %d = tile.atomic_rmw add %v, %acc[%rows, %cols] sem relaxed
      : !tile.tile<32x32xf32>, !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32>
  return %d : !tile.tile<32x32xf32>
}

// -----

// A gather whose index tiles address a box is a load of the box: LSE's
// rows of one (batch, head) gathered as lse[b, h, m0 + iota] (a 1-d tile
// of a 3-d view: loaded as 1x1x64 and reshaped), and a 2-d block with its
// mask and padding kept.
// CHECK-LABEL: func.func @gather_box
// CHECK-SAME: (%[[LSE:.*]]: !tile.tensor<?x?x?xf32>, %[[T:.*]]: !tile.tensor<?x?xf32>, %[[B:.*]]: i32, %[[H:.*]]: i32, %[[M0:.*]]: i32, %[[OK:.*]]: tensor<32x64xi1>)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[L:.*]] = tile.load %[[LSE]][%[[B]], %[[H]], %[[M0]]] : !tile.tensor<?x?x?xf32> -> tensor<1x1x64xf32>
// CHECK: %[[R:.*]] = tile.reshape %[[L]] : tensor<1x1x64xf32> -> tensor<64xf32>
// CHECK: %[[K:.*]] = tile.load %[[T]][%[[C3]], %[[C0]]] mask(%[[OK]] : tensor<32x64xi1>) {padding = 1.000000e+00 : f32}
// CHECK-NOT: tile.gather
// CHECK: return %[[R]], %[[K]]
func.func @gather_box(%lse: !tile.tensor<?x?x?xf32>, %t: !tile.tensor<?x?xf32>,
                      %b: i32, %h: i32, %m0: i32, %ok: !tile.tile<32x64xi1>)
    -> (!tile.tile<64xf32>, !tile.tile<32x64xf32>) {
  %bt = tile.splat %b : i32 -> !tile.tile<64xi32>
  %ht = tile.splat %h : i32 -> !tile.tile<64xi32>
  %i = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %rows = arith.addi %m0t, %i : !tile.tile<64xi32>
  %l = tile.gather %lse[%bt, %ht, %rows]
      : !tile.tensor<?x?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32>, !tile.tile<64xi32>
        -> !tile.tile<64xf32>
  %three = arith.constant dense<3> : !tile.tile<32xi32>
  %ri = tile.iota : !tile.tile<32xi32>
  %r = arith.addi %ri, %three : !tile.tile<32xi32>
  %r2 = tile.expand_dims %r axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rs = tile.broadcast %r2 : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %c2 = tile.expand_dims %i axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cs = tile.broadcast %c2 : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  %k = tile.gather %t[%rs, %cs] mask(%ok : !tile.tile<32x64xi1>) {padding = 1.0 : f32}
      : !tile.tensor<?x?xf32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32> -> !tile.tile<32x64xf32>
  return %l, %k : !tile.tile<64xf32>, !tile.tile<32x64xf32>
}

// -----

// Not boxes: rows through a table (an index tile loaded), columns in the
// other order, 2 * iota.
// CHECK-LABEL: func.func @gather_not_box
// CHECK-COUNT-3: tile.gather
// CHECK-NOT: tile.load
func.func @gather_not_box(%t: !tile.tensor<?x?xf32>, %ids: !tile.tile<32x32xi32>)
    -> (!tile.tile<32x32xf32>, !tile.tile<32x32xf32>, !tile.tile<32x32xf32>) {
  %i = tile.iota : !tile.tile<32xi32>
  %i0 = tile.expand_dims %i axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %i0 : !tile.tile<32x1xi32> -> !tile.tile<32x32xi32>
  %i1 = tile.expand_dims %i axis 0 : !tile.tile<32xi32> -> !tile.tile<1x32xi32>
  %cols = tile.broadcast %i1 : !tile.tile<1x32xi32> -> !tile.tile<32x32xi32>
  %a = tile.gather %t[%ids, %cols]
      : !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32> -> !tile.tile<32x32xf32>
  %b = tile.gather %t[%cols, %rows]
      : !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32> -> !tile.tile<32x32xf32>
  %two = arith.addi %cols, %cols : !tile.tile<32x32xi32>
  %c = tile.gather %t[%rows, %two]
      : !tile.tensor<?x?xf32>, !tile.tile<32x32xi32>, !tile.tile<32x32xi32> -> !tile.tile<32x32xf32>
  return %a, %b, %c : !tile.tile<32x32xf32>, !tile.tile<32x32xf32>, !tile.tile<32x32xf32>
}
