//===- LayoutOpsToLLVM.cpp - convert_layout and shape ops -----------------===//
//
// Shape ops (expand_dims, transpose, reshape) keep every register where it
// is: their result layouts are derived from the operand's, so only the
// meaning of each register changes. Broadcasts replicate registers.
// tile.convert_layout is a register permutation when the lane and warp bases
// agree, warp shuffles when every element stays in its warp (and the source
// register depends on the destination register alone), and otherwise a
// round trip through shared memory.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

LinearLayout layoutOf(Value v) { return getLayout(v.getType()); }

/// The shared addresses ldmatrix/stmatrix take: for each group of 8
/// registers, lane t points at row t % 8 of matrix t / 8.
class MatrixRows {
public:
  MatrixRows(Emitter &e, const LinearLayout &toOffset, const MatrixLoad &m,
             Value base, Type storage)
      : e(e), base(base), storage(storage),
        // Offsets of the registers as lane 0 of this warp holds them.
        lane0({{"register", toOffset.getBases("register")},
               {"lane", LinearLayout::Bases(5, LinearLayout::Coords{0})},
               {"warp", toOffset.getBases("warp")}},
              toOffset.getOutDims()),
        groupAt(e, lane0) {
    // Per group, a constant offset XOR this lane's row and warp: only the
    // bits these can set need an XOR (Emitter::xorConst).
    Value lane = e.laneId();
    threadPart = groupAt.threadPart(0);
    threadBits = groupAt.threadBits(0);
    for (int b = 0; b < 5; ++b) {
      Value bit = e.andI(arith::ShRUIOp::create(e.b, e.loc, lane, e.i32(b)),
                         e.i32(1));
      threadPart = e.xorI(threadPart, e.mul(bit, e.i32(m.rowBases[b])));
      threadBits |= m.rowBases[b];
    }
  }
  /// This lane's row of group `r / 8` (!llvm.ptr<3>).
  Value address(int64_t r) {
    auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
    return LLVM::GEPOp::create(
        e.b, e.loc, ptrTy, storage, base,
        ValueRange{e.xorConst(threadPart, threadBits, groupAt.constant(r)[0])});
  }

private:
  Emitter &e;
  Value base;
  Type storage;
  LinearLayout lane0;
  ThreadCoords groupAt;
  Value threadPart;
  int64_t threadBits;
};

} // namespace

/// ldmatrix/stmatrix of 8x8 matrices of b16, transposed (col) or not.
static NVVM::MMALayoutAttr matrixLayout(Emitter &e, bool transposed) {
  return NVVM::MMALayoutAttr::get(e.b.getContext(),
                                  transposed ? NVVM::MMALayout::col
                                             : NVVM::MMALayout::row);
}
static NVVM::LdStMatrixShapeAttr matrixShape(Emitter &e) {
  return NVVM::LdStMatrixShapeAttr::get(e.b.getContext(), 8, 8);
}
static NVVM::LdStMatrixEltTypeAttr matrixB16(Emitter &e) {
  return NVVM::LdStMatrixEltTypeAttr::get(e.b.getContext(),
                                          NVVM::LdStMatrixEltType::B16);
}

void tilec::storeToShared(Emitter &e, ValueRange values, Type elt,
                          const SharedAccess &store, Value base) {
  Type st = storageType(elt);
  unsigned bytes = storageBytes(elt);
  std::optional<MatrixLoad> stm;
  if (bytes == 2 && values.size() % 8 == 0)
    stm = matchLdmatrix(store.toOffset);
  if (stm) {
    // stmatrix.x4: each group of 8 registers is four 8x8 matrices.
    MatrixRows rows(e, store.toOffset, *stm, base, st);
    for (int64_t r = 0; r < int64_t(values.size()); r += 8) {
      SmallVector<Value> words;
      for (int64_t j = 0; j < 4; ++j)
        words.push_back(e.packWords(values.slice(r + 2 * j, 2))[0]);
      NVVM::StMatrixOp::create(e.b, e.loc, rows.address(r), words,
                               matrixLayout(e, stm->transposed),
                               matrixShape(e), matrixB16(e));
    }
    return;
  }
  ThreadCoords storeAt(e, store.toOffset);
  int64_t vs = store.vectorElements;
  for (int64_t r = 0; r < int64_t(values.size()); r += vs)
    storeSharedVector(e, values.slice(r, vs), elt, base, storeAt.get(r, 0));
}

void tilec::storeSharedVector(Emitter &e, ValueRange values, Type elt,
                              Value base, Value offset) {
  Type st = storageType(elt);
  auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
  int64_t vs = values.size();
  Value v;
  if (vs == 1) {
    v = e.toBits(values[0]);
  } else {
    v = LLVM::UndefOp::create(e.b, e.loc, VectorType::get(vs, st));
    for (int64_t i = 0; i < vs; ++i)
      v = LLVM::InsertElementOp::create(e.b, e.loc, v, e.toBits(values[i]),
                                        e.i32(i));
  }
  Value addr =
      LLVM::GEPOp::create(e.b, e.loc, ptrTy, st, base, ValueRange{offset});
  LLVM::StoreOp::create(e.b, e.loc, v, addr, vs * storageBytes(elt));
}

void tilec::fenceProxyAsyncShared(Emitter &e) {
  MLIRContext *ctx = e.b.getContext();
  NVVM::FenceProxyOp::create(
      e.b, e.loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

SmallVector<Value> tilec::loadFromShared(Emitter &e, int64_t numRegisters,
                                         Type elt, const SharedAccess &load,
                                         Value base) {
  Type st = storageType(elt);
  auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
  unsigned bytes = storageBytes(elt);
  SmallVector<Value> results;
  std::optional<MatrixLoad> ldm;
  if (bytes == 2 && numRegisters % 8 == 0)
    ldm = matchLdmatrix(load.toOffset);
  if (ldm) {
    // ldmatrix.x4: each group of 8 registers is four 8x8 matrices.
    MatrixRows rows(e, load.toOffset, *ldm, base, st);
    Type i32 = e.b.getI32Type();
    Type four = LLVM::LLVMStructType::getLiteral(e.b.getContext(),
                                                 {i32, i32, i32, i32});
    for (int64_t r = 0; r < numRegisters; r += 8) {
      Value m = NVVM::LdMatrixOp::create(
          e.b, e.loc, four, rows.address(r), e.b.getI32IntegerAttr(4),
          matrixLayout(e, ldm->transposed), matrixShape(e), matrixB16(e));
      for (int64_t j = 0; j < 4; ++j)
        results.append(e.unpackWords(
            {LLVM::ExtractValueOp::create(e.b, e.loc, m, j)}, elt, 2));
    }
    return results;
  }
  ThreadCoords loadAt(e, load.toOffset);
  int64_t vl = load.vectorElements;
  Type vt = vl == 1 ? st : Type(VectorType::get(vl, st));
  for (int64_t r = 0; r < numRegisters; r += vl) {
    Value addr = LLVM::GEPOp::create(e.b, e.loc, ptrTy, st, base,
                                     ValueRange{loadAt.get(r, 0)});
    Value v = LLVM::LoadOp::create(e.b, e.loc, vt, addr, vl * bytes);
    for (int64_t i = 0; i < vl; ++i)
      results.push_back(e.fromBits(
          vl == 1 ? v
                  : Value(LLVM::ExtractElementOp::create(e.b, e.loc, v,
                                                         e.i32(i))),
          elt));
  }
  return results;
}

namespace {

struct ConvertLayoutOpLowering : public OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout from = layoutOf(op.getSrc()), to = layoutOf(op.getResult());
    ValueRange values = adaptor.getSrc();
    SmallVector<Value> results;
    if (isRegisterPermutation(from, to)) {
      for (int64_t r = 0; r < to.getNumRegisters(); ++r)
        results.push_back(
            values[*from.findRegister(to.applyIn(InDim::Register, r))]);
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    // Within each warp: one shuffle a register.
    if (std::optional<LinearLayout> t = shuffleTransfer(from, to)) {
      Emitter e{rewriter, op.getLoc()};
      ThreadCoords src(e, *t); // per register: (register, lane, warp) of from
      for (int64_t r = 0; r < to.getNumRegisters(); ++r) {
        int64_t srcReg = t->applyIn(InDim::Register, r)[0];
        results.push_back(e.shuffleIdx(values[srcReg], src.get(r, 1)));
      }
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    // Through shared memory, in the layout tile-swizzle chose (or the same
    // choice made here), with vector stores and loads.
    Emitter e{rewriter, op.getLoc()};
    Type elt = cast<RankedTensorType>(op.getType()).getElementType();
    unsigned bits = elt.getIntOrFloatBitWidth();
    std::optional<SharedChoice> choice;
    if (auto attr = op.getSharedAttr()) {
      LinearLayout shared = attr.toLayout(to.getShape());
      auto store = analyzeSharedAccess(from, shared, bits);
      auto load = analyzeSharedAccess(to, shared, bits);
      if (store && load)
        choice = SharedChoice{shared, *store, *load};
    } else {
      choice = chooseSharedLayout(from, to, bits);
    }
    if (!choice)
      return op.emitOpError() << "the shared layout does not hold every "
                                 "element of the tile";
    Value base = e.sharedBase(op);
    e.barrier();
    storeToShared(e, values, elt, choice->store, base);
    e.barrier();
    results = loadFromShared(e, to.getNumRegisters(), elt, choice->load, base);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct BroadcastOpLowering : public OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout res = layoutOf(op.getResult()), src = layoutOf(op.getSrc());
    std::vector<int> dims;
    auto srcShape = cast<RankedTensorType>(op.getSrc().getType()).getShape();
    for (unsigned d = 0; d < srcShape.size(); ++d)
      if (srcShape[d] != res.getShape()[d])
        dims.push_back(d);
    if (src != res.broadcastOperand(dims))
      return op.emitOpError() << "operand layout is not the broadcast slice "
                                 "of the result layout";
    SmallVector<Value> results;
    for (int64_t r = 0; r < res.getNumRegisters(); ++r) {
      LinearLayout::Coords c = res.applyIn(InDim::Register, r);
      for (int d : dims)
        c[d] = 0;
      results.push_back(adaptor.getSrc()[*src.findRegister(c)]);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// expand_dims, transpose, reshape: registers stay; check the layouts agree.
template <typename OpTy>
struct ShapeOpLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (shapeOpLayout(op, layoutOf(op.getSrc())) != layoutOf(op.getResult()))
      return op.emitOpError() << "result layout must be derived from the "
                                 "operand's; insert a tile.convert_layout";
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

struct SplatOpLowering : public OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t n = layoutOf(op.getResult()).getNumRegisters();
    SmallVector<Value> results(n, adaptor.getValue().front());
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct IotaOpLowering : public OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    LinearLayout l = layoutOf(op.getResult());
    ThreadCoords coords(e, l);
    SmallVector<Value> results;
    for (int64_t r = 0; r < l.getNumRegisters(); ++r)
      results.push_back(coords.get(r, 0));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void tilec::populateTileLayoutPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutOpLowering,       // tile.convert_layout
               BroadcastOpLowering,           // tile.broadcast
               ShapeOpLowering<ExpandDimsOp>, // tile.expand_dims
               ShapeOpLowering<TransposeOp>,  // tile.transpose
               ShapeOpLowering<ReshapeOp>,    // tile.reshape
               SplatOpLowering,               // tile.splat
               IotaOpLowering                 // tile.iota
               >(converter, patterns.getContext());
}
