//===- TileShapeVariantsSwap.cpp - a member computing Cᵀ = Bᵀ·Aᵀ ---------===//
//
// tile-shape-variants' swap-AB members: at small M a tile of 16 or 32 rows
// of C is wgmma's N, and the tile's columns (rows of B's N) its M, so the
// MMA wastes no rows and A's slot takes 16 or 32 rows, not 64: the stages
// hold more of B, which is what a small-M GEMM streams.
//
//===----------------------------------------------------------------------===//

#include "ShapeVariants.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::shape_variants;

namespace {

/// What `v` is the 2-d transpose of, or null.
Value transposeSource(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  return t && t.getPermutation() == ArrayRef<int32_t>{1, 0} ? t.getSrc()
                                                            : Value();
}

/// `v` transposed (2-d): the source of a transpose of `v`, else a new one.
Value transposed(OpBuilder &b, Location loc, Value v) {
  if (Value src = transposeSource(v))
    return src;
  auto type = cast<RankedTensorType>(v.getType());
  auto shape = type.getShape();
  return TransposeOp::create(b, loc, type.clone({shape[1], shape[0]}), v,
                             b.getDenseI32ArrayAttr({1, 0}));
}

/// Sets the K loop's step to `step`, re-typing every tile dim K's class
/// holds (A's columns, B's rows, the tiles they are made from). Fails where
/// a constant equal to the old step is used other than as the step or in
/// the output's offsets (otherConstantUses: K's tile size in disguise).
LogicalResult retileK(func::FuncOp func, Plan &plan, DotOp dot,
                      scf::ForOp loop, int64_t step, std::string &why) {
  TiledDim k;
  k.size = *getConstantIntValue(loop.getStep());
  if (k.size == step)
    return success();
  if (otherConstantUses(func, plan, k, why))
    return failure();
  int kClass = plan.classes.find(dot.getA(), 1);
  retypeTiles(plan, [&](int cls, int64_t size) {
    return cls == kClass ? step : size;
  });
  OpBuilder b(loop);
  loop.getStepMutable().assign(arith::ConstantOp::create(
      b, loop.getLoc(), b.getIntegerAttr(loop.getStep().getType(), step)));
  return success();
}

} // namespace

LogicalResult shape_variants::swapOperands(func::FuncOp func, Plan &plan,
                                           int64_t step, std::string &why) {
  DotOp dot = mainDot(func);
  if (!dot || !dot->hasOneUse()) {
    why = "the main loop's dot has other uses than the loop's result";
    return failure();
  }
  auto loop = cast<scf::ForOp>(dot->getParentOp());
  if (loop.getNumRegionIterArgs() != 1 ||
      dot.getAcc() != loop.getRegionIterArgs()[0] ||
      !loop.getRegionIterArgs()[0].hasOneUse()) {
    why = "the K loop carries more than the dot's accumulator";
    return failure();
  }
  auto init = loop.getInitArgs()[0].getDefiningOp<arith::ConstantOp>();
  auto splat = init ? dyn_cast<SplatElementsAttr>(init.getValue())
                    : SplatElementsAttr();
  if (!splat) {
    why = "the accumulator does not start as a splat";
    return failure();
  }
  // A becomes wgmma's B, which must come from shared memory: a tile
  // computed in registers (A scaled in the loop) would put the member on
  // mma.sync, slower than the members it would replace.
  Value a0 = dot.getA();
  while (Value src = transposeSource(a0))
    a0 = src;
  if (!a0.getDefiningOp<LoadOp>()) {
    why = "A is not a loaded tile (swapped, it is wgmma's B, read from "
          "shared memory)";
    return failure();
  }
  Type accElem = getElementTypeOrSelf(dot.getType());
  if (!accElem.isF32() && !accElem.isInteger(32)) {
    why = "the accumulator is not f32 or i32";
    return failure();
  }
  // wgmma transposes 16-bit operands as it reads them; others it reads
  // K-major only, so B must be given N x K (the swapped A, B's tile as
  // loaded) and A M x K (the swapped B, A's tile).
  Type elem = getElementTypeOrSelf(dot.getA().getType());
  bool sixteen = elem.isBF16() || elem.isF16();
  if (!sixteen &&
      (!transposeSource(dot.getB()) || transposeSource(dot.getA()))) {
    why = "its operands are not 16-bit floats and B is not given N x K "
          "(wgmma reads other types K-major only)";
    return failure();
  }
  if (failed(retileK(func, plan, dot, loop, step, why)))
    return failure();

  // The loop again, carrying the tile transposed: Cᵀ += Bᵀ · Aᵀ.
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto accType = cast<RankedTensorType>(dot.getType());
  auto accT = accType.clone({accType.getDimSize(1), accType.getDimSize(0)});
  Value initT = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accT, splat.getSplatValue<Attribute>()));
  auto swapped = scf::ForOp::create(b, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(),
                                    ValueRange{initT});
  Block *body = swapped.getBody();
  body->getOperations().splice(body->end(), loop.getBody()->getOperations());
  loop.getInductionVar().replaceAllUsesWith(swapped.getInductionVar());
  b.setInsertionPoint(dot);
  Value a = transposed(b, dot.getLoc(), dot.getB());
  Value bt = transposed(b, dot.getLoc(), dot.getA());
  auto dotT = DotOp::create(b, dot.getLoc(), accT, a, bt,
                            swapped.getRegionIterArgs()[0]);
  dotT->setDiscardableAttrs(dot->getDiscardableAttrDictionary());
  dot.replaceAllUsesWith(dotT.getResult());
  dot.erase();
  b.setInsertionPointAfter(swapped);
  Value back = transposed(b, loc, swapped.getResult(0));
  loop.getResult(0).replaceAllUsesWith(back);
  loop.erase();
  if (init->use_empty())
    init.erase();
  return verifyTrial(func, "the swapped program", why);
}
