// Grouped GEMM, as a mixture-of-experts layer with 8 experts (Mixtral)
// runs it: A holds every token's row sorted by expert (rows offs[e] ..
// offs[e+1] go to expert e; offs has 9 entries, offs[0] = 0 and offs[8] =
// the token count), B is 8 x K x N (expert e's weight), C[r] = A[r] B[e(r)].
// One launch for all experts: programs along x cover every expert's row
// tiles (at most cdiv(tokens, 128) + 8 of them); each finds its expert and
// first row from offs (tile counts, their scan, a count and two selects),
// multiplies, and stores the rows of its expert only (a row mask). Programs
// past the last tile store nothing. Every offset of the main loop's loads
// is a scalar fixed before the loop, so on sm_90a the loop is
// warp-specialized (TMA copies of a 128x64 box of A and a 1x64x256 box of
// B, wgmma); the stores are plain ones (vector stores for whole tiles).
func.func @grouped_gemm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<8x?x?xbf16>,
                   %offs: !tile.tensor<9xi32>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<add(cdiv(dim(0, 0), 128), 8), cdiv(dim(1, 2), 256)>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c127 = arith.constant 127 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c256 = arith.constant 256 : i32
  %n0 = arith.muli %pn, %c256 : i32
  // The 8 experts' row ranges and tile counts.
  %ne = tile.dim %b, 0 : !tile.tensor<8x?x?xbf16>
  %io = tile.iota : !tile.tile<8xi32>
  %nes = tile.splat %ne : i32 -> !tile.tile<8xi32>
  %valid = arith.cmpi slt, %io, %nes : !tile.tile<8xi32>
  %st = tile.load %offs[%c0] mask(%valid : !tile.tile<8xi1>) : !tile.tensor<9xi32> -> !tile.tile<8xi32>
  %en = tile.load %offs[%c1] mask(%valid : !tile.tile<8xi1>) : !tile.tensor<9xi32> -> !tile.tile<8xi32>
  %len = arith.subi %en, %st : !tile.tile<8xi32>
  %c127s = tile.splat %c127 : i32 -> !tile.tile<8xi32>
  %c128s = tile.splat %c128 : i32 -> !tile.tile<8xi32>
  %lp = arith.addi %len, %c127s : !tile.tile<8xi32>
  %nt = arith.divsi %lp, %c128s : !tile.tile<8xi32>
  %cum = tile.scan sum %nt dim 0 : !tile.tile<8xi32>
  // Expert e of this program: the number of experts whose tiles end at or before pm.
  %pms = tile.splat %pm : i32 -> !tile.tile<8xi32>
  %before = arith.cmpi sle, %cum, %pms : !tile.tile<8xi32>
  %bi = arith.extui %before : !tile.tile<8xi1> to !tile.tile<8xi32>
  %e = tile.reduce sum %bi dim 0 : !tile.tile<8xi32> -> i32
  %es = tile.splat %e : i32 -> !tile.tile<8xi32>
  %is = arith.cmpi eq, %io, %es : !tile.tile<8xi32>
  %zeros = arith.constant dense<0> : !tile.tile<8xi32>
  %cumx = arith.subi %cum, %nt : !tile.tile<8xi32>
  %first = arith.select %is, %cumx, %zeros : !tile.tile<8xi1>, !tile.tile<8xi32>
  %ft = tile.reduce sum %first dim 0 : !tile.tile<8xi32> -> i32
  %sv = arith.select %is, %st, %zeros : !tile.tile<8xi1>, !tile.tile<8xi32>
  %s0 = tile.reduce sum %sv dim 0 : !tile.tile<8xi32> -> i32
  %ev = arith.select %is, %en, %zeros : !tile.tile<8xi1>, !tile.tile<8xi32>
  %e1 = tile.reduce sum %ev dim 0 : !tile.tile<8xi32> -> i32
  %j = arith.subi %pm, %ft : i32
  %jr = arith.muli %j, %c128 : i32
  %m0 = arith.addi %s0, %jr : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<128x256xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero)
      -> (!tile.tile<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %tb3 = tile.load %b[%e, %k0, %n0] : !tile.tensor<8x?x?xbf16> -> !tile.tile<1x64x256xbf16>
    %tb = tile.reshape %tb3 : !tile.tile<1x64x256xbf16> -> !tile.tile<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x256xbf16>
        -> !tile.tile<128x256xf32>
    scf.yield %d : !tile.tile<128x256xf32>
  }
  %rows = tile.iota : !tile.tile<128xi32>
  %m0s = tile.splat %m0 : i32 -> !tile.tile<128xi32>
  %r = arith.addi %rows, %m0s : !tile.tile<128xi32>
  %e1s = tile.splat %e1 : i32 -> !tile.tile<128xi32>
  %in = arith.cmpi slt, %r, %e1s : !tile.tile<128xi32>
  %in2 = tile.expand_dims %in axis 1 : !tile.tile<128xi1> -> !tile.tile<128x1xi1>
  %mask = tile.broadcast %in2 : !tile.tile<128x1xi1> -> !tile.tile<128x256xi1>
  %o = arith.truncf %acc : !tile.tile<128x256xf32> to !tile.tile<128x256xbf16>
  // Whole tiles of the expert store without the mask (a masked store goes
  // element by element); the expert's last, partial tile with it.
  %end = arith.addi %m0, %c128 : i32
  %whole = arith.cmpi sle, %end, %e1 : i32
  scf.if %whole {
    tile.store %o, %c[%m0, %n0] : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  } else {
    tile.store %o, %c[%m0, %n0] mask(%mask : !tile.tile<128x256xi1>) : !tile.tile<128x256xbf16>, !tile.tensor<?x?xbf16>
  }
  return
}
