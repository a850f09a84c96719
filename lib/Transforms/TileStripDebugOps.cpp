//===- TileStripDebugOps.cpp - drop tile.print/assert outside --debug -----===//
//
// tile.print and tile.assert cost registers, a format string and a call per
// element; a release build leaves them out unless the op says `always`. The
// module's tile.debug (tilec compile --debug) keeps them all.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Transforms/Passes.h"

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
    if (getOperation()->hasAttr(kDebugAttr))
      return;
    SmallVector<Operation *> dead;
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
