// Kernels of test/gpu/test_producer_loads.py: main loops whose other loads
// TMA cannot copy as written, which stay warp-specialized: a gather whose
// index tiles are math on scalars or read from an index table (the load
// partition's threads compute them in their own layout and gather into a
// slot), and a masked load (TMA copies the box whole; the compute
// partition applies the mask).

// A GEMM loop that adds, each K step, row kr of S read right to left
// (column n - 1 - j, j = n0 + iota: negative past the left edge, not
// read) where j % 3 != 0: a gather with a mask.
func.func @gemm_gather(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                       %s: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %n = tile.dim %b, 1 : !tile.tensor<?x?xbf16>
  %last = arith.subi %n, %c1 : i32
  %three = arith.constant dense<3> : !tile.tile<1x128xi32>
  %zero3 = arith.constant dense<0> : !tile.tile<1x128xi32>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %io = tile.iota : !tile.tile<128xi32>
    %io2 = tile.expand_dims %io axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %n0s = tile.splat %n0 : i32 -> !tile.tile<1x128xi32>
    %j = arith.addi %io2, %n0s : !tile.tile<1x128xi32>
    %lasts = tile.splat %last : i32 -> !tile.tile<1x128xi32>
    %col = arith.subi %lasts, %j : !tile.tile<1x128xi32>
    %row = tile.splat %kr : i32 -> !tile.tile<1x128xi32>
    %jm = arith.remsi %j, %three : !tile.tile<1x128xi32>
    %keep = arith.cmpi ne, %jm, %zero3 : !tile.tile<1x128xi32>
    %sv = tile.gather %s[%row, %col] mask(%keep : !tile.tile<1x128xi1>)
        : !tile.tensor<?x?xf32>, !tile.tile<1x128xi32>, !tile.tile<1x128xi32> -> !tile.tile<1x128xf32>
    %rb = tile.broadcast %sv : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %rb : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// A GEMM loop that adds, each K step, S[kr, ids[kr, n0 + j]]: a gather
// through an index table read in the loop (ids out of range read zero).
func.func @gemm_table(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                      %s: !tile.tensor<?x?xf32>, %ids: !tile.tensor<?x?xi32>,
                      %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
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
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %col = tile.load %ids[%kr, %n0] : !tile.tensor<?x?xi32> -> !tile.tile<1x128xi32>
    %row = tile.splat %kr : i32 -> !tile.tile<1x128xi32>
    %sv = tile.gather %s[%row, %col]
        : !tile.tensor<?x?xf32>, !tile.tile<1x128xi32>, !tile.tile<1x128xi32> -> !tile.tile<1x128xf32>
    %rb = tile.broadcast %sv : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %rb : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The same loop adding row kr of S where its column is even: a masked
// load of a 1x128 box.
func.func @gemm_masked(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                       %s: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %two = arith.constant dense<2> : !tile.tile<1x128xi32>
  %zero2 = arith.constant dense<0> : !tile.tile<1x128xi32>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %io = tile.iota : !tile.tile<128xi32>
    %io2 = tile.expand_dims %io axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %n0s = tile.splat %n0 : i32 -> !tile.tile<1x128xi32>
    %j = arith.addi %io2, %n0s : !tile.tile<1x128xi32>
    %jm = arith.remsi %j, %two : !tile.tile<1x128xi32>
    %even = arith.cmpi eq, %jm, %zero2 : !tile.tile<1x128xi32>
    %sv = tile.load %s[%kr, %n0] mask(%even : !tile.tile<1x128xi1>)
        : !tile.tensor<?x?xf32> -> !tile.tile<1x128xf32>
    %rb = tile.broadcast %sv : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %rb : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// A GEMM loop that adds, each K step, scale[kr] times a row of S padded
// with -1 where its column is odd or past the view (a masked load with a
// non-zero padding), and a column of T (64 rows of a row-major matrix,
// 4 bytes a row: no TMA box).
func.func @gemm_padded(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                       %s: !tile.tensor<?x?xf32>, %t: !tile.tensor<?x?xf32>,
                       %scale: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %two = arith.constant dense<2> : !tile.tile<1x128xi32>
  %zero2 = arith.constant dense<0> : !tile.tile<1x128xi32>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %io = tile.iota : !tile.tile<128xi32>
    %io2 = tile.expand_dims %io axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %n0s = tile.splat %n0 : i32 -> !tile.tile<1x128xi32>
    %j = arith.addi %io2, %n0s : !tile.tile<1x128xi32>
    %jm = arith.remsi %j, %two : !tile.tile<1x128xi32>
    %even = arith.cmpi eq, %jm, %zero2 : !tile.tile<1x128xi32>
    %sv = tile.load %s[%kr, %n0] mask(%even : !tile.tile<1x128xi1>) {padding = -1.0 : f32}
        : !tile.tensor<?x?xf32> -> !tile.tile<1x128xf32>
    %f = tile.load %scale[%kr] : !tile.tensor<?xf32> -> f32
    %ft = tile.splat %f : f32 -> !tile.tile<1x128xf32>
    %svf = arith.mulf %sv, %ft : !tile.tile<1x128xf32>
    %rb = tile.broadcast %svf : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %tc = tile.load %t[%m0, %kr] : !tile.tensor<?x?xf32> -> !tile.tile<128x1xf32>
    %cb = tile.broadcast %tc : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %e0 = arith.addf %d, %rb : !tile.tile<128x128xf32>
    %e = arith.addf %e0, %cb : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// dK and dV of attention (D = 64) as side_loads.mlir's @dkdv, with LSE
// gathered at rows min(m0 + iota, S - 1) (the load partition's threads)
// and Delta gathered at m0 + iota (a box: a TMA copy).
func.func @dkdv_gather(%q: !tile.tensor<?x?x?x64xbf16>, %k: !tile.tensor<?x?x?x64xbf16>,
    %v: !tile.tensor<?x?x?x64xbf16>, %do: !tile.tensor<?x?x?x64xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dk: !tile.tensor<?x?x?x64xbf16>, %dv: !tile.tensor<?x?x?x64xbf16>, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %pn = tile.program_id x
  %bh = tile.program_id y
  %h = tile.dim %q, 1 : !tile.tensor<?x?x?x64xbf16>
  %b = arith.divui %bh, %h : i32
  %hh = arith.remui %bh, %h : i32
  %n0 = arith.muli %pn, %c128 : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x64xbf16>
  %k4 = tile.load %k[%b, %hh, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  %v4 = tile.load %v[%b, %hh, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
  %vtt = tile.transpose %vt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %scale_t = tile.splat %scale : f32 -> !tile.tile<64x128xf32>
  %r:2 = scf.for %m0 = %c0 to %sq step %c64 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<128x64xf32>, !tile.tile<128x64xf32>) : i32 {
    %q4 = tile.load %q[%b, %hh, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
    %do4 = tile.load %do[%b, %hh, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
    %io = tile.iota : !tile.tile<64xi32>
    %m0s = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %rq = arith.addi %io, %m0s : !tile.tile<64xi32>
    %lastq = arith.subi %sq, %c1 : i32
    %lasts = tile.splat %lastq : i32 -> !tile.tile<64xi32>
    %rows = arith.minsi %rq, %lasts : !tile.tile<64xi32>
    %bs = tile.splat %b : i32 -> !tile.tile<64xi32>
    %hs = tile.splat %hh : i32 -> !tile.tile<64xi32>
    %l = tile.gather %lse[%bs, %hs, %rows] : !tile.tensor<?x?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xf32>
    %dl = tile.gather %delta[%bs, %hs, %rq] : !tile.tensor<?x?x?xf32>, !tile.tile<64xi32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xf32>
    // P = exp(Q Kᵀ scale - LSE)
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    %ss = arith.mulf %s, %scale_t : !tile.tile<64x128xf32>
    %le = tile.expand_dims %l axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<64x128xf32>
    %p = math.exp %sl : !tile.tile<64x128xf32>
    %pb = arith.truncf %p : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
    // dV += Pᵀ dO
    %pt = tile.transpose %pb [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %dv_n = tile.dot %pt, %dot_, %dv_i : !tile.tile<128x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<128x64xf32>
    // dP = dO Vᵀ; dS = P (dP - Delta) scale
    %dp = tile.dot %dot_, %vtt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    %de = tile.expand_dims %dl axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %db = tile.broadcast %de : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
    %dpd = arith.subf %dp, %db : !tile.tile<64x128xf32>
    %ds0 = arith.mulf %p, %dpd : !tile.tile<64x128xf32>
    %ds = arith.mulf %ds0, %scale_t : !tile.tile<64x128xf32>
    %dsb = arith.truncf %ds : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
    // dK += dSᵀ Q
    %dst = tile.transpose %dsb [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %dk_n = tile.dot %dst, %qt, %dk_i : !tile.tile<128x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<128x64xf32>
    scf.yield %dk_n, %dv_n : !tile.tile<128x64xf32>, !tile.tile<128x64xf32>
  }
  %dkb = arith.truncf %r#0 : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %dk4, %dk[%b, %hh, %n0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %dv4, %dv[%b, %hh, %n0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  return
}

// A GEMM whose A rows are gathered through an index table (a mixture of
// experts' token gather): C[i] = A[ids[m0 + i]] B, rows past M and ids out
// of A's range reading zero. The gather is a dot operand: the load
// partition's threads gather it into A's swizzled slot (tgpu.thread_gather,
// cp.async, a channel fill = async_copy), and B beside it is their copy too.
func.func @gemm_rows(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                     %ids: !tile.tensor<?xi32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(2, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %m = tile.dim %ids, 0 : !tile.tensor<?xi32>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %io = tile.iota : !tile.tile<128xi32>
    %m0s = tile.splat %m0 : i32 -> !tile.tile<128xi32>
    %r = arith.addi %io, %m0s : !tile.tile<128xi32>
    %ms = tile.splat %m : i32 -> !tile.tile<128xi32>
    %in = arith.cmpi slt, %r, %ms : !tile.tile<128xi32>
    %row = tile.gather %ids[%r] mask(%in : !tile.tile<128xi1>)
        : !tile.tensor<?xi32>, !tile.tile<128xi32> -> !tile.tile<128xi32>
    %row2 = tile.expand_dims %row axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
    %rows = tile.broadcast %row2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
    %in2 = tile.expand_dims %in axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
    %ins = tile.broadcast %in2 : !tile.tile<128x1xi1> -> !tile.tile<128x64xi1>
    %ko = tile.iota : !tile.tile<64xi32>
    %k0s = tile.splat %k0 : i32 -> !tile.tile<64xi32>
    %kc = arith.addi %ko, %k0s : !tile.tile<64xi32>
    %kc2 = tile.expand_dims %kc axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
    %cols = tile.broadcast %kc2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
    %ta = tile.gather %a[%rows, %cols] mask(%ins : !tile.tile<128x64xi1>)
        : !tile.tensor<?x?xbf16>, !tile.tile<128x64xi32>, !tile.tile<128x64xi32> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
