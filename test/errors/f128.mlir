// RUN: not tilec compile %s 2>&1 | FileCheck %s
// Floats wider than f64 are rejected at the op that makes one (f128 math
// ended in "translation to LLVM IR failed" at file:0:0).
func.func @k(%s: f32, %o: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  // CHECK: f128.mlir:[[#@LINE+1]]:8: error: 'arith.extf' makes a value of 'f128', which the GPU has no arithmetic for; the widest float tilec computes in is f64
  %d = arith.extf %s : f32 to f128
  %e = math.exp %d : f128
  %f = arith.truncf %e : f128 to f32
  %t = tile.splat %f : f32 -> !tile.tile<128xf32>
  tile.store %t, %o[%c0] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}
