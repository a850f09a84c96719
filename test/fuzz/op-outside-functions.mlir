// RUN: not tilec compile %s -o /dev/null 2>&1 | FileCheck %s
// Found by scripts/fuzz.py (seed 41, mutant 8095, a mutant of
// Conversion/convert-tgpu-to-llvm-tcgen05.mlir with a line moved out of its
// function): a tgpu op between functions crashed the translation to LLVM
// IR (SIGSEGV); tile and arith ops there were dropped in silence. Every op
// outside a function is refused where it stands.
// CHECK: op-outside-functions.mlir:[[@LINE+1]]:3: error: 'tgpu.cluster_sync' is outside every function: a program's ops belong in a kernel (func.func)
  tgpu.cluster_sync
// CHECK: op-outside-functions.mlir:[[@LINE+1]]:1: error: 'tile.program_id' is outside every function
tile.program_id x
// CHECK: op-outside-functions.mlir:[[@LINE+1]]:6: error: 'arith.constant' is outside every function
%c = arith.constant 1 : i32
func.func @k() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %acc = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  return
}
