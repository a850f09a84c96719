// Kernels for test/gpu/test_profile.py's user scopes, compiled with
// --profile: the example GEMM and the attention (D = 64) with scopes the
// user marks inside their warp-specialized main loops and around them.
// The scopes run where the ops they enclose run: `k_step` and `kv_step`
// (around copies and MMAs) in the producer and the consumers, `dot` and
// `softmax` in the consumers; the kernels stay warp-specialized.

func.func @gemm_scoped(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
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
    tile.profile_begin "k_step"(%k0)
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    tile.profile_begin "dot"
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    tile.profile_end "dot"
    tile.profile_end "k_step"
    scf.yield %d : !tile.tile<128x256xf32>
  }
  tile.profile_end "k_loop"
  // Epilogue: bias, ReLU, cast.
  tile.profile_begin "bias_relu"
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<256xf32> -> !tile.tile<1x256xf32>
  %bb = tile.broadcast %be : !tile.tile<1x256xf32> -> !tile.tile<128x256xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %r = arith.maximumf %y, %z : !tile.tile<128x256xf32>
  %o = arith.truncf %r : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.profile_end "bias_relu"
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

func.func @attention_scoped(%q: !tile.tensor<?x?x?x64xbf16>, %k: !tile.tensor<?x?x?x64xbf16>,
    %v: !tile.tensor<?x?x?x64xbf16>, %o: !tile.tensor<?x?x?x64xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %cn = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  // Query blocks from the last: when causal the longest come first, and
  // a persistent kernel ends on the short ones.
  %px = tile.program_id x
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x64xbf16>
  %nm = arith.ceildivsi %sq, %cm : i32
  %last = arith.subi %nm, %c1 : i32
  %pm = arith.subi %last, %px : i32
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x64xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x64xbf16>
  // Program y is (batch, query head); the head reads its group's K and V.
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x64xbf16>
  %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %qt = tile.reshape %q4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the keys there are, and when causal those
  // up to the query.
  %one = arith.constant dense<1> : !tile.tile<128xi32>
  %skv_r = tile.splat %skv : i32 -> !tile.tile<128xi32>
  %rows1 = arith.addi %rows, %one : !tile.tile<128xi32>
  %clim = arith.minsi %rows1, %skv_r : !tile.tile<128xi32>
  %lim = arith.select %is_causal, %clim, %skv_r : !tile.tile<128xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<128xi32>
  %qend = arith.addi %m0, %cm : i32
  %causal_end = arith.minsi %skv, %qend : i32
  %kend = arith.select %is_causal, %causal_end, %skv : i32
  // The smallest limit of the block's rows (its first row's).
  %m01 = arith.addi %m0, %c1 : i32
  %clo = arith.minsi %m01, %skv : i32
  %lim_lo = arith.select %is_causal, %clo, %skv : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>) : i32 {
    tile.profile_begin "kv_step"(%n0)
    %k4 = tile.load %k[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
    %kt = tile.reshape %k4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block when Skv is ragged.
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %lim_lo : i32
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<128x128xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk : !tile.tile<128x128xf32>
    }
    tile.profile_begin "softmax"
    %mj = tile.reduce max %sm dim 1 : !tile.tile<128x128xf32> -> !tile.tile<128xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<128xf32>
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %me = tile.expand_dims %ms axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %mb = tile.broadcast %me : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %sc = arith.mulf %sm, %scale_t : !tile.tile<128x128xf32>
    %d = arith.subf %sc, %mb : !tile.tile<128x128xf32>
    %p = math.exp2 %d : !tile.tile<128x128xf32>
    %dm = arith.subf %m_i, %m_new : !tile.tile<128xf32>
    %dms = arith.mulf %dm, %scale_r : !tile.tile<128xf32>
    %alpha = math.exp2 %dms : !tile.tile<128xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<128x128xf32> -> !tile.tile<128xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<128xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<128xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x64xf32>
    tile.profile_end "softmax"
    %v4 = tile.load %v[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
    %vt = tile.reshape %v4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %pb = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    tile.profile_end "kv_step"
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>
  }
  // O = acc / l: one division a row, a multiplication an element.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %inv = arith.divf %ones, %r#1 : !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x64xf32>
  %ob = arith.truncf %out : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %o4 = tile.reshape %ob : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %o4, %o[%b, %h, %m0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  // lse = m * scale + ln l
  %scale_l = tile.splat %scale : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %r#1 : !tile.tile<128xf32>
  %lsev = arith.addf %mnat, %logl : !tile.tile<128xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x1x128xf32>
  tile.store %lse3, %lse[%b, %h, %m0] : !tile.tile<1x1x128xf32>, !tile.tensor<?x?x?xf32>
  return
}
