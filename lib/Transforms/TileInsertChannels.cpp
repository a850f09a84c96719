//===- TileInsertChannels.cpp - channels between a loop's partitions ------===//
//
// The tile-insert-channels pass: the warp-specialization step after the
// partition schedule (tile-partition-schedule) and before
// materialization (tile-warp-specialize). In the scheduled loop, every
// value that crosses from the load partition to the compute partition (a
// TMA-copied tile, through conversions, transposes and reshapes, into a
// dot that reads it from shared memory) is put on a `tgpu.channel`; the
// loop stays one loop, each op tagged with the partitions that run it:
//
//   %ch, %ra, %rb = tgpu.channel consumer_warps 8
//                       kind <fill = tma, release = mma> : ...
//   %i0 = arith.constant {tgpu.partition = array<i32: 0, 1>} 0 : i32
//   %r:2 = scf.for %k = ... iter_args(%acc = %z, %i = %i0) {
//     %s = tgpu.channel_acquire %ch[%i]                  (partition 0)
//     tgpu.tma_load %A[%m, %k] -> %ra[%s], %ch           (partition 0)
//     tgpu.tma_load %B[%k, %n] -> %rb[%s], %ch           (partition 0)
//     %w = tgpu.channel_wait %ch[%i]                     (partition 1)
//     %d = tgpu.wgmma %ra[%w], %rb[%w], %acc             (partition 1)
//     tgpu.wgmma_wait {pendings = 1}                     (partition 1)
//     if %i > %i0: tgpu.channel_release %ch[%i - 1]      (partition 1)
//     %n = arith.addi %i, %c1                            (partitions 0, 1)
//     scf.yield %d, %n
//   } {tgpu.partitions = [...]}
//   %f = tgpu.wgmma_wait %r#0 {pendings = 0}             (partition 1)
//   if %r#1 > %i0: tgpu.channel_release %ch[%r#1 - 1]    (partition 1)
//
// The use counter is the loop's last iter_arg (its init %i0 a constant of
// its own, which the persistent tile loop replaces). How the compute
// partition uses the MMAs decides the channels: where each MMA's result
// only feeds the next iteration's (a GEMM's accumulator), one channel
// carries a use's operands and the use is released once the next use's
// MMAs are issued (one MMA group in flight); where the loop's math reads
// an MMA's result in its iteration (attention's softmax), each MMA waits
// at once and has a channel of its own, released right after it. Tiles a
// dot reads that the load partition copies once before the loop (Q) go
// through a channel of `depth` = the compute partition's copies, use
// %t0 (another constant, which the persistent loop makes the tile's
// ordinal), waited for before the loop and released after it.
//
// The result is a contract between passes, not a program: one set of
// warps cannot run the loop (it would wait for itself).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-insert-channels"

namespace tilec {
#define GEN_PASS_DEF_TILEINSERTCHANNELS
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// One operand of a dot that TMA brings in.
struct Operand {
  LoadOp load;
  bool transposed;        // the dot reads the loaded tile transposed
  bool once = false;      // loaded before the loop, once a tile
  int channel = -1;       // the loop channel it goes through (not once)
  BlockArgument view;     // the kernel argument
  tgpu::TMASlot slot;     // its box, swizzle and one slot of the ring
  Value ring;
};

/// A dot of the loop and where its operands come from: indices into
/// Channels::operands; A's is -1 where wgmma reads A from registers.
struct MMA {
  DotOp dot;
  int a, b;
};

/// Whether `dot`'s accumulator is a loop-carried value only it reads and
/// its result only the yield reads (the MMA can stay in flight across
/// iterations).
bool carriedAlone(DotOp dot, Block *body) {
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  auto iterArg = dyn_cast<BlockArgument>(dot.getAcc());
  return iterArg && iterArg.getOwner() == body && iterArg.getArgNumber() > 0 &&
         yield.getOperand(iterArg.getArgNumber() - 1) == dot.getResult() &&
         dot.getResult().hasOneUse() && iterArg.hasOneUse();
}

void tag(Operation *op, ArrayRef<int32_t> parts) {
  op->setAttr(tgpu::kPartitionAttr,
              DenseI32ArrayAttr::get(op->getContext(), parts));
}

struct TileInsertChannels
    : public tilec::impl::TileInsertChannelsBase<TileInsertChannels> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      scf::ForOp loop = tgpu::scheduledLoop(func);
      if (loop && failed(insert(func, loop)))
        return signalPassFailure();
    }
  }

  // The kernel being rewritten.
  scf::ForOp loop;
  SmallVector<MMA> mmas;
  SmallVector<Operand> operands; // the TMA-copied operands of the dots
  /// Whether the compute partition uses an MMA's result in the iteration
  /// that issues it (by def-use: a dot whose accumulator is not a value the
  /// loop carries for it alone, or a register A computed in the loop): each
  /// MMA is then waited for at once, and the use released in its own
  /// iteration; else one MMA group stays in flight. Math that reads no MMA
  /// result does not count.
  bool usesResultsInLoop = false;
  SmallVector<Value> chans; // the loop's channels (Operand::channel)
  Value onceCh;             // the channel of the tiles copied once, or null

  /// The dots' TMA operands, the channel each goes through; fails where a
  /// value crosses partitions some other way.
  LogicalResult collect() {
    mmas.clear();
    operands.clear();
    usesResultsInLoop = false;
    Block *body = loop.getBody();
    for (auto dot : body->getOps<DotOp>()) {
      tgpu::MMAAttr mma = tgpu::getMMA(dot);
      if (!carriedAlone(dot, body))
        usesResultsInLoop = true;
      MMA m{dot, -1, -1};
      for (auto [idx, v] : llvm::enumerate(dotOperands(dot))) {
        if (idx == 0 && mma.getA() == tgpu::OperandSource::Registers) {
          // A register A is math of the compute partition (or computed
          // before the loop), read where the dot stands.
          usesResultsInLoop |= bool(dot.getA().getDefiningOp()) &&
                               dot.getA().getDefiningOp()->getBlock() == body;
          continue;
        }
        bool transposed;
        LoadOp load = operandLoad(v, transposed);
        if (!load || !tgpu::getTMACopy(load) ||
            !tgpu::inRole(load, loop, tgpu::PartitionRole::Load))
          return dot.emitError()
                 << "a dot operand read from shared memory is not a TMA "
                    "copy of the load partition";
        auto known = llvm::find_if(operands, [&](const Operand &o) {
          return o.load == load && o.transposed == transposed;
        });
        if (known != operands.end()) { // one copy for every dot reading it
          (idx == 0 ? m.a : m.b) = known - operands.begin();
          continue;
        }
        std::string why;
        FailureOr<tgpu::TMASlot> slot = tgpu::planTMASlot(
            cast<RankedTensorType>(load.getType()), why, /*squeeze=*/true);
        if (failed(slot) || slot->type.getSlotShape().size() != 2)
          return load.emitError()
                 << "the copy of a dot operand has no 2-d slot"
                 << (why.empty() ? "" : ": ") << why;
        Operand o;
        o.load = load;
        o.view = cast<BlockArgument>(load.getTensor());
        o.slot = *slot;
        o.transposed = transposed;
        o.once = load->getBlock() != body;
        (idx == 0 ? m.a : m.b) = operands.size();
        operands.push_back(o);
      }
      mmas.push_back(m);
    }
    // Every other value the load partition's ops give the compute
    // partition's: scalar code both run is computed by each.
    for (Operation &op : body->without_terminator()) {
      if (!tgpu::inRole(&op, loop, tgpu::PartitionRole::Load) ||
          tgpu::inRole(&op, loop, tgpu::PartitionRole::Compute))
        continue;
      auto load = dyn_cast<LoadOp>(op);
      for (Operation *user : op.getUsers()) {
        Operation *u = body->findAncestorOpInBlock(*user);
        if (!u || !tgpu::inRole(u, loop, tgpu::PartitionRole::Compute))
          continue;
        if (load && isa<ConvertLayoutOp, TransposeOp, ReshapeOp, DotOp>(u))
          continue;
        return user->emitError()
               << "value crosses from partition " << tgpu::kLoadPartition
               << " to " << tgpu::kComputePartition
               << " and no channel kind carries it ('"
               << op.getName().getStringRef() << "')";
      }
    }
    return success();
  }

  LogicalResult insert(func::FuncOp func, scf::ForOp l) {
    loop = l;
    if (failed(collect()))
      return failure();
    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    int numWarps = getNumWarps(func);
    int copies = tgpu::getComputeCopies(loop);

    // Views become TMA views.
    for (Operand &o : operands) {
      auto vt = cast<TensorViewType>(o.view.getType());
      setArgumentType(func, o.view, vt.withTMA(o.slot.box, o.slot.swizzle));
    }

    // The channels at the top of the kernel, a buffer per operand,
    // released by every consumer warp once the
    // MMAs reading it completed; tile-pipeline chooses their depths.
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    chans.clear();
    for (MMA &mma : mmas) {
      SmallVector<Operand *> fresh;
      for (int idx : {mma.a, mma.b})
        if (idx >= 0 && !operands[idx].once && operands[idx].channel < 0)
          fresh.push_back(&operands[idx]);
      if (fresh.empty())
        continue;
      if (!usesResultsInLoop && !chans.empty()) {
        for (Operand *o : fresh)
          o->channel = 0;
        continue;
      }
      for (Operand *o : fresh)
        o->channel = chans.size();
      chans.push_back({});
    }
    auto kind = tgpu::ChannelKindAttr::get(ctx, tgpu::FillKind::TMA,
                                           tgpu::ReleaseKind::MMA);
    // A channel over the operands `in` selects, their rings set.
    auto makeChannel = [&](llvm::function_ref<bool(const Operand &)> in,
                           IntegerAttr depth) {
      SmallVector<Type> types;
      for (Operand &o : operands)
        if (in(o))
          types.push_back(o.slot.type.withNumSlots(ShapedType::kDynamic));
      auto channel = tgpu::ChannelOp::create(
          b, loc, tgpu::ChannelType::get(ctx), types,
          b.getI64IntegerAttr(numWarps), IntegerAttr(), depth, kind);
      auto ring = channel.getBuffers().begin();
      for (Operand &o : operands)
        if (in(o))
          o.ring = *ring++;
      return channel.getChannel();
    };
    for (auto [k, chan] : llvm::enumerate(chans)) {
      int id = k;
      chan = makeChannel([&](const Operand &o) { return o.channel == id; },
                         IntegerAttr());
    }
    // The tiles copied once a loop go through a channel of their own, a
    // use a tile: one slot each consumer copy (each copy works on its own
    // tile).
    onceCh = {};
    if (llvm::any_of(operands, [](const Operand &o) { return o.once; }))
      onceCh = makeChannel([](const Operand &o) { return o.once; },
                           b.getI64IntegerAttr(copies));

    onceTile = {};
    addCounter();
    insertProducer();
    insertConsumer();
    // The tiles copied once reach the MMAs through their channel now.
    for (Operand &o : operands)
      if (o.once)
        eraseUnused(o.load);
    return success();
  }

  /// The TMA copy of `o` into `slot` of its ring, completing on `ch`, in
  /// place of its load.
  void emitCopy(OpBuilder &b, Operand &o, Value slot, Value ch) {
    auto copy = tgpu::TMALoadOp::create(
        b, o.load.getLoc(), o.view, o.load.getOffsets(), o.ring, slot, ch,
        IntegerAttr());
    tag(copy, {tgpu::kLoadPartition});
  }

  /// The load partition's side: each channel's use acquired before its
  /// first copy, each copy where its load stood (the tiles copied once
  /// before the loop, use %t0 of theirs).
  void insertProducer() {
    Value i = loop.getRegionIterArgs().back();
    auto first = [&](llvm::function_ref<bool(const Operand &)> in) {
      LoadOp f;
      for (Operand &o : operands)
        if (in(o) && (!f || o.load->isBeforeInBlock(f)))
          f = o.load;
      return f;
    };
    auto acquire = [&](llvm::function_ref<bool(const Operand &)> in, Value ch,
                       Value index) {
      LoadOp f = first(in);
      OpBuilder b(f);
      if (!index) {
        auto t0 = arith::ConstantIntOp::create(b, f.getLoc(), b.getI32Type(), 0);
        tag(t0, {tgpu::kLoadPartition, tgpu::kComputePartition});
        index = onceTile = t0;
      }
      auto acq = tgpu::ChannelAcquireOp::create(b, f.getLoc(), ch, index);
      tag(acq, {tgpu::kLoadPartition});
      for (Operand &o : operands)
        if (in(o)) {
          OpBuilder cb(o.load);
          emitCopy(cb, o, acq, ch);
        }
    };
    for (auto [k, ch] : llvm::enumerate(chans)) {
      int id = k;
      acquire([&](const Operand &o) { return o.channel == id; }, ch, i);
    }
    if (onceCh)
      acquire([](const Operand &o) { return o.once; }, onceCh, Value());
  }

  /// The use index of the tiles copied once (%t0), or null.
  Value onceTile;

  /// The use counter: a new last iter_arg of the loop, starting at %i0 (a
  /// constant of its own before the loop); insertConsumer makes it count.
  void addCounter() {
    IRRewriter rewriter(loop.getContext());
    rewriter.setInsertionPoint(loop);
    auto i0 = arith::ConstantIntOp::create(rewriter, loop.getLoc(),
                                           rewriter.getI32Type(), 0);
    tag(i0, {tgpu::kLoadPartition, tgpu::kComputePartition});
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{i0}, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>{args.front()};
        });
    loop = cast<scf::ForOp>(grown->getOperation());
  }

  /// The compute partition's side: each channel's use waited for before
  /// the first MMA reading it, the dots become wgmmas, and the uses are
  /// released once their MMAs completed; the counter counts.
  void insertConsumer() {
    Location loc = loop.getLoc();
    Block *body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    Value i = loop.getRegionIterArgs().back();
    Value i0 = loop.getInitArgs().back();
    auto compute = [](Operation *op) { tag(op, {tgpu::kComputePartition}); };

    // The tiles copied once: waited for before the loop, released after
    // its last MMA.
    Value onceSlot;
    if (onceCh) {
      OpBuilder b(loop);
      auto w = tgpu::ChannelWaitOp::create(b, loc, onceCh, onceTile);
      compute(w);
      onceSlot = w;
    }

    OpBuilder lb(mmas.front().dot);
    SmallVector<Value> slots(chans.size());
    SmallVector<int> lastReader(chans.size(), -1);
    for (auto [m, mma] : llvm::enumerate(mmas))
      for (int idx : {mma.a, mma.b})
        if (idx >= 0 && !operands[idx].once)
          lastReader[operands[idx].channel] = m;
    for (auto [m, mma] : llvm::enumerate(mmas)) {
      DotOp dot = mma.dot;
      lb.setInsertionPoint(dot);
      auto slotOf = [&](const Operand &o) {
        if (o.once)
          return onceSlot;
        Value &slot = slots[o.channel];
        if (!slot) {
          auto w = tgpu::ChannelWaitOp::create(lb, loc, chans[o.channel], i);
          compute(w);
          slot = w;
        }
        return slot;
      };
      Value a = dot.getA(), aSlot;
      if (mma.a >= 0) {
        a = mmaOperand(operands[mma.a]);
        aSlot = slotOf(operands[mma.a]);
      }
      const Operand &bo = operands[mma.b];
      Value bSlot = slotOf(bo);
      auto wgmma = tgpu::WGMMAOp::create(lb, dot.getLoc(), dot.getType(), a,
                                         aSlot, mmaOperand(bo), bSlot,
                                         dot.getAcc());
      compute(wgmma);
      Value d = wgmma;
      if (usesResultsInLoop) {
        // The math after it reads the result: wait for this MMA now; the
        // channels it was the last to read are free.
        auto w = tgpu::WGMMAWaitOp::create(lb, dot.getLoc(), ValueRange{d}, 0);
        compute(w);
        d = w.getResult(0);
        for (auto [k, ch] : llvm::enumerate(chans))
          if (lastReader[k] == int(m))
            compute(tgpu::ChannelReleaseOp::create(lb, loc, ch, i));
      }
      dot.getResult().replaceAllUsesWith(d);
      dot.erase();
    }
    lb.setInsertionPoint(yield);
    if (!usesResultsInLoop)
      compute(tgpu::WGMMAWaitOp::create(lb, loc, ValueRange{}, 1));
    auto one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
    tag(one, {tgpu::kLoadPartition, tgpu::kComputePartition});
    if (!usesResultsInLoop)
      releasePrevious(lb, loc, i, i0, chans.front());
    auto next = arith::AddIOp::create(lb, loc, i, one);
    tag(next, {tgpu::kLoadPartition, tgpu::kComputePartition});
    yield->setOperand(yield->getNumOperands() - 1, next);
    // Dead loads and conversions.
    SmallVector<Operation *> dead;
    for (Operation &op : body->without_terminator())
      if (isa<LoadOp, ConvertLayoutOp, TransposeOp, ReshapeOp>(op))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();

    OpBuilder b(loop->getContext());
    b.setInsertionPointAfter(loop);
    if (!usesResultsInLoop) {
      // The last use's MMAs are still in flight.
      SmallVector<Value> accs(loop.getResults().drop_back());
      auto wait = tgpu::WGMMAWaitOp::create(b, loc, accs, 0);
      compute(wait);
      for (auto [acc, done] : llvm::zip(accs, wait.getResults()))
        acc.replaceAllUsesExcept(done, wait);
      releasePrevious(b, loc, loop.getResults().back(), i0, chans.front());
    }
    if (onceCh)
      compute(tgpu::ChannelReleaseOp::create(b, loc, onceCh, onceTile));
  }

  /// Erases `op` and the ops its results reached if nothing else reads
  /// them (conversions of a tile nobody reads any more).
  static void eraseUnused(Operation *op) {
    SmallVector<Operation *> users(op->getUsers().begin(),
                                   op->getUsers().end());
    for (Operation *user : users)
      if (isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(user))
        eraseUnused(user);
    if (op->use_empty())
      op->erase();
  }

  /// The ring as the dot reads it (transposed slots where the dot
  /// transposes the loaded tile), next to the ring's allocation.
  static Value mmaOperand(const Operand &o) {
    if (!o.transposed)
      return o.ring;
    OpBuilder b(o.ring.getContext());
    b.setInsertionPointAfterValue(o.ring);
    return tgpu::TransposeOp::create(b, o.ring.getLoc(), o.ring);
  }

  /// if i > i0: release use i - 1 (compute partition).
  static void releasePrevious(OpBuilder &b, Location loc, Value i, Value i0,
                              Value ch) {
    auto started =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, i, i0);
    tag(started, {tgpu::kComputePartition});
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, started, false);
    tag(ifOp, {tgpu::kComputePartition});
    OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
    Value prev = arith::SubIOp::create(
        ib, loc, i, arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), 1));
    tgpu::ChannelReleaseOp::create(ib, loc, ch, prev);
  }
};

} // namespace
