//===- SelectMMASync.cpp - a dot back onto mma.sync -----------------------===//
//
// The IR rewrite that selects mma.sync for a dot laid out for an
// asynchronous MMA (TilePartitionSchedule, TilePlainTwin and
// TileSelectMMAAndTMA fall back on it): not a dialect hook, so it lives
// with the passes.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

void tgpu::selectMMASync(tile::DotOp dot) {
  dot->setAttr(kMMAAttr, MMAAttr::mmaSync(dot.getContext()));
  auto type = cast<RankedTensorType>(dot.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  auto iterArg = dyn_cast<BlockArgument>(dot.getAcc());
  int numWarps = tile::getNumWarps(dot->getParentOfType<func::FuncOp>());
  if (!tile::getLayoutAttr(type) || shape.size() != 2 || numWarps % 4 ||
      tile::getLayout(type) != LinearLayout::tmem32x32b(shape, numWarps))
    return;
  bool carried = loop && iterArg && iterArg.getOwner() == loop.getBody();
  auto [wm, wn] =
      LinearLayout::mmaWarpSplit(shape[0], shape[1], numWarps, !carried);
  auto mmaType = cast<RankedTensorType>(
      tile::withLayout(type, LinearLayout::mmaAccumulator(shape, wm, wn)));
  if (!carried) {
    OpBuilder b(dot);
    auto aType = cast<RankedTensorType>(dot.getA().getType());
    std::vector<int64_t> aShape(aType.getShape().begin(),
                                aType.getShape().end());
    LinearLayout aWant = LinearLayout::mmaOperand(
        0, aShape, aType.getElementType().getIntOrFloatBitWidth(), wm, wn);
    if (tile::getLayout(aType) != aWant)
      dot.getAMutable().assign(tile::ConvertLayoutOp::create(
          b, dot.getLoc(), tile::withLayout(aType, aWant), dot.getA()));
    dot.getAccMutable().assign(
        tile::ConvertLayoutOp::create(b, dot.getLoc(), mmaType, dot.getAcc()));
    dot.getResult().setType(mmaType);
    b.setInsertionPointAfter(dot);
    auto back = tile::ConvertLayoutOp::create(b, dot.getLoc(), type, dot.getResult());
    dot.getResult().replaceAllUsesExcept(back, back);
    return;
  }
  unsigned idx = iterArg.getArgNumber() - 1;
  OpBuilder b(loop);
  OpOperand &init = loop.getInitsMutable()[idx];
  init.set(tile::ConvertLayoutOp::create(b, loop.getLoc(), mmaType, init.get()));
  iterArg.setType(mmaType);
  dot.getResult().setType(mmaType);
  Value result = loop.getResult(idx);
  result.setType(mmaType);
  b.setInsertionPointAfter(loop);
  auto back = tile::ConvertLayoutOp::create(b, loop.getLoc(), type, result);
  result.replaceAllUsesExcept(back, back);
}
