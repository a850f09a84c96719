//===- TilePlainTwin.cpp - the kernel as it is, for views TMA cannot read -===//
//
// The tile-plain-twin pass. A kernel whose main loop tile-partition-schedule
// scheduled (it will be warp-specialized, with TMA copies and wgmma) gets a
// twin next to it, `NAME__plain`, that keeps the plain loads and runs its
// dots on mma.sync: the runtime launches it where a view breaks TMA's rules
// (rows not 16-byte aligned, ...).
//
//   func.func @k(...) attributes {tile.plain_variant = "k__plain", ...}
//   func.func @k__plain(...) attributes {tile.plain_variant_of = "k", ...}
//     // no partitions; every dot #tgpu.mma<mma_sync, a = regs, b = regs>
//
// A kernel with tile-shape variants gets one twin for the family (its views
// are the kernel's), made from the member with the smallest output tile a
// warp, and of those the one with the most warps: mma.sync holds its
// operands in registers, which a smaller share of the tile keeps from
// spilling (a 4-warp 64x64 fp8 twin spilled where an 8-warp 128x64 did
// not). The twin drops what only the fast path uses (schedule, cluster,
// stages, variants, cost). A kernel with tcgen05 dots (sm_100a) has its
// tiles laid out for tcgen05.ld's view of tensor memory, which mma.sync
// cannot use: its twin carries each accumulator in the mma.sync layout
// through its loop, or, where that leaves fewer bytes converted through
// shared memory each iteration (attention's S and P), is laid out again
// from scratch as on sm_90a (relayoutForMMASync).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#define DEBUG_TYPE "tile-plain-twin"

namespace tilec {
#define GEN_PASS_DEF_TILEPLAINTWIN
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The output tile's elements of a kernel (its first dot's), 0 if none.
int64_t outputTileElements(func::FuncOp func) {
  int64_t n = 0;
  func.walk([&](DotOp dot) {
    n = cast<RankedTensorType>(dot.getType()).getNumElements();
    return WalkResult::interrupt();
  });
  return n;
}

/// Places the layout conversions an mma.sync dot alone reads right before
/// it, the one holding the most registers last. Through shared memory,
/// that conversion's loads then sit next to the MMAs, and on sm_100a
/// lower-to-llvm moves each to the first MMA that reads it
/// (sinkMMAOperandLoads): a warp holds a k-step of the operand at a time
/// instead of all of it (a 128x128 bf16 B operand is 256 registers a
/// thread whole).
void placeOperandConversions(DotOp dot) {
  SmallVector<std::pair<int64_t, ConvertLayoutOp>> conversions;
  for (Value v : {dot.getAcc(), dot.getA(), dot.getB()})
    if (auto cvt = v.getDefiningOp<ConvertLayoutOp>();
        cvt && cvt->getBlock() == dot->getBlock() && cvt->hasOneUse())
      conversions.push_back(
          {getLayout(cvt.getType()).getNumRegisters(), cvt});
  llvm::stable_sort(conversions, [](auto &x, auto &y) {
    return x.first < y.first;
  });
  for (auto &[regs, cvt] : conversions)
    cvt->moveBefore(dot);
}

/// An mma.sync operand converted through shared memory before the dot's
/// loop (loop-invariant: attention's Q) stays in shared memory: stored
/// once into a buffer of its own before the loop (where the conversion
/// was), read right before the dot. A warp then holds a k-step of it at a
/// time in the loop (sinkMMAOperandLoads), not all of it for the whole
/// loop (Q at D = 128 is 32 registers a thread beside O's 64), where the
/// buffer leaves the loop's pipeline its two stages.
void keepInvariantOperandsShared(DotOp dot) {
  auto loop = dot->getParentOfType<scf::ForOp>();
  if (!loop)
    return;
  for (unsigned idx : {0u, 1u}) {
    auto cvt = dot->getOperand(idx).getDefiningOp<ConvertLayoutOp>();
    if (!cvt || !cvt.getSharedAttr() || loop->isAncestor(cvt))
      continue;
    auto type = cast<RankedTensorType>(cvt.getType());
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    auto bufTy = tgpu::SharedBufferType::get(
        dot.getContext(), shape, type.getElementType(), cvt.getSharedAttr());
    // Not where the buffer would leave the loop's TMA copies fewer than
    // the two stages a pipeline needs (attention's twin at D = 256: K and
    // V take 64 KB a stage, Q would take 64 KB more).
    auto func = dot->getParentOfType<func::FuncOp>();
    if (pipelineStagesThatFit(func, loop) >= 2 &&
        pipelineStagesThatFit(func, loop, bufTy, cvt) < 2)
      continue;
    OpBuilder b(cvt);
    Location loc = cvt.getLoc();
    Value buf = tgpu::AllocOp::create(b, loc, bufTy);
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    tgpu::LocalStoreOp::create(b, loc, cvt.getSrc(), buf, zero);
    b.setInsertionPoint(dot);
    Value v = tgpu::LocalLoadOp::create(b, loc, type, buf, zero);
    dot->setOperand(idx, v);
    if (cvt->use_empty())
      cvt.erase();
  }
}

/// Whether `func`'s twin keeps its partitions: the scheduled loop's dots
/// are async MMAs whose shared-memory operands are all TMA copies
/// (sharedOperandLoads), a GEMM's main loop or attention's, as
/// tile-insert-channels takes them. The load partition's threads then
/// copy what TMA cannot read, into the same slots (tile-insert-channels,
/// for loads without tgpu.tma).
bool keepsPartitions(func::FuncOp func) {
  scf::ForOp loop = tgpu::scheduledLoop(func);
  return loop && !sharedOperandLoads(loop).empty();
}

/// Stores each tile `func` stores in the layout it is computed in where
/// it can (storeUnconverted). Returns whether any conversion went.
bool storeUnconverted(func::FuncOp func) {
  bool changed = false;
  func.walk([&](StoreOp store) { changed |= tilec::storeUnconverted(store); });
  return changed;
}

/// Bytes the layout conversions in `twin`'s loops move through shared
/// memory an iteration.
int64_t loopConversionBytes(func::FuncOp twin) {
  int64_t bytes = 0;
  twin.walk([&](ConvertLayoutOp cv) {
    if (cv->getParentOfType<scf::ForOp>())
      bytes += getScratchBytes(cv);
  });
  return bytes;
}

/// `v`'s tile type without its layout.
void stripLayout(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (t && t.getEncoding())
    v.setType(RankedTensorType::get(t.getShape(), t.getElementType()));
}

/// The twin of a kernel with tcgen05 dots (sm_100a), laid out again from
/// scratch as on sm_90a. The kernel's tiles are laid out for tcgen05: S
/// and the softmax math a row a thread, as tcgen05.ld reads tensor memory.
/// mma.sync computes S in its accumulator layout, so a twin that kept
/// them converted S to that layout and P back through shared memory every
/// iteration (attention at D = 128: 64 + 32 KB and four barriers, and the
/// addresses of those round trips spilled). Laid out for wgmma, whose
/// accumulator layout mma.sync shares, the softmax runs where the MMAs
/// leave S. Every layout and conversion goes; tile-assign-layouts,
/// tile-remove-layout-conversions and tile-swizzle run again on the twin;
/// its dots then run on mma.sync. Fails where one of them does (the
/// caller keeps the twin with the kernel's layouts then).
LogicalResult relayoutForMMASync(func::FuncOp twin) {
  SmallVector<ConvertLayoutOp> conversions;
  twin.walk([&](Operation *op) {
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument a : b.getArguments())
          stripLayout(a);
    for (Value v : op->getResults())
      stripLayout(v);
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
        c.setValueAttr(dense.reshape(cast<ShapedType>(c.getType())));
    if (auto cv = dyn_cast<ConvertLayoutOp>(op))
      conversions.push_back(cv);
    if (auto dot = dyn_cast<DotOp>(op))
      dot->removeAttr(tgpu::kMMAAttr);
  });
  for (ConvertLayoutOp cv : conversions) {
    cv.replaceAllUsesWith(cv.getSrc());
    cv.erase();
  }
  if (failed(assignLayouts(twin, Target::SM90a)) ||
      failed(removeLayoutConversions(twin)))
    return failure();
  // As the pipeline does after those passes (a conversion of Q, which the
  // loop's dot reads, leaves the loop).
  SmallVector<LoopLikeOpInterface> loops;
  twin.walk([&](LoopLikeOpInterface loop) { loops.push_back(loop); });
  for (LoopLikeOpInterface loop : loops)
    moveLoopInvariantCode(loop);
  if (failed(chooseSwizzles(twin)))
    return failure();
  twin.walk([](DotOp dot) { tgpu::selectMMASync(dot); });
  return success();
}

struct TilePlainTwin : public tilec::impl::TilePlainTwinBase<TilePlainTwin> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal() ||
          func->hasAttr(kVariantOfAttr) || func->hasAttr(kPlainVariantOfAttr) ||
          !tgpu::scheduledLoop(func))
        continue;
      if (failed(addTwin(func)))
        return signalPassFailure();
    }
  }

  /// The family member with the smallest output tile a warp, then the most
  /// warps (the kernel itself if it has no variants).
  func::FuncOp twinSource(func::FuncOp func) {
    auto variants = func->getAttrOfType<ArrayAttr>(kVariantsAttr);
    func::FuncOp best = func;
    if (!variants)
      return best;
    // (elements a warp, -warps): smaller is better.
    auto rank = [](func::FuncOp f) {
      int64_t warps = getNumWarps(f);
      return std::make_pair(outputTileElements(f) / warps, -warps);
    };
    auto bestRank = rank(func);
    for (auto name : variants.getAsRange<FlatSymbolRefAttr>()) {
      auto member = getOperation().lookupSymbol<func::FuncOp>(name.getAttr());
      auto of = member ? member->getAttrOfType<FlatSymbolRefAttr>(kVariantOfAttr)
                       : FlatSymbolRefAttr();
      // Split-K members have a workspace the twin would not get.
      if (!member || !member->hasAttr(kKernelAttr) || !of ||
          member->hasAttr(kWorkspaceAttr) || member->hasAttr(kSemaphoresAttr) ||
          of.getValue() != func.getSymName() ||
          member.getFunctionType() != func.getFunctionType())
        continue;
      auto r = rank(member);
      if (r.first > 0 && r < bestRank) {
        best = member;
        bestRank = r;
      }
    }
    return best;
  }

  LogicalResult addTwin(func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    std::string name = (func.getSymName() + "__plain").str();
    if (SymbolTable::lookupSymbolIn(getOperation(), name))
      return func.emitError()
             << "the kernel's plain twin would be named '" << name
             << "', which the module already defines; rename that function";
    // The twin goes right after the kernel, which names it.
    auto place = [&](func::FuncOp twin) {
      OpBuilder(func).insert(twin);
      twin->moveAfter(func);
      func->setAttr(kPlainVariantAttr, FlatSymbolRefAttr::get(ctx, name));
      return success();
    };
    if (keepsPartitions(func))
      if (func::FuncOp twin = specializedTwin(func, name))
        return place(twin);
    auto twin = cast<func::FuncOp>(twinSource(func)->clone());
    twin.setSymName(name);
    twin->setAttr(kPlainVariantOfAttr, FlatSymbolRefAttr::get(func.getSymNameAttr()));
    for (StringRef a : {kScheduleAttr, kTileSchedulerAttr, kClusterAttr,
                        tile::kCtaGroupAttr, tgpu::kCtaGroupAttr, kNumStagesAttr,
                        kVariantsAttr, kVariantOfAttr, kCostAttr,
                        tgpu::kPersistentAttr})
      twin->removeAttr(a);
    // Plain loads and mma.sync: no partitions, no wgmma or tcgen05.
    SmallVector<DotOp> async;
    twin.walk([&](Operation *op) {
      op->removeAttr(tgpu::kPartitionAttr);
      op->removeAttr(tgpu::kPartitionsAttr);
      auto dot = dyn_cast<DotOp>(op);
      if (dot && tgpu::getMMA(dot).isAsync())
        async.push_back(dot);
    });
    // Laid out again for mma.sync (sm_100a) where that moves fewer bytes
    // through shared memory in its loops than the kernel's layouts do.
    bool tcgen05 = llvm::any_of(
        async, [](DotOp d) { return tgpu::getMMA(d).isTCGen05(); });
    auto relaid = tcgen05 ? cast<func::FuncOp>(twin->clone()) : func::FuncOp();
    for (DotOp dot : async)
      tgpu::selectMMASync(dot);
    // The conversions selectMMASync added for constants (a dot's zero
    // accumulator) become constants in the new layout.
    if (failed(removeLayoutConversions(twin)))
      return twin.emitError() << "the plain twin's layout conversions did "
                                 "not converge";
    if (relaid) {
      // A trial: where it cannot be laid out again, the twin as it is.
      bool laidOut;
      {
        ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
        laidOut = succeeded(relayoutForMMASync(relaid));
      }
      if (laidOut && loopConversionBytes(relaid) < loopConversionBytes(twin))
        std::swap(twin, relaid);
      relaid.erase();
    }
    twin.walk([](DotOp dot) {
      placeOperandConversions(dot);
      keepInvariantOperandsShared(dot);
    });
    return place(twin);
  }

  /// The twin of a kernel whose loop keeps its partitions: the kernel as
  /// it is (its MMAs, schedule, stages, persistent walk), the operand
  /// loads without their TMA copies, so that the load partition's threads
  /// copy them; no cluster (its copies would be multicast), no CTA pair,
  /// no launch-control scheduler (static waves), no variants. Where two
  /// stages do not fit beside the scratch of its epilogue's conversions
  /// (a TMA store's staging buffer in the kernel: attention's O at
  /// D = 256, a conversion of 64 KiB each compute copy), it stores its
  /// tiles in the layout they are computed in; null where they still do
  /// not fit.
  func::FuncOp specializedTwin(func::FuncOp func, StringRef name) {
    MLIRContext *ctx = &getContext();
    auto twin = cast<func::FuncOp>(func->clone());
    twin.setSymName(name);
    twin->setAttr(kPlainVariantOfAttr, FlatSymbolRefAttr::get(func.getSymNameAttr()));
    for (StringRef a :
         {kTileSchedulerAttr, kClusterAttr, tile::kCtaGroupAttr,
          tgpu::kCtaGroupAttr, kVariantsAttr, kVariantOfAttr, kCostAttr})
      twin->removeAttr(a);
    // Static waves of persistent tiles, not launch control.
    if (twin->hasAttr(tgpu::kPersistentAttr))
      twin->setAttr(tgpu::kPersistentAttr, UnitAttr::get(ctx));
    scf::ForOp loop = tgpu::scheduledLoop(twin);
    SmallVector<std::pair<Operation *, bool>> loads = sharedOperandLoads(loop);
    for (auto [load, transposed] : loads)
      load->removeAttr(tgpu::kTMAAttr);
    // (And the side loads: the load partition's threads copy them too.)
    for (LoadOp load : loop.getBody()->getOps<LoadOp>())
      load->removeAttr(tgpu::kTMAAttr);
    auto fits = [&] {
      return twoStageSharedBytes(twin, loop, loads,
                                 tgpu::getComputeCopies(loop)) <=
             TargetInfo::of(func).sharedMemoryPerBlock(func);
    };
    if (!fits() && (!storeUnconverted(twin) || !fits())) {
      twin.erase();
      return {};
    }
    return twin;
  }
};

} // namespace
