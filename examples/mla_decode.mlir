// Multi-head latent attention decode (DeepSeek's MLA, FlashMLA's problem)
// over a paged cache, its keys cut into chunks balanced over the SMs, then
// a combine kernel that merges each sequence's chunks by their LSE:
//   O = softmax(Q Kᵀ · scale [+ causal among the new tokens]) V,  V = K[:, :512]
// One latent KV head: a cache row is 576 values, 512 latent and 64 rotary,
// and V is its latent part. q is (B, R, 576) with R = Sq · Hq rows, token
// major (row r is token r / Hq, head r % Hq: FlashMLA's (B, Sq, Hq, 576)
// viewed so); every query head reads the same keys, so 64 rows of q share
// one pass over them. kv is (num_blocks, P, 1, 576) with pages of any P
// tokens (64 in FlashMLA), block_table (B, max_blocks) names sequence b's
// pages, lens (B) its length. The new tokens are the last Sq of each
// sequence: token t sees keys 0 .. len - Sq + t (bottom-right causal).
//
// The schedule (FlashMLA's get_mla_metadata, here two small kernels on the
// device: the lengths never reach the host). Sequence b's 64-key blocks
// are cut into chunks of c blocks, c = ceil(total blocks / target) (or
// -target where target < 0: a fixed size), so the full chunks are at most
// target and each sequence adds at most one short one (the op asks for two
// waves of the SMs). Tile t of mla_decode (program id y, at most 65535;
// x is q's 64-row block, so that both blocks of a chunk run together and
// meet in L2) is row t of sched (b, first block, end block, partial slot): the full
// chunks of every sequence first, then each sequence's last, shorter chunk,
// longest first, so that the persistent walk's waves even out (its last
// waves take the short ones). Rows past the last chunk are (-1, 0, 0, -1).
// Chunk j of sequence b writes its O (normalized, f32) and LSE into
// partial slot ps[b] + j; the combine merges slots ps[b] .. ps[b] + n[b] - 1.
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
    %bt: !tile.tensor<?x?xi32>, %lens: !tile.tensor<?xi32>, %sched: !tile.tensor<?x4xi32>,
    %o: !tile.tensor<?x?x512xf32>, %lse: !tile.tensor<?x?xf32>,
    %scale: f32, %hq: i32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 1), 64), dim(4, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c512 = arith.constant 512 : i32
  %cn = arith.constant 64 : i32
  %pm = tile.program_id x
  %t = tile.program_id y
  %rr = tile.dim %q, 1 : !tile.tensor<?x?x576xbf16>
  %sq = arith.divui %rr, %hq : i32
  %m0 = arith.muli %pm, %cn : i32
  // This tile's chunk: its sequence (-1: no chunk), blocks and slot.
  %bs0 = tile.load %sched[%t, %c0] : !tile.tensor<?x4xi32> -> i32
  %kb0 = tile.load %sched[%t, %c1] : !tile.tensor<?x4xi32> -> i32
  %kb1 = tile.load %sched[%t, %c2] : !tile.tensor<?x4xi32> -> i32
  %slot = tile.load %sched[%t, %c3] : !tile.tensor<?x4xi32> -> i32
  %live = arith.cmpi sge, %bs0, %c0 : i32
  %b = arith.select %live, %bs0, %c0 : i32
  %len = tile.load %lens[%b] : !tile.tensor<?xi32> -> i32
  %page = tile.dim %kv, 1 : !tile.tensor<?x?x?x576xbf16>
  %k0 = arith.muli %kb0, %cn : i32
  %k1r = arith.muli %kb1, %cn : i32
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
  %scale_l = tile.splat %scale : f32 -> !tile.tile<64xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<64xf32>
  %logl = math.log %l_safe : !tile.tile<64xf32>
  %lsev0 = arith.addf %mnat, %logl : !tile.tile<64xf32>
  %lsev = arith.select %has, %lsev0, %ninf : !tile.tile<64xi1>, !tile.tile<64xf32>
  scf.if %live {
    %o3 = tile.reshape %out : !tile.tile<64x512xf32> -> !tile.tile<1x64x512xf32>
    tile.store %o3, %o[%slot, %m0, %c0] : !tile.tile<1x64x512xf32>, !tile.tensor<?x?x512xf32>
    %lse2 = tile.reshape %lsev : !tile.tile<64xf32> -> !tile.tile<1x64xf32>
    tile.store %lse2, %lse[%slot, %m0] : !tile.tile<1x64xf32>, !tile.tensor<?x?xf32>
  }
  return
}

// Each sequence's chunks merged: O = Σ_s exp(lse_s - M) O_s / Σ_s exp(lse_s - M)
// with M = max_s lse_s, LSE = M + ln Σ_s exp(lse_s - M); a sequence without
// chunks (length 0) gets O = 0 and LSE = -inf. Sequence b's partials are
// slots info[b, 3] .. + info[b, 4] - 1 of o (slots, R, 512) and lse (slots,
// R). One program merges 4 rows, slot by slot in order (the same result
// every run; 8 slots at a time, masked, reduced across warps through
// shared memory, took 5x as long: most sequences have 1-3 chunks). out
// (B, R, 512) bf16 is FlashMLA's (B, Sq, Hq,
// 512); lse_out (B, Hq, Sq) is written at [b, r % Hq, r / Hq] (Hq a
// multiple of 4: a program's rows are 4 heads of one token).
func.func @mla_combine(%o: !tile.tensor<?x?x512xf32>, %lse: !tile.tensor<?x?xf32>,
    %info: !tile.tensor<?x8xi32>, %out: !tile.tensor<?x?x512xbf16>,
    %lse_out: !tile.tensor<?x?x?xf32>, %hq: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(3, 1), 4), dim(3, 0)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %pr = tile.program_id x
  %b = tile.program_id y
  %r0 = arith.muli %pr, %c4 : i32
  %first = tile.load %info[%b, %c3] : !tile.tensor<?x8xi32> -> i32
  %n = tile.load %info[%b, %c4] : !tile.tensor<?x8xi32> -> i32
  %end = arith.addi %first, %n : i32
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<4xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<4xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<4x512xf32>
  %res:3 = scf.for %sl = %first to %end step %c1
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<4xf32>, !tile.tile<4xf32>, !tile.tile<4x512xf32>) : i32 {
    %x2 = tile.load %lse[%sl, %r0] : !tile.tensor<?x?xf32> -> !tile.tile<1x4xf32>
    %x = tile.reshape %x2 : !tile.tile<1x4xf32> -> !tile.tile<4xf32>
    %o3 = tile.load %o[%sl, %r0, %c0] : !tile.tensor<?x?x512xf32> -> !tile.tile<1x4x512xf32>
    %os = tile.reshape %o3 : !tile.tile<1x4x512xf32> -> !tile.tile<4x512xf32>
    %m_new = arith.maximumf %m_i, %x : !tile.tile<4xf32>
    %empty = arith.cmpf oeq, %m_new, %ninf : !tile.tile<4xf32>
    %m_use = arith.select %empty, %zero, %m_new : !tile.tile<4xi1>, !tile.tile<4xf32>
    %dm = arith.subf %m_i, %m_use : !tile.tile<4xf32>
    %alpha = math.exp %dm : !tile.tile<4xf32>
    %dx = arith.subf %x, %m_use : !tile.tile<4xf32>
    %w = math.exp %dx : !tile.tile<4xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<4xf32>
    %l_new = arith.addf %la, %w : !tile.tile<4xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<4xf32> -> !tile.tile<4x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<4x1xf32> -> !tile.tile<4x512xf32>
    %we = tile.expand_dims %w axis 1 : !tile.tile<4xf32> -> !tile.tile<4x1xf32>
    %wb = tile.broadcast %we : !tile.tile<4x1xf32> -> !tile.tile<4x512xf32>
    %acc_a = arith.mulf %acc, %ab : !tile.tile<4x512xf32>
    %ow = arith.mulf %os, %wb : !tile.tile<4x512xf32>
    %acc_new = arith.addf %acc_a, %ow : !tile.tile<4x512xf32>
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

// The schedule, part 1: row b of info (B, 8) for sequence b, in columns
//   0 cf   its first full chunk's row of sched (full chunks before it)
//   1 F    its full chunks (blocks / c)
//   2 pt   its short last chunk's row of sched (-1 where it has none):
//          after every full chunk, the longer ones first (ties: lower b)
//   3 ps   its first partial slot (chunks before it)
//   4 n    its chunks (F, and 1 for the short one)
//   5 c    the chunk size in blocks (every row)
//   6 nb   its 64-key blocks
//   7      (not written)
// c = ceil(total blocks / target) for target > 0, else -target. Program x
// fills 128 rows, against every sequence in chunks of 128 (the total
// first).
func.func @mla_schedule_seqs(%lens: !tile.tensor<?xi32>, %info: !tile.tensor<?x8xi32>,
    %target: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c128 = arith.constant 128 : i32
  %px = tile.program_id x
  %nseq = tile.dim %lens, 0 : !tile.tensor<?xi32>
  %b0 = arith.muli %px, %c128 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %c63 = arith.constant dense<63> : !tile.tile<128xi32>
  %c6t = arith.constant dense<6> : !tile.tile<128xi32>
  %zero = arith.constant dense<0> : !tile.tile<128xi32>
  %one = arith.constant dense<1> : !tile.tile<128xi32>
  %zero2 = arith.constant dense<0> : !tile.tile<128x128xi32>
  %one2 = arith.constant dense<1> : !tile.tile<128x128xi32>
  // The total blocks (lengths past the last sequence read as 0).
  %tot = scf.for %cc = %c0 to %nseq step %c128 iter_args(%a = %zero) -> (!tile.tile<128xi32>) : i32 {
    %l = tile.load %lens[%cc] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %l63 = arith.addi %l, %c63 : !tile.tile<128xi32>
    %nb = arith.shrsi %l63, %c6t : !tile.tile<128xi32>
    %a2 = arith.addi %a, %nb : !tile.tile<128xi32>
    scf.yield %a2 : !tile.tile<128xi32>
  }
  %total = tile.reduce sum %tot dim 0 : !tile.tile<128xi32> -> i32
  %auto = arith.cmpi sgt, %target, %c0 : i32
  %tg = arith.maxsi %target, %c1 : i32
  %tm1 = arith.subi %tg, %c1 : i32
  %tp = arith.addi %total, %tm1 : i32
  %ca = arith.divui %tp, %tg : i32
  %cfix = arith.subi %c0, %target : i32
  %cs0 = arith.select %auto, %ca, %cfix : i32
  %c = arith.maxsi %cs0, %c1 : i32
  %ct = tile.splat %c : i32 -> !tile.tile<128xi32>
  // This program's sequences.
  %b0t = tile.splat %b0 : i32 -> !tile.tile<128xi32>
  %bi = arith.addi %iota, %b0t : !tile.tile<128xi32>
  %lb = tile.load %lens[%b0] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %lb63 = arith.addi %lb, %c63 : !tile.tile<128xi32>
  %nbb = arith.shrsi %lb63, %c6t : !tile.tile<128xi32>
  %fb = arith.divui %nbb, %ct : !tile.tile<128xi32>
  %rb = arith.remui %nbb, %ct : !tile.tile<128xi32>
  %hasr = arith.cmpi sgt, %rb, %zero : !tile.tile<128xi32>
  %hb = arith.select %hasr, %one, %zero : !tile.tile<128xi1>, !tile.tile<128xi32>
  %bi2 = tile.expand_dims %bi axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %bib = tile.broadcast %bi2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %rb2 = tile.expand_dims %rb axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %rbb = tile.broadcast %rb2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  // Against every sequence: full chunks and chunks before b, short chunks
  // ranked before b's, full chunks in all.
  %acc:4 = scf.for %cc = %c0 to %nseq step %c128
      iter_args(%cf = %zero, %ps = %zero, %rk = %zero, %nf = %zero)
      -> (!tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>) : i32 {
    %cct = tile.splat %cc : i32 -> !tile.tile<128xi32>
    %ci = arith.addi %iota, %cct : !tile.tile<128xi32>
    %l = tile.load %lens[%cc] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
    %l63 = arith.addi %l, %c63 : !tile.tile<128xi32>
    %nb = arith.shrsi %l63, %c6t : !tile.tile<128xi32>
    %f = arith.divui %nb, %ct : !tile.tile<128xi32>
    %r = arith.remui %nb, %ct : !tile.tile<128xi32>
    %hr = arith.cmpi sgt, %r, %zero : !tile.tile<128xi32>
    %h = arith.select %hr, %one, %zero : !tile.tile<128xi1>, !tile.tile<128xi32>
    %fh = arith.addi %f, %h : !tile.tile<128xi32>
    %ci2 = tile.expand_dims %ci axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %cib = tile.broadcast %ci2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %f2 = tile.expand_dims %f axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %fbb = tile.broadcast %f2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %fh2 = tile.expand_dims %fh axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %fhb = tile.broadcast %fh2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %r2 = tile.expand_dims %r axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %rcb = tile.broadcast %r2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %hr2 = tile.expand_dims %hr axis 0 : !tile.tile<128xi1> -> !tile.tile<1x128xi1>
    %hrb = tile.broadcast %hr2 : !tile.tile<1x128xi1> -> !tile.tile<128x128xi1>
    %earlier = arith.cmpi slt, %cib, %bib : !tile.tile<128x128xi32>
    %fe = arith.select %earlier, %fbb, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %fhe = arith.select %earlier, %fhb, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %longer = arith.cmpi sgt, %rcb, %rbb : !tile.tile<128x128xi32>
    %same = arith.cmpi eq, %rcb, %rbb : !tile.tile<128x128xi32>
    %tie = arith.andi %same, %earlier : !tile.tile<128x128xi1>
    %before0 = arith.ori %longer, %tie : !tile.tile<128x128xi1>
    %before = arith.andi %before0, %hrb : !tile.tile<128x128xi1>
    %re = arith.select %before, %one2, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %dcf = tile.reduce sum %fe dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %dps = tile.reduce sum %fhe dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %drk = tile.reduce sum %re dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %cf2 = arith.addi %cf, %dcf : !tile.tile<128xi32>
    %ps2 = arith.addi %ps, %dps : !tile.tile<128xi32>
    %rk2 = arith.addi %rk, %drk : !tile.tile<128xi32>
    %nf2 = arith.addi %nf, %f : !tile.tile<128xi32>
    scf.yield %cf2, %ps2, %rk2, %nf2 : !tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>
  }
  %nfull = tile.reduce sum %acc#3 dim 0 : !tile.tile<128xi32> -> i32
  %nft = tile.splat %nfull : i32 -> !tile.tile<128xi32>
  %ptr = arith.addi %acc#2, %nft : !tile.tile<128xi32>
  %none = arith.constant dense<-1> : !tile.tile<128xi32>
  %pt = arith.select %hasr, %ptr, %none : !tile.tile<128xi1>, !tile.tile<128xi32>
  %n = arith.addi %fb, %hb : !tile.tile<128xi32>
  %nseq_t = tile.splat %nseq : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %bi, %nseq_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %v0 = tile.expand_dims %acc#0 axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v1 = tile.expand_dims %fb axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v2 = tile.expand_dims %pt axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v3 = tile.expand_dims %acc#1 axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v4 = tile.expand_dims %n axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v5 = tile.expand_dims %ct axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v6 = tile.expand_dims %nbb axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  tile.store %v0, %info[%b0, %c0] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  tile.store %v1, %info[%b0, %c1] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  tile.store %v2, %info[%b0, %c2] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  tile.store %v3, %info[%b0, %c3] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  tile.store %v4, %info[%b0, %c4] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  tile.store %v5, %info[%b0, %c5] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  tile.store %v6, %info[%b0, %c6] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x8xi32>
  return
}

// The schedule, part 2: row t of sched (T, 4) is the chunk tile t of
// mla_decode takes, (b, first block, end block, partial slot): a full
// chunk of sequence b where cf[b] <= t < cf[b] + F[b] (the (t - cf[b])-th,
// slot ps[b] + t - cf[b]), its short chunk where t = pt[b] (blocks F[b] · c
// to nb[b], slot ps[b] + F[b]); (-1, 0, 0, -1) where none. Program x fills
// 128 rows, against every sequence in chunks of 128.
func.func @mla_schedule_tiles(%info: !tile.tensor<?x8xi32>, %sched: !tile.tensor<?x4xi32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c128 = arith.constant 128 : i32
  %px = tile.program_id x
  %nseq = tile.dim %info, 0 : !tile.tensor<?x8xi32>
  %nrows = tile.dim %sched, 0 : !tile.tensor<?x4xi32>
  %t0 = arith.muli %px, %c128 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %t0t = tile.splat %t0 : i32 -> !tile.tile<128xi32>
  %ts = arith.addi %iota, %t0t : !tile.tile<128xi32>
  %ts2 = tile.expand_dims %ts axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %tsb = tile.broadcast %ts2 : !tile.tile<128x1xi32> -> !tile.tile<128x128xi32>
  %zero = arith.constant dense<0> : !tile.tile<128xi32>
  %zero2 = arith.constant dense<0> : !tile.tile<128x128xi32>
  %one2 = arith.constant dense<1> : !tile.tile<128x128xi32>
  %r:4 = scf.for %bb = %c0 to %nseq step %c128
      iter_args(%sb = %zero, %sk0 = %zero, %sk1 = %zero, %ss = %zero)
      -> (!tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>) : i32 {
    %bbt = tile.splat %bb : i32 -> !tile.tile<128xi32>
    %bi = arith.addi %iota, %bbt : !tile.tile<128xi32>
    %cf1 = tile.load %info[%bb, %c0] : !tile.tensor<?x8xi32> -> !tile.tile<128x1xi32>
    %f1 = tile.load %info[%bb, %c1] : !tile.tensor<?x8xi32> -> !tile.tile<128x1xi32>
    %pt1 = tile.load %info[%bb, %c2] : !tile.tensor<?x8xi32> -> !tile.tile<128x1xi32>
    %ps1 = tile.load %info[%bb, %c3] : !tile.tensor<?x8xi32> -> !tile.tile<128x1xi32>
    %c_1 = tile.load %info[%bb, %c5] : !tile.tensor<?x8xi32> -> !tile.tile<128x1xi32>
    %nb1 = tile.load %info[%bb, %c6] : !tile.tensor<?x8xi32> -> !tile.tile<128x1xi32>
    %cf = tile.reshape %cf1 : !tile.tile<128x1xi32> -> !tile.tile<1x128xi32>
    %f = tile.reshape %f1 : !tile.tile<128x1xi32> -> !tile.tile<1x128xi32>
    %pt = tile.reshape %pt1 : !tile.tile<128x1xi32> -> !tile.tile<1x128xi32>
    %ps = tile.reshape %ps1 : !tile.tile<128x1xi32> -> !tile.tile<1x128xi32>
    %cc = tile.reshape %c_1 : !tile.tile<128x1xi32> -> !tile.tile<1x128xi32>
    %nb = tile.reshape %nb1 : !tile.tile<128x1xi32> -> !tile.tile<1x128xi32>
    %cfb = tile.broadcast %cf : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %fb = tile.broadcast %f : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %ptb = tile.broadcast %pt : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %psb = tile.broadcast %ps : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %cb = tile.broadcast %cc : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %nbb = tile.broadcast %nb : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %bi2 = tile.expand_dims %bi axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %bib = tile.broadcast %bi2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
    %nseqb = tile.splat %nseq : i32 -> !tile.tile<128x128xi32>
    %real = arith.cmpi slt, %bib, %nseqb : !tile.tile<128x128xi32>
    // A full chunk: the j-th of b, j = t - cf[b] in [0, F[b]).
    %j = arith.subi %tsb, %cfb : !tile.tile<128x128xi32>
    %jge = arith.cmpi sge, %j, %zero2 : !tile.tile<128x128xi32>
    %jlt = arith.cmpi slt, %j, %fb : !tile.tile<128x128xi32>
    %full0 = arith.andi %jge, %jlt : !tile.tile<128x128xi1>
    %full = arith.andi %full0, %real : !tile.tile<128x128xi1>
    %short0 = arith.cmpi eq, %tsb, %ptb : !tile.tile<128x128xi32>
    %short = arith.andi %short0, %real : !tile.tile<128x128xi1>
    %hit = arith.ori %full, %short : !tile.tile<128x128xi1>
    %b1 = arith.addi %bib, %one2 : !tile.tile<128x128xi32>
    %vb = arith.select %hit, %b1, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %jc = arith.muli %j, %cb : !tile.tile<128x128xi32>
    %jc1 = arith.addi %jc, %cb : !tile.tile<128x128xi32>
    %fc = arith.muli %fb, %cb : !tile.tile<128x128xi32>
    %psj = arith.addi %psb, %j : !tile.tile<128x128xi32>
    %psf = arith.addi %psb, %fb : !tile.tile<128x128xi32>
    %k0s = arith.select %short, %fc, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %k0v = arith.select %full, %jc, %k0s : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %k1s = arith.select %short, %nbb, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %k1v = arith.select %full, %jc1, %k1s : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %sls = arith.select %short, %psf, %zero2 : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %slv = arith.select %full, %psj, %sls : !tile.tile<128x128xi1>, !tile.tile<128x128xi32>
    %db = tile.reduce sum %vb dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %dk0 = tile.reduce sum %k0v dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %dk1 = tile.reduce sum %k1v dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %dsl = tile.reduce sum %slv dim 1 : !tile.tile<128x128xi32> -> !tile.tile<128xi32>
    %sb2 = arith.addi %sb, %db : !tile.tile<128xi32>
    %sk02 = arith.addi %sk0, %dk0 : !tile.tile<128xi32>
    %sk12 = arith.addi %sk1, %dk1 : !tile.tile<128xi32>
    %ss2 = arith.addi %ss, %dsl : !tile.tile<128xi32>
    scf.yield %sb2, %sk02, %sk12, %ss2 : !tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>, !tile.tile<128xi32>
  }
  // (b + 1 summed: 0 where no chunk, so b = -1 there; its slot -1 too.)
  %one = arith.constant dense<1> : !tile.tile<128xi32>
  %bs = arith.subi %r#0, %one : !tile.tile<128xi32>
  %some = arith.cmpi sgt, %r#0, %zero : !tile.tile<128xi32>
  %none = arith.constant dense<-1> : !tile.tile<128xi32>
  %slot = arith.select %some, %r#3, %none : !tile.tile<128xi1>, !tile.tile<128xi32>
  %nrows_t = tile.splat %nrows : i32 -> !tile.tile<128xi32>
  %mine = arith.cmpi slt, %ts, %nrows_t : !tile.tile<128xi32>
  %mine2 = tile.expand_dims %mine axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %v0 = tile.expand_dims %bs axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v1 = tile.expand_dims %r#1 axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v2 = tile.expand_dims %r#2 axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %v3 = tile.expand_dims %slot axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  tile.store %v0, %sched[%t0, %c0] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  tile.store %v1, %sched[%t0, %c1] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  tile.store %v2, %sched[%t0, %c2] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  tile.store %v3, %sched[%t0, %c3] mask(%mine2 : !tile.tile<128x1xi1>) : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  return
}
