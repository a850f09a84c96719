//===- LayoutOpsToLLVM.cpp - convert_layout and shape ops -----------------===//
//
// Shape ops (expand_dims, transpose, reshape) keep every register where it
// is: their result layouts are derived from the operand's, so only the
// meaning of each register changes. Blocks (extract_slice, insert_slice,
// concat) pick registers: tile-assign-layouts gives them layouts in which a
// block is whole registers. Broadcasts replicate registers.
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

void tilec::asyncCopyToShared(Emitter &e, Value addr, Value pred,
                              int64_t bytes, Type elt, Value base,
                              Value offset) {
  auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
  Value dst = sharedAddress(e, LLVM::GEPOp::create(e.b, e.loc, ptrTy,
                                                   storageType(elt), base,
                                                   ValueRange{offset}));
  Value srcSize = pred ? Value(arith::SelectOp::create(
                             e.b, e.loc, e.eq(pred, e.i32(0)), e.i32(0),
                             e.i32(bytes)))
                       : e.i32(bytes);
  e.ptx(std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
            ".shared.global [$0], [$1], " + std::to_string(bytes) + ", $2;",
        "r,l,r", {}, {dst, addr, srcSize}, /*sideEffects=*/true);
}

void tilec::fenceProxyAsyncShared(Emitter &e) {
  MLIRContext *ctx = e.b.getContext();
  NVVM::FenceProxyOp::create(
      e.b, e.loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

void tilec::releaseSharedStores(Emitter &e) {
  e.ptx("fence.acq_rel.cta;", "", {}, {}, /*sideEffects=*/true);
}

SmallVector<Value> tilec::loadFromShared(Emitter &e, int64_t numRegisters,
                                         Type elt, const SharedAccess &load,
                                         Value base) {
  Type st = storageType(elt);
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
  for (int64_t r = 0; r < numRegisters; r += load.vectorElements)
    loadSharedVector(e, load.vectorElements, elt, base, loadAt.get(r, 0),
                     results);
  return results;
}

void tilec::loadSharedVector(Emitter &e, int64_t count, Type elt, Value base,
                             Value offset, SmallVectorImpl<Value> &results) {
  Type st = storageType(elt);
  auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
  Type vt = count == 1 ? st : Type(VectorType::get(count, st));
  Value addr =
      LLVM::GEPOp::create(e.b, e.loc, ptrTy, st, base, ValueRange{offset});
  Value v = LLVM::LoadOp::create(e.b, e.loc, vt, addr,
                                 count * storageBytes(elt));
  for (int64_t i = 0; i < count; ++i)
    results.push_back(e.fromBits(
        count == 1 ? v
                   : Value(LLVM::ExtractElementOp::create(e.b, e.loc, v,
                                                          e.i32(i))),
        elt));
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

/// Writes `values` (a block in `s`) into `regs` (the whole tile's): every
/// register of the tile at the block's coordinates, copies included.
static void insertBlock(const LinearLayout &whole, SmallVector<Value> &regs,
                        const RegisterBlock &s, ValueRange values,
                        ArrayRef<int64_t> offsets) {
  std::vector<int64_t> sizes = s.layout.getShape();
  std::map<LinearLayout::Coords, int64_t> blockRegister;
  for (int64_t r = s.layout.getNumRegisters() - 1; r >= 0; --r)
    blockRegister[s.layout.applyIn(InDim::Register, r)] = r;
  for (int64_t r = 0; r < whole.getNumRegisters(); ++r) {
    LinearLayout::Coords c = whole.applyIn(InDim::Register, r);
    bool inside = true;
    for (unsigned d = 0; d < c.size(); ++d) {
      c[d] -= offsets[d];
      inside &= c[d] >= 0 && c[d] < sizes[d];
    }
    if (inside)
      regs[r] = values[blockRegister.at(c)];
  }
}

/// A block of a tile moving through the tile's row-major copy in shared
/// memory (the block op's scratch), where the block is not whole
/// registers. The block at `offsets` starts that many elements in: with
/// every coordinate of the block below the tile's extent, the offset of
/// each element is the block's row-major offset plus the start.
class SharedBlock {
public:
  SharedBlock(Emitter &e, Operation *op, Type elt, ArrayRef<int64_t> whole)
      : e(e), elt(elt), whole(whole), base(e.sharedBase(op)) {}

  void store(const LinearLayout &l, ValueRange values,
             ArrayRef<int64_t> offsets) {
    Access a = access(l, offsets);
    ThreadCoords at(e, a.toOffset);
    for (int64_t r = 0; r < l.getNumRegisters(); r += a.vector)
      storeSharedVector(e, values.slice(r, a.vector), elt, a.base,
                        at.get(r, 0));
  }

  SmallVector<Value> load(const LinearLayout &l, ArrayRef<int64_t> offsets) {
    Access a = access(l, offsets);
    ThreadCoords at(e, a.toOffset);
    SmallVector<Value> results;
    for (int64_t r = 0; r < l.getNumRegisters(); r += a.vector)
      loadSharedVector(e, a.vector, elt, a.base, at.get(r, 0), results);
    return results;
  }

private:
  struct Access {
    LinearLayout toOffset; // register, lane, warp -> element offset
    int64_t vector;        // registers a vector access moves
    Value base;            // the block's first element
  };

  Access access(const LinearLayout &l, ArrayRef<int64_t> offsets) {
    SmallVector<int64_t> strides(whole.size(), 1);
    for (int d = int(whole.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * whole[d + 1];
    auto offsetOf = [&](ArrayRef<int64_t> c) {
      int64_t o = 0;
      for (unsigned d = 0; d < c.size(); ++d)
        o += c[d] * strides[d];
      return o;
    };
    LinearLayout::NamedBases ins;
    for (auto &[name, bases] : l.getInDims()) {
      LinearLayout::Bases o;
      for (const LinearLayout::Coords &c : bases)
        o.push_back({offsetOf(c)});
      ins.push_back({name, o});
    }
    int64_t start = offsetOf(offsets);
    Access a{LinearLayout(ins, {{"offset", strides[0] * whole[0]}}), 1, base};
    // (The start, too, a multiple of the vector.)
    a.vector =
        sharedVectorElements(a.toOffset, storageBytes(elt), 16, start);
    if (start)
      a.base = LLVM::GEPOp::create(
          e.b, e.loc, base.getType(), storageType(elt), base,
          ValueRange{e.i32(start)});
    return a;
  }

  Emitter &e;
  Type elt;
  SmallVector<int64_t> whole;
  Value base;
};

static SmallVector<int64_t> shapeOf(Value v) {
  return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
}

static Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// extract_slice: the block's registers, renamed; else the tile into
/// shared memory and the block out.
struct ExtractSliceOpLowering : public OpConversionPattern<ExtractSliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ExtractSliceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> results;
    if (auto s = registerBlock(layoutOf(op.getSrc()), layoutOf(op.getResult()),
                               op.getOffsets())) {
      for (int64_t r : s->registers)
        results.push_back(adaptor.getSrc()[r]);
    } else {
      Emitter e{rewriter, op.getLoc()};
      SharedBlock shared(e, op, elementOf(op.getSrc()), shapeOf(op.getSrc()));
      SmallVector<int64_t> origin(op.getOffsets().size(), 0);
      e.barrier();
      shared.store(layoutOf(op.getSrc()), adaptor.getSrc(), origin);
      e.barrier();
      results = shared.load(layoutOf(op.getResult()), op.getOffsets());
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// insert_slice: the tile's registers, the block's replaced; else the tile
/// into shared memory, the block over it, and the tile out.
struct InsertSliceOpLowering : public OpConversionPattern<InsertSliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(InsertSliceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout whole = layoutOf(op.getDest());
    SmallVector<Value> results(adaptor.getDest());
    if (auto s = registerBlock(whole, layoutOf(op.getSrc()), op.getOffsets())) {
      insertBlock(whole, results, *s, adaptor.getSrc(), op.getOffsets());
    } else {
      Emitter e{rewriter, op.getLoc()};
      SharedBlock shared(e, op, elementOf(op.getDest()),
                         shapeOf(op.getDest()));
      SmallVector<int64_t> origin(op.getOffsets().size(), 0);
      e.barrier();
      shared.store(whole, adaptor.getDest(), origin);
      e.barrier();
      shared.store(layoutOf(op.getSrc()), adaptor.getSrc(), op.getOffsets());
      e.barrier();
      results = shared.load(whole, origin);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// concat: each tile's registers where its block sits; else each tile into
/// shared memory at its place and the whole out.
struct ConcatOpLowering : public OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout whole = layoutOf(op.getResult());
    bool renames = isRegisterBlockOp(op);
    Emitter e{rewriter, op.getLoc()};
    std::optional<SharedBlock> shared;
    if (!renames) {
      shared.emplace(e, op, elementOf(op.getResult()), shapeOf(op.getResult()));
      e.barrier();
    }
    SmallVector<Value> results(whole.getNumRegisters());
    for (auto [in, values, offsets] :
         llvm::zip(op.getInputs(), adaptor.getInputs(), op.getBlockOffsets())) {
      if (renames)
        insertBlock(whole, results,
                    *registerBlock(whole, layoutOf(in), offsets), values,
                    offsets);
      else
        shared->store(layoutOf(in), values, offsets);
    }
    if (!renames) {
      e.barrier();
      results = shared->load(whole, SmallVector<int64_t>(whole.getRank(), 0));
    }
    rewriter.replaceOpWithMultiple(op, {results});
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
               ExtractSliceOpLowering,        // tile.extract_slice
               InsertSliceOpLowering,         // tile.insert_slice
               ConcatOpLowering,              // tile.concat
               SplatOpLowering,               // tile.splat
               IotaOpLowering                 // tile.iota
               >(converter, patterns.getContext());
}
