//===- ReduceOpToLLVM.cpp - tile.reduce to registers, shuffles, shared ----===//
//
// A reduction along dim d of a tile whose layout bases are axis-aligned runs
// in three steps: within a thread over the registers whose bases lie along d;
// across lanes with butterfly shuffles for the lane bits along d; across warps
// through shared memory for the warp bits along d. The result has the
// operand's layout with d removed (lane and warp bits along d replicate).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Spreads the bits of `compact` over the bit positions in `positions`.
int64_t expandBits(int64_t compact, ArrayRef<unsigned> positions) {
  int64_t r = 0;
  for (auto [j, p] : llvm::enumerate(positions))
    if (compact & (int64_t(1) << j))
      r |= int64_t(1) << p;
  return r;
}

struct ReduceOpLowering : public OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto srcTy = cast<RankedTensorType>(op.getSrc().getType());
    LinearLayout layout = getLayout(srcTy);
    int dim = op.getDim();
    if (!layout.isAxisAligned())
      return op.emitOpError()
             << "cannot reduce a tile whose layout mixes dims in one basis";
    ValueRange values = adaptor.getSrc();
    ReduceKind kind = op.getKind();

    // 1. Within a thread, as a tree of pairs: log2(n) dependent steps
    // rather than a chain of n - 1 (a softmax row's max and sum are on the
    // critical path), and rounding errors that grow with log n.
    SmallVector<unsigned> along, other;
    const auto &regs = layout.getBases(InDim::Register);
    for (unsigned i = 0; i < regs.size(); ++i)
      (regs[i][dim] != 0 ? along : other).push_back(i);
    SmallVector<Value> acc;
    for (int64_t rho = 0; rho < (int64_t(1) << other.size()); ++rho) {
      int64_t r0 = expandBits(rho, other);
      SmallVector<Value> level;
      for (int64_t s = 0; s < (int64_t(1) << along.size()); ++s)
        level.push_back(values[r0 | expandBits(s, along)]);
      while (level.size() > 1) {
        SmallVector<Value> next;
        for (size_t i = 0; i < level.size(); i += 2)
          next.push_back(combineReduce(e, kind, level[i], level[i + 1]));
        level = std::move(next);
      }
      acc.push_back(level.front());
    }

    // 2. Across lanes.
    const auto &lanes = layout.getBases(InDim::Lane);
    for (unsigned i = 0; i < lanes.size(); ++i)
      if (lanes[i][dim] != 0)
        for (Value &a : acc)
          a = combineReduce(e, kind, a, e.shuffleXor(a, 1 << i));

    // 3. Across warps, through shared memory.
    const auto &warps = layout.getBases(InDim::Warp);
    SmallVector<unsigned> warpAlong;
    for (unsigned i = 0; i < warps.size(); ++i)
      if (warps[i][dim] != 0)
        warpAlong.push_back(i);
    if (!warpAlong.empty()) {
      LinearLayout result = layout.reduceDim(dim);
      int64_t numel = 1;
      for (int64_t s : result.getShape())
        numel *= s;
      Type elt = srcTy.getElementType();
      Type st = storageType(elt);
      auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
      Value base = e.sharedBase(op);
      ThreadCoords coords(e, result);
      Value warp = e.warpId();
      Value part = e.i32(0);
      for (auto [j, bit] : llvm::enumerate(warpAlong)) {
        Value b = e.andI(arith::ShRUIOp::create(e.b, e.loc, warp, e.i32(bit)),
                         e.i32(1));
        part = arith::OrIOp::create(
            e.b, e.loc, part,
            arith::ShLIOp::create(e.b, e.loc, b, e.i32(j)));
      }
      e.barrier();
      SmallVector<Value> flats;
      for (auto [rho, a] : llvm::enumerate(acc)) {
        flats.push_back(coords.flatIndex(rho));
        Value idx = e.add(e.mul(part, e.i32(numel)), flats.back());
        Value ptr = LLVM::GEPOp::create(e.b, e.loc, ptrTy, st, base,
                                        ValueRange{idx});
        LLVM::StoreOp::create(e.b, e.loc, e.toBits(a), ptr);
      }
      e.barrier();
      for (auto [rho, a] : llvm::enumerate(acc)) {
        for (int64_t q = 0; q < (int64_t(1) << warpAlong.size()); ++q) {
          Value idx = e.add(e.i32(q * numel), flats[rho]);
          Value ptr = LLVM::GEPOp::create(e.b, e.loc, ptrTy, st, base,
                                          ValueRange{idx});
          Value v = e.fromBits(LLVM::LoadOp::create(e.b, e.loc, st, ptr), elt);
          a = q == 0 ? v : combineReduce(e, kind, a, v);
        }
      }
    }

    if (!isa<RankedTensorType>(op.getType()))
      acc.resize(1);
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};
} // namespace

void tilec::populateTileReducePatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, patterns.getContext()); // tile.reduce
}
