// dK, dV of attention for one key block of 128 keys (D = 64, non-causal,
// (B, H, S, D) views) as a new user writes it: LSE and Delta loaded as
// separate per-row f32 vectors in the loop over query blocks.
func.func @dkdv(%q: !tile.tensor<?x?x?x64xbf16>, %k: !tile.tensor<?x?x?x64xbf16>,
    %v: !tile.tensor<?x?x?x64xbf16>, %do: !tile.tensor<?x?x?x64xbf16>,
    %lse: !tile.tensor<?x?x?xf32>, %delta: !tile.tensor<?x?x?xf32>,
    %dk: !tile.tensor<?x?x?x64xbf16>, %dv: !tile.tensor<?x?x?x64xbf16>, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(1, 2), 128), mul(dim(0, 0), dim(0, 1))>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
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
    %l3 = tile.load %lse[%b, %hh, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %l = tile.reshape %l3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
    %d3 = tile.load %delta[%b, %hh, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x64xf32>
    %dl = tile.reshape %d3 : !tile.tile<1x1x64xf32> -> !tile.tile<64xf32>
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
