// Attention backward, FlashAttention-2/3 style, for examples/attention.mlir's
// forward (O = softmax(Q Kᵀ · scale [+ causal mask]) V, LSE its row
// log-sum-exp). Given dO it computes
//   dV = Pᵀ dO,  dP = dO Vᵀ,  dS = P ∘ (dP - Delta),  dK = scale · dSᵀ Q,
//   dQ = scale · dS K,  with P = exp(Q Kᵀ · scale - LSE), Delta = rowsum(dO ∘ O)
// in three kernels a head dim:
//   attention_bwd_pre_dD   Delta, LSE in log2 units, the f32 dQ accumulator zeroed
//   attention_bwd_dD       one program per 128 keys of one (batch, K/V head)
//                          on two consumer warpgroups (tile.num_warps = 8):
//                          K and V loaded once, dK and dV in registers, a
//                          loop over the group's query heads and their query
//                          blocks (128 queries at D = 64, 64 at D = 128 and
//                          256); each step adds its dS K into the f32 dQ
//                          accumulator
//   attention_bwd_det_dD   the main kernel with dQ's adds in a fixed order
//                          (deterministic): programs take the key blocks
//                          last first; before adding into a block of
//                          queries a program spins (acquire) on that
//                          block's counter until every key block above
//                          its own has added, then counts itself in
//                          (release, after its add is done); key block 0
//                          sets the counter back to zero
//   attention_bwd_post_dD  dQ = scale · accumulator, in the output's type
// Views as in the forward: Q, O, dO, dQ (B, Hq, S, D), K, V, dK, dV
// (B, Hkv, Skv, D), LSE and Delta (B, Hq, S) f32, the accumulator
// (B, Hq, S, D) f32; any strides with a unit last dim, so (B, S, H, D)
// tensors pass as t.transpose(1, 2). GQA: the program of K/V head hk sums
// over query heads hk·G .. hk·G + G - 1 (G = Hq / Hkv) with no copies.
// Causal is top-left aligned as in the forward (query i sees keys 0..i):
// a key block's loop starts at the first query block that sees it. Any
// lengths: rows past the end load as zeros (their P is 1 but their dO and
// Delta are 0, so they add nothing), keys past Skv and above the diagonal
// are masked, only on the blocks that need it.
// The loop computes Sᵀ = K Qᵀ and dPᵀ = V dOᵀ (keys x queries): with 128
// keys a program each warpgroup's accumulator holds 64 keys' rows, which
// is wgmma's register-A layout of Pᵀ and dSᵀ for dV += Pᵀ dO and dK +=
// dSᵀ Q (no data moves); only dS = (dSᵀ)ᵀ, which dQ = dS K reads across
// both warpgroups' keys, goes through shared memory, written once
// (staged, docs/OPS.md). Dots of 64 rows (dQ at D = 128; everything at
// D = 256) run on both warpgroups, each taking half of N (docs/LAYOUT.md).
// D = 256 takes 64 keys a program (dK, dV are 64x256 f32); its dots split
// N, so Pᵀ and dSᵀ are staged as well.

// ---------------------------------------------------------------- D = 64


func.func @attention_bwd_pre_d64(%o: !tile.tensor<?x?x?x64xbf16>, %do: !tile.tensor<?x?x?x64xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %lse2: !tile.tensor<?x?x?xf32>, %dqacc: !tile.tensor<?x?x?x64xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %o, 1 : !tile.tensor<?x?x?x64xbf16>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %m0 = arith.muli %pm, %c64 : i32
  %o4 = tile.load %o[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  %ot = tile.reshape %o4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %of = arith.extf %ot : !tile.tile<64x64xbf16> to !tile.tile<64x64xf32>
  %dof = arith.extf %dot_ : !tile.tile<64x64xbf16> to !tile.tile<64x64xf32>
  %prod = arith.mulf %of, %dof : !tile.tile<64x64xf32>
  %dl = tile.reduce sum %prod dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
  %dl3 = tile.reshape %dl : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
  tile.store %dl3, %delta[%b, %h, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  %l3 = tile.load %lse[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
  %log2e = arith.constant dense<1.44269504> : !tile.tile<1x1x64xf32>
  %l2 = arith.mulf %l3, %log2e : !tile.tile<1x1x64xf32>
  tile.store %l2, %lse2[%b, %h, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  %z = arith.constant dense<0.0> : !tile.tile<1x1x64x64xf32>
  tile.store %z, %dqacc[%b, %h, %m0, %c0] : !tile.tile<1x1x64x64xf32>, !tile.tensor<?x?x?x64xf32>
  return
}

func.func @attention_bwd_d64(%q: !tile.tensor<?x?x?x64xbf16>, %k: !tile.tensor<?x?x?x64xbf16>,
    %v: !tile.tensor<?x?x?x64xbf16>, %do: !tile.tensor<?x?x?x64xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x64xf32>, %dk: !tile.tensor<?x?x?x64xbf16>,
    %dv: !tile.tensor<?x?x?x64xbf16>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 128), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %cn = arith.constant 128 : i32
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
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %zst = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  // Causal: the first query block that sees key n0 (blocks of 128 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %cm : i32
  %mfirst = arith.divsi %mstart, %cm : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (row) and query (column) indices of the masks.
  %kiota = tile.iota : !tile.tile<128xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
  %cols2 = tile.expand_dims %cols axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<128x128xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<128x128xi32>
  %qiota = tile.iota : !tile.tile<128xi32>
  %dcols = tile.iota : !tile.tile<64xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<128x64xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<128x64xf32>, !tile.tile<128x64xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %cm : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x128xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x128xf32> -> !tile.tile<128xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x128xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x128xf32> -> !tile.tile<128xf32>
    // Scores transposed (keys x queries, as Triton's tutorial writes them):
    // Pᵀ and dSᵀ are then the A operands of dV and dK as they are.
    %qtt = tile.transpose %qt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %dott = tile.transpose %dot_ [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    // Sᵀ = K Qᵀ (keys x queries), masked only on the blocks that need it.
    %st = tile.dot %kt, %qtt, %zst : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<128xi32>
      %rows2 = tile.expand_dims %rows axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<128x128xi32>
      %notc = arith.constant dense<true> : !tile.tile<128x128xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<128x128xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<128x128xi1>
      %cok = arith.ori %below, %free : !tile.tile<128x128xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<128x128xi1>
      %masked = arith.select %keep, %st, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %st : !tile.tile<128x128xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<128x128xf32>
    %le = tile.expand_dims %l axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %lb = tile.broadcast %le : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<128x128xf32>
    %pt = math.exp2 %sl : !tile.tile<128x128xf32>
    %ptb = arith.truncf %pt : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    // dV += Pᵀ dO
    %dv_n = tile.dot %ptb, %dot_, %dv_i : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    // dPᵀ = V dOᵀ; dSᵀ = Pᵀ (dPᵀ - Delta)
    %dpt = tile.dot %vt, %dott, %zst : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %de = tile.expand_dims %dl axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %db = tile.broadcast %de : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %dpd = arith.subf %dpt, %db : !tile.tile<128x128xf32>
    %dst = arith.mulf %pt, %dpd : !tile.tile<128x128xf32>
    %dstb = arith.truncf %dst : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    // dK += dSᵀ Q
    %dk_n = tile.dot %dstb, %qt, %dk_i : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dsb = tile.transpose %dstb [1, 0] : !tile.tile<128x128xbf16> -> !tile.tile<128x128xbf16>
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<128x64xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<128xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<128xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<128x64xf32>, !tile.tensor<?x?x?x64xf32>, !tile.tile<128x64xi32>,
          !tile.tile<128x64xi32>, !tile.tile<128x64xi32>, !tile.tile<128x64xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<128x64xf32>, !tile.tile<128x64xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<128x64xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<128x64xf32>
  %dkb = arith.truncf %dks : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  return
}

// attention_bwd_d64 with dQ's adds into each block of queries in a fixed
// order (its counters in %dqsem: zero at launch, left zero).
func.func @attention_bwd_det_d64(%q: !tile.tensor<?x?x?x64xbf16>, %k: !tile.tensor<?x?x?x64xbf16>,
    %v: !tile.tensor<?x?x?x64xbf16>, %do: !tile.tensor<?x?x?x64xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x64xf32>, %dk: !tile.tensor<?x?x?x64xbf16>,
    %dv: !tile.tensor<?x?x?x64xbf16>, %scale: f32, %causal: i32,
    %dqsem: !tile.tensor<?x?x?xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 128), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %cn = arith.constant 128 : i32
  %pid = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x64xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x64xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %group = arith.divui %hq, %hkv : i32
  %h0 = arith.muli %hkr, %group : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x64xbf16>
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x64xbf16>
  // Key blocks last first (program 0 takes the last): the order of
  // the dQ adds, and a program waits only for programs launched before it.
  %nk = arith.ceildivsi %skv, %cn : i32
  %nk1 = arith.subi %nk, %c1 : i32
  %pn = arith.subi %nk1, %pid : i32
  %n0 = arith.muli %pn, %cn : i32
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %zst = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  // Causal: the first query block that sees key n0 (blocks of 128 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %cm : i32
  %mfirst = arith.divsi %mstart, %cm : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (row) and query (column) indices of the masks.
  %kiota = tile.iota : !tile.tile<128xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
  %cols2 = tile.expand_dims %cols axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<128x128xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<128x128xi32>
  %qiota = tile.iota : !tile.tile<128xi32>
  %dcols = tile.iota : !tile.tile<64xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<128x64xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<128x64xf32>, !tile.tile<128x64xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %cm : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x128x64xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x128xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x128xf32> -> !tile.tile<128xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x128xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x128xf32> -> !tile.tile<128xf32>
    // Scores transposed (keys x queries, as Triton's tutorial writes them):
    // Pᵀ and dSᵀ are then the A operands of dV and dK as they are.
    %qtt = tile.transpose %qt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %dott = tile.transpose %dot_ [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    // Sᵀ = K Qᵀ (keys x queries), masked only on the blocks that need it.
    %st = tile.dot %kt, %qtt, %zst : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<128xi32>
      %rows2 = tile.expand_dims %rows axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<128x128xi32>
      %notc = arith.constant dense<true> : !tile.tile<128x128xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<128x128xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<128x128xi1>
      %cok = arith.ori %below, %free : !tile.tile<128x128xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<128x128xi1>
      %masked = arith.select %keep, %st, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %st : !tile.tile<128x128xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<128x128xf32>
    %le = tile.expand_dims %l axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %lb = tile.broadcast %le : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<128x128xf32>
    %pt = math.exp2 %sl : !tile.tile<128x128xf32>
    %ptb = arith.truncf %pt : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    // dV += Pᵀ dO
    %dv_n = tile.dot %ptb, %dot_, %dv_i : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    // dPᵀ = V dOᵀ; dSᵀ = Pᵀ (dPᵀ - Delta)
    %dpt = tile.dot %vt, %dott, %zst : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %de = tile.expand_dims %dl axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %db = tile.broadcast %de : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %dpd = arith.subf %dpt, %db : !tile.tile<128x128xf32>
    %dst = arith.mulf %pt, %dpd : !tile.tile<128x128xf32>
    %dstb = arith.truncf %dst : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    // dK += dSᵀ Q
    %dk_n = tile.dot %dstb, %qt, %dk_i : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dsb = tile.transpose %dstb [1, 0] : !tile.tile<128x128xbf16> -> !tile.tile<128x128xbf16>
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<128x64xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<128xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<128xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
    // Wait until the key blocks above this one that see query block mb
    // (pmax - pn of them: pmax the last that does) have added theirs.
    %semb = tile.splat %b : i32 -> !tile.tile<1xi32>
    %semh = tile.splat %h : i32 -> !tile.tile<1xi32>
    %semm = tile.splat %mb : i32 -> !tile.tile<1xi32>
    %mb1 = arith.addi %mb, %c1 : i32
    %mend = arith.muli %mb1, %cm : i32
    %mlast = arith.subi %mend, %c1 : i32
    %pdiag = arith.divsi %mlast, %cn : i32
    %pdiag1 = arith.minsi %pdiag, %nk1 : i32
    %pmax = arith.select %is_causal, %pdiag1, %nk1 : i32
    %turn = arith.subi %pmax, %pn : i32
    %zero1 = arith.constant dense<0> : !tile.tile<1xi32>
    scf.while : () -> () {
      %seen = tile.atomic_rmw add %zero1, %dqsem[%semb, %semh, %semm] sem acquire
          : !tile.tile<1xi32>, !tile.tensor<?x?x?xi32>, !tile.tile<1xi32>,
            !tile.tile<1xi32>, !tile.tile<1xi32>
      %seen1 = tile.reduce sum %seen dim 0 : !tile.tile<1xi32> -> i32
      %early = arith.cmpi ne, %seen1, %turn : i32
      scf.condition(%early)
    } do {
      scf.yield
    }
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<128x64xf32>, !tile.tensor<?x?x?x64xf32>, !tile.tile<128x64xi32>,
          !tile.tile<128x64xi32>, !tile.tile<128x64xi32>, !tile.tile<128x64xi32>
    // Counted in (release: after the add), the last (key block 0)
    // setting the counter back to zero.
    %last = arith.cmpi eq, %pn, %c0 : i32
    %back = arith.subi %c0, %pmax : i32
    %step = arith.select %last, %back, %c1 : i32
    %step1 = tile.splat %step : i32 -> !tile.tile<1xi32>
    %done = tile.atomic_rmw add %step1, %dqsem[%semb, %semh, %semm] sem release
        : !tile.tile<1xi32>, !tile.tensor<?x?x?xi32>, !tile.tile<1xi32>,
          !tile.tile<1xi32>, !tile.tile<1xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<128x64xf32>, !tile.tile<128x64xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<128x64xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<128x64xf32>
  %dkb = arith.truncf %dks : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  return
}

func.func @attention_bwd_post_d64(%dqacc: !tile.tensor<?x?x?x64xf32>, %dq: !tile.tensor<?x?x?x64xbf16>,
    %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %dqacc, 1 : !tile.tensor<?x?x?x64xf32>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %m0 = arith.muli %pm, %c64 : i32
  %a = tile.load %dqacc[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xf32> -> !tile.tile<1x1x64x64xf32>
  %st = tile.splat %scale : f32 -> !tile.tile<1x1x64x64xf32>
  %s = arith.mulf %a, %st : !tile.tile<1x1x64x64xf32>
  %sb = arith.truncf %s : !tile.tile<1x1x64x64xf32> to !tile.tile<1x1x64x64xbf16>
  tile.store %sb, %dq[%b, %h, %m0, %c0] : !tile.tile<1x1x64x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  return
}

// ---------------------------------------------------------------- D = 128


func.func @attention_bwd_pre_d128(%o: !tile.tensor<?x?x?x128xbf16>, %do: !tile.tensor<?x?x?x128xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %lse2: !tile.tensor<?x?x?xf32>, %dqacc: !tile.tensor<?x?x?x128xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %o, 1 : !tile.tensor<?x?x?x128xbf16>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %m0 = arith.muli %pm, %c64 : i32
  %o4 = tile.load %o[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  %ot = tile.reshape %o4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
  %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
  %of = arith.extf %ot : !tile.tile<64x128xbf16> to !tile.tile<64x128xf32>
  %dof = arith.extf %dot_ : !tile.tile<64x128xbf16> to !tile.tile<64x128xf32>
  %prod = arith.mulf %of, %dof : !tile.tile<64x128xf32>
  %dl = tile.reduce sum %prod dim 1 : !tile.tile<64x128xf32> -> !tile.tile<64xf32>
  %dl3 = tile.reshape %dl : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
  tile.store %dl3, %delta[%b, %h, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  %l3 = tile.load %lse[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
  %log2e = arith.constant dense<1.44269504> : !tile.tile<1x1x64xf32>
  %l2 = arith.mulf %l3, %log2e : !tile.tile<1x1x64xf32>
  tile.store %l2, %lse2[%b, %h, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  %z = arith.constant dense<0.0> : !tile.tile<1x1x64x128xf32>
  tile.store %z, %dqacc[%b, %h, %m0, %c0] : !tile.tile<1x1x64x128xf32>, !tile.tensor<?x?x?x128xf32>
  return
}

func.func @attention_bwd_d128(%q: !tile.tensor<?x?x?x128xbf16>, %k: !tile.tensor<?x?x?x128xbf16>,
    %v: !tile.tensor<?x?x?x128xbf16>, %do: !tile.tensor<?x?x?x128xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x128xf32>, %dk: !tile.tensor<?x?x?x128xbf16>,
    %dv: !tile.tensor<?x?x?x128xbf16>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 128), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 128 : i32
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
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x128x128xbf16> -> !tile.tile<128x128xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x128x128xbf16> -> !tile.tile<128x128xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x64xf32>
  %zst = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x64xf32>
  // Causal: the first query block that sees key n0 (blocks of 64 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %cm : i32
  %mfirst = arith.divsi %mstart, %cm : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (row) and query (column) indices of the masks.
  %kiota = tile.iota : !tile.tile<128xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
  %cols2 = tile.expand_dims %cols axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<128x64xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<128x64xi32>
  %qiota = tile.iota : !tile.tile<64xi32>
  %dcols = tile.iota : !tile.tile<128xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x128xi32> -> !tile.tile<64x128xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<64x128xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<128x128xf32>, !tile.tile<128x128xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %cm : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    // Scores transposed (keys x queries, as Triton's tutorial writes them):
    // Pᵀ and dSᵀ are then the A operands of dV and dK as they are.
    %qtt = tile.transpose %qt [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %dott = tile.transpose %dot_ [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    // Sᵀ = K Qᵀ (keys x queries), masked only on the blocks that need it.
    %st = tile.dot %kt, %qtt, %zst : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    // dPᵀ = V dOᵀ, issued beside Sᵀ (it reads only loaded tiles): the
    // two MMAs run while the mask and exp2 wait for Sᵀ alone.
    %dpt = tile.dot %vt, %dott, %zst : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<128x64xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<64xi32>
      %rows2 = tile.expand_dims %rows axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<128x64xi32>
      %notc = arith.constant dense<true> : !tile.tile<128x64xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<128x64xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<128x64xi1>
      %cok = arith.ori %below, %free : !tile.tile<128x64xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<128x64xi1>
      %masked = arith.select %keep, %st, %neg : !tile.tile<128x64xi1>, !tile.tile<128x64xf32>
      scf.yield %masked : !tile.tile<128x64xf32>
    } else {
      scf.yield %st : !tile.tile<128x64xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<128x64xf32>
    %le = tile.expand_dims %l axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %lb = tile.broadcast %le : !tile.tile<1x64xf32> -> !tile.tile<128x64xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<128x64xf32>
    %pt = math.exp2 %sl : !tile.tile<128x64xf32>
    %ptb = arith.truncf %pt : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    // dV += Pᵀ dO
    %dv_n = tile.dot %ptb, %dot_, %dv_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    // dSᵀ = Pᵀ (dPᵀ - Delta)
    %de = tile.expand_dims %dl axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %db = tile.broadcast %de : !tile.tile<1x64xf32> -> !tile.tile<128x64xf32>
    %dpd = arith.subf %dpt, %db : !tile.tile<128x64xf32>
    %dst = arith.mulf %pt, %dpd : !tile.tile<128x64xf32>
    %dstb = arith.truncf %dst : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    // dK += dSᵀ Q
    %dk_n = tile.dot %dstb, %qt, %dk_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dsb = tile.transpose %dstb [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<64x128xbf16>, !tile.tile<128x128xbf16> -> !tile.tile<64x128xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<64x128xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<64xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<64x128xf32>, !tile.tensor<?x?x?x128xf32>, !tile.tile<64x128xi32>,
          !tile.tile<64x128xi32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<128x128xf32>, !tile.tile<128x128xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<128x128xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<128x128xf32>
  %dkb = arith.truncf %dks : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<128x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<128x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  return
}

// attention_bwd_d128 with dQ's adds into each block of queries in a fixed
// order (its counters in %dqsem: zero at launch, left zero).
func.func @attention_bwd_det_d128(%q: !tile.tensor<?x?x?x128xbf16>, %k: !tile.tensor<?x?x?x128xbf16>,
    %v: !tile.tensor<?x?x?x128xbf16>, %do: !tile.tensor<?x?x?x128xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x128xf32>, %dk: !tile.tensor<?x?x?x128xbf16>,
    %dv: !tile.tensor<?x?x?x128xbf16>, %scale: f32, %causal: i32,
    %dqsem: !tile.tensor<?x?x?xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 128), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 128 : i32
  %pid = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x128xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x128xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %group = arith.divui %hq, %hkv : i32
  %h0 = arith.muli %hkr, %group : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x128xbf16>
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x128xbf16>
  // Key blocks last first (program 0 takes the last): the order of
  // the dQ adds, and a program waits only for programs launched before it.
  %nk = arith.ceildivsi %skv, %cn : i32
  %nk1 = arith.subi %nk, %c1 : i32
  %pn = arith.subi %nk1, %pid : i32
  %n0 = arith.muli %pn, %cn : i32
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x128x128xbf16> -> !tile.tile<128x128xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x128x128xbf16> -> !tile.tile<128x128xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x64xf32>
  %zst = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x64xf32>
  // Causal: the first query block that sees key n0 (blocks of 64 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %cm : i32
  %mfirst = arith.divsi %mstart, %cm : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (row) and query (column) indices of the masks.
  %kiota = tile.iota : !tile.tile<128xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
  %cols2 = tile.expand_dims %cols axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<128x64xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<128x64xi32>
  %qiota = tile.iota : !tile.tile<64xi32>
  %dcols = tile.iota : !tile.tile<128xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x128xi32> -> !tile.tile<64x128xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<64x128xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<128x128xf32>, !tile.tile<128x128xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %cm : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    // Scores transposed (keys x queries, as Triton's tutorial writes them):
    // Pᵀ and dSᵀ are then the A operands of dV and dK as they are.
    %qtt = tile.transpose %qt [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %dott = tile.transpose %dot_ [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    // Sᵀ = K Qᵀ (keys x queries), masked only on the blocks that need it.
    %st = tile.dot %kt, %qtt, %zst : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<128x64xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<64xi32>
      %rows2 = tile.expand_dims %rows axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<128x64xi32>
      %notc = arith.constant dense<true> : !tile.tile<128x64xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<128x64xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<128x64xi1>
      %cok = arith.ori %below, %free : !tile.tile<128x64xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<128x64xi1>
      %masked = arith.select %keep, %st, %neg : !tile.tile<128x64xi1>, !tile.tile<128x64xf32>
      scf.yield %masked : !tile.tile<128x64xf32>
    } else {
      scf.yield %st : !tile.tile<128x64xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<128x64xf32>
    %le = tile.expand_dims %l axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %lb = tile.broadcast %le : !tile.tile<1x64xf32> -> !tile.tile<128x64xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<128x64xf32>
    %pt = math.exp2 %sl : !tile.tile<128x64xf32>
    %ptb = arith.truncf %pt : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    // dV += Pᵀ dO
    %dv_n = tile.dot %ptb, %dot_, %dv_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    // dPᵀ = V dOᵀ; dSᵀ = Pᵀ (dPᵀ - Delta)
    %dpt = tile.dot %vt, %dott, %zst : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    %de = tile.expand_dims %dl axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %db = tile.broadcast %de : !tile.tile<1x64xf32> -> !tile.tile<128x64xf32>
    %dpd = arith.subf %dpt, %db : !tile.tile<128x64xf32>
    %dst = arith.mulf %pt, %dpd : !tile.tile<128x64xf32>
    %dstb = arith.truncf %dst : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    // dK += dSᵀ Q
    %dk_n = tile.dot %dstb, %qt, %dk_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dsb = tile.transpose %dstb [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<64x128xbf16>, !tile.tile<128x128xbf16> -> !tile.tile<64x128xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<64x128xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<64xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
    // Wait until the key blocks above this one that see query block mb
    // (pmax - pn of them: pmax the last that does) have added theirs.
    %semb = tile.splat %b : i32 -> !tile.tile<1xi32>
    %semh = tile.splat %h : i32 -> !tile.tile<1xi32>
    %semm = tile.splat %mb : i32 -> !tile.tile<1xi32>
    %mb1 = arith.addi %mb, %c1 : i32
    %mend = arith.muli %mb1, %cm : i32
    %mlast = arith.subi %mend, %c1 : i32
    %pdiag = arith.divsi %mlast, %cn : i32
    %pdiag1 = arith.minsi %pdiag, %nk1 : i32
    %pmax = arith.select %is_causal, %pdiag1, %nk1 : i32
    %turn = arith.subi %pmax, %pn : i32
    %zero1 = arith.constant dense<0> : !tile.tile<1xi32>
    scf.while : () -> () {
      %seen = tile.atomic_rmw add %zero1, %dqsem[%semb, %semh, %semm] sem acquire
          : !tile.tile<1xi32>, !tile.tensor<?x?x?xi32>, !tile.tile<1xi32>,
            !tile.tile<1xi32>, !tile.tile<1xi32>
      %seen1 = tile.reduce sum %seen dim 0 : !tile.tile<1xi32> -> i32
      %early = arith.cmpi ne, %seen1, %turn : i32
      scf.condition(%early)
    } do {
      scf.yield
    }
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<64x128xf32>, !tile.tensor<?x?x?x128xf32>, !tile.tile<64x128xi32>,
          !tile.tile<64x128xi32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
    // Counted in (release: after the add), the last (key block 0)
    // setting the counter back to zero.
    %last = arith.cmpi eq, %pn, %c0 : i32
    %back = arith.subi %c0, %pmax : i32
    %step = arith.select %last, %back, %c1 : i32
    %step1 = tile.splat %step : i32 -> !tile.tile<1xi32>
    %done = tile.atomic_rmw add %step1, %dqsem[%semb, %semh, %semm] sem release
        : !tile.tile<1xi32>, !tile.tensor<?x?x?xi32>, !tile.tile<1xi32>,
          !tile.tile<1xi32>, !tile.tile<1xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<128x128xf32>, !tile.tile<128x128xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<128x128xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<128x128xf32>
  %dkb = arith.truncf %dks : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<128x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<128x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x128x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  return
}

func.func @attention_bwd_post_d128(%dqacc: !tile.tensor<?x?x?x128xf32>, %dq: !tile.tensor<?x?x?x128xbf16>,
    %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %dqacc, 1 : !tile.tensor<?x?x?x128xf32>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %m0 = arith.muli %pm, %c64 : i32
  %a = tile.load %dqacc[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xf32> -> !tile.tile<1x1x64x128xf32>
  %st = tile.splat %scale : f32 -> !tile.tile<1x1x64x128xf32>
  %s = arith.mulf %a, %st : !tile.tile<1x1x64x128xf32>
  %sb = arith.truncf %s : !tile.tile<1x1x64x128xf32> to !tile.tile<1x1x64x128xbf16>
  tile.store %sb, %dq[%b, %h, %m0, %c0] : !tile.tile<1x1x64x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  return
}

// ---------------------------------------------------------------- D = 256


func.func @attention_bwd_pre_d256(%o: !tile.tensor<?x?x?x256xbf16>, %do: !tile.tensor<?x?x?x256xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %lse2: !tile.tensor<?x?x?xf32>, %dqacc: !tile.tensor<?x?x?x256xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %o, 1 : !tile.tensor<?x?x?x256xbf16>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %m0 = arith.muli %pm, %c64 : i32
  %o4 = tile.load %o[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %ot = tile.reshape %o4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  %of = arith.extf %ot : !tile.tile<64x256xbf16> to !tile.tile<64x256xf32>
  %dof = arith.extf %dot_ : !tile.tile<64x256xbf16> to !tile.tile<64x256xf32>
  %prod = arith.mulf %of, %dof : !tile.tile<64x256xf32>
  %dl = tile.reduce sum %prod dim 1 : !tile.tile<64x256xf32> -> !tile.tile<64xf32>
  %dl3 = tile.reshape %dl : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
  tile.store %dl3, %delta[%b, %h, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  %l3 = tile.load %lse[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
  %log2e = arith.constant dense<1.44269504> : !tile.tile<1x1x64xf32>
  %l2 = arith.mulf %l3, %log2e : !tile.tile<1x1x64xf32>
  tile.store %l2, %lse2[%b, %h, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  %z = arith.constant dense<0.0> : !tile.tile<1x1x64x256xf32>
  tile.store %z, %dqacc[%b, %h, %m0, %c0] : !tile.tile<1x1x64x256xf32>, !tile.tensor<?x?x?x256xf32>
  return
}

func.func @attention_bwd_d256(%q: !tile.tensor<?x?x?x256xbf16>, %k: !tile.tensor<?x?x?x256xbf16>,
    %v: !tile.tensor<?x?x?x256xbf16>, %do: !tile.tensor<?x?x?x256xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x256xf32>, %dk: !tile.tensor<?x?x?x256xbf16>,
    %dv: !tile.tensor<?x?x?x256xbf16>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 64), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 64 : i32
  %pn = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x256xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x256xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %group = arith.divui %hq, %hkv : i32
  %h0 = arith.muli %hkr, %group : i32
  %n0 = arith.muli %pn, %cn : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x256xbf16>
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x256xbf16>
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %zst = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %z = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  // Causal: the first query block that sees key n0 (blocks of 64 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %cm : i32
  %mfirst = arith.divsi %mstart, %cm : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (row) and query (column) indices of the masks.
  %kiota = tile.iota : !tile.tile<64xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<64xi32>
  %cols2 = tile.expand_dims %cols axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<64x64xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<64x64xi32>
  %qiota = tile.iota : !tile.tile<64xi32>
  %dcols = tile.iota : !tile.tile<256xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<256xi32> -> !tile.tile<1x256xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x256xi32> -> !tile.tile<64x256xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<64x256xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<64x256xf32>, !tile.tile<64x256xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %cm : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    // Scores transposed (keys x queries, as Triton's tutorial writes them):
    // Pᵀ and dSᵀ are then the A operands of dV and dK as they are.
    %qtt = tile.transpose %qt [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    %dott = tile.transpose %dot_ [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    // Sᵀ = K Qᵀ (keys x queries), masked only on the blocks that need it.
    %st = tile.dot %kt, %qtt, %zst : !tile.tile<64x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<64x64xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<64x64xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<64xi32>
      %rows2 = tile.expand_dims %rows axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<64x64xi32>
      %notc = arith.constant dense<true> : !tile.tile<64x64xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<64x64xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<64x64xi1>
      %cok = arith.ori %below, %free : !tile.tile<64x64xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<64x64xi1>
      %masked = arith.select %keep, %st, %neg : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      scf.yield %masked : !tile.tile<64x64xf32>
    } else {
      scf.yield %st : !tile.tile<64x64xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<64x64xf32>
    %le = tile.expand_dims %l axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %lb = tile.broadcast %le : !tile.tile<1x64xf32> -> !tile.tile<64x64xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<64x64xf32>
    %pt = math.exp2 %sl : !tile.tile<64x64xf32>
    %ptb = arith.truncf %pt : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dV += Pᵀ dO
    %dv_n = tile.dot %ptb, %dot_, %dv_i : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    // dPᵀ = V dOᵀ; dSᵀ = Pᵀ (dPᵀ - Delta)
    %dpt = tile.dot %vt, %dott, %zst : !tile.tile<64x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<64x64xf32>
    %de = tile.expand_dims %dl axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %db = tile.broadcast %de : !tile.tile<1x64xf32> -> !tile.tile<64x64xf32>
    %dpd = arith.subf %dpt, %db : !tile.tile<64x64xf32>
    %dst = arith.mulf %pt, %dpd : !tile.tile<64x64xf32>
    %dstb = arith.truncf %dst : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dK += dSᵀ Q
    %dk_n = tile.dot %dstb, %qt, %dk_i : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dsb = tile.transpose %dstb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<64x256xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<64xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<64x1xi32> -> !tile.tile<64x256xi32>
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<64x256xf32>, !tile.tensor<?x?x?x256xf32>, !tile.tile<64x256xi32>,
          !tile.tile<64x256xi32>, !tile.tile<64x256xi32>, !tile.tile<64x256xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<64x256xf32>, !tile.tile<64x256xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<64x256xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<64x256xf32>
  %dkb = arith.truncf %dks : !tile.tile<64x256xf32> to !tile.tile<64x256xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<64x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<64x256xf32> to !tile.tile<64x256xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<64x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  return
}

// attention_bwd_d256 with dQ's adds into each block of queries in a fixed
// order (its counters in %dqsem: zero at launch, left zero).
func.func @attention_bwd_det_d256(%q: !tile.tensor<?x?x?x256xbf16>, %k: !tile.tensor<?x?x?x256xbf16>,
    %v: !tile.tensor<?x?x?x256xbf16>, %do: !tile.tensor<?x?x?x256xbf16>,
    %lse2: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dqacc: !tile.tensor<?x?x?x256xf32>, %dk: !tile.tensor<?x?x?x256xbf16>,
    %dv: !tile.tensor<?x?x?x256xbf16>, %scale: f32, %causal: i32,
    %dqsem: !tile.tensor<?x?x?xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 64), mul(dim(1, 0), dim(1, 1))>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 64 : i32
  %pid = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x256xbf16>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x256xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %group = arith.divui %hq, %hkv : i32
  %h0 = arith.muli %hkr, %group : i32
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x256xbf16>
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x256xbf16>
  // Key blocks last first (program 0 takes the last): the order of
  // the dQ adds, and a program waits only for programs launched before it.
  %nk = arith.ceildivsi %skv, %cn : i32
  %nk1 = arith.subi %nk, %c1 : i32
  %pn = arith.subi %nk1, %pid : i32
  %n0 = arith.muli %pn, %cn : i32
  %k4 = tile.load %k[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %kt = tile.reshape %k4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  %v4 = tile.load %v[%b, %hkr, %n0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %vt = tile.reshape %v4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  // Scores in log2 units: P = exp2(S · scale · log2 e - LSE · log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %zst = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %z = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %zq = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  // Causal: the first query block that sees key n0 (blocks of 64 queries).
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %mstart = arith.select %is_causal, %n0, %c0 : i32
  %nm = arith.ceildivsi %sq, %cm : i32
  %mfirst = arith.divsi %mstart, %cm : i32
  %nmine = arith.subi %nm, %mfirst : i32
  %nmine0 = arith.maxsi %nmine, %c0 : i32
  %steps = arith.muli %nmine0, %group : i32
  // Key (row) and query (column) indices of the masks.
  %kiota = tile.iota : !tile.tile<64xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
  %cols = arith.addi %kiota, %n0t : !tile.tile<64xi32>
  %cols2 = tile.expand_dims %cols axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %colsb = tile.broadcast %cols2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
  %skvt = tile.splat %skv : i32 -> !tile.tile<64x64xi32>
  %inkv = arith.cmpi slt, %colsb, %skvt : !tile.tile<64x64xi32>
  %qiota = tile.iota : !tile.tile<64xi32>
  %dcols = tile.iota : !tile.tile<256xi32>
  %dcols2 = tile.expand_dims %dcols axis 0 : !tile.tile<256xi32> -> !tile.tile<1x256xi32>
  %dcolsb = tile.broadcast %dcols2 : !tile.tile<1x256xi32> -> !tile.tile<64x256xi32>
  %bt = tile.splat %b : i32 -> !tile.tile<64x256xi32>
  %nend = arith.addi %n0, %cn : i32
  %ragged = arith.cmpi sgt, %nend, %skv : i32
  %last_key = arith.subi %nend, %c1 : i32
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%dk_i = %z, %dv_i = %z)
      -> (!tile.tile<64x256xf32>, !tile.tile<64x256xf32>) : i32 {
    // Step i: query head h0 + i / nmine, query block mfirst + i % nmine.
    %hi = arith.divui %i, %nmine0 : i32
    %h = arith.addi %h0, %hi : i32
    %mi = arith.remui %i, %nmine0 : i32
    %mb = arith.addi %mfirst, %mi : i32
    %m0 = arith.muli %mb, %cm : i32
    %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
    %qt = tile.reshape %q4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %do4 = tile.load %do[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
    %dot_ = tile.reshape %do4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %l3 = tile.load %lse2[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %h, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    // Scores transposed (keys x queries, as Triton's tutorial writes them):
    // Pᵀ and dSᵀ are then the A operands of dV and dK as they are.
    %qtt = tile.transpose %qt [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    %dott = tile.transpose %dot_ [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    // Sᵀ = K Qᵀ (keys x queries), masked only on the blocks that need it.
    %st = tile.dot %kt, %qtt, %zst : !tile.tile<64x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<64x64xf32>
    %diag = arith.cmpi slt, %m0, %last_key : i32
    %cdiag = arith.andi %is_causal, %diag : i1
    %partial = arith.ori %cdiag, %ragged : i1
    %sm = scf.if %partial -> (!tile.tile<64x64xf32>) {
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %qiota, %m0t : !tile.tile<64xi32>
      %rows2 = tile.expand_dims %rows axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
      %rowsb = tile.broadcast %rows2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
      %below = arith.cmpi sle, %colsb, %rowsb : !tile.tile<64x64xi32>
      %notc = arith.constant dense<true> : !tile.tile<64x64xi1>
      %ctile = tile.splat %is_causal : i1 -> !tile.tile<64x64xi1>
      %free = arith.xori %ctile, %notc : !tile.tile<64x64xi1>
      %cok = arith.ori %below, %free : !tile.tile<64x64xi1>
      %keep = arith.andi %cok, %inkv : !tile.tile<64x64xi1>
      %masked = arith.select %keep, %st, %neg : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      scf.yield %masked : !tile.tile<64x64xf32>
    } else {
      scf.yield %st : !tile.tile<64x64xf32>
    }
    %ss = arith.mulf %sm, %scale_t : !tile.tile<64x64xf32>
    %le = tile.expand_dims %l axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %lb = tile.broadcast %le : !tile.tile<1x64xf32> -> !tile.tile<64x64xf32>
    %sl = arith.subf %ss, %lb : !tile.tile<64x64xf32>
    %pt = math.exp2 %sl : !tile.tile<64x64xf32>
    %ptb = arith.truncf %pt : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dV += Pᵀ dO
    %dv_n = tile.dot %ptb, %dot_, %dv_i : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    // dPᵀ = V dOᵀ; dSᵀ = Pᵀ (dPᵀ - Delta)
    %dpt = tile.dot %vt, %dott, %zst : !tile.tile<64x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<64x64xf32>
    %de = tile.expand_dims %dl axis 0 : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    %db = tile.broadcast %de : !tile.tile<1x64xf32> -> !tile.tile<64x64xf32>
    %dpd = arith.subf %dpt, %db : !tile.tile<64x64xf32>
    %dst = arith.mulf %pt, %dpd : !tile.tile<64x64xf32>
    %dstb = arith.truncf %dst : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    // dK += dSᵀ Q
    %dk_n = tile.dot %dstb, %qt, %dk_i : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    // dQ[rows] += dS K in f32, rows past S not accessed: an atomic add of a
    // box, which the compiler makes a reducing store (docs/OPS.md)
    %dsb = tile.transpose %dstb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %dq = tile.dot %dsb, %kt, %zq : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    %ht = tile.splat %h : i32 -> !tile.tile<64x256xi32>
    %m0q = tile.splat %m0 : i32 -> !tile.tile<64xi32>
    %qrows = arith.addi %qiota, %m0q : !tile.tile<64xi32>
    %qrows2 = tile.expand_dims %qrows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %qrowsb = tile.broadcast %qrows2 : !tile.tile<64x1xi32> -> !tile.tile<64x256xi32>
    // Wait until the key blocks above this one that see query block mb
    // (pmax - pn of them: pmax the last that does) have added theirs.
    %semb = tile.splat %b : i32 -> !tile.tile<1xi32>
    %semh = tile.splat %h : i32 -> !tile.tile<1xi32>
    %semm = tile.splat %mb : i32 -> !tile.tile<1xi32>
    %mb1 = arith.addi %mb, %c1 : i32
    %mend = arith.muli %mb1, %cm : i32
    %mlast = arith.subi %mend, %c1 : i32
    %pdiag = arith.divsi %mlast, %cn : i32
    %pdiag1 = arith.minsi %pdiag, %nk1 : i32
    %pmax = arith.select %is_causal, %pdiag1, %nk1 : i32
    %turn = arith.subi %pmax, %pn : i32
    %zero1 = arith.constant dense<0> : !tile.tile<1xi32>
    scf.while : () -> () {
      %seen = tile.atomic_rmw add %zero1, %dqsem[%semb, %semh, %semm] sem acquire
          : !tile.tile<1xi32>, !tile.tensor<?x?x?xi32>, !tile.tile<1xi32>,
            !tile.tile<1xi32>, !tile.tile<1xi32>
      %seen1 = tile.reduce sum %seen dim 0 : !tile.tile<1xi32> -> i32
      %early = arith.cmpi ne, %seen1, %turn : i32
      scf.condition(%early)
    } do {
      scf.yield
    }
    %old = tile.atomic_rmw add %dq, %dqacc[%bt, %ht, %qrowsb, %dcolsb] sem relaxed
        : !tile.tile<64x256xf32>, !tile.tensor<?x?x?x256xf32>, !tile.tile<64x256xi32>,
          !tile.tile<64x256xi32>, !tile.tile<64x256xi32>, !tile.tile<64x256xi32>
    // Counted in (release: after the add), the last (key block 0)
    // setting the counter back to zero.
    %last = arith.cmpi eq, %pn, %c0 : i32
    %back = arith.subi %c0, %pmax : i32
    %step = arith.select %last, %back, %c1 : i32
    %step1 = tile.splat %step : i32 -> !tile.tile<1xi32>
    %done = tile.atomic_rmw add %step1, %dqsem[%semb, %semh, %semm] sem release
        : !tile.tile<1xi32>, !tile.tensor<?x?x?xi32>, !tile.tile<1xi32>,
          !tile.tile<1xi32>, !tile.tile<1xi32>
    scf.yield %dk_n, %dv_n : !tile.tile<64x256xf32>, !tile.tile<64x256xf32>
  }
  %scale_k = tile.splat %scale : f32 -> !tile.tile<64x256xf32>
  %dks = arith.mulf %r#0, %scale_k : !tile.tile<64x256xf32>
  %dkb = arith.truncf %dks : !tile.tile<64x256xf32> to !tile.tile<64x256xbf16>
  %dk4 = tile.reshape %dkb : !tile.tile<64x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  tile.store %dk4, %dk[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  %dvb = arith.truncf %r#1 : !tile.tile<64x256xf32> to !tile.tile<64x256xbf16>
  %dv4 = tile.reshape %dvb : !tile.tile<64x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  tile.store %dv4, %dv[%b, %hkr, %n0, %c0] : !tile.tile<1x1x64x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  return
}

func.func @attention_bwd_post_d256(%dqacc: !tile.tensor<?x?x?x256xf32>, %dq: !tile.tensor<?x?x?x256xbf16>,
    %scale: f32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %hq = tile.dim %dqacc, 1 : !tile.tensor<?x?x?x256xf32>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %m0 = arith.muli %pm, %c64 : i32
  %a = tile.load %dqacc[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xf32> -> !tile.tile<1x1x64x256xf32>
  %st = tile.splat %scale : f32 -> !tile.tile<1x1x64x256xf32>
  %s = arith.mulf %a, %st : !tile.tile<1x1x64x256xf32>
  %sb = arith.truncf %s : !tile.tile<1x1x64x256xf32> to !tile.tile<1x1x64x256xbf16>
  tile.store %sb, %dq[%b, %h, %m0, %c0] : !tile.tile<1x1x64x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  return
}
