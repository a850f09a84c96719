//===- TileScalarMemory.cpp - scalar loads and stores as tiles ------------===//
//
// The tile-scalar-memory pass: a per-row value (attention's LSE, a scale)
// is loaded and stored as a scalar, with no one-element tile and no
// reduction in the program. Here each becomes that tile, so that the
// passes after this one see tile loads and stores only:
//
//   %s = tile.load %x[%i, %j] : !tile.tensor<?x?xf32> -> f32
//     ->
//   %t = tile.load %x[%i, %j] : ... -> !tile.tile<1x1xf32>
//   %u = tile.reduce max %t dim 1 : !tile.tile<1x1xf32> -> !tile.tile<1xf32>
//   %s = tile.reduce max %u dim 0 : !tile.tile<1xf32> -> f32
//
//   tile.store %s, %x[%i, %j] : f32, ...
//     ->
//   %t = tile.splat %s : f32 -> !tile.tile<1x1xf32>
//   tile.store %t, %x[%i, %j] : !tile.tile<1x1xf32>, ...
//
// A reduction over dims of one element combines nothing: `max` returns the
// element (its sign, a NaN) as it is.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tilec {
#define GEN_PASS_DEF_TILESCALARMEMORY
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The one-element tile of `view`'s rank and element type.
RankedTensorType oneElement(TensorViewType view) {
  return RankedTensorType::get(SmallVector<int64_t>(view.getRank(), 1),
                               view.getElementType());
}

struct TileScalarMemory
    : public tilec::impl::TileScalarMemoryBase<TileScalarMemory> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> scalar;
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op);
          load && !isa<ShapedType>(load.getType()))
        scalar.push_back(op);
      if (auto store = dyn_cast<StoreOp>(op);
          store && !isa<ShapedType>(store.getValue().getType()))
        scalar.push_back(op);
    });
    for (Operation *op : scalar) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<LoadOp>(op)) {
        TensorViewType view = load.getTensor().getType();
        RankedTensorType t = oneElement(view);
        Value v = LoadOp::create(b, loc, t, load.getTensor(),
                                 load.getOffsets(), Value(),
                                 load.getPaddingAttr(), load.getInBounds());
        for (int64_t dim = view.getRank() - 1; dim >= 0; --dim) {
          Type to = dim ? Type(RankedTensorType::get(
                              SmallVector<int64_t>(dim, 1),
                              view.getElementType()))
                        : view.getElementType();
          v = ReduceOp::create(b, loc, to, ReduceKind::Max, v, dim);
        }
        load.replaceAllUsesWith(v);
        load.erase();
        continue;
      }
      auto store = cast<StoreOp>(op);
      TensorViewType view = store.getTensor().getType();
      Value t = SplatOp::create(b, loc, oneElement(view), store.getValue());
      StoreOp::create(b, loc, t, store.getTensor(), store.getOffsets(),
                      Value(), store.getInBounds(), AtomicKindAttr());
      store.erase();
    }
  }
};

} // namespace
