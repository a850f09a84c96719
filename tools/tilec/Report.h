//===- Report.h - tilec compile reports -------------------------*- C++ -*-===//

#ifndef TILEC_TOOLS_TILEC_REPORT_H
#define TILEC_TOOLS_TILEC_REPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace tilec {

/// Prints, for each conversion through shared memory (after tile-swizzle),
/// its location, layouts and the wavefronts of its stores and loads against
/// the ideal. Returns the total excess wavefronts.
int64_t reportBankConflicts(mlir::ModuleOp module, llvm::raw_ostream &os);

/// How a kernel was compiled, read from the IR after the tile passes.
struct KernelPath {
  std::string name;
  mlir::Location loc;
  /// "warp-specialized TMA + wgmma, cooperative, 4 stages", "warp-
  /// specialized thread copies + wgmma, 3 stages" (a twin), "pipelined
  /// (4 stages), mma.sync", "plain, mma.sync", ...
  std::string description;
  /// Whether the kernel has dots that run off the warp-specialized path of
  /// a target that has one (its remarks say why).
  bool missedFastPath = false;
  /// tilec's own copy: a shape variant or the plain twin of a kernel.
  bool generated = false;
  bool isTwin = false;
  /// What the compiler made of each load and dot of the kernel's
  /// warp-specialized main loop, at the op's location: a load's transport
  /// (TMA boxes into a ring of N slots, once or each iteration; or the
  /// load partition's threads), a dot's MMA (the instruction, the
  /// warpgroups and how they split it, where A and B come from, where it
  /// is waited for). Read from the IR the PTX is made of.
  std::vector<std::pair<mlir::Location, std::string>> mainLoop;
};
std::vector<KernelPath> describeKernelPaths(mlir::ModuleOp module);

/// ptxas -v's figures for one function.
struct PtxasStats {
  int registers = 0;
  int64_t stackBytes = 0, spillStores = 0, spillLoads = 0;
};
std::map<std::string, PtxasStats> parsePtxasInfo(llvm::StringRef log);

} // namespace tilec

#endif // TILEC_TOOLS_TILEC_REPORT_H
