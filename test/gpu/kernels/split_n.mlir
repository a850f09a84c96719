// Kernels of test/gpu/test_split_n.py: dots of 64 rows in kernels of eight
// warps, where wgmma's two warpgroups split N (each an m64n(N/2) MMA on
// the same A, LinearLayout::wgmmaWarpGroups) and mma.sync runs the same
// layouts in the plain twins.

// C = A B, 64x128 tiles, B as KxN (read N-major).
func.func @gemm_kn(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                   %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    scf.yield %d : !tile.tile<64x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x128xf32>, !tile.tensor<?x?xf32>
  return
}

// C = A Btᵀ, 64x64 tiles (a warpgroup's chunk is 32 columns), Bt as NxK.
func.func @gemm_nk(%a: !tile.tensor<?x?xbf16>, %bt: !tile.tensor<?x?xbf16>,
                   %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// O = softmax(Q Kᵀ) V for one (S, 64) head, 64 query rows a program and
// 128 keys a step: S's rows are split between the warpgroups (row max
// and sum across them), P feeds the second dot as a register A that both
// warpgroups hold whole.
func.func @attention64(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>,
                       %v: !tile.tensor<?x64xbf16>, %o: !tile.tensor<?x64xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c64 : i32
  %s = tile.dim %k, 0 : !tile.tensor<?x64xbf16>
  %qt = tile.load %q[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %zo = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64xf32>
  %zl = arith.constant dense<0.0> : !tile.tile<64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x128xf32>
  %kiota = tile.iota : !tile.tile<128xi32>
  %st = tile.splat %s : i32 -> !tile.tile<128xi32>
  %r:3 = scf.for %n0 = %c0 to %s step %c128 iter_args(%acc = %zo, %mx = %ninf, %sum = %zl)
      -> (!tile.tile<64x64xf32>, !tile.tile<64xf32>, !tile.tile<64xf32>) : i32 {
    %kt = tile.load %k[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<128x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %vt = tile.load %v[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<128x64xbf16>
    %sc = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %in = arith.cmpi slt, %cols, %st : !tile.tile<128xi32>
    %in2 = tile.expand_dims %in axis 0 : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
    %inb = tile.broadcast %in2 : !tile.tile<1x128xi1> -> !tile.tile<64x128xi1>
    %scm = arith.select %inb, %sc, %neg : !tile.tile<64x128xi1>, !tile.tile<64x128xf32>
    %bm = tile.reduce max %scm dim 1 : !tile.tile<64x128xf32> -> !tile.tile<64xf32>
    %nm = arith.maximumf %mx, %bm : !tile.tile<64xf32>
    %nme = tile.expand_dims %nm axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %nmb = tile.broadcast %nme : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
    %sd = arith.subf %scm, %nmb : !tile.tile<64x128xf32>
    %p = math.exp %sd : !tile.tile<64x128xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<64x128xf32> -> !tile.tile<64xf32>
    %md = arith.subf %mx, %nm : !tile.tile<64xf32>
    %alpha = math.exp %md : !tile.tile<64xf32>
    %sa = arith.mulf %sum, %alpha : !tile.tile<64xf32>
    %ns = arith.addf %sa, %ps : !tile.tile<64xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %accs = arith.mulf %acc, %ab : !tile.tile<64x64xf32>
    %pb = arith.truncf %p : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
    %na = tile.dot %pb, %vt, %accs : !tile.tile<64x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %na, %nm, %ns : !tile.tile<64x64xf32>, !tile.tile<64xf32>, !tile.tile<64xf32>
  }
  %le = tile.expand_dims %r#2 axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
  %out = arith.divf %r#0, %lb : !tile.tile<64x64xf32>
  tile.store %out, %o[%m0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  return
}
