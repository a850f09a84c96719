//===- Report.h - tilec compile reports -------------------------*- C++ -*-===//

#ifndef TILEC_TOOLS_TILEC_REPORT_H
#define TILEC_TOOLS_TILEC_REPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {

/// Prints, for each conversion through shared memory (after tile-swizzle),
/// its location, layouts and the wavefronts of its stores and loads against
/// the ideal. Returns the total excess wavefronts.
int64_t reportBankConflicts(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace tilec

#endif // TILEC_TOOLS_TILEC_REPORT_H
