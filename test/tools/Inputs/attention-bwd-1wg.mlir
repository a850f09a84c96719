// examples/attention_bwd.mlir's main kernels as they were on one consumer
// warpgroup (64 keys a program, tile.num_warps = 4): D = 64 at two blocks
// an SM with S and dP issued together, D = 128 in the order the math reads.
// Inputs of blocks-per-sm.test and deferred-waits.test.

func.func @attention_bwd_d64(%q: !tile.tensor<?x?x?x64xbf16>, %k: !tile.tensor<?x?x?x64xbf16>,
    %v: !tile.tensor<?x?x?x64xbf16>, %do: !tile.tensor<?x?x?x64xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x64xf32>, %dk: !tile.tensor<?x?x?x64xbf16>,
    %dv: !tile.tensor<?x?x?x64xbf16>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.blocks_per_sm = 2,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 64), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %cn = arith.constant 64 : i32
  %pn = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x64xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x64xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %group = arith.divui %hq, %hkv : i32
  %h0 = arith.muli %hkr, %group : i32
  %n0 = arith.muli %pn, %cn : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x64xbf16>
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x64xbf16>
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  %vtt = tile.transpose %vt [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  // Causal: the first query block that sees key n0 (blocks of 64 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %c64 : i32
  %mfirst = arith.divsi %mstart, %c64 : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (column) and query (row) indices of the masks.
  %kiota = tile.iota : !tile.tile<64xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<64xi32>
  %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<64x64xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<64x64xi32>
  %qiota = tile.iota : !tile.tile<64xi32>
  %dcols = tile.iota : !tile.tile<64xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<64x64xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<64x64xf32>, !tile.tile<64x64xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %c64 : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    // S = Q Kᵀ and dP = dO Vᵀ, issued together (neither waits for the other);
    // S masked only on the blocks that need it.
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %dp = tile.dot %dot_, %vtt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<64x64xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<64xi32>
      %rows2 = tile.expand_dims %rows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<64x64xi32>
      %notc = arith.constant dense<true> : !tile.tile<64x64xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<64x64xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<64x64xi1>
      %cok = arith.ori %below, %free : !tile.tile<64x64xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<64x64xi1>
      %masked = arith.select %keep, %s, %neg : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      scf.yield %masked : !tile.tile<64x64xf32>
    } else {
      scf.yield %s : !tile.tile<64x64xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<64x64xf32>
    %le = tile.expand_dims %l axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<64x64xf32>
    %p = math.exp2 %sl : !tile.tile<64x64xf32>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dV += Pᵀ dO
    %pt = tile.transpose %pb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %dv_n = tile.dot %pt, %dot_, %dv_i : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    // dS = P (dP - Delta)
    %de = tile.expand_dims %dl axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %db = tile.broadcast %de : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %dpd = arith.subf %dp, %db : !tile.tile<64x64xf32>
    %ds = arith.mulf %p, %dpd : !tile.tile<64x64xf32>
    %dsb = arith.truncf %ds : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dK += dSᵀ Q
    %dst = tile.transpose %dsb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %dk_n = tile.dot %dst, %qt, %dk_i : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<64x64xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<64xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<64x64xf32>, !tile.tensor<?x?x?x64xf32>, !tile.tile<64x64xi32>,
          !tile.tile<64x64xi32>, !tile.tile<64x64xi32>, !tile.tile<64x64xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<64x64xf32>, !tile.tile<64x64xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<64x64xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<64x64xf32>
  %dkb = arith.truncf %dks : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<64x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<64x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  return
}

func.func @attention_bwd_d128(%q: !tile.tensor<?x?x?x128xbf16>, %k: !tile.tensor<?x?x?x128xbf16>,
    %v: !tile.tensor<?x?x?x128xbf16>, %do: !tile.tensor<?x?x?x128xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x128xf32>, %dk: !tile.tensor<?x?x?x128xbf16>,
    %dv: !tile.tensor<?x?x?x128xbf16>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 64), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %cn = arith.constant 64 : i32
  %pn = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x128xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x128xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %group = arith.divui %hq, %hkv : i32
  %h0 = arith.muli %hkr, %group : i32
  %n0 = arith.muli %pn, %cn : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x128xbf16>
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x128xbf16>
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
  %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
  %vtt = tile.transpose %vt [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %z = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  // Causal: the first query block that sees key n0 (blocks of 64 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %c64 : i32
  %mfirst = arith.divsi %mstart, %c64 : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (column) and query (row) indices of the masks.
  %kiota = tile.iota : !tile.tile<64xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<64xi32>
  %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<64x64xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<64x64xi32>
  %qiota = tile.iota : !tile.tile<64xi32>
  %dcols = tile.iota : !tile.tile<128xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x128xi32> -> !tile.tile<64x128xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<64x128xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<64x128xf32>, !tile.tile<64x128xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %c64 : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    // S = Q Kᵀ, masked only on the blocks that need it.
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<64x64xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<64x64xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<64xi32>
      %rows2 = tile.expand_dims %rows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<64x64xi32>
      %notc = arith.constant dense<true> : !tile.tile<64x64xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<64x64xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<64x64xi1>
      %cok = arith.ori %below, %free : !tile.tile<64x64xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<64x64xi1>
      %masked = arith.select %keep, %s, %neg : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      scf.yield %masked : !tile.tile<64x64xf32>
    } else {
      scf.yield %s : !tile.tile<64x64xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<64x64xf32>
    %le = tile.expand_dims %l axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<64x64xf32>
    %p = math.exp2 %sl : !tile.tile<64x64xf32>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dV += Pᵀ dO
    %pt = tile.transpose %pb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %dv_n = tile.dot %pt, %dot_, %dv_i : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    // dP = dO Vᵀ; dS = P (dP - Delta)
    %dp = tile.dot %dot_, %vtt, %zs : !tile.tile<64x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<64x64xf32>
    %de = tile.expand_dims %dl axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %db = tile.broadcast %de : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %dpd = arith.subf %dp, %db : !tile.tile<64x64xf32>
    %ds = arith.mulf %p, %dpd : !tile.tile<64x64xf32>
    %dsb = arith.truncf %ds : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dK += dSᵀ Q
    %dst = tile.transpose %dsb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %dk_n = tile.dot %dst, %qt, %dk_i : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<64x128xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<64xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<64x128xf32>, !tile.tensor<?x?x?x128xf32>, !tile.tile<64x128xi32>,
          !tile.tile<64x128xi32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<64x128xf32>, !tile.tile<64x128xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<64x128xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<64x128xf32>
  %dkb = arith.truncf %dks : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<64x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<64x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  return
}
