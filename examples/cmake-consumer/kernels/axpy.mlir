// y = alpha * x + y over f32 vectors of any length, 1024 elements a program.
func.func @axpy(%alpha: f32, %x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(1, 0), 1024)>} {
  %pid = tile.program_id x
  %c1024 = arith.constant 1024 : i32
  %off = arith.muli %pid, %c1024 : i32
  %a = tile.splat %alpha : f32 -> !tile.tile<1024xf32>
  %tx = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<1024xf32>
  %ty = tile.load %y[%off] : !tile.tensor<?xf32> -> !tile.tile<1024xf32>
  %ax = arith.mulf %a, %tx : !tile.tile<1024xf32>
  %r = arith.addf %ax, %ty : !tile.tile<1024xf32>
  tile.store %r, %y[%off] : !tile.tile<1024xf32>, !tile.tensor<?xf32>
  return
}
