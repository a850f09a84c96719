// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: dot-shape-mismatch.mlir:9:8: error: 'tile.dot' op expected b to have 32 rows (the columns of a), found 64
func.func @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %a = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %b = tile.load %x[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  // K of a is 32, K of b is 64.
  %d = tile.dot %a, %b, %z : !tile.tile<64x32xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
  return
}
