// Kernels that exercise ops the examples do not, for test/gpu/test_ops.py.

// A layout whose lanes are the coalesced one's, reversed: converting to it is
// a warp shuffle.
#lanes_reversed = #tile.linear<register = [[1], [2]], lane = [[16], [8], [4], [0], [0]], warp = []>

// out[i] = x[i] + table[i % 128], with table a non-splat constant i / 2.
func.func @const_add(%x: !tile.tensor<?xf32>, %out: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %pid = tile.program_id x
  %c128 = arith.constant 128 : i32
  %off = arith.muli %pid, %c128 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %k = arith.constant dense<[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5,
    8.0, 8.5, 9.0, 9.5, 10.0, 10.5, 11.0, 11.5, 12.0, 12.5, 13.0, 13.5, 14.0, 14.5, 15.0, 15.5,
    16.0, 16.5, 17.0, 17.5, 18.0, 18.5, 19.0, 19.5, 20.0, 20.5, 21.0, 21.5, 22.0, 22.5, 23.0, 23.5,
    24.0, 24.5, 25.0, 25.5, 26.0, 26.5, 27.0, 27.5, 28.0, 28.5, 29.0, 29.5, 30.0, 30.5, 31.0, 31.5,
    32.0, 32.5, 33.0, 33.5, 34.0, 34.5, 35.0, 35.5, 36.0, 36.5, 37.0, 37.5, 38.0, 38.5, 39.0, 39.5,
    40.0, 40.5, 41.0, 41.5, 42.0, 42.5, 43.0, 43.5, 44.0, 44.5, 45.0, 45.5, 46.0, 46.5, 47.0, 47.5,
    48.0, 48.5, 49.0, 49.5, 50.0, 50.5, 51.0, 51.5, 52.0, 52.5, 53.0, 53.5, 54.0, 54.5, 55.0, 55.5,
    56.0, 56.5, 57.0, 57.5, 58.0, 58.5, 59.0, 59.5, 60.0, 60.5, 61.0, 61.5, 62.0, 62.5, 63.0, 63.5]> : !tile.tile<128xf32>
  %s = arith.addf %t, %k : !tile.tile<128xf32>
  tile.store %s, %out[%off] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}

// C = A · B with f16 inputs and f16 accumulation, 64x64 tiles.
func.func @dot_f16(%a: !tile.tensor<?x?xf16>, %b: !tile.tensor<?x?xf16>, %c: !tile.tensor<?x?xf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf16>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc_i = %z) -> (!tile.tile<64x64xf16>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf16> -> !tile.tile<64x32xf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xf16> -> !tile.tile<32x64xf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf16>
    scf.yield %d : !tile.tile<64x64xf16>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x64xf16>, !tile.tensor<?x?xf16>
  return
}

// C = bf16(A · B) with e4m3 inputs and f32 accumulation.
func.func @dot_fp8(%a: !tile.tensor<?x?xf8E4M3FN>, %b: !tile.tensor<?x?xf8E4M3FN>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xf8E4M3FN>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %z) -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<64x64xf8E4M3FN>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<64x64xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xf8E4M3FN>, !tile.tile<64x64xf8E4M3FN> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  %o = arith.truncf %acc : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  tile.store %o, %c[%m0, %n0] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16>
  return
}

// Y = Xᵀ, 32x64 tiles.
func.func @transpose(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(0, 1), 64)>} {
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %t = tile.load %x[%m0, %n0] : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
  %tt = tile.transpose %t [1, 0] : !tile.tile<32x64xf32> -> !tile.tile<64x32xf32>
  tile.store %tt, %y[%n0, %m0] : !tile.tile<64x32xf32>, !tile.tensor<?x?xf32>
  return
}

// out[j] = min over i of x[i, j] (i32), 128 columns a program.
func.func @colmin(%x: !tile.tensor<?x?xi32>, %out: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %n0 = arith.muli %pid, %c128 : i32
  %m = tile.dim %x, 0 : !tile.tensor<?x?xi32>
  %big = arith.constant dense<2147483647> : !tile.tile<128xi32>
  %r = scf.for %i = %c0 to %m step %c32 iter_args(%acc = %big) -> (!tile.tile<128xi32>) : i32 {
    %t = tile.load %x[%i, %n0] {padding = 2147483647 : i32} : !tile.tensor<?x?xi32> -> !tile.tile<32x128xi32>
    %mn = tile.reduce min %t dim 0 : !tile.tile<32x128xi32> -> !tile.tile<128xi32>
    %a = arith.minsi %acc, %mn : !tile.tile<128xi32>
    scf.yield %a : !tile.tile<128xi32>
  }
  tile.store %r, %out[%n0] : !tile.tile<128xi32>, !tile.tensor<?xi32>
  return
}

// out[i] = i % 3 == 0 ? x[i] : -x[i]; iota, integer arith and select.
func.func @iota_select(%x: !tile.tensor<?xf32>, %out: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 256)>} {
  %pid = tile.program_id x
  %c256 = arith.constant 256 : i32
  %off = arith.muli %pid, %c256 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %i = tile.iota : !tile.tile<256xi32>
  %o = tile.splat %off : i32 -> !tile.tile<256xi32>
  %g = arith.addi %i, %o : !tile.tile<256xi32>
  %three = arith.constant dense<3> : !tile.tile<256xi32>
  %zero = arith.constant dense<0> : !tile.tile<256xi32>
  %rem = arith.remsi %g, %three : !tile.tile<256xi32>
  %keep = arith.cmpi eq, %rem, %zero : !tile.tile<256xi32>
  %neg = arith.negf %t : !tile.tile<256xf32>
  %s = arith.select %keep, %t, %neg : !tile.tile<256xi1>, !tile.tile<256xf32>
  tile.store %s, %out[%off] : !tile.tile<256xf32>, !tile.tensor<?xf32>
  return
}

// y = e5m2(2 * f32(x)) for e4m3 x, and a bool mask of x > 0.
func.func @fp8_cast(%x: !tile.tensor<?xf8E4M3FN>, %y: !tile.tensor<?xf8E5M2>, %pos: !tile.tensor<?xi1>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 512)>} {
  %pid = tile.program_id x
  %c512 = arith.constant 512 : i32
  %off = arith.muli %pid, %c512 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf8E4M3FN> -> !tile.tile<512xf8E4M3FN>
  %f = arith.extf %t : !tile.tile<512xf8E4M3FN> to !tile.tile<512xf32>
  %two = arith.constant dense<2.0> : !tile.tile<512xf32>
  %d = arith.mulf %f, %two : !tile.tile<512xf32>
  %e = arith.truncf %d : !tile.tile<512xf32> to !tile.tile<512xf8E5M2>
  tile.store %e, %y[%off] : !tile.tile<512xf8E5M2>, !tile.tensor<?xf8E5M2>
  %z = arith.constant dense<0.0> : !tile.tile<512xf32>
  %p = arith.cmpf ogt, %f, %z : !tile.tile<512xf32>
  tile.store %p, %pos[%off] : !tile.tile<512xi1>, !tile.tensor<?xi1>
  return
}

// out = flag != 0 ? 2x : x + 1, through an scf.if that yields tiles.
func.func @if_tiles(%x: !tile.tensor<?xf32>, %out: !tile.tensor<?xf32>, %flag: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 512)>} {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %off = arith.muli %pid, %c512 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<512xf32>
  %cond = arith.cmpi ne, %flag, %c0 : i32
  %r = scf.if %cond -> (!tile.tile<512xf32>) {
    %d = arith.addf %t, %t : !tile.tile<512xf32>
    scf.yield %d : !tile.tile<512xf32>
  } else {
    %one = arith.constant dense<1.0> : !tile.tile<512xf32>
    %p = arith.addf %t, %one : !tile.tile<512xf32>
    scf.yield %p : !tile.tile<512xf32>
  }
  tile.store %r, %out[%off] : !tile.tile<512xf32>, !tile.tensor<?xf32>
  return
}

// y = 2x through a conversion done with warp shuffles.
func.func @shuffle_twice(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.grid = #tile.grid<cdiv(dim(0, 0), 32)>} {
  %pid = tile.program_id x
  %c32 = arith.constant 32 : i32
  %off = arith.muli %pid, %c32 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<32xf32>
  %p = tile.convert_layout %t : !tile.tile<32xf32> -> !tile.tile<32xf32, #lanes_reversed>
  %q = arith.addf %p, %p : !tile.tile<32xf32, #lanes_reversed>
  tile.store %q, %y[%off] : !tile.tile<32xf32, #lanes_reversed>, !tile.tensor<?xf32>
  return
}

// A main loop whose compute partition does math on the MMA's result: the
// dot starts from zero each step and the carried sum decays by alpha, so
// tile-warp-specialize waits for each wgmma in its iteration and releases
// the slots there (acc = acc * alpha + A_k B_k over 64-wide K steps).
func.func @dot_decay(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                     %c: !tile.tensor<?x?xf32>, %alpha: f32)
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
  %alpha_t = tile.splat %alpha : f32 -> !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %zero : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16>
        -> !tile.tile<128x128xf32>
    %s = arith.mulf %acc_i, %alpha_t : !tile.tile<128x128xf32>
    %n = arith.addf %s, %d : !tile.tile<128x128xf32>
    scf.yield %n : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// Scalar math in f64 (libdevice's f64 functions, not the f32
// approximations): each op of x's f64, rounded to f32, in 16 elements of
// out, op after op (test_ops.py's test_math_f64).
func.func @math_f64(%x: f32, %out: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %d = arith.extf %x : f32 to f64
  %exp = math.exp %d : f64
  %exp32 = arith.truncf %exp : f64 to f32
  %expt = tile.splat %exp32 : f32 -> !tile.tile<16xf32>
  %c0 = arith.constant 0 : i32
  tile.store %expt, %out[%c0] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %log = math.log %d : f64
  %log32 = arith.truncf %log : f64 to f32
  %logt = tile.splat %log32 : f32 -> !tile.tile<16xf32>
  %c1 = arith.constant 16 : i32
  tile.store %logt, %out[%c1] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %sin = math.sin %d : f64
  %sin32 = arith.truncf %sin : f64 to f32
  %sint = tile.splat %sin32 : f32 -> !tile.tile<16xf32>
  %c2 = arith.constant 32 : i32
  tile.store %sint, %out[%c2] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %tanh = math.tanh %d : f64
  %tanh32 = arith.truncf %tanh : f64 to f32
  %tanht = tile.splat %tanh32 : f32 -> !tile.tile<16xf32>
  %c3 = arith.constant 48 : i32
  tile.store %tanht, %out[%c3] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %rsqrt = math.rsqrt %d : f64
  %rsqrt32 = arith.truncf %rsqrt : f64 to f32
  %rsqrtt = tile.splat %rsqrt32 : f32 -> !tile.tile<16xf32>
  %c4 = arith.constant 64 : i32
  tile.store %rsqrtt, %out[%c4] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %exp2 = math.exp2 %d : f64
  %exp232 = arith.truncf %exp2 : f64 to f32
  %exp2t = tile.splat %exp232 : f32 -> !tile.tile<16xf32>
  %c5 = arith.constant 80 : i32
  tile.store %exp2t, %out[%c5] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %log2 = math.log2 %d : f64
  %log232 = arith.truncf %log2 : f64 to f32
  %log2t = tile.splat %log232 : f32 -> !tile.tile<16xf32>
  %c6 = arith.constant 96 : i32
  tile.store %log2t, %out[%c6] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %erf = math.erf %d : f64
  %erf32 = arith.truncf %erf : f64 to f32
  %erft = tile.splat %erf32 : f32 -> !tile.tile<16xf32>
  %c7 = arith.constant 112 : i32
  tile.store %erft, %out[%c7] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %pow = math.powf %d, %d : f64
  %pow32 = arith.truncf %pow : f64 to f32
  %powt = tile.splat %pow32 : f32 -> !tile.tile<16xf32>
  %c8 = arith.constant 128 : i32
  tile.store %powt, %out[%c8] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  %sqrt = math.sqrt %d : f64
  %sqrt32 = arith.truncf %sqrt : f64 to f32
  %sqrtt = tile.splat %sqrt32 : f32 -> !tile.tile<16xf32>
  %c9 = arith.constant 144 : i32
  tile.store %sqrtt, %out[%c9] : !tile.tile<16xf32>, !tile.tensor<?xf32>
  return
}

// Scalar loads and stores (tile-scalar-memory): out = x * s[pid], s2[pid] =
// s[pid] + 1, n2[pid, 0] = 3 n[pid, 0], h[pid] rewritten as it is
// (test_ops.py's test_scalar_loads_and_stores).
func.func @scalars(%x: !tile.tensor<?xf32>, %s: !tile.tensor<?xf32>, %n: !tile.tensor<?x?xi32>,
                   %out: !tile.tensor<?xf32>, %s2: !tile.tensor<?xf32>, %n2: !tile.tensor<?x?xi32>, %h: !tile.tensor<?xbf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 256)>} {
  %pid = tile.program_id x
  %c256 = arith.constant 256 : i32
  %c0 = arith.constant 0 : i32
  %off = arith.muli %pid, %c256 : i32
  %sv = tile.load %s[%pid] : !tile.tensor<?xf32> -> f32
  %nv = tile.load %n[%pid, %c0] : !tile.tensor<?x?xi32> -> i32
  %hv = tile.load %h[%pid] : !tile.tensor<?xbf16> -> bf16
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %st = tile.splat %sv : f32 -> !tile.tile<256xf32>
  %r = arith.mulf %t, %st : !tile.tile<256xf32>
  tile.store %r, %out[%off] : !tile.tile<256xf32>, !tile.tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %sp = arith.addf %sv, %one : f32
  tile.store %sp, %s2[%pid] : f32, !tile.tensor<?xf32>
  %c3 = arith.constant 3 : i32
  %np = arith.muli %nv, %c3 : i32
  tile.store %np, %n2[%pid, %c0] : i32, !tile.tensor<?x?xi32>
  tile.store %hv, %h[%pid] : bf16, !tile.tensor<?xbf16>
  return
}

// Unsigned division and remainder of i32 tiles by a scalar the loop does
// not change (tile-invariant-division's multiply-high): q[i] = x[i] / d,
// r[i] = x[i] % d over the whole vector, 256 a step.
func.func @div_invariant(%x: !tile.tensor<?xi32>, %q: !tile.tensor<?xi32>,
    %r: !tile.tensor<?xi32>, %d: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %n = tile.dim %x, 0 : !tile.tensor<?xi32>
  %ds = tile.splat %d : i32 -> !tile.tile<256xi32>
  scf.for %i = %c0 to %n step %c256 : i32 {
    %v = tile.load %x[%i] : !tile.tensor<?xi32> -> !tile.tile<256xi32>
    %qv = arith.divui %v, %ds : !tile.tile<256xi32>
    %rv = arith.remui %v, %ds : !tile.tile<256xi32>
    tile.store %qv, %q[%i] : !tile.tile<256xi32>, !tile.tensor<?xi32>
    tile.store %rv, %r[%i] : !tile.tile<256xi32>, !tile.tensor<?xi32>
  }
  return
}
