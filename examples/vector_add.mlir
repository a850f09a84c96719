// out = x + y over vectors of any length, 1024 elements a program.
func.func @vector_add(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>,
                      %out: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 1024)>} {
  %pid = tile.program_id x
  %c1024 = arith.constant 1024 : i32
  %off = arith.muli %pid, %c1024 : i32
  %a = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<1024xf32>
  %b = tile.load %y[%off] : !tile.tensor<?xf32> -> !tile.tile<1024xf32>
  %c = arith.addf %a, %b : !tile.tile<1024xf32>
  tile.store %c, %out[%off] : !tile.tile<1024xf32>, !tile.tensor<?xf32>
  return
}
