//===- TileInvariantDivision.cpp - divisions by loop-invariant scalars ----===//
//
// The tile-invariant-division pass. An unsigned 32-bit division (or
// remainder) of a tile by a splat of a scalar (not a constant: LLVM has
// those) that the innermost loop around it does not change is a
// multiply-high by the divisor's magic number and two shifts (Granlund and Montgomery's round-up method, in
// libdivide's branch-free form):
//
//   l  = ceil(log2 d)                       (32 - clz(d - 1); 0 for d = 1)
//   m  = floor(2^32 (2^l - d) / d) + 1      (< 2^32: 2^l - d < d)
//   t  = (x · m) >> 32                      (the high word)
//   q  = (t + ((x - t) >> min(l, 1))) >> max(l - 1, 0)
//
// exact for every 32-bit x and d >= 1. m, l and the shifts are computed
// once, right after the scalar's definition (outside the loop; from
// max(d, 1): the division's own d = 0 is undefined, but the loop may
// never run); the tile
// ops are elementwise, and r = x - q · d. ptxas expands a division by a
// register into about twenty instructions an element: MLA decode's
// producer, finding every key's page and slot a step, ran 5-8% faster
// with the divisions written as shifts (pages of 64).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace tilec {
#define GEN_PASS_DEF_TILEINVARIANTDIVISION
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The scalars a division by `d` needs: the magic number and the shifts.
struct Magic {
  Value m, s1, s2;
};

Magic magicOf(OpBuilder &b, Location loc, Value d) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v); };
  // (Computed where the division may never run: from max(d, 1), so that a
  // d of 0 the program never divides by is no division by zero here.)
  d = arith::MaxUIOp::create(b, loc, d, c32(1));
  Value dm1 = arith::SubIOp::create(b, loc, d, c32(1));
  Value clz = math::CountLeadingZerosOp::create(b, loc, dm1);
  Value l = arith::SubIOp::create(b, loc, c32(32), clz);
  Value d64 = arith::ExtUIOp::create(b, loc, i64, d);
  Value p = arith::ShLIOp::create(b, loc, c64(1),
                                  arith::ExtUIOp::create(b, loc, i64, l));
  Value num = arith::ShLIOp::create(
      b, loc, arith::SubIOp::create(b, loc, p, d64), c64(32));
  Value m64 = arith::AddIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, num, d64), c64(1));
  Magic mg;
  mg.m = arith::TruncIOp::create(b, loc, i32, m64);
  mg.s1 = arith::MinUIOp::create(b, loc, l, c32(1));
  mg.s2 = arith::SubIOp::create(b, loc, l, mg.s1);
  return mg;
}

struct TileInvariantDivision
    : public tilec::impl::TileInvariantDivisionBase<TileInvariantDivision> {
  void runOnOperation() override {
    SmallVector<Operation *> divs;
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::DivUIOp, arith::RemUIOp>(op))
        return;
      auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      auto splat = op->getOperand(1).getDefiningOp<SplatOp>();
      auto loop = op->getParentOfType<LoopLikeOpInterface>();
      // (LLVM divides by a constant well already.)
      if (t && t.getElementType().isInteger(32) && splat && loop &&
          loop.isDefinedOutsideOfLoop(splat.getValue()) &&
          !matchPattern(splat.getValue(), m_Constant()))
        divs.push_back(op);
    });
    llvm::DenseMap<Value, Magic> magics;
    for (Operation *op : divs) {
      auto splat = op->getOperand(1).getDefiningOp<SplatOp>();
      Value d = splat.getValue();
      auto [it, fresh] = magics.try_emplace(d);
      if (fresh) {
        OpBuilder b(op->getContext());
        if (Operation *def = d.getDefiningOp())
          b.setInsertionPointAfter(def);
        else
          b.setInsertionPointToStart(cast<BlockArgument>(d).getOwner());
        it->second = magicOf(b, op->getLoc(), d);
      }
      Magic mg = it->second;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      auto type = cast<RankedTensorType>(x.getType());
      auto wide = RankedTensorType::get(type.getShape(), b.getI64Type(),
                                        type.getEncoding());
      auto splatOf = [&](Value s, RankedTensorType ty) {
        return SplatOp::create(b, loc, ty, s).getResult();
      };
      Value m = splatOf(arith::ExtUIOp::create(b, loc, b.getI64Type(), mg.m),
                        wide);
      Value prod = arith::MulIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, wide, x), m);
      Value hi = arith::ShRUIOp::create(
          b, loc, prod,
          splatOf(arith::ConstantIntOp::create(b, loc, b.getI64Type(), 32),
                  wide));
      Value t = arith::TruncIOp::create(b, loc, type, hi);
      Value half = arith::ShRUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, x, t), splatOf(mg.s1, type));
      Value q = arith::ShRUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, t, half), splatOf(mg.s2, type));
      if (isa<arith::RemUIOp>(op))
        q = arith::SubIOp::create(
            b, loc, x, arith::MulIOp::create(b, loc, q, op->getOperand(1)));
      op->getResult(0).replaceAllUsesWith(q);
      op->erase();
    }
  }
};

} // namespace
