// C = (A · B) * scale_a * scale_b with fp8 inputs, f32 accumulation and bf16
// output, as torch._scaled_mm computes it: A is MxK row-major, B is KxN
// column-major, i.e. the kernel reads Bt (NxK, row-major) and transposes its
// tiles; scale_a and scale_b are one-element f32 tensors (per-tensor scales,
// read on the device). One 128x256 tile of C a program, K in steps of 128.
// On sm_90a both operands reach wgmma K-major (as 8-bit wgmma requires) and
// TMA brings them in, so K must be a multiple of 16 (16-byte rows).
func.func @gemm_e4m3(%a: !tile.tensor<?x?xf8E4M3FN>, %bt: !tile.tensor<?x?xf8E4M3FN>,
                     %scale_a: !tile.tensor<?xf32>, %scale_b: !tile.tensor<?xf32>,
                     %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<128x128xf8E4M3FN>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<256x128xf8E4M3FN>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x128xf8E4M3FN> -> !tile.tile<128x256xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xf8E4M3FN>, !tile.tile<128x256xf8E4M3FN>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  // Epilogue: the two scales, cast.
  %sa = tile.load %scale_a[%c0] : !tile.tensor<?xf32> -> !tile.tile<1xf32>
  %sb = tile.load %scale_b[%c0] : !tile.tensor<?xf32> -> !tile.tile<1xf32>
  %s = arith.mulf %sa, %sb : !tile.tile<1xf32>
  %s2 = tile.reshape %s : !tile.tile<1xf32> -> !tile.tile<1x1xf32>
  %sc = tile.broadcast %s2 : !tile.tile<1x1xf32> -> !tile.tile<128x256xf32>
  %y = arith.mulf %acc, %sc : !tile.tile<128x256xf32>
  %o = arith.truncf %y : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// The same with e5m2 inputs.
func.func @gemm_e5m2(%a: !tile.tensor<?x?xf8E5M2>, %bt: !tile.tensor<?x?xf8E5M2>,
                     %scale_a: !tile.tensor<?xf32>, %scale_b: !tile.tensor<?xf32>,
                     %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E5M2>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E5M2> -> !tile.tile<128x128xf8E5M2>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf8E5M2> -> !tile.tile<256x128xf8E5M2>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x128xf8E5M2> -> !tile.tile<128x256xf8E5M2>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x128xf8E5M2>, !tile.tile<128x256xf8E5M2>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  // Epilogue: the two scales, cast.
  %sa = tile.load %scale_a[%c0] : !tile.tensor<?xf32> -> !tile.tile<1xf32>
  %sb = tile.load %scale_b[%c0] : !tile.tensor<?xf32> -> !tile.tile<1xf32>
  %s = arith.mulf %sa, %sb : !tile.tile<1xf32>
  %s2 = tile.reshape %s : !tile.tile<1xf32> -> !tile.tile<1x1xf32>
  %sc = tile.broadcast %s2 : !tile.tile<1x1xf32> -> !tile.tile<128x256xf32>
  %y = arith.mulf %acc, %sc : !tile.tile<128x256xf32>
  %o = arith.truncf %y : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}
