//===- TilePipeline.cpp - channels into rings, classic pipelining --------===//
//
// The tile-pipeline pass, in two steps.
//
// 1. A loop scheduled by tile-pipeline-schedule with N stages,
//
//   scf.for %iv ... {
//     %a = tile.load %A[...] {tile.pipeline.stage = 0}   (maybe converted)
//     <the rest, stage N - 1>
//   }
//
// becomes a producer and a consumer of one channel of depth N, both run by
// every warp (n = the trip count, issue(j) = acquire use j of the channel
// and issue the TMA copies of iteration j's tiles into its slot):
//
//   issue(0) ... issue(N - 2)             (those < n)
//   scf.for %iv ... (%j = 0) {
//     if j + N - 1 < n: issue(j + N - 1)
//     %s = tgpu.channel_wait %ch[j]
//     %a = tgpu.local_load %ringA[%s]
//     <the rest>
//     tgpu.channel_release %ch[j]
//   }
//
// 2. Every channel (those of step 1 and those tile-warp-specialize made
// between its producer and consumers) becomes rings of `depth` slots and a
// full and an empty mbarrier a slot; use i lives in slot i % depth and
// completes phase (i / depth) % 2 of its barriers:
//
//   acquire [i]  ->  wait empty[i % d], parity ((i / d) % 2) ^ 1
//                      (not for a constant i < d: the first round's slots
//                      are free)
//                    arrive full[i % d] expect_tx <bytes of a use>
//   wait [i]     ->  wait full[i % d], parity (i / d) % 2
//   release [i]  ->  arrive empty[i % d]   (on every CTA of a cluster)
//
// A CTA pair's channel (`pair`, sm_100a) joins the MMA thread of the
// pair's first CTA with the other side in both CTAs: the barriers that
// thread waits on are the first CTA's and count both CTAs (the operands'
// full barrier two expect_tx arrivals, `leader`, and the copies of both
// CTAs complete on it, `tma_load ... leader`; the accumulators' empty
// barrier every epilogue warp of both, `arrive ... leader`); the barriers
// the other side waits on are each CTA's own, the MMA thread's commits
// multicast to both (`tcgen05_commit ... multicast 2`).
//
// On sm_100a a channel whose slots the MMAs release (`release = mma`) is
// released by the MMAs' completion itself: the thread that issued them
// commits (tcgen05.commit) to the empty barrier, which then expects one
// arrival (one per CTA of a cluster, the commit multicast to each):
//
//   release [i]  ->  tcgen05_commit empty[i % d] [multicast N]
//
// Such a commit reaches the barrier when the MMAs complete, after the
// thread that issued it went on. Where it multicasts (a cluster's or a
// CTA pair's channel), the producer drains before the kernel's last
// cluster barrier: after its last use it waits for each slot's next empty
// phase, so every commit aimed at this CTA's barriers has arrived before
// the CTA may leave (as CUTLASS's producer_tail):
//
//   after the producer's loops, use counter n:
//     wait empty[(n + k) % d], parity (((n + k) / d) % 2) ^ 1, k < d
//
// A channel filled by MMAs (`fill = mma`: accumulators in tensor memory,
// handed from the MMA partition to the epilogue) gets rings of tensor
// memory; its acquire only waits for a free slot, and the MMA thread's
// fill commits to the full barrier:
//
//   acquire [i]  ->  wait empty[i % d], parity ((i / d) % 2) ^ 1
//   fill [i]     ->  tcgen05_commit full[i % d] [multicast N]
//
// A channel the producer's warps fill (`fill = arrive`: attention's P,
// which the softmax warps write into tensor memory for the MMA that
// reads it; a plain twin's shared-memory slots, which the load
// partition's threads copy with tgpu.thread_copy) has a full barrier that
// counts `producer_warps` arrivals, and its acquire expects no bytes; its
// fill is each producer warp's arrival (after the warp's tcgen05 stores
// completed and a tcgen05 fence, or its copies and their fence for the
// async proxy, which the producer says):
//
//   fill [i]     ->  arrive full[i % d]
//
// A channel without a depth gets as many slots as fit in shared memory next
// to the kernel's other buffers and scratch (at most 8, what tile.num_stages
// allows), or the kernel's tile.num_stages; the kernel records the choice
// as tgpu.num_stages.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"
#include "tilec/Dialect/TGPU/Transforms/SharedMemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

struct Prefetch {
  LoadOp load;
  BlockArgument view;
  tgpu::TMASlot slot;
  Value ring;
};

/// The layout of `load`'s tile that the reshapes and transposes `shapeOps`
/// (load -> shapeOps -> cv) carry to `cv`'s result layout: their inverses
/// applied to it, last first.
LinearLayout layoutBefore(ConvertLayoutOp cv, ArrayRef<Operation *> shapeOps) {
  LinearLayout l = getLayout(cv.getType());
  for (Operation *op : llvm::reverse(shapeOps)) {
    auto srcShape =
        cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
    if (auto t = dyn_cast<TransposeOp>(op)) {
      std::vector<int> inverse(t.getPermutation().size());
      for (auto [i, d] : llvm::enumerate(t.getPermutation()))
        inverse[d] = i;
      l = l.transpose(inverse);
    } else {
      l = l.reshape(std::vector<int64_t>(srcShape.begin(), srcShape.end()));
    }
  }
  return l;
}

/// The conversion a prefetched load's tile reaches through a chain of
/// single-use reshapes and transposes (`shapeOps`), which the slot read can
/// take over: the load's only use directly (as always), or through shape
/// ops where the slot `ring` can hold the layout they carry to the
/// conversion's.
std::optional<ConvertLayoutOp> readConversion(LoadOp load, Value ring,
                                              SmallVectorImpl<Operation *> &shapeOps) {
  Operation *op = load;
  while (op->hasOneUse() && isa<ReshapeOp, TransposeOp>(*op->user_begin()))
    shapeOps.push_back(op = *op->user_begin());
  auto cv = op->hasOneUse() ? dyn_cast<ConvertLayoutOp>(*op->user_begin())
                            : ConvertLayoutOp();
  if (cv && !shapeOps.empty()) {
    auto t = cast<RankedTensorType>(load.getType());
    auto slot = cast<tgpu::SharedBufferType>(ring.getType()).getSlotLayout();
    bool fits = getLayoutAttr(t) && getLayoutAttr(cv.getType());
    if (fits) {
      LinearLayout before = layoutBefore(cv, shapeOps), after = before;
      for (Operation *op : shapeOps)
        after = shapeOpLayout(op, after);
      fits = after == getLayout(cv.getType()) &&
             analyzeSharedAccess(before, slot,
                                 t.getElementType().getIntOrFloatBitWidth());
    }
    if (!fits)
      cv = ConvertLayoutOp();
  }
  if (!cv)
    shapeOps.clear();
  return cv ? std::optional(cv) : std::nullopt;
}

struct TilePipeline : public tilec::impl::TilePipelineBase<TilePipeline> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      for (auto loop : llvm::make_early_inc_range(
               func.getBody().front().getOps<scf::ForOp>()))
        if (auto n = loop->getAttrOfType<IntegerAttr>(kPipelineStagesAttr))
          if (failed(expand(func, loop, n.getInt())))
            return signalPassFailure();
      SmallVector<tgpu::ChannelOp> channels;
      func.walk([&](tgpu::ChannelOp ch) { channels.push_back(ch); });
      // The kernel's own tile.num_stages.
      std::optional<int64_t> asked;
      if (auto a = func->getAttrOfType<IntegerAttr>(kNumStagesAttr))
        asked = a.getInt();
      // Channels whose depth is open share what shared memory is left: the
      // same depth each (a use of each is in flight together).
      int64_t openStride = 0;
      for (tgpu::ChannelOp ch : channels)
        if (!ch.getDepth())
          openStride += ch.getUseStride();
      std::optional<int64_t> depth = asked;
      int64_t most = TargetInfo::of(func).sharedMemoryPerBlock(func);
      if (openStride && !depth) {
        // The deepest ring the kernel fits with (SharedMemoryPlan: the
        // layout tile-allocate-shared-memory will make).
        depth = kMaxPipelineStages;
        while (*depth > 0 && SharedMemoryPlan(func, *depth).bytes() > most)
          --*depth;
      }
      if (openStride) {
        if (*depth < 2) {
          tgpu::ChannelOp first = *llvm::find_if(
              channels, [](tgpu::ChannelOp ch) { return !ch.getDepth(); });
          first.emitError() << "a " << openStride
                            << "-byte pipeline stage leaves room for "
                            << *depth << " stages; at least 2 are needed";
          return signalPassFailure();
        }
        func->setAttr(tgpu::kNumStagesAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                       *depth));
      }
      // What the plan says the kernel takes, for tile-allocate-shared-
      // memory's result to be checked against (test/examples).
      if (!channels.empty())
        func->setAttr(tgpu::kSharedMemoryPlanAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                       SharedMemoryPlan(func, depth.value_or(0))
                                           .bytes()));
      for (tgpu::ChannelOp ch : channels)
        if (failed(lowerChannel(ch, ch.getDepth().value_or(depth.value_or(0)))))
          return signalPassFailure();
    }
  }

  /// Fails (saying where) unless every use of `ch` is one lowerChannel
  /// rewrites: the channel ops, TMA copies (a thread gather's boxes)
  /// completing on it, and reads and
  /// copies (TMA's or threads') of its buffers (through transposes).
  static LogicalResult checkUses(tgpu::ChannelOp ch) {
    for (OpOperand &use : ch.getChannel().getUses()) {
      Operation *user = use.getOwner();
      auto tma = dyn_cast<tgpu::TMALoadOp>(user);
      auto gather = dyn_cast<tgpu::ThreadGatherOp>(user);
      if (!isa<tgpu::ChannelAcquireOp, tgpu::ChannelWaitOp,
               tgpu::ChannelReleaseOp, tgpu::ChannelFillOp>(user) &&
          !(tma && use.get() == tma.getBarriers()) &&
          !(gather && use.get() == gather.getBarriers()))
        return user->emitError() << "uses a channel in a way tile-pipeline "
                                    "cannot lower";
    }
    SmallVector<Value> work(ch.getBuffers().begin(), ch.getBuffers().end());
    while (!work.empty()) {
      Value buf = work.pop_back_val();
      for (Operation *user : buf.getUsers()) {
        if (auto t = dyn_cast<tgpu::TransposeOp>(user)) {
          work.push_back(t);
          continue;
        }
        if (!isa<tgpu::TMALoadOp, tgpu::WGMMAOp, tgpu::Tcgen05MMAOp,
                 tgpu::LocalLoadOp, tgpu::ThreadCopyOp, tgpu::ThreadGatherOp,
                 tgpu::SlotStoreOp,
                 tgpu::TMemLoadOp,
                 tgpu::TMemStoreOp>(user))
          return user->emitError() << "uses a channel's buffer in a way "
                                      "tile-pipeline cannot lower";
      }
    }
    return success();
  }

  /// Rings and barriers for `ch`; its ops become barrier waits and
  /// arrivals on them.
  LogicalResult lowerChannel(tgpu::ChannelOp ch, int64_t depth) {
    MLIRContext *ctx = &getContext();
    Location loc = ch.getLoc();
    if (failed(checkUses(ch)))
      return failure();
    OpBuilder b(ch);
    // The rings; views of them (transposes) are rebuilt on the ring.
    for (Value buf : ch.getBuffers()) {
      Value ring;
      if (auto tm = dyn_cast<tgpu::TensorMemoryBufferType>(buf.getType()))
        ring = tgpu::TMemAllocOp::create(b, loc, tm.withNumSlots(depth));
      else
        ring = tgpu::AllocOp::create(
            b, loc,
            cast<tgpu::SharedBufferType>(buf.getType()).withNumSlots(depth));
      SmallVector<std::pair<Value, Value>> work = {{buf, ring}};
      while (!work.empty()) {
        auto [from, to] = work.pop_back_val();
        for (Operation *user : llvm::make_early_inc_range(from.getUsers()))
          if (auto t = dyn_cast<tgpu::TransposeOp>(user)) {
            OpBuilder tb(t);
            work.push_back({t, tgpu::TransposeOp::create(tb, t.getLoc(), to)});
          }
        from.replaceAllUsesWith(to);
        if (auto t = from.getDefiningOp<tgpu::TransposeOp>())
          t.erase();
      }
    }
    auto barsTy = tgpu::BarriersType::get(ctx, depth);
    // Filled by a TMA copy's transaction count, an MMA's commit, or each
    // producer warp's arrival (fill = arrive).
    bool arrives =
        ch.getKind() && ch.getKind()->getFill() == tgpu::FillKind::Arrive;
    // Or each producer thread's, as its cp.async copies complete (fill =
    // async_copy); the consumers then fence the async proxy.
    bool asyncCopies =
        ch.getKind() && ch.getKind()->getFill() == tgpu::FillKind::AsyncCopy;
    bool copies = !ch.getKind() || ch.getKind()->getFill() == tgpu::FillKind::TMA;
    // A CTA pair's channel: what the leader's MMA thread waits on (the
    // copies' full barriers, the accumulators' empty ones) is the leader's
    // barrier, counting both CTAs; its commits multicast to both.
    bool pair = ch.getPair();
    if (pair && (arrives || asyncCopies))
      return ch.emitError() << "a CTA pair's channel is filled by TMA or by "
                               "the MMAs, not by warps' arrivals";
    Value full = tgpu::BarriersOp::create(
        b, loc, barsTy,
        arrives       ? ch.getProducerWarps().value_or(1)
        : asyncCopies ? 32 * ch.getProducerWarps().value_or(1)
        : pair && copies ? 2
                         : 1);
    // Released by tcgen05 MMAs' completion: one commit a CTA, not an
    // arrival a consumer warp.
    bool commits = ch.getKind() &&
                   ch.getKind()->getRelease() == tgpu::ReleaseKind::MMA &&
                   TargetInfo::of(ch).tcgen05;
    Value empty = tgpu::BarriersOp::create(
        b, loc, barsTy,
        (commits ? 1 : ch.getConsumerWarps()) *
            (pair && !commits ? 2 : ch.getCluster().value_or(1)));
    IntegerAttr cluster = ch.getClusterAttr();
    // (What the MMA thread's commits multicast to.)
    IntegerAttr commitTo = pair ? b.getI32IntegerAttr(2) : cluster;
    int64_t useBytes = ch.getUseBytes();
    SmallVector<std::pair<Value, Location>> acquires;
    for (Operation *user : llvm::make_early_inc_range(ch.getChannel().getUsers())) {
      OpBuilder ub(user);
      Location uloc = user->getLoc();
      if (auto tma = dyn_cast<tgpu::TMALoadOp>(user)) {
        tma.getBarriersMutable().assign(full);
        tma.setLeader(pair);
      } else if (auto gather = dyn_cast<tgpu::ThreadGatherOp>(user)) {
        // (Its TMA boxes add their bytes to the threads' arrivals.)
        gather.getBarriersMutable().assign(full);
      } else if (auto acq = dyn_cast<tgpu::ChannelAcquireOp>(user)) {
        Value i = acq.getIndex();
        if (commits && commitTo)
          acquires.push_back({i, uloc}); // drained below
        Value slot = tgpu::ringSlot(ub, uloc, i, depth);
        // A use known to be in the first round finds its slot free.
        std::optional<int64_t> known = getConstantIntValue(i);
        if (!known || *known < 0 || *known >= depth) {
          Value phase = tgpu::ringPhase(ub, uloc, i, depth);
          Value one =
              arith::ConstantIntOp::create(ub, uloc, ub.getI32Type(), 1);
          tgpu::WaitOp::create(ub, uloc, empty, slot,
                               arith::XOrIOp::create(ub, uloc, phase, one));
        }
        if (copies)
          tgpu::ArriveOp::create(ub, uloc, full, slot,
                                 ub.getI64IntegerAttr(useBytes), IntegerAttr(),
                                 pair);
        acq.replaceAllUsesWith(slot);
        acq.erase();
      } else if (auto fill = dyn_cast<tgpu::ChannelFillOp>(user)) {
        Value slot = tgpu::ringSlot(ub, uloc, fill.getIndex(), depth);
        if (asyncCopies)
          tgpu::ArriveOp::create(ub, uloc, full, slot, IntegerAttr(),
                                 IntegerAttr(), /*leader=*/false,
                                 /*async_copies=*/true);
        else if (arrives)
          tgpu::ArriveOp::create(ub, uloc, full, slot, IntegerAttr(), cluster);
        else
          tgpu::Tcgen05CommitOp::create(ub, uloc, full, slot, commitTo);
        fill.erase();
      } else if (auto wait = dyn_cast<tgpu::ChannelWaitOp>(user)) {
        Value i = wait.getIndex();
        Value slot = tgpu::ringSlot(ub, uloc, i, depth);
        // Threads' cp.async writes are the generic proxy's: an MMA reading
        // the slot (the async proxy) needs a fence after the wait, a
        // shared load (a block-scaled GEMM's scale) does not.
        bool asyncReaders = llvm::any_of(wait->getUsers(), [](Operation *u) {
          return !isa<tgpu::LocalLoadOp>(u);
        });
        tgpu::WaitOp::create(ub, uloc, full, slot,
                             tgpu::ringPhase(ub, uloc, i, depth),
                             /*proxy_fence=*/asyncCopies && asyncReaders);
        wait.replaceAllUsesWith(slot);
        wait.erase();
      } else if (auto rel = dyn_cast<tgpu::ChannelReleaseOp>(user)) {
        Value slot = tgpu::ringSlot(ub, uloc, rel.getIndex(), depth);
        if (commits)
          tgpu::Tcgen05CommitOp::create(ub, uloc, empty, slot, commitTo);
        else
          tgpu::ArriveOp::create(ub, uloc, empty, slot, IntegerAttr(), cluster,
                                 pair);
        rel.erase();
      }
    }
    if (commits && commitTo)
      for (auto [i, aloc] : acquires)
        if (failed(drainProducer(i, aloc, empty, depth)))
          return failure();
    ch.erase();
    return success();
  }

  /// The value the use counter `i` (a loop-carried index, at an acquire)
  /// has after the loops that carry it, and the outermost of them; fails
  /// unless that loop is at the top of a partition's region.
  static FailureOr<std::pair<Operation *, Value>> counterAfterLoops(Value i) {
    auto arg = dyn_cast<BlockArgument>(i);
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                    : scf::ForOp();
    if (!loop || arg.getArgNumber() == 0)
      return failure();
    Operation *op = loop;
    Value after = loop.getTiedLoopResult(arg);
    // Enclosing loops that carry it on (yield it as is).
    while (true) {
      Operation *parent = op->getParentOp();
      auto yield = dyn_cast<scf::YieldOp>(op->getBlock()->getTerminator());
      auto carried = [&]() -> std::optional<unsigned> {
        if (!yield)
          return std::nullopt;
        for (auto [k, v] : llvm::enumerate(yield.getOperands()))
          if (v == after)
            return k;
        return std::nullopt;
      }();
      if (auto outer = dyn_cast<scf::ForOp>(parent); outer && carried) {
        op = outer;
        after = outer.getResult(*carried);
        continue;
      }
      if (auto outer = dyn_cast<scf::WhileOp>(parent);
          outer && carried && op->getParentRegion() == &outer.getAfter()) {
        // Into the next iteration's `before` argument, which the
        // condition forwards to a result.
        Value before = outer.getBeforeArguments()[*carried];
        auto cond = outer.getConditionOp();
        auto fwd = llvm::find(cond.getArgs(), before);
        if (fwd == cond.getArgs().end())
          return failure();
        op = outer;
        after = outer.getResult(fwd - cond.getArgs().begin());
        continue;
      }
      if (!isa<tgpu::WarpSpecializeOp>(parent))
        return failure();
      return std::make_pair(op, after);
    }
  }

  /// After the producer's last use (the loops carrying its use counter,
  /// `i` at an acquire), waits for every slot's next empty phase: the
  /// MMAs' commits to this CTA's barriers have all arrived then.
  static LogicalResult drainProducer(Value i, Location loc, Value empty,
                                     int64_t depth) {
    auto end = counterAfterLoops(i);
    if (failed(end))
      return emitError(loc)
             << "a channel whose release commits to other CTAs needs its "
                "producer's use counter carried by loops at the top of the "
                "partition (to drain it before the kernel ends)";
    auto [loop, n] = *end;
    OpBuilder b(loop->getContext());
    b.setInsertionPointAfter(loop);
    Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
    for (int64_t k = 0; k < depth; ++k) {
      Value u = n;
      if (k)
        u = arith::AddIOp::create(
            b, loc, n, arith::ConstantIntOp::create(b, loc, b.getI32Type(), k));
      tgpu::WaitOp::create(
          b, loc, empty, tgpu::ringSlot(b, loc, u, depth),
          arith::XOrIOp::create(b, loc, tgpu::ringPhase(b, loc, u, depth),
                                one));
    }
    return success();
  }

  LogicalResult expand(func::FuncOp func, scf::ForOp loop, int64_t stages) {
    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    SmallVector<Prefetch> prefetches;
    for (auto load : loop.getBody()->getOps<LoadOp>()) {
      auto stage = load->getAttrOfType<IntegerAttr>(kPipelineStageAttr);
      if (!stage || stage.getInt() != 0)
        continue;
      std::optional<tgpu::TMASlot> slot = tgpu::getTMASlot(load);
      auto view = dyn_cast<BlockArgument>(load.getTensor());
      if (!slot || !view)
        return load.emitError() << "scheduled for stage 0 but TMA cannot load "
                                   "it ahead: "
                                << (slot ? "its view is no kernel argument"
                                         : "it has no tgpu.tma copy");
      prefetches.push_back({load, view, *slot, Value()});
    }
    if (stages < 2 || prefetches.empty())
      return loop.emitError() << "a pipeline needs 2 or more stages and a "
                                 "stage-0 load";

    // A channel of depth N and TMA views.
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> ringTypes;
    for (Prefetch &p : prefetches) {
      ringTypes.push_back(p.slot.type.withNumSlots(ShapedType::kDynamic));
      auto vt = cast<TensorViewType>(p.view.getType());
      if (!vt.isTMA())
        setArgumentType(func, p.view, vt.withTMA(p.slot.box, p.slot.swizzle));
    }
    auto channel = tgpu::ChannelOp::create(
        b, loc, tgpu::ChannelType::get(ctx), ringTypes,
        b.getI64IntegerAttr(tgpu::getLaunchWarps(func)), IntegerAttr(),
        b.getI64IntegerAttr(stages), tgpu::ChannelKindAttr(), IntegerAttr());
    Value ch = channel.getChannel();
    for (auto [p, ring] : llvm::zip(prefetches, channel.getBuffers()))
      p.ring = ring;

    // TMA where the runtime could encode every descriptor, else the loop as
    // it was, with plain loads (the runtime zeroes the descriptor of a view
    // TMA cannot read, e.g. rows not 16-byte aligned).
    {
      OpBuilder ob(loop);
      Value ok;
      SmallVector<int32_t> fallback;
      for (Prefetch &p : prefetches) {
        if (llvm::is_contained(fallback, int32_t(p.view.getArgNumber())))
          continue;
        fallback.push_back(p.view.getArgNumber());
        Value ready =
            tgpu::TMAReadyOp::create(ob, loc, ob.getI1Type(), p.view);
        ok = ok ? arith::AndIOp::create(ob, loc, ok, ready) : ready;
      }
      addTmaFallback(func, fallback);
      auto choice = scf::IfOp::create(ob, loc, loop.getResultTypes(), ok,
                                      /*withElseRegion=*/true);
      loop->replaceAllUsesWith(choice.getResults());
      OpBuilder eb = OpBuilder::atBlockEnd(choice.elseBlock());
      Operation *plain = eb.clone(*loop);
      plain->removeAttr(kPipelineStagesAttr);
      scf::YieldOp::create(eb, loc, plain->getResults());
      loop->moveBefore(choice.thenBlock(), choice.thenBlock()->end());
      OpBuilder tb = OpBuilder::atBlockEnd(choice.thenBlock());
      scf::YieldOp::create(tb, loc, loop->getResults());
    }

    // The trip count and the prologue.
    OpBuilder pb(loop);
    auto i32 = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), v);
    };
    Value span = arith::SubIOp::create(pb, loc, loop.getUpperBound(),
                                       loop.getLowerBound());
    Value trips = arith::MaxSIOp::create(
        pb, loc, arith::CeilDivSIOp::create(pb, loc, span, loop.getStep()),
        i32(pb, 0));
    // issue(j) where iteration j runs (j < trips), indices from `l`'s.
    auto issueIfRuns = [&](OpBuilder &b, scf::ForOp l, Value j) {
      auto ifOp = scf::IfOp::create(
          b, loc, TypeRange{},
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, trips),
          false);
      OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
      issue(ib, l, prefetches, ch, j);
    };
    for (int64_t p = 0; p + 1 < stages; ++p)
      issueIfRuns(pb, loop, i32(pb, p));

    // The loop, with the iteration index carried.
    SmallVector<Value> inits(loop.getInitArgs());
    inits.push_back(i32(pb, 0));
    auto nloop = scf::ForOp::create(pb, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(), inits);
    Block *body = nloop.getBody();
    body->getOperations().splice(body->begin(), loop.getBody()->getOperations());
    SmallVector<Value> repl = {nloop.getInductionVar()};
    for (Value a : nloop.getRegionIterArgs().drop_back())
      repl.push_back(a);
    for (auto [o, n] : llvm::zip(loop.getBody()->getArguments(), repl))
      o.replaceAllUsesWith(n);
    for (auto [o, n] : llvm::zip(loop.getResults(), nloop.getResults()))
      o.replaceAllUsesWith(n);
    nloop->setAttrs(loop->getDiscardableAttrDictionary());
    nloop->removeAttr(kPipelineStagesAttr);
    loop.erase();
    Value j = nloop.getRegionIterArgs().back();

    OpBuilder lb = OpBuilder::atBlockBegin(body);
    // Refill the slot iteration j - 1 read with iteration j + N - 1's tiles.
    issueIfRuns(lb, nloop,
                arith::AddIOp::create(lb, loc, j, i32(lb, stages - 1)));
    Value slot = tgpu::ChannelWaitOp::create(lb, loc, ch, j);
    // The loads read their slot (in the layout a lone conversion wanted,
    // through the reshapes and transposes before it where the slot can
    // hold that layout), where that conversion was: tile-plain-twin placed
    // an MMA operand's right before its dot, so that the lowering can
    // sink each k-step's reads to its MMAs (sinkMMAOperandLoads).
    for (Prefetch &p : prefetches) {
      Operation *replaced = p.load;
      Type type = p.load.getType();
      SmallVector<Operation *> shapeOps;
      if (auto cv = readConversion(p.load, p.ring, shapeOps)) {
        replaced = *cv;
        type = withLayout(p.load.getType(), layoutBefore(*cv, shapeOps));
        for (Operation *op : shapeOps)
          op->moveBefore(*cv);
      }
      OpBuilder rb(shapeOps.empty() ? replaced : shapeOps.front());
      Value v = tgpu::LocalLoadOp::create(rb, p.load.getLoc(), type, p.ring, slot);
      if (!shapeOps.empty()) {
        // The shape ops carry the slot's layout to the conversion's.
        shapeOps.front()->setOperand(0, v);
        for (Operation *op : shapeOps)
          op->getResult(0).setType(withLayout(
              op->getResult(0).getType(),
              shapeOpLayout(op, getLayout(op->getOperand(0).getType()))));
        v = shapeOps.back()->getResult(0);
      }
      replaced->getResult(0).replaceAllUsesWith(v);
      if (replaced != p.load.getOperation())
        replaced->erase();
      p.load.erase();
    }
    // Every warp releases the slot at the end of the iteration.
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    OpBuilder yb(yield);
    tgpu::ChannelReleaseOp::create(yb, loc, ch, j);
    SmallVector<Value> next(yield.getOperands());
    next.push_back(arith::AddIOp::create(yb, loc, j, i32(yb, 1)));
    scf::YieldOp::create(yb, loc, next);
    yield.erase();
    // The schedule is spent (on the body and on the copies made of it).
    func.walk([](Operation *op) {
      op->removeAttr(kPipelineStageAttr);
      op->removeAttr(kPipelineClusterAttr);
    });
    return success();
  }

  /// Acquires use j of the channel and issues the copies of iteration j's
  /// tiles into its slot (indices recomputed with iv = lb + j * step).
  static void issue(OpBuilder &b, scf::ForOp loop, ArrayRef<Prefetch> prefetches,
                    Value ch, Value j) {
    Location loc = loop.getLoc();
    Value slot = tgpu::ChannelAcquireOp::create(b, loc, ch, j);
    IRMapping map;
    map.map(loop.getInductionVar(),
            arith::AddIOp::create(
                b, loc, loop.getLowerBound(),
                arith::MulIOp::create(b, loc, j, loop.getStep())));
    std::function<Value(Value)> at = [&](Value v) -> Value {
      if (Value m = map.lookupOrNull(v))
        return m;
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != loop.getBody())
        return v;
      for (Value o : def->getOperands())
        at(o);
      return b.clone(*def, map)->getResult(cast<OpResult>(v).getResultNumber());
    };
    for (Prefetch p : prefetches) {
      SmallVector<Value> coords;
      for (Value o : p.load.getOffsets())
        coords.push_back(at(o));
      tgpu::TMALoadOp::create(b, p.load.getLoc(), p.view, coords, p.ring, slot,
                              ch, IntegerAttr());
    }
  }
};
} // namespace
