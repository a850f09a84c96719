//===- ConvertTileToLLVM.cpp - tiles to per-thread scalars ----------------===//
//
// The convert-tile-to-llvm pass. A tile with a linear layout becomes the
// scalars the current thread holds (one per register, a 1:N conversion); a
// tensor view becomes a global pointer, its extents and its strides. Tile ops
// become per-thread code (see the other files of this folder); arith and
// math ops on tiles are applied to each register; scf ops carry the scalars.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/Matchers.h"

#define DEBUG_TYPE "convert-tile-to-llvm"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

class TileTypeConverter : public TypeConverter {
public:
  TileTypeConverter(MLIRContext *ctx) {
    addConversion([](Type t) { return t; });
    addConversion([](RankedTensorType t, SmallVectorImpl<Type> &results)
                      -> std::optional<LogicalResult> {
      if (!getLayoutAttr(t))
        return failure();
      results.append(getLayout(t).getNumRegisters(), t.getElementType());
      return success();
    });
    addConversion([ctx](TensorViewType t, SmallVectorImpl<Type> &results) {
      // A TMA view starts with the address of its descriptor (a
      // __grid_constant__ kernel parameter).
      if (t.isTMA())
        results.push_back(LLVM::LLVMPointerType::get(ctx, 0));
      results.push_back(LLVM::LLVMPointerType::get(ctx, 1));
      results.append(2 * t.getRank(), IntegerType::get(ctx, 64));
      return success();
    });
    // Shared-memory buffers and barrier arrays are addresses.
    addConversion([ctx](tgpu::SharedBufferType) -> Type {
      return LLVM::LLVMPointerType::get(ctx, 3);
    });
    addConversion([ctx](tgpu::BarriersType) -> Type {
      return LLVM::LLVMPointerType::get(ctx, 3);
    });
    // A tensor-memory buffer is its 32-bit TMEM address (lane << 16 |
    // column).
    addConversion([ctx](tgpu::TensorMemoryBufferType) -> Type {
      return IntegerType::get(ctx, 32);
    });
  }
};

//===----------------------------------------------------------------------===//
// Program indices and views
//===----------------------------------------------------------------------===//

template <typename OpTy, typename X, typename Y, typename Z>
struct GridIndexLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case 0:
      v = X::create(rewriter, op.getLoc(), i32);
      break;
    case 1:
      v = Y::create(rewriter, op.getLoc(), i32);
      break;
    default:
      v = Z::create(rewriter, op.getLoc(), i32);
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct DimOpLowering : public OpConversionPattern<DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DimOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned first = op.getTensor().getType().isTMA() ? 2 : 1;
    Value size = adaptor.getTensor()[first + op.getDim()];
    rewriter.replaceOp(op, arith::TruncIOp::create(rewriter, op.getLoc(),
                                                   rewriter.getI32Type(),
                                                   size));
    return success();
  }
};

/// tile.workspace: the kernel's trailing workspace (semaphores) pointer
/// (added by the pass, `bases`) at the byte offset, the extents, row-major
/// strides.
struct WorkspaceOpLowering : public OpConversionPattern<WorkspaceOp> {
  WorkspaceOpLowering(TypeConverter &converter, MLIRContext *ctx,
                      const llvm::DenseMap<Operation *, Value> &bases)
      : OpConversionPattern(converter, ctx), bases(bases) {}
  LogicalResult
  matchAndRewrite(WorkspaceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value base = bases.lookup(op);
    if (!base)
      return rewriter.notifyMatchFailure(op, "no workspace parameter");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    Value ptr = LLVM::GEPOp::create(rewriter, loc, ptrTy, rewriter.getI8Type(),
                                    base, ValueRange{adaptor.getOffset()});
    SmallVector<Value> sizes, strides;
    for (Value s : adaptor.getSizes())
      sizes.push_back(arith::ExtUIOp::create(rewriter, loc, i64, s));
    Value stride = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
    strides.assign(sizes.size(), stride);
    for (int d = int(sizes.size()) - 2; d >= 0; --d)
      strides[d] = stride =
          arith::MulIOp::create(rewriter, loc, stride, sizes[d + 1]);
    SmallVector<Value> values{ptr};
    values.append(sizes);
    values.append(strides);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
  const llvm::DenseMap<Operation *, Value> &bases;
};

//===----------------------------------------------------------------------===//
// arith and math on tiles
//===----------------------------------------------------------------------===//

bool hasTile(Operation *op) {
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) ||
         llvm::any_of(op->getResultTypes(), isTile);
}

/// Any arith/math op on tiles: the same op on each register.
struct ElementwiseLowering : public ConversionPattern {
  ElementwiseLowering(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        !hasTile(op) || isa<arith::ConstantOp>(op))
      return failure();
    int64_t n = 0;
    for (Type t : op->getResultTypes())
      if (auto tt = dyn_cast<RankedTensorType>(t))
        n = getLayout(tt).getNumRegisters();
    SmallVector<SmallVector<Value>> results(op->getNumResults());
    for (int64_t r = 0; r < n; ++r) {
      SmallVector<Value> args;
      for (auto [v, conv] : llvm::zip(op->getOperands(), operands))
        args.push_back(isa<RankedTensorType>(v.getType()) ? conv[r]
                                                          : conv.front());
      SmallVector<Type> types;
      for (Type t : op->getResultTypes())
        types.push_back(getElementTypeOrSelf(t));
      Operation *clone = rewriter.create(op->getLoc(), op->getName().getIdentifier(),
                                         args, types, op->getAttrs());
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        results[i].push_back(clone->getResult(i));
    }
    SmallVector<ValueRange> ranges(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, ranges);
    return success();
  }
};

/// arith.truncf of an f32 tile to fp8, two registers at a time: one
/// `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` gives both bytes (register r low,
/// r + 1 high), which the 4-byte words of an 8-bit wgmma A or a store then
/// take as one half (the scalar lowering converts each value alone).
struct Fp8PairTruncLowering : public OpConversionPattern<arith::TruncFOp> {
  Fp8PairTruncLowering(TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tt = dyn_cast<RankedTensorType>(op.getType());
    if (!tt || !isFp8(tt.getElementType()) ||
        !getElementTypeOrSelf(op.getIn().getType()).isF32())
      return failure();
    ValueRange in = adaptor.getIn();
    if (in.size() % 2)
      return failure();
    Emitter e{rewriter, op.getLoc()};
    Type elt = tt.getElementType();
    std::string asmStr =
        "cvt.rn.satfinite." + fp8Name(elt).str() + ".f32 $0, $2, $1;";
    SmallVector<Value> out;
    for (size_t r = 0; r < in.size(); r += 2) {
      Value pair = e.ptx(asmStr, "=h,f,f", {rewriter.getI16Type()},
                         {in[r], in[r + 1]})[0];
      Value hi = LLVM::LShrOp::create(rewriter, e.loc, pair,
                                      LLVM::ConstantOp::create(
                                          rewriter, e.loc,
                                          rewriter.getI16Type(),
                                          rewriter.getI16IntegerAttr(8)));
      for (Value half : {pair, hi})
        out.push_back(e.fromBits(
            LLVM::TruncOp::create(rewriter, e.loc, rewriter.getI8Type(), half),
            elt));
    }
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

/// Tile constants: a splat is one scalar for every register; any other
/// constant is a read-only global array, each register loading its element.
struct ConstantLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tt = dyn_cast<RankedTensorType>(op.getType());
    if (!tt)
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense)
      return op.emitOpError() << "expected a dense tile constant";
    LinearLayout layout = getLayout(tt);
    Location loc = op.getLoc();
    SmallVector<Value> results;
    if (dense.isSplat()) {
      Value scalar = arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      results.assign(layout.getNumRegisters(), scalar);
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    // The elements as storage integers, row-major.
    Type elt = tt.getElementType();
    auto st = cast<IntegerType>(storageType(elt));
    SmallVector<APInt> bits;
    if (isa<FloatType>(elt))
      for (APFloat v : dense.getValues<APFloat>())
        bits.push_back(v.bitcastToAPInt());
    else
      for (APInt v : dense.getValues<APInt>())
        bits.push_back(v.zext(st.getWidth()));
    int64_t n = tt.getNumElements();
    auto arrayTy = LLVM::LLVMArrayType::get(st, n);
    auto data = DenseElementsAttr::get(RankedTensorType::get({n}, st), bits);
    auto module = op->getParentOfType<ModuleOp>();
    std::string name = "tilec_const";
    for (int i = 0; module.lookupSymbol(name); ++i)
      name = "tilec_const_" + std::to_string(i);
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, arrayTy, /*isConstant=*/true,
                             LLVM::Linkage::Internal, name, data,
                             /*alignment=*/16, /*addrSpace=*/1);
    }
    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    Value base = LLVM::AddressOfOp::create(rewriter, loc, ptrTy, name);
    Emitter e{rewriter, loc};
    ThreadCoords coords(e, layout);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      Value ptr = LLVM::GEPOp::create(rewriter, loc, ptrTy, st, base,
                                      ValueRange{coords.flatIndex(r)});
      results.push_back(
          e.fromBits(LLVM::LoadOp::create(rewriter, loc, st, ptr), elt));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct ConvertTileToLLVM
    : public tilec::impl::ConvertTileToLLVMBase<ConvertTileToLLVM> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    TileTypeConverter converter(ctx);

    // Every tile must have a layout by now, and every channel its rings.
    WalkResult missing = module.walk([&](Operation *op) {
      if (isa<tgpu::ChannelOp>(op)) {
        op->emitOpError() << "has no rings yet; run tile-pipeline first";
        return WalkResult::interrupt();
      }
      if (isa<tgpu::NamedBarrierIdOp>(op)) {
        op->emitOpError() << "has no id yet; run "
                             "tile-allocate-named-barriers first";
        return WalkResult::interrupt();
      }
      auto alloc = dyn_cast<tgpu::AllocOp>(op);
      auto barriers = dyn_cast<tgpu::BarriersOp>(op);
      if ((alloc && !alloc.getOffset()) || (barriers && !barriers.getOffset())) {
        op->emitOpError() << "has no shared-memory offset; run "
                             "tile-allocate-shared-memory first";
        return WalkResult::interrupt();
      }
      for (Type t : op->getResultTypes())
        if (isa<RankedTensorType>(t) && !getLayoutAttr(t)) {
          op->emitOpError() << "produces a tile without a layout; run "
                               "tile-assign-layouts first";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (missing.wasInterrupted())
      return signalPassFailure();

    // Shared memory was allocated (tile-allocate-shared-memory): buffers
    // and barriers have their offsets, the kernel its size.
    bool anyShared = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto size = func->getAttrOfType<IntegerAttr>(kSharedMemoryAttr);
      if (!size && tile::getMaxScratchBytes(func) > 0) {
        func.emitError() << "needs scratch in shared memory and has no "
                            "size yet; run tile-allocate-shared-memory first";
        return signalPassFailure();
      }
      anyShared |= size && size.getInt() > 0;
      lowerWarpSpecialize(func);
      if (failed(lowerTensorMemory(func)))
        return signalPassFailure();
    }
    // TMA descriptors are __grid_constant__ parameters: by value, 64-byte
    // aligned, read where they are (lowering to LLVM sets the attributes
    // from this list of converted argument positions).
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<int32_t> tmaArgs;
      int32_t pos = 0;
      for (Type t : func.getArgumentTypes()) {
        auto view = dyn_cast<TensorViewType>(t);
        if (view && view.isTMA())
          tmaArgs.push_back(pos);
        SmallVector<Type> converted;
        (void)converter.convertType(t, converted);
        pos += converted.size();
      }
      if (!tmaArgs.empty())
        func->setAttr(kTmaArgsAttr,
                      DenseI32ArrayAttr::get(ctx, tmaArgs));
    }
    // A kernel with a workspace, semaphores or both takes their addresses
    // last, in that order (docs/BUNDLE.md).
    llvm::DenseMap<Operation *, Value> workspaceBases;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (bool semaphores : {false, true}) {
        if (!func->hasAttr(semaphores ? kSemaphoresAttr : kWorkspaceAttr))
          continue;
        if (failed(func.insertArgument(func.getNumArguments(),
                                       LLVM::LLVMPointerType::get(ctx, 1), {},
                                       func.getLoc())))
          return signalPassFailure();
        Value base = func.getArguments().back();
        func.walk([&](WorkspaceOp ws) {
          if (ws.getSemaphores() == semaphores)
            workspaceBases[ws] = base;
        });
      }
    }
    // A profiled kernel takes its profile buffer's address after those.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (failed(verifyProfileRecords(func)))
        return signalPassFailure();
      if (!func.isExternal() && func->hasAttr(kProfileScopesAttr) &&
          failed(lowerProfiledKernel(func)))
        return signalPassFailure();
    }
    if (anyShared && !module.lookupSymbol("tilec_smem")) {
      // 128-byte-swizzled slots (TMA boxes, MMA descriptors with base
      // offset 0) need 1024-byte aligned addresses; their offsets are, so
      // the base must be: sm_100a says so. (sm_90a's bundles keep 16, which
      // the hardware's dynamic shared memory base has always exceeded:
      // changing it changes every sm_90a bundle, to be done with a
      // benchmark run.)
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(
          b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, "tilec_smem",
          Attribute(), TargetInfo::of(module).sharedBaseAlignment,
          /*addrSpace=*/3);
    }

    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<TileDialect, tgpu::TGPUDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [](Operation *op) { return !hasTile(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });
    target.addLegalOp<func::ReturnOp, ModuleOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    patterns.add<GridIndexLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                   NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
                 GridIndexLowering<NumProgramsOp, NVVM::GridDimXOp,
                                   NVVM::GridDimYOp, NVVM::GridDimZOp>,
                 DimOpLowering, ConstantLowering>(converter, ctx);
    patterns.add<WorkspaceOpLowering>(converter, ctx, workspaceBases);
    patterns.add<ElementwiseLowering, Fp8PairTruncLowering>(converter, ctx);
    populateTileMemoryPatterns(converter, patterns);
    populateTileIndexedPatterns(converter, patterns);
    populateTileRandomPatterns(converter, patterns);
    populateTileReducePatterns(converter, patterns);
    populateTileScanSortPatterns(converter, patterns);
    populateTileDebugPatterns(converter, patterns);
    populateTileLayoutPatterns(converter, patterns);
    populateTileDotPatterns(converter, patterns);
    populateTGPUPatterns(converter, patterns);
    populateTensorMemoryPatterns(converter, patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
