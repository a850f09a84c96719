// Kernels of test/gpu/test_loop_reduce.py: main loops that add a tile into
// global memory each iteration (attention backward's dQ), which TMA adds
// (cp.reduce.async.bulk.tensor) from the compute partition, and epilogues
// of tiles split by columns across warpgroups, which TMA stores a round
// of chunks (one a warpgroup) at a time.

// C[m0.., n0..] += A[m0.., k0..k0+64] B[k0..k0+64, n0..] each K step: a
// 128x128 partial product (two warpgroups splitting M) added by TMA.
func.func @gemm_partials(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                         %c: !tile.tensor<?x?xf32>)
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
  scf.for %k0 = %c0 to %k step %c64 : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %p = tile.dot %ta, %tb, %zero : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    tile.store %p, %c[%m0, %n0] reduce add : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  }
  return
}

// The same with 64-row tiles on two warpgroups, which split N (each holds
// 64 of the 128 columns): the partial goes out a round of two 64x32
// chunks at a time. D += the running sum's final value after the loop,
// stored as bf16 through TMA the same way (E = A B in bf16).
func.func @gemm_partials_split_n(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                                 %c: !tile.tensor<?x?xf32>, %e: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %p = tile.dot %ta, %tb, %zero : !tile.tile<64x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<64x128xf32>
    tile.store %p, %c[%m0, %n0] reduce add : !tile.tile<64x128xf32>, !tile.tensor<?x?xf32>
    %s = arith.addf %acc_i, %p : !tile.tile<64x128xf32>
    scf.yield %s : !tile.tile<64x128xf32>
  }
  %eb = arith.truncf %acc : !tile.tile<64x128xf32> to !tile.tile<64x128xbf16>
  tile.store %eb, %e[%m0, %n0] : !tile.tile<64x128xbf16>, !tile.tensor<?x?xbf16>
  return
}
