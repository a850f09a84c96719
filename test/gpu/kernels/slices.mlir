// Kernels of test/gpu/test_slices.py: tile.extract_slice, tile.insert_slice
// and tile.concat, both as register renamings and through shared memory,
// on tiles off the view's edges.

// y = [x[:, 64:128] * 2, x[:, 0:64]] a 32x128 tile a program (the
// columns' high bit is a lane bit in the loaded layout: shared memory),
// then y[16:32, 96:128] = x[3:19, 5:37] (an unaligned block).
func.func @swap_halves(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 32)>} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %two = arith.constant dense<2.0> : !tile.tile<32x64xf32>
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c32 : i32
  %t = tile.load %x[%m0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<32x128xf32>
  %a = tile.extract_slice %t [0, 0] : !tile.tile<32x128xf32> -> !tile.tile<32x64xf32>
  %b = tile.extract_slice %t [0, 64] : !tile.tile<32x128xf32> -> !tile.tile<32x64xf32>
  %b2 = arith.mulf %b, %two : !tile.tile<32x64xf32>
  %c = tile.concat %b2, %a dim 1 : !tile.tile<32x64xf32>, !tile.tile<32x64xf32> -> !tile.tile<32x128xf32>
  %d = tile.extract_slice %t [3, 5] : !tile.tile<32x128xf32> -> !tile.tile<16x32xf32>
  %e = tile.insert_slice %d into %c [16, 96] : !tile.tile<16x32xf32> into !tile.tile<32x128xf32>
  tile.store %e, %y[%m0, %c0] : !tile.tile<32x128xf32>, !tile.tensor<?x?xf32>
  return
}

// Row blocks of a 32x128 bf16 tile (rows are register bits beyond the
// warps: no data moves): y = [x[16:32] + 1; x[0:16]] via concat along
// dim 0, y[8:16] = x[24:32] via insert_slice, plus x (the tile is read
// whole too, so its blocks are not loads of their own).
func.func @row_blocks(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(0, 1), 128)>} {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %one = arith.constant dense<1.0> : !tile.tile<16x128xbf16>
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %t = tile.load %x[%m0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x128xbf16>
  %top = tile.extract_slice %t [0, 0] : !tile.tile<32x128xbf16> -> !tile.tile<16x128xbf16>
  %bot = tile.extract_slice %t [16, 0] : !tile.tile<32x128xbf16> -> !tile.tile<16x128xbf16>
  %bot1 = arith.addf %bot, %one : !tile.tile<16x128xbf16>
  %c = tile.concat %bot1, %top dim 0 : !tile.tile<16x128xbf16>, !tile.tile<16x128xbf16> -> !tile.tile<32x128xbf16>
  %q = tile.extract_slice %t [24, 0] : !tile.tile<32x128xbf16> -> !tile.tile<8x128xbf16>
  %r = tile.insert_slice %q into %c [8, 0] : !tile.tile<8x128xbf16> into !tile.tile<32x128xbf16>
  %s = arith.addf %r, %t : !tile.tile<32x128xbf16>
  tile.store %s, %y[%m0, %n0] : !tile.tile<32x128xbf16>, !tile.tensor<?x?xbf16>
  return
}

// A 1-D concat of three tiles of different sizes (32 + 64 + 32) and
// i32 elements: y[0:128] of each 128-element block is
// [x[96:128], x[0:64] * 3, x[64:96]].
func.func @concat_three(%x: !tile.tensor<?xi32>, %y: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %c128 = arith.constant 128 : i32
  %three = arith.constant dense<3> : !tile.tile<64xi32>
  %pid = tile.program_id x
  %o = arith.muli %pid, %c128 : i32
  %t = tile.load %x[%o] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %a = tile.extract_slice %t [96] : !tile.tile<128xi32> -> !tile.tile<32xi32>
  %b = tile.extract_slice %t [0] : !tile.tile<128xi32> -> !tile.tile<64xi32>
  %b3 = arith.muli %b, %three : !tile.tile<64xi32>
  %c = tile.extract_slice %t [64] : !tile.tile<128xi32> -> !tile.tile<32xi32>
  %r = tile.concat %a, %b3, %c dim 0 : !tile.tile<32xi32>, !tile.tile<64xi32>, !tile.tile<32xi32> -> !tile.tile<128xi32>
  tile.store %r, %y[%o] : !tile.tile<128xi32>, !tile.tensor<?xi32>
  return
}

// Blocks of a dot's accumulator (mma fragments): C = A·B for a 64x64
// tile, stored as its four 32x32 quadrants rotated clockwise
// ([[C10, C00], [C11, C01]]).
func.func @rotate_quadrants(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %ta = tile.load %a[%m0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %tb = tile.load %b[%c0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = tile.dot %ta, %tb, %z : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  %q00 = tile.extract_slice %acc [0, 0] : !tile.tile<64x64xf32> -> !tile.tile<32x32xf32>
  %q01 = tile.extract_slice %acc [0, 32] : !tile.tile<64x64xf32> -> !tile.tile<32x32xf32>
  %q10 = tile.extract_slice %acc [32, 0] : !tile.tile<64x64xf32> -> !tile.tile<32x32xf32>
  %q11 = tile.extract_slice %acc [32, 32] : !tile.tile<64x64xf32> -> !tile.tile<32x32xf32>
  %top = tile.concat %q10, %q00 dim 1 : !tile.tile<32x32xf32>, !tile.tile<32x32xf32> -> !tile.tile<32x64xf32>
  %bot = tile.concat %q11, %q01 dim 1 : !tile.tile<32x32xf32>, !tile.tile<32x32xf32> -> !tile.tile<32x64xf32>
  %r = tile.concat %top, %bot dim 0 : !tile.tile<32x64xf32>, !tile.tile<32x64xf32> -> !tile.tile<64x64xf32>
  tile.store %r, %c[%m0, %n0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// C = silu(G) * U for [G, U] = A·B, G and U the halves of one 128x256
// accumulator (blocks of the wgmma/tcgen05 accumulator's registers); and a
// K loop reading 128 columns of A and rows of B a step as two blocks each
// (loads of their own: TMA copies for wgmma).
func.func @glu(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>)
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
  %nh = arith.muli %pn, %c128 : i32
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
  %g = tile.extract_slice %acc [0, 0] : !tile.tile<128x256xf32> -> !tile.tile<128x128xf32>
  %u = tile.extract_slice %acc [0, 128] : !tile.tile<128x256xf32> -> !tile.tile<128x128xf32>
  %one = arith.constant dense<1.0> : !tile.tile<128x128xf32>
  %ng = arith.negf %g : !tile.tile<128x128xf32>
  %e = math.exp %ng : !tile.tile<128x128xf32>
  %den = arith.addf %one, %e : !tile.tile<128x128xf32>
  %s = arith.divf %g, %den : !tile.tile<128x128xf32>
  %p = arith.mulf %s, %u : !tile.tile<128x128xf32>
  %o = arith.truncf %p : !tile.tile<128x128xf32> to !tile.tile<128x128xbf16>
  tile.store %o, %c[%m0, %nh] : !tile.tile<128x128xbf16>, !tile.tensor<?x?xbf16>
  return
}

func.func @dot_of_blocks(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c128 iter_args(%acc_i = %zero)
      -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %a0 = tile.extract_slice %ta [0, 0] : !tile.tile<64x128xbf16> -> !tile.tile<64x64xbf16>
    %a1 = tile.extract_slice %ta [0, 64] : !tile.tile<64x128xbf16> -> !tile.tile<64x64xbf16>
    %b0 = tile.extract_slice %tb [0, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x64xbf16>
    %b1 = tile.extract_slice %tb [64, 0] : !tile.tile<128x64xbf16> -> !tile.tile<64x64xbf16>
    %d0 = tile.dot %a0, %b0, %acc_i : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %d1 = tile.dot %a1, %b1, %d0 : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %d1 : !tile.tile<64x64xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}
