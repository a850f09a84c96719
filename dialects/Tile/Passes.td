//===- Passes.td - tilec passes ----------------------------*- tablegen -*-===//

#ifndef TILEC_PASSES_TD
#define TILEC_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyKernels : Pass<"tile-verify-kernels", "mlir::ModuleOp"> {
  let summary = "check that every tile value is a valid tile";
  let description = [{
    `arith`, `math` and `scf` ops accept any tensor; this pass checks that
    every tensor value in a kernel is a tile: static, power-of-two dims and a
    supported element type. It also checks each kernel's launch attributes.
  }];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "give every tile a #tile.linear layout";
  let description = [{
    Global loads and stores get coalesced, vectorized blocked layouts; dot
    operands and accumulators get mma.sync fragment layouts; reductions give
    slices of their operand's layout. Where a value's layout differs from the
    one a user needs, a `tile.convert_layout` is inserted.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", /*default=*/"4",
           "warps per program when the kernel does not say (tile.num_warps)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "mlir::ModuleOp"> {
  let summary = "lower tile programs to the LLVM and NVVM dialects";
  let description = [{
    Each tile becomes the scalars the current thread holds under its layout
    (a 1:N conversion); kernel arguments become pointers, extents and strides;
    tile ops become per-thread arithmetic, predicated vector memory accesses,
    warp shuffles, shared memory and mma.sync. Records the shared memory each
    kernel needs as `tile.shared_memory`.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"",
           "target architecture (sm_90a or sm_100a)">,
  ];
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

#endif // TILEC_PASSES_TD
