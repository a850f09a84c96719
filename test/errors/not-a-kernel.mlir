// RUN: not tilec compile %s 2>&1 | FileCheck %s
// CHECK: not-a-kernel.mlir:3:1: error: function 'helper' is not a kernel: tilec compiles functions marked tile.kernel
func.func @helper(%x: f32) -> f32 {
  return %x : f32
}
