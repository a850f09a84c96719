// RUN: not tilec compile %s 2>&1 | FileCheck %s
// A sort is a network unrolled over the registers that hold its lines:
// 32x1024 i32 in one warp (1024 words a thread) ran 333 s and 2.8 GB in
// ptxas, then failed without a location. Past 128 words a thread it is
// refused at the op, saying what to change (16 warps sort it in seconds).
func.func @k(%x: !tile.tensor<?x?xi32>, %o: !tile.tensor<?x?xi32>)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xi32> -> !tile.tile<32x1024xi32>
  // CHECK: sort-too-large.mlir:[[#@LINE+1]]:8: error: 'tile.sort' would keep 1024 32-bit words of keys and values a thread in registers with 32 threads, more than the 128 a sorting network compiles to: use more warps (tile.num_warps) or fewer lines a program
  %s = tile.sort %t dim 1 : !tile.tile<32x1024xi32>
  tile.store %s, %o[%c0, %c0] : !tile.tile<32x1024xi32>, !tile.tensor<?x?xi32>
  return
}
