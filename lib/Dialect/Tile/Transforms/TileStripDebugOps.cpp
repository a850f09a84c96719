//===- TileStripDebugOps.cpp - drop tile.print/assert outside --debug -----===//
//
// tile.print and tile.assert cost registers, a format string and a call per
// element; a release build leaves them out unless the op says `always`. The
// module's tile.debug (tilec compile --debug) keeps them all. Profile scopes
// (tile.profile_begin/end) stay only in kernels with tile.profile (tilec
// compile --profile).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tilec {
#define GEN_PASS_DEF_TILESTRIPDEBUGOPS
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {
struct TileStripDebugOps
    : public tilec::impl::TileStripDebugOpsBase<TileStripDebugOps> {
  void runOnOperation() override {
    SmallVector<Operation *> dead;
    // Profile scopes of kernels that are not profiled.
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func->hasAttr(kProfileAttr))
        func.walk([&](Operation *op) {
          if (isa<ProfileBeginOp, ProfileEndOp>(op))
            dead.push_back(op);
        });
    if (getOperation()->hasAttr(kDebugAttr)) {
      for (Operation *op : dead)
        op->erase();
      return;
    }
    getOperation().walk([&](Operation *op) {
      if (auto p = dyn_cast<PrintOp>(op); p && !p.getAlways())
        dead.push_back(op);
      if (auto a = dyn_cast<AssertOp>(op); a && !a.getAlways())
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
  }
};
} // namespace
