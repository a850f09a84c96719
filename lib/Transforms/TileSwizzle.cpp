//===- TileSwizzle.cpp - conflict-free shared-memory layouts --------------===//
//
// Every tile.convert_layout that is not a register permutation round-trips
// through shared memory; this pass picks that buffer's layout with
// chooseSharedLayout (widest vectors, then fewest excess wavefronts) and
// records it on the op, where lowering and --report=bank-conflicts read it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"
#include "tilec/Transforms/Passes.h"

#define DEBUG_TYPE "tile-swizzle"

namespace tilec {
#define GEN_PASS_DEF_TILESWIZZLE
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {
struct TileSwizzle : public tilec::impl::TileSwizzleBase<TileSwizzle> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult r = getOperation().walk([&](ConvertLayoutOp op) {
      if (!getLayoutAttr(op.getSrc().getType()) ||
          !getLayoutAttr(op.getType()))
        return WalkResult::advance();
      LinearLayout from = getLayout(op.getSrc().getType());
      LinearLayout to = getLayout(op.getType());
      if (isRegisterPermutation(from, to) || shuffleTransfer(from, to)) {
        op.removeSharedAttr();
        return WalkResult::advance();
      }
      unsigned bits = getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth();
      std::optional<SharedChoice> c = chooseSharedLayout(from, to, bits);
      if (!c) {
        op.emitOpError() << "found no shared-memory layout for this conversion";
        return WalkResult::interrupt();
      }
      op.setSharedAttr(SharedLayoutAttr::get(&getContext(), c->shared));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
