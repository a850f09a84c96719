//===- TensorMemoryOpsToLLVM.cpp - tensor memory and tcgen05 to NVVM ------===//
//
// sm_100a's tensor memory (TMEM) and fifth-generation tensor-core MMAs,
// onto MLIR 22's nvvm.tcgen05.* ops (docs/BLACKWELL.md gives the PTX ISA
// rule behind each decision):
//
// - A kernel with `tgpu.tensor_memory` allocates its columns at entry, or
//   after a cluster's first barrier (warp
//   0: tcgen05.alloc into the shared-memory word the attribute names, then
//   relinquish_alloc_permit; the block synchronizes between tcgen05 fences)
//   and frees them before each return (fence, block barrier, warp 0
//   deallocates). A buffer's address is the base, read from that word, plus
//   its first column.
// - tcgen05.mma: one thread issues one MMA a k-step, its shared-memory
//   descriptors made from the slots' linear layouts (the canonical layouts
//   are wgmma's; the sm_100 descriptor adds the version bit and moves the
//   swizzle field) and its instruction descriptor from the types and
//   majors; tcgen05.commit from the same thread.
// - tcgen05.ld/st: the shape whose register layout the tile has (32x32b or
//   16x256b), each warp on the 32 TMEM lanes of its quadrant; a load's
//   registers pass through tcgen05.wait::ld as tied operands, so nothing
//   reads them before the wait.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include <set>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::tgpu;

namespace {

TensorMemoryAttr kernelTensorMemory(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func ? func->getAttrOfType<TensorMemoryAttr>(kTensorMemoryAttr)
              : TensorMemoryAttr();
}

NVVM::CTAGroupKind ctaGroupKind(int32_t group) {
  return group == 2 ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
}

/// The shared-memory word tcgen05.alloc writes the base address to.
Value addressWord(Emitter &e, TensorMemoryAttr tm) {
  return offsetPtr(e, e.smemStart(), e.i32(*tm.getAddress()));
}

Value tmemPointer(Emitter &e, Value address) {
  return LLVM::IntToPtrOp::create(
      e.b, e.loc, LLVM::LLVMPointerType::get(e.b.getContext(), 6), address);
}

/// The sm_100 shared-memory matrix descriptor's two words (PTX ISA
/// 9.7.16.4.1): start address / 16 and LBO / 16 in the low word; SBO / 16,
/// the fixed version bit (46) and the swizzle mode (bits 61-63) in the
/// high word.
std::pair<uint32_t, uint32_t> descriptorWords(const OperandDescriptor &d) {
  uint32_t mode = d.swizzleBytes == 128  ? 2
                  : d.swizzleBytes == 64 ? 4
                  : d.swizzleBytes == 32 ? 6
                                         : 0;
  uint32_t hi = uint32_t(d.strideByteOffset >> 4) | (1u << 14) | (mode << 29);
  uint32_t lo = uint32_t(d.leadingByteOffset >> 4) << 16;
  return {lo, hi};
}

/// The descriptor (i64) of the operand whose slot starts at shared address
/// `addr` (i32), `offset` bytes in.
Value descriptor(Emitter &e, Value addr, int64_t offset,
                 const OperandDescriptor &d) {
  auto [lo, hi] = descriptorWords(d);
  Value start = arith::ShRUIOp::create(
      e.b, e.loc, e.andI(e.add(addr, e.i32(offset)), e.i32(0x3FFFF)), e.i32(4));
  Value low = arith::OrIOp::create(e.b, e.loc, start, e.i32(int32_t(lo)));
  Value low64 = arith::ExtUIOp::create(e.b, e.loc, e.b.getI64Type(), low);
  return arith::OrIOp::create(e.b, e.loc, low64,
                              e.i64(int64_t(uint64_t(hi) << 32)));
}


struct TMemAllocLowering : public OpConversionPattern<TMemAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMemAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TensorMemoryAttr tm = kernelTensorMemory(op);
    std::optional<ArrayRef<int64_t>> column = op.getColumn();
    if (!tm || !tm.getAddress() || !column || column->size() != 1)
      return op.emitOpError()
             << "has no tensor memory yet; run tile-allocate-tensor-memory "
                "and tile-allocate-shared-memory first";
    Emitter e{rewriter, op.getLoc()};
    Value base = LLVM::LoadOp::create(rewriter, e.loc, rewriter.getI32Type(),
                                      addressWord(e, tm));
    rewriter.replaceOp(op, e.add(base, e.i32(column->front())));
    return success();
  }
};

struct Tcgen05MMALowering : public OpConversionPattern<Tcgen05MMAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05MMAOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto aSmem = dyn_cast<SharedBufferType>(op.getA().getType());
    auto aTmem = dyn_cast<TensorMemoryBufferType>(op.getA().getType());
    SharedBufferType bT = op.getB().getType();
    TensorMemoryBufferType dT = op.getD().getType();
    TensorMemoryAttr tm = kernelTensorMemory(op);
    int group = op.getCtaGroup();
    if (!tm || tm.getCtaGroup() != group)
      return op.emitOpError() << "runs on cta_group " << group
                              << " but the kernel's tensor memory is not "
                                 "allocated for it";
    Type elt = bT.getElementType();
    int64_t k = bT.getSlotShape()[0], kStep = wgmmaK(elt);
    int64_t m = 128 * group, n = dT.getSlotShape()[1];
    std::optional<OperandDescriptor> aDesc;
    if (aSmem)
      aDesc = getOperandDescriptor(aSmem, 0);
    std::optional<OperandDescriptor> bDesc = getOperandDescriptor(bT, 1);
    uint32_t idesc = tcgen05InstructionDescriptor(
        elt, m, n, aSmem ? aDesc->kMajor : true, bDesc->kMajor);
    auto kind = elt.isInteger(8)                  ? NVVM::Tcgen05MMAKind::I8
                : elt.isF32()                       ? NVVM::Tcgen05MMAKind::TF32
                : elt.getIntOrFloatBitWidth() == 16 ? NVVM::Tcgen05MMAKind::F16
                                                    : NVVM::Tcgen05MMAKind::F8F6F4;

    Value dAddr = e.add(adaptor.getD(),
                        e.mul(adaptor.getDSlot(), e.i32(dT.getSlotColumns())));
    Value bAddr = slotAddress(e, bT, adaptor.getB(), adaptor.getBSlot());
    Value aAddr;
    if (aSmem)
      aAddr = slotAddress(e, aSmem, adaptor.getA(), adaptor.getASlot());
    else
      aAddr = e.add(adaptor.getA(), e.mul(adaptor.getASlot(),
                                          e.i32(aTmem.getSlotColumns())));
    Value accumulate = adaptor.getAccumulate();
    onFirstThread(e, group == 2, [&] {
      Value d = tmemPointer(e, dAddr);
      Value idescV = e.i32(int32_t(idesc));
      for (int64_t kk = 0; kk < k / kStep; ++kk) {
        Value a = aSmem ? descriptor(e, aAddr,
                                     slotByteOffset(aSmem, {0, kk * kStep}),
                                     *aDesc)
                        : tmemPointer(e, e.add(aAddr, e.i32(kk * kStep / 2)));
        Value b = descriptor(e, bAddr, slotByteOffset(bT, {kk * kStep, 0}),
                             *bDesc);
        Value enable = kk == 0 ? accumulate
                               : Value(arith::ConstantIntOp::create(
                                     rewriter, e.loc, rewriter.getI1Type(), 1));
        NVVM::Tcgen05MMAOp::create(rewriter, e.loc, kind, ctaGroupKind(group),
                                   NVVM::Tcgen05MMACollectorOp::DISCARD,
                                   /*aShift=*/false, d, a, b, idescV, enable,
                                   Value(), Value());
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct Tcgen05CommitLowering : public OpConversionPattern<Tcgen05CommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05CommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TensorMemoryAttr tm = kernelTensorMemory(op);
    if (!tm)
      return op.emitOpError() << "in a kernel without tensor memory";
    Emitter e{rewriter, op.getLoc()};
    Value bar = barrierPointer(e, adaptor.getBarriers(), adaptor.getIndex());
    std::optional<int32_t> multicast = op.getMulticast();
    onFirstThread(e, tm.getCtaGroup() == 2, [&] {
      Value mask;
      if (multicast)
        mask = arith::ConstantIntOp::create(rewriter, e.loc,
                                            rewriter.getI16Type(),
                                            (1 << *multicast) - 1);
      NVVM::Tcgen05CommitOp::create(rewriter, e.loc, bar, mask,
                                    ctaGroupKind(tm.getCtaGroup()));
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// One tcgen05.ld/st of a warp: its TMEM address offset (lane << 16 |
/// column) from the slot's first column and, per instruction register, the
/// layout registers it holds (two for 16-bit elements, low half first).
struct TMemInstr {
  NVVM::Tcgen05LdStShape shape;
  int64_t offset;
  SmallVector<SmallVector<int64_t, 2>> words;
};

/// A tcgen05.ld/st shape (PTX ISA 9.7.16.2.3.1, "Matrix fragments"): the
/// lanes one access covers, the registers and 32-bit columns of a
/// repetition, and the (lane, column) that register j of the warp's thread
/// 0 holds (the layout, equal to the shape's constructor, has the other
/// threads).
struct TMemShapeInfo {
  NVVM::Tcgen05LdStShape shape;
  int64_t lanes, regsPerRep, colsPerRep;
  std::pair<int64_t, int64_t> (*thread0)(int64_t j);
};

TMemShapeInfo shapeInfo(TMemShape s) {
  switch (s) {
  case TMemShape::Lanes32x32b:
    return {NVVM::Tcgen05LdStShape::SHAPE_32X32B, 32, 1, 1,
            [](int64_t j) { return std::pair<int64_t, int64_t>{0, j}; }};
  case TMemShape::Lanes16x64b:
    return {NVVM::Tcgen05LdStShape::SHAPE_16X64B, 16, 1, 2,
            [](int64_t j) { return std::pair<int64_t, int64_t>{0, 2 * j}; }};
  case TMemShape::Lanes16x128b:
    return {NVVM::Tcgen05LdStShape::SHAPE_16X128B, 16, 2, 4,
            [](int64_t j) {
              return std::pair<int64_t, int64_t>{8 * (j % 2), 4 * (j / 2)};
            }};
  case TMemShape::Lanes16x256b:
    return {NVVM::Tcgen05LdStShape::SHAPE_16X256B, 16, 4, 8,
            [](int64_t j) {
              return std::pair<int64_t, int64_t>{8 * (j / 2 % 2),
                                                 j % 2 + 8 * (j / 4)};
            }};
  }
  llvm_unreachable("a tcgen05.ld/st shape");
}

/// The instructions that move a register tile of `type` (whose layout
/// matchTMemAccess accepted) for one warp: its 32 lanes in one access or
/// two 16-lane halves, at most 128 registers an instruction (.x128 of
/// 32x32b and 16x64b, .x64 of 16x128b, .x32 of 16x256b).
FailureOr<SmallVector<TMemInstr>> planTMemAccess(RankedTensorType type) {
  std::optional<TMemAccess> access = matchTMemAccess(type);
  if (!access)
    return failure();
  LinearLayout l = getLayout(type);
  TMemShapeInfo info = shapeInfo(access->shape);
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t perWord = 32 / bits;
  // The 32-bit columns warp 0 moves (its share with more than 4 warps:
  // runs of them), from the warp's first; an instruction a run, or a
  // part of one.
  std::set<int64_t> held;
  for (int64_t r = 0; r < l.getNumRegisters(); ++r)
    for (int64_t lane = 0; lane < 32; ++lane)
      held.insert(l.apply(r, lane, 0)[1] / perWord);
  SmallVector<std::pair<int64_t, int64_t>> runs; // (first column, count)
  for (int64_t c : held)
    if (!runs.empty() && runs.back().first + runs.back().second == c)
      ++runs.back().second;
    else
      runs.push_back({c, 1});
  int64_t colsPerInstr = 128 / info.regsPerRep * info.colsPerRep;
  SmallVector<TMemInstr> instrs;
  for (int64_t lane0 = 0; lane0 < 32; lane0 += info.lanes)
    for (auto [first, count] : runs)
      for (int64_t c0 = first; c0 < first + count; c0 += colsPerInstr) {
        TMemInstr in{info.shape, (lane0 << 16) + c0, {}};
        int64_t regs = std::min(first + count - c0, colsPerInstr) /
                       info.colsPerRep * info.regsPerRep;
        for (int64_t j = 0; j < regs; ++j) {
          auto [dl, dc] = info.thread0(j);
          SmallVector<int64_t, 2> parts;
          for (int64_t p = 0; p < perWord; ++p) {
            std::optional<int64_t> r =
                l.findRegister({lane0 + dl, (c0 + dc) * perWord + p});
            if (!r)
              return failure();
            parts.push_back(*r);
          }
          in.words.push_back(parts);
        }
        instrs.push_back(std::move(in));
      }
  return instrs;
}

/// The TMEM address a warp's instructions for `type` start from: the
/// slot's column plus the warp's part (its quadrant's lanes, and for more
/// than 4 warps its share of the columns), from the layout's warp bases.
FailureOr<Value> warpTMemAddress(Emitter &e, Operation *op,
                                 RankedTensorType type, Value buffer,
                                 Value slot, TensorMemoryBufferType bufT,
                                 int64_t column) {
  LinearLayout l = getLayout(type);
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  // A warp reaches the lanes of quadrant (warp id % 4) of the block; the
  // layout counts warps from the partition's first, so that must be a
  // warpgroup's first warp.
  if (e.partitionFirstThread() % 128)
    return op->emitOpError() << "runs in warps that do not start a warpgroup "
                                "(a warp reaches only its quadrant's TMEM "
                                "lanes)";
  Value addr = e.add(buffer, e.add(e.mul(slot, e.i32(bufT.getSlotColumns())),
                                   e.i32(column * bits / 32)));
  Value warp = e.warpId();
  for (int64_t b = 0; (int64_t(1) << b) < l.getNumWarps(); ++b) {
    LinearLayout::Coords c = l.applyIn(InDim::Warp, int64_t(1) << b);
    int64_t delta = (c[0] << 16) + c[1] * bits / 32;
    Value on = e.andI(arith::ShRUIOp::create(e.b, e.loc, warp, e.i32(b)),
                      e.i32(1));
    addr = e.add(addr, e.mul(on, e.i32(int32_t(delta))));
  }
  return addr;
}

Type wordsType(OpBuilder &b, int64_t n) {
  return n == 1 ? Type(b.getI32Type()) : VectorType::get({n}, b.getI32Type());
}

struct TMemLoadLowering : public OpConversionPattern<TMemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto type = cast<RankedTensorType>(op.getType());
    FailureOr<SmallVector<TMemInstr>> plan = planTMemAccess(type);
    if (failed(plan))
      return op.emitOpError() << "has no tcgen05.ld layout";
    FailureOr<Value> addr =
        warpTMemAddress(e, op, type, adaptor.getSrc(), adaptor.getSlot(),
                        op.getSrc().getType(), op.getColumn());
    if (failed(addr))
      return failure();
    Type elt = type.getElementType();
    SmallVector<Value> regs(getLayout(type).getNumRegisters());
    for (const TMemInstr &in : *plan) {
      int64_t n = in.words.size();
      Value v = NVVM::Tcgen05LdOp::create(
          rewriter, e.loc, wordsType(rewriter, n), /*pack=*/false, in.shape,
          tmemPointer(e, e.add(*addr, e.i32(int32_t(in.offset)))), Value());
      for (auto [i, parts] : llvm::enumerate(in.words)) {
        Value word = n == 1 ? v
                            : Value(LLVM::ExtractElementOp::create(
                                  rewriter, e.loc, v, e.i32(i)));
        SmallVector<Value> elems =
            e.unpackWords({word}, elt, int(parts.size()));
        for (auto [r, x] : llvm::zip(parts, elems))
          regs[r] = x;
      }
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct TMemStoreLowering : public OpConversionPattern<TMemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMemStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto type = cast<RankedTensorType>(op.getValue().getType());
    FailureOr<SmallVector<TMemInstr>> plan = planTMemAccess(type);
    if (failed(plan))
      return op.emitOpError() << "has no tcgen05.st layout";
    FailureOr<Value> addr = warpTMemAddress(
        e, op, type, adaptor.getDst().front(), adaptor.getSlot().front(),
        op.getDst().getType(), op.getColumn());
    if (failed(addr))
      return failure();
    ValueRange regs = adaptor.getValue();
    for (const TMemInstr &in : *plan) {
      int64_t n = in.words.size();
      Value v = LLVM::UndefOp::create(rewriter, e.loc, wordsType(rewriter, n));
      for (auto [i, parts] : llvm::enumerate(in.words)) {
        SmallVector<Value> elems;
        for (int64_t r : parts)
          elems.push_back(regs[r]);
        Value word = e.packWords(elems)[0];
        v = n == 1 ? word
                   : Value(LLVM::InsertElementOp::create(rewriter, e.loc, v,
                                                         word, e.i32(i)));
      }
      NVVM::Tcgen05StOp::create(
          rewriter, e.loc, /*unpack=*/false, in.shape,
          tmemPointer(e, e.add(*addr, e.i32(int32_t(in.offset)))), v, Value());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMemWaitLowering : public OpConversionPattern<TMemWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMemWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    if (op.getKind() == TMemWaitKind::Store) {
      NVVM::Tcgen05WaitOp::create(rewriter, e.loc,
                                  NVVM::Tcgen05WaitKind::STORE);
      rewriter.eraseOp(op);
      return success();
    }
    // The loaded registers pass through the wait, tied (as through
    // wgmma.wait_group), so nothing reads them before it.
    if (op.getValues().empty()) {
      NVVM::Tcgen05WaitOp::create(rewriter, e.loc, NVVM::Tcgen05WaitKind::LOAD);
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<SmallVector<Value>> results =
        tiedAsm(e, adaptor.getValues(), "tcgen05.wait::ld.sync.aligned;");
    SmallVector<ValueRange> ranges(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, ranges);
    return success();
  }
};

struct Tcgen05FenceLowering : public OpConversionPattern<Tcgen05FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::Tcgen05FenceOp::create(
        rewriter, op.getLoc(),
        op.getKind() == Tcgen05FenceKind::Before
            ? NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC
            : NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

LogicalResult tilec::lowerTensorMemory(func::FuncOp func) {
  auto tm = func->getAttrOfType<TensorMemoryAttr>(kTensorMemoryAttr);
  if (!tm)
    return success();
  if (!tm.getAddress())
    return func.emitError() << "has tensor memory but no shared-memory word "
                               "for its address; run "
                               "tile-allocate-shared-memory first";
  NVVM::CTAGroupKind group = ctaGroupKind(tm.getCtaGroup());
  Location loc = func.getLoc();
  // Warp 0 (whole: the instructions are .sync.aligned) allocates.
  auto onWarp0 = [&](OpBuilder &b, auto body) {
    Emitter e{b, loc};
    Value warp0 = e.eq(arith::ShRUIOp::create(
                           b, loc, NVVM::ThreadIdXOp::create(b, loc, b.getI32Type()),
                           e.i32(5)),
                       e.i32(0));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, warp0, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body(e);
  };
  // In a cluster, after its first barrier: a cta_group::2 allocation takes
  // a warp of each CTA of the pair, and every CTA has started by then (as
  // CUTLASS allocates after its cluster sync).
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  auto syncs = func.getBody().front().getOps<ClusterSyncOp>();
  if (!syncs.empty())
    b.setInsertionPointAfter(*syncs.begin());
  Value columns = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                               tm.getColumns());
  onWarp0(b, [&](Emitter &e) {
    NVVM::Tcgen05AllocOp::create(b, loc, addressWord(e, tm), columns, group);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, group);
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::Barrier0Op::create(b, loc);
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  func.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    NVVM::Tcgen05FenceOp::create(rb, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    NVVM::Barrier0Op::create(rb, loc);
    NVVM::Tcgen05FenceOp::create(rb, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    onWarp0(rb, [&](Emitter &e) {
      Value base = LLVM::LoadOp::create(rb, loc, rb.getI32Type(),
                                        addressWord(e, tm));
      NVVM::Tcgen05DeallocOp::create(rb, loc, tmemPointer(e, base), columns,
                                     group);
    });
  });
  return success();
}

void tilec::populateTensorMemoryPatterns(TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<TMemAllocLowering, Tcgen05MMALowering, Tcgen05CommitLowering,
               TMemLoadLowering, TMemStoreLowering, TMemWaitLowering,
               Tcgen05FenceLowering>(converter, patterns.getContext());
}
