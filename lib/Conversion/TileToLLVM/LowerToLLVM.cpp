//===- LowerToLLVM.cpp - what remains after tiles, to LLVM and NVVM -------===//
//
// The tilec-lower-to-llvm pass: scf to cf, then arith, math, cf and func to
// the LLVM dialect. Transcendentals use the special-function unit's
// approximations (as Triton and CUDA's fast math do), float division PTX's
// div.full.f32 (within 2 ulp, as Triton's `/`); fp8 casts use PTX cvt. The
// math functions the hardware has no instruction or approximation for
// (sin, erf, log1p, pow, ...) call libdevice (`__nv_sinf`, ...), which
// emitPTX links in; f16 and bf16 math computes in f32.
// Kernels are marked for NVVM with their thread count.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "tilec/Conversion/Passes.h"
#include "llvm/ADT/StringSet.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/StringSet.h"

#define DEBUG_TYPE "tilec-lower-to-llvm"

namespace tilec {
#define GEN_PASS_DEF_LOWERTOLLVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// Replaces `op` (an f32, f16 or bf16 result) with `compute` applied to its
/// operands widened to f32, the result narrowed back; fails for other types.
LogicalResult replaceInF32(Operation *op, ValueRange operands,
                           ConversionPatternRewriter &rewriter,
                           function_ref<Value(ValueRange)> compute) {
  Type t = op->getResult(0).getType();
  if (!isa<Float32Type, Float16Type, BFloat16Type>(t))
    return failure();
  Location loc = op->getLoc();
  Type f32 = rewriter.getF32Type();
  SmallVector<Value> args(operands);
  if (t != f32)
    for (Value &v : args)
      v = LLVM::FPExtOp::create(rewriter, loc, f32, v);
  Value r = compute(args);
  if (t != f32)
    r = LLVM::FPTruncOp::create(rewriter, loc, t, r);
  rewriter.replaceOp(op, r);
  return success();
}

/// A unary float op computed in f32 by one PTX instruction, with optional
/// scaling of its input and output.
template <typename OpTy>
struct ApproxMathLowering : public ConvertOpToLLVMPattern<OpTy> {
  ApproxMathLowering(const LLVMTypeConverter &converter, StringRef instr,
                     double preScale, double postScale)
      : ConvertOpToLLVMPattern<OpTy>(converter, /*benefit=*/10),
        instr(instr.str()), preScale(preScale), postScale(postScale) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto scale = [&](Value v, double s) -> Value {
      if (s == 1.0)
        return v;
      Value c = LLVM::ConstantOp::create(rewriter, loc, f32,
                                         rewriter.getF32FloatAttr(s));
      return LLVM::FMulOp::create(rewriter, loc, v, c);
    };
    return replaceInF32(op, adaptor.getOperands(), rewriter,
                        [&](ValueRange x) {
                          Emitter e{rewriter, loc};
                          Value r = e.ptx(instr + " $0, $1;", "=f,f", {f32},
                                          {scale(x[0], preScale)})[0];
                          return scale(r, postScale);
                        });
  }

  std::string instr;
  double preScale, postScale;
};

/// arith.divf of f32 (f16, bf16 through f32) as `div.full.f32`: within 2
/// ulp over the whole range, without div.rn's slow-path subroutine, whose
/// call made ptxas spill in register-heavy epilogues (SiLU after a 128x256
/// accumulator).
struct DivFullLowering : public ConvertOpToLLVMPattern<arith::DivFOp> {
  DivFullLowering(const LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern(c, /*benefit=*/10) {}
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceInF32(op, adaptor.getOperands(), rewriter, [&](ValueRange xy) {
      return LLVM::CallIntrinsicOp::create(
                 rewriter, op.getLoc(), rewriter.getF32Type(),
                 rewriter.getStringAttr("llvm.nvvm.div.full"), xy)
          .getResult(0);
    });
  }
};

/// arith.extf from fp8: cvt to f16x2, keep the low half, then extend.
struct Fp8ExtLowering : public ConvertOpToLLVMPattern<arith::ExtFOp> {
  Fp8ExtLowering(const LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern(c, /*benefit=*/10) {}
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type src = op.getIn().getType();
    if (!isFp8(src))
      return failure();
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    Value h = LLVM::ZExtOp::create(rewriter, loc, rewriter.getI16Type(),
                                   adaptor.getIn());
    std::string asmStr = "{\n.reg .b32 t;\n.reg .b16 hi;\ncvt.rn.f16x2." +
                         fp8Name(src).str() +
                         " t, $1;\nmov.b32 {$0, hi}, t;\n}";
    Value bits = e.ptx(asmStr, "=h,h", {rewriter.getI16Type()}, {h})[0];
    Value r = LLVM::BitcastOp::create(rewriter, loc, rewriter.getF16Type(), bits);
    Type dst = op.getType();
    if (!dst.isF16()) {
      r = LLVM::FPExtOp::create(rewriter, loc, rewriter.getF32Type(), r);
      if (!dst.isF32())
        r = LLVM::FPTruncOp::create(rewriter, loc, dst, r);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// arith.truncf to fp8: through f32, saturating to the finite range.
struct Fp8TruncLowering : public ConvertOpToLLVMPattern<arith::TruncFOp> {
  Fp8TruncLowering(const LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern(c, /*benefit=*/10) {}
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type dst = op.getType();
    if (!isFp8(dst))
      return failure();
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    Value x = adaptor.getIn();
    if (!op.getIn().getType().isF32())
      x = LLVM::FPExtOp::create(rewriter, loc, rewriter.getF32Type(), x);
    std::string asmStr =
        "cvt.rn.satfinite." + fp8Name(dst).str() + ".f32 $0, $1, $1;";
    Value bits = e.ptx(asmStr, "=h,f", {rewriter.getI16Type()}, {x})[0];
    rewriter.replaceOp(op, LLVM::TruncOp::create(rewriter, loc,
                                                 rewriter.getI8Type(), bits));
    return success();
  }
};

/// math.isinf and math.isnormal as comparisons of |x| (MathToLLVM has no
/// pattern for them): |x| == inf; smallest normal <= |x| < inf.
template <typename OpTy>
struct FloatClassExpansion : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ft = dyn_cast<FloatType>(op.getOperand().getType());
    if (!ft)
      return failure();
    Value abs = math::AbsFOp::create(rewriter, loc, op.getOperand());
    auto constant = [&](const llvm::APFloat &v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getFloatAttr(ft, v));
    };
    Value inf = constant(llvm::APFloat::getInf(ft.getFloatSemantics()));
    if constexpr (std::is_same_v<OpTy, math::IsInfOp>) {
      rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::OEQ,
                                                 abs, inf);
    } else {
      Value least = constant(
          llvm::APFloat::getSmallestNormalized(ft.getFloatSemantics()));
      Value lo = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGE,
                                       abs, least);
      Value hi = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT,
                                       abs, inf);
      rewriter.replaceOpWithNewOp<arith::AndIOp>(op, lo, hi);
    }
    return success();
  }
};

/// math.sincos as a math.sin and a math.cos (libdevice calls each).
struct SinCosExpansion : public OpRewritePattern<math::SincosOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::SincosOp op,
                                PatternRewriter &rewriter) const override {
    Value sin = math::SinOp::create(rewriter, op.getLoc(), op.getOperand());
    Value cos = math::CosOp::create(rewriter, op.getLoc(), op.getOperand());
    rewriter.replaceOp(op, {sin, cos});
    return success();
  }
};

/// The math ops NVPTX has no instruction for, which become libdevice
/// calls (the rest lower through MathToLLVM to instructions, or to the
/// approximations above, which are f32's): in f64 also those the f32
/// approximations serve.
bool needsLibdevice(Operation *op) {
  if (op->getNumResults() == 1 && op->getResult(0).getType().isF64() &&
      isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::RsqrtOp,
          math::TanhOp>(op))
    return true;
  return isa<math::AcosOp, math::AcoshOp, math::AsinOp, math::AsinhOp,
             math::AtanOp, math::Atan2Op, math::AtanhOp, math::CbrtOp,
             math::CosOp, math::CoshOp, math::ErfOp, math::ErfcOp,
             math::ExpM1Op, math::Log10Op, math::Log1pOp, math::PowFOp,
             math::SinOp, math::SinhOp, math::TanOp>(op);
}

/// Math in f16 or bf16 computes in f32 (libdevice and the approximations
/// are f32 functions), rounded back once; f64 math stays f64 (libdevice's
/// f64 functions).
LogicalResult extendMathToF32(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  TypeConverter converter;
  SetVector<Type> narrow;
  narrow.insert(Float16Type::get(ctx));
  narrow.insert(BFloat16Type::get(ctx));
  narrow.insert(Float64Type::get(ctx));
  math::populateExtendToSupportedTypesTypeConverter(converter, narrow,
                                                    Float32Type::get(ctx));
  ConversionTarget target(*ctx);
  math::populateExtendToSupportedTypesConversionTarget(target, converter);
  // Sign and magnitude ops are exact in any width.
  target.addLegalOp<math::AbsFOp, math::CopySignOp>();
  RewritePatternSet patterns(ctx);
  math::populateExtendToSupportedTypesPatterns(patterns, converter);
  return applyPartialConversion(module, target, std::move(patterns));
}

/// The loop-carried iter_arg index of `v` in `loop` if `v` is one of its
/// region iter args whose one use (through one bitcast to i8) is `user`.
std::optional<unsigned> carriedByteFor(scf::ForOp loop, Value v,
                                       Operation *user) {
  Value byte = v;
  if (auto cast = byte.getDefiningOp<arith::BitcastOp>()) {
    if (!cast->hasOneUse())
      return std::nullopt;
    byte = cast.getIn();
  }
  auto arg = dyn_cast<BlockArgument>(byte);
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 ||
      !arg.hasOneUse())
    return std::nullopt;
  Operation *use = *arg.getUsers().begin();
  if (use != user && use != v.getDefiningOp())
    return std::nullopt;
  return arg.getArgNumber() - 1;
}

/// Bytes a loop carries that its body only packs into one 32-bit word (an
/// 8-bit wgmma A that tile-mma-pipeline carries into the next iteration:
/// fp8 attention's P) travel as that word instead: the yield packs them
/// (two conversions' halves at once, Emitter::packWords) and the body reads
/// the word. Carried one by one, each byte took a register and the word
/// was assembled again after the back edge, about three instructions a
/// byte (C7519-free, but on the path to the next MMA).
void packCarriedBytes(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    struct Word {
      SmallVector<unsigned> args; // iter_arg indices, byte 0 first
      SmallVector<Operation *> chain; // the inserts and the bitcast
      LLVM::BitcastOp word;
    };
    SmallVector<Word> words;
    for (Operation &op : *loop.getBody()) {
      auto bc = dyn_cast<LLVM::BitcastOp>(&op);
      auto vecTy = bc ? dyn_cast<VectorType>(bc.getArg().getType()) : nullptr;
      if (!bc || !bc.getType().isInteger(32) || !vecTy ||
          vecTy.getNumElements() != 4 || !vecTy.getElementType().isInteger(8))
        continue;
      Word w{SmallVector<unsigned>(4), {bc}, bc};
      Value v = bc.getArg();
      bool ok = true;
      for (int i = 3; i >= 0 && ok; --i) {
        auto ins = v.getDefiningOp<LLVM::InsertElementOp>();
        APInt pos;
        std::optional<unsigned> arg;
        ok = ins && ins->hasOneUse() &&
             matchPattern(ins.getPosition(), m_ConstantInt(&pos)) &&
             pos == i && (arg = carriedByteFor(loop, ins.getValue(), ins));
        if (!ok)
          break;
        w.args[i] = *arg;
        w.chain.push_back(ins);
        if (auto cast = ins.getValue().getDefiningOp<arith::BitcastOp>())
          w.chain.push_back(cast);
        v = ins.getVector();
      }
      if (ok && isa_and_nonnull<LLVM::UndefOp, LLVM::PoisonOp>(v.getDefiningOp()))
        words.push_back(std::move(w));
    }
    if (words.empty())
      continue;
    IRRewriter rewriter(loop.getContext());
    rewriter.setInsertionPoint(loop);
    Emitter e{rewriter, loop.getLoc()};
    auto pack = [&](Emitter &at, ValueRange values, const Word &w) {
      SmallVector<Value> bytes;
      for (unsigned a : w.args)
        bytes.push_back(values[a]);
      return at.packWords(bytes)[0];
    };
    SmallVector<Value> inits;
    for (const Word &w : words)
      inits.push_back(pack(e, loop.getInitArgs(), w));
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<Value> oldYields(yield.getOperands());
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument>) {
          Emitter ye{b, loc};
          SmallVector<Value> out;
          for (const Word &w : words)
            out.push_back(pack(ye, oldYields, w));
          return out;
        });
    if (failed(grown))
      continue;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    unsigned first = newLoop.getNumRegionIterArgs() - words.size();
    rewriter.setInsertionPointAfter(newLoop);
    Emitter after{rewriter, newLoop.getLoc()};
    for (auto [k, w] : llvm::enumerate(words)) {
      // The body reads the word; after the loop, the bytes are its bytes.
      rewriter.replaceAllUsesWith(w.word.getResult(),
                                  newLoop.getRegionIterArgs()[first + k]);
      Value res = newLoop.getResult(first + k);
      Value vec = LLVM::BitcastOp::create(
          rewriter, newLoop.getLoc(),
          VectorType::get(4, rewriter.getI8Type()), res);
      for (auto [i, a] : llvm::enumerate(w.args)) {
        Value old = newLoop.getResult(a);
        if (old.use_empty())
          continue;
        Value byte = LLVM::ExtractElementOp::create(rewriter, newLoop.getLoc(),
                                                    vec, after.i32(i));
        rewriter.replaceAllUsesWith(old, after.fromBits(byte, old.getType()));
      }
      for (Operation *op : w.chain)
        rewriter.eraseOp(op);
    }
  }
}

struct LowerToLLVM : public tilec::impl::LowerToLLVMBase<LowerToLLVM> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    const TargetInfo &arch = TargetInfo::of(module);

    // Kernels and their thread counts, read before func.func goes away.
    llvm::StringMap<int> kernels;
    llvm::StringMap<SmallVector<int32_t>> tmaArgs;
    // Kernels that run one block an SM, said to ptxas (minctasm 1): the
    // warp-specialized ones (setmaxnreg), and the ones below.
    llvm::StringSet<> oneBlockPerSM;
    llvm::StringMap<int> blocksPerSM;
    // Kernels that run in clusters along x (tile.cluster): the shape is
    // stated in the PTX (.reqnctapercluster), so the CTA's cluster rank
    // and its ctaid.x modulo the cluster, which the kernel mixes, agree by
    // construction and not only because the launch chose that shape.
    llvm::StringMap<int32_t> clusterX;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr(tile::kKernelAttr))
        kernels[func.getSymName()] = 32 * tgpu::getLaunchWarps(func);
      if (auto cl = func->getAttrOfType<IntegerAttr>(tile::kClusterAttr))
        if (cl.getInt() > 1)
          clusterX[func.getSymName()] = cl.getInt();
      if (auto a = func->getAttrOfType<DenseI32ArrayAttr>(kTmaArgsAttr))
        tmaArgs[func.getSymName()] = SmallVector<int32_t>(a.asArrayRef());
      func.walk([&](Operation *op) {
        if (op->hasAttr(kThreadRangeAttr))
          oneBlockPerSM.insert(func.getSymName());
      });
      // tile.blocks_per_sm: that many an SM (its budgets are planned so).
      if (int blocks = tile::getBlocksPerSM(func); blocks > 1)
        blocksPerSM[func.getSymName()] = blocks;
      // A kernel whose shared memory leaves room for no second block an
      // SM runs one a SM anyway: said to ptxas (minctasm 1), it may use the
      // registers that residency allows instead of a cap for occupancy the
      // kernel cannot have. Without it ptxas capped such plain twins at 128
      // and even 32 registers a thread (sm_100a: attention_d256's spilled
      // 18.8 KB, 4.5 KB with the bound; sm_90a: grouped_gemm's twin 15.6 KB
      // at 32 registers once its shared addresses folded, 0.2 KB with it).
      if (auto smem = func->getAttrOfType<IntegerAttr>(tile::kSharedMemoryAttr))
        if (2 * (smem.getInt() + arch.reservedSharedMemoryPerBlock) >
            arch.sharedMemoryPerSM)
          oneBlockPerSM.insert(func.getSymName());
      for (NamedAttribute a : llvm::to_vector(func->getDiscardableAttrs()))
        if (a.getName().getValue().starts_with("tgpu."))
          func->removeAttr(a.getName());
      // The launch attributes have been read into the launch metadata by
      // now; LLVM has no use for them.
      for (NamedAttribute a : llvm::to_vector(func->getDiscardableAttrs()))
        if (a.getName().getValue().starts_with("tile."))
          func->removeAttr(a.getName());
    }

    // scf to cf, and arith ops without a direct LLVM lowering (the
    // rounding divisions; maximumf and friends stay: LLVM has max.NaN).
    {
      RewritePatternSet patterns(ctx);
      arith::populateCeilFloorDivExpandOpsPatterns(patterns);
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }
    packCarriedBytes(module);
    {
      RewritePatternSet patterns(ctx);
      populateSCFToControlFlowConversionPatterns(patterns);
      ConversionTarget target(*ctx);
      target.addIllegalOp<scf::ForOp, scf::IfOp, scf::WhileOp,
                          scf::ExecuteRegionOp>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }

    // Math the hardware has no instruction for: powi and clamp expanded,
    // isinf/isnormal compared, f16/bf16 computed in f32, and the
    // functions libdevice provides called there.
    {
      RewritePatternSet patterns(ctx);
      math::populateExpansionPatterns(patterns, {"fpowi"});
      patterns.add<FloatClassExpansion<math::IsInfOp>,
                   FloatClassExpansion<math::IsNormalOp>, SinCosExpansion>(ctx);
      if (failed(applyPatternsGreedily(module, std::move(patterns))) ||
          failed(extendMathToF32(module)))
        return signalPassFailure();
    }
    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    {
      RewritePatternSet patterns(ctx);
      populateLibDeviceConversionPatterns(converter, patterns);
      ConversionTarget target(*ctx);
      target.markUnknownOpDynamicallyLegal(
          [](Operation *op) { return !needsLibdevice(op); });
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    constexpr double kLog2E = 1.4426950408889634, kLn2 = 0.6931471805599453;
    patterns.add<ApproxMathLowering<math::ExpOp>>(
        converter, "ex2.approx.ftz.f32", kLog2E, 1.0);
    patterns.add<ApproxMathLowering<math::Exp2Op>>(
        converter, "ex2.approx.ftz.f32", 1.0, 1.0);
    patterns.add<ApproxMathLowering<math::LogOp>>(
        converter, "lg2.approx.ftz.f32", 1.0, kLn2);
    patterns.add<ApproxMathLowering<math::Log2Op>>(
        converter, "lg2.approx.ftz.f32", 1.0, 1.0);
    patterns.add<ApproxMathLowering<math::RsqrtOp>>(
        converter, "rsqrt.approx.ftz.f32", 1.0, 1.0);
    patterns.add<ApproxMathLowering<math::TanhOp>>(converter, "tanh.approx.f32",
                                                   1.0, 1.0);
    patterns.add<Fp8ExtLowering, Fp8TruncLowering, DivFullLowering>(converter);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // A loop's annotation (scf-to-cf puts an scf.for's on the branch back to
    // its header, as an attribute of the LLVM dialect, which cf-to-llvm
    // keeps as it is) becomes the branch's own, which the translation turns
    // into the loop's metadata (tgpu.thread_copy's chunk loops, kept
    // rolled).
    module.walk([](LLVM::BrOp br) {
      if (auto a = br->getAttrOfType<LLVM::LoopAnnotationAttr>(
              "llvm.loop_annotation")) {
        br.setLoopAnnotationAttr(a);
        br->removeAttr("llvm.loop_annotation");
      }
    });
    // On sm_100a only: there it cuts the plain twins' spills by three
    // quarters; ptxas for sm_90a spills as much either way, and the twins
    // ran 1-12% slower with the loads next to their MMAs (RESULTS.md,
    // 2026-11-26).
    if (arch.tcgen05)
      sinkMMAOperandLoads(module);
    // NVVM ops that LLVM has no intrinsic for (or not in the form used)
    // become the inline PTX their ops define.
    {
      RewritePatternSet ptxPatterns(ctx);
      populateNVVMToLLVMConversionPatterns(ptxPatterns);
      if (failed(applyPatternsGreedily(module, std::move(ptxPatterns))))
        return signalPassFailure();
    }

    OpBuilder b(ctx);
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      auto it = kernels.find(func.getSymName());
      if (it == kernels.end())
        continue;
      func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                    b.getUnitAttr());
      func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                    b.getDenseI32ArrayAttr({it->second, 1, 1}));
      // setmaxnreg needs a register cap at entry: one block an SM (also
      // said of kernels whose shared memory allows no more, above).
      if (int blocks = blocksPerSM.lookup(func.getSymName()))
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(blocks));
      else if (oneBlockPerSM.contains(func.getSymName()))
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(1));
      if (int32_t n = clusterX.lookup(func.getSymName()))
        func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                      b.getDenseI32ArrayAttr({n, 1, 1}));
      for (int32_t i : tmaArgs.lookup(func.getSymName())) {
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(),
                                                               128)));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI32IntegerAttr(64));
        func.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
      }
    }
  }
};
} // namespace
