// GEMM variants: other input types, operands stored column-major, and other
// fused epilogues. All on the same 128x256x64 tile and 8 consumer warps as
// gemm.mlir; on sm_90a each main loop is warp-specialized (TMA + wgmma). An
// operand stored column-major is read through its transpose's row-major view
// (At is KxM, Bt is NxK) and its tiles transposed; with 16-bit inputs wgmma
// reads either order. TMA needs 16-byte rows: every view's row length a
// multiple of 8 elements.

// f16: C = relu(A · B + bias[col]), f16 out (the bf16 example in f16).
func.func @gemm_f16(%a: !tile.tensor<?x?xf16>, %b: !tile.tensor<?x?xf16>,
                    %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf16> -> !tile.tile<128x64xf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xf16> -> !tile.tile<64x256xf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xf16>, !tile.tile<64x256xf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<256xf32> -> !tile.tile<1x256xf32>
  %bb = tile.broadcast %be : !tile.tile<1x256xf32> -> !tile.tile<128x256xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %r = arith.maximumf %y, %z : !tile.tile<128x256xf32>
  %o = arith.truncf %r : !tile.tile<128x256xf32> to !tile.tile<128x256xf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xf16>, !tile.tensor<?x?xf16>
  return
}

// A column-major (At: KxM), bf16: C = gelu(A · B + bias[row]) with GELU's
// tanh form, f32 out.
func.func @gemm_tn_gelu(%at: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                        %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %at, 0 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %tat = tile.load %at[%k0, %m0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %ta = tile.transpose %tat [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %bv = tile.load %bias[%m0] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %be = tile.expand_dims %bv axis 1 : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  %bb = tile.broadcast %be : !tile.tile<128x1xf32> -> !tile.tile<128x256xf32>
  %x = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  // gelu(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  %half = arith.constant dense<0.5> : !tile.tile<128x256xf32>
  %one = arith.constant dense<1.0> : !tile.tile<128x256xf32>
  %k0c = arith.constant dense<0.7978845608> : !tile.tile<128x256xf32>
  %k1c = arith.constant dense<0.044715> : !tile.tile<128x256xf32>
  %x2 = arith.mulf %x, %x : !tile.tile<128x256xf32>
  %x3 = arith.mulf %x2, %x : !tile.tile<128x256xf32>
  %p = arith.mulf %x3, %k1c : !tile.tile<128x256xf32>
  %q = arith.addf %x, %p : !tile.tile<128x256xf32>
  %u = arith.mulf %q, %k0c : !tile.tile<128x256xf32>
  %t = math.tanh %u : !tile.tile<128x256xf32>
  %t1 = arith.addf %t, %one : !tile.tile<128x256xf32>
  %hx = arith.mulf %x, %half : !tile.tile<128x256xf32>
  %g = arith.mulf %hx, %t1 : !tile.tile<128x256xf32>
  tile.store %g, %c[%m0, %n0] : !tile.tile<128x256xf32>, !tile.tensor<?x?xf32>
  return
}

// B column-major (Bt: NxK), f16: C = silu(alpha · (A · B)), bf16 out.
func.func @gemm_nt_silu(%a: !tile.tensor<?x?xf16>, %bt: !tile.tensor<?x?xf16>,
                        %c: !tile.tensor<?x?xbf16>, %alpha: f32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf16> -> !tile.tile<128x64xf16>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xf16> -> !tile.tile<256x64xf16>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x64xf16> -> !tile.tile<64x256xf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xf16>, !tile.tile<64x256xf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %al = tile.splat %alpha : f32 -> !tile.tile<128x256xf32>
  %x = arith.mulf %acc, %al : !tile.tile<128x256xf32>
  // silu(x) = x / (1 + exp(-x))
  %one = arith.constant dense<1.0> : !tile.tile<128x256xf32>
  %nx = arith.negf %x : !tile.tile<128x256xf32>
  %e = math.exp %nx : !tile.tile<128x256xf32>
  %den = arith.addf %e, %one : !tile.tile<128x256xf32>
  %s = arith.divf %x, %den : !tile.tile<128x256xf32>
  %o = arith.truncf %s : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// Both column-major (At: KxM, Bt: NxK), bf16: C = A · B, bf16 out.
func.func @gemm_tt(%at: !tile.tensor<?x?xbf16>, %bt: !tile.tensor<?x?xbf16>,
                   %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 1), 128), cdiv(dim(1, 0), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %at, 0 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %tat = tile.load %at[%k0, %m0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %ta = tile.transpose %tat [1, 0] : !tile.tile<64x128xbf16> -> !tile.tile<128x64xbf16>
    %tbt = tile.load %bt[%n0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<256x64xbf16>
    %tb = tile.transpose %tbt [1, 0] : !tile.tile<256x64xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}

// The ping-pong schedule: this program is one warpgroup's (4 warps, a
// 128x128 tile); two copies of it run on alternate tiles of the persistent
// loop, taking turns at the main loop and at the epilogue so that one's
// epilogue overlaps the other's MMAs. bf16, C = relu(A · B + bias[col]).
func.func @gemm_pingpong(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                         %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 4, tile.schedule = #tile.schedule<pingpong>,
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
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
  %bb = tile.broadcast %be : !tile.tile<1x128xf32> -> !tile.tile<128x128xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x128xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %r = arith.maximumf %y, %z : !tile.tile<128x128xf32>
  %o = arith.truncf %r : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
  return
}

// Clusters of two programs along M (tile.cluster = 2): the pair works on
// vertically adjacent tiles, so they need the same B tile; each CTA copies
// half of B's boxes and multicasts them to both. Otherwise gemm.mlir's
// kernel (bf16, 128x256x64, bias + ReLU).
func.func @gemm_cluster(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8, tile.cluster = 2,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 256)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  // Epilogue: bias, ReLU, cast.
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<256xf32> -> !tile.tile<1x256xf32>
  %bb = tile.broadcast %be : !tile.tile<1x256xf32> -> !tile.tile<128x256xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x256xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %r = arith.maximumf %y, %z : !tile.tile<128x256xf32>
  %o = arith.truncf %r : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}
