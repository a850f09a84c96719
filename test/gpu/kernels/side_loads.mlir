// Kernels of test/gpu/test_side_loads.py: GEMM main loops that load more than
// their dots' operands each K step (a block of rows of S, a 1x128 row of
// S), which the load partition copies (TMA; its threads in the plain twin)
// and the compute partition reads from the slot.

// A GEMM loop with an 8x128 side load added to the accumulator's rows.
func.func @gemm_side(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %s: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %sv = tile.load %s[%kr, %n0] : !tile.tensor<?x?xf32> -> !tile.tile<8x128xf32>
    %r = tile.reduce sum %sv dim 0 : !tile.tile<8x128xf32> -> !tile.tile<128xf32>
    %re = tile.expand_dims %r axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %rb = tile.broadcast %re : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %rb : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// The same with a per-column 1x128 vector (a row of S a step).
func.func @gemm_vec(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %s: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %sv = tile.load %s[%kr, %n0] : !tile.tensor<?x?xf32> -> !tile.tile<1x128xf32>
    %rb = tile.broadcast %sv : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %rb : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// A per-row vector a step (attention backward's LSE and Delta): row kr of
// T (steps x M), 128 of its elements, added to every column.
func.func @gemm_rowvec(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %t: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    %kr = arith.divsi %k0, %c64 : i32
    %tv = tile.load %t[%kr, %m0] : !tile.tensor<?x?xf32> -> !tile.tile<1x128xf32>
    %tr = tile.reshape %tv : !tile.tile<1x128xf32> -> !tile.tile<128xf32>
    %te = tile.expand_dims %tr axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %tb2 = tile.broadcast %te : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %e = arith.addf %d, %tb2 : !tile.tile<128x128xf32>
    scf.yield %e : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}
