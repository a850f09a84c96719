// Kernels and parameters named like what --emit=c generates or includes
// (test/tools/emit-c.test): each made output that did not compile.
func.func @data(%stream: !tile.tensor<?xf32>, %kernel: !tile.tensor<?xf32>,
                %args: i32, %s: i32, %memset: i32, %NULL: i32, %uint64_t: i32,
                %x: !tile.tensor<?xf32>, %x_shape: i32, %tilec_k: f32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
func.func @loaded(%b: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
func.func @bundle(%none: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
func.func @a(%d: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
func.func @a_kernel(%int64_t: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
