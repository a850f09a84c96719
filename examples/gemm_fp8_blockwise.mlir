// Block-scaled fp8 GEMM (DeepSeek-V3's recipe, issue 51):
//   C[m, n] = sum over K blocks kb of (A[m, kb] · B[n, kb]ᵀ) · sa[kb, m] · sb[n / 128, kb]
// A (M x K) and B (N x K) e4m3, one f32 scale per 1x128 block of A
// (sa: ceil(K / 128) x M, M contiguous, as DeepGEMM and torch._scaled_mm's
// block-wise mode take it transposed) and per 128x128 block of B (sb:
// ceil(N / 128) x ceil(K / 128)), bf16 C. Each 128 of K is a fresh dot
// (fp8 wgmma's accumulator is not full f32 precision) promoted into the
// f32 accumulator with its two scales. One 128x128 tile of C a program.
// On sm_90a the loop runs warp-specialized: A, B and sa's row of 128
// scales are TMA copies (sa a side load, read straight in the
// accumulator's row layout), sb's scalar is the load partition's threads'
// copy (not waited for: it arrives as it completes); two consumer
// warpgroups run m64n128k32 wgmma, each reading its scales while its MMA
// runs. A warpgroup's promotion does not overlap its own next MMA yet:
// 0.75-0.90 of torch._scaled_mm's block-wise path (bench/gemm_fp8_blockwise.py,
// docs/plans/fp8-llm.md).
func.func @gemm_fp8_blockwise(%a: !tile.tensor<?x?xf8E4M3FN>, %b: !tile.tensor<?x?xf8E4M3FN>,
    %sa: !tile.tensor<?x?xf32>, %sb: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 128)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero) -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tb = tile.load %b[%n0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.transpose %tb [1, 0] : !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %d = tile.dot %ta, %tbt, %zero : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x128xf8E4M3FN> -> !tile.tile<128x128xf32>
    %kb = arith.divui %k0, %c128 : i32
    %sa2 = tile.load %sa[%kb, %m0] : !tile.tensor<?x?xf32> -> !tile.tile<1x128xf32>
    %sav = tile.reshape %sa2 : !tile.tile<1x128xf32> -> !tile.tile<128xf32>
    %sbs = tile.load %sb[%pn, %kb] : !tile.tensor<?x?xf32> -> f32
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

// The same at 64x64 tiles (one warpgroup, m64n64k32): four times the
// programs of 128x128, for problems whose 128x128 grid leaves SMs idle
// (tilec.ops.fp8_gemm_blockwise picks it there). A 64-column tile lies in
// one of sb's 128-column blocks: n0 / 128.
func.func @gemm_fp8_blockwise_64x64(%a: !tile.tensor<?x?xf8E4M3FN>, %b: !tile.tensor<?x?xf8E4M3FN>,
    %sa: !tile.tensor<?x?xf32>, %sb: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c64 = arith.constant 64 : i32
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %nb = arith.divui %n0, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero) -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<64x128xf8E4M3FN>
    %tb = tile.load %b[%n0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<64x128xf8E4M3FN>
    %tbt = tile.transpose %tb [1, 0] : !tile.tile<64x128xf8E4M3FN> -> !tile.tile<128x64xf8E4M3FN>
    %d = tile.dot %ta, %tbt, %zero : !tile.tile<64x128xf8E4M3FN>, !tile.tile<128x64xf8E4M3FN> -> !tile.tile<64x64xf32>
    %kb = arith.divui %k0, %c128 : i32
    %sa2 = tile.load %sa[%kb, %m0] : !tile.tensor<?x?xf32> -> !tile.tile<1x64xf32>
    %sav = tile.reshape %sa2 : !tile.tile<1x64xf32> -> !tile.tile<64xf32>
    %sbs = tile.load %sb[%nb, %kb] : !tile.tensor<?x?xf32> -> f32
    %sbt = tile.splat %sbs : f32 -> !tile.tile<64xf32>
    %s = arith.mulf %sav, %sbt : !tile.tile<64xf32>
    %s2 = tile.expand_dims %s axis 1 : !tile.tile<64xf32> -> !tile.tile<64x1xf32>
    %sbc = tile.broadcast %s2 : !tile.tile<64x1xf32> -> !tile.tile<64x64xf32>
    %ds = arith.mulf %d, %sbc : !tile.tile<64x64xf32>
    %acc_n = arith.addf %acc_i, %ds : !tile.tile<64x64xf32>
    scf.yield %acc_n : !tile.tile<64x64xf32>
  }
  %o = arith.truncf %acc : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16>
  return
}
