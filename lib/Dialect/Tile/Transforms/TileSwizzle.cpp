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
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#define DEBUG_TYPE "tile-swizzle"

namespace tilec {
#define GEN_PASS_DEF_TILESWIZZLE
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The shared layout of `op`'s round trip, null where it needs none (a
/// register permutation or a shuffle); nullopt after an error.
std::optional<SharedLayoutAttr> choose(ConvertLayoutOp op) {
  LinearLayout from = getLayout(op.getSrc().getType());
  LinearLayout to = getLayout(op.getType());
  if (isRegisterPermutation(from, to) || shuffleTransfer(from, to))
    return SharedLayoutAttr();
  unsigned bits = getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth();
  std::optional<SharedChoice> c = chooseSharedLayout(from, to, bits);
  if (!c) {
    op.emitOpError() << "found no shared-memory layout for this conversion";
    return std::nullopt;
  }
  return SharedLayoutAttr::get(op.getContext(), c->shared);
}

} // namespace

LogicalResult tilec::chooseSwizzles(Operation *root) {
  // The same conversion recurs (a kernel's tile-shape variants and plain
  // twin repeat its epilogue): each (source, result) type pair is searched
  // once; a null attribute means "no shared memory".
  llvm::DenseMap<std::pair<Type, Type>, SharedLayoutAttr> chosen;
  WalkResult r = root->walk([&](ConvertLayoutOp op) {
    if (!getLayoutAttr(op.getSrc().getType()) || !getLayoutAttr(op.getType()))
      return WalkResult::advance();
    auto key = std::make_pair(op.getSrc().getType(), op.getType());
    auto it = chosen.find(key);
    if (it == chosen.end()) {
      std::optional<SharedLayoutAttr> c = choose(op);
      if (!c)
        return WalkResult::interrupt();
      it = chosen.try_emplace(key, *c).first;
    }
    if (it->second)
      op.setSharedAttr(it->second);
    else
      op.removeSharedAttr();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

namespace {
struct TileSwizzle : public tilec::impl::TileSwizzleBase<TileSwizzle> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(chooseSwizzles(getOperation())))
      signalPassFailure();
  }
};
} // namespace
