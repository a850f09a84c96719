//===- TileRemoveLayoutConversions.cpp - propagate layouts ----------------===//
//
// After tile-assign-layouts, conversions sit wherever a user needed another
// layout. This pass moves them to where they are cheapest or cancel:
//   - forward through elementwise ops (towards narrower types and stores),
//   - backward out of loops (a loop-carried value takes the layout its
//     yielded value has), through reshapes, and, through the convert_layout
//     canonicalizations, into broadcast and expand_dims operands and onto
//     cheap values.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tile-remove-layout-conversions"

namespace tilec {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// op(convert(x1), ..., cheap...) -> convert(op(x1, ..., convert(cheap)...))
/// when every converted operand comes from one layout, at least one of them
/// is not rematerializable (those conversions sink instead, below), and the
/// other operands are cheap in any layout (rematerializable or broadcasts).
struct HoistConvertOverElementwise : public RewritePattern {
  HoistConvertOverElementwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op))
      return failure();
    auto resTy = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resTy || !getLayoutAttr(resTy))
      return failure();
    Attribute from;
    bool anyHeavy = false;
    for (Value v : op->getOperands()) {
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      if (auto cv = v.getDefiningOp<ConvertLayoutOp>()) {
        Attribute l = getLayoutAttr(cv.getSrc().getType());
        if (from && l != from)
          return failure();
        from = l;
        anyHeavy |= !isRematerializable(cv.getSrc());
        continue;
      }
      if (layoutWeight(v) != 0)
        return failure();
    }
    if (!anyHeavy)
      return failure();
    LinearLayout layout = cast<LinearLayoutAttr>(from).toLayout(resTy.getShape());
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      if (!isa<RankedTensorType>(v.getType())) {
        operands.push_back(v);
      } else if (auto cv = v.getDefiningOp<ConvertLayoutOp>()) {
        operands.push_back(cv.getSrc());
      } else {
        operands.push_back(ConvertLayoutOp::create(
            rewriter, op->getLoc(), withLayout(v.getType(), layout), v));
      }
    }
    Operation *moved = rewriter.create(
        op->getLoc(), op->getName().getIdentifier(), operands,
        {withLayout(resTy, layout)}, op->getAttrs());
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, resTy,
                                                 moved->getResult(0));
    return success();
  }
};

/// convert(op(x1, ...)) -> op(convert(x1), ...) for a rematerializable
/// elementwise op: the conversion moves towards splats, iotas and constants,
/// where canonicalization rebuilds them in the target layout.
struct SinkConvertIntoRematerializable : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp cv,
                                PatternRewriter &rewriter) const override {
    Operation *op = cv.getSrc().getDefiningOp();
    if (!op || !isElementwise(op) || !isRematerializable(cv.getSrc()))
      return failure();
    LinearLayout layout = getLayout(cv.getType());
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(isa<RankedTensorType>(v.getType())
                             ? Value(ConvertLayoutOp::create(
                                   rewriter, cv.getLoc(),
                                   withLayout(v.getType(), layout), v))
                             : v);
    Operation *moved =
        rewriter.create(op->getLoc(), op->getName().getIdentifier(), operands,
                        {cv.getType()}, op->getAttrs());
    rewriter.replaceOp(cv, moved->getResult(0));
    return success();
  }
};

/// convert(reshape(x)) -> reshape(convert(x)): still one conversion, now
/// next to x's definition, where it folds into a conversion that made x
/// (a masked store's value converted before and after its reshape to the
/// view's rank) or sinks into a rematerializable one (a row mask built from
/// an iota, which then needs no round trip through shared memory at all).
struct SinkConvertThroughReshape : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp cv,
                                PatternRewriter &rewriter) const override {
    auto rs = cv.getSrc().getDefiningOp<ReshapeOp>();
    if (!rs || !getLayoutAttr(cv.getType()) ||
        !getLayoutAttr(rs.getSrc().getType()))
      return failure();
    auto srcTy = cast<RankedTensorType>(rs.getSrc().getType());
    LinearLayout operand =
        getLayout(cv.getType()).reshape(srcTy.getShape().vec());
    Value src = rs.getSrc();
    if (getLayout(srcTy) != operand)
      src = ConvertLayoutOp::create(rewriter, cv.getLoc(),
                                    withLayout(srcTy, operand), src);
    rewriter.replaceOpWithNewOp<ReshapeOp>(cv, cv.getType(), src);
    return success();
  }
};

/// store(reshape?(convert(x))) -> store(reshape?(x)) for a tile of fewer
/// elements than the kernel has threads (attention's row log-sum-exp): the
/// conversion only made the writes wider, and a few narrow stores cost
/// less than its round trip through shared memory and barrier across every
/// warp. Threads holding the same element store the same value.
struct StoreSmallTileAsIs : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(StoreOp store,
                                PatternRewriter &rewriter) const override {
    auto func = store->getParentOfType<func::FuncOp>();
    auto ty = cast<RankedTensorType>(store.getValue().getType());
    // (A mask keeps the value's layout: it would need converting too.)
    if (!func || store.getMask() ||
        ty.getNumElements() >= int64_t(getNumWarps(func)) * 32)
      return failure();
    Value v = store.getValue();
    auto rs = v.getDefiningOp<ReshapeOp>();
    auto cv = (rs ? rs.getSrc() : v).getDefiningOp<ConvertLayoutOp>();
    if (!cv || (rs && !rs->hasOneUse()))
      return failure();
    Value src = cv.getSrc();
    if (rs) {
      LinearLayout l = getLayout(src.getType()).reshape(ty.getShape());
      src = ReshapeOp::create(rewriter, rs.getLoc(), withLayout(ty, l), src);
    }
    rewriter.modifyOpInPlace(store,
                             [&] { store.getValueMutable().assign(src); });
    return success();
  }
};

/// A loop-carried tile whose yielded value is a conversion from layout L
/// (typically a dot accumulator) is carried in L instead: the init is
/// converted before the loop and the uses in and after the loop see
/// conversions back, which canonicalization folds with the ones the body
/// already had.
void carryYieldedLayouts(scf::ForOp forOp) {
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  for (unsigned i = 0; i < forOp.getNumRegionIterArgs(); ++i) {
    BlockArgument arg = forOp.getRegionIterArgs()[i];
    auto conv = yield.getOperand(i).getDefiningOp<ConvertLayoutOp>();
    if (!conv || !getLayoutAttr(arg.getType()))
      continue;
    Type carried = conv.getSrc().getType(), old = arg.getType();
    if (carried == old)
      continue;
    OpBuilder b(forOp);
    Location loc = forOp.getLoc();
    OpOperand &init = forOp.getInitsMutable()[i];
    init.set(ConvertLayoutOp::create(b, loc, carried, init.get()));
    Value result = forOp.getResult(i);
    arg.setType(carried);
    result.setType(carried);
    b.setInsertionPointToStart(forOp.getBody());
    auto inBody = ConvertLayoutOp::create(b, loc, old, arg);
    arg.replaceAllUsesExcept(inBody, inBody);
    yield->setOperand(i, conv.getSrc());
    b.setInsertionPointAfter(forOp);
    auto after = ConvertLayoutOp::create(b, loc, old, result);
    result.replaceAllUsesExcept(after, after);
  }
}

struct TileRemoveLayoutConversions
    : public tilec::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversions> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(removeLayoutConversions(getOperation())))
      signalPassFailure();
  }
};
} // namespace

LogicalResult tilec::removeLayoutConversions(Operation *root) {
  MLIRContext *ctx = root->getContext();
  root->walk([](scf::ForOp forOp) { carryYieldedLayouts(forOp); });
  RewritePatternSet patterns(ctx);
  patterns.add<HoistConvertOverElementwise, SinkConvertIntoRematerializable,
               SinkConvertThroughReshape, StoreSmallTileAsIs>(ctx);
  ConvertLayoutOp::getCanonicalizationPatterns(patterns, ctx);
  return applyPatternsGreedily(root, std::move(patterns));
}
