//===- Passes.td - lowering to the LLVM and NVVM dialects --*- tablegen -*-===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "mlir::ModuleOp"> {
  let summary = "lower tile programs to the LLVM and NVVM dialects";
  let description = [{
    Each tile becomes the scalars the current thread holds under its layout
    (a 1:N conversion); kernel arguments become pointers, extents and strides;
    tile ops become per-thread arithmetic, predicated vector memory accesses,
    warp shuffles, shared memory and mma.sync. Records the shared memory each
    kernel needs as `tile.shared_memory`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerToLLVM : Pass<"tilec-lower-to-llvm", "mlir::ModuleOp"> {
  let summary = "lower what remains (scf, arith, math, func) to LLVM and NVVM";
  let description = [{
    Runs after convert-tile-to-llvm: scf to cf, then arith, math (fast
    approximations on the special-function unit), cf and func to LLVM, and
    marks kernels for NVVM.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // TILEC_CONVERSION_PASSES_TD
