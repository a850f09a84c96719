// Attention forward over a batch of packed sequences of different lengths
// (variable-length prefill, FlashAttention's varlen interface):
//   O_b = softmax(Q_b K_bᵀ · scale [+ causal mask]) V_b,   LSE_b
// for each sequence b, whose queries are rows cu_q[b] .. cu_q[b + 1] - 1
// of the packed q and whose keys are rows cu_k[b] .. cu_k[b + 1] - 1 of k
// and v. q and o are (Hq, total_q, D) views, k and v (Hkv, total_k, D),
// lse (Hq, total_q) f32: the (total, H, D) tensors of the varlen interface
// pass as t.transpose(0, 1) without a copy. Query head h reads key/value
// head h / (Hq / Hkv) (GQA). `causal` != 0 aligns the mask bottom-right
// when the lengths differ: query i of a sequence of Lq queries and Lk keys
// sees keys 0 .. i + Lk - Lq (none where that is negative: O = 0, LSE =
// -inf, as for a sequence without keys).
//
// One program per 128 queries of one (sequence, query head), from a
// schedule: row x of `sched` (n, 2) names the sequence and the query block
// program x takes (a sequence of -1: none, the program stores nothing).
// tilec.ops.varlen_attention computes it on the GPU from the lengths,
// longest sequences first and each sequence's last block first (the most
// keys when causal), so that the long programs start first; its rows are
// at most total_q / 128 + B. The tiles' work depends on the lengths, which
// the grid does not show, so the persistent programs take them dynamically
// (tile.tile_scheduler = dynamic: a program that finishes a tile takes the
// next one of the order; causal rows 3-6% faster than the static waves).
// The body is the fixed-length
// kernel's (examples/attention.mlir: warp-specialized, Q, K and V by TMA
// at the sequence's row offsets, wgmma): rows of the next sequence that a
// block reads are masked in the scores (keys) or never stored (queries);
// O and LSE are stored for the sequence's own rows only.

func.func @varlen_attention_d128(%q: !tile.tensor<?x?x128xbf16>, %k: !tile.tensor<?x?x128xbf16>,
    %v: !tile.tensor<?x?x128xbf16>, %o: !tile.tensor<?x?x128xbf16>,
    %lse: !tile.tensor<?x?xf32>, %cuq: !tile.tensor<?xi32>, %cuk: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.tile_scheduler = #tile.tile_scheduler<dynamic>,
                tile.grid = #tile.grid<dim(7, 0), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 128 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %h = tile.program_id y
  %hq = tile.dim %q, 0 : !tile.tensor<?x?x128xbf16>
  %hkv = tile.dim %k, 0 : !tile.tensor<?x?x128xbf16>
  // Program x is the schedule's row x; y the query head, which reads its
  // group's K and V.
  %bs = tile.load %sched[%px, %c0] : !tile.tensor<?x2xi32> -> i32
  %pm = tile.load %sched[%px, %c1] : !tile.tensor<?x2xi32> -> i32
  %any = arith.cmpi sge, %bs, %c0 : i32
  %b = arith.select %any, %bs, %c0 : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %b1 = arith.addi %b, %c1 : i32
  %q0 = tile.load %cuq[%b] : !tile.tensor<?xi32> -> i32
  %q1 = tile.load %cuq[%b1] : !tile.tensor<?xi32> -> i32
  %k0 = tile.load %cuk[%b] : !tile.tensor<?xi32> -> i32
  %k1 = tile.load %cuk[%b1] : !tile.tensor<?xi32> -> i32
  %lq_b = arith.subi %q1, %q0 : i32
  %lq = arith.select %any, %lq_b, %c0 : i32
  %lk = arith.subi %k1, %k0 : i32
  %m0 = arith.muli %pm, %cm : i32
  %qrow = arith.addi %q0, %m0 : i32
  %q3 = tile.load %q[%h, %qrow, %c0] : !tile.tensor<?x?x128xbf16> -> !tile.tile<1x128x128xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x128x128xbf16> -> !tile.tile<128x128xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  // Masked scores are a large finite negative, not -inf: a row's first
  // block holds a key it sees (key 0) unless it sees none at all, so its
  // max is finite from the first block on and no select guards the
  // exponent in the loop (one there cost 0.6 us of a 2.05 us step); rows
  // that see no key are zeroed after the loop (lim <= 0).
  %neg = arith.constant dense<-1.0e+30> : !tile.tile<128x128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the sequence's, and when causal those up
  // to row + Lk - Lq (bottom-right).
  %shift = arith.subi %lk, %lq : i32
  %shift1 = arith.addi %shift, %c1 : i32
  %shift_t = tile.splat %shift1 : i32 -> !tile.tile<128xi32>
  %lk_t = tile.splat %lk : i32 -> !tile.tile<128xi32>
  %rows_s = arith.addi %rows, %shift_t : !tile.tile<128xi32>
  %clim = arith.minsi %rows_s, %lk_t : !tile.tile<128xi32>
  %lim = arith.select %is_causal, %clim, %lk_t : !tile.tile<128xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<128xi32>
  // The keys the block reads: up to its last row's limit (none for a
  // block past the sequence's queries).
  %qend = arith.addi %m0, %cm : i32
  %qend_s = arith.addi %qend, %shift : i32
  %causal_end = arith.minsi %lk, %qend_s : i32
  %kend0 = arith.select %is_causal, %causal_end, %lk : i32
  %live = arith.cmpi slt, %m0, %lq : i32
  %kend = arith.select %live, %kend0, %c0 : i32
  // The smallest limit of the block's rows (its first row's).
  %m0s = arith.addi %m0, %shift1 : i32
  %clo = arith.minsi %m0s, %lk : i32
  %lim_lo = arith.select %is_causal, %clo, %lk : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>) : i32 {
    %krow = arith.addi %k0, %n0 : i32
    %k3 = tile.load %k[%hk, %krow, %c0] : !tile.tensor<?x?x128xbf16> -> !tile.tile<1x128x128xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x128x128xbf16> -> !tile.tile<128x128xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x128xbf16> -> !tile.tile<128x128xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x128xbf16>, !tile.tile<128x128xbf16> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block (the next sequence's
    // keys, or the tensor's end).
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %lim_lo : i32
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<128x128xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk : !tile.tile<128x128xf32>
    }
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
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x128xf32>
    %v3 = tile.load %v[%hk, %krow, %c0] : !tile.tensor<?x?x128xbf16> -> !tile.tile<1x128x128xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x128x128xbf16> -> !tile.tile<128x128xbf16>
    %pb = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x128xbf16>, !tile.tile<128x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>
  }
  // O = acc / l (0 for a row without keys); the sequence's rows only.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %has_l = arith.cmpf ogt, %r#1, %zero : !tile.tile<128xf32>
  %zero_i = arith.constant dense<0> : !tile.tile<128xi32>
  %has_k = arith.cmpi sgt, %lim, %zero_i : !tile.tile<128xi32>
  %has = arith.andi %has_l, %has_k : !tile.tile<128xi1>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<128xi1>, !tile.tile<128xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<128xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x128xf32>
  %ob = arith.truncf %out : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %o3 = tile.reshape %ob : !tile.tile<128x128xbf16> -> !tile.tile<1x128x128xbf16>
  %lq_t = tile.splat %lq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %lq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mineb = tile.broadcast %mine2 : !tile.tile<128x1xi1> -> !tile.tile<128x128xi1>
  %mine3 = tile.reshape %mineb : !tile.tile<128x128xi1> -> !tile.tile<1x128x128xi1>
  tile.store %o3, %o[%h, %qrow, %c0] mask(%mine3 : !tile.tile<1x128x128xi1>) : !tile.tile<1x128x128xbf16>, !tile.tensor<?x?x128xbf16>
  // LSE = m · scale + ln l (-inf for a row without keys).
  %scale_l = tile.splat %scale : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %l_safe : !tile.tile<128xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<128xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %lse2 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %mine_l = tile.reshape %mine : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
  tile.store %lse2, %lse[%h, %qrow] mask(%mine_l : !tile.tile<1x128xi1>) : !tile.tile<1x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The same with the options users of such kernels expect, kept out of the
// common kernel's loop: a sliding window (query i of a sequence sees keys
// i + Lk - Lq - wl .. i + Lk - Lq + wr, a negative wl or wr for no bound
// on that side; with causal, wr is 0 at most), a logit softcap (softcap >
// 0: scores cap · tanh(s · scale / cap), Gemma's), and per-head attention
// sinks (has_sinks != 0: sinks (Hq) f32 logits added to each row's
// softmax denominator only, gpt-oss's). Blocks the window leaves out are
// not read; LSE counts the sink.
func.func @varlen_attention_opts_d128(%q: !tile.tensor<?x?x128xbf16>, %k: !tile.tensor<?x?x128xbf16>,
    %v: !tile.tensor<?x?x128xbf16>, %o: !tile.tensor<?x?x128xbf16>,
    %lse: !tile.tensor<?x?xf32>, %cuq: !tile.tensor<?xi32>, %cuk: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>, %scale: f32, %causal: i32, %wl: i32, %wr: i32,
    %softcap: f32, %sinks: !tile.tensor<?xf32>, %has_sinks: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.tile_scheduler = #tile.tile_scheduler<dynamic>,
                tile.grid = #tile.grid<dim(7, 0), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 128 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %h = tile.program_id y
  %hq = tile.dim %q, 0 : !tile.tensor<?x?x128xbf16>
  %hkv = tile.dim %k, 0 : !tile.tensor<?x?x128xbf16>
  // Program x is the schedule's row x; y the query head, which reads its
  // group's K and V.
  %bs = tile.load %sched[%px, %c0] : !tile.tensor<?x2xi32> -> i32
  %pm = tile.load %sched[%px, %c1] : !tile.tensor<?x2xi32> -> i32
  %any = arith.cmpi sge, %bs, %c0 : i32
  %b = arith.select %any, %bs, %c0 : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %b1 = arith.addi %b, %c1 : i32
  %q0 = tile.load %cuq[%b] : !tile.tensor<?xi32> -> i32
  %q1 = tile.load %cuq[%b1] : !tile.tensor<?xi32> -> i32
  %k0 = tile.load %cuk[%b] : !tile.tensor<?xi32> -> i32
  %k1 = tile.load %cuk[%b1] : !tile.tensor<?xi32> -> i32
  %lq_b = arith.subi %q1, %q0 : i32
  %lq = arith.select %any, %lq_b, %c0 : i32
  %lk = arith.subi %k1, %k0 : i32
  %m0 = arith.muli %pm, %cm : i32
  %qrow = arith.addi %q0, %m0 : i32
  %q3 = tile.load %q[%h, %qrow, %c0] : !tile.tensor<?x?x128xbf16> -> !tile.tile<1x128x128xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x128x128xbf16> -> !tile.tile<128x128xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  // Masked scores are a large finite negative, not -inf: a row's first
  // block holds a key it sees (key 0) unless it sees none at all, so its
  // max is finite from the first block on and no select guards the
  // exponent in the loop (one there cost 0.6 us of a 2.05 us step); rows
  // that see no key are zeroed after the loop (lim <= 0).
  %neg = arith.constant dense<-1.0e+30> : !tile.tile<128x128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the sequence's, and when causal those up
  // to row + Lk - Lq (bottom-right).
  %shift = arith.subi %lk, %lq : i32
  %shift1 = arith.addi %shift, %c1 : i32
  %shift_t = tile.splat %shift1 : i32 -> !tile.tile<128xi32>
  %lk_t = tile.splat %lk : i32 -> !tile.tile<128xi32>
  %rows_s = arith.addi %rows, %shift_t : !tile.tile<128xi32>
  %clim = arith.minsi %rows_s, %lk_t : !tile.tile<128xi32>
  %lim_c = arith.select %is_causal, %clim, %lk_t : !tile.tile<128xi32>
  // A right window (wr >= 0) also stops row i at key i + Lk - Lq + wr; a
  // left one (wl >= 0) starts it at key i + Lk - Lq - wl (lo[row]).
  %has_wr = arith.cmpi sge, %wr, %c0 : i32
  %has_wl = arith.cmpi sge, %wl, %c0 : i32
  %wr_t = tile.splat %wr : i32 -> !tile.tile<128xi32>
  %rows_wr = arith.addi %rows_s, %wr_t : !tile.tile<128xi32>
  %wlim = arith.minsi %lim_c, %rows_wr : !tile.tile<128xi32>
  %lim = arith.select %has_wr, %wlim, %lim_c : !tile.tile<128xi32>
  %wl1 = arith.addi %wl, %c1 : i32
  %wl1_t = tile.splat %wl1 : i32 -> !tile.tile<128xi32>
  %rows_wl = arith.subi %rows_s, %wl1_t : !tile.tile<128xi32>
  %zero_t = tile.splat %c0 : i32 -> !tile.tile<128xi32>
  %lo_w = arith.maxsi %rows_wl, %zero_t : !tile.tile<128xi32>
  %lo = arith.select %has_wl, %lo_w, %zero_t : !tile.tile<128xi32>
  %lo2 = tile.expand_dims %lo axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %lob = tile.broadcast %lo2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<128xi32>
  // The keys the block reads: up to its last row's limit (none for a
  // block past the sequence's queries).
  %qend = arith.addi %m0, %cm : i32
  %qend_s = arith.addi %qend, %shift : i32
  %causal_end = arith.minsi %lk, %qend_s : i32
  %kend_c = arith.select %is_causal, %causal_end, %lk : i32
  %qend_w = arith.addi %qend_s, %wr : i32
  %wend = arith.minsi %kend_c, %qend_w : i32
  %kend0 = arith.select %has_wr, %wend, %kend_c : i32
  %live = arith.cmpi slt, %m0, %lq : i32
  %kend = arith.select %live, %kend0, %c0 : i32
  // The smallest limit of the block's rows (its first row's).
  %m0s = arith.addi %m0, %shift1 : i32
  %clo = arith.minsi %m0s, %lk : i32
  %lim_lo_c = arith.select %is_causal, %clo, %lk : i32
  %m0w = arith.addi %m0s, %wr : i32
  %wlo = arith.minsi %lim_lo_c, %m0w : i32
  %lim_lo = arith.select %has_wr, %wlo, %lim_lo_c : i32
  // The first key any row sees (the first row's lo), down to its block;
  // blocks before the last row's lo are masked too.
  %lo_first0 = arith.subi %m0s, %wl1 : i32
  %lo_first1 = arith.maxsi %lo_first0, %c0 : i32
  %lo_first = arith.select %has_wl, %lo_first1, %c0 : i32
  %kstart0 = arith.divui %lo_first, %cn : i32
  %kstart = arith.muli %kstart0, %cn : i32
  %m0e = arith.addi %m0s, %cm : i32
  %m0e1 = arith.subi %m0e, %c1 : i32
  %lo_last0 = arith.subi %m0e1, %wl1 : i32
  %lo_last = arith.select %has_wl, %lo_last0, %c0 : i32
  // softcap > 0: scores become cap · tanh(s · scale / cap), in raw units
  // (cap / scale) · tanh(s · scale / cap), as the loop scales them after.
  %zf = arith.constant 0.0 : f32
  %capped = arith.cmpf ogt, %softcap, %zf : f32
  %one_f = arith.constant 1.0 : f32
  %cap_safe = arith.select %capped, %softcap, %one_f : f32
  %cin = arith.divf %scale, %cap_safe : f32
  %cout = arith.divf %cap_safe, %scale : f32
  %cin_t = tile.splat %cin : f32 -> !tile.tile<128x128xf32>
  %cout_t = tile.splat %cout : f32 -> !tile.tile<128x128xf32>
  %r:3 = scf.for %n0 = %kstart to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>) : i32 {
    %krow = arith.addi %k0, %n0 : i32
    %k3 = tile.load %k[%hk, %krow, %c0] : !tile.tensor<?x?x128xbf16> -> !tile.tile<1x128x128xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x128x128xbf16> -> !tile.tile<128x128xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x128xbf16> -> !tile.tile<128x128xbf16>
    %qk0 = tile.dot %qt, %ktt, %zs : !tile.tile<128x128xbf16>, !tile.tile<128x128xbf16> -> !tile.tile<128x128xf32>
    %qk = scf.if %capped -> (!tile.tile<128x128xf32>) {
      %t = arith.mulf %qk0, %cin_t : !tile.tile<128x128xf32>
      %th = math.tanh %t : !tile.tile<128x128xf32>
      %c = arith.mulf %th, %cout_t : !tile.tile<128x128xf32>
      scf.yield %c : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk0 : !tile.tile<128x128xf32>
    }
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block (the next sequence's
    // keys, or the tensor's end).
    %nend = arith.addi %n0, %cn : i32
    %part_hi = arith.cmpi sgt, %nend, %lim_lo : i32
    %part_lo = arith.cmpi slt, %n0, %lo_last : i32
    %partial = arith.ori %part_hi, %part_lo : i1
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %keep_hi = arith.cmpi slt, %colsb, %limb : !tile.tile<128x128xi32>
      %keep_lo = arith.cmpi sge, %colsb, %lob : !tile.tile<128x128xi32>
      %keep = arith.andi %keep_hi, %keep_lo : !tile.tile<128x128xi1>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk : !tile.tile<128x128xf32>
    }
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
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x128xf32>
    %v3 = tile.load %v[%hk, %krow, %c0] : !tile.tensor<?x?x128xbf16> -> !tile.tile<1x128x128xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x128x128xbf16> -> !tile.tile<128x128xbf16>
    %pb = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x128xbf16>, !tile.tile<128x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>
  }
  // O = acc / l over the row's keys and its head's sink (a logit in the
  // denominator only: gpt-oss's attention sinks), 0 for a row that sees
  // no key; the sequence's rows only.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %has_l = arith.cmpf ogt, %r#1, %zero : !tile.tile<128xf32>
  %has_k = arith.cmpi sgt, %lim, %lo : !tile.tile<128xi32>
  %has = arith.andi %has_l, %has_k : !tile.tile<128xi1>
  %l0 = arith.select %has, %r#1, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %m2 = arith.mulf %r#0, %scale_r : !tile.tile<128xf32>
  %m0v = arith.select %has, %m2, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %sinks_on = arith.cmpi ne, %has_sinks, %c0 : i32
  %h_s = arith.select %sinks_on, %h, %c0 : i32
  %sink = tile.load %sinks[%h_s] : !tile.tensor<?xf32> -> f32
  %sink2 = arith.mulf %sink, %log2e : f32
  %ninf_s = arith.constant 0xFF800000 : f32
  %sink_l2 = arith.select %sinks_on, %sink2, %ninf_s : f32
  %sink_t = tile.splat %sink_l2 : f32 -> !tile.tile<128xf32>
  %mf = arith.maximumf %m0v, %sink_t : !tile.tile<128xf32>
  %none = arith.cmpf oeq, %mf, %ninf : !tile.tile<128xf32>
  %mf_s = arith.select %none, %zero, %mf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %da = arith.subf %m0v, %mf_s : !tile.tile<128xf32>
  %alpha_f = math.exp2 %da : !tile.tile<128xf32>
  %ds = arith.subf %sink_t, %mf_s : !tile.tile<128xf32>
  %ws = math.exp2 %ds : !tile.tile<128xf32>
  %la_f = arith.mulf %l0, %alpha_f : !tile.tile<128xf32>
  %l_fin = arith.addf %la_f, %ws : !tile.tile<128xf32>
  %hasf = arith.cmpf ogt, %l_fin, %zero : !tile.tile<128xf32>
  %l_safe = arith.select %hasf, %l_fin, %ones : !tile.tile<128xi1>, !tile.tile<128xf32>
  %inv0 = arith.divf %alpha_f, %l_safe : !tile.tile<128xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x128xf32>
  %ob = arith.truncf %out : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %o3 = tile.reshape %ob : !tile.tile<128x128xbf16> -> !tile.tile<1x128x128xbf16>
  %lq_t = tile.splat %lq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %lq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mineb = tile.broadcast %mine2 : !tile.tile<128x1xi1> -> !tile.tile<128x128xi1>
  %mine3 = tile.reshape %mineb : !tile.tile<128x128xi1> -> !tile.tile<1x128x128xi1>
  tile.store %o3, %o[%h, %qrow, %c0] mask(%mine3 : !tile.tile<1x128x128xi1>) : !tile.tile<1x128x128xbf16>, !tile.tensor<?x?x128xbf16>
  // LSE = (m + log2 l) · ln 2 over the keys and the sink (-inf for a row
  // that sees neither).
  %log2l = math.log2 %l_safe : !tile.tile<128xf32>
  %lse2v = arith.addf %mf_s, %log2l : !tile.tile<128xf32>
  %ln2 = arith.constant dense<0.693147182> : !tile.tile<128xf32>
  %lsev0 = arith.mulf %lse2v, %ln2 : !tile.tile<128xf32>
  %lsev = arith.select %hasf, %lsev0, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %lse2 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %mine_l = tile.reshape %mine : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
  tile.store %lse2, %lse[%h, %qrow] mask(%mine_l : !tile.tile<1x128xi1>) : !tile.tile<1x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The same two kernels at head dim 64, 128 keys a step (the fixed-length
// attention_d64's tiles).
func.func @varlen_attention_d64(%q: !tile.tensor<?x?x64xbf16>, %k: !tile.tensor<?x?x64xbf16>,
    %v: !tile.tensor<?x?x64xbf16>, %o: !tile.tensor<?x?x64xbf16>,
    %lse: !tile.tensor<?x?xf32>, %cuq: !tile.tensor<?xi32>, %cuk: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.tile_scheduler = #tile.tile_scheduler<dynamic>,
                tile.grid = #tile.grid<dim(7, 0), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 128 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %h = tile.program_id y
  %hq = tile.dim %q, 0 : !tile.tensor<?x?x64xbf16>
  %hkv = tile.dim %k, 0 : !tile.tensor<?x?x64xbf16>
  // Program x is the schedule's row x; y the query head, which reads its
  // group's K and V.
  %bs = tile.load %sched[%px, %c0] : !tile.tensor<?x2xi32> -> i32
  %pm = tile.load %sched[%px, %c1] : !tile.tensor<?x2xi32> -> i32
  %any = arith.cmpi sge, %bs, %c0 : i32
  %b = arith.select %any, %bs, %c0 : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %b1 = arith.addi %b, %c1 : i32
  %q0 = tile.load %cuq[%b] : !tile.tensor<?xi32> -> i32
  %q1 = tile.load %cuq[%b1] : !tile.tensor<?xi32> -> i32
  %k0 = tile.load %cuk[%b] : !tile.tensor<?xi32> -> i32
  %k1 = tile.load %cuk[%b1] : !tile.tensor<?xi32> -> i32
  %lq_b = arith.subi %q1, %q0 : i32
  %lq = arith.select %any, %lq_b, %c0 : i32
  %lk = arith.subi %k1, %k0 : i32
  %m0 = arith.muli %pm, %cm : i32
  %qrow = arith.addi %q0, %m0 : i32
  %q3 = tile.load %q[%h, %qrow, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x128x64xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  // Masked scores are a large finite negative, not -inf: a row's first
  // block holds a key it sees (key 0) unless it sees none at all, so its
  // max is finite from the first block on and no select guards the
  // exponent in the loop (one there cost 0.6 us of a 2.05 us step); rows
  // that see no key are zeroed after the loop (lim <= 0).
  %neg = arith.constant dense<-1.0e+30> : !tile.tile<128x128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the sequence's, and when causal those up
  // to row + Lk - Lq (bottom-right).
  %shift = arith.subi %lk, %lq : i32
  %shift1 = arith.addi %shift, %c1 : i32
  %shift_t = tile.splat %shift1 : i32 -> !tile.tile<128xi32>
  %lk_t = tile.splat %lk : i32 -> !tile.tile<128xi32>
  %rows_s = arith.addi %rows, %shift_t : !tile.tile<128xi32>
  %clim = arith.minsi %rows_s, %lk_t : !tile.tile<128xi32>
  %lim = arith.select %is_causal, %clim, %lk_t : !tile.tile<128xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<128xi32>
  // The keys the block reads: up to its last row's limit (none for a
  // block past the sequence's queries).
  %qend = arith.addi %m0, %cm : i32
  %qend_s = arith.addi %qend, %shift : i32
  %causal_end = arith.minsi %lk, %qend_s : i32
  %kend0 = arith.select %is_causal, %causal_end, %lk : i32
  %live = arith.cmpi slt, %m0, %lq : i32
  %kend = arith.select %live, %kend0, %c0 : i32
  // The smallest limit of the block's rows (its first row's).
  %m0s = arith.addi %m0, %shift1 : i32
  %clo = arith.minsi %m0s, %lk : i32
  %lim_lo = arith.select %is_causal, %clo, %lk : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>) : i32 {
    %krow = arith.addi %k0, %n0 : i32
    %k3 = tile.load %k[%hk, %krow, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x128x64xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block (the next sequence's
    // keys, or the tensor's end).
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %lim_lo : i32
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<128x128xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk : !tile.tile<128x128xf32>
    }
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
    %v3 = tile.load %v[%hk, %krow, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x128x64xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %pb = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>
  }
  // O = acc / l (0 for a row without keys); the sequence's rows only.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %has_l = arith.cmpf ogt, %r#1, %zero : !tile.tile<128xf32>
  %zero_i = arith.constant dense<0> : !tile.tile<128xi32>
  %has_k = arith.cmpi sgt, %lim, %zero_i : !tile.tile<128xi32>
  %has = arith.andi %has_l, %has_k : !tile.tile<128xi1>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<128xi1>, !tile.tile<128xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<128xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x64xf32>
  %ob = arith.truncf %out : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %o3 = tile.reshape %ob : !tile.tile<128x64xbf16> -> !tile.tile<1x128x64xbf16>
  %lq_t = tile.splat %lq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %lq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mineb = tile.broadcast %mine2 : !tile.tile<128x1xi1> -> !tile.tile<128x64xi1>
  %mine3 = tile.reshape %mineb : !tile.tile<128x64xi1> -> !tile.tile<1x128x64xi1>
  tile.store %o3, %o[%h, %qrow, %c0] mask(%mine3 : !tile.tile<1x128x64xi1>) : !tile.tile<1x128x64xbf16>, !tile.tensor<?x?x64xbf16>
  // LSE = m · scale + ln l (-inf for a row without keys).
  %scale_l = tile.splat %scale : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %l_safe : !tile.tile<128xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<128xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %lse2 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %mine_l = tile.reshape %mine : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
  tile.store %lse2, %lse[%h, %qrow] mask(%mine_l : !tile.tile<1x128xi1>) : !tile.tile<1x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The same with the options users of such kernels expect, kept out of the

func.func @varlen_attention_opts_d64(%q: !tile.tensor<?x?x64xbf16>, %k: !tile.tensor<?x?x64xbf16>,
    %v: !tile.tensor<?x?x64xbf16>, %o: !tile.tensor<?x?x64xbf16>,
    %lse: !tile.tensor<?x?xf32>, %cuq: !tile.tensor<?xi32>, %cuk: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>, %scale: f32, %causal: i32, %wl: i32, %wr: i32,
    %softcap: f32, %sinks: !tile.tensor<?xf32>, %has_sinks: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.tile_scheduler = #tile.tile_scheduler<dynamic>,
                tile.grid = #tile.grid<dim(7, 0), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 128 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %h = tile.program_id y
  %hq = tile.dim %q, 0 : !tile.tensor<?x?x64xbf16>
  %hkv = tile.dim %k, 0 : !tile.tensor<?x?x64xbf16>
  // Program x is the schedule's row x; y the query head, which reads its
  // group's K and V.
  %bs = tile.load %sched[%px, %c0] : !tile.tensor<?x2xi32> -> i32
  %pm = tile.load %sched[%px, %c1] : !tile.tensor<?x2xi32> -> i32
  %any = arith.cmpi sge, %bs, %c0 : i32
  %b = arith.select %any, %bs, %c0 : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %b1 = arith.addi %b, %c1 : i32
  %q0 = tile.load %cuq[%b] : !tile.tensor<?xi32> -> i32
  %q1 = tile.load %cuq[%b1] : !tile.tensor<?xi32> -> i32
  %k0 = tile.load %cuk[%b] : !tile.tensor<?xi32> -> i32
  %k1 = tile.load %cuk[%b1] : !tile.tensor<?xi32> -> i32
  %lq_b = arith.subi %q1, %q0 : i32
  %lq = arith.select %any, %lq_b, %c0 : i32
  %lk = arith.subi %k1, %k0 : i32
  %m0 = arith.muli %pm, %cm : i32
  %qrow = arith.addi %q0, %m0 : i32
  %q3 = tile.load %q[%h, %qrow, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x128x64xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  // Masked scores are a large finite negative, not -inf: a row's first
  // block holds a key it sees (key 0) unless it sees none at all, so its
  // max is finite from the first block on and no select guards the
  // exponent in the loop (one there cost 0.6 us of a 2.05 us step); rows
  // that see no key are zeroed after the loop (lim <= 0).
  %neg = arith.constant dense<-1.0e+30> : !tile.tile<128x128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the sequence's, and when causal those up
  // to row + Lk - Lq (bottom-right).
  %shift = arith.subi %lk, %lq : i32
  %shift1 = arith.addi %shift, %c1 : i32
  %shift_t = tile.splat %shift1 : i32 -> !tile.tile<128xi32>
  %lk_t = tile.splat %lk : i32 -> !tile.tile<128xi32>
  %rows_s = arith.addi %rows, %shift_t : !tile.tile<128xi32>
  %clim = arith.minsi %rows_s, %lk_t : !tile.tile<128xi32>
  %lim_c = arith.select %is_causal, %clim, %lk_t : !tile.tile<128xi32>
  // A right window (wr >= 0) also stops row i at key i + Lk - Lq + wr; a
  // left one (wl >= 0) starts it at key i + Lk - Lq - wl (lo[row]).
  %has_wr = arith.cmpi sge, %wr, %c0 : i32
  %has_wl = arith.cmpi sge, %wl, %c0 : i32
  %wr_t = tile.splat %wr : i32 -> !tile.tile<128xi32>
  %rows_wr = arith.addi %rows_s, %wr_t : !tile.tile<128xi32>
  %wlim = arith.minsi %lim_c, %rows_wr : !tile.tile<128xi32>
  %lim = arith.select %has_wr, %wlim, %lim_c : !tile.tile<128xi32>
  %wl1 = arith.addi %wl, %c1 : i32
  %wl1_t = tile.splat %wl1 : i32 -> !tile.tile<128xi32>
  %rows_wl = arith.subi %rows_s, %wl1_t : !tile.tile<128xi32>
  %zero_t = tile.splat %c0 : i32 -> !tile.tile<128xi32>
  %lo_w = arith.maxsi %rows_wl, %zero_t : !tile.tile<128xi32>
  %lo = arith.select %has_wl, %lo_w, %zero_t : !tile.tile<128xi32>
  %lo2 = tile.expand_dims %lo axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %lob = tile.broadcast %lo2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<128xi32>
  // The keys the block reads: up to its last row's limit (none for a
  // block past the sequence's queries).
  %qend = arith.addi %m0, %cm : i32
  %qend_s = arith.addi %qend, %shift : i32
  %causal_end = arith.minsi %lk, %qend_s : i32
  %kend_c = arith.select %is_causal, %causal_end, %lk : i32
  %qend_w = arith.addi %qend_s, %wr : i32
  %wend = arith.minsi %kend_c, %qend_w : i32
  %kend0 = arith.select %has_wr, %wend, %kend_c : i32
  %live = arith.cmpi slt, %m0, %lq : i32
  %kend = arith.select %live, %kend0, %c0 : i32
  // The smallest limit of the block's rows (its first row's).
  %m0s = arith.addi %m0, %shift1 : i32
  %clo = arith.minsi %m0s, %lk : i32
  %lim_lo_c = arith.select %is_causal, %clo, %lk : i32
  %m0w = arith.addi %m0s, %wr : i32
  %wlo = arith.minsi %lim_lo_c, %m0w : i32
  %lim_lo = arith.select %has_wr, %wlo, %lim_lo_c : i32
  // The first key any row sees (the first row's lo), down to its block;
  // blocks before the last row's lo are masked too.
  %lo_first0 = arith.subi %m0s, %wl1 : i32
  %lo_first1 = arith.maxsi %lo_first0, %c0 : i32
  %lo_first = arith.select %has_wl, %lo_first1, %c0 : i32
  %kstart0 = arith.divui %lo_first, %cn : i32
  %kstart = arith.muli %kstart0, %cn : i32
  %m0e = arith.addi %m0s, %cm : i32
  %m0e1 = arith.subi %m0e, %c1 : i32
  %lo_last0 = arith.subi %m0e1, %wl1 : i32
  %lo_last = arith.select %has_wl, %lo_last0, %c0 : i32
  // softcap > 0: scores become cap · tanh(s · scale / cap), in raw units
  // (cap / scale) · tanh(s · scale / cap), as the loop scales them after.
  %zf = arith.constant 0.0 : f32
  %capped = arith.cmpf ogt, %softcap, %zf : f32
  %one_f = arith.constant 1.0 : f32
  %cap_safe = arith.select %capped, %softcap, %one_f : f32
  %cin = arith.divf %scale, %cap_safe : f32
  %cout = arith.divf %cap_safe, %scale : f32
  %cin_t = tile.splat %cin : f32 -> !tile.tile<128x128xf32>
  %cout_t = tile.splat %cout : f32 -> !tile.tile<128x128xf32>
  %r:3 = scf.for %n0 = %kstart to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>) : i32 {
    %krow = arith.addi %k0, %n0 : i32
    %k3 = tile.load %k[%hk, %krow, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x128x64xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %qk0 = tile.dot %qt, %ktt, %zs : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %qk = scf.if %capped -> (!tile.tile<128x128xf32>) {
      %t = arith.mulf %qk0, %cin_t : !tile.tile<128x128xf32>
      %th = math.tanh %t : !tile.tile<128x128xf32>
      %c = arith.mulf %th, %cout_t : !tile.tile<128x128xf32>
      scf.yield %c : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk0 : !tile.tile<128x128xf32>
    }
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block (the next sequence's
    // keys, or the tensor's end).
    %nend = arith.addi %n0, %cn : i32
    %part_hi = arith.cmpi sgt, %nend, %lim_lo : i32
    %part_lo = arith.cmpi slt, %n0, %lo_last : i32
    %partial = arith.ori %part_hi, %part_lo : i1
    %sm = scf.if %partial -> (!tile.tile<128x128xf32>) {
      %keep_hi = arith.cmpi slt, %colsb, %limb : !tile.tile<128x128xi32>
      %keep_lo = arith.cmpi sge, %colsb, %lob : !tile.tile<128x128xi32>
      %keep = arith.andi %keep_hi, %keep_lo : !tile.tile<128x128xi1>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x128xi1>, !tile.tile<128x128xf32>
      scf.yield %masked : !tile.tile<128x128xf32>
    } else {
      scf.yield %qk : !tile.tile<128x128xf32>
    }
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
    %v3 = tile.load %v[%hk, %krow, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x128x64xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x128x64xbf16> -> !tile.tile<128x64xbf16>
    %pb = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<128x64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>
  }
  // O = acc / l over the row's keys and its head's sink (a logit in the
  // denominator only: gpt-oss's attention sinks), 0 for a row that sees
  // no key; the sequence's rows only.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %has_l = arith.cmpf ogt, %r#1, %zero : !tile.tile<128xf32>
  %has_k = arith.cmpi sgt, %lim, %lo : !tile.tile<128xi32>
  %has = arith.andi %has_l, %has_k : !tile.tile<128xi1>
  %l0 = arith.select %has, %r#1, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %m2 = arith.mulf %r#0, %scale_r : !tile.tile<128xf32>
  %m0v = arith.select %has, %m2, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %sinks_on = arith.cmpi ne, %has_sinks, %c0 : i32
  %h_s = arith.select %sinks_on, %h, %c0 : i32
  %sink = tile.load %sinks[%h_s] : !tile.tensor<?xf32> -> f32
  %sink2 = arith.mulf %sink, %log2e : f32
  %ninf_s = arith.constant 0xFF800000 : f32
  %sink_l2 = arith.select %sinks_on, %sink2, %ninf_s : f32
  %sink_t = tile.splat %sink_l2 : f32 -> !tile.tile<128xf32>
  %mf = arith.maximumf %m0v, %sink_t : !tile.tile<128xf32>
  %none = arith.cmpf oeq, %mf, %ninf : !tile.tile<128xf32>
  %mf_s = arith.select %none, %zero, %mf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %da = arith.subf %m0v, %mf_s : !tile.tile<128xf32>
  %alpha_f = math.exp2 %da : !tile.tile<128xf32>
  %ds = arith.subf %sink_t, %mf_s : !tile.tile<128xf32>
  %ws = math.exp2 %ds : !tile.tile<128xf32>
  %la_f = arith.mulf %l0, %alpha_f : !tile.tile<128xf32>
  %l_fin = arith.addf %la_f, %ws : !tile.tile<128xf32>
  %hasf = arith.cmpf ogt, %l_fin, %zero : !tile.tile<128xf32>
  %l_safe = arith.select %hasf, %l_fin, %ones : !tile.tile<128xi1>, !tile.tile<128xf32>
  %inv0 = arith.divf %alpha_f, %l_safe : !tile.tile<128xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x64xf32>
  %ob = arith.truncf %out : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %o3 = tile.reshape %ob : !tile.tile<128x64xbf16> -> !tile.tile<1x128x64xbf16>
  %lq_t = tile.splat %lq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %lq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mineb = tile.broadcast %mine2 : !tile.tile<128x1xi1> -> !tile.tile<128x64xi1>
  %mine3 = tile.reshape %mineb : !tile.tile<128x64xi1> -> !tile.tile<1x128x64xi1>
  tile.store %o3, %o[%h, %qrow, %c0] mask(%mine3 : !tile.tile<1x128x64xi1>) : !tile.tile<1x128x64xbf16>, !tile.tensor<?x?x64xbf16>
  // LSE = (m + log2 l) · ln 2 over the keys and the sink (-inf for a row
  // that sees neither).
  %log2l = math.log2 %l_safe : !tile.tile<128xf32>
  %lse2v = arith.addf %mf_s, %log2l : !tile.tile<128xf32>
  %ln2 = arith.constant dense<0.693147182> : !tile.tile<128xf32>
  %lsev0 = arith.mulf %lse2v, %ln2 : !tile.tile<128xf32>
  %lsev = arith.select %hasf, %lsev0, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %lse2 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %mine_l = tile.reshape %mine : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
  tile.store %lse2, %lse[%h, %qrow] mask(%mine_l : !tile.tile<1x128xi1>) : !tile.tile<1x128xf32>, !tile.tensor<?x?xf32>
  return
}

// And at head dim 256, 64 keys a step (attention_d256's tiles). Two
// stages of Q, K and V leave no room for the 64 KB through which the O
// store would widen its writes, so O and LSE are stored from the
// accumulator's layout, masks and all.
func.func @varlen_attention_d256(%q: !tile.tensor<?x?x256xbf16>, %k: !tile.tensor<?x?x256xbf16>,
    %v: !tile.tensor<?x?x256xbf16>, %o: !tile.tensor<?x?x256xbf16>,
    %lse: !tile.tensor<?x?xf32>, %cuq: !tile.tensor<?xi32>, %cuk: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.tile_scheduler = #tile.tile_scheduler<dynamic>,
                tile.grid = #tile.grid<dim(7, 0), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 64 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %h = tile.program_id y
  %hq = tile.dim %q, 0 : !tile.tensor<?x?x256xbf16>
  %hkv = tile.dim %k, 0 : !tile.tensor<?x?x256xbf16>
  // Program x is the schedule's row x; y the query head, which reads its
  // group's K and V.
  %bs = tile.load %sched[%px, %c0] : !tile.tensor<?x2xi32> -> i32
  %pm = tile.load %sched[%px, %c1] : !tile.tensor<?x2xi32> -> i32
  %any = arith.cmpi sge, %bs, %c0 : i32
  %b = arith.select %any, %bs, %c0 : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %b1 = arith.addi %b, %c1 : i32
  %q0 = tile.load %cuq[%b] : !tile.tensor<?xi32> -> i32
  %q1 = tile.load %cuq[%b1] : !tile.tensor<?xi32> -> i32
  %k0 = tile.load %cuk[%b] : !tile.tensor<?xi32> -> i32
  %k1 = tile.load %cuk[%b1] : !tile.tensor<?xi32> -> i32
  %lq_b = arith.subi %q1, %q0 : i32
  %lq = arith.select %any, %lq_b, %c0 : i32
  %lk = arith.subi %k1, %k0 : i32
  %m0 = arith.muli %pm, %cm : i32
  %qrow = arith.addi %q0, %m0 : i32
  %q3 = tile.load %q[%h, %qrow, %c0] : !tile.tensor<?x?x256xbf16> -> !tile.tile<1x128x256xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x128x256xbf16> -> !tile.tile<128x256xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  // Masked scores are a large finite negative, not -inf: a row's first
  // block holds a key it sees (key 0) unless it sees none at all, so its
  // max is finite from the first block on and no select guards the
  // exponent in the loop (one there cost 0.6 us of a 2.05 us step); rows
  // that see no key are zeroed after the loop (lim <= 0).
  %neg = arith.constant dense<-1.0e+30> : !tile.tile<128x64xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the sequence's, and when causal those up
  // to row + Lk - Lq (bottom-right).
  %shift = arith.subi %lk, %lq : i32
  %shift1 = arith.addi %shift, %c1 : i32
  %shift_t = tile.splat %shift1 : i32 -> !tile.tile<128xi32>
  %lk_t = tile.splat %lk : i32 -> !tile.tile<128xi32>
  %rows_s = arith.addi %rows, %shift_t : !tile.tile<128xi32>
  %clim = arith.minsi %rows_s, %lk_t : !tile.tile<128xi32>
  %lim = arith.select %is_causal, %clim, %lk_t : !tile.tile<128xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<64xi32>
  // The keys the block reads: up to its last row's limit (none for a
  // block past the sequence's queries).
  %qend = arith.addi %m0, %cm : i32
  %qend_s = arith.addi %qend, %shift : i32
  %causal_end = arith.minsi %lk, %qend_s : i32
  %kend0 = arith.select %is_causal, %causal_end, %lk : i32
  %live = arith.cmpi slt, %m0, %lq : i32
  %kend = arith.select %live, %kend0, %c0 : i32
  // The smallest limit of the block's rows (its first row's).
  %m0s = arith.addi %m0, %shift1 : i32
  %clo = arith.minsi %m0s, %lk : i32
  %lim_lo = arith.select %is_causal, %clo, %lk : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x256xf32>) : i32 {
    %krow = arith.addi %k0, %n0 : i32
    %k3 = tile.load %k[%hk, %krow, %c0] : !tile.tensor<?x?x256xbf16> -> !tile.tile<1x64x256xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<128x64xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<64xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block (the next sequence's
    // keys, or the tensor's end).
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %lim_lo : i32
    %sm = scf.if %partial -> (!tile.tile<128x64xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<128x64xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x64xi1>, !tile.tile<128x64xf32>
      scf.yield %masked : !tile.tile<128x64xf32>
    } else {
      scf.yield %qk : !tile.tile<128x64xf32>
    }
    %mj = tile.reduce max %sm dim 1 : !tile.tile<128x64xf32> -> !tile.tile<128xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<128xf32>
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %me = tile.expand_dims %ms axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %mb = tile.broadcast %me : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
    %sc = arith.mulf %sm, %scale_t : !tile.tile<128x64xf32>
    %d = arith.subf %sc, %mb : !tile.tile<128x64xf32>
    %p = math.exp2 %d : !tile.tile<128x64xf32>
    %dm = arith.subf %m_i, %m_new : !tile.tile<128xf32>
    %dms = arith.mulf %dm, %scale_r : !tile.tile<128xf32>
    %alpha = math.exp2 %dms : !tile.tile<128xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<128x64xf32> -> !tile.tile<128xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<128xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<128xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x256xf32>
    %v3 = tile.load %v[%hk, %krow, %c0] : !tile.tensor<?x?x256xbf16> -> !tile.tile<1x64x256xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %pb = arith.truncf %p : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<128x256xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x256xf32>
  }
  // O = acc / l (0 for a row without keys); the sequence's rows only.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %has_l = arith.cmpf ogt, %r#1, %zero : !tile.tile<128xf32>
  %zero_i = arith.constant dense<0> : !tile.tile<128xi32>
  %has_k = arith.cmpi sgt, %lim, %zero_i : !tile.tile<128xi32>
  %has = arith.andi %has_l, %has_k : !tile.tile<128xi1>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<128xi1>, !tile.tile<128xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<128xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x256xf32>
  %ob = arith.truncf %out : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  %o3 = tile.reshape %ob : !tile.tile<128x256xbf16> -> !tile.tile<1x128x256xbf16>
  %lq_t = tile.splat %lq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %lq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mineb = tile.broadcast %mine2 : !tile.tile<128x1xi1> -> !tile.tile<128x256xi1>
  %mine3 = tile.reshape %mineb : !tile.tile<128x256xi1> -> !tile.tile<1x128x256xi1>
  tile.store %o3, %o[%h, %qrow, %c0] mask(%mine3 : !tile.tile<1x128x256xi1>) : !tile.tile<1x128x256xbf16>, !tile.tensor<?x?x256xbf16>
  // LSE = m · scale + ln l (-inf for a row without keys).
  %scale_l = tile.splat %scale : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %l_safe : !tile.tile<128xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<128xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %lse2 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %mine_l = tile.reshape %mine : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
  tile.store %lse2, %lse[%h, %qrow] mask(%mine_l : !tile.tile<1x128xi1>) : !tile.tile<1x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The same with the options users of such kernels expect, kept out of the

func.func @varlen_attention_opts_d256(%q: !tile.tensor<?x?x256xbf16>, %k: !tile.tensor<?x?x256xbf16>,
    %v: !tile.tensor<?x?x256xbf16>, %o: !tile.tensor<?x?x256xbf16>,
    %lse: !tile.tensor<?x?xf32>, %cuq: !tile.tensor<?xi32>, %cuk: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>, %scale: f32, %causal: i32, %wl: i32, %wr: i32,
    %softcap: f32, %sinks: !tile.tensor<?xf32>, %has_sinks: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.tile_scheduler = #tile.tile_scheduler<dynamic>,
                tile.grid = #tile.grid<dim(7, 0), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 64 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %h = tile.program_id y
  %hq = tile.dim %q, 0 : !tile.tensor<?x?x256xbf16>
  %hkv = tile.dim %k, 0 : !tile.tensor<?x?x256xbf16>
  // Program x is the schedule's row x; y the query head, which reads its
  // group's K and V.
  %bs = tile.load %sched[%px, %c0] : !tile.tensor<?x2xi32> -> i32
  %pm = tile.load %sched[%px, %c1] : !tile.tensor<?x2xi32> -> i32
  %any = arith.cmpi sge, %bs, %c0 : i32
  %b = arith.select %any, %bs, %c0 : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %b1 = arith.addi %b, %c1 : i32
  %q0 = tile.load %cuq[%b] : !tile.tensor<?xi32> -> i32
  %q1 = tile.load %cuq[%b1] : !tile.tensor<?xi32> -> i32
  %k0 = tile.load %cuk[%b] : !tile.tensor<?xi32> -> i32
  %k1 = tile.load %cuk[%b1] : !tile.tensor<?xi32> -> i32
  %lq_b = arith.subi %q1, %q0 : i32
  %lq = arith.select %any, %lq_b, %c0 : i32
  %lk = arith.subi %k1, %k0 : i32
  %m0 = arith.muli %pm, %cm : i32
  %qrow = arith.addi %q0, %m0 : i32
  %q3 = tile.load %q[%h, %qrow, %c0] : !tile.tensor<?x?x256xbf16> -> !tile.tile<1x128x256xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x128x256xbf16> -> !tile.tile<128x256xbf16>
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  // Masked scores are a large finite negative, not -inf: a row's first
  // block holds a key it sees (key 0) unless it sees none at all, so its
  // max is finite from the first block on and no select guards the
  // exponent in the loop (one there cost 0.6 us of a 2.05 us step); rows
  // that see no key are zeroed after the loop (lim <= 0).
  %neg = arith.constant dense<-1.0e+30> : !tile.tile<128x64xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
  // Keys below lim[row] count: the sequence's, and when causal those up
  // to row + Lk - Lq (bottom-right).
  %shift = arith.subi %lk, %lq : i32
  %shift1 = arith.addi %shift, %c1 : i32
  %shift_t = tile.splat %shift1 : i32 -> !tile.tile<128xi32>
  %lk_t = tile.splat %lk : i32 -> !tile.tile<128xi32>
  %rows_s = arith.addi %rows, %shift_t : !tile.tile<128xi32>
  %clim = arith.minsi %rows_s, %lk_t : !tile.tile<128xi32>
  %lim_c = arith.select %is_causal, %clim, %lk_t : !tile.tile<128xi32>
  // A right window (wr >= 0) also stops row i at key i + Lk - Lq + wr; a
  // left one (wl >= 0) starts it at key i + Lk - Lq - wl (lo[row]).
  %has_wr = arith.cmpi sge, %wr, %c0 : i32
  %has_wl = arith.cmpi sge, %wl, %c0 : i32
  %wr_t = tile.splat %wr : i32 -> !tile.tile<128xi32>
  %rows_wr = arith.addi %rows_s, %wr_t : !tile.tile<128xi32>
  %wlim = arith.minsi %lim_c, %rows_wr : !tile.tile<128xi32>
  %lim = arith.select %has_wr, %wlim, %lim_c : !tile.tile<128xi32>
  %wl1 = arith.addi %wl, %c1 : i32
  %wl1_t = tile.splat %wl1 : i32 -> !tile.tile<128xi32>
  %rows_wl = arith.subi %rows_s, %wl1_t : !tile.tile<128xi32>
  %zero_t = tile.splat %c0 : i32 -> !tile.tile<128xi32>
  %lo_w = arith.maxsi %rows_wl, %zero_t : !tile.tile<128xi32>
  %lo = arith.select %has_wl, %lo_w, %zero_t : !tile.tile<128xi32>
  %lo2 = tile.expand_dims %lo axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %lob = tile.broadcast %lo2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<128xf32>
  %kiota = tile.iota : !tile.tile<64xi32>
  // The keys the block reads: up to its last row's limit (none for a
  // block past the sequence's queries).
  %qend = arith.addi %m0, %cm : i32
  %qend_s = arith.addi %qend, %shift : i32
  %causal_end = arith.minsi %lk, %qend_s : i32
  %kend_c = arith.select %is_causal, %causal_end, %lk : i32
  %qend_w = arith.addi %qend_s, %wr : i32
  %wend = arith.minsi %kend_c, %qend_w : i32
  %kend0 = arith.select %has_wr, %wend, %kend_c : i32
  %live = arith.cmpi slt, %m0, %lq : i32
  %kend = arith.select %live, %kend0, %c0 : i32
  // The smallest limit of the block's rows (its first row's).
  %m0s = arith.addi %m0, %shift1 : i32
  %clo = arith.minsi %m0s, %lk : i32
  %lim_lo_c = arith.select %is_causal, %clo, %lk : i32
  %m0w = arith.addi %m0s, %wr : i32
  %wlo = arith.minsi %lim_lo_c, %m0w : i32
  %lim_lo = arith.select %has_wr, %wlo, %lim_lo_c : i32
  // The first key any row sees (the first row's lo), down to its block;
  // blocks before the last row's lo are masked too.
  %lo_first0 = arith.subi %m0s, %wl1 : i32
  %lo_first1 = arith.maxsi %lo_first0, %c0 : i32
  %lo_first = arith.select %has_wl, %lo_first1, %c0 : i32
  %kstart0 = arith.divui %lo_first, %cn : i32
  %kstart = arith.muli %kstart0, %cn : i32
  %m0e = arith.addi %m0s, %cm : i32
  %m0e1 = arith.subi %m0e, %c1 : i32
  %lo_last0 = arith.subi %m0e1, %wl1 : i32
  %lo_last = arith.select %has_wl, %lo_last0, %c0 : i32
  // softcap > 0: scores become cap · tanh(s · scale / cap), in raw units
  // (cap / scale) · tanh(s · scale / cap), as the loop scales them after.
  %zf = arith.constant 0.0 : f32
  %capped = arith.cmpf ogt, %softcap, %zf : f32
  %one_f = arith.constant 1.0 : f32
  %cap_safe = arith.select %capped, %softcap, %one_f : f32
  %cin = arith.divf %scale, %cap_safe : f32
  %cout = arith.divf %cap_safe, %scale : f32
  %cin_t = tile.splat %cin : f32 -> !tile.tile<128x64xf32>
  %cout_t = tile.splat %cout : f32 -> !tile.tile<128x64xf32>
  %r:3 = scf.for %n0 = %kstart to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x256xf32>) : i32 {
    %krow = arith.addi %k0, %n0 : i32
    %k3 = tile.load %k[%hk, %krow, %c0] : !tile.tensor<?x?x256xbf16> -> !tile.tile<1x64x256xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    %qk0 = tile.dot %qt, %ktt, %zs : !tile.tile<128x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<128x64xf32>
    %qk = scf.if %capped -> (!tile.tile<128x64xf32>) {
      %t = arith.mulf %qk0, %cin_t : !tile.tile<128x64xf32>
      %th = math.tanh %t : !tile.tile<128x64xf32>
      %c = arith.mulf %th, %cout_t : !tile.tile<128x64xf32>
      scf.yield %c : !tile.tile<128x64xf32>
    } else {
      scf.yield %qk0 : !tile.tile<128x64xf32>
    }
    %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<64xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
    // Only blocks that reach past some row's limit are masked: the
    // diagonal block when causal, the last block (the next sequence's
    // keys, or the tensor's end).
    %nend = arith.addi %n0, %cn : i32
    %part_hi = arith.cmpi sgt, %nend, %lim_lo : i32
    %part_lo = arith.cmpi slt, %n0, %lo_last : i32
    %partial = arith.ori %part_hi, %part_lo : i1
    %sm = scf.if %partial -> (!tile.tile<128x64xf32>) {
      %keep_hi = arith.cmpi slt, %colsb, %limb : !tile.tile<128x64xi32>
      %keep_lo = arith.cmpi sge, %colsb, %lob : !tile.tile<128x64xi32>
      %keep = arith.andi %keep_hi, %keep_lo : !tile.tile<128x64xi1>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<128x64xi1>, !tile.tile<128x64xf32>
      scf.yield %masked : !tile.tile<128x64xf32>
    } else {
      scf.yield %qk : !tile.tile<128x64xf32>
    }
    %mj = tile.reduce max %sm dim 1 : !tile.tile<128x64xf32> -> !tile.tile<128xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<128xf32>
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %me = tile.expand_dims %ms axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %mb = tile.broadcast %me : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
    %sc = arith.mulf %sm, %scale_t : !tile.tile<128x64xf32>
    %d = arith.subf %sc, %mb : !tile.tile<128x64xf32>
    %p = math.exp2 %d : !tile.tile<128x64xf32>
    %dm = arith.subf %m_i, %m_new : !tile.tile<128xf32>
    %dms = arith.mulf %dm, %scale_r : !tile.tile<128xf32>
    %alpha = math.exp2 %dms : !tile.tile<128xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<128x64xf32> -> !tile.tile<128xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<128xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<128xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x256xf32>
    %v3 = tile.load %v[%hk, %krow, %c0] : !tile.tensor<?x?x256xbf16> -> !tile.tile<1x64x256xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %pb = arith.truncf %p : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<128x256xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x256xf32>
  }
  // O = acc / l over the row's keys and its head's sink (a logit in the
  // denominator only: gpt-oss's attention sinks), 0 for a row that sees
  // no key; the sequence's rows only.
  %ones = arith.constant dense<1.0> : !tile.tile<128xf32>
  %has_l = arith.cmpf ogt, %r#1, %zero : !tile.tile<128xf32>
  %has_k = arith.cmpi sgt, %lim, %lo : !tile.tile<128xi32>
  %has = arith.andi %has_l, %has_k : !tile.tile<128xi1>
  %l0 = arith.select %has, %r#1, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %m2 = arith.mulf %r#0, %scale_r : !tile.tile<128xf32>
  %m0v = arith.select %has, %m2, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %sinks_on = arith.cmpi ne, %has_sinks, %c0 : i32
  %h_s = arith.select %sinks_on, %h, %c0 : i32
  %sink = tile.load %sinks[%h_s] : !tile.tensor<?xf32> -> f32
  %sink2 = arith.mulf %sink, %log2e : f32
  %ninf_s = arith.constant 0xFF800000 : f32
  %sink_l2 = arith.select %sinks_on, %sink2, %ninf_s : f32
  %sink_t = tile.splat %sink_l2 : f32 -> !tile.tile<128xf32>
  %mf = arith.maximumf %m0v, %sink_t : !tile.tile<128xf32>
  %none = arith.cmpf oeq, %mf, %ninf : !tile.tile<128xf32>
  %mf_s = arith.select %none, %zero, %mf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %da = arith.subf %m0v, %mf_s : !tile.tile<128xf32>
  %alpha_f = math.exp2 %da : !tile.tile<128xf32>
  %ds = arith.subf %sink_t, %mf_s : !tile.tile<128xf32>
  %ws = math.exp2 %ds : !tile.tile<128xf32>
  %la_f = arith.mulf %l0, %alpha_f : !tile.tile<128xf32>
  %l_fin = arith.addf %la_f, %ws : !tile.tile<128xf32>
  %hasf = arith.cmpf ogt, %l_fin, %zero : !tile.tile<128xf32>
  %l_safe = arith.select %hasf, %l_fin, %ones : !tile.tile<128xi1>, !tile.tile<128xf32>
  %inv0 = arith.divf %alpha_f, %l_safe : !tile.tile<128xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<128xi1>, !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x256xf32>
  %ob = arith.truncf %out : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  %o3 = tile.reshape %ob : !tile.tile<128x256xbf16> -> !tile.tile<1x128x256xbf16>
  %lq_t = tile.splat %lq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %lq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mineb = tile.broadcast %mine2 : !tile.tile<128x1xi1> -> !tile.tile<128x256xi1>
  %mine3 = tile.reshape %mineb : !tile.tile<128x256xi1> -> !tile.tile<1x128x256xi1>
  tile.store %o3, %o[%h, %qrow, %c0] mask(%mine3 : !tile.tile<1x128x256xi1>) : !tile.tile<1x128x256xbf16>, !tile.tensor<?x?x256xbf16>
  // LSE = (m + log2 l) · ln 2 over the keys and the sink (-inf for a row
  // that sees neither).
  %log2l = math.log2 %l_safe : !tile.tile<128xf32>
  %lse2v = arith.addf %mf_s, %log2l : !tile.tile<128xf32>
  %ln2 = arith.constant dense<0.693147182> : !tile.tile<128xf32>
  %lsev0 = arith.mulf %lse2v, %ln2 : !tile.tile<128xf32>
  %lsev = arith.select %hasf, %lsev0, %ninf : !tile.tile<128xi1>, !tile.tile<128xf32>
  %lse2 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %mine_l = tile.reshape %mine : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
  tile.store %lse2, %lse[%h, %qrow] mask(%mine_l : !tile.tile<1x128xi1>) : !tile.tile<1x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The schedule of the kernels above, from the lengths on the GPU in two
// launches (tilec.ops.varlen_attention runs them; tilec.varlen.schedule
// is the same in torch ops, which took about 20 small launches, 50 us of
// a 1 ms prefill). Sequence c precedes b when it is longer, or as long and
// earlier (a stable sort, longest first).
//
// varlen_schedule_starts: start[b] = the blocks of 128 queries of the
// sequences that precede b (its first row in the schedule), for the 128
// sequences of program x, against every sequence in chunks of 128.
func.func @varlen_schedule_starts(%cu: !tile.tensor<?xi32>, %start: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %px = tile.program_id x
  %nseq = tile.dim %start, 0 : !tile.tensor<?xi32>
  %b0 = arith.muli %px, %c128 : i32
  %b1 = arith.addi %b0, %c1 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %b0t = tile.splat %b0 : i32 -> !tile.tile<128xi32>
  %bi = arith.addi %iota, %b0t : !tile.tile<128xi32>
  %qb0 = tile.load %cu[%b0] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %qb1 = tile.load %cu[%b1] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %lenb = arith.subi %qb1, %qb0 : !tile.tile<128xi32>
  %lenb2 = tile.expand_dims %lenb axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %lenbb = tile.broadcast %lenb2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %bi2 = tile.expand_dims %bi axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %bib = tile.broadcast %bi2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %nseq_t = tile.splat %nseq : i32 -> !tile.tile<128xi32>
  %c127 = arith.constant dense<127> : !tile.tile<128xi32>
  %c7 = arith.constant dense<7> : !tile.tile<128xi32>
  %zero = arith.constant dense<0> : !tile.tile<128xi32>
  %zero2 = arith.constant dense<0> : !tile.tile<128x128xi32>
  %acc = scf.for %cc = %c0 to %nseq step %c128 iter_args(%a = %zero) -> (!tile.tile<128xi32>) : i32 {
    %cc1 = arith.addi %cc, %c1 : i32
    %cct = tile.splat %cc : i32 -> !tile.tile<128xi32>
    %ci = arith.addi %iota, %cct : !tile.tile<128xi32>
    %qc0 = tile.load %cu[%cc] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %qc1 = tile.load %cu[%cc1] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %lenc = arith.subi %qc1, %qc0 : !tile.tile<128xi32>
    %lenc7 = arith.addi %lenc, %c127 : !tile.tile<128xi32>
    %blkc0 = arith.shrsi %lenc7, %c7 : !tile.tile<128xi32>
    %real = arith.cmpi slt, %ci, %nseq_t : !tile.tile<128xi32>
    %blkc = arith.select %real, %blkc0, %zero : !tile.tile<128xi1>, !tile.tile<128xi32>
    %lenc2 = tile.expand_dims %lenc axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %lencb = tile.broadcast %lenc2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %ci2 = tile.expand_dims %ci axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %cib = tile.broadcast %ci2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %blkc2 = tile.expand_dims %blkc axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %blkcb = tile.broadcast %blkc2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %longer = arith.cmpi sgt, %lencb, %lenbb : !tile.tile<128x128xi32>
    %same = arith.cmpi eq, %lencb, %lenbb : !tile.tile<128x128xi32>
    %earlier = arith.cmpi slt, %cib, %bib : !tile.tile<128x128xi32>
    %tie = arith.andi %same, %earlier : !tile.tile<128x128xi1>
    %before = arith.ori %longer, %tie : !tile.tile<128x128xi1>
    %add = arith.select %before, %blkcb, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %s = tile.reduce sum %add dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %a2 = arith.addi %a, %s : !tile.tile<128xi32>
    scf.yield %a2 : !tile.tile<128xi32>
  }
  %mine = arith.cmpi slt, %bi, %nseq_t : !tile.tile<128xi32>
  tile.store %acc, %start[%b0] mask(%mine : !tile.tile<128xi1>) : !tile.tile<128xi32>, !tile.tensor<?xi32>
  return
}

// varlen_schedule: row i of sched (n, 2) is (b, m) for the sequence b
// whose rows start[b] .. start[b] + blocks[b] - 1 hold i, m = its blocks
// from the last (start[b] + blocks[b] - 1 - i); (-1, 0) past the last.
// Program x fills 128 rows, against every sequence in chunks of 128.
func.func @varlen_schedule(%cu: !tile.tensor<?xi32>, %start: !tile.tensor<?xi32>,
    %sched: !tile.tensor<?x2xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(2, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %px = tile.program_id x
  %nseq = tile.dim %start, 0 : !tile.tensor<?xi32>
  %nrows = tile.dim %sched, 0 : !tile.tensor<?x2xi32>
  %r0 = arith.muli %px, %c128 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %r0t = tile.splat %r0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %r0t : !tile.tile<128xi32>
  %rows2 = tile.expand_dims %rows axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %rowsb = tile.broadcast %rows2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %nseq_t = tile.splat %nseq : i32 -> !tile.tile<128xi32>
  %c127 = arith.constant dense<127> : !tile.tile<128xi32>
  %c7 = arith.constant dense<7> : !tile.tile<128xi32>
  %one = arith.constant dense<1> : !tile.tile<128xi32>
  %zero = arith.constant dense<0> : !tile.tile<128xi32>
  %zero2 = arith.constant dense<0> : !tile.tile<128x128xi32>
  %one2 = arith.constant dense<1> : !tile.tile<128x128xi32>
  %r:2 = scf.for %bb = %c0 to %nseq step %c128 iter_args(%seq1 = %zero, %m = %zero)
      -> (!tile.tile<128xi32>, !tile.tile<128xi32>) : i32 {
    %bb1 = arith.addi %bb, %c1 : i32
    %bbt = tile.splat %bb : i32 -> !tile.tile<128xi32>
    %bi = arith.addi %iota, %bbt : !tile.tile<128xi32>
    %st = tile.load %start[%bb] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %q0 = tile.load %cu[%bb] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %q1 = tile.load %cu[%bb1] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %len = arith.subi %q1, %q0 : !tile.tile<128xi32>
    %len7 = arith.addi %len, %c127 : !tile.tile<128xi32>
    %blk0 = arith.shrsi %len7, %c7 : !tile.tile<128xi32>
    %real = arith.cmpi slt, %bi, %nseq_t : !tile.tile<128xi32>
    %blk = arith.select %real, %blk0, %zero : !tile.tile<128xi1>, !tile.tile<128xi32>
    %en = arith.addi %st, %blk : !tile.tile<128xi32>
    %st2 = tile.expand_dims %st axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %stb = tile.broadcast %st2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %en2 = tile.expand_dims %en axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %enb = tile.broadcast %en2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %bi2 = tile.expand_dims %bi axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %bib = tile.broadcast %bi2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %from = arith.cmpi sle, %stb, %rowsb : !tile.tile<128x128xi32>
    %to = arith.cmpi slt, %rowsb, %enb : !tile.tile<128x128xi32>
    %hit = arith.andi %from, %to : !tile.tile<128x128xi1>
    %b1 = arith.addi %bib, %one2 : !tile.tile<128x128xi32>
    %sb = arith.select %hit, %b1, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %last = arith.subi %enb, %one2 : !tile.tile<128x128xi32>
    %left = arith.subi %last, %rowsb : !tile.tile<128x128xi32>
    %sm = arith.select %hit, %left, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %ds = tile.reduce sum %sb dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %dm = tile.reduce sum %sm dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %seq2 = arith.addi %seq1, %ds : !tile.tile<128xi32>
    %m2 = arith.addi %m, %dm : !tile.tile<128xi32>
    scf.yield %seq2, %m2 : !tile.tile<128xi32>, !tile.tile<128xi32>
  }
  %seq = arith.subi %r#0, %one : !tile.tile<128xi32>
  %nrows_t = tile.splat %nrows : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %rows, %nrows_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %seqc = tile.expand_dims %seq axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %mc = tile.expand_dims %r#1 axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  tile.store %seqc, %sched[%r0, %c0] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x2xi32>
  tile.store %mc, %sched[%r0, %c1] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x2xi32>
  return
}
