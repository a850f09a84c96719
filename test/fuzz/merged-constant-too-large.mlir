// RUN: not tilec compile %s --emit=mlir -o /dev/null 2>&1 | FileCheck %s
// Found by scripts/fuzz.py (seed 31, mutant 8651, a mutant of
// examples/gemm.mlir with N = 4096 and a grid of nested cdivs): the zero
// accumulator and the ReLU's zero, one constant once canonicalized, had no
// location, and the per-thread size error said `<unknown>:0`. It is said
// at the constant's first located user (the loop that carries it).
// CHECK: merged-constant-too-large.mlir:[[@LINE+20]]:10: error: 'arith.constant' op makes a tile of 2048 elements per thread ('!tile.tile<128x4096xf32>' over 256 threads)
// C = relu(A · B + bias): bf16 A (MxK) and B (KxN), f32 accumulation, an f32
// bias per column, bf16 C. One 128x256 tile of C a program, K in steps of 64.
// On sm_90a the main loop is warp-specialized: a producer warpgroup brings A
// and B in with TMA (so A's and B's rows must be 16-byte aligned: K and N
// multiples of 8), the two warpgroups of the program multiply with wgmma.
func.func @gemm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(cdiv(1, 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2), 2)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x4096xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x4096xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x4096xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x4096xbf16>
        -> !tile.tile<128x4096xf32>
    scf.yield %d : !tile.tile<128x4096xf32>
  }
  // Epilogue: bias, ReLU, cast.
  %bv = tile.load %bias[%n0] : !tile.tensor<?xf32> -> !tile.tile<4096xf32>
  %be = tile.expand_dims %bv axis 0 : !tile.tile<4096xf32> -> !tile.tile<1x4096xf32>
  %bb = tile.broadcast %be : !tile.tile<1x4096xf32> -> !tile.tile<128x4096xf32>
  %y = arith.addf %acc, %bb : !tile.tile<128x4096xf32>
  %z = arith.constant dense<0.0> : !tile.tile<128x4096xf32>
  %r = arith.maximumf %y, %z : !tile.tile<128x4096xf32>
  %o = arith.truncf %r : !tile.tile<128x4096xf32> to !tile.tile<128x4096xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x4096xbf16>, !tile.tensor<?x?xbf16>
  return
}
