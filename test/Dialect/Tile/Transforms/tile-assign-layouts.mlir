// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize | FileCheck %s

// Loads get coalesced layouts (16 bytes a thread along the contiguous dim),
// dot operands are converted to mma.sync fragments, the accumulator layout
// flows through the reduction, and the broadcast back lands in it without a
// conversion.
// CHECK-DAG: #[[LA:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [32, 0]], lane = {{\[\[}}0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}8, 0], [16, 0]]>
// CHECK-DAG: #[[ACC:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0]]>
// CHECK-DAG: #[[OPA:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0]]>
// CHECK-DAG: #[[OPB:linear[0-9]*]] = #tile.linear<register = {{\[\[}}1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[\[}}2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[\[}}0, 0], [0, 0]]>
// CHECK-DAG: #[[RED:linear[0-9]*]] = #tile.linear<register = {{\[\[}}8]], lane = {{\[\[}}0], [0], [1], [2], [4]], warp = {{\[\[}}16], [32]]>
// CHECK-LABEL: func.func @dot_reduce
func.func @dot_reduce(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xf32>, %i: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  // CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<64x32xbf16, #[[LA]]>
  // CHECK: %[[B:.*]] = tile.load {{.*}} -> tensor<32x64xbf16
  // CHECK: %[[CA:.*]] = tile.convert_layout %[[A]] : tensor<64x32xbf16, #[[LA]]> -> tensor<64x32xbf16, #[[OPA]]>
  // CHECK: %[[CB:.*]] = tile.convert_layout %[[B]] : {{.*}} -> tensor<32x64xbf16, #[[OPB]]>
  // CHECK: %[[D:.*]] = tile.dot %[[CA]], %[[CB]], %{{.*}} : {{.*}} -> tensor<64x64xf32, #[[ACC]]>
  // CHECK: %[[M:.*]] = tile.reduce max %[[D]] dim 1 : tensor<64x64xf32, #[[ACC]]> -> tensor<64xf32, #[[RED]]>
  // CHECK: %[[E:.*]] = tile.expand_dims %[[M]] axis 1
  // CHECK: %[[BB:.*]] = tile.broadcast %[[E]] : {{.*}} -> tensor<64x64xf32, #[[ACC]]>
  // CHECK: %[[S:.*]] = arith.subf %[[D]], %[[BB]] : tensor<64x64xf32, #[[ACC]]>
  // The store wants 16 contiguous bytes a thread; the accumulator has 8.
  // CHECK: %[[C:.*]] = tile.convert_layout %[[S]] : tensor<64x64xf32, #[[ACC]]> -> tensor<64x64xf32, #[[LA2:.*]]>
  // CHECK-NOT: tile.convert_layout
  // CHECK: tile.store %[[C]]
  %a = tile.load %x[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %b = tile.load %x[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %a, %b, %z : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  %m = tile.reduce max %d dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
  %e = tile.expand_dims %m axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %bb = tile.broadcast %e : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
  %s = arith.subf %d, %bb : !tile.tile<64x64xf32>
  tile.store %s, %y[%i, %i] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// Loop-carried tiles keep the layout they enter with; the yielded value is
// converted to it (and tile-remove-layout-conversions may carry it in
// another). tile.num_warps sets the warps of the layouts.
// CHECK-DAG: #[[L:linear[0-9]*]] = #tile.linear<register = {{\[\[}}1], [2], [128], [256], [512]], lane = {{\[\[}}4], [8], [16], [32], [64]], warp = []>
// CHECK-LABEL: func.func @loop
func.func @loop(%x: !tile.tensor<?xf32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32, #[[L]]>
  %z = arith.constant dense<0.0> : !tile.tile<1024xf32>
  // CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<1024xf32, #[[L]]>)
  %r = scf.for %j = %c0 to %n step %c1024 iter_args(%acc = %z) -> (!tile.tile<1024xf32>) : i32 {
    // CHECK: tile.load {{.*}} -> tensor<1024xf32, #[[L]]>
    %t = tile.load %x[%j] : !tile.tensor<?xf32> -> !tile.tile<1024xf32>
    // CHECK: arith.addf %[[ACC]], %{{.*}} : tensor<1024xf32, #[[L]]>
    %s = arith.addf %acc, %t : !tile.tile<1024xf32>
    scf.yield %s : !tile.tile<1024xf32>
  }
  tile.store %r, %x[%c0] : !tile.tile<1024xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A column-major view: the coalesced layout runs along dim 0.
// CHECK-DAG: #[[COL:linear[0-9]*]] = #tile.linear<register = {{\[\[}}1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], lane = {{\[\[}}8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], warp = {{\[\[}}0, 4], [0, 8]]>
// CHECK-LABEL: func.func @column_major
func.func @column_major(%x: !tile.tensor<?x?xbf16, strides = [1, ?]>, %i: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  // CHECK: tile.load {{.*}} -> tensor<64x64xbf16, #[[COL]]>
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xbf16, strides = [1, ?]> -> !tile.tile<64x64xbf16>
  tile.store %t, %x[%i, %i] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16, strides = [1, ?]>
  return
}

// -----

// The target is the module's tile.target. On sm_90a (the default) a dot
// whose operands come from views gets the wgmma accumulator: every warp
// along M, 16 rows each.
// CHECK-DAG: #[[WG:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0], [64, 0]]>
// CHECK-LABEL: func.func @sm90_dot
// CHECK: tile.dot {{.*}} -> tensor<128x256xf32, #[[WG]]>
func.func @sm90_dot(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %i = arith.constant 0 : i32
  %ta = tile.load %a[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
  %tb = tile.load %b[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<128x256xf32>
  tile.store %d, %c[%i, %i] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A dot of 64 rows in eight warps: the two warpgroups split N, each holding
// 128 of the 256 columns (the third warp bit), and both hold all of A
// (its operand layout's third warp bit is zero); B's fragments keep each
// warpgroup's columns in its registers.
// CHECK-DAG: #[[WGN:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0], [0, 128]]>
// CHECK-DAG: #[[AN:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0], [0, 0]]>
// CHECK-DAG: #[[BN:linear[0-9]*]] = #tile.linear<register = {{\[\[}}1, 0], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [16, 0], [32, 0]], lane = {{\[\[}}2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[\[}}0, 0], [0, 0], [0, 128]]>
// CHECK-LABEL: func.func @sm90_dot_split_n
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #[[AN]]>, tensor<64x256xbf16, #[[BN]]> -> tensor<64x256xf32, #[[WGN]]>
func.func @sm90_dot_split_n(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %i = arith.constant 0 : i32
  %ta = tile.load %a[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  %tb = tile.load %b[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
  tile.store %d, %c[%i, %i] : !tile.tile<64x256xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// On sm_100a (no wgmma) the same dot gets mma.sync fragments with the warps
// split between M and N.
// CHECK-DAG: #[[MMA:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0], [0, 32], [0, 64], [0, 128], [32, 0], [64, 0]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [0, 8], [0, 16]]>
// CHECK: module attributes {tile.target = #tile.target<sm_100a>}
// CHECK-LABEL: func.func @sm100_dot
// CHECK: tile.dot {{.*}} -> tensor<128x256xf32, #[[MMA]]>
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @sm100_dot(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.grid = #tile.grid<1>} {
  %i = arith.constant 0 : i32
  %ta = tile.load %a[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
  %tb = tile.load %b[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<128x256xf32>
  tile.store %d, %c[%i, %i] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}
}

// -----

// sm_100a: a GEMM loop's one dot that tcgen05 can run (operands loaded,
// bf16 into f32 from zero, 128 rows, 128 columns over 4 warps) gets the
// accumulator layout of tcgen05.ld 32x32b (LinearLayout::tmem32x32b: lane
// and warp along the rows, registers along the columns), carried through
// the loop and stored without conversion; its operands keep mma.sync
// fragments (the plain twin's). A 64-row tile is out of tcgen05's reach
// (128 rows a CTA), and so is a masked B (TMA copies whole boxes):
// mma.sync layouts.
// CHECK-DAG: #[[TMEM:.*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[\[}}32, 0], [64, 0]]>
// CHECK-LABEL: func.func @gemm_tcgen05(
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #[[TMEM]]>)
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[TMEM]]>
// CHECK: tile.store %{{.*}} : tensor<128x128xf32, #[[TMEM]]>
// CHECK-LABEL: func.func @gemm_64_rows(
// CHECK-NOT: #[[TMEM]]>
// CHECK: return
// CHECK-LABEL: func.func @gemm_masked_b(
// CHECK-NOT: #[[TMEM]]>
// CHECK: return
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @gemm_tcgen05(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
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
func.func @gemm_64_rows(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<64x128xf32>
    scf.yield %d : !tile.tile<64x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x128xf32>, !tile.tensor<?x?xf32>
  return
}
func.func @gemm_masked_b(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %ok = arith.constant dense<true> : !tile.tile<64x128xi1>
    %tb = tile.load %b[%k0, %n0] mask(%ok : !tile.tile<64x128xi1>) : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
}

// -----

// sm_100a attention (S = Q·Kᵀ read by the softmax, O = P·V onto the
// carried O times the rescale factor, 16-bit, 128 rows): S, P and O get
// the layout of tcgen05.ld/st 32x32b (S and O f32, P bf16 two to a
// column), so the softmax reads S and writes P, and the rescale reads and
// writes O, with no conversion; O is carried in it. The operands the MMAs
// read from shared memory (Q, Kᵀ, V) keep mma.sync fragments.
// CHECK-DAG: #[[S:.*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[\[}}32, 0], [64, 0]]>
// CHECK-LABEL: func.func @attention_tcgen05(
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #{{.*}}>, tensor<128x64xf32, #[[S]]>)
// CHECK: %[[SC:.*]] = tile.dot {{.*}} -> tensor<128x64xf32, #[[S]]>
// CHECK: %[[O:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<128x64xf32, #[[S]]>
// CHECK: %[[P:.*]] = arith.truncf {{.*}} : tensor<128x64xf32, #[[S]]> to tensor<128x64xbf16, #[[S]]>
// CHECK: tile.dot %[[P]], %{{.*}}, %[[O]] : tensor<128x64xbf16, #[[S]]>, {{.*}} -> tensor<128x64xf32, #[[S]]>
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @attention_tcgen05(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>,
                %v: !tile.tensor<?x64xbf16>, %o: !tile.tensor<?x64xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c128 : i32
  %n = tile.dim %k, 0 : !tile.tensor<?x64xbf16>
  %tq = tile.load %q[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<128x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zo = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %r:2 = scf.for %n0 = %c0 to %n step %c64 iter_args(%m_i = %ninf, %acc = %zo)
      -> (!tile.tile<128xf32>, !tile.tile<128x64xf32>) : i32 {
    %tk = tile.load %k[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %tkt = tile.transpose %tk [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %s = tile.dot %tq, %tkt, %zs : !tile.tile<128x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<128x64xf32>
    %mj = tile.reduce max %s dim 1 : !tile.tile<128x64xf32> -> !tile.tile<128xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<128xf32>
    %me = tile.expand_dims %m_new axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %mb = tile.broadcast %me : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
    %d = arith.subf %s, %mb : !tile.tile<128x64xf32>
    %p = math.exp2 %d : !tile.tile<128x64xf32>
    %dm = arith.subf %m_i, %m_new : !tile.tile<128xf32>
    %alpha = math.exp2 %dm : !tile.tile<128xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x64xf32>
    %tv = tile.load %v[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %pb = arith.truncf %p : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    %acc_new = tile.dot %pb, %tv, %acc_s : !tile.tile<128x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<128x64xf32>
    scf.yield %m_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128x64xf32>
  }
  tile.store %r#1, %o[%m0, %c0] : !tile.tile<128x64xf32>, !tile.tensor<?x64xf32>
  return
}
}

// -----

// sm_100a: an i8 GEMM (i32 accumulation from zero) whose operands are
// K-major (A as loaded, B loaded as NxK and transposed) runs as tcgen05
// .kind::i8: its accumulator gets the tcgen05.ld 32x32b layout; so does a
// tf32 one (f32 operands, K-major).
// CHECK-DAG: #[[TMEM:.*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[\[}}32, 0], [64, 0]]>
// CHECK-LABEL: func.func @gemm_i8_tcgen05(
// CHECK: tile.dot {{.*}} -> tensor<128x128xi32, #[[TMEM]]>
// CHECK-LABEL: func.func @gemm_tf32_tcgen05(
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[TMEM]]>
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @gemm_i8_tcgen05(%a: !tile.tensor<?x?xi8>, %bt: !tile.tensor<?x?xi8>,
                %c: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xi8>
  %zero = arith.constant dense<0> : !tile.tile<128x128xi32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xi32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xi8> -> !tile.tile<128x128xi8>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xi8> -> !tile.tile<128x128xi8>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<128x128xi8> -> !tile.tile<128x128xi8>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xi8>, !tile.tile<128x128xi8>
        -> !tile.tile<128x128xi32>
    scf.yield %d : !tile.tile<128x128xi32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xi32>, !tile.tensor<?x?xi32>
  return
}
func.func @gemm_tf32_tcgen05(%a: !tile.tensor<?x?xf32>, %bt: !tile.tensor<?x?xf32>,
                %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf32> -> !tile.tile<128x32xf32>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf32> -> !tile.tile<128x32xf32>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<128x32xf32> -> !tile.tile<32x128xf32>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x32xf32>, !tile.tile<32x128xf32>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
}

// -----

// sm_100a: two dots in one GEMM loop (swiglu's gate and up) each run as
// tcgen05 when both can and their accumulators fit tensor memory and the
// epilogue's registers together: over 8 warps, two 128x128 accumulators
// are 64 + 64 values a thread. Over 4 warps they would be 256: mma.sync.
// CHECK-DAG: #[[TMEM8:.*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 32], [0, 64]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[\[}}32, 0], [64, 0], [0, 16]]>
// CHECK-LABEL: func.func @two_accumulators(
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[TMEM8]]>
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[TMEM8]]>
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @two_accumulators(%x: !tile.tensor<?x?xbf16>, %wg: !tile.tensor<?x?xbf16>,
                %wu: !tile.tensor<?x?xbf16>, %g: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c128 : i32
  %k = tile.dim %x, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %r:2 = scf.for %k0 = %c0 to %k step %c64 iter_args(%ag = %zero, %au = %zero)
      -> (!tile.tile<128x128xf32>, !tile.tile<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tg = tile.load %wg[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %tu = tile.load %wu[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %dg = tile.dot %tx, %tg, %ag : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %du = tile.dot %tx, %tu, %au : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %dg, %du : !tile.tile<128x128xf32>, !tile.tile<128x128xf32>
  }
  %p = arith.mulf %r#0, %r#1 : !tile.tile<128x128xf32>
  tile.store %p, %g[%m0, %c0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
}

// -----

// (Over 4 warps: no tensor-memory layout in the kernel.)
// CHECK-NOT: #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[\[}}32, 0], [64, 0]]>
// CHECK-LABEL: func.func @two_accumulators_4_warps(
// CHECK: tile.dot
module attributes {tile.target = #tile.target<sm_100a>} {
func.func @two_accumulators_4_warps(%x: !tile.tensor<?x?xbf16>, %wg: !tile.tensor<?x?xbf16>,
                %wu: !tile.tensor<?x?xbf16>, %g: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c128 : i32
  %k = tile.dim %x, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %r:2 = scf.for %k0 = %c0 to %k step %c64 iter_args(%ag = %zero, %au = %zero)
      -> (!tile.tile<128x128xf32>, !tile.tile<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tg = tile.load %wg[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %tu = tile.load %wu[%k0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %dg = tile.dot %tx, %tg, %ag : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %du = tile.dot %tx, %tu, %au : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %dg, %du : !tile.tile<128x128xf32>, !tile.tile<128x128xf32>
  }
  %p = arith.mulf %r#0, %r#1 : !tile.tile<128x128xf32>
  tile.store %p, %g[%m0, %c0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
}

// -----

// Blocks: rows beyond the warps are register bits of the loaded layout, so
// a block of rows is that layout's registers (no conversion), and a concat
// of two such blocks is the loaded layout again; the high column bit is a
// lane bit, so a block of columns takes its own coalesced layout (it moves
// through shared memory when lowered). The block an insert writes is
// converted to the destination's registers where it can be.
// CHECK-DAG: #[[T:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [4, 0], [8, 0], [16, 0]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[\[}}1, 0], [2, 0]]>
// CHECK-DAG: #[[ROWS:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [4, 0], [8, 0]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[\[}}1, 0], [2, 0]]>
// CHECK-DAG: #[[COLS:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [8, 0], [16, 0]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = {{\[\[}}2, 0], [4, 0]]>
// CHECK-LABEL: func.func @blocks
func.func @blocks(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>, %i: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  // CHECK: %[[L:.*]] = tile.load {{.*}} -> tensor<32x128xf32, #[[T]]>
  // CHECK: %[[R:.*]] = tile.extract_slice %[[L]] [16, 0] : tensor<32x128xf32, #[[T]]> -> tensor<16x128xf32, #[[ROWS]]>
  // CHECK: %[[C:.*]] = tile.extract_slice %[[L]] [0, 64] : tensor<32x128xf32, #[[T]]> -> tensor<32x64xf32, #[[COLS]]>
  // CHECK: %[[CAT:.*]] = tile.concat %[[R]], %[[R]] dim 0 : {{.*}} -> tensor<32x128xf32, #[[T]]>
  // CHECK: %[[I:.*]] = tile.insert_slice %[[R]] into %[[CAT]] [0, 0] : tensor<16x128xf32, #[[ROWS]]> into tensor<32x128xf32, #[[T]]>
  // CHECK: tile.insert_slice %[[C]] into %[[I]] [0, 0] : tensor<32x64xf32, #[[COLS]]> into tensor<32x128xf32, #[[T]]>
  // CHECK-NOT: tile.convert_layout
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xf32> -> !tile.tile<32x128xf32>
  %rows = tile.extract_slice %t [16, 0] : !tile.tile<32x128xf32> -> !tile.tile<16x128xf32>
  %cols = tile.extract_slice %t [0, 64] : !tile.tile<32x128xf32> -> !tile.tile<32x64xf32>
  %cat = tile.concat %rows, %rows dim 0 : !tile.tile<16x128xf32>, !tile.tile<16x128xf32> -> !tile.tile<32x128xf32>
  %ins = tile.insert_slice %rows into %cat [0, 0] : !tile.tile<16x128xf32> into !tile.tile<32x128xf32>
  %ins2 = tile.insert_slice %cols into %ins [0, 0] : !tile.tile<32x64xf32> into !tile.tile<32x128xf32>
  tile.store %ins2, %y[%i, %i] : !tile.tile<32x128xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// An insert whose block the destination holds in whole registers converts
// the block into them: the transposed block has its columns on registers,
// the 64x128 destination holds rows 16..31 in registers and columns on
// lanes.
// CHECK-DAG: #[[DEST:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [4, 0], [8, 0], [16, 0], [32, 0]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[\[}}1, 0], [2, 0]]>
// CHECK-DAG: #[[BLOCK:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [0, 2], [4, 0], [8, 0]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[\[}}1, 0], [2, 0]]>
// CHECK-LABEL: func.func @insert_converts
// CHECK: %[[B:.*]] = tile.convert_layout %{{.*}} : tensor<16x128xf32, #{{.*}}> -> tensor<16x128xf32, #[[BLOCK]]>
// CHECK: tile.insert_slice %[[B]] into %{{.*}} [16, 0] : tensor<16x128xf32, #[[BLOCK]]> into tensor<64x128xf32, #[[DEST]]>
func.func @insert_converts(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>, %i: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xf32> -> !tile.tile<64x128xf32>
  %bt = tile.load %x[%i, %i] : !tile.tensor<?x?xf32> -> !tile.tile<128x16xf32>
  %b = tile.transpose %bt [1, 0] : !tile.tile<128x16xf32> -> !tile.tile<16x128xf32>
  %r = tile.insert_slice %b into %t [16, 0] : !tile.tile<16x128xf32> into !tile.tile<64x128xf32>
  tile.store %r, %y[%i, %i] : !tile.tile<64x128xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A spin-wait (scf.while): the ops of both regions get layouts, and a
// carried tile keeps its init's around the loop (the yield converts).
// CHECK-LABEL: func.func @spin
// CHECK: %[[W:.*]] = scf.while (%[[A:.*]] = %{{.*}}) : (tensor<1xi32, #[[L:linear[0-9]*]]>) -> tensor<1xi32, #[[L]]>
// CHECK: tile.atomic_rmw add %{{.*}}, %arg0[%{{.*}}] sem acquire : tensor<1xi32, #[[L]]>
// CHECK: scf.condition(%{{.*}}) %[[A]] : tensor<1xi32, #[[L]]>
// CHECK: } do {
// CHECK: scf.yield %{{.*}} : tensor<1xi32, #[[L]]>
func.func @spin(%s: !tile.tensor<?xi32>, %t: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %i = tile.splat %c0 : i32 -> !tile.tile<1xi32>
  %zero = arith.constant dense<0> : !tile.tile<1xi32>
  %w = scf.while (%a = %zero) : (!tile.tile<1xi32>) -> !tile.tile<1xi32> {
    %seen = tile.atomic_rmw add %a, %s[%i] sem acquire : !tile.tile<1xi32>, !tile.tensor<?xi32>, !tile.tile<1xi32>
    %v = tile.reduce sum %seen dim 0 : !tile.tile<1xi32> -> i32
    %early = arith.cmpi ne, %v, %t : i32
    scf.condition(%early) %a : !tile.tile<1xi32>
  } do {
  ^bb0(%b: !tile.tile<1xi32>):
    %n = arith.addi %b, %b : !tile.tile<1xi32>
    scf.yield %n : !tile.tile<1xi32>
  }
  tile.store %w, %s[%c0] : !tile.tile<1xi32>, !tile.tensor<?xi32>
  return
}
