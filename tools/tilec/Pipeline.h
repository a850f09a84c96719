//===- Pipeline.h - running tilec compile's pipeline ------------*- C++ -*-===//

#ifndef TILEC_TOOLS_TILEC_PIPELINE_H
#define TILEC_TOOLS_TILEC_PIPELINE_H

#include "tilec/Pipeline/Pipeline.h"
#include "tilec/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include <functional>

namespace tilec {

/// How to compile. The target is not here: it is the module's
/// `tile.target` attribute, which the driver sets from --arch.
struct CompileOptions {
  int optLevel = 3;
  /// Pass arguments (or "all") after which to print the IR to stderr.
  std::vector<std::string> printAfter;
  /// --timing: each pipeline times its passes under this scope.
  mlir::TimingScope *timing = nullptr;
};

/// Adds IR printing to `pm` as `options` ask.
void configurePrinting(mlir::PassManager &pm, const CompileOptions &options);

/// Tile-level passes: verification, canonicalization, layouts.
mlir::LogicalResult runTilePasses(mlir::ModuleOp module,
                                  const CompileOptions &options);
/// Tile IR (with layouts) to the LLVM and NVVM dialects.
mlir::LogicalResult runLoweringPasses(mlir::ModuleOp module,
                                      const CompileOptions &options);
mlir::LogicalResult runLLVMPasses(mlir::ModuleOp module,
                                  const CompileOptions &options);

} // namespace tilec

#endif // TILEC_TOOLS_TILEC_PIPELINE_H
