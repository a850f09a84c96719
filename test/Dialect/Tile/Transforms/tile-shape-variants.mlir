// RUN: tilec-opt %s -split-input-file -tile-shape-variants -verify-diagnostics | FileCheck %s
// The same kernels in modules for sm_100a (tile.target):
// RUN: sed -e 's/^func\.func/module attributes {tile.target = #tile.target<sm_100a>} { func.func/' -e 's/^}$/} }/' %s \
// RUN:   | tilec-opt -split-input-file -tile-shape-variants -verify-diagnostics | FileCheck %s --check-prefix=SM100

// A 128x256 GEMM with a column bias: on sm_90a also compiled at 128x128,
// 128x64, with one warpgroup (4 warps) at 64x256, 64x128 and 64x64, and
// at 256x128.
// Every tile dim that follows the output's columns (rows) shrinks: B's
// columns, the bias, the accumulator, the epilogue (A's rows, the
// accumulator); K stays. The column offset becomes program_id y * 128 (a
// new constant: 256 is not reused), the grid cdiv(N, 128). The 64-row
// members whose accumulator fits are also split along K (below). Each
// member gets a cost: the longer of its waves of K steps (cdiv(K, 64)
// steps of a tile of its shape) and reading A and B once, plus half the
// shorter (they overlap imperfectly), plus a split member's fix-up.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), sms), mul(cdiv(dim(0, 1), 64), add(add(32768, mul([[MISA:min\(sub\(mul\(stride\(0, 0\), 2\), mul\(div\(mul\(stride\(0, 0\), 2\), 32\), 32\)\), 1\)]], 2184)), mul([[MISB:min\(sub\(mul\(stride\(1, 0\), 2\), mul\(div\(mul\(stride\(1, 0\), 2\), 32\), 32\)\), 1\)]], 4369)))), div(mul(add(mul(dim(0, 0), 2), mul(dim(1, 1), 2)), dim(0, 1)), 56)), div(min(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), sms), mul(cdiv(dim(0, 1), 64), add(add(32768, mul([[MISA]], 2184)), mul([[MISB]], 4369)))), div(mul(add(mul(dim(0, 0), 2), mul(dim(1, 1), 2)), dim(0, 1)), 56)), 2))>
// CHECK-SAME: tile.num_warps = 8
// CHECK-SAME: tile.variants = [@gemm__128x128, @gemm__128x64, @gemm__64x256, @gemm__64x128, @gemm__64x64, @gemm__256x128, @gemm__128x192, @gemm__64x128_k2, @gemm__64x64_k2, @gemm__64x64_k4, @gemm__128x256_sk, @gemm__128x256_c2, @gemm__128x128_pp, @gemm__16x64_swap, @gemm__32x64_swap]
// CHECK: tile.load {{.*}} -> tensor<64x256xbf16>
// CHECK: tile.dot {{.*}} -> tensor<128x256xf32>
// CHECK-LABEL: func.func @gemm__128x128(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)), sms), mul(cdiv(dim(0, 1), 64), add(add(20753, mul([[MISA]], 2184)), mul([[MISB]], 2184)))), {{[^>]*}})>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>
// CHECK-SAME: tile.variant_of = @gemm
// CHECK: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: %[[PN:.*]] = tile.program_id y
// CHECK: %[[N128:.*]] = arith.constant 128 : i32
// CHECK: arith.muli %[[PN]], %[[N128]]
// CHECK: arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32>)
// CHECK: tile.load {{.*}} -> tensor<128x64xbf16>
// CHECK: tile.load {{.*}} -> tensor<64x128xbf16>
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK: tile.load {{.*}} -> tensor<128xf32>
// CHECK: tile.expand_dims {{.*}} -> tensor<1x128xf32>
// CHECK: tile.broadcast {{.*}} -> tensor<128x128xf32>
// CHECK: arith.truncf {{.*}} to tensor<128x128xbf16>
// CHECK: tile.store {{.*}} : tensor<128x128xbf16>
// CHECK-LABEL: func.func @gemm__128x64(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 64)), sms), mul(cdiv(dim(0, 1), 64), add(add(14745, mul([[MISA]], 2185)), mul([[MISB]], 1092)))), {{[^>]*}})>
// CHECK-SAME: tile.num_warps = 8
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
// CHECK-LABEL: func.func @gemm__64x256(
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 256)>
// CHECK-SAME: tile.num_warps = 4
// CHECK: %[[PM:.*]] = tile.program_id x
// CHECK: %[[M64:.*]] = arith.constant 64 : i32
// CHECK: arith.muli %[[PM]], %[[M64]]
// CHECK: tile.load {{.*}} -> tensor<64x64xbf16>
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16>, tensor<64x256xbf16> -> tensor<64x256xf32>
// CHECK: tile.broadcast {{.*}} -> tensor<64x256xf32>
// CHECK: tile.store {{.*}} : tensor<64x256xbf16>
// CHECK-LABEL: func.func @gemm__64x64(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)), sms), mul(cdiv(dim(0, 1), 64), add(add(9557, mul([[MISA]], 1092)), mul([[MISB]], 1092)))), {{[^>]*}})>
// CHECK-SAME: tile.num_warps = 4
// The tile on its side: 256x128 on the two warpgroups (128 rows each),
// one K step costed 3% above 128x256's (measured slower a tile), so it
// wins only where it saves a wave.
// CHECK-LABEL: func.func @gemm__256x128(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 256), cdiv(dim(1, 1), 128)), sms), mul(cdiv(dim(0, 1), 64), add(add(33751, mul([[MISA]], 4500)), mul([[MISB]], 2250)))), {{[^>]*}})>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 256), cdiv(dim(1, 1), 128)>
// CHECK-SAME: tile.num_warps = 8
// CHECK: scf.for {{.*}} -> (tensor<256x128xf32>)
// CHECK: tile.load {{.*}} -> tensor<256x64xbf16>
// CHECK: tile.load {{.*}} -> tensor<64x128xbf16>
// CHECK: tile.store {{.*}} : tensor<256x128xbf16>
// 128x192 as two column blocks (128 + 64): tiles placed at program_id y *
// 192 (grid cdiv(N, 192)), the second block 128 columns further; both
// accumulators carried, B's columns, the dot, the bias, the epilogue and
// the store copied for the second block, A's load shared.
// CHECK-LABEL: func.func @gemm__128x192(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 192)), sms), mul(cdiv(dim(0, 1), 64), add(add(26760, mul([[MISA]], 2185)), mul([[MISB]], 3277)))), {{[^>]*}})>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 192)>
// CHECK: %[[PN192:.*]] = tile.program_id y
// CHECK: %[[W:.*]] = arith.constant 192 : i32
// CHECK: %[[N0:.*]] = arith.muli %[[PN192]], %[[W]]
// CHECK: %[[C128B:.*]] = arith.constant 128 : i32
// CHECK: %[[N1:.*]] = arith.addi %[[N0]], %[[C128B]]
// CHECK: %[[Z0:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK: %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
// CHECK: scf.for {{.*}} iter_args(%[[X0:.*]] = %[[Z0]], %[[X1:.*]] = %[[Z1]]) -> (tensor<128x128xf32>, tensor<128x64xf32>)
// CHECK: %[[TA:.*]] = tile.load %arg0{{.*}} -> tensor<128x64xbf16>
// CHECK: %[[B0:.*]] = tile.load %arg1[%{{.*}}, %[[N0]]] {{.*}} -> tensor<64x128xbf16>
// CHECK: %[[B1:.*]] = tile.load %arg1[%{{.*}}, %[[N1]]] {{.*}} -> tensor<64x64xbf16>
// CHECK: tile.dot %[[TA]], %[[B0]], %[[X0]]
// CHECK: tile.dot %[[TA]], %[[B1]], %[[X1]]
// CHECK: scf.yield
// CHECK: tile.load %arg2[%[[N0]]] {{.*}} -> tensor<128xf32>
// CHECK: tile.load %arg2[%[[N1]]] {{.*}} -> tensor<64xf32>
// CHECK: tile.store {{.*}}, %arg3[%{{.*}}, %[[N0]]] : tensor<128x128xbf16>
// CHECK: tile.store {{.*}}, %arg3[%{{.*}}, %[[N1]]] : tensor<128x64xbf16>
// Split-K (the 64x128 member 2 ways): unit z runs K steps [z * per, z * per
// + per) with per = cdiv(cdiv(K, 64), 2); the units sum as a tree (one
// level for 2): each writes its partial (workspace rows (tile * 2 + z) *
// 64) and counts itself in the pair's counter (4 (tile * 2) + l * 2 +
// z / 2); the second to arrive resets it, adds the other's partial and
// runs the epilogue. Grid z: 2 units.
// CHECK-LABEL: func.func @gemm__64x128_k2(
// CHECK-SAME: tile.cost = #tile.expr<add(add(max(mul(cdiv(mul(mul(cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128)), 2), sms), mul(cdiv(cdiv(dim(0, 1), 64), 2), add(add(14745, mul([[MISA]], 1092)), mul([[MISB]], 2185)))), {{[^>]*}}), 2)), mul(cdiv(mul(mul(cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128)), 2), sms), 235920))>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128), 2>
// CHECK-SAME: tile.num_warps = 4
// CHECK-SAME: tile.semaphores = #tile.expr<mul(mul(cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128)), 32)>
// CHECK-SAME: tile.workspace = #tile.expr<mul(mul(cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128)), 65536)>
// CHECK: %[[K:.*]] = tile.dim %arg0, 1
// CHECK: %[[Z:.*]] = tile.program_id z
// CHECK: %[[STEPS:.*]] = arith.ceildivsi %[[K]], %{{.*}}
// CHECK: %[[PER:.*]] = arith.ceildivsi %[[STEPS]], %c2_i32
// CHECK: %[[LOS:.*]] = arith.muli %[[Z]], %[[PER]]
// CHECK: %[[HIS:.*]] = arith.addi %[[LOS]], %[[PER]]
// CHECK: %[[LO:.*]] = arith.muli %[[LOS]]
// CHECK: %[[HIK:.*]] = arith.muli %[[HIS]]
// CHECK: %[[HI:.*]] = arith.minsi %[[K]], %[[HIK]]
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] step
// CHECK: %[[PARTS:.*]] = tile.workspace[%{{.*}}, %{{.*}}] offset %{{.*}} : !tile.tensor<?x?xf32>
// CHECK: %[[CNT:.*]] = tile.workspace semaphores[%{{.*}}] offset
// CHECK: %[[TREE:.*]]:4 = scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %[[ACC]], %[[NODE:.*]] = %{{.*}}, %[[W:.*]] = %c2_i32, %[[GO:.*]] = %true)
// CHECK: %[[PARTNER:.*]] = arith.xori %[[NODE]], %{{.*}}
// CHECK: %[[HAS:.*]] = arith.cmpi ult, %[[PARTNER]], %[[W]]
// CHECK: %[[PAIRED:.*]] = arith.andi %[[GO]], %[[HAS]]
// CHECK: scf.if %[[PAIRED]] -> (tensor<64x128xf32>, i1) {
// CHECK: tile.store %[[SUM]], %[[PARTS]][%{{.*}}, %{{.*}}] {in_bounds} : tensor<64x128xf32>
// CHECK: %[[OLD:.*]] = tile.atomic_rmw add %{{.*}}, %[[CNT]]
// CHECK: %[[N:.*]] = tile.reduce sum %[[OLD]]
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[N]], %{{.*}}
// CHECK: scf.if %[[SECOND]] -> (tensor<64x128xf32>) {
// CHECK: tile.store %{{.*}}, %[[CNT]][%{{.*}}] {in_bounds} : tensor<1xi32>
// CHECK: %[[OTHER:.*]] = tile.load %[[PARTS]]{{.*}} {in_bounds}
// CHECK: arith.addf %[[SUM]], %[[OTHER]]
// CHECK: } else {
// CHECK: scf.yield %[[SUM]]
// CHECK: scf.if %[[TREE]]#3 {
// CHECK: arith.addf %[[TREE]]#0,
// CHECK: tile.store {{.*}} : tensor<64x128xbf16>
// CHECK: }
// CHECK-NEXT: return
// Split 4 ways: only the 64x64 member (64x128's accumulator of 64
// registers a thread and 4 partials would spill).
// CHECK-NOT: func.func @gemm__64x128_k4(
// CHECK-LABEL: func.func @gemm__64x64_k4(
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64), 4>
// Stream-K (the kernel's own shape, 128x256): the grid keeps its two axes;
// tile.stream_k_unit (the persistent schedule's, tile-persistent-tiles)
// gives the unit's K steps [lo, hi) of its tile, its slot, its tile's
// first slot and units; the units sum as a tree of up to 3 levels (8
// units), a whole tile (1 unit) running its epilogue at once. The cost
// spreads every tile's K steps over the SMs and adds a fix-up of 4 S K
// steps (S from the last wave's tiles: sms / (tiles mod sms), within
// 6..8); the workspace holds two partials an SM.
// CHECK-LABEL: func.func @gemm__128x256_sk(
// CHECK-SAME: tile.cost = #tile.expr<add(add(max(mul(cdiv(mul(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), cdiv(dim(0, 1), 64)), sms), add(add(32768, mul([[MISA]], 2184)), mul([[MISB]], 4369)))
// CHECK-SAME: mul(mul(max(6, min(8, div(sms, max(sub(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), mul(div(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), sms), sms)), 1)))), 4), 32768))>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>
// CHECK-SAME: tile.semaphores = #tile.expr<mul(min(mul(2, sms), mul(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), 8)), 16)>
// CHECK-SAME: tile.stream_k = 8 : i64
// CHECK-SAME: tile.workspace = #tile.expr<mul(min(mul(2, sms), mul(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)), 8)), 131072)>
// CHECK: %[[LO:.*]], %[[HI:.*]], %[[SLOT:.*]], %[[FIRST:.*]], %[[UNITS:.*]] = tile.stream_k_unit <cdiv(dim(0, 1), 64)>
// CHECK: arith.muli %[[LO]]
// CHECK: arith.muli %[[HI]]
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: %[[PARTS:.*]] = tile.workspace[
// CHECK: %[[CNT:.*]] = tile.workspace semaphores[
// CHECK: %[[Z:.*]] = arith.subi %[[SLOT]], %[[FIRST]]
// CHECK: %[[TREE:.*]]:4 = scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ACC]], %{{.*}} = %[[Z]], %{{.*}} = %[[UNITS]], %{{.*}} = %true)
// CHECK: tile.store %{{.*}}, %[[PARTS]]{{.*}} {in_bounds}
// CHECK: tile.atomic_rmw add %{{.*}}, %[[CNT]]
// CHECK: scf.if %[[TREE]]#3 {
// CHECK: arith.addf %[[TREE]]#0,
// CHECK: tile.store {{.*}} : tensor<128x256xbf16>
// The kernel in clusters of two along M (B's tile multicast): tiles run
// in whole clusters (rows of tiles rounded up to even), a step 3% faster
// and a tile one step longer; B shared by the pair moves no more than an
// aligned 128x256 tile's, so misaligned rows cost it nothing.
// CHECK-LABEL: func.func @gemm__128x256_c2(
// CHECK-SAME: tile.cluster = 2 : i64
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(mul(cdiv(cdiv(dim(0, 0), 128), 2), 2), cdiv(dim(1, 1), 256)), sms), mul(add(cdiv(dim(0, 1), 64), 1), 31784)), {{[^>]*}})>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>
// Ping-pong at 128x128: one warpgroup a tile, two tiles a program taking
// turns; a wave is two tiles an SM, a step the pair's (128x256) 5% slower,
// and 0.8 of a step (27524) less a wave for the epilogue it overlaps
// where there are more tiles than SMs.
// CHECK-LABEL: func.func @gemm__128x128_pp(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)), mul(2, sms)), sub(mul(cdiv(dim(0, 1), 64), add(add(34406, {{.*}})), mul(min(1, div(mul(cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)), add(sms, 1))), 27524))), {{[^>]*}})>
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>
// CHECK-SAME: tile.num_warps = 4
// CHECK-SAME: tile.schedule = #tile.schedule<pingpong>
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32>
// CHECK: tile.store {{.*}} : tensor<128x128xbf16>
// Swap-AB at 16 (and 32) rows by 64 columns: the loop carries the tile
// transposed (64x16) from a transposed zero, its dot multiplies B's tile
// transposed by A's (wgmma's M along C's columns, one warpgroup), the K
// step doubles to 128 (A's 16-row slot leaves room for B), and the result
// is transposed back before the epilogue, which runs at 16x64 as written.
// Its costs count the step as 128 wide.
// CHECK-LABEL: func.func @gemm__16x64_swap(
// CHECK-SAME: tile.cost = #tile.expr<add(max(mul(cdiv(mul(cdiv(dim(0, 0), 16), cdiv(dim(1, 1), 64)), sms), mul(cdiv(dim(0, 1), 128), add(add(11332,
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 16), cdiv(dim(1, 1), 64)>
// CHECK-SAME: tile.num_warps = 4
// CHECK: %[[ZT:.*]] = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
// CHECK: %[[ACCT:.*]] = scf.for {{.*}} step %{{.*}} iter_args(%[[IT:.*]] = %[[ZT]]) -> (tensor<64x16xf32>)
// CHECK: %[[TA:.*]] = tile.load {{.*}} -> tensor<16x128xbf16>
// CHECK: %[[TB:.*]] = tile.load {{.*}} -> tensor<128x64xbf16>
// CHECK: %[[TBT:.*]] = tile.transpose %[[TB]] [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
// CHECK: %[[TAT:.*]] = tile.transpose %[[TA]] [1, 0] : tensor<16x128xbf16> -> tensor<128x16xbf16>
// CHECK: tile.dot %[[TBT]], %[[TAT]], %[[IT]] : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
// CHECK: tile.transpose %[[ACCT]] [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
// CHECK: tile.broadcast {{.*}} -> tensor<16x64xf32>
// CHECK: tile.store {{.*}} : tensor<16x64xbf16>
// CHECK-LABEL: func.func @gemm__32x64_swap(
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(1, 1), 64)>
// CHECK: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x32xbf16> -> tensor<64x32xf32>
// On sm_100a the default members are the 128-row ones (tcgen05 takes 128
// rows a CTA), and no split-K or stream-K members (they are wgmma's).
// SM100-LABEL: func.func @gemm(
// SM100-SAME: tile.variants = [@gemm__128x128, @gemm__128x64]
// SM100-NOT: func.func @gemm__64x
// SM100-NOT: func.func @gemm__{{.*}}_k
// SM100-NOT: func.func @gemm__{{.*}}_sk
// SM100-NOT: func.func @gemm__{{.*}}_c2
// SM100-NOT: func.func @gemm__{{.*}}_swap
// SM100-NOT: func.func @gemm__{{.*}}_pp
// SM100: func.func @clustered(
func.func @gemm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<256xf32> -> !tile.tile<1x256xf32>
  %bb = tile.broadcast %be : !tile.tile<1x256xf32> -> !tile.tile<128x256xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  %o = arith.truncf %y : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// In clusters of two along x, an odd number of rows of tiles leaves a
// program past the last row (it runs the K loop for its partner's
// multicast copies): a split member counts and writes its partial only on
// the matrix, where its counter and partial rows exist.
// CHECK-LABEL: func.func @clustered__64x128_k2(
// CHECK: scf.for
// CHECK: tile.workspace semaphores
// CHECK: %[[Y:.*]] = tile.program_id y
// CHECK-NEXT: %[[INY:.*]] = arith.cmpi ult, %[[Y]], %[[NY:.*]] : i32
// CHECK-NEXT: %[[X:.*]] = tile.program_id x
// CHECK-NEXT: %[[INX:.*]] = arith.cmpi ult, %[[X]], %[[NX:.*]] : i32
// CHECK-NEXT: %[[ON:.*]] = arith.andi %[[INX]], %[[INY]] : i1
// CHECK: %[[TREE:.*]]:4 = scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[ON]])
// CHECK: tile.store %{{.*}} {in_bounds} : tensor<64x128xf32>
// CHECK: tile.atomic_rmw add
// CHECK: scf.if %[[TREE]]#3 {
func.func @clustered(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8, tile.cluster = 2,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<256xf32> -> !tile.tile<1x256xf32>
  %bb = tile.broadcast %be : !tile.tile<1x256xf32> -> !tile.tile<128x256xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  %o = arith.truncf %y : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// Profiled scopes (kept in a profiled build) survive the split: a scope
// around the K loop ends after the fix-up's branch, where its begin is,
// and a scope in the epilogue moves into the branch with it.
// CHECK-LABEL: func.func @scoped__64x128_k2(
// CHECK: tile.profile_begin "k_loop"
// CHECK: scf.for
// CHECK: tile.atomic_rmw
// CHECK: scf.if
// CHECK: tile.profile_begin "epi"
// CHECK: tile.store {{.*}} : tensor<64x128xbf16>
// CHECK-NEXT: tile.profile_end "epi"
// CHECK-NEXT: }
// CHECK-NEXT: tile.profile_end "k_loop"
// CHECK-NEXT: return
func.func @scoped(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  tile.profile_begin "k_loop"
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  tile.profile_end "k_loop"
  tile.profile_begin "epi"
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<256xf32> -> !tile.tile<1x256xf32>
  %bb = tile.broadcast %be : !tile.tile<1x256xf32> -> !tile.tile<128x256xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  %o = arith.truncf %y : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  tile.profile_end "epi"
  return
}

// -----

// Shapes as asked: the first replaces the kernel (rows 128 -> 64 here, with
// A's transposed load following, and one warpgroup instead of two), the
// rest become variants; the 64-row shape is also split 2 ways.
// CHECK-LABEL: func.func @asked(
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 1), 64), cdiv(dim(1, 1), 128)>
// CHECK-SAME: tile.num_warps = 4
// CHECK-SAME: tile.variants = [@asked__128x64, @asked__64x128_k2]
// CHECK: tile.load {{.*}} -> tensor<64x64xf16>
// CHECK: tile.transpose {{.*}} -> tensor<64x64xf16>
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32>
// CHECK-LABEL: func.func @asked__128x64(
// CHECK-SAME: tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 1), 64)>
// CHECK-SAME: tile.num_warps = 8
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32>
// SM100-LABEL: func.func @asked(
// SM100-SAME: tile.variants = [@asked__128x64]
func.func @asked(%at: !tile.tensor<?x?xf16>, %b: !tile.tensor<?x?xf16>,
                 %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.tile_shapes = [[64, 128], [128, 64]],
                tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %c128, %pn : i32
  %k = tile.dim %at, 0 : !tile.tensor<?x?xf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %tat = tile.load %at[%k0, %m0] : !tile.tensor<?x?xf16> -> !tile.tile<64x128xf16>
    %ta = tile.transpose %tat [1, 0] : !tile.tile<64x128xf16> -> !tile.tile<128x64xf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xf16> -> !tile.tile<64x128xf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xf16>, !tile.tile<64x128xf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// Left alone: the row offset also feeds a mask (which might depend on the
// tile size), so there are no variants unless asked for...
// CHECK-LABEL: func.func @masked(
// CHECK-NOT: tile.variants
// CHECK-NOT: func.func @masked__
func.func @masked(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                  %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %rows = tile.iota : !tile.tile<128xi32>
  %m0s = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %r = arith.addi %rows, %m0s : !tile.tile<128xi32>
  %re = tile.expand_dims %r axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %rb = tile.broadcast %re : !tile.tile<128x1xi32> -> !tile.tile<128x256xi32>
  %lim = tile.splat %c256 : i32 -> !tile.tile<128x256xi32>
  %keep = arith.cmpi slt, %rb, %lim : !tile.tile<128x256xi32>
  %zf = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %o = arith.select %keep, %acc, %zf : !tile.tile<128x256xi1>, !tile.tile<128x256xf32>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// ... and an error if they are.
// expected-error @+1 {{cannot compile 'masked' at other tile shapes (tile.tile_shapes): program_id * 128 is also used by 'tile.splat'}}
func.func @masked(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                  %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.tile_shapes = [[128, 128]],
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %m0s = tile.splat %m0 : i32 -> !tile.tile<128x256xi32>
  %o = arith.sitofp %m0s : !tile.tile<128x256xi32> to !tile.tile<128x256xf32>
  %s = arith.addf %acc, %o : !tile.tile<128x256xf32>
  tile.store %s, %c[%m0, %n0] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A constant equal to the tile size used elsewhere (here in the K loop's
// bound) might be the tile size in disguise: the shape that changes it is
// refused. (As the K loop's step it is K's tile size: tile-shape-variants-
// defaults.mlir.)
// expected-error @+1 {{cannot compile 'kstep' at tile shape 64x128: the constant 128 is also used by 'arith.maxsi', which may depend on the tile size}}
func.func @kstep(%a: !tile.tensor<?x?xf8E4M3FN>, %bt: !tile.tensor<?x?xf8E4M3FN>,
                 %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.tile_shapes = [[64, 128]],
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %kk = arith.maxsi %k, %c128 : i32
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %kk step %c128 iter_args(%acc_i = %zero)
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

// -----

// No main loop with a dot: nothing to re-tile (and an error if asked).
// expected-error @+1 {{cannot compile 'copy' at other tile shapes (tile.tile_shapes): the kernel has no main loop carrying a tile.dot}}
func.func @copy(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.tile_shapes = [[64, 64]],
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(0, 1), 64)>} {
  %pm = tile.program_id x
  %t = tile.load %x[%pm, %pm] : !tile.tensor<?x?xf32> -> !tile.tile<64x64xf32>
  tile.store %t, %y[%pm, %pm] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A shape listed twice would make two functions of one name.
// expected-error @+1 {{tile.tile_shapes: 'twice__64x64' is listed twice or already defined}}
func.func @twice(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8, tile.tile_shapes = [[128, 128], [64, 64], [64, 64]],
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
