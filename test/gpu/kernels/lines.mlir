// Kernels for test/gpu/test_lines.py: tile.scan, tile.sort, tile.topk and
// the i8 and tf32 dots.

// Along rows: out_sum = cumsum(x, 1), out_max = cummax(x, 1), out_first =
// x[:, 0] (a user combiner that keeps its first argument: checks that the
// combiner sees the earlier part first). 16 rows x 256 columns a program;
// columns past the view read as 0.
func.func @scan_rows(%x: !tile.tensor<?x?xf32>, %sum: !tile.tensor<?x?xf32>,
                     %max: !tile.tensor<?x?xf32>, %first: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 16)>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : i32
  %t = tile.load %x[%r0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<16x256xf32>
  %s = tile.scan sum %t dim 1 : !tile.tile<16x256xf32>
  %m = tile.scan max %t dim 1 : !tile.tile<16x256xf32>
  %f = tile.scan %t dim 1 combine {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  } : !tile.tile<16x256xf32>
  tile.store %s, %sum[%r0, %c0] : !tile.tile<16x256xf32>, !tile.tensor<?x?xf32>
  tile.store %m, %max[%r0, %c0] : !tile.tile<16x256xf32>, !tile.tensor<?x?xf32>
  tile.store %f, %first[%r0, %c0] : !tile.tile<16x256xf32>, !tile.tensor<?x?xf32>
  return
}

// Down columns, across the four warps: out = exclusive cumsum of x along
// dim 0 (i32) and the inclusive running product modulo 2^32 (a region).
// 256 rows x 16 columns a program; rows past the view read as 0.
func.func @scan_cols(%x: !tile.tensor<?x?xi32>, %excl: !tile.tensor<?x?xi32>,
                     %prod: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 1), 16)>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %c = arith.muli %pid, %c16 : i32
  %t = tile.load %x[%c0, %c] : !tile.tensor<?x?xi32> -> !tile.tile<256x16xi32>
  %e = tile.scan sum %t dim 0 exclusive : !tile.tile<256x16xi32>
  %p = tile.scan %t dim 0 combine {
  ^bb0(%a: i32, %b: i32):
    %r = arith.muli %a, %b : i32
    tile.yield %r : i32
  } : !tile.tile<256x16xi32>
  tile.store %e, %excl[%c0, %c] : !tile.tile<256x16xi32>, !tile.tensor<?x?xi32>
  tile.store %p, %prod[%c0, %c] : !tile.tile<256x16xi32>, !tile.tensor<?x?xi32>
  return
}

// Each row of x (at most 64 columns; the rest read as -inf) sorted
// descending, with the column each value came from.
func.func @sort_rows(%x: !tile.tensor<?x?xf32>, %vals: !tile.tensor<?x?xf32>,
                     %idx: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 16)>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : i32
  %t = tile.load %x[%r0, %c0] {padding = 0xFF800000 : f32}
      : !tile.tensor<?x?xf32> -> !tile.tile<16x64xf32>
  %i = tile.iota : !tile.tile<64xi32>
  %i2 = tile.expand_dims %i axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %ib = tile.broadcast %i2 : !tile.tile<1x64xi32> -> !tile.tile<16x64xi32>
  %k, %v = tile.sort %t, %ib dim 1 descending : !tile.tile<16x64xf32>, !tile.tile<16x64xi32>
  tile.store %k, %vals[%r0, %c0] : !tile.tile<16x64xf32>, !tile.tensor<?x?xf32>
  tile.store %v, %idx[%r0, %c0] : !tile.tile<16x64xi32>, !tile.tensor<?x?xi32>
  return
}

// One line of 1024 i32 keys sorted ascending (the keys span lanes, warps
// and registers); past the view the keys read as the largest i32.
func.func @sort_1024(%x: !tile.tensor<?xi32>, %out: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] {padding = 2147483647 : i32} : !tile.tensor<?xi32> -> !tile.tile<1024xi32>
  %s = tile.sort %t dim 0 : !tile.tile<1024xi32>
  tile.store %s, %out[%c0] : !tile.tile<1024xi32>, !tile.tensor<?xi32>
  return
}

// The 8 largest of each row (at most 128 columns) with their columns, and
// the 4 smallest.
func.func @topk_rows(%x: !tile.tensor<?x?xf32>, %top: !tile.tensor<?x?xf32>,
                     %topi: !tile.tensor<?x?xi32>, %low: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 16)>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : i32
  %t = tile.load %x[%r0, %c0] {padding = 0xFF800000 : f32}
      : !tile.tensor<?x?xf32> -> !tile.tile<16x128xf32>
  %i = tile.iota : !tile.tile<128xi32>
  %i2 = tile.expand_dims %i axis 0 : !tile.tile<128xi32> -> !tile.tile<1x128xi32>
  %ib = tile.broadcast %i2 : !tile.tile<1x128xi32> -> !tile.tile<16x128xi32>
  %k, %v = tile.topk %t, %ib dim 1 k 8
      : !tile.tile<16x128xf32>, !tile.tile<16x128xi32> -> !tile.tile<16x8xf32>, !tile.tile<16x8xi32>
  %pinf = tile.load %x[%r0, %c0] {padding = 0x7F800000 : f32}
      : !tile.tensor<?x?xf32> -> !tile.tile<16x128xf32>
  %s = tile.topk %pinf dim 1 k 4 smallest : !tile.tile<16x128xf32> -> !tile.tile<16x4xf32>
  tile.store %k, %top[%r0, %c0] : !tile.tile<16x8xf32>, !tile.tensor<?x?xf32>
  tile.store %v, %topi[%r0, %c0] : !tile.tile<16x8xi32>, !tile.tensor<?x?xi32>
  tile.store %s, %low[%r0, %c0] : !tile.tile<16x4xf32>, !tile.tensor<?x?xf32>
  return
}

// C = A · B, i8 inputs, i32 accumulation (mma.sync m16n8k32.s8).
func.func @dot_i8(%a: !tile.tensor<?x?xi8>, %b: !tile.tensor<?x?xi8>, %c: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xi8>
  %z = arith.constant dense<0> : !tile.tile<64x64xi32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %z) -> (!tile.tile<64x64xi32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xi8> -> !tile.tile<64x64xi8>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xi8> -> !tile.tile<64x64xi8>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xi8>, !tile.tile<64x64xi8> -> !tile.tile<64x64xi32>
    scf.yield %d : !tile.tile<64x64xi32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x64xi32>, !tile.tensor<?x?xi32>
  return
}

// C = A · B on f32 inputs as tf32 (mma.sync m16n8k8.tf32).
func.func @dot_tf32(%a: !tile.tensor<?x?xf32>, %b: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf32>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %z) -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf32> -> !tile.tile<64x32xf32>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x32xf32>, !tile.tile<32x64xf32> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}
