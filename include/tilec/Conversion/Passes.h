//===- Passes.h - lowering to the LLVM and NVVM dialects --------*- C++ -*-===//

#ifndef TILEC_CONVERSION_PASSES_H
#define TILEC_CONVERSION_PASSES_H

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tilec {

#define GEN_PASS_DECL
#include "tilec/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Conversion/Passes.h.inc"

} // namespace tilec

#endif // TILEC_CONVERSION_PASSES_H
