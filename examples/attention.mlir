// Attention forward, FlashAttention-style online softmax:
//   O = softmax(Q Kᵀ · scale [+ causal mask]) V
// Q, K, V, O are [batch*heads, seq, 64] bf16; one program per 64 queries of
// one (batch, head), 32 keys a step. `causal` != 0 masks keys after the
// query.
func.func @attention(%q: !tile.tensor<?x?x64xbf16>, %k: !tile.tensor<?x?x64xbf16>,
                     %v: !tile.tensor<?x?x64xbf16>, %o: !tile.tensor<?x?x64xbf16>,
                     %scale: f32, %causal: i32)
    attributes {tile.kernel,
                tile.grid = #tile.grid<cdiv(dim(0, 1), 64), dim(0, 0)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %s = tile.dim %k, 1 : !tile.tensor<?x?x64xbf16>
  %q3 = tile.load %q[%bh, %m0, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x64x64xbf16>
  %qt = tile.reshape %q3 : !tile.tile<1x64x64xbf16> -> !tile.tile<64x64xbf16>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<64xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<64xf32>
  %acc0 = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %zs = arith.constant dense<0.0> : !tile.tile<64x32xf32>
  %scale_t = tile.splat %scale : f32 -> !tile.tile<64x32xf32>
  %neg = arith.constant dense<0xFF800000> : !tile.tile<64x32xf32>
  %is_causal = arith.cmpi ne, %causal, %c0 : i32
  %iota = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %rows = arith.addi %iota, %m0t : !tile.tile<64xi32>
  %rows2 = tile.expand_dims %rows axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %rowsb = tile.broadcast %rows2 : !tile.tile<64x1xi32> -> !tile.tile<64x32xi32>
  %st = tile.splat %s : i32 -> !tile.tile<64x32xi32>
  %kiota = tile.iota : !tile.tile<32xi32>
  // Causal: keys after the block's last query are all masked; stop there.
  %qend = arith.addi %m0, %c64 : i32
  %causal_end = arith.minsi %s, %qend : i32
  %kend = arith.select %is_causal, %causal_end, %s : i32
  %r:3 = scf.for %n0 = %c0 to %kend step %c32
      iter_args(%m_i = %ninf, %l_i = %zero, %acc = %acc0)
      -> (!tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x64xf32>) : i32 {
    %k3 = tile.load %k[%bh, %n0, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x32x64xbf16>
    %kt = tile.reshape %k3 : !tile.tile<1x32x64xbf16> -> !tile.tile<32x64xbf16>
    %ktt = tile.transpose %kt [1, 0] : !tile.tile<32x64xbf16> -> !tile.tile<64x32xbf16>
    %qk = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x32xbf16>
        -> !tile.tile<64x32xf32>
    %sc = arith.mulf %qk, %scale_t : !tile.tile<64x32xf32>
    // Mask keys past the end, and after the query when causal.
    %n0t = tile.splat %n0 : i32 -> !tile.tile<32xi32>
    %cols = arith.addi %kiota, %n0t : !tile.tile<32xi32>
    %cols2 = tile.expand_dims %cols axis 0 : !tile.tile<32xi32> -> !tile.tile<1x32xi32>
    %colsb = tile.broadcast %cols2 : !tile.tile<1x32xi32> -> !tile.tile<64x32xi32>
    %inb = arith.cmpi slt, %colsb, %st : !tile.tile<64x32xi32>
    %past = arith.cmpi sle, %colsb, %rowsb : !tile.tile<64x32xi32>
    %true = arith.constant dense<true> : !tile.tile<64x32xi1>
    %cm = arith.select %is_causal, %past, %true : !tile.tile<64x32xi1>
    %keep = arith.andi %inb, %cm : !tile.tile<64x32xi1>
    %sm = arith.select %keep, %sc, %neg : !tile.tile<64x32xi1>, !tile.tile<64x32xf32>
    // Online softmax.
    %mj = tile.reduce max %sm dim 1 : !tile.tile<64x32xf32> -> !tile.tile<64xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<64xf32>
    %me = tile.expand_dims %m_new axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %mb = tile.broadcast %me : !tile.tile<64x1xf32> -> !tile.tile<64x32xf32>
    %d = arith.subf %sm, %mb : !tile.tile<64x32xf32>
    %p = math.exp %d : !tile.tile<64x32xf32>
    %dm = arith.subf %m_i, %m_new : !tile.tile<64xf32>
    %alpha = math.exp %dm : !tile.tile<64xf32>
    %ps = tile.reduce sum %p dim 1 : !tile.tile<64x32xf32> -> !tile.tile<64xf32>
    %la = arith.mulf %l_i, %alpha : !tile.tile<64xf32>
    %l_new = arith.addf %la, %ps : !tile.tile<64xf32>
    %ae = tile.expand_dims %alpha axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %ab = tile.broadcast %ae : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %acc_s = arith.mulf %acc, %ab : !tile.tile<64x64xf32>
    %v3 = tile.load %v[%bh, %n0, %c0] : !tile.tensor<?x?x64xbf16> -> !tile.tile<1x32x64xbf16>
    %vt = tile.reshape %v3 : !tile.tile<1x32x64xbf16> -> !tile.tile<32x64xbf16>
    %pb = arith.truncf %p : !tile.tile<64x32xf32> to !tile.tile<64x32xbf16>
    %acc_new = tile.dot %pb, %vt, %acc_s : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16>
        -> !tile.tile<64x64xf32>
    scf.yield %m_new, %l_new, %acc_new : !tile.tile<64xf32>, !tile.tile<64xf32>, !tile.tile<64x64xf32>
  }
  %le = tile.expand_dims %r#1 axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
  %lb = tile.broadcast %le : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
  %out = arith.divf %r#2, %lb : !tile.tile<64x64xf32>
  %ob = arith.truncf %out : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  %o3 = tile.reshape %ob : !tile.tile<64x64xbf16> -> !tile.tile<1x64x64xbf16>
  tile.store %o3, %o[%bh, %m0, %c0] : !tile.tile<1x64x64xbf16>, !tile.tensor<?x?x64xbf16>
  return
}
