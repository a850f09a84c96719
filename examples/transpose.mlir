// Y = Xᵀ for an MxN matrix, one tile a program. The tile is read
// along X's rows and written along Y's rows, so its layout changes on the
// way: a conversion through shared memory, whose swizzle tile-swizzle
// chooses to keep both sides free of bank conflicts.
func.func @transpose_f32(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(0, 1), 128)>} {
  // f32 tiles are 32x128: at 64x64 no swizzle keeps both sides free of
  // conflicts (tilec compile --report=bank-conflicts shows why).
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %t = tile.load %x[%m0, %n0] : !tile.tensor<?x?xf32> -> !tile.tile<32x128xf32>
  %tt = tile.transpose %t [1, 0] : !tile.tile<32x128xf32> -> !tile.tile<128x32xf32>
  tile.store %tt, %y[%n0, %m0] : !tile.tile<128x32xf32>, !tile.tensor<?x?xf32>
  return
}

func.func @transpose_bf16(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(0, 1), 64)>} {
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %t = tile.load %x[%m0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  %tt = tile.transpose %t [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  tile.store %tt, %y[%n0, %m0] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16>
  return
}
