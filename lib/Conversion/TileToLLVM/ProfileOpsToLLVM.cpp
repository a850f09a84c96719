//===- ProfileOpsToLLVM.cpp - the profiler's records ----------------------===//
//
// A kernel instrumented by tile-profile takes the address of its profile
// buffer and the records a warp group has room for as its last parameters
// (address 0: record nothing; docs/BUNDLE.md, "Profile buffer"); thread 0
// of the first CTA writes the buffer's header. One thread of each warp group (thread index a multiple of 128)
// records: the kernel's entry computes the group's slice of the buffer and
// writes the slice header's start (SM id, globaltimer, clock64); each
// tile.profile_begin / tile.profile_end stores one 16-byte record (scope id
// with the end bit, argument, clock64) with a predicated vector store
// while the slice has room; each return writes the count of records the
// group attempted and the end times. The record counter is a local
// variable (SROA makes it a register): no shared memory, no atomics.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Bytes of the buffer's header and of each slice's header.
constexpr int64_t kHeaderBytes = 64;
constexpr int64_t kRecordBytes = 16;

Value clock64(Emitter &e) {
  return NVVM::Clock64Op::create(e.b, e.loc, e.b.getI64Type());
}

/// The low and high words of an i64.
std::pair<Value, Value> words(Emitter &e, Value v) {
  Type i32 = e.b.getI32Type();
  Value lo = arith::TruncIOp::create(e.b, e.loc, i32, v);
  Value hi = arith::TruncIOp::create(
      e.b, e.loc, i32, arith::ShRUIOp::create(e.b, e.loc, v, e.i64(32)));
  return {lo, hi};
}

/// Stores (globaltimer, clock64) at `addr` under `pred`.
void storeTimes(Emitter &e, Value addr, Value pred) {
  Value gt = NVVM::GlobalTimerOp::create(e.b, e.loc, e.b.getI64Type());
  auto [gtLo, gtHi] = words(e, gt);
  auto [clkLo, clkHi] = words(e, clock64(e));
  predicatedStore(e, addr, pred, {gtLo, gtHi, clkLo, clkHi});
}

template <typename OpTy>
struct ProfileRecordLowering : public OpConversionPattern<OpTy> {
  ProfileRecordLowering(TypeConverter &converter, MLIRContext *ctx,
                        const ProfiledKernels &kernels)
      : OpConversionPattern<OpTy>(converter, ctx), kernels(kernels) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto func = op->template getParentOfType<func::FuncOp>();
    auto it = kernels.find(func);
    if (it == kernels.end())
      return rewriter.notifyMatchFailure(op, "kernel not instrumented");
    const ProfileState &s = it->second;
    auto id = llvm::find(s.scopes, op.getScopeAttr());
    if (id == s.scopes.end())
      return rewriter.notifyMatchFailure(op, "scope not listed");
    Emitter e{rewriter, op.getLoc()};
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value index = LLVM::LoadOp::create(rewriter, e.loc, i32, s.counter);
    LLVM::StoreOp::create(rewriter, e.loc, e.add(index, e.i32(1)), s.counter);
    Value room = arith::AndIOp::create(rewriter, e.loc, s.ok,
                                       e.ult(index, s.capacity));
    Value pred = arith::ExtUIOp::create(rewriter, e.loc, i32, room);
    Value addr = e.add(
        s.slice,
        e.add(e.i64(kHeaderBytes),
              e.mul(arith::ExtUIOp::create(rewriter, e.loc, i64, index),
                    e.i64(kRecordBytes))));
    int64_t tag = int64_t(id - s.scopes.begin());
    Value arg = e.i32(-1);
    if constexpr (std::is_same_v<OpTy, ProfileEndOp>)
      tag |= int64_t(1) << 31;
    else if (adaptor.getArg())
      arg = adaptor.getArg();
    auto [lo, hi] = words(e, clock64(e));
    predicatedStore(e, addr, pred, {e.i32(tag), arg, lo, hi});
    rewriter.eraseOp(op);
    return success();
  }
  const ProfiledKernels &kernels;
};
} // namespace

LogicalResult tilec::verifyProfileRecords(func::FuncOp func) {
  auto scopes = func->getAttrOfType<ArrayAttr>(kProfileScopesAttr);
  WalkResult r = func.walk([&](Operation *op) {
    StringAttr scope;
    if (auto b = dyn_cast<ProfileBeginOp>(op))
      scope = b.getScopeAttr();
    else if (auto e = dyn_cast<ProfileEndOp>(op))
      scope = e.getScopeAttr();
    else
      return WalkResult::advance();
    if (!scopes) {
      op->emitOpError() << "is in a kernel tile-profile did not instrument "
                           "(no tile.profile_scopes)";
      return WalkResult::interrupt();
    }
    if (!llvm::is_contained(scopes, scope)) {
      op->emitOpError() << "scope '" << scope.getValue()
                        << "' is not in the kernel's tile.profile_scopes";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

FailureOr<ProfileState> tilec::prepareProfiledKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto scopes = func->getAttrOfType<ArrayAttr>(kProfileScopesAttr);
  if (!scopes)
    return failure();
  if (failed(func.insertArgument(func.getNumArguments(),
                                 LLVM::LLVMPointerType::get(ctx, 1), {},
                                 func.getLoc())) ||
      failed(func.insertArgument(func.getNumArguments(),
                                 IntegerType::get(ctx, 32), {}, func.getLoc())))
    return failure();
  Value buffer = func.getArgument(func.getNumArguments() - 2);
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  Emitter e{b, func.getLoc()};
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  ProfileState s;
  s.scopes = scopes;
  Value base = LLVM::PtrToIntOp::create(b, e.loc, i64, buffer);
  Value hasBuffer =
      arith::CmpIOp::create(b, e.loc, arith::CmpIPredicate::ne, base, e.i64(0));
  Value tid = NVVM::ThreadIdXOp::create(b, e.loc, i32);
  Value recorder = e.eq(e.andI(tid, e.i32(127)), e.i32(0));
  s.ok = arith::AndIOp::create(b, e.loc, hasBuffer, recorder);
  Value okWord = arith::ExtUIOp::create(b, e.loc, i32, s.ok);
  // Records a group (the last parameter), 0 without a buffer.
  s.capacity = arith::SelectOp::create(b, e.loc, hasBuffer,
                                       func.getArguments().back(), e.i32(0));
  // The group's slice: CTA (linear) * groups + the warp group.
  int64_t groups = (tgpu::getLaunchWarps(func) + 3) / 4;
  auto ext = [&](Value v) { return arith::ExtUIOp::create(b, e.loc, i64, v); };
  Value cta = e.add(
      NVVM::BlockIdXOp::create(b, e.loc, i32),
      e.mul(NVVM::GridDimXOp::create(b, e.loc, i32),
            e.add(NVVM::BlockIdYOp::create(b, e.loc, i32),
                  e.mul(NVVM::GridDimYOp::create(b, e.loc, i32),
                        NVVM::BlockIdZOp::create(b, e.loc, i32)))));
  Value slot = e.add(e.mul(ext(cta), e.i64(groups)),
                     ext(arith::ShRUIOp::create(b, e.loc, tid, e.i32(7))));
  Value sliceBytes = e.add(e.i64(kHeaderBytes),
                           e.mul(ext(s.capacity), e.i64(kRecordBytes)));
  s.slice = e.add(base, e.add(e.i64(kHeaderBytes), e.mul(slot, sliceBytes)));
  // The buffer header (version 1, records a group, groups), by thread 0 of
  // the first CTA.
  Value first = arith::AndIOp::create(b, e.loc, hasBuffer,
                                      e.eq(e.add(cta, tid), e.i32(0)));
  predicatedStore(e, base, arith::ExtUIOp::create(b, e.loc, i32, first),
                  {e.i32(1), s.capacity, e.i32(groups), e.i32(0)});
  s.counter = LLVM::AllocaOp::create(b, e.loc, LLVM::LLVMPointerType::get(ctx),
                                     i32, e.i32(1));
  LLVM::StoreOp::create(b, e.loc, e.i32(0), s.counter);
  // Slice header: [0] records attempted, [4] SM id, [16] globaltimer and
  // clock64 at the start, [32] at the end.
  predicatedStore(e, e.add(s.slice, e.i64(4)), okWord,
                  {Value(NVVM::SmIdOp::create(b, e.loc, i32))});
  storeTimes(e, e.add(s.slice, e.i64(16)), okWord);
  func.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    Emitter re{rb, ret.getLoc()};
    Value count = LLVM::LoadOp::create(rb, re.loc, i32, s.counter);
    predicatedStore(re, s.slice, okWord, {count});
    storeTimes(re, re.add(s.slice, re.i64(32)), okWord);
  });
  return s;
}

void tilec::populateTileProfilePatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        const ProfiledKernels &kernels) {
  patterns.add<ProfileRecordLowering<ProfileBeginOp>,
               ProfileRecordLowering<ProfileEndOp>>(
      converter, patterns.getContext(), kernels);
}
