//===- TileUtils.cpp - facts about tile values used by layout passes ------===//

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

static bool isElementwise(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         op->getNumRegions() == 0;
}

bool tile::isRematerializable(Value v) {
  // Iterative walk over the producers, bounded so that large graphs simply
  // count as not rematerializable.
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!isa<RankedTensorType>(cur.getType()))
      continue; // scalars are uniform and free to reuse
    Operation *def = cur.getDefiningOp();
    if (!def)
      return false;
    if (!seen.insert(def).second)
      continue;
    if (seen.size() > 64)
      return false;
    if (isa<SplatOp, IotaOp, arith::ConstantOp>(def))
      continue;
    if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp>(def) ||
        isElementwise(def)) {
      for (Value operand : def->getOperands())
        work.push_back(operand);
      continue;
    }
    return false;
  }
  return true;
}

int tile::layoutWeight(Value v) {
  Operation *def = v.getDefiningOp();
  // A broadcast can produce any layout from a small conversion of its
  // operand, and a loop-carried value can be carried in another layout.
  if (isRematerializable(v) || isa_and_nonnull<BroadcastOp>(def))
    return 0;
  if (!def)
    return 1;
  if (isa<DotOp>(def))
    return 3;
  SetVector<Operation *> producers;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  (void)getBackwardSlice(def, &producers, options);
  return llvm::any_of(producers, [](Operation *p) { return isa<DotOp>(p); })
             ? 3
             : 2;
}
