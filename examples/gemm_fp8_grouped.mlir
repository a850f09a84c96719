// Grouped block-scaled fp8 GEMMs for mixture-of-experts layers (issue 51),
// DeepGEMM's two forms, each one launch over every expert's tiles with the
// recipe of examples/gemm_fp8_blockwise.mlir: e4m3 A and B, one f32 scale
// per 1x128 block of A (stored M-contiguous, K blocks outer) and per
// 128x128 block of B, each 128 of K a fresh dot promoted into the f32
// accumulator with its two scales, bf16 C; 128x128 tiles of C.
//
// Contiguous: the tokens of each expert are contiguous rows of A, each
// expert's segment aligned to 128 rows; mi[r] names row r's expert (-1 for
// a padding row). B is G x N x K (expert e's weight, K-major), sb
// G x ceil(N/128) x ceil(K/128). A program's expert is its first row's;
// a program whose first row is padding runs no K block and stores zeros.
// Every offset of the main loop's loads is a scalar fixed before the loop
// (the expert is a scalar load of mi), so on sm_90a the loop is
// warp-specialized as the dense kernel's is, B a TMA copy of a 3-d box.
func.func @gemm_fp8_grouped_contiguous(%a: !tile.tensor<?x?xf8E4M3FN>, %b: !tile.tensor<?x?x?xf8E4M3FN>,
    %sa: !tile.tensor<?x?xf32>, %sb: !tile.tensor<?x?x?xf32>, %mi: !tile.tensor<?xi32>,
    %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  // The tile's expert; padding runs no K block (expert 0's views, unread).
  %e0 = tile.load %mi[%m0] : !tile.tensor<?xi32> -> i32
  %pad = arith.cmpi slt, %e0, %c0 : i32
  %e = arith.select %pad, %c0, %e0 : i32
  %kend = arith.select %pad, %c0, %k : i32
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %kend step %c128 iter_args(%acc_i = %zero) -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tb3 = tile.load %b[%e, %n0, %k0] : !tile.tensor<?x?x?xf8E4M3FN> -> !tile.tile<1x128x128xf8E4M3FN>
    %tb = tile.reshape %tb3 : !tile.tile<1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.transpose %tb [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %d = tile.dot %ta, %tbt, %zero : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %kb = arith.divui %k0, %c128 : i32
    %sa2 = tile.load %sa[%kb, %m0] : !tile.tensor<?x?xf32> -> !tile.tile<1x128xf32>
    %sav = tile.reshape %sa2 : !tile.tile<1x128xf32> -> !tile.tile<128xf32>
    %sbs = tile.load %sb[%e, %pn, %kb] : !tile.tensor<?x?x?xf32> -> f32
    %sbt = tile.splat %sbs : f32 -> !tile.tile<128xf32>
    %s = arith.mulf %sav, %sbt : !tile.tile<128xf32>
    %s2 = tile.expand_dims %s axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %sbc = tile.broadcast %s2 : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %ds = arith.mulf %d, %sbc : !tile.tile<128x128xf32>
    %acc_n = arith.addf %acc_i, %ds : !tile.tile<128x128xf32>
    scf.yield %acc_n : !tile.tile<128x128xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
  return
}

// Masked: A is G x M_max x K (expert g's tokens are its first mm[g] rows;
// at most 128 experts), sa G x ceil(K/128) x M_max, B and sb as above, C
// G x M_max x N. The grid covers every expert's M_max rows along x (G
// times cdiv(M_max, 128) programs, the N blocks along y), so it does not
// depend on the counts and a CUDA graph replays it as they change. Program
// x takes the x-th of the experts' live row blocks, in expert order (a scan
// of the blocks each count fills): the live tiles come first in the
// persistent walk and the programs past them, at its end, run no K block
// and store nothing. (z as the expert with a tile per M_max row block
// leaves the empty blocks among the live ones: 0.75-0.8 of this at counts
// drawn within +-30%, the programs' static waves unbalanced.) Rows of C at
// or past mm[g] are unspecified: those of a tile that holds valid rows get
// the products of A's rows there.
func.func @gemm_fp8_grouped_masked(%a: !tile.tensor<?x?x?xf8E4M3FN>, %b: !tile.tensor<?x?x?xf8E4M3FN>,
    %sa: !tile.tensor<?x?x?xf32>, %sb: !tile.tensor<?x?x?xf32>, %mm: !tile.tensor<?xi32>,
    %c: !tile.tensor<?x?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<mul(cdiv(dim(0, 1), 128), dim(0, 0)), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 2 : !tile.tensor<?x?x?xf8E4M3FN>
  // Each expert's live row blocks, their running total, and this
  // program's expert (the experts whose blocks end at or before pm) and
  // block within it.
  %ng = tile.dim %mm, 0 : !tile.tensor<?xi32>
  %io = tile.iota : !tile.tile<128xi32>
  %ngs = tile.splat %ng : i32 -> !tile.tile<128xi32>
  %valid = arith.cmpi slt, %io, %ngs : !tile.tile<128xi32>
  %cnt = tile.load %mm[%c0] mask(%valid : !tile.tile<128xi1>) : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %c127s = arith.constant dense<127> : !tile.tile<128xi32>
  %c128s = arith.constant dense<128> : !tile.tile<128xi32>
  %cnt127 = arith.addi %cnt, %c127s : !tile.tile<128xi32>
  %nb = arith.divui %cnt127, %c128s : !tile.tile<128xi32>
  %cum = tile.scan sum %nb dim 0 : !tile.tile<128xi32>
  %pms = tile.splat %pm : i32 -> !tile.tile<128xi32>
  %ended = arith.cmpi sle, %cum, %pms : !tile.tile<128xi32>
  %before = arith.andi %ended, %valid : !tile.tile<128xi1>
  %bi = arith.extui %before : !tile.tile<128xi1> to !tile.tile<128xi32>
  %e = tile.reduce sum %bi dim 0 : !tile.tile<128xi32> -> i32
  %es = tile.splat %e : i32 -> !tile.tile<128xi32>
  %is = arith.cmpi eq, %io, %es : !tile.tile<128xi32>
  %zeros = arith.constant dense<0> : !tile.tile<128xi32>
  %startb = arith.subi %cum, %nb : !tile.tile<128xi32>
  %fv = arith.select %is, %startb, %zeros : !tile.tile<128xi1>, !tile.tile<128xi32>
  %first = tile.reduce sum %fv dim 0 : !tile.tile<128xi32> -> i32
  // Past the live blocks: expert 0's first block, no K block, no store.
  %live = arith.cmpi slt, %e, %ng : i32
  %g = arith.select %live, %e, %c0 : i32
  %j = arith.subi %pm, %first : i32
  %jl = arith.select %live, %j, %c0 : i32
  %m0 = arith.muli %jl, %c128 : i32
  %kend = arith.select %live, %k, %c0 : i32
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %kend step %c128 iter_args(%acc_i = %zero) -> (!tile.tile<128x128xf32>) : i32 {
    %ta3 = tile.load %a[%g, %m0, %k0] : !tile.tensor<?x?x?xf8E4M3FN> -> !tile.tile<1x128x128xf8E4M3FN>
    %ta = tile.reshape %ta3 : !tile.tile<1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tb3 = tile.load %b[%g, %n0, %k0] : !tile.tensor<?x?x?xf8E4M3FN> -> !tile.tile<1x128x128xf8E4M3FN>
    %tb = tile.reshape %tb3 : !tile.tile<1x128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.transpose %tb [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %d = tile.dot %ta, %tbt, %zero : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %kb = arith.divui %k0, %c128 : i32
    %sa3 = tile.load %sa[%g, %kb, %m0] : !tile.tensor<?x?x?xf32> -> !tile.tile<1x1x128xf32>
    %sav = tile.reshape %sa3 : !tile.tile<1x1x128xf32> -> !tile.tile<128xf32>
    %sbs = tile.load %sb[%g, %pn, %kb] : !tile.tensor<?x?x?xf32> -> f32
    %sbt = tile.splat %sbs : f32 -> !tile.tile<128xf32>
    %s = arith.mulf %sav, %sbt : !tile.tile<128xf32>
    %s2 = tile.expand_dims %s axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
    %sbc = tile.broadcast %s2 : !tile.tile<128x1xf32> -> !tile.tile<128x128xf32>
    %ds = arith.mulf %d, %sbc : !tile.tile<128x128xf32>
    %acc_n = arith.addf %acc_i, %ds : !tile.tile<128x128xf32>
    scf.yield %acc_n : !tile.tile<128x128xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  %o3 = tile.reshape %o : !tile.tile<128x128xbf16> -> !tile.tile<1x128x128xbf16>
  scf.if %live {
    tile.store %o3, %c[%g, %m0, %n0] : !tile.tile<1x128x128xbf16>, !tile.tensor<?x?x?xbf16>
  }
  return
}
