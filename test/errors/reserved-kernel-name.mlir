// RUN: not tilec compile %s 2>&1 | FileCheck %s
// A kernel may not take a name the back end or the device runtime owns
// (__nvvm_reflect was silently deleted: exit 0, empty PTX, a bundle naming
// a kernel its code lacked).
// CHECK: reserved-kernel-name.mlir:[[#@LINE+1]]:1: error: kernel '__nvvm_reflect': names beginning with '__' or '_' and a capital letter are reserved (NVVM, libdevice and CUDA use them)
func.func @__nvvm_reflect(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
// CHECK: reserved-kernel-name.mlir:[[#@LINE+1]]:1: error: kernel '_Kernel': names beginning
func.func @_Kernel(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
// CHECK: reserved-kernel-name.mlir:[[#@LINE+1]]:1: error: kernel 'tilec_smem': the 'tilec_' prefix is reserved for the compiler's own symbols
func.func @tilec_smem(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
// CHECK: reserved-kernel-name.mlir:[[#@LINE+1]]:1: error: kernel 'vprintf': 'vprintf' is a function of CUDA's device runtime
func.func @vprintf(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
