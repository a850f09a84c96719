// RUN: not tilec compile %s -o %t.tlc 2>&1 | FileCheck %s
// Found by scripts/fuzz.py (seed 1, mutant 196, once examples/gemm_i8_tf32.mlir
// joined the seeds): a TMA view of `index` elements crashed the view
// type's verifier, which read the element width before checking the type.
// CHECK: tma-view-of-index.mlir:[[@LINE+1]]:30: error: unsupported tensor element type 'index'; expected i1, i8
func.func @k(%a: !tile.tensor<?x?xindex, tma = 128x64, swizzle = 128>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
