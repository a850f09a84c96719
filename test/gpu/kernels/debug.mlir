// Kernels for test/gpu/test_debug.py, compiled with --debug: tile.print
// and tile.assert.

// Prints x (a 4x8 tile) from program (1, 0, 0) only, and the scalar n from
// every program.
func.func @print_tile(%x: !tile.tensor<?x?xi32>, %n: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<3>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xi32> -> !tile.tile<4x8xi32>
  tile.print "x" %t program [1, 0, 0] : !tile.tile<4x8xi32>
  tile.print "n" %n : i32
  return
}

// Stops with a device-side assertion where x[i] >= limit.
func.func @check_below(%x: !tile.tensor<?xf32>, %limit: f32)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c128 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %l = tile.splat %limit : f32 -> !tile.tile<128xf32>
  %ok = arith.cmpf olt, %t, %l : !tile.tile<128xf32>
  tile.assert %ok, "x below the limit" : !tile.tile<128xi1>
  return
}
