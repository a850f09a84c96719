// Per-token-group fp8 quantization (DeepSeek-V3's activations, issue 51):
// each 1x128 group of a bf16 row gets a scale, its absolute maximum over
// 448 (e4m3's largest), and its values divided by it in e4m3:
//   sa[kb, m] = max(max |x[m, kb*128 .. kb*128+127]|, 1e-4) / 448
//   a[m, k]   = e4m3(x[m, k] / sa[k / 128, m])
// sa is stored K-block-major with M contiguous, as gemm_fp8_blockwise
// (and torch._scaled_mm's block-wise mode, transposed) reads it. One pass
// over x: 32 rows by one group a program; partial tiles at any M and K.
func.func @quant_fp8_blockwise(%x: !tile.tensor<?x?xbf16>, %a: !tile.tensor<?x?xf8E4M3FN>,
    %sa: !tile.tensor<?x?xf32>)
    attributes {tile.kernel,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(0, 1), 128)>} {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pk = tile.program_id y
  %m0 = arith.muli %pm, %c32 : i32
  %k0 = arith.muli %pk, %c128 : i32
  %t = tile.load %x[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x128xbf16>
  %tf = arith.extf %t : !tile.tile<32x128xbf16> to !tile.tile<32x128xf32>
  %abs = math.absf %tf : !tile.tile<32x128xf32>
  %amax = tile.reduce max %abs dim 1 : !tile.tile<32x128xf32> -> !tile.tile<32xf32>
  %eps = arith.constant dense<1.0e-4> : !tile.tile<32xf32>
  %floor = arith.maximumf %amax, %eps : !tile.tile<32xf32>
  %fmax = arith.constant dense<448.0> : !tile.tile<32xf32>
  %s = arith.divf %floor, %fmax : !tile.tile<32xf32>
  %se = tile.expand_dims %s axis 1 : !tile.tile<32xf32> -> !tile.tile<32x1xf32>
  %sb = tile.broadcast %se : !tile.tile<32x1xf32> -> !tile.tile<32x128xf32>
  %q = arith.divf %tf, %sb : !tile.tile<32x128xf32>
  %q8 = arith.truncf %q : !tile.tile<32x128xf32> to !tile.tile<32x128xf8E4M3FN>
  tile.store %q8, %a[%m0, %k0] : !tile.tile<32x128xf8E4M3FN>, !tile.tensor<?x?xf8E4M3FN>
  %sr = tile.expand_dims %s axis 0 : !tile.tile<32xf32> -> !tile.tile<1x32xf32>
  tile.store %sr, %sa[%pk, %m0] : !tile.tile<1x32xf32>, !tile.tensor<?x?xf32>
  return
}
