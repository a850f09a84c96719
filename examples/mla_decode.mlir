// Multi-head latent attention decode (DeepSeek's MLA, FlashMLA's problem)
// over a paged cache, split along the keys, then a combine kernel that
// merges the splits by their LSE:
//   O = softmax(Q Kᵀ · scale [+ causal among the new tokens]) V,  V = K[:, :512]
// One latent KV head: a cache row is 576 values, 512 latent and 64 rotary,
// and V is its latent part. q is (B, R, 576) with R = Sq · Hq rows, token
// major (row r is token r / Hq, head r % Hq: FlashMLA's (B, Sq, Hq, 576)
// viewed so); every query head reads the same keys, so 64 rows of q share
// one pass over them. kv is (num_blocks, P, 1, 576) with pages of any P
// tokens (64 in FlashMLA), block_table (B, max_blocks) names sequence b's
// pages, lens (B) its length. The new tokens are the last Sq of each
// sequence: token t sees keys 0 .. len - Sq + t (bottom-right causal).
// Program z of `splits` takes a contiguous share of the sequence's 64-key
// blocks and writes its O (normalized, f32) and LSE into partials
// (splits, B, R, 512) and (splits, B, R); an empty share writes O = 0 and
// LSE = -inf.
//
// S = Q·Kᵀ is two dots, the 512 latent columns and the 64 rotary ones,
// each a gather of the page's rows through the block table; P·V reads the
// latent gather's slot again, MN-major (one copy of K serves both). On
// sm_90a the loop runs warp-specialized: the load partition gathers both
// slots (TMA boxes of 16 keys where a run of keys is one page, cp.async
// otherwise, zero where a key is past the sequence), two stages of 72 KB;
// Q is copied once (its 512 + 64 columns in boxes of 64). The 64x512 f32
// accumulator does not fit one warpgroup's registers, so two consumer
// warpgroups split every dot by N: S as two m64n32, O as two m64n256 that
// read P through shared memory (FlashMLA's split of the value dim); the
// row max and sum cross between them through shared memory.

func.func @mla_decode(%q: !tile.tensor<?x?x576xbf16>, %kv: !tile.tensor<?x?x?x576xbf16>,
    %bt: !tile.tensor<?x?xi32>, %lens: !tile.tensor<?xi32>,
    %o: !tile.tensor<?x?x?x512xf32>, %lse: !tile.tensor<?x?x?xf32>,
    %scale: f32, %hq: i32, %causal: i32, %splits: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 1), 64), dim(0, 0), arg(9)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c512 = arith.constant 512 : i32
  %cn = arith.constant 64 : i32
  %cn1 = arith.constant 63 : i32
  %pm = tile.program_id x
  %b = tile.program_id y
  %s = tile.program_id z
  %rr = tile.dim %q, 1 : !tile.tensor<?x?x576xbf16>
  %sq = arith.divui %rr, %hq : i32
  %m0 = arith.muli %pm, %cn : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %page = tile.dim %kv, 1 : !tile.tensor<?x?x?x576xbf16>
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
  %qn3 = tile.load %q[%b, %m0, %c0] : !tile.tensor<?x?x576xbf16> -> !tile.tile<1x64x512xbf16>
  %qn = tile.reshape %qn3 : !tile.tile<1x64x512xbf16> -> !tile.tile<64x512xbf16>
  %qr3 = tile.load %q[%b, %m0, %c512] : !tile.tensor<?x?x576xbf16> -> !tile.tile<1x64x64xbf16>
  %qr = tile.reshape %qr3 : !tile.tile<1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<64x64xf32>
  %scale_r = tile.splat %scale2 : f32 -> !tile.tile<64xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<64xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x512xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x64xf32>
  %riota = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %rows = arith.addi %riota, %m0t : !tile.tile<64xi32>
  %grp = tile.splat %hq : i32 -> !tile.tile<64xi32>
  // Row r (token r / Hq) sees keys below lim[r] = len - Sq + t + 1, t its
  // token where causal, else Sq - 1 (every key).
  %tok0 = arith.divui %rows, %grp : !tile.tile<64xi32>
  %last = arith.subi %sq, %c1 : i32
  %lastt = tile.splat %last : i32 -> !tile.tile<64xi32>
  %isc = arith.cmpi ne, %causal, %c0 : i32
  %tok = arith.select %isc, %tok0, %lastt : !tile.tile<64xi32>
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
  %hz = arith.constant dense<0> : !tile.tile<64x512xi32>
  %hzr = arith.constant dense<0> : !tile.tile<64x64xi32>
  %diota = tile.iota : !tile.tile<512xi32>
  %d2 = tile.expand_dims %diota axis 0 : !tile.tile<512xi32> -> !tile.tile<1x512xi32>
  %cols = tile.broadcast %d2 : !tile.tile<1x512xi32> -> !tile.tile<64x512xi32>
  %riota2 = tile.iota : !tile.tile<64xi32>
  %c512t = tile.splat %c512 : i32 -> !tile.tile<64xi32>
  %rcol = arith.addi %riota2, %c512t : !tile.tile<64xi32>
  %rc2 = tile.expand_dims %rcol axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %rcols = tile.broadcast %rc2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
  // Keys n0 .. n0 + 63: their pages from the table, rows page · P + key % P,
  // the latent columns (K and V) and the rotary ones (K).
  %r:3 = scf.for %n0 = %k0 to %k1 step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x512xf32>) : i32 {
    %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
    %keys = arith.addi %kiota, %n0t : !tile.tile<64xi32>
    %inb = arith.cmpi slt, %keys, %lens_t : !tile.tile<64xi32>
    %blk = arith.divui %keys, %pages : !tile.tile<64xi32>
    %off = arith.remui %keys, %pages : !tile.tile<64xi32>
    %pg = tile.gather %bt[%bs, %blk] mask(%inb : !tile.tile<64xi1>)
        : !tile.tensor<?x?xi32>, !tile.tile<64xi32>, !tile.tile<64xi32> -> !tile.tile<64xi32>
    %pg2 = tile.expand_dims %pg axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %pgb = tile.broadcast %pg2 : !tile.tile<64x1xi32> -> !tile.tile<64x512xi32>
    %off2 = tile.expand_dims %off axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
    %offb = tile.broadcast %off2 : !tile.tile<64x1xi32> -> !tile.tile<64x512xi32>
    %inb2 = tile.expand_dims %inb axis 1 : !tile.tile<64xi1> -> !tile.tile<64x1xi1>
    %inbb = tile.broadcast %inb2 : !tile.tile<64x1xi1> -> !tile.tile<64x512xi1>
    %kn = tile.gather %kv[%pgb, %offb, %hz, %cols] mask(%inbb : !tile.tile<64x512xi1>)
        : !tile.tensor<?x?x?x576xbf16>, !tile.tile<64x512xi32>, !tile.tile<64x512xi32>,
          !tile.tile<64x512xi32>, !tile.tile<64x512xi32> -> !tile.tile<64x512xbf16>
    %pgr = tile.broadcast %pg2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
    %offr = tile.broadcast %off2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
    %inbr = tile.broadcast %inb2 : !tile.tile<64x1xi1> -> !tile.tile<64x64xi1>
    %kr = tile.gather %kv[%pgr, %offr, %hzr, %rcols] mask(%inbr : !tile.tile<64x64xi1>)
        : !tile.tensor<?x?x?x576xbf16>, !tile.tile<64x64xi32>, !tile.tile<64x64xi32>,
          !tile.tile<64x64xi32>, !tile.tile<64x64xi32> -> !tile.tile<64x64xbf16>
    %knt = tile.transpose %kn [1, 0] : !tile.tile<64x512xbf16> -> !tile.tile<512x64xbf16>
    %krt = tile.transpose %kr [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %qk0 = tile.dot %qn, %knt, %zs : !tile.tile<64x512xbf16>, !tile.tile<512x64xbf16> -> !tile.tile<64x64xf32>
    %qk = tile.dot %qr, %krt, %qk0 : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
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
    %ab = tile.broadcast %ae : !tile.tile<64x1xf32> -> !tile.tile<64x512xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<64x512xf32>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %acc_new = tile.dot %pb, %kn, %acc_s : !tile.tile<64x64xbf16>, !tile.tile<64x512xbf16> -> !tile.tile<64x512xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x512xf32>
  }
  // O = acc / l (0 where the share had no key), LSE = m · scale + ln l.
  %ones = arith.constant dense<1.0> : !tile.tile<64xf32>
  %has = arith.cmpf ogt, %r#1, %zero : !tile.tile<64xf32>
  %l_safe = arith.select %has, %r#1, %ones : !tile.tile<64xi1>, !tile.tile<64xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<64xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<64xi1>, !tile.tile<64xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x512xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<64x512xf32>
  %o4 = tile.reshape %out : !tile.tile<64x512xf32> -> !tile.tile<1x1x64x512xf32>
  tile.store %o4, %o[%s, %b, %m0, %c0] : !tile.tile<1x1x64x512xf32>, !tile.tensor<?x?x?x512xf32>
  %scale_l = tile.splat %scale : f32 -> !tile.tile<64xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<64xf32>
  %logl = math.log %l_safe : !tile.tile<64xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<64xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<64xi1>, !tile.tile<64xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x1x64xf32>
  tile.store %lse3, %lse[%s, %b, %m0] : !tile.tile<1x1x64xf32>, !tile.tensor<?x?x?xf32>
  return
}

// The splits merged: O = Σ_s exp(lse_s - M) O_s / Σ_s exp(lse_s - M) with
// M = max_s lse_s, LSE = M + ln Σ_s exp(lse_s - M); rows whose splits are
// all empty get O = 0 and LSE = -inf. One program merges 4 rows, their
// splits 8 at a time as one (8, 4, 512) tile, in order (the same result
// every run; a program a row took 300 us for 32768 rows of 2 splits).
// out (B, R, 512) bf16 is FlashMLA's (B, Sq, Hq, 512); lse_out (B, Hq, Sq)
// is written at [b, r % Hq, r / Hq] (Hq a multiple of 4: a program's rows
// are 4 heads of one token).
func.func @mla_combine(%o: !tile.tensor<?x?x?x512xf32>, %lse: !tile.tensor<?x?x?xf32>,
    %out: !tile.tensor<?x?x512xbf16>, %lse_out: !tile.tensor<?x?x?xf32>, %hq: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 4), dim(0, 1)>} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %cs = arith.constant 8 : i32
  %pr = tile.program_id x
  %b = tile.program_id y
  %r0 = arith.muli %pr, %c4 : i32
  %ns = tile.dim %o, 0 : !tile.tensor<?x?x?x512xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<4xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<4xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<4x512xf32>
  %res:3 = scf.for %s0 = %c0 to %ns step %cs
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<4xf32>, !tile.tile<4xf32>, !tile.tile<4x512xf32>) : i32 {
    // Splits past the last read as LSE -inf and O 0: weight 0.
    %x3 = tile.load %lse[%s0, %b, %r0] {padding = 0xFF800000 : f32}
        : !tile.tensor<?x?x?xf32> -> !tile.tile<8x1x4xf32>
    %x = tile.reshape %x3 : !tile.tile<8x1x4xf32> -> !tile.tile<8x4xf32>
    %o4 = tile.load %o[%s0, %b, %r0, %c0]
        : !tile.tensor<?x?x?x512xf32> -> !tile.tile<8x1x4x512xf32>
    %os = tile.reshape %o4 : !tile.tile<8x1x4x512xf32> -> !tile.tile<8x4x512xf32>
    %mc = tile.reduce max %x dim 0 : !tile.tile<8x4xf32> -> !tile.tile<4xf32>
    %m_new = arith.maximumf %m_i, %mc : !tile.tile<4xf32>
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<4xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<4xi1>, !tile.tile<4xf32>
    %dm = arith.subf %m_i, %m_use : !tile.tile<4xf32>
    %alpha = math.exp %dm : !tile.tile<4xf32>
    %me = tile.expand_dims %m_use axis 0 : !tile.tile<4xf32> -> !tile.tile<1x4xf32>
    %mb = tile.broadcast %me : !tile.tile<1x4xf32> -> !tile.tile<8x4xf32>
    %dx = arith.subf %x, %mb : !tile.tile<8x4xf32>
    %w = math.exp %dx : !tile.tile<8x4xf32>
    %ws = tile.reduce sum %w dim 0 : !tile.tile<8x4xf32> -> !tile.tile<4xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<4xf32>
    %l_new = arith.addf %la, %ws : !tile.tile<4xf32>
    %w3 = tile.expand_dims %w axis 2 : !tile.tile<8x4xf32> -> !tile.tile<8x4x1xf32>
    %wb = tile.broadcast %w3 : !tile.tile<8x4x1xf32> -> !tile.tile<8x4x512xf32>
    %ow = arith.mulf %os, %wb : !tile.tile<8x4x512xf32>
    %part = tile.reduce sum %ow dim 0 : !tile.tile<8x4x512xf32> -> !tile.tile<4x512xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<4xf32> -> !tile.tile<4x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<4x1xf32> -> !tile.tile<4x512xf32>
    %acc_a = arith.mulf %acc, %ab : !tile.tile<4x512xf32>
    %acc_new = arith.addf %acc_a, %part : !tile.tile<4x512xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<4xf32>, !tile.tile<4xf32>, !tile.tile<4x512xf32>
  }
  %ones = arith.constant dense<1.0> : !tile.tile<4xf32>
  %has = arith.cmpf ogt, %res#1, %zero : !tile.tile<4xf32>
  %l_safe = arith.select %has, %res#1, %ones : !tile.tile<4xi1>, !tile.tile<4xf32>
  %inv0 = arith.divf %ones, %l_safe : !tile.tile<4xf32>
  %inv = arith.select %has, %inv0, %zero : !tile.tile<4xi1>, !tile.tile<4xf32>
  %ie = tile.expand_dims %inv axis 1 : !tile.tile<4xf32> -> !tile.tile<4x1xf32>
  %ib = tile.broadcast %ie : !tile.tile<4x1xf32> -> !tile.tile<4x512xf32>
  %o_f = arith.mulf %res#2, %ib : !tile.tile<4x512xf32>
  %o_b = arith.truncf %o_f : !tile.tile<4x512xf32> to !tile.tile<4x512xbf16>
  %o3 = tile.reshape %o_b : !tile.tile<4x512xbf16> -> !tile.tile<1x4x512xbf16>
  tile.store %o3, %out[%b, %r0, %c0] : !tile.tile<1x4x512xbf16>, !tile.tensor<?x?x512xbf16>
  %m_fin = arith.select %has, %res#0, %zero : !tile.tile<4xi1>, !tile.tile<4xf32>
  %logl = math.log %l_safe : !tile.tile<4xf32>
  %lsev0 = arith.addf %m_fin, %logl : !tile.tile<4xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<4xi1>, !tile.tile<4xf32>
  %t = arith.divui %r0, %hq : i32
  %h = arith.remui %r0, %hq : i32
  %l3 = tile.reshape %lsev : !tile.tile<4xf32> -> !tile.tile<1x4x1xf32>
  tile.store %l3, %lse_out[%b, %h, %t] : !tile.tile<1x4x1xf32>, !tile.tensor<?x?x?xf32>
  return
}
