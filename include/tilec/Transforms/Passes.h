//===- Passes.h - tilec passes ----------------------------------*- C++ -*-===//

#ifndef TILEC_TRANSFORMS_PASSES_H
#define TILEC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/TGPU/TGPUDialect.h"

namespace tilec {

#define GEN_PASS_DECL
#include "tilec/Dialect/Tile/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/Tile/Passes.h.inc"

/// What tile-remove-layout-conversions does, on `root` alone (the plain
/// twin runs it on itself after its dots change layouts).
mlir::LogicalResult removeLayoutConversions(mlir::Operation *root);

/// What tile-assign-layouts does, on `func` alone and for `target` (the
/// plain twin of an sm_100a kernel is laid out again as on sm_90a: for
/// mma.sync, not tcgen05).
mlir::LogicalResult assignLayouts(mlir::func::FuncOp func, tile::Target target);

/// What tile-swizzle does, on `root` alone.
mlir::LogicalResult chooseSwizzles(mlir::Operation *root);

/// The stages of `loop`'s classic pipeline (its TMA-copied loads a stage)
/// that fit in a block's shared memory beside the scratch (without
/// `without`'s), the barriers, the kernel's buffers and `extraBytes`; 0
/// if the loop has no TMA-copied load (tile-pipeline-schedule).
int64_t pipelineStagesThatFit(mlir::func::FuncOp func, mlir::scf::ForOp loop,
                              int64_t extraBytes = 0,
                              mlir::Operation *without = nullptr);

} // namespace tilec

#endif // TILEC_TRANSFORMS_PASSES_H
