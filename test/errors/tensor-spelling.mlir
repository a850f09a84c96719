// RUN: not tilec compile %s 2>&1 | FileCheck %s
// A program that spells its tiles tensor<...> reads them so in diagnostics
// (type-mismatch.mlir: one that spells them the tile way).
// CHECK: tensor-spelling.mlir:10:19: error: use of value '%t' expects different type than prior uses: 'tensor<16xf16>' vs 'tensor<16xf32>'
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<16xf32>
  %u = tile.load %x[%c0] : !tile.tensor<?xf32> -> tensor<16xf32>
  // Adding tiles of two element types.
  %s = arith.addf %t, %u : tensor<16xf16>
  return
}
