// The gated MLP of Llama-style models, H = silu(X Wg) * (X Wu): bf16 X (MxK),
// Wg and Wu (KxN), f32 accumulation, bf16 H. Two dots in one K loop share
// X's tile, so X is read once for both products: on sm_90a the producer
// warpgroup brings in one X box and the Wg and Wu boxes per K step with
// TMA, the two consumer warpgroups run both wgmmas on the same X slot, and
// the epilogue combines the two accumulators. One 128x128 tile of H a
// program (two 128x128 f32 accumulators), K in steps of 64; K and N must be
// multiples of 8 for TMA (other extents take the plain twin).
func.func @swiglu(%x: !tile.tensor<?x?xbf16>, %wg: !tile.tensor<?x?xbf16>,
                  %wu: !tile.tensor<?x?xbf16>, %h: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %x, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %g, %u = scf.for %k0 = %c0 to %k step %c64 iter_args(%ag = %zero, %au = %zero)
      -> (!tile.tile<128x128xf32>, !tile.tile<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tg = tile.load %wg[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %tu = tile.load %wu[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %dg = tile.dot %tx, %tg, %ag : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    %du = tile.dot %tx, %tu, %au : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %dg, %du : !tile.tile<128x128xf32>, !tile.tile<128x128xf32>
  }
  // Epilogue: silu(g) * u = g / (1 + exp(-g)) * u, cast.
  %ng = arith.negf %g : !tile.tile<128x128xf32>
  %e = math.exp %ng : !tile.tile<128x128xf32>
  %one = arith.constant dense<1.0> : !tile.tile<128x128xf32>
  %den = arith.addf %one, %e : !tile.tile<128x128xf32>
  %s = arith.divf %g, %den : !tile.tile<128x128xf32>
  %p = arith.mulf %s, %u : !tile.tile<128x128xf32>
  %o = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  tile.store %o, %h[%m0, %n0] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
  return
}
