// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: unsupported-element-type.mlir:4:30: error: unsupported tensor element type 'f64'; expected i1, i8, i16, i32, i64, f16, bf16, f32, f8E4M3FN or f8E5M2
// f64 is not a tile element type.
func.func @k(%x: !tile.tensor<?xf64>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
