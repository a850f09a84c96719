// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: tile-too-large.mlir:6:8: error: 'tile.load' op makes a tile of 4096 elements per thread ('!tile.tile<512x1024xf32>' over 128 threads); at most 1024 fit: use smaller tiles or more warps
func.func @k(%x: !tile.tensor<?x?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  // 512 Ki elements over 4 warps.
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<512x1024xf32>
  tile.store %t, %x[%c0, %c0] : !tile.tile<512x1024xf32>, !tile.tensor<?x?xf32>
  return
}
