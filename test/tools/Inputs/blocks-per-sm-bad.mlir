// tile.blocks_per_sm out of range (test/tools/blocks-per-sm.test).
func.func @k(%x: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.blocks_per_sm = 5, tile.grid = #tile.grid<1>} {
  return
}
