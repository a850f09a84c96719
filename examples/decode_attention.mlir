// Attention decode over a paged KV cache (vLLM's layout), split along the
// keys, then a combine kernel that merges the splits by their LSE:
//   O = softmax(Q Kᵀ · scale [+ causal among the new tokens]) V
// q is (B, Hkv, R, D): the R = Sq · G rows of one KV head are its G query
// heads for each of the Sq new tokens, token-major (row r is token r / G;
// tilec.ops.decode_attention packs them so: GQA packing, so 8 query heads
// fill 8 rows of the MMA, not 8 programs). k_cache and v_cache are
// (num_blocks, P, Hkv, D) with pages of any P tokens; block_table (B,
// max_blocks) names sequence b's pages, seq_lens (B) its length. The new
// tokens are the last Sq of each sequence: token t sees keys 0 .. len - Sq
// + t (bottom-right causal). Program z of `splits` takes a contiguous
// share of the sequence's 64-key blocks and writes its O (normalized,
// f32) and LSE into partials (splits, B, Hkv, R, D) and (splits, B, Hkv,
// R); an empty share writes O = 0 and LSE = -inf. With one split
// (splits = 1) the program writes O in bf16 and LSE into out (B, Hkv, R,
// D) and lse_out (B, Hkv, R) instead, and no combine runs (it and the f32
// partial cost 2.6% of a 64-sequence decode). 64 keys a step and two
// programs an SM (tile.blocks_per_sm): two programs' copies in flight (4.04
// TB/s on an H200 at 4096 keys, where one program an SM with six stages
// read 3.73).
//
// K and V are rows gathered through the block table: each 64-key block
// reads the table entries of its keys and rows page · P + key % P. On
// sm_90a the loop runs warp-specialized: the load partition gathers K and
// V into the MMAs' swizzled slots, a run of 16 keys in one page (pages of
// 16k tokens) as TMA boxes, any other run by its threads (cp.async, 16
// bytes a thread, zero where a key is past the sequence: pages the
// sequence does not own are never read); Q is a TMA copy once, and one
// consumer warpgroup runs S = Q·Kᵀ and O += P·V on wgmma.

func.func @decode_d128(%q: !tile.tensor<?x?x?x128xbf16>, %kc: !tile.tensor<?x?x?x128xbf16>,
    %vc: !tile.tensor<?x?x?x128xbf16>, %bt: !tile.tensor<?x?xi32>,
    %lens: !tile.tensor<?xi32>, %o: !tile.tensor<?x?x?x?x128xf32>,
    %lse: !tile.tensor<?x?x?x?xf32>, %scale: f32, %group: i32, %splits: i32,
    %out: !tile.tensor<?x?x?x128xbf16>, %lse_out: !tile.tensor<?x?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.blocks_per_sm = 2,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1)), arg(9)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 64 : i32
  %cm = arith.constant 64 : i32
  %cn1 = arith.constant 63 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %s = tile.program_id z
  %hkv = tile.dim %q, 1 : !tile.tensor<?x?x?x128xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %rr = tile.dim %q, 2 : !tile.tensor<?x?x?x128xbf16>
  %sq = arith.divui %rr, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %page = tile.dim %kc, 1 : !tile.tensor<?x?x?x128xbf16>
  // This split's keys: a contiguous share of the sequence's blocks.
  %lenp = arith.addi %len, %cn1 : i32
  %nblk = arith.divui %lenp, %cn : i32
  %splm = arith.subi %splits, %c1 : i32
  %nblkp = arith.addi %nblk, %splm : i32
  %per = arith.divui %nblkp, %splits : i32
  %perk = arith.muli %per, %cn : i32
  %k0 = arith.muli %s, %perk : i32
  %k1r = arith.addi %k0, %perk : i32
  %k1 = arith.minsi %k1r, %len : i32
  %q4 = tile.load %q[%b, %hkr, %m0, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x64x128xbf16>
  %qt = tile.reshape %q4 : !tile.tile<1x1x64x128xbf16> -> !tile.tile<64x128xbf16>
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<64xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  // Row r (token r / G) sees keys below lim[r] = len - Sq + r / G + 1.
  %riota = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %rows = arith.addi %riota, %m0t : !tile.tile<64xi32>
  %grp = tile.splat %group : i32 -> !tile.tile<64xi32>
  %tok = arith.divui %rows, %grp : !tile.tile<64xi32>
  %base = arith.subi %len, %sq : i32
  %base1 = arith.addi %base, %c1 : i32
  %baset = tile.splat %base1 : i32 -> !tile.tile<64xi32>
  %lim = arith.addi %tok, %baset : !tile.tile<64xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
  %kiota = tile.iota : !tile.tile<64xi32>
  %bs = tile.splat %b : i32 -> !tile.tile<64xi32>
  %pages = tile.splat %page : i32 -> !tile.tile<64xi32>
  %lens_t = tile.splat %len : i32 -> !tile.tile<64xi32>
  %hkt = tile.splat %hkr : i32 -> !tile.tile<64x128xi32>
  %diota = tile.iota : !tile.tile<128xi32>
  %d2 = tile.expand_dims %diota axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
  %cols = tile.broadcast %d2 : !tile.tile<1x128xi32> -> !tile.tile<64x128xi32>
  %r:3 = scf.for %n0 = %k0 to %k1 step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x128xf32>) : i32 {
    // Keys n0 .. n0 + 127: their pages from the table, rows page · P + key % P.
    %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
    %keys = arith.addi %kiota, %n0t : !tile.tile<64xi32>
    %inb = arith.cmpi slt, %keys, %lens_t : !tile.tile<64xi32>
    %blk = arith.divui %keys, %pages : !tile.tile<64xi32>
    %off = arith.remui %keys, %pages : !tile.tile<64xi32>
    %pg = tile.gather %bt[%bs, %blk] mask(%inb : !tile.tile<64xi1>)
        : !tile.tensor<?x?xi32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xi32>
    %pg2 = tile.expand_dims %pg axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %pgb = tile.broadcast %pg2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
    %off2 = tile.expand_dims %off axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %offb = tile.broadcast %off2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
    %inb2 = tile.expand_dims %inb axis 1 : !tile.tile<64xi1> -> !tile.tile<64x1xi1>
    %inbb = tile.broadcast %inb2 : !tile.tile<64x1xi1> -> !tile.tile<64x128xi1>
    %kt = tile.gather %kc[%pgb, %offb, %hkt, %cols] mask(%inbb : !tile.tile<64x128xi1>)
        : !tile.tensor<?x?x?x128xbf16>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>,
          !tile.tile<64x128xi32>, !tile.tile<64x128xi32> -> !tile.tile<64x128xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<64x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<64x64xf32>
    %cols_k = tile.expand_dims %keys axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
    %colsb = tile.broadcast %cols_k : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
    // Only the last block (and the new tokens' diagonal) is masked.
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %base1 : i32
    %sm = scf.if %partial -> (!tile.tile<64x64xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<64x64xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      scf.yield %masked : !tile.tile<64x64xf32>
    } else {
      scf.yield %qk : !tile.tile<64x64xf32>
    }
    %mj = tile.reduce max %sm dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<64xf32>
    // A row with no key yet keeps max -inf: subtract 0 instead (p = 0).
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<64xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<64xi1>, !tile.tile<64xf32>
    %ms = arith.mulf %m_use, %scale_r : !tile.tile<64xf32>
    %me = tile.expand_dims %ms axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %mb = tile.broadcast %me : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %sc = arith.mulf %sm, %scale_t : !tile.tile<64x64xf32>
    %d = arith.subf %sc, %mb : !tile.tile<64x64xf32>
    %p = math.exp2 %d : !tile.tile<64x64xf32>
    %mis = arith.mulf %m_i, %scale_r : !tile.tile<64xf32>
    %dms = arith.subf %mis, %ms : !tile.tile<64xf32>
    %alpha = math.exp2 %dms : !tile.tile<64xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<64xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<64xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<64x128xf32>
    %vt = tile.gather %vc[%pgb, %offb, %hkt, %cols] mask(%inbb : !tile.tile<64x128xi1>)
        : !tile.tensor<?x?x?x128xbf16>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>,
          !tile.tile<64x128xi32>, !tile.tile<64x128xi32> -> !tile.tile<64x128xbf16>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x128xf32>
  }
  // O = acc / l (0 where the share had no key), LSE = m · scale + ln l.
  %ones = arith.constant dense<1.0> : !tile.tile<64xf32>
  %has = arith.cmpf ogt, %r#1, %zero : !tile.tile<64xf32>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<64xi1>, !tile.tile<64xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<64xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<64xi1>, !tile.tile<64xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
  %onorm = arith.mulf %r#2, %lb : !tile.tile<64x128xf32>
  %scale_l = tile.splat %scale : f32 -> !tile.tile<64xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<64xf32>
  %logl = math.log %l_safe : !tile.tile<64xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<64xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<64xi1>, !tile.tile<64xf32>
  // One split: O in bf16 and LSE where the combine would put them (no
  // combine launch, no f32 partial); else the split's partials.
  %direct = arith.cmpi eq, %splits, %c1 : i32
  scf.if %direct {
    %ob = arith.truncf %onorm : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
    %ob4 = tile.reshape %ob : !tile.tile<64x128xbf16> -> !tile.tile<1x1x64x128xbf16>
    tile.store %ob4, %out[%b, %hkr, %m0, %c0] : !tile.tile<1x1x64x128xbf16>, !tile.tensor<?x?x?x128xbf16>
    %lse3 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
    tile.store %lse3, %lse_out[%b, %hkr, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  } else {
    %o5 = tile.reshape %onorm : !tile.tile<64x128xf32> -> !tile.tile<1x1x1x64x128xf32>
    tile.store %o5, %o[%s, %b, %hkr, %m0, %c0] : !tile.tile<1x1x1x64x128xf32>, !tile.tensor<?x?x?x?x128xf32>
    %lse4 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x1x64xf32>
    tile.store %lse4, %lse[%s, %b, %hkr, %m0] : !tile.tile<1x1x1x64xf32>, !tile.tensor<?x?x?x?xf32>
  }
  return
}

// The splits merged: O = Σ_s exp(lse_s - M) O_s / Σ_s exp(lse_s - M) with
// M = max_s lse_s, LSE = M + ln Σ_s exp(lse_s - M); rows whose splits are
// all empty get O = 0 and LSE = -inf. One program a row: the splits'
// partial rows 32 at a time, as one (32, D) tile (all their loads in
// flight at once: B = 1 with 32 splits has 32 rows to merge, whose loads
// one after the other took 30 us), merged with the running max of the
// chunks before. Splits in order: the same result every run. out (B, Hkv,
// R, D) bf16, lse_out (B, Hkv, R).
func.func @decode_combine_d128(%o: !tile.tensor<?x?x?x?x128xf32>, %lse: !tile.tensor<?x?x?x?xf32>,
    %out: !tile.tensor<?x?x?x128xbf16>, %lse_out: !tile.tensor<?x?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<dim(0, 3), mul(dim(0, 1), dim(0, 2))>} {
  %c0 = arith.constant 0 : i32
  %cs = arith.constant 32 : i32
  %r = tile.program_id x
  %bh = tile.program_id y
  %hkv = tile.dim %o, 2 : !tile.tensor<?x?x?x?x128xf32>
  %b = arith.divui %bh, %hkv : i32
  %hk = arith.remui %bh, %hkv : i32
  %ns = tile.dim %o, 0 : !tile.tensor<?x?x?x?x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<1xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<1xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128xf32>
  %res:3 = scf.for %s0 = %c0 to %ns step %cs
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<1xf32>, !tile.tile<1xf32>, !tile.tile<128xf32>) : i32 {
    // Splits past the last read as LSE -inf and O 0: weight 0.
    %x4 = tile.load %lse[%s0, %b, %hk, %r] {padding = 0xFF800000 : f32}
        : !tile.tensor<?x?x?x?xf32> -> !tile.tile<32x1x1x1xf32>
    %x = tile.reshape %x4 : !tile.tile<32x1x1x1xf32> -> !tile.tile<32x1xf32>
    %o5 = tile.load %o[%s0, %b, %hk, %r, %c0]
        : !tile.tensor<?x?x?x?x128xf32> -> !tile.tile<32x1x1x1x128xf32>
    %os = tile.reshape %o5 : !tile.tile<32x1x1x1x128xf32> -> !tile.tile<32x128xf32>
    %mc = tile.reduce max %x dim 0 : !tile.tile<32x1xf32> -> !tile.tile<1xf32>
    %m_new = arith.maximumf %m_i, %mc : !tile.tile<1xf32>
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<1xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<1xi1>, !tile.tile<1xf32>
    %dm = arith.subf %m_i, %m_use : !tile.tile<1xf32>
    %alpha = math.exp %dm : !tile.tile<1xf32>
    %me = tile.expand_dims %m_use axis 0 : !tile.tile<1xf32> -> !tile.tile<1x1xf32>
    %mb = tile.broadcast %me : !tile.tile<1x1xf32> -> !tile.tile<32x1xf32>
    %dx = arith.subf %x, %mb : !tile.tile<32x1xf32>
    %w = math.exp %dx : !tile.tile<32x1xf32>
    %ws = tile.reduce sum %w dim 0 : !tile.tile<32x1xf32> -> !tile.tile<1xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<1xf32>
    %l_new = arith.addf %la, %ws : !tile.tile<1xf32>
    %wb = tile.broadcast %w : !tile.tile<32x1xf32> -> !tile.tile<32x128xf32>
    %ow = arith.mulf %os, %wb : !tile.tile<32x128xf32>
    %part = tile.reduce sum %ow dim 0 : !tile.tile<32x128xf32> -> !tile.tile<128xf32>
    %ab = tile.broadcast %alpha : !tile.tile<1xf32> -> !tile.tile<128xf32>
    %acc_a = arith.mulf %acc, %ab : !tile.tile<128xf32>
    %acc_new = arith.addf %acc_a, %part : !tile.tile<128xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<1xf32>, !tile.tile<1xf32>, !tile.tile<128xf32>
  }
  %ones = arith.constant dense<1.0> : !tile.tile<1xf32>
  %has = arith.cmpf ogt, %res#1, %zero : !tile.tile<1xf32>
  %l_safe = arith.select %has, %res#1, %ones : !tile.tile<1xi1>, !tile.tile<1xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<1xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<1xi1>, !tile.tile<1xf32>
  %ib = tile.broadcast %inv : !tile.tile<1xf32> -> !tile.tile<128xf32>
  %o_f = arith.mulf %res#2, %ib : !tile.tile<128xf32>
  %o_b = arith.truncf %o_f : !tile.tile<128xf32> to !tile.tile<128xbf16>
  %o4 = tile.reshape %o_b : !tile.tile<128xbf16> -> !tile.tile<1x1x1x128xbf16>
  tile.store %o4, %out[%b, %hk, %r, %c0] : !tile.tile<1x1x1x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  %m_fin = arith.select %has, %res#0, %zero : !tile.tile<1xi1>, !tile.tile<1xf32>
  %logl = math.log %l_safe : !tile.tile<1xf32>
  %lsev0 = arith.addf %m_fin, %logl : !tile.tile<1xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<1xi1>, !tile.tile<1xf32>
  %l3 = tile.reshape %lsev : !tile.tile<1xf32> -> !tile.tile<1x1x1xf32>
  tile.store %l3, %lse_out[%b, %hk, %r] : !tile.tile<1x1x1xf32>, !tile.tensor<?x?x?xf32>
  return
}

// The new tokens' keys and values written into the cache before the
// attention reads them (tilec.ops.decode_attention's k and v): token t of
// the Sq new tokens of sequence b is at position len - Sq + t (the
// lengths count the new tokens), slot pos % P of page bt[b, pos / P]; one
// program a token and KV head. kn and vn are (B, Sq, Hkv, D); a position
// below 0 (a sequence shorter than Sq) is not written.
func.func @decode_append_d128(%kn: !tile.tensor<?x?x?x128xbf16>, %vn: !tile.tensor<?x?x?x128xbf16>,
    %kc: !tile.tensor<?x?x?x128xbf16>, %vc: !tile.tensor<?x?x?x128xbf16>,
    %bt: !tile.tensor<?x?xi32>, %lens: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 1,
                tile.grid = #tile.grid<mul(dim(0, 0), dim(0, 1)), dim(0, 2)>} {
  %c0 = arith.constant 0 : i32
  %bt_id = tile.program_id x
  %h = tile.program_id y
  %sq = tile.dim %kn, 1 : !tile.tensor<?x?x?x128xbf16>
  %b = arith.divui %bt_id, %sq : i32
  %t = arith.remui %bt_id, %sq : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %first = arith.subi %len, %sq : i32
  %pos = arith.addi %first, %t : i32
  %ok = arith.cmpi sge, %pos, %c0 : i32
  scf.if %ok {
    %p = tile.dim %kc, 1 : !tile.tensor<?x?x?x128xbf16>
    %blk = arith.divui %pos, %p : i32
    %off = arith.remui %pos, %p : i32
    %page = tile.load %bt[%b, %blk] : !tile.tensor<?x?xi32> -> i32
    %k = tile.load %kn[%b, %t, %h, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x1x128xbf16>
    tile.store %k, %kc[%page, %off, %h, %c0] : !tile.tile<1x1x1x128xbf16>, !tile.tensor<?x?x?x128xbf16>
    %v = tile.load %vn[%b, %t, %h, %c0] : !tile.tensor<?x?x?x128xbf16> -> !tile.tile<1x1x1x128xbf16>
    tile.store %v, %vc[%page, %off, %h, %c0] : !tile.tile<1x1x1x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  }
  return
}

// The same three kernels at head dims 64 and 256. At 64, 128 keys a step
// and three stages (64 keys a step and five stages read 4-6% slower: a
// step's softmax and waits then come for 16 KB of K and V). At 256 a
// program's Q (32 KB) and two stages of K and V (128 KB) take one SM's
// shared memory (tile.blocks_per_sm = 1): the same bytes in flight an SM
// as two programs at 128; its 64x256 f32 accumulator is 128 registers of
// the consumer warpgroup's.

func.func @decode_d64(%q: !tile.tensor<?x?x?x64xbf16>, %kc: !tile.tensor<?x?x?x64xbf16>,
    %vc: !tile.tensor<?x?x?x64xbf16>, %bt: !tile.tensor<?x?xi32>,
    %lens: !tile.tensor<?xi32>, %o: !tile.tensor<?x?x?x?x64xf32>,
    %lse: !tile.tensor<?x?x?x?xf32>, %scale: f32, %group: i32, %splits: i32,
    %out: !tile.tensor<?x?x?x64xbf16>, %lse_out: !tile.tensor<?x?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.blocks_per_sm = 2, tile.num_stages = 3,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1)), arg(9)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 128 : i32
  %cm = arith.constant 64 : i32
  %cn1 = arith.constant 127 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %s = tile.program_id z
  %hkv = tile.dim %q, 1 : !tile.tensor<?x?x?x64xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %rr = tile.dim %q, 2 : !tile.tensor<?x?x?x64xbf16>
  %sq = arith.divui %rr, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %page = tile.dim %kc, 1 : !tile.tensor<?x?x?x64xbf16>
  // This split's keys: a contiguous share of the sequence's blocks.
  %lenp = arith.addi %len, %cn1 : i32
  %nblk = arith.divui %lenp, %cn : i32
  %splm = arith.subi %splits, %c1 : i32
  %nblkp = arith.addi %nblk, %splm : i32
  %per = arith.divui %nblkp, %splits : i32
  %perk = arith.muli %per, %cn : i32
  %k0 = arith.muli %s, %perk : i32
  %k1r = arith.addi %k0, %perk : i32
  %k1 = arith.minsi %k1r, %len : i32
  %q4 = tile.load %q[%b, %hkr, %m0, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x64x64xbf16>
  %qt = tile.reshape %q4 : !tile.tile<1x1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x128xf32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<64xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x128xf32>
  // Row r (token r / G) sees keys below lim[r] = len - Sq + r / G + 1.
  %riota = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %rows = arith.addi %riota, %m0t : !tile.tile<64xi32>
  %grp = tile.splat %group : i32 -> !tile.tile<64xi32>
  %tok = arith.divui %rows, %grp : !tile.tile<64xi32>
  %base = arith.subi %len, %sq : i32
  %base1 = arith.addi %base, %c1 : i32
  %baset = tile.splat %base1 : i32 -> !tile.tile<64xi32>
  %lim = arith.addi %tok, %baset : !tile.tile<64xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
  %kiota = tile.iota : !tile.tile<128xi32>
  %bs = tile.splat %b : i32 -> !tile.tile<128xi32>
  %pages = tile.splat %page : i32 -> !tile.tile<128xi32>
  %lens_t = tile.splat %len : i32 -> !tile.tile<128xi32>
  %hkt = tile.splat %hkr : i32 -> !tile.tile<128x64xi32>
  %diota = tile.iota : !tile.tile<64xi32>
  %d2 = tile.expand_dims %diota axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cols = tile.broadcast %d2 : !tile.tile<1x64xi32> -> !tile.tile<128x64xi32>
  %r:3 = scf.for %n0 = %k0 to %k1 step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x64xf32>) : i32 {
    // Keys n0 .. n0 + 127: their pages from the table, rows page · P + key % P.
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %keys = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %inb = arith.cmpi slt, %keys, %lens_t : !tile.tile<128xi32>
    %blk = arith.divui %keys, %pages : !tile.tile<128xi32>
    %off = arith.remui %keys, %pages : !tile.tile<128xi32>
    %pg = tile.gather %bt[%bs, %blk] mask(%inb : !tile.tile<128xi1>)
        : !tile.tensor<?x?xi32>, !tile.tile<128xi32>, !tile.tile<128xi32> -> !tile.tile<128xi32>
    %pg2 = tile.expand_dims %pg axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
    %pgb = tile.broadcast %pg2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
    %off2 = tile.expand_dims %off axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
    %offb = tile.broadcast %off2 : !tile.tile<128x1xi32> -> !tile.tile<128x64xi32>
    %inb2 = tile.expand_dims %inb axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
    %inbb = tile.broadcast %inb2 : !tile.tile<128x1xi1> -> !tile.tile<128x64xi1>
    %kt = tile.gather %kc[%pgb, %offb, %hkt, %cols] mask(%inbb : !tile.tile<128x64xi1>)
        : !tile.tensor<?x?x?x64xbf16>, !tile.tile<128x64xi32>, !tile.tile<128x64xi32>,
          !tile.tile<128x64xi32>, !tile.tile<128x64xi32> -> !tile.tile<128x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x128xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    %cols_k = tile.expand_dims %keys axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols_k : !tile.tile<1x128xi32> -> !tile.tile<64x128xi32>
    // Only the last block (and the new tokens' diagonal) is masked.
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %base1 : i32
    %sm = scf.if %partial -> (!tile.tile<64x128xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<64x128xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<64x128xi1>, !tile.tile<64x128xf32>
      scf.yield %masked : !tile.tile<64x128xf32>
    } else {
      scf.yield %qk : !tile.tile<64x128xf32>
    }
    %mj = tile.reduce max %sm dim 1 : !tile.tile<64x128xf32> -> !tile.tile<64xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<64xf32>
    // A row with no key yet keeps max -inf: subtract 0 instead (p = 0).
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<64xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<64xi1>, !tile.tile<64xf32>
    %ms = arith.mulf %m_use, %scale_r : !tile.tile<64xf32>
    %me = tile.expand_dims %ms axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %mb = tile.broadcast %me : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
    %sc = arith.mulf %sm, %scale_t : !tile.tile<64x128xf32>
    %d = arith.subf %sc, %mb : !tile.tile<64x128xf32>
    %p = math.exp2 %d : !tile.tile<64x128xf32>
    %mis = arith.mulf %m_i, %scale_r : !tile.tile<64xf32>
    %dms = arith.subf %mis, %ms : !tile.tile<64xf32>
    %alpha = math.exp2 %dms : !tile.tile<64xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<64x128xf32> -> !tile.tile<64xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<64xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<64xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<64x64xf32>
    %vt = tile.gather %vc[%pgb, %offb, %hkt, %cols] mask(%inbb : !tile.tile<128x64xi1>)
        : !tile.tensor<?x?x?x64xbf16>, !tile.tile<128x64xi32>, !tile.tile<128x64xi32>,
          !tile.tile<128x64xi32>, !tile.tile<128x64xi32> -> !tile.tile<128x64xbf16>
    %pb = arith.truncf %p : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<64x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x64xf32>
  }
  // O = acc / l (0 where the share had no key), LSE = m · scale + ln l.
  %ones = arith.constant dense<1.0> : !tile.tile<64xf32>
  %has = arith.cmpf ogt, %r#1, %zero : !tile.tile<64xf32>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<64xi1>, !tile.tile<64xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<64xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<64xi1>, !tile.tile<64xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
  %onorm = arith.mulf %r#2, %lb : !tile.tile<64x64xf32>
  %scale_l = tile.splat %scale : f32 -> !tile.tile<64xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<64xf32>
  %logl = math.log %l_safe : !tile.tile<64xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<64xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<64xi1>, !tile.tile<64xf32>
  // One split: O in bf16 and LSE where the combine would put them (no
  // combine launch, no f32 partial); else the split's partials.
  %direct = arith.cmpi eq, %splits, %c1 : i32
  scf.if %direct {
    %ob = arith.truncf %onorm : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %ob4 = tile.reshape %ob : !tile.tile<64x64xbf16> -> !tile.tile<1x1x64x64xbf16>
    tile.store %ob4, %out[%b, %hkr, %m0, %c0] : !tile.tile<1x1x64x64xbf16>, !tile.tensor<?x?x?x64xbf16>
    %lse3 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
    tile.store %lse3, %lse_out[%b, %hkr, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  } else {
    %o5 = tile.reshape %onorm : !tile.tile<64x64xf32> -> !tile.tile<1x1x1x64x64xf32>
    tile.store %o5, %o[%s, %b, %hkr, %m0, %c0] : !tile.tile<1x1x1x64x64xf32>, !tile.tensor<?x?x?x?x64xf32>
    %lse4 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x1x64xf32>
    tile.store %lse4, %lse[%s, %b, %hkr, %m0] : !tile.tile<1x1x1x64xf32>, !tile.tensor<?x?x?x?xf32>
  }
  return
}

func.func @decode_combine_d64(%o: !tile.tensor<?x?x?x?x64xf32>, %lse: !tile.tensor<?x?x?x?xf32>,
    %out: !tile.tensor<?x?x?x64xbf16>, %lse_out: !tile.tensor<?x?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<dim(0, 3), mul(dim(0, 1), dim(0, 2))>} {
  %c0 = arith.constant 0 : i32
  %cs = arith.constant 32 : i32
  %r = tile.program_id x
  %bh = tile.program_id y
  %hkv = tile.dim %o, 2 : !tile.tensor<?x?x?x?x64xf32>
  %b = arith.divui %bh, %hkv : i32
  %hk = arith.remui %bh, %hkv : i32
  %ns = tile.dim %o, 0 : !tile.tensor<?x?x?x?x64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<1xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<1xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64xf32>
  %res:3 = scf.for %s0 = %c0 to %ns step %cs
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<1xf32>, !tile.tile<1xf32>, !tile.tile<64xf32>) : i32 {
    // Splits past the last read as LSE -inf and O 0: weight 0.
    %x4 = tile.load %lse[%s0, %b, %hk, %r] {padding = 0xFF800000 : f32}
        : !tile.tensor<?x?x?x?xf32> -> !tile.tile<32x1x1x1xf32>
    %x = tile.reshape %x4 : !tile.tile<32x1x1x1xf32> -> !tile.tile<32x1xf32>
    %o5 = tile.load %o[%s0, %b, %hk, %r, %c0]
        : !tile.tensor<?x?x?x?x64xf32> -> !tile.tile<32x1x1x1x64xf32>
    %os = tile.reshape %o5 : !tile.tile<32x1x1x1x64xf32> -> !tile.tile<32x64xf32>
    %mc = tile.reduce max %x dim 0 : !tile.tile<32x1xf32> -> !tile.tile<1xf32>
    %m_new = arith.maximumf %m_i, %mc : !tile.tile<1xf32>
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<1xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<1xi1>, !tile.tile<1xf32>
    %dm = arith.subf %m_i, %m_use : !tile.tile<1xf32>
    %alpha = math.exp %dm : !tile.tile<1xf32>
    %me = tile.expand_dims %m_use axis 0 : !tile.tile<1xf32> -> !tile.tile<1x1xf32>
    %mb = tile.broadcast %me : !tile.tile<1x1xf32> -> !tile.tile<32x1xf32>
    %dx = arith.subf %x, %mb : !tile.tile<32x1xf32>
    %w = math.exp %dx : !tile.tile<32x1xf32>
    %ws = tile.reduce sum %w dim 0 : !tile.tile<32x1xf32> -> !tile.tile<1xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<1xf32>
    %l_new = arith.addf %la, %ws : !tile.tile<1xf32>
    %wb = tile.broadcast %w : !tile.tile<32x1xf32> -> !tile.tile<32x64xf32>
    %ow = arith.mulf %os, %wb : !tile.tile<32x64xf32>
    %part = tile.reduce sum %ow dim 0 : !tile.tile<32x64xf32> -> !tile.tile<64xf32>
    %ab = tile.broadcast %alpha : !tile.tile<1xf32> -> !tile.tile<64xf32>
    %acc_a = arith.mulf %acc, %ab : !tile.tile<64xf32>
    %acc_new = arith.addf %acc_a, %part : !tile.tile<64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<1xf32>, !tile.tile<1xf32>, !tile.tile<64xf32>
  }
  %ones = arith.constant dense<1.0> : !tile.tile<1xf32>
  %has = arith.cmpf ogt, %res#1, %zero : !tile.tile<1xf32>
  %l_safe = arith.select %has, %res#1, %ones : !tile.tile<1xi1>, !tile.tile<1xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<1xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<1xi1>, !tile.tile<1xf32>
  %ib = tile.broadcast %inv : !tile.tile<1xf32> -> !tile.tile<64xf32>
  %o_f = arith.mulf %res#2, %ib : !tile.tile<64xf32>
  %o_b = arith.truncf %o_f : !tile.tile<64xf32> to !tile.tile<64xbf16>
  %o4 = tile.reshape %o_b : !tile.tile<64xbf16> -> !tile.tile<1x1x1x64xbf16>
  tile.store %o4, %out[%b, %hk, %r, %c0] : !tile.tile<1x1x1x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  %m_fin = arith.select %has, %res#0, %zero : !tile.tile<1xi1>, !tile.tile<1xf32>
  %logl = math.log %l_safe : !tile.tile<1xf32>
  %lsev0 = arith.addf %m_fin, %logl : !tile.tile<1xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<1xi1>, !tile.tile<1xf32>
  %l3 = tile.reshape %lsev : !tile.tile<1xf32> -> !tile.tile<1x1x1xf32>
  tile.store %l3, %lse_out[%b, %hk, %r] : !tile.tile<1x1x1xf32>, !tile.tensor<?x?x?xf32>
  return
}

func.func @decode_append_d64(%kn: !tile.tensor<?x?x?x64xbf16>, %vn: !tile.tensor<?x?x?x64xbf16>,
    %kc: !tile.tensor<?x?x?x64xbf16>, %vc: !tile.tensor<?x?x?x64xbf16>,
    %bt: !tile.tensor<?x?xi32>, %lens: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 1,
                tile.grid = #tile.grid<mul(dim(0, 0), dim(0, 1)), dim(0, 2)>} {
  %c0 = arith.constant 0 : i32
  %bt_id = tile.program_id x
  %h = tile.program_id y
  %sq = tile.dim %kn, 1 : !tile.tensor<?x?x?x64xbf16>
  %b = arith.divui %bt_id, %sq : i32
  %t = arith.remui %bt_id, %sq : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %first = arith.subi %len, %sq : i32
  %pos = arith.addi %first, %t : i32
  %ok = arith.cmpi sge, %pos, %c0 : i32
  scf.if %ok {
    %p = tile.dim %kc, 1 : !tile.tensor<?x?x?x64xbf16>
    %blk = arith.divui %pos, %p : i32
    %off = arith.remui %pos, %p : i32
    %page = tile.load %bt[%b, %blk] : !tile.tensor<?x?xi32> -> i32
    %k = tile.load %kn[%b, %t, %h, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x1x64xbf16>
    tile.store %k, %kc[%page, %off, %h, %c0] : !tile.tile<1x1x1x64xbf16>, !tile.tensor<?x?x?x64xbf16>
    %v = tile.load %vn[%b, %t, %h, %c0] : !tile.tensor<?x?x?x64xbf16> -> !tile.tile<1x1x1x64xbf16>
    tile.store %v, %vc[%page, %off, %h, %c0] : !tile.tile<1x1x1x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  }
  return
}

func.func @decode_d256(%q: !tile.tensor<?x?x?x256xbf16>, %kc: !tile.tensor<?x?x?x256xbf16>,
    %vc: !tile.tensor<?x?x?x256xbf16>, %bt: !tile.tensor<?x?xi32>,
    %lens: !tile.tensor<?xi32>, %o: !tile.tensor<?x?x?x?x256xf32>,
    %lse: !tile.tensor<?x?x?x?xf32>, %scale: f32, %group: i32, %splits: i32,
    %out: !tile.tensor<?x?x?x256xbf16>, %lse_out: !tile.tensor<?x?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.blocks_per_sm = 1,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 64), mul(dim(0, 0), dim(0, 1)), arg(9)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cn = arith.constant 64 : i32
  %cm = arith.constant 64 : i32
  %cn1 = arith.constant 63 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %s = tile.program_id z
  %hkv = tile.dim %q, 1 : !tile.tensor<?x?x?x256xbf16>
  %b = arith.divui %bh, %hkv : i32
  %hkr = arith.remui %bh, %hkv : i32
  %rr = tile.dim %q, 2 : !tile.tensor<?x?x?x256xbf16>
  %sq = arith.divui %rr, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %page = tile.dim %kc, 1 : !tile.tensor<?x?x?x256xbf16>
  // This split's keys: a contiguous share of the sequence's blocks.
  %lenp = arith.addi %len, %cn1 : i32
  %nblk = arith.divui %lenp, %cn : i32
  %splm = arith.subi %splits, %c1 : i32
  %nblkp = arith.addi %nblk, %splm : i32
  %per = arith.divui %nblkp, %splits : i32
  %perk = arith.muli %per, %cn : i32
  %k0 = arith.muli %s, %perk : i32
  %k1r = arith.addi %k0, %perk : i32
  %k1 = arith.minsi %k1r, %len : i32
  %q4 = tile.load %q[%b, %hkr, %m0, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x64x256xbf16>
  %qt = tile.reshape %q4 : !tile.tile<1x1x64x256xbf16> -> !tile.tile<64x256xbf16>
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<64xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x256xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  // Row r (token r / G) sees keys below lim[r] = len - Sq + r / G + 1.
  %riota = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %rows = arith.addi %riota, %m0t : !tile.tile<64xi32>
  %grp = tile.splat %group : i32 -> !tile.tile<64xi32>
  %tok = arith.divui %rows, %grp : !tile.tile<64xi32>
  %base = arith.subi %len, %sq : i32
  %base1 = arith.addi %base, %c1 : i32
  %baset = tile.splat %base1 : i32 -> !tile.tile<64xi32>
  %lim = arith.addi %tok, %baset : !tile.tile<64xi32>
  %lim2 = tile.expand_dims %lim axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %limb = tile.broadcast %lim2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
  %kiota = tile.iota : !tile.tile<64xi32>
  %bs = tile.splat %b : i32 -> !tile.tile<64xi32>
  %pages = tile.splat %page : i32 -> !tile.tile<64xi32>
  %lens_t = tile.splat %len : i32 -> !tile.tile<64xi32>
  %hkt = tile.splat %hkr : i32 -> !tile.tile<64x256xi32>
  %diota = tile.iota : !tile.tile<256xi32>
  %d2 = tile.expand_dims %diota axis 0 : !tile.tile<256xi32> -> !tile.tile<1x256xi32>
  %cols = tile.broadcast %d2 : !tile.tile<1x256xi32> -> !tile.tile<64x256xi32>
  %r:3 = scf.for %n0 = %k0 to %k1 step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x256xf32>) : i32 {
    // Keys n0 .. n0 + 127: their pages from the table, rows page · P + key % P.
    %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
    %keys = arith.addi %kiota, %n0t : !tile.tile<64xi32>
    %inb = arith.cmpi slt, %keys, %lens_t : !tile.tile<64xi32>
    %blk = arith.divui %keys, %pages : !tile.tile<64xi32>
    %off = arith.remui %keys, %pages : !tile.tile<64xi32>
    %pg = tile.gather %bt[%bs, %blk] mask(%inb : !tile.tile<64xi1>)
        : !tile.tensor<?x?xi32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xi32>
    %pg2 = tile.expand_dims %pg axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %pgb = tile.broadcast %pg2 : !tile.tile<64x1xi32> -> !tile.tile<64x256xi32>
    %off2 = tile.expand_dims %off axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %offb = tile.broadcast %off2 : !tile.tile<64x1xi32> -> !tile.tile<64x256xi32>
    %inb2 = tile.expand_dims %inb axis 1 : !tile.tile<64xi1> -> !tile.tile<64x1xi1>
    %inbb = tile.broadcast %inb2 : !tile.tile<64x1xi1> -> !tile.tile<64x256xi1>
    %kt = tile.gather %kc[%pgb, %offb, %hkt, %cols] mask(%inbb : !tile.tile<64x256xi1>)
        : !tile.tensor<?x?x?x256xbf16>, !tile.tile<64x256xi32>, !tile.tile<64x256xi32>,
          !tile.tile<64x256xi32>, !tile.tile<64x256xi32> -> !tile.tile<64x256xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x256xbf16> -> !tile.tile<256x64xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<64x256xbf16>, !tile.tile<256x64xbf16> -> !tile.tile<64x64xf32>
    %cols_k = tile.expand_dims %keys axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
    %colsb = tile.broadcast %cols_k : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
    // Only the last block (and the new tokens' diagonal) is masked.
    %nend = arith.addi %n0, %cn : i32
    %partial = arith.cmpi sgt, %nend, %base1 : i32
    %sm = scf.if %partial -> (!tile.tile<64x64xf32>) {
      %keep = arith.cmpi slt, %colsb, %limb : !tile.tile<64x64xi32>
      %masked = arith.select %keep, %qk, %neg : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      scf.yield %masked : !tile.tile<64x64xf32>
    } else {
      scf.yield %qk : !tile.tile<64x64xf32>
    }
    %mj = tile.reduce max %sm dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<64xf32>
    // A row with no key yet keeps max -inf: subtract 0 instead (p = 0).
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<64xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<64xi1>, !tile.tile<64xf32>
    %ms = arith.mulf %m_use, %scale_r : !tile.tile<64xf32>
    %me = tile.expand_dims %ms axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %mb = tile.broadcast %me : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %sc = arith.mulf %sm, %scale_t : !tile.tile<64x64xf32>
    %d = arith.subf %sc, %mb : !tile.tile<64x64xf32>
    %p = math.exp2 %d : !tile.tile<64x64xf32>
    %mis = arith.mulf %m_i, %scale_r : !tile.tile<64xf32>
    %dms = arith.subf %mis, %ms : !tile.tile<64xf32>
    %alpha = math.exp2 %dms : !tile.tile<64xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<64xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<64xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<64x1xf32> -> !tile.tile<64x256xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<64x256xf32>
    %vt = tile.gather %vc[%pgb, %offb, %hkt, %cols] mask(%inbb : !tile.tile<64x256xi1>)
        : !tile.tensor<?x?x?x256xbf16>, !tile.tile<64x256xi32>, !tile.tile<64x256xi32>,
          !tile.tile<64x256xi32>, !tile.tile<64x256xi32> -> !tile.tile<64x256xbf16>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<64x64xbf16>, !tile.tile<64x256xbf16> -> !tile.tile<64x256xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x256xf32>
  }
  // O = acc / l (0 where the share had no key), LSE = m · scale + ln l.
  %ones = arith.constant dense<1.0> : !tile.tile<64xf32>
  %has = arith.cmpf ogt, %r#1, %zero : !tile.tile<64xf32>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<64xi1>, !tile.tile<64xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<64xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<64xi1>, !tile.tile<64xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x256xf32>
  %onorm = arith.mulf %r#2, %lb : !tile.tile<64x256xf32>
  %scale_l = tile.splat %scale : f32 -> !tile.tile<64xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<64xf32>
  %logl = math.log %l_safe : !tile.tile<64xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<64xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<64xi1>, !tile.tile<64xf32>
  // One split: O in bf16 and LSE where the combine would put them (no
  // combine launch, no f32 partial); else the split's partials.
  %direct = arith.cmpi eq, %splits, %c1 : i32
  scf.if %direct {
    %ob = arith.truncf %onorm : !tile.tile<64x256xf32> to !tile.tile<64x256xbf16>
    %ob4 = tile.reshape %ob : !tile.tile<64x256xbf16> -> !tile.tile<1x1x64x256xbf16>
    tile.store %ob4, %out[%b, %hkr, %m0, %c0] : !tile.tile<1x1x64x256xbf16>, !tile.tensor<?x?x?x256xbf16>
    %lse3 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
    tile.store %lse3, %lse_out[%b, %hkr, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  } else {
    %o5 = tile.reshape %onorm : !tile.tile<64x256xf32> -> !tile.tile<1x1x1x64x256xf32>
    tile.store %o5, %o[%s, %b, %hkr, %m0, %c0] : !tile.tile<1x1x1x64x256xf32>, !tile.tensor<?x?x?x?x256xf32>
    %lse4 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x1x64xf32>
    tile.store %lse4, %lse[%s, %b, %hkr, %m0] : !tile.tile<1x1x1x64xf32>, !tile.tensor<?x?x?x?xf32>
  }
  return
}

func.func @decode_combine_d256(%o: !tile.tensor<?x?x?x?x256xf32>, %lse: !tile.tensor<?x?x?x?xf32>,
    %out: !tile.tensor<?x?x?x256xbf16>, %lse_out: !tile.tensor<?x?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<dim(0, 3), mul(dim(0, 1), dim(0, 2))>} {
  %c0 = arith.constant 0 : i32
  %cs = arith.constant 32 : i32
  %r = tile.program_id x
  %bh = tile.program_id y
  %hkv = tile.dim %o, 2 : !tile.tensor<?x?x?x?x256xf32>
  %b = arith.divui %bh, %hkv : i32
  %hk = arith.remui %bh, %hkv : i32
  %ns = tile.dim %o, 0 : !tile.tensor<?x?x?x?x256xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<1xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<1xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<256xf32>
  %res:3 = scf.for %s0 = %c0 to %ns step %cs
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<1xf32>, !tile.tile<1xf32>, !tile.tile<256xf32>) : i32 {
    // Splits past the last read as LSE -inf and O 0: weight 0.
    %x4 = tile.load %lse[%s0, %b, %hk, %r] {padding = 0xFF800000 : f32}
        : !tile.tensor<?x?x?x?xf32> -> !tile.tile<32x1x1x1xf32>
    %x = tile.reshape %x4 : !tile.tile<32x1x1x1xf32> -> !tile.tile<32x1xf32>
    %o5 = tile.load %o[%s0, %b, %hk, %r, %c0]
        : !tile.tensor<?x?x?x?x256xf32> -> !tile.tile<32x1x1x1x256xf32>
    %os = tile.reshape %o5 : !tile.tile<32x1x1x1x256xf32> -> !tile.tile<32x256xf32>
    %mc = tile.reduce max %x dim 0 : !tile.tile<32x1xf32> -> !tile.tile<1xf32>
    %m_new = arith.maximumf %m_i, %mc : !tile.tile<1xf32>
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<1xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<1xi1>, !tile.tile<1xf32>
    %dm = arith.subf %m_i, %m_use : !tile.tile<1xf32>
    %alpha = math.exp %dm : !tile.tile<1xf32>
    %me = tile.expand_dims %m_use axis 0 : !tile.tile<1xf32> -> !tile.tile<1x1xf32>
    %mb = tile.broadcast %me : !tile.tile<1x1xf32> -> !tile.tile<32x1xf32>
    %dx = arith.subf %x, %mb : !tile.tile<32x1xf32>
    %w = math.exp %dx : !tile.tile<32x1xf32>
    %ws = tile.reduce sum %w dim 0 : !tile.tile<32x1xf32> -> !tile.tile<1xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<1xf32>
    %l_new = arith.addf %la, %ws : !tile.tile<1xf32>
    %wb = tile.broadcast %w : !tile.tile<32x1xf32> -> !tile.tile<32x256xf32>
    %ow = arith.mulf %os, %wb : !tile.tile<32x256xf32>
    %part = tile.reduce sum %ow dim 0 : !tile.tile<32x256xf32> -> !tile.tile<256xf32>
    %ab = tile.broadcast %alpha : !tile.tile<1xf32> -> !tile.tile<256xf32>
    %acc_a = arith.mulf %acc, %ab : !tile.tile<256xf32>
    %acc_new = arith.addf %acc_a, %part : !tile.tile<256xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<1xf32>, !tile.tile<1xf32>, !tile.tile<256xf32>
  }
  %ones = arith.constant dense<1.0> : !tile.tile<1xf32>
  %has = arith.cmpf ogt, %res#1, %zero : !tile.tile<1xf32>
  %l_safe = arith.select %has, %res#1, %ones : !tile.tile<1xi1>, !tile.tile<1xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<1xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<1xi1>, !tile.tile<1xf32>
  %ib = tile.broadcast %inv : !tile.tile<1xf32> -> !tile.tile<256xf32>
  %o_f = arith.mulf %res#2, %ib : !tile.tile<256xf32>
  %o_b = arith.truncf %o_f : !tile.tile<256xf32> to !tile.tile<256xbf16>
  %o4 = tile.reshape %o_b : !tile.tile<256xbf16> -> !tile.tile<1x1x1x256xbf16>
  tile.store %o4, %out[%b, %hk, %r, %c0] : !tile.tile<1x1x1x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  %m_fin = arith.select %has, %res#0, %zero : !tile.tile<1xi1>, !tile.tile<1xf32>
  %logl = math.log %l_safe : !tile.tile<1xf32>
  %lsev0 = arith.addf %m_fin, %logl : !tile.tile<1xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<1xi1>, !tile.tile<1xf32>
  %l3 = tile.reshape %lsev : !tile.tile<1xf32> -> !tile.tile<1x1x1xf32>
  tile.store %l3, %lse_out[%b, %hk, %r] : !tile.tile<1x1x1xf32>, !tile.tensor<?x?x?xf32>
  return
}

func.func @decode_append_d256(%kn: !tile.tensor<?x?x?x256xbf16>, %vn: !tile.tensor<?x?x?x256xbf16>,
    %kc: !tile.tensor<?x?x?x256xbf16>, %vc: !tile.tensor<?x?x?x256xbf16>,
    %bt: !tile.tensor<?x?xi32>, %lens: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 1,
                tile.grid = #tile.grid<mul(dim(0, 0), dim(0, 1)), dim(0, 2)>} {
  %c0 = arith.constant 0 : i32
  %bt_id = tile.program_id x
  %h = tile.program_id y
  %sq = tile.dim %kn, 1 : !tile.tensor<?x?x?x256xbf16>
  %b = arith.divui %bt_id, %sq : i32
  %t = arith.remui %bt_id, %sq : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %first = arith.subi %len, %sq : i32
  %pos = arith.addi %first, %t : i32
  %ok = arith.cmpi sge, %pos, %c0 : i32
  scf.if %ok {
    %p = tile.dim %kc, 1 : !tile.tensor<?x?x?x256xbf16>
    %blk = arith.divui %pos, %p : i32
    %off = arith.remui %pos, %p : i32
    %page = tile.load %bt[%b, %blk] : !tile.tensor<?x?xi32> -> i32
    %k = tile.load %kn[%b, %t, %h, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x1x256xbf16>
    tile.store %k, %kc[%page, %off, %h, %c0] : !tile.tile<1x1x1x256xbf16>, !tile.tensor<?x?x?x256xbf16>
    %v = tile.load %vn[%b, %t, %h, %c0] : !tile.tensor<?x?x?x256xbf16> -> !tile.tile<1x1x1x256xbf16>
    tile.store %v, %vc[%page, %off, %h, %c0] : !tile.tile<1x1x1x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  }
  return
}
