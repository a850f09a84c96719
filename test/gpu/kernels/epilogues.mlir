// Epilogues that take much scratch: examples/gemm.mlir times a uniform random
// tile (tile.rand; its layout conversion takes 128 KiB) (test/gpu/test_epilogues.py;
// test/tools/valid-programs.test compiles the same program).
// C = bf16(relu(A · B + bias) * u), u[r][c] = tile.rand uniform of the
// counter 256 r + c (the row and column in the 128x256 tile) under key
// (seed, seed).
func.func @gemm_rand(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                %bias: !tile.tensor<?xf32>, %c: !tile.tensor<?x?xbf16>, %seed: i32)
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
  %i0 = tile.iota : !tile.tile<128xi32>
  %i1 = tile.iota : !tile.tile<256xi32>
  %i0e = tile.expand_dims %i0 axis 1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %i1e = tile.expand_dims %i1 axis 0 : !tile.tile<256xi32> -> !tile.tile<1x256xi32>
  %i0b = tile.broadcast %i0e : !tile.tile<128x1xi32> -> !tile.tile<128x256xi32>
  %i1b = tile.broadcast %i1e : !tile.tile<1x256xi32> -> !tile.tile<128x256xi32>
  %c256i = arith.constant dense<256> : !tile.tile<128x256xi32>
  %rowoff = arith.muli %i0b, %c256i : !tile.tile<128x256xi32>
  %offs = arith.addi %rowoff, %i1b : !tile.tile<128x256xi32>
  %u = tile.rand uniform %offs key %seed, %seed : !tile.tile<128x256xi32> -> !tile.tile<128x256xf32>
  %rr = arith.mulf %r, %u : !tile.tile<128x256xf32>
  %o = arith.truncf %rr : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  return
}
