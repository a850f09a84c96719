// FP8 attention forward (e4m3 Q, K, V; bf16 O; f32 LSE), FlashAttention-3's
// recipe:
//   O = softmax(Q Kᵀ · scale · dq · dk [+ causal mask]) V · dv
//   LSE = log Σ exp(Q Kᵀ · scale · dq · dk)
// with per-(batch, head) descale factors dq (B, Hq), dk and dv (B, Hkv)
// (the factors the quantization divided by). Q and O are (B, Hq, S, D)
// views, K (B, Hkv, Skv, D); V comes K-major, as Vᵀ (B, Hkv, D, Skv'),
// Skv' Skv rounded up to 16 and the keys of each 16 in the order below:
// fp8 wgmma reads K-major operands only, and P·V's K is the keys.
//
// P in registers as fp8 wgmma's A. Q·Kᵀ's accumulator gives a thread
// the keys 8j + 2t + {0, 1} of each 32 (t its lane mod 4, j = 0..3);
// wgmma's 8-bit register A wants 4t + {0..3} and 16 + 4t + {0..3}. The
// program renames the keys instead of moving P: key bits (k3 k2 k1 k0) of
// P's columns become (k2 k1 k3 k0) (the reshape and transpose before P·V),
// which is the register-A layout with no data moved (the layout algebra
// says so: tile-select-mma-and-tma reads A from registers only where the
// conversion is a permutation of a thread's registers); Vᵀ's keys come in
// the same order (transpose_v_fp8_d{64,128,256} at the end of this file
// write Vᵀ so from V, as tilec.ops.attention_fp8 does before the kernel),
// and P·V sums the same products.
//
// exp2 is taken 8 above the row's maximum (P in [0, 256], more of e4m3's
// range); l carries the same factor, which O = acc / l cancels and LSE
// subtracts (8 ln 2). One program per 128 queries of one (batch, head),
// the last query block first; 128 keys a step. Otherwise as
// examples/attention.mlir: any lengths, GQA, `causal` != 0 lets query i
// see keys 0..i, only the blocks a row's limit cuts into are masked.

func.func @attention_fp8_d64(%q: !tile.tensor<?x?x?x64xf8E4M3FN>, %k: !tile.tensor<?x?x?x64xf8E4M3FN>,
    %vt: !tile.tensor<?x?x64x?xf8E4M3FN>, %o: !tile.tensor<?x?x?x64xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %dq: !tile.tensor<?x?xf32>, %dk: !tile.tensor<?x?xf32>,
    %dv: !tile.tensor<?x?xf32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %cn = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %nm = arith.ceildivsi %sq, %cm : i32
  %last = arith.subi %nm, %c1 : i32
  %pm = arith.subi %last, %px : i32
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xf8E4M3FN> -> !tile.tile<1x1x128x64xf8E4M3FN>
  %qt = tile.reshape %q4 : !tile.tile<1x1x128x64xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
  // The descales: Q·Kᵀ's into the softmax's scale, V's into 1 / l.
  %sq_ = tile.load %dq[%b, %h] : !tile.tensor<?x?xf32> -> f32
  %sk_ = tile.load %dk[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sv_ = tile.load %dv[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sqk = arith.mulf %sq_, %sk_ : f32
  %scale_qk = arith.mulf %scale, %sqk : f32
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale_qk, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  %eight = arith.constant dense<8.0> : !tile.tile<128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
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
  %m01 = arith.addi %m0, %c1 : i32
  %clo = arith.minsi %m01, %skv : i32
  %lim_lo = arith.select %is_causal, %clo, %skv : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>) : i32 {
    %k4 = tile.load %k[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x64xf8E4M3FN> -> !tile.tile<1x1x128x64xf8E4M3FN>
    %kt = tile.reshape %k4 : !tile.tile<1x1x128x64xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xf8E4M3FN> -> !tile.tile<64x128xf8E4M3FN>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x64xf8E4M3FN>, !tile.tile<64x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
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
    // exp2(x - (max - 8)): P in [0, 256].
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %ms8 = arith.subf %ms, %eight : !tile.tile<128xf32>
    %me = tile.expand_dims %ms8 axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
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
    %v4 = tile.load %vt[%b, %hk, %c0, %n0] : !tile.tensor<?x?x64x?xf8E4M3FN> -> !tile.tile<1x1x64x128xf8E4M3FN>
    %vk = tile.reshape %v4 : !tile.tile<1x1x64x128xf8E4M3FN> -> !tile.tile<64x128xf8E4M3FN>
    %vv = tile.transpose %vk [1, 0] : !tile.tile<64x128xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
    // P in e4m3, its keys renamed (k3 k2 k1 k0) -> (k2 k1 k3 k0): the
    // register-A layout of fp8 wgmma.
    %p8 = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xf8E4M3FN>
    %p5 = tile.reshape %p8 : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x8x2x4x2xf8E4M3FN>
    %pt = tile.transpose %p5 [0, 1, 3, 2, 4] : !tile.tile<128x8x2x4x2xf8E4M3FN> -> !tile.tile<128x8x4x2x2xf8E4M3FN>
    %pk = tile.reshape %pt : !tile.tile<128x8x4x2x2xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %acc_new = tile.dot %pk, %vv, %acc_s : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x64xf8E4M3FN> -> !tile.tile<128x64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>
  }
  // O = acc · dv / l: one division a row, a multiplication an element.
  %dvt = tile.splat %sv_ : f32 -> !tile.tile<128xf32>
  %inv = arith.divf %dvt, %r#1 : !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x64xf32>
  %ob = arith.truncf %out : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %o4 = tile.reshape %ob : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %o4, %o[%b, %h, %m0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  // lse = m · scale + ln l - 8 ln 2
  %scale_l = tile.splat %scale_qk : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %r#1 : !tile.tile<128xf32>
  %ln256 = arith.constant dense<5.54517744> : !tile.tile<128xf32>
  %logl8 = arith.subf %logl, %ln256 : !tile.tile<128xf32>
  %lsev = arith.addf %mnat, %logl8 : !tile.tile<128xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x1x128xf32>
  tile.store %lse3, %lse[%b, %h, %m0] : !tile.tile<1x1x128xf32>, !tile.tensor<?x?x?xf32>
  return
}

func.func @attention_fp8_d128(%q: !tile.tensor<?x?x?x128xf8E4M3FN>, %k: !tile.tensor<?x?x?x128xf8E4M3FN>,
    %vt: !tile.tensor<?x?x128x?xf8E4M3FN>, %o: !tile.tensor<?x?x?x128xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %dq: !tile.tensor<?x?xf32>, %dk: !tile.tensor<?x?xf32>,
    %dv: !tile.tensor<?x?xf32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %cn = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %nm = arith.ceildivsi %sq, %cm : i32
  %last = arith.subi %nm, %c1 : i32
  %pm = arith.subi %last, %px : i32
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xf8E4M3FN> -> !tile.tile<1x1x128x128xf8E4M3FN>
  %qt = tile.reshape %q4 : !tile.tile<1x1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
  // The descales: Q·Kᵀ's into the softmax's scale, V's into 1 / l.
  %sq_ = tile.load %dq[%b, %h] : !tile.tensor<?x?xf32> -> f32
  %sk_ = tile.load %dk[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sv_ = tile.load %dv[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sqk = arith.mulf %sq_, %sk_ : f32
  %scale_qk = arith.mulf %scale, %sqk : f32
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale_qk, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  %eight = arith.constant dense<8.0> : !tile.tile<128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
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
  %m01 = arith.addi %m0, %c1 : i32
  %clo = arith.minsi %m01, %skv : i32
  %lim_lo = arith.select %is_causal, %clo, %skv : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>) : i32 {
    %k4 = tile.load %k[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x128xf8E4M3FN> -> !tile.tile<1x1x128x128xf8E4M3FN>
    %kt = tile.reshape %k4 : !tile.tile<1x1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
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
    // exp2(x - (max - 8)): P in [0, 256].
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %ms8 = arith.subf %ms, %eight : !tile.tile<128xf32>
    %me = tile.expand_dims %ms8 axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
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
    %v4 = tile.load %vt[%b, %hk, %c0, %n0] : !tile.tensor<?x?x128x?xf8E4M3FN> -> !tile.tile<1x1x128x128xf8E4M3FN>
    %vk = tile.reshape %v4 : !tile.tile<1x1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %vv = tile.transpose %vk [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    // P in e4m3, its keys renamed (k3 k2 k1 k0) -> (k2 k1 k3 k0): the
    // register-A layout of fp8 wgmma.
    %p8 = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xf8E4M3FN>
    %p5 = tile.reshape %p8 : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x8x2x4x2xf8E4M3FN>
    %pt = tile.transpose %p5 [0, 1, 3, 2, 4] : !tile.tile<128x8x2x4x2xf8E4M3FN> -> !tile.tile<128x8x4x2x2xf8E4M3FN>
    %pk = tile.reshape %pt : !tile.tile<128x8x4x2x2xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %acc_new = tile.dot %pk, %vv, %acc_s : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>
  }
  // O = acc · dv / l: one division a row, a multiplication an element.
  %dvt = tile.splat %sv_ : f32 -> !tile.tile<128xf32>
  %inv = arith.divf %dvt, %r#1 : !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x128xf32>
  %ob = arith.truncf %out : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %o4 = tile.reshape %ob : !tile.tile<128x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  tile.store %o4, %o[%b, %h, %m0, %c0] : !tile.tile<1x1x128x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  // lse = m · scale + ln l - 8 ln 2
  %scale_l = tile.splat %scale_qk : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %r#1 : !tile.tile<128xf32>
  %ln256 = arith.constant dense<5.54517744> : !tile.tile<128xf32>
  %logl8 = arith.subf %logl, %ln256 : !tile.tile<128xf32>
  %lsev = arith.addf %mnat, %logl8 : !tile.tile<128xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x1x128xf32>
  tile.store %lse3, %lse[%b, %h, %m0] : !tile.tile<1x1x128xf32>, !tile.tensor<?x?x?xf32>
  return
}

func.func @attention_fp8_d256(%q: !tile.tensor<?x?x?x256xf8E4M3FN>, %k: !tile.tensor<?x?x?x256xf8E4M3FN>,
    %vt: !tile.tensor<?x?x256x?xf8E4M3FN>, %o: !tile.tensor<?x?x?x256xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %dq: !tile.tensor<?x?xf32>, %dk: !tile.tensor<?x?xf32>,
    %dv: !tile.tensor<?x?xf32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %cn = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x256xf8E4M3FN>
  %nm = arith.ceildivsi %sq, %cm : i32
  %last = arith.subi %nm, %c1 : i32
  %pm = arith.subi %last, %px : i32
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x256xf8E4M3FN>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x256xf8E4M3FN>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x256xf8E4M3FN>
  %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x256xf8E4M3FN> -> !tile.tile<1x1x128x256xf8E4M3FN>
  %qt = tile.reshape %q4 : !tile.tile<1x1x128x256xf8E4M3FN> -> !tile.tile<128x256xf8E4M3FN>
  // The descales: Q·Kᵀ's into the softmax's scale, V's into 1 / l.
  %sq_ = tile.load %dq[%b, %h] : !tile.tensor<?x?xf32> -> f32
  %sk_ = tile.load %dk[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sv_ = tile.load %dv[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sqk = arith.mulf %sq_, %sk_ : f32
  %scale_qk = arith.mulf %scale, %sqk : f32
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale_qk, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  %eight = arith.constant dense<8.0> : !tile.tile<128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
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
  %m01 = arith.addi %m0, %c1 : i32
  %clo = arith.minsi %m01, %skv : i32
  %lim_lo = arith.select %is_causal, %clo, %skv : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x256xf32>) : i32 {
    %k4 = tile.load %k[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x256xf8E4M3FN> -> !tile.tile<1x1x128x256xf8E4M3FN>
    %kt = tile.reshape %k4 : !tile.tile<1x1x128x256xf8E4M3FN> -> !tile.tile<128x256xf8E4M3FN>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x256xf8E4M3FN> -> !tile.tile<256x128xf8E4M3FN>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x256xf8E4M3FN>, !tile.tile<256x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
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
    // exp2(x - (max - 8)): P in [0, 256].
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %ms8 = arith.subf %ms, %eight : !tile.tile<128xf32>
    %me = tile.expand_dims %ms8 axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
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
    %ab = tile.broadcast %ae : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<128x256xf32>
    %v4 = tile.load %vt[%b, %hk, %c0, %n0] : !tile.tensor<?x?x256x?xf8E4M3FN> -> !tile.tile<1x1x256x128xf8E4M3FN>
    %vk = tile.reshape %v4 : !tile.tile<1x1x256x128xf8E4M3FN> -> !tile.tile<256x128xf8E4M3FN>
    %vv = tile.transpose %vk [1, 0] : !tile.tile<256x128xf8E4M3FN> -> !tile.tile<128x256xf8E4M3FN>
    // P in e4m3, its keys renamed (k3 k2 k1 k0) -> (k2 k1 k3 k0): the
    // register-A layout of fp8 wgmma.
    %p8 = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xf8E4M3FN>
    %p5 = tile.reshape %p8 : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x8x2x4x2xf8E4M3FN>
    %pt = tile.transpose %p5 [0, 1, 3, 2, 4] : !tile.tile<128x8x2x4x2xf8E4M3FN> -> !tile.tile<128x8x4x2x2xf8E4M3FN>
    %pk = tile.reshape %pt : !tile.tile<128x8x4x2x2xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %acc_new = tile.dot %pk, %vv, %acc_s : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x256xf8E4M3FN> -> !tile.tile<128x256xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x256xf32>
  }
  // O = acc · dv / l: one division a row, a multiplication an element.
  %dvt = tile.splat %sv_ : f32 -> !tile.tile<128xf32>
  %inv = arith.divf %dvt, %r#1 : !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x256xf32>
  %ob = arith.truncf %out : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  %o4 = tile.reshape %ob : !tile.tile<128x256xbf16> -> !tile.tile<1x1x128x256xbf16>
  tile.store %o4, %o[%b, %h, %m0, %c0] : !tile.tile<1x1x128x256xbf16>, !tile.tensor<?x?x?x256xbf16>
  // lse = m · scale + ln l - 8 ln 2
  %scale_l = tile.splat %scale_qk : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %r#1 : !tile.tile<128xf32>
  %ln256 = arith.constant dense<5.54517744> : !tile.tile<128xf32>
  %logl8 = arith.subf %logl, %ln256 : !tile.tile<128xf32>
  %lsev = arith.addf %mnat, %logl8 : !tile.tile<128xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x1x128xf32>
  tile.store %lse3, %lse[%b, %h, %m0] : !tile.tile<1x1x128xf32>, !tile.tensor<?x?x?xf32>
  return
}

// The same kernels with V as it comes, row-major (B, Hkv, Skv, D): V's
// block is loaded as keys x D and its keys renamed as P's columns are
// (reshape, transpose, reshape), which is the program a user writes. 8-bit
// wgmma reads B K-major only, so the load partition's threads copy each V
// block into its slot transposed (a K-major copy: 16-byte loads of four
// keys' rows, 4-byte stores of four keys at one d, the renaming folded
// into where each byte goes) while TMA brings K; no pass over V before the
// kernel. The copy goes through the producer's registers, a global round
// trip a block: at D = 128 it runs at about 0.6 of the Vᵀ kernel on an
// H200 (bench/attention.py --fp8), and at D = 256 its registers leave the
// compute warps too few (they spill): the Vᵀ kernels above are the fast
// ones, and tilec.ops.attention_fp8 runs them.
func.func @attention_fp8_vrow_d64(%q: !tile.tensor<?x?x?x64xf8E4M3FN>, %k: !tile.tensor<?x?x?x64xf8E4M3FN>,
    %v: !tile.tensor<?x?x?x64xf8E4M3FN>, %o: !tile.tensor<?x?x?x64xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %dq: !tile.tensor<?x?xf32>, %dk: !tile.tensor<?x?xf32>,
    %dv: !tile.tensor<?x?xf32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %cn = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %nm = arith.ceildivsi %sq, %cm : i32
  %last = arith.subi %nm, %c1 : i32
  %pm = arith.subi %last, %px : i32
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x64xf8E4M3FN> -> !tile.tile<1x1x128x64xf8E4M3FN>
  %qt = tile.reshape %q4 : !tile.tile<1x1x128x64xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
  // The descales: Q·Kᵀ's into the softmax's scale, V's into 1 / l.
  %sq_ = tile.load %dq[%b, %h] : !tile.tensor<?x?xf32> -> f32
  %sk_ = tile.load %dk[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sv_ = tile.load %dv[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sqk = arith.mulf %sq_, %sk_ : f32
  %scale_qk = arith.mulf %scale, %sqk : f32
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale_qk, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  %eight = arith.constant dense<8.0> : !tile.tile<128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
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
  %m01 = arith.addi %m0, %c1 : i32
  %clo = arith.minsi %m01, %skv : i32
  %lim_lo = arith.select %is_causal, %clo, %skv : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>) : i32 {
    %k4 = tile.load %k[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x64xf8E4M3FN> -> !tile.tile<1x1x128x64xf8E4M3FN>
    %kt = tile.reshape %k4 : !tile.tile<1x1x128x64xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x64xf8E4M3FN> -> !tile.tile<64x128xf8E4M3FN>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x64xf8E4M3FN>, !tile.tile<64x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
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
    // exp2(x - (max - 8)): P in [0, 256].
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %ms8 = arith.subf %ms, %eight : !tile.tile<128xf32>
    %me = tile.expand_dims %ms8 axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
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
    // V's rows, keys renamed as P's columns: the load partition's threads
    // copy the block K-major (b = kmajor_copy), through the renaming.
    %v4 = tile.load %v[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x64xf8E4M3FN> -> !tile.tile<1x1x128x64xf8E4M3FN>
    %v5 = tile.reshape %v4 : !tile.tile<1x1x128x64xf8E4M3FN> -> !tile.tile<8x2x4x2x64xf8E4M3FN>
    %vt5 = tile.transpose %v5 [0, 2, 1, 3, 4] : !tile.tile<8x2x4x2x64xf8E4M3FN> -> !tile.tile<8x4x2x2x64xf8E4M3FN>
    %vv = tile.reshape %vt5 : !tile.tile<8x4x2x2x64xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
    // P in e4m3, its keys renamed (k3 k2 k1 k0) -> (k2 k1 k3 k0): the
    // register-A layout of fp8 wgmma.
    %p8 = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xf8E4M3FN>
    %p5 = tile.reshape %p8 : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x8x2x4x2xf8E4M3FN>
    %pt = tile.transpose %p5 [0, 1, 3, 2, 4] : !tile.tile<128x8x2x4x2xf8E4M3FN> -> !tile.tile<128x8x4x2x2xf8E4M3FN>
    %pk = tile.reshape %pt : !tile.tile<128x8x4x2x2xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %acc_new = tile.dot %pk, %vv, %acc_s : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x64xf8E4M3FN> -> !tile.tile<128x64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x64xf32>
  }
  // O = acc · dv / l: one division a row, a multiplication an element.
  %dvt = tile.splat %sv_ : f32 -> !tile.tile<128xf32>
  %inv = arith.divf %dvt, %r#1 : !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x64xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x64xf32>
  %ob = arith.truncf %out : !tile.tile<128x64xf32> to !tile.tile<128x64xbf16>
  %o4 = tile.reshape %ob : !tile.tile<128x64xbf16> -> !tile.tile<1x1x128x64xbf16>
  tile.store %o4, %o[%b, %h, %m0, %c0] : !tile.tile<1x1x128x64xbf16>, !tile.tensor<?x?x?x64xbf16>
  // lse = m · scale + ln l - 8 ln 2
  %scale_l = tile.splat %scale_qk : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %r#1 : !tile.tile<128xf32>
  %ln256 = arith.constant dense<5.54517744> : !tile.tile<128xf32>
  %logl8 = arith.subf %logl, %ln256 : !tile.tile<128xf32>
  %lsev = arith.addf %mnat, %logl8 : !tile.tile<128xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x1x128xf32>
  tile.store %lse3, %lse[%b, %h, %m0] : !tile.tile<1x1x128xf32>, !tile.tensor<?x?x?xf32>
  return
}

func.func @attention_fp8_vrow_d128(%q: !tile.tensor<?x?x?x128xf8E4M3FN>, %k: !tile.tensor<?x?x?x128xf8E4M3FN>,
    %v: !tile.tensor<?x?x?x128xf8E4M3FN>, %o: !tile.tensor<?x?x?x128xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %dq: !tile.tensor<?x?xf32>, %dk: !tile.tensor<?x?xf32>,
    %dv: !tile.tensor<?x?xf32>, %scale: f32, %causal: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %cn = arith.constant 128 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %px = tile.program_id x
  %sq = tile.dim %q, 2 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %nm = arith.ceildivsi %sq, %cm : i32
  %last = arith.subi %nm, %c1 : i32
  %pm = arith.subi %last, %px : i32
  %bh = tile.program_id y
  %hq = tile.dim %q, 1 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %hkv = tile.dim %k, 1 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %b = arith.divui %bh, %hq : i32
  %h = arith.remui %bh, %hq : i32
  %group = arith.divui %hq, %hkv : i32
  %hk = arith.divui %h, %group : i32
  %m0 = arith.muli %pm, %cm : i32
  %skv = tile.dim %k, 2 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %q4 = tile.load %q[%b, %h, %m0, %c0] : !tile.tensor<?x?x?x128xf8E4M3FN> -> !tile.tile<1x1x128x128xf8E4M3FN>
  %qt = tile.reshape %q4 : !tile.tile<1x1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
  // The descales: Q·Kᵀ's into the softmax's scale, V's into 1 / l.
  %sq_ = tile.load %dq[%b, %h] : !tile.tensor<?x?xf32> -> f32
  %sk_ = tile.load %dk[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sv_ = tile.load %dv[%b, %hk] : !tile.tensor<?x?xf32> -> f32
  %sqk = arith.mulf %sq_, %sk_ : f32
  %scale_qk = arith.mulf %scale, %sqk : f32
  // Scores in log2 units: exp(x·scale) = exp2(x·scale·log2 e).
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale_qk, %log2e : f32
  %scale_t = tile.splat %scale2 : f32 -> !tile.tile<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<128xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<128xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<128x128xf32>
  %eight = arith.constant dense<8.0> : !tile.tile<128xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<128xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<128xi32>
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
  %m01 = arith.addi %m0, %c1 : i32
  %clo = arith.minsi %m01, %skv : i32
  %lim_lo = arith.select %is_causal, %clo, %skv : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %cn
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>) : i32 {
    %k4 = tile.load %k[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x128xf8E4M3FN> -> !tile.tile<1x1x128x128xf8E4M3FN>
    %kt = tile.reshape %k4 : !tile.tile<1x1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<128xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<128xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x128xi32> -> !tile.tile<128x128xi32>
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
    // exp2(x - (max - 8)): P in [0, 256].
    %ms = arith.mulf %m_new, %scale_r : !tile.tile<128xf32>
    %ms8 = arith.subf %ms, %eight : !tile.tile<128xf32>
    %me = tile.expand_dims %ms8 axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
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
    // V's rows, keys renamed as P's columns: the load partition's threads
    // copy the block K-major (b = kmajor_copy), through the renaming.
    %v4 = tile.load %v[%b, %hk, %n0, %c0] : !tile.tensor<?x?x?x128xf8E4M3FN> -> !tile.tile<1x1x128x128xf8E4M3FN>
    %v5 = tile.reshape %v4 : !tile.tile<1x1x128x128xf8E4M3FN> -> !tile.tile<8x2x4x2x128xf8E4M3FN>
    %vt5 = tile.transpose %v5 [0, 2, 1, 3, 4] : !tile.tile<8x2x4x2x128xf8E4M3FN> -> !tile.tile<8x4x2x2x128xf8E4M3FN>
    %vv = tile.reshape %vt5 : !tile.tile<8x4x2x2x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    // P in e4m3, its keys renamed (k3 k2 k1 k0) -> (k2 k1 k3 k0): the
    // register-A layout of fp8 wgmma.
    %p8 = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xf8E4M3FN>
    %p5 = tile.reshape %p8 : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x8x2x4x2xf8E4M3FN>
    %pt = tile.transpose %p5 [0, 1, 3, 2, 4] : !tile.tile<128x8x2x4x2xf8E4M3FN> -> !tile.tile<128x8x4x2x2xf8E4M3FN>
    %pk = tile.reshape %pt : !tile.tile<128x8x4x2x2xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %acc_new = tile.dot %pk, %vv, %acc_s : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<128xf32>, !tile.tile<128xf32>, !tile.tile<128x128xf32>
  }
  // O = acc · dv / l: one division a row, a multiplication an element.
  %dvt = tile.splat %sv_ : f32 -> !tile.tile<128xf32>
  %inv = arith.divf %dvt, %r#1 : !tile.tile<128xf32>
  %le = tile.expand_dims %inv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %lb = tile.broadcast %le : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
  %out = arith.mulf %r#2, %lb : !tile.tile<128x128xf32>
  %ob = arith.truncf %out : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %o4 = tile.reshape %ob : !tile.tile<128x128xbf16> -> !tile.tile<1x1x128x128xbf16>
  tile.store %o4, %o[%b, %h, %m0, %c0] : !tile.tile<1x1x128x128xbf16>, !tile.tensor<?x?x?x128xbf16>
  // lse = m · scale + ln l - 8 ln 2
  %scale_l = tile.splat %scale_qk : f32 -> !tile.tile<128xf32>
  %mnat = arith.mulf %r#0, %scale_l : !tile.tile<128xf32>
  %logl = math.log %r#1 : !tile.tile<128xf32>
  %ln256 = arith.constant dense<5.54517744> : !tile.tile<128xf32>
  %logl8 = arith.subf %logl, %ln256 : !tile.tile<128xf32>
  %lsev = arith.addf %mnat, %logl8 : !tile.tile<128xf32>
  %lse3 = tile.reshape %lsev : !tile.tile<128xf32> -> !tile.tile<1x1x128xf32>
  tile.store %lse3, %lse[%b, %h, %m0] : !tile.tile<1x1x128xf32>, !tile.tensor<?x?x?xf32>
  return
}

// Vᵀ for the kernels above: V (B, Hkv, Skv, 64) -> Vᵀ (B, Hkv, 64, Skv'),
// the keys of each 16 in the order P's registers hold them (position
// (k3 k2 k1 k0) takes key (k1 k3 k2 k0)); one program per 64 keys of one
// (batch, head), keys past Skv zero (the load pads them).
func.func @transpose_v_fp8_d64(%v: !tile.tensor<?x?x?x64xf8E4M3FN>, %vt: !tile.tensor<?x?x64x?xf8E4M3FN>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 3), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %ckb = arith.constant 64 : i32
  %px = tile.program_id x
  %bh = tile.program_id y
  %h = tile.dim %v, 1 : !tile.tensor<?x?x?x64xf8E4M3FN>
  %b = arith.divui %bh, %h : i32
  %hh = arith.remui %bh, %h : i32
  %n0 = arith.muli %px, %ckb : i32
  %t4 = tile.load %v[%b, %hh, %n0, %c0] : !tile.tensor<?x?x?x64xf8E4M3FN> -> !tile.tile<1x1x64x64xf8E4M3FN>
  // keys (g c3 c2 c1 c0) -> positions (g c2 c1 c3 c0), then Vᵀ.
  %t5 = tile.reshape %t4 : !tile.tile<1x1x64x64xf8E4M3FN> -> !tile.tile<4x2x4x2x64xf8E4M3FN>
  %tt = tile.transpose %t5 [4, 0, 2, 1, 3] : !tile.tile<4x2x4x2x64xf8E4M3FN> -> !tile.tile<64x4x4x2x2xf8E4M3FN>
  %t2 = tile.reshape %tt : !tile.tile<64x4x4x2x2xf8E4M3FN> -> !tile.tile<1x1x64x64xf8E4M3FN>
  tile.store %t2, %vt[%b, %hh, %c0, %n0] : !tile.tile<1x1x64x64xf8E4M3FN>, !tile.tensor<?x?x64x?xf8E4M3FN>
  return
}

// Vᵀ for the kernels above: V (B, Hkv, Skv, 128) -> Vᵀ (B, Hkv, 128, Skv'),
// the keys of each 16 in the order P's registers hold them (position
// (k3 k2 k1 k0) takes key (k1 k3 k2 k0)); one program per 64 keys of one
// (batch, head), keys past Skv zero (the load pads them).
func.func @transpose_v_fp8_d128(%v: !tile.tensor<?x?x?x128xf8E4M3FN>, %vt: !tile.tensor<?x?x128x?xf8E4M3FN>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 3), 64), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %ckb = arith.constant 64 : i32
  %px = tile.program_id x
  %bh = tile.program_id y
  %h = tile.dim %v, 1 : !tile.tensor<?x?x?x128xf8E4M3FN>
  %b = arith.divui %bh, %h : i32
  %hh = arith.remui %bh, %h : i32
  %n0 = arith.muli %px, %ckb : i32
  %t4 = tile.load %v[%b, %hh, %n0, %c0] : !tile.tensor<?x?x?x128xf8E4M3FN> -> !tile.tile<1x1x64x128xf8E4M3FN>
  // keys (g c3 c2 c1 c0) -> positions (g c2 c1 c3 c0), then Vᵀ.
  %t5 = tile.reshape %t4 : !tile.tile<1x1x64x128xf8E4M3FN> -> !tile.tile<4x2x4x2x128xf8E4M3FN>
  %tt = tile.transpose %t5 [4, 0, 2, 1, 3] : !tile.tile<4x2x4x2x128xf8E4M3FN> -> !tile.tile<128x4x4x2x2xf8E4M3FN>
  %t2 = tile.reshape %tt : !tile.tile<128x4x4x2x2xf8E4M3FN> -> !tile.tile<1x1x128x64xf8E4M3FN>
  tile.store %t2, %vt[%b, %hh, %c0, %n0] : !tile.tile<1x1x128x64xf8E4M3FN>, !tile.tensor<?x?x128x?xf8E4M3FN>
  return
}

// Vᵀ for the kernels above: V (B, Hkv, Skv, 256) -> Vᵀ (B, Hkv, 256, Skv'),
// the keys of each 16 in the order P's registers hold them (position
// (k3 k2 k1 k0) takes key (k1 k3 k2 k0)); one program per 32 keys of one
// (batch, head), keys past Skv zero (the load pads them).
func.func @transpose_v_fp8_d256(%v: !tile.tensor<?x?x?x256xf8E4M3FN>, %vt: !tile.tensor<?x?x256x?xf8E4M3FN>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 3), 32), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %ckb = arith.constant 32 : i32
  %px = tile.program_id x
  %bh = tile.program_id y
  %h = tile.dim %v, 1 : !tile.tensor<?x?x?x256xf8E4M3FN>
  %b = arith.divui %bh, %h : i32
  %hh = arith.remui %bh, %h : i32
  %n0 = arith.muli %px, %ckb : i32
  %t4 = tile.load %v[%b, %hh, %n0, %c0] : !tile.tensor<?x?x?x256xf8E4M3FN> -> !tile.tile<1x1x32x256xf8E4M3FN>
  // keys (g c3 c2 c1 c0) -> positions (g c2 c1 c3 c0), then Vᵀ.
  %t5 = tile.reshape %t4 : !tile.tile<1x1x32x256xf8E4M3FN> -> !tile.tile<2x2x4x2x256xf8E4M3FN>
  %tt = tile.transpose %t5 [4, 0, 2, 1, 3] : !tile.tile<2x2x4x2x256xf8E4M3FN> -> !tile.tile<256x2x4x2x2xf8E4M3FN>
  %t2 = tile.reshape %tt : !tile.tile<256x2x4x2x2xf8E4M3FN> -> !tile.tile<1x1x256x32xf8E4M3FN>
  tile.store %t2, %vt[%b, %hh, %c0, %n0] : !tile.tile<1x1x256x32xf8E4M3FN>, !tile.tensor<?x?x256x?xf8E4M3FN>
  return
}
