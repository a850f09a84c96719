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
// On sm_100a (a tcgen05 MMA, partition 2 the MMA partition's) the loop
// is a GEMM's: one MMA onto an accumulator the loop carries for it alone.
// The accumulator moves into tensor memory, handed to the epilogue through
// a channel of its own; the loop no longer carries it:
//
//   %ch, %ra, %rb = tgpu.channel consumer_warps 1 kind <fill = tma, release = mma>
//   %acc, %ring = tgpu.channel consumer_warps W depth D
//                     kind <fill = mma, release = arrive> : !tgpu.tmem<?x128xNxf32>
//   %t0 = arith.constant 0                               (partitions 1, 2)
//   %d = tgpu.channel_acquire %acc[%t0]; tcgen05_fence after  (partition 2)
//   scf.for %k ... iter_args(%i = %i0) {
//     <acquire, TMA copies as above>                     (partition 0)
//     %w = tgpu.channel_wait %ch[%i]                     (partition 2)
//     %on = arith.cmpi ugt, %i, %i0                      (partition 2)
//     tgpu.tcgen05_mma %ra[%w], %rb[%w], %ring[%d], %on  (partition 2)
//     tgpu.channel_release %ch[%i]                       (partition 2)
//   }
//   tgpu.channel_fill %acc[%t0]                          (partition 2)
//   %e = tgpu.channel_wait %acc[%t0]                     (partition 1)
//   tgpu.tcgen05_fence after_thread_sync; %v = tgpu.tmem_load %ring[%e];
//   %v2 = tgpu.tmem_wait load %v; tgpu.tcgen05_fence before_thread_sync;
//   tgpu.channel_release %acc[%t0]                       (partition 1)
//   %r = scf.if (the loop ran) %v2 else <the loop's init> (partition 1)
//
// The MMA is issued asynchronously and its slot released by its
// completion (tcgen05.commit), so nothing waits in the loop; the first
// MMA of a tile overwrites the accumulator (%on false). D is 2 where the
// kernel walks its tiles persistently (tile t + 1's MMAs fill one
// accumulator while the epilogue reads tile t's), else 1.
//
// An sm_100a attention loop (two tcgen05 MMAs: S = Q·Kᵀ, whose result
// the softmax reads, and O = P·V with P in tensor memory, onto the O the
// loop carries times a factor) keeps S, P and O in tensor memory
// (FlashAttention-4's structure):
//
//   K, V: a channel each <fill = tma, release = mma>; Q once a tile
//   S: !tgpu.tmem<?x128xNxf32>, depth 2, <fill = mma, release = arrive>
//   P: !tgpu.tmem<?x128xNxbf16>, depth 1, <fill = arrive, release = mma>
//   O: !tgpu.tmem<?x128xDxf32>, depth 1, <fill = mma, release = arrive>
//
//   %q = channel_wait Q[%t0]; if (the loop runs) S(%i0)    (partition 2)
//   scf.for ... iter_args(%m, %l, %i = %i0) {
//     <acquire, TMA copies of K and V>                     (partition 0)
//     %s = channel_wait S[%i]; fence after; tmem_load;
//       wait::ld; fence before; channel_release S[%i]      (partition 1)
//     <the softmax on S>                                   (partition 1)
//     channel_acquire P[%i], fence after, tmem_store P,
//       wait::st, fence before, channel_fill P[%i]         (partition 1)
//     if %i > %i0: channel_wait O[%i - 1], tmem_load O,
//       O · factor, tmem_store, wait::st, fence before,
//       channel_release O[%i - 1]                          (partition 1)
//     if (a next iteration): S(%i + 1)                     (partition 2)
//     channel_acquire O[%i]; channel_wait P[%i]; fence after;
//       channel_wait V[%i]; tcgen05_mma P, V -> O (%i > %i0);
//       channel_fill O[%i]; release V[%i], P[%i]           (partition 2)
//   }
//   channel_release Q[%t0]                                 (partition 2)
//   %o = if (the loop ran): wait O[last], tmem_load, ...; else the init
//
// where S(j) = channel_wait K[j]; channel_acquire S[j]; fence after;
// tcgen05_mma Q, Kᵀ -> S (overwriting); channel_fill S[j];
// channel_release K[j]. The MMA thread issues iteration j + 1's S before iteration j's P·V, so the
// softmax of j + 1 overlaps P·V of j; O's first P·V overwrites it (0 · x
// = 0: the zero init's rescale is skipped).
//
// The result is a contract between passes, not a program: one set of
// warps cannot run the loop (it would wait for itself).
//
//===----------------------------------------------------------------------===//

#include "TileInsertChannels.h"
#include "tilec/Dialect/Tile/AxisInfo.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-insert-channels"

namespace tilec {
#define GEN_PASS_DEF_TILEINSERTCHANNELS
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::insert_channels;

LogicalResult KernelChannels::collect() {
  Block *body = loop.getBody();
  for (auto dot : body->getOps<DotOp>()) {
    tgpu::MMAAttr mma = tgpu::getMMA(dot);
    // (A loop-carried accumulator only the dot reads, and its result only
    // the yield: the MMA can stay in flight across iterations.)
    if (!carriedAccumulator(dot))
      usesResultsInLoop = true;
    MMA m{dot, -1, -1};
    for (auto [idx, v] : llvm::enumerate(dotOperands(dot))) {
      if (idx == 0 && mma.getA() == tgpu::OperandSource::TensorMemory) {
        usesResultsInLoop = true; // (math of the loop, written for it)
        continue;
      }
      if (idx == 0 && (mma.getA() == tgpu::OperandSource::Registers ||
                       mma.getA() == tgpu::OperandSource::Staged)) {
        // A register A is math of the compute partition (or computed
        // before the loop), read where the dot stands.
        usesResultsInLoop |= bool(dot.getA().getDefiningOp()) &&
                             dot.getA().getDefiningOp()->getBlock() == body;
        continue;
      }
      if (idx == 1 && mma.getB() == tgpu::OperandSource::KMajorCopy) {
        // The threads copy B's tile transposed into an NxK slot, which
        // wgmma reads K-major as it reads a B loaded as NxK.
        Operand o;
        LoadOp load = kMajorCopyLoad(dot, &o.chain);
        if (!load || !tgpu::inRole(load, loop, tgpu::PartitionRole::Load))
          return dot.emitError()
                 << "a K-major copy's B is not a load of the load partition";
        auto b = cast<RankedTensorType>(dot.getB().getType());
        auto nk = RankedTensorType::get({b.getShape()[1], b.getShape()[0]},
                                        b.getElementType());
        std::string why;
        FailureOr<tgpu::TMASlot> slot = tgpu::planTMASlot(nk, why);
        if (failed(slot))
          return load->emitError() << "a K-major copy has no slot: " << why;
        o.load = load;
        o.view = cast<BlockArgument>(load.getTensor());
        o.slot = *slot;
        o.transposed = m.bT = true;
        o.threads = o.kMajorCopy = true;
        m.b = operands.size();
        operands.push_back(o);
        continue;
      }
      bool transposed;
      Operation *load = tgpu::operandCopy(v, transposed);
      if (!load || !tgpu::inRole(load, loop, tgpu::PartitionRole::Load))
        return dot.emitError()
               << "a dot operand read from shared memory is not a load "
                  "of the load partition";
      // Without a TMA copy, the load partition's threads copy the tile
      // (plain loads, then stores into the slot): its offsets are all
      // it may take from the kernel. A gather's threads gather it.
      auto asLoad = dyn_cast<LoadOp>(load);
      bool threads = !asLoad || !tgpu::getTMACopy(asLoad);
      if (asLoad && threads &&
          (asLoad.getMask() || (load->getBlock() != body &&
                                load->getBlock() != loop->getBlock())))
        return load->emitError()
               << "a dot operand the load partition's threads copy is "
                  "loaded in the loop or right before it, without a mask";
      (idx == 0 ? m.aT : m.bT) = transposed;
      auto known = llvm::find_if(
          operands, [&](const Operand &o) { return o.load == load; });
      if (known != operands.end()) { // one copy for every dot reading it
        (idx == 0 ? m.a : m.b) = known - operands.begin();
        continue;
      }
      // A TMA copy's slot is what its tgpu.tma records; threads copy into
      // the slot TMA would fill.
      std::string why;
      FailureOr<tgpu::TMASlot> slot =
          threads ? tgpu::planTMASlot(
                        cast<RankedTensorType>(load->getResult(0).getType()),
                        why, /*squeeze=*/true)
                  : FailureOr<tgpu::TMASlot>(
                        *tgpu::getTMASlot(asLoad, /*squeeze=*/true));
      if (failed(slot) || slot->type.getSlotShape().size() != 2)
        return load->emitError()
               << "the copy of a dot operand has no 2-d slot"
               << (why.empty() ? "" : ": ") << why;
      Operand o;
      o.load = load;
      o.view = cast<BlockArgument>(load->getOperand(0));
      o.slot = *slot;
      o.transposed = transposed;
      o.threads = threads;
      o.once = load->getBlock() != body;
      (idx == 0 ? m.a : m.b) = operands.size();
      operands.push_back(o);
    }
    mmas.push_back(m);
  }
  // A loop that gathers an operand has its threads copy the others too
  // (cp.async into the same slots TMA would fill): its channels are filled
  // one way, by the threads. (The tiles copied once keep TMA.)
  if (llvm::any_of(operands,
                   [](const Operand &o) { return isa<GatherOp>(o.load); }))
    for (Operand &o : operands)
      o.threads |= !o.once;
  threadFill =
      llvm::any_of(operands, [](const Operand &o) { return o.threads; });
  // A channel's slots are filled one way: the loop's operands all by TMA
  // or all by threads, and so are the tiles copied once (TMA may copy
  // Q once beside K and V gathered by threads).
  for (bool once : {false, true}) {
    auto in = [&](const Operand &o) { return o.once == once; };
    bool anyThreads = llvm::any_of(operands, [&](const Operand &o) {
      return in(o) && o.threads;
    });
    bool anyTMA = llvm::any_of(operands, [&](const Operand &o) {
      return in(o) && !o.threads;
    });
    // (Unless each MMA's operands, a channel of their own, are: fp8
    // attention's K by TMA, V by the threads' K-major copy.)
    bool perChannel =
        !once && usesResultsInLoop &&
        llvm::all_of(mmas, [&](const MMA &m) {
          if (m.a < 0 || m.b < 0)
            return true;
          const Operand &a = operands[m.a], &b = operands[m.b];
          return a.once || b.once || a.threads == b.threads;
        });
    if (anyThreads && anyTMA && !perChannel)
      return loop.emitError()
             << "the dots' operands are copied all by TMA or all by the "
                "load partition's threads";
  }
  // Every other value the load partition's ops give the compute
  // partition's: scalar code both run is computed by each; a TMA-copied
  // tile no dot reads is a side load, read into registers from its slot.
  for (Operation &op : body->without_terminator()) {
    if (!tgpu::inRole(&op, loop, tgpu::PartitionRole::Load) ||
        tgpu::inRole(&op, loop, tgpu::PartitionRole::Compute))
      continue;
    auto load = dyn_cast<LoadOp>(op);
    bool operand = llvm::any_of(operands, [&](const Operand &o) {
      return o.load == &op;
    });
    auto view = load ? dyn_cast<BlockArgument>(load.getTensor()) : nullptr;
    // (Read by the compute partition alone: its slot is read there.)
    bool computeOnly = llvm::all_of(op.getUsers(), [&](Operation *user) {
      Operation *u = body->findAncestorOpInBlock(*user);
      return u && tgpu::inRole(u, loop, tgpu::PartitionRole::Compute) &&
             !tgpu::inRole(u, loop, tgpu::PartitionRole::Load);
    });
    if (load && !operand && view && computeOnly && !load->use_empty()) {
      sides.push_back({load, view, tgpu::getSideSlot(load), Value(),
                       !tgpu::getTMACopy(load)});
      continue;
    }
    // A gather the partition's threads make (tile-partition-schedule
    // checked producerCopy), into an unswizzled slot of the whole tile.
    if (auto gather = dyn_cast<GatherOp>(op);
        gather && !operand && computeOnly) {
      sides.push_back(
          {gather, cast<BlockArgument>(gather.getTensor()),
           tgpu::slotOfSwizzle(cast<RankedTensorType>(gather.getType()), 0),
           Value(), /*threads=*/true});
      continue;
    }
    for (Operation *user : op.getUsers()) {
      Operation *u = body->findAncestorOpInBlock(*user);
      if (!u || !tgpu::inRole(u, loop, tgpu::PartitionRole::Compute))
        continue;
      if (operand && isa<ConvertLayoutOp, TransposeOp, ReshapeOp, DotOp>(u))
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

LogicalResult KernelChannels::insert(func::FuncOp func, scf::ForOp l) {
  loop = l;
  if (failed(collect()))
    return failure();
  tcgen05 = llvm::any_of(mmas, [](const MMA &m) {
    return tgpu::getMMA(m.dot).isTCGen05();
  });
  consumer = tcgen05 ? tgpu::kMMAPartition : tgpu::kComputePartition;
  if (tcgen05)
    return insertTCGen05(func);
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  int numWarps = getNumWarps(func);
  int copies = tgpu::getComputeCopies(loop);

  setTMAViews(func);

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
  // A channel over the operands `in` selects, their rings set; filled by
  // TMA, or by the threads where they copy its operands.
  auto makeChannel = [&](llvm::function_ref<bool(const Operand &)> in,
                         IntegerAttr depth) {
    SmallVector<Type> types;
    bool threads = false, gathers = false;
    for (Operand &o : operands)
      if (in(o)) {
        types.push_back(o.slot.type.withNumSlots(ShapedType::kDynamic));
        threads |= o.threads;
        gathers |= isa<GatherOp>(o.load);
      }
    // The threads' cp.async copies are not waited for: each thread arrives
    // as its copies complete. (Gathers' everywhere; thread_copy's for
    // wgmma: tcgen05's thread copies still wait, each warp arriving after
    // its threads'.)
    bool asyncCopies = gathers || (threads && !TargetInfo::of(loop).tcgen05);
    auto kind = tgpu::ChannelKindAttr::get(
        ctx,
        asyncCopies ? tgpu::FillKind::AsyncCopy
        : threads   ? tgpu::FillKind::Arrive
                    : tgpu::FillKind::TMA,
        tgpu::ReleaseKind::MMA);
    auto channel = tgpu::ChannelOp::create(
        b, loc, tgpu::ChannelType::get(ctx), types,
        b.getI64IntegerAttr(numWarps), IntegerAttr(), depth, kind,
        threads ? b.getI64IntegerAttr(copyWarps()) : IntegerAttr());
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

  // (Operands' loads are erased as their uses go: the gathers, known now.)
  SmallVector<Operation *> gathers;
  for (Operand &o : operands)
    if (isa<GatherOp>(o.load) && !llvm::is_contained(gathers, o.load))
      gathers.push_back(o.load);
  onceTile = {};
  addCounter();
  insertProducer();
  insertSideLoads(func);
  insertConsumer();
  // The tiles copied once reach the MMAs through their channel now, and
  // so do the gathered operands; their index tiles (and the index tables
  // only they read) go with them.
  for (Operand &o : operands)
    if (o.once)
      eraseUnused(o.load);
  if (!gathers.empty()) {
    for (Operation *g : gathers)
      eraseUnused(g); // (eraseDead keeps gathers)
    SmallVector<Operation *> ops;
    for (Operation &op : loop.getBody()->without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (op->getNumResults() == 1 && op->use_empty() &&
          isa<RankedTensorType>(op->getResult(0).getType()) &&
          (isMemoryEffectFree(op) || isa<LoadOp, GatherOp>(op)) &&
          op->getNumRegions() == 0)
        op->erase();
  }
  return success();
}

void KernelChannels::insertSideLoads(func::FuncOp func) {
  // TMA's copies and the threads' fill their slots differently: a channel
  // each.
  auto mid = std::stable_partition(sides.begin(), sides.end(),
                                   [](const SideLoad &s) { return !s.threads; });
  size_t tma = mid - sides.begin();
  MutableArrayRef<SideLoad> all(sides);
  if (tma)
    insertSideChannel(func, all.take_front(tma));
  if (tma < sides.size())
    insertSideChannel(func, all.drop_front(tma));
  // The original index tiles of the gathers go where nothing reads them,
  // and are the compute partition's where it reads them too; so do the
  // index tables they read (which only the load partition reads).
  SmallVector<Operation *> indexOps;
  for (Operation &op : loop.getBody()->without_terminator()) {
    bool indexTable = isa<LoadOp, GatherOp>(op) &&
                      llvm::none_of(operands, [&](const Operand &o) {
                        return o.load == &op;
                      });
    if ((indexTable ||
         (isMemoryEffectFree(&op) && op.getNumRegions() == 0)) &&
        op.getNumResults() == 1 &&
        isa<RankedTensorType>(op.getResult(0).getType()) &&
        tgpu::inRole(&op, loop, tgpu::PartitionRole::Load) &&
        !registerCopies.contains(&op))
      indexOps.push_back(&op);
  }
  for (Operation *op : llvm::reverse(indexOps)) {
    if (op->use_empty())
      op->erase();
    else if (isMemoryEffectFree(op))
      tag(op, {tgpu::kComputePartition});
  }
}

void KernelChannels::emitCopyThroughRegisters(OpBuilder &b, SideLoad &s, Value slot) {
  auto type = cast<RankedTensorType>(s.op->getResult(0).getType());
  LinearLayout l = copyLayout(type);
  auto made = [&](Operation *op) { madeByCopies(op); };
  Location loc = s.op->getLoc();
  Operation *copy;
  if (auto gather = dyn_cast<GatherOp>(s.op)) {
    SmallVector<Value> indices;
    for (Value idx : gather.getIndices())
      indices.push_back(rematerialize(b, idx, l, made));
    Value mask = gather.getMask()
                     ? rematerialize(b, gather.getMask(), l, made)
                     : Value();
    copy = GatherOp::create(b, loc, withLayout(type, l), gather.getTensor(),
                            indices, mask, gather.getPaddingAttr());
  } else {
    auto load = cast<LoadOp>(s.op);
    Value mask =
        load.getMask() ? rematerialize(b, load.getMask(), l, made) : Value();
    copy = LoadOp::create(b, loc, withLayout(type, l), load.getTensor(),
                          load.getOffsets(), mask, load.getPaddingAttr(),
                          load.getInBounds());
  }
  made(copy);
  made(tgpu::SlotStoreOp::create(b, loc, copy->getResult(0), s.ring, slot));
}

void KernelChannels::insertSideChannel(func::FuncOp func,
                                       MutableArrayRef<SideLoad> group) {
  Block *body = loop.getBody();
  Value i = loop.getRegionIterArgs().back();
  bool threads = group.front().threads;
  SmallVector<Type> types;
  for (SideLoad &s : group) {
    auto vt = cast<TensorViewType>(s.view.getType());
    if (!threads)
      setArgumentType(func, s.view, vt.withTMA(s.slot.box, s.slot.swizzle));
    types.push_back(s.slot.type.withNumSlots(ShapedType::kDynamic));
  }
  // Threads' copies: through registers (masked tiles, and tiles padded
  // with other than zero), which each warp's arrival hands over, or each
  // thread's cp.async copies, which arrive as they complete.
  auto copiesThroughRegisters = [&](SideLoad &s) {
    auto load = dyn_cast<LoadOp>(s.op);
    return !load || load.getMask() || !load.padsWithZero();
  };
  auto ch = makeChannel(
      func, types, getNumWarps(func), 0,
      !threads ? tgpu::FillKind::TMA
      : llvm::any_of(group, copiesThroughRegisters)
          ? tgpu::FillKind::Arrive
          : tgpu::FillKind::AsyncCopy,
      tgpu::ReleaseKind::Arrive, threads ? copyWarps() : 0);
  Value sideCh = ch.getChannel();
  for (auto [s, ring] : llvm::zip(group, ch.getBuffers()))
    s.ring = ring;
  // The producer: the use acquired before the first copy, each copy where
  // its load stood.
  Operation *first = group.front().op;
  for (SideLoad &s : group)
    if (s.op->isBeforeInBlock(first))
      first = s.op;
  OpBuilder b(first);
  auto acq = tgpu::ChannelAcquireOp::create(b, first->getLoc(), sideCh, i);
  tag(acq, {tgpu::kLoadPartition});
  Operation *last = first;
  for (SideLoad &s : group) {
    OpBuilder cb(s.op);
    auto load = dyn_cast<LoadOp>(s.op);
    if (!load || (threads && copiesThroughRegisters(s))) {
      emitCopyThroughRegisters(cb, s, acq);
    } else if (threads) {
      Operand o;
      o.load = cast<LoadOp>(s.op);
      o.ring = s.ring;
      emitThreadCopy(cb, o, acq, sideCh);
    } else {
      tag(tgpu::TMALoadOp::create(cb, load.getLoc(), s.view,
                                  load.getOffsets(), s.ring, acq, sideCh,
                                  IntegerAttr()),
          {tgpu::kLoadPartition});
    }
    if (last->isBeforeInBlock(s.op))
      last = s.op;
  }
  // Threads' copies fill the use once the last is in its slot.
  if (threads) {
    OpBuilder fb(last);
    tag(tgpu::ChannelFillOp::create(fb, last->getLoc(), sideCh, i),
        {tgpu::kLoadPartition});
  }
  // The consumer: each side tile is read from its slot right before its
  // first reader (so that a row statistic read late, as attention
  // backward's Delta after two MMAs, holds no registers across them); the
  // use is waited for before the first read and released after the last.
  struct Read {
    // Reshapes, and elementwise ops whose other operands are cheap in any
    // layout, from the tile to `cvt`.
    SmallVector<Operation *> chain;
    ConvertLayoutOp cvt;
    Operation *at = nullptr; // the first reader, an op of the body
  };
  SmallVector<Read> reads;
  Operation *firstAt = nullptr;
  for (SideLoad &s : group) {
    // A tile read only in another layout, as it is, reshaped (a 1x1xN
    // row read as N) or through elementwise ops with splats and
    // constants (block-scaled GEMM's row of A scales times B's scale), is
    // read from the slot in that one (the slot is shared memory either
    // way: no second round trip through a conversion's scratch and its
    // barrier across the consumers), where that layout's value is first
    // read (the chain follows the read).
    Read r;
    Value v = s.op->getResult(0);
    auto cheapElsewhere = [&](Operation *op, Value from) {
      return isElementwise(op) && op->getBlock() == body &&
             llvm::all_of(op->getOperands(), [&](Value o) {
               return o == from || isRematerializable(o);
             });
    };
    while (v.hasOneUse()) {
      Operation *user = *v.getUsers().begin();
      if (!isa<ReshapeOp>(user) && !cheapElsewhere(user, v))
        break;
      r.chain.push_back(user);
      v = user->getResult(0);
    }
    r.cvt = v.hasOneUse()
                ? dyn_cast<ConvertLayoutOp>(*v.getUsers().begin())
                : ConvertLayoutOp();
    Value replaced = r.cvt ? Value(r.cvt.getResult()) : s.op->getResult(0);
    for (Operation *user : replaced.getUsers()) {
      Operation *u = body->findAncestorOpInBlock(*user);
      if (u && (!r.at || u->isBeforeInBlock(r.at)))
        r.at = u;
    }
    if (r.at && (!firstAt || r.at->isBeforeInBlock(firstAt)))
      firstAt = r.at;
    reads.push_back(r);
  }
  if (!firstAt) // (side tiles nobody reads: read where the first was)
    firstAt = group.front().op;
  OpBuilder rb(firstAt);
  Location loc = firstAt->getLoc();
  auto wait = tgpu::ChannelWaitOp::create(rb, loc, sideCh, i);
  tag(wait, {tgpu::kComputePartition});
  Operation *lastRead = wait;
  SmallVector<Operation *> unread; // reshapes the reads replace
  for (auto [s, r] : llvm::zip(group, reads)) {
    Value tile = s.op->getResult(0);
    Type type = tile.getType();
    if (r.cvt) {
      auto shape = cast<RankedTensorType>(type).getShape();
      type = withLayout(type, getLayout(r.cvt.getType()).reshape(
                                  std::vector<int64_t>(shape.begin(),
                                                       shape.end())));
    }
    // (A tile nobody reads is read with the first.)
    rb.setInsertionPoint(r.at ? r.at : firstAt);
    auto read = tgpu::LocalLoadOp::create(rb, s.op->getLoc(), type, s.ring,
                                          wait);
    tag(read, {tgpu::kComputePartition});
    if (lastRead->isBeforeInBlock(read))
      lastRead = read;
    if (r.cvt) {
      // The chain again, in the layouts the read gives it.
      Value v = read.getResult(), was = tile;
      for (Operation *op : r.chain) {
        if (auto reshape = dyn_cast<ReshapeOp>(op)) {
          v = reshapeAgain(rb, reshape, v);
        } else {
          LinearLayout layout = getLayout(v.getType());
          SmallVector<Value> operands;
          for (Value o : op->getOperands())
            operands.push_back(o == was ? v
                               : isa<RankedTensorType>(o.getType())
                                   ? rematerialize(rb, o, layout,
                                                   [](Operation *) {})
                                   : o);
          v = rb.create(op->getLoc(), op->getName().getIdentifier(),
                        operands,
                        {withLayout(op->getResult(0).getType(), layout)},
                        op->getAttrs())
                  ->getResult(0);
        }
        was = op->getResult(0);
      }
      r.cvt.getResult().replaceAllUsesWith(v);
      r.cvt->erase();
      for (Operation *op : llvm::reverse(r.chain))
        unread.push_back(op);
    } else {
      tile.replaceAllUsesWith(read.getResult());
    }
  }
  rb.setInsertionPointAfter(lastRead);
  tag(tgpu::ChannelReleaseOp::create(rb, loc, sideCh, i),
      {tgpu::kComputePartition});
  for (Operation *op : unread)
    op->erase();
  for (SideLoad &s : group)
    s.op->erase();
}

void KernelChannels::setTMAViews(func::FuncOp func) {
  for (Operand &o : operands) {
    if (o.threads)
      continue;
    auto vt = cast<TensorViewType>(o.view.getType());
    setArgumentType(func, o.view, vt.withTMA(o.slot.box, o.slot.swizzle));
  }
}

tgpu::ChannelOp KernelChannels::makeChannel(func::FuncOp func, TypeRange types,
                            int64_t consumerWarps, int64_t depth,
                            tgpu::FillKind fill, tgpu::ReleaseKind release,
                            int64_t producerWarps) {
  MLIRContext *ctx = loop.getContext();
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  return tgpu::ChannelOp::create(
      b, loop.getLoc(), tgpu::ChannelType::get(ctx), types,
      b.getI64IntegerAttr(consumerWarps), IntegerAttr(),
      depth ? b.getI64IntegerAttr(depth) : IntegerAttr(),
      tgpu::ChannelKindAttr::get(ctx, fill, release),
      producerWarps ? b.getI64IntegerAttr(producerWarps) : IntegerAttr());
}

void KernelChannels::dropIterArg(unsigned idx) {
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits(loop.getInitArgs());
  inits.erase(inits.begin() + idx);
  auto grown = scf::ForOp::create(rewriter, loop.getLoc(),
                                  loop.getLowerBound(), loop.getUpperBound(),
                                  loop.getStep(), inits);
  grown->setAttrs(loop->getAttrs());
  SmallVector<Value> args = {grown.getInductionVar()};
  for (unsigned k = 0, r = 0; k < loop.getNumRegionIterArgs(); ++k)
    args.push_back(k == idx ? loop.getInitArgs()[idx]
                            : Value(grown.getRegionIterArgs()[r++]));
  if (!grown.getBody()->empty()) // (a body built without iter_args)
    rewriter.eraseOp(grown.getBody()->getTerminator());
  rewriter.mergeBlocks(loop.getBody(), grown.getBody(), args);
  auto yield = cast<scf::YieldOp>(grown.getBody()->getTerminator());
  SmallVector<Value> yielded(yield.getOperands());
  yielded.erase(yielded.begin() + idx);
  yield->setOperands(yielded);
  SmallVector<Value> results;
  for (unsigned k = 0, r = 0; k < loop.getNumResults(); ++k)
    results.push_back(k == idx ? Value() : grown.getResult(r++));
  for (auto [old, res] : llvm::zip(loop.getResults(), results))
    if (res)
      old.replaceAllUsesWith(res);
  rewriter.eraseOp(loop);
  loop = grown;
}

LinearLayout KernelChannels::copyLayout(RankedTensorType type,
                                        int contig) const {
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  return LinearLayout::coalesced(
      shape, type.getElementType().getIntOrFloatBitWidth(), copyWarps(),
      contig < 0 ? shape.size() - 1 : contig);
}

void KernelChannels::madeByCopies(Operation *op) {
  tag(op, {tgpu::kLoadPartition});
  registerCopies.insert(op);
}

void KernelChannels::eraseDead(Block *body) {
  SmallVector<Operation *> dead;
  for (Operation &op : body->without_terminator())
    if (isa<LoadOp, ConvertLayoutOp, TransposeOp, ReshapeOp>(op))
      dead.push_back(&op);
  for (Operation *op : llvm::reverse(dead))
    if (op->use_empty())
      op->erase();
}

tgpu::FillKind KernelChannels::fillKind() const {
  return threadFill ? tgpu::FillKind::Arrive : tgpu::FillKind::TMA;
}

/// `l` with its warps on the highest of the row bits that registers and
/// warps hold (registers take the bits the warps held, in order): each
/// warp then holds whole runs of rows. `l` itself where a warp holds a
/// column bit.
static LinearLayout runsByWarp(const LinearLayout &l,
                               const std::vector<int64_t> &shape) {
  LinearLayout::Bases regs = l.getBases("register"), warps = l.getBases("warp");
  auto rowBit = [](const LinearLayout::Coords &c) {
    return c[1] == 0 && c[0] != 0;
  };
  if (!llvm::all_of(warps, rowBit))
    return l;
  SmallVector<int64_t> bits;
  for (const auto &b : regs)
    if (rowBit(b))
      bits.push_back(b[0]);
  for (const auto &b : warps)
    bits.push_back(b[0]);
  llvm::sort(bits);
  size_t low = bits.size() - warps.size(), next = 0;
  for (auto &b : regs)
    if (rowBit(b))
      b = {bits[next++], 0};
  for (auto [i, b] : llvm::enumerate(warps))
    b = {bits[low + i], 0};
  return LinearLayout(shape, regs, l.getBases("lane"), warps);
}

bool KernelChannels::planGatherBoxes(GatherOp gather, Value ring,
                                     LinearLayout &layout) {
  auto view = dyn_cast<BlockArgument>(gather.getTensor());
  auto type = cast<RankedTensorType>(gather.getType());
  TensorViewType vt = gather.getTensor().getType();
  if (!view || !TargetInfo::of(gather).tma || type.getRank() != 2 ||
      vt.getRank() < 2)
    return false;
  // The runs go along the innermost outer dim whose index changes along
  // the rows (a KV cache's slot in its page).
  int rowDim = -1;
  for (int d = vt.getRank() - 2; d >= 0 && rowDim < 0; --d)
    if (AxisInfo::get(gather.getIndices()[d]).constancy[0] < type.getShape()[0])
      rowDim = d;
  if (rowDim < 0)
    return false;
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  LinearLayout runs = runsByWarp(layout, shape);
  std::string why;
  FailureOr<tgpu::GatherBoxes> boxes = tgpu::gatherBoxes(
      vt, cast<RankedTensorType>(withLayout(type, runs)),
      cast<tgpu::SharedBufferType>(ring.getType()), rowDim, kGatherBoxRows, why);
  if (failed(boxes) ||
      (vt.isTMA() && (vt.getTmaBox() != ArrayRef<int64_t>(boxes->box) ||
                      vt.getTmaSwizzle() != boxes->swizzle)))
    return false;
  layout = runs;
  auto func = gather->getParentOfType<func::FuncOp>();
  if (!vt.isTMA()) {
    setArgumentType(func, view, vt.withTMA(boxes->box, boxes->swizzle));
    // (The threads gather every run where the runtime cannot encode it.)
    addTmaFallback(func, {int32_t(view.getArgNumber())});
  }
  return true;
}

void KernelChannels::emitThreadCopy(OpBuilder &b, Operand &o, Value slot,
                                    Value ch) {
  auto type = cast<RankedTensorType>(o.load->getResult(0).getType());
  if (auto gather = dyn_cast<GatherOp>(o.load)) {
    // A gather: its tile dim that runs along the view's contiguous dim is
    // the coalesced one (the last: rows of K or V through a block table).
    LinearLayout l = copyLayout(type);
    Value barriers = planGatherBoxes(gather, o.ring, l) ? ch : Value();
    auto made = [&](Operation *op) { madeByCopies(op); };
    // (Gathers at the same indices, paged K and V, share them: one read of
    // the block table an iteration.)
    SmallVector<Value> indices;
    for (Value idx : gather.getIndices())
      indices.push_back(rematerialize(b, idx, l, made, &gatherIndices));
    Value mask = gather.getMask() ? rematerialize(b, gather.getMask(), l,
                                                  made, &gatherIndices)
                                  : Value();
    auto copy = tgpu::ThreadGatherOp::create(
        b, gather.getLoc(), gather.getTensor(), indices, mask, o.ring, slot,
        barriers, cast<RankedTensorType>(withLayout(type, l)));
    tag(copy, {tgpu::kLoadPartition});
    return;
  }
  auto load = cast<LoadOp>(o.load);
  LinearLayout l;
  tile::LinearLayoutAttr inSlot;
  if (o.kMajorCopy) {
    auto [copy, where] = kMajorCopyLayouts(o);
    l = copy;
    inSlot = tile::LinearLayoutAttr::get(b.getContext(), where);
  } else {
    l = copyLayout(type, load.getTensor().getType().getContiguousDim());
  }
  // (Not waited for where the channel's fill waits for each thread's.)
  auto kind = ch.getDefiningOp<tgpu::ChannelOp>().getKind();
  bool noWait = kind && kind->getFill() == tgpu::FillKind::AsyncCopy;
  auto copy = tgpu::ThreadCopyOp::create(
      b, load.getLoc(), load.getTensor(), load.getOffsets(), o.ring, slot,
      cast<RankedTensorType>(withLayout(type, l)), noWait, inSlot);
  tag(copy, {tgpu::kLoadPartition});
}

std::pair<LinearLayout, LinearLayout>
KernelChannels::kMajorCopyLayouts(const Operand &o) const {
  auto load = cast<LoadOp>(o.load);
  auto type = cast<RankedTensorType>(load.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  // Bit i of the tile, as the tile's coordinates and as B's (k, n).
  LinearLayout::Bases tileBits =
      kMajorCopyCoordinates(load, {}).getBases(InDim::Register);
  LinearLayout::Bases bBits =
      kMajorCopyCoordinates(load, o.chain).getBases(InDim::Register);
  int total = tileBits.size();
  int laneBits = 5, warpBits = llvm::Log2_64(copyWarps());
  int contigBits = 0;
  while (contigBits < total && bBits[contigBits][1] != 0)
    ++contigBits;
  int wordBits = llvm::Log2_64(
      4 / std::max<int64_t>(1, storageBytes(type.getElementType())));
  int vecBits = std::min({4, contigBits, total - laneBits - warpBits - wordBits});
  std::vector<bool> used(total, false);
  SmallVector<int> regs, lanes, warps;
  auto take = [&](SmallVector<int> &to, int bit) {
    used[bit] = true;
    to.push_back(bit);
  };
  auto alongK = [&](int64_t k) {
    for (int i = 0; i < total; ++i)
      if (!used[i] && bBits[i][0] == k && bBits[i][1] == 0)
        return i;
    return -1;
  };
  for (int i = 0; i < vecBits; ++i)
    take(regs, i);
  int64_t k = 1;
  for (int w = 0; w < wordBits; ++w, k *= 2)
    if (int i = alongK(k); i >= 0)
      take(regs, i);
  for (; int(lanes.size()) < laneBits; k *= 2) {
    int i = alongK(k);
    if (i < 0)
      break;
    take(lanes, i);
  }
  for (int i = 0; i < total; ++i)
    if (!used[i] && int(lanes.size()) < laneBits)
      take(lanes, i);
  for (int i = 0; i < total; ++i)
    if (!used[i] && int(warps.size()) < warpBits)
      take(warps, i);
  for (int i = 0; i < total; ++i)
    if (!used[i])
      take(regs, i);
  // (A tile smaller than a word a thread: the remaining lanes and warps
  // hold copies.)
  auto bases = [&](ArrayRef<int> bits, const LinearLayout::Bases &of,
                   int n, size_t rank) {
    LinearLayout::Bases out;
    for (int bit : bits)
      out.push_back(of[bit]);
    while (int(out.size()) < n)
      out.push_back(LinearLayout::Coords(rank, 0));
    return out;
  };
  LinearLayout l(shape, bases(regs, tileBits, 0, shape.size()),
                 bases(lanes, tileBits, laneBits, shape.size()),
                 bases(warps, tileBits, warpBits, shape.size()));
  auto bType = cast<RankedTensorType>(o.chain.empty()
                                          ? load.getType()
                                          : o.chain.back()->getResult(0).getType());
  std::vector<int64_t> kn(bType.getShape().begin(), bType.getShape().end());
  LinearLayout inSlot =
      LinearLayout(kn, bases(regs, bBits, 0, 2), bases(lanes, bBits, laneBits, 2),
                   bases(warps, bBits, warpBits, 2))
          .transpose({1, 0});
  return {l, inSlot};
}

void KernelChannels::emitCopy(OpBuilder &b, Operand &o, Value slot, Value ch) {
  if (o.threads)
    return emitThreadCopy(b, o, slot, ch);
  SmallVector<Value> coords(cast<LoadOp>(o.load).getOffsets());
  if (o.pairDim >= 0) {
    // A CTA pair's B: columns + rank * half.
    Location loc = o.load->getLoc();
    Operation *rank = tgpu::ClusterRankOp::create(b, loc, b.getI32Type());
    Operation *half =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), o.pairHalf);
    Operation *off = arith::MulIOp::create(b, loc, rank->getResult(0),
                                           half->getResult(0));
    Operation *col = arith::AddIOp::create(b, loc, coords[o.pairDim],
                                           off->getResult(0));
    for (Operation *op : {rank, half, off, col})
      tag(op, {tgpu::kLoadPartition});
    coords[o.pairDim] = col->getResult(0);
  }
  auto copy = tgpu::TMALoadOp::create(
      b, o.load->getLoc(), o.view, coords, o.ring, slot, ch, IntegerAttr());
  tag(copy, {tgpu::kLoadPartition});
}

void KernelChannels::insertProducer() {
  Value i = loop.getRegionIterArgs().back();
  auto first = [&](llvm::function_ref<bool(const Operand &)> in) {
    Operation *f = nullptr;
    for (Operand &o : operands)
      if (in(o) && (!f || o.load->isBeforeInBlock(f)))
        f = o.load;
    return f;
  };
  auto acquire = [&](llvm::function_ref<bool(const Operand &)> in, Value ch,
                     Value index) {
    Operation *f = first(in);
    OpBuilder b(f);
    if (!index) {
      auto t0 = arith::ConstantIntOp::create(b, f->getLoc(), b.getI32Type(), 0);
      tag(t0, {tgpu::kLoadPartition, consumer});
      index = onceTile = t0;
    }
    auto acq = tgpu::ChannelAcquireOp::create(b, f->getLoc(), ch, index);
    tag(acq, {tgpu::kLoadPartition});
    Operation *lastLoad = nullptr;
    bool threads = false;
    for (Operand &o : operands)
      if (in(o)) {
        OpBuilder cb(o.load);
        emitCopy(cb, o, acq, ch);
        threads |= o.threads;
        if (!lastLoad || lastLoad->isBeforeInBlock(o.load))
          lastLoad = o.load;
      }
    // A gather's index tiles (a block table's read) are computed before
    // the slot is acquired: their latency overlaps the wait for the slot.
    if (llvm::any_of(operands, [&](const Operand &o) {
          return in(o) && isa<GatherOp>(o.load);
        })) {
      Operation *use = *llvm::min_element(
          acq->getUsers(),
          [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
      acq->moveBefore(use);
    }
    // Threads' copies: the use is filled once the partition's last one
    // is in the slot (each warp arrives after its stores).
    if (threads) {
      OpBuilder fb(lastLoad);
      tag(tgpu::ChannelFillOp::create(fb, lastLoad->getLoc(), ch, index),
          {tgpu::kLoadPartition});
    }
  };
  for (auto [k, ch] : llvm::enumerate(chans)) {
    int id = k;
    acquire([&](const Operand &o) { return o.channel == id; }, ch, i);
  }
  if (onceCh)
    acquire([](const Operand &o) { return o.once; }, onceCh, Value());
}

void KernelChannels::addCounter() {
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  auto i0 = arith::ConstantIntOp::create(rewriter, loop.getLoc(),
                                         rewriter.getI32Type(), 0);
  tag(i0, {tgpu::kLoadPartition, consumer});
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{i0}, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>{args.front()};
      });
  loop = cast<scf::ForOp>(grown->getOperation());
}

/// Whether an op after `from` and before `to` (in one block) writes
/// scratch: a layout conversion, a reduction across warps, a stage (not a
/// staged dot's conversion to the register-A layout: the stage replaces
/// it).
static bool writesScratchBetween(Operation *from, Operation *to) {
  auto stagedA = [](Operation *op) {
    return isa<ConvertLayoutOp>(op) &&
           llvm::all_of(op->getUsers(), [&](Operation *user) {
             auto dot = dyn_cast<DotOp>(user);
             return dot && dot.getA() == op->getResult(0) &&
                    tgpu::getMMA(dot) &&
                    tgpu::getMMA(dot).getA() == tgpu::OperandSource::Staged;
           });
  };
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (tgpu::writesScratch(op, stagedA))
      return true;
  return false;
}

/// Whether `acc` is an accumulator the loop carries: an iter_arg of
/// `body`, or computed from one element by element in place (attention's
/// O rescaled by the row max's change before P·V adds to it).
static bool carriedAccumulator(Value acc, Block *body) {
  for (int depth = 0; depth < 4; ++depth) {
    if (auto arg = dyn_cast<BlockArgument>(acc))
      return arg.getOwner() == body;
    Operation *def = acc.getDefiningOp();
    if (!def || def->getBlock() != body || !isPure(def) ||
        def->getNumResults() != 1)
      return false;
    Value next;
    for (Value v : def->getOperands())
      if (v.getType() == acc.getType() && !next)
        next = v;
    if (!next)
      return false;
    acc = next;
  }
  return false;
}

void KernelChannels::insertConsumer() {
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
  // A loop of three or more dots whose math reads their results (attention
  // backward) waits for each MMA only where its result is first read, so
  // independent MMAs (Sᵀ and dPᵀ) are in flight together and math
  // overlaps the MMAs issued before it, where the registers that holds at
  // its peak fit: the carried accumulators (dK, dV), two results in
  // flight (the largest other accumulator twice) and that one's 16-bit
  // copy (P), at most kDeferredPeakRegs a compute thread (of 240 with
  // setmaxnreg, less what addresses and indices take). Attention backward,
  // main kernel (H200, 4x16x4096), scores transposed, dPᵀ written after
  // Sᵀ: D 128, 128 + 2·32 + 16 = 208, ran 522 -> 547 TFLOP/s deferred;
  // D 64, 64 + 2·64 + 32 = 224, 412 -> 239 (its results in flight spill).
  // A loop of one dot whose math reads it (block-scaled fp8 GEMM's fresh
  // dot a K block) waits there too: its scale reads overlap the MMA
  // (H200, 4096x7168x2048: 833 -> 867 TFLOP/s). Loops of two dots keep
  // the wait after each (tile-mma-pipeline reorders the forward's two).
  constexpr int64_t kDeferredPeakRegs = 208;
  int64_t computeThreads =
      32 * getNumWarps(loop->getParentOfType<func::FuncOp>());
  int64_t carriedRegs = 0, largestRegs = 0;
  for (MMA &m : mmas) {
    int64_t regs =
        cast<RankedTensorType>(m.dot.getType()).getNumElements() /
        computeThreads;
    if (carriedAccumulator(m.dot.getAcc(), body))
      carriedRegs += regs;
    else
      largestRegs = std::max(largestRegs, regs);
  }
  int64_t peakRegs = carriedRegs + 2 * largestRegs + largestRegs / 2;
  bool deferWaits =
      usesResultsInLoop && mmas.size() != 2 && peakRegs <= kDeferredPeakRegs;
  SmallVector<std::pair<tgpu::WGMMAOp, int>> issued;
  DenseMap<Value, Value> stages;      // a staged tile -> its buffer
  llvm::SetVector<Operation *> unstaged; // conversions stages replace
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
      a = mmaOperand(operands[mma.a], mma.aT);
      aSlot = slotOf(operands[mma.a]);
    } else if (std::optional<tgpu::StagedA> s;
               tgpu::getMMA(dot).getA() == tgpu::OperandSource::Staged &&
               (s = tgpu::stagedA(dot))) {
      // A staged A: written into scratch in wgmma's layout before the
      // first dot reading it (attention backward's dS once, for dSᵀ·Q and
      // dS·K), read by descriptor, its conversion left unused; written
      // again where an op between writes scratch (a reduction across
      // warps). (Without a stage layout, as selection found one, it stays
      // a register A.)
      Value &buf = stages[s->tile];
      if (buf && writesScratchBetween(buf.getDefiningOp(), dot))
        buf = Value();
      if (!buf) {
        buf = tgpu::LocalStageOp::create(lb, dot.getLoc(), s->type, s->tile);
        compute(buf.getDefiningOp());
      }
      a = buf;
      if (s->transposed) {
        a = tgpu::TransposeOp::create(lb, dot.getLoc(), buf);
        compute(a.getDefiningOp());
      }
      auto zero = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 0);
      compute(zero);
      aSlot = zero;
      unstaged.insert(dot.getA().getDefiningOp());
    }
    const Operand &bo = operands[mma.b];
    Value bSlot = slotOf(bo);
    auto wgmma = tgpu::WGMMAOp::create(lb, dot.getLoc(), dot.getType(), a,
                                       aSlot, mmaOperand(bo, mma.bT), bSlot,
                                       dot.getAcc());
    compute(wgmma);
    Value d = wgmma;
    if (usesResultsInLoop && !deferWaits) {
      // The math after it reads the result: wait for this MMA now; the
      // channels it was the last to read are free.
      auto w = tgpu::WGMMAWaitOp::create(lb, dot.getLoc(), ValueRange{d}, 0);
      compute(w);
      d = w.getResult(0);
      for (auto [k, ch] : llvm::enumerate(chans))
        if (lastReader[k] == int(m))
          compute(tgpu::ChannelReleaseOp::create(lb, loc, ch, i));
    }
    if (deferWaits)
      issued.push_back({wgmma, int(m)});
    dot.getResult().replaceAllUsesWith(d);
    dot.erase();
  }
  // The conversions the stages replace, then the transposes before them.
  llvm::SetVector<Operation *> transposes;
  for (Operation *cvt : unstaged) {
    if (auto tr = cvt->getOperand(0).getDefiningOp<TransposeOp>())
      transposes.insert(tr);
    if (cvt->use_empty())
      cvt->erase();
  }
  for (Operation *tr : transposes)
    if (tr->use_empty())
      tr->erase();
  if (deferWaits)
    insertDeferredWaits(issued, lastReader, i);
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
  eraseDead(body);

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

void KernelChannels::insertDeferredWaits(
    ArrayRef<std::pair<tgpu::WGMMAOp, int>> issued, ArrayRef<int> lastReader,
    Value i) {
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  // MMAs complete in the order they were issued: waiting for one with
  // `pendings` = the MMAs issued after it waits for all before it too.
  // An MMA whose accumulator is an in-flight result read by nothing else
  // (MLA's S = Q_latent·Kᵀ + Q_rope·K_ropeᵀ, two dots into one
  // accumulator) chains onto it without a wait, as wgmma's K steps do:
  // the entry then stands for both (a wait counts entries, not groups,
  // after it: at least as strict).
  struct Entry {
    Value result;
    SmallVector<int> mmas; // the MMAs (indices) it completes
    bool staged = false;   // one of them reads a staged A
  };
  SmallVector<Entry> inFlight;
  SmallVector<Operation *> ops;
  for (Operation &op : *body)
    ops.push_back(&op);
  for (Operation *op : ops) {
    auto it = llvm::find_if(issued, [&](auto &e) { return e.first == op; });
    Value chainFrom;
    if (it != issued.end()) {
      Value acc = tgpu::WGMMAOp(it->first).getAcc();
      if (acc.hasOneUse() && llvm::any_of(inFlight, [&](const Entry &e) {
            return e.result == acc;
          }))
        chainFrom = acc;
    }
    // The latest in-flight MMA whose result `op` (or an op nested in it)
    // reads.
    int latest = -1;
    auto reads = [&](Value v) {
      if (v == chainFrom)
        return;
      for (auto [k, e] : llvm::enumerate(inFlight))
        if (e.result == v)
          latest = std::max(latest, int(k));
    };
    // An op that writes scratch (a conversion, a reduction across warps,
    // another stage) overwrites a staged A: the MMAs reading one are
    // done first.
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        reads(v);
    });
    if (tgpu::writesScratch(op))
      for (auto [k, e] : llvm::enumerate(inFlight))
        if (e.staged)
          latest = std::max(latest, int(k));
    if (latest >= 0) {
      OpBuilder b(op);
      SmallVector<Value> values;
      for (int k = 0; k <= latest; ++k)
        values.push_back(inFlight[k].result);
      auto w = tgpu::WGMMAWaitOp::create(
          b, op->getLoc(), values, int(inFlight.size()) - 1 - latest);
      tag(w, {tgpu::kComputePartition});
      for (auto [v, done] : llvm::zip(values, w.getResults()))
        v.replaceUsesWithIf(done, [&](OpOperand &use) {
          Operation *user = body->findAncestorOpInBlock(*use.getOwner());
          return w->isBeforeInBlock(user);
        });
      // Channels whose last reader is done are free.
      for (int k = 0; k <= latest; ++k)
        for (int m : inFlight[k].mmas)
          for (auto [c, ch] : llvm::enumerate(chans))
            if (lastReader[c] == m)
              tag(tgpu::ChannelReleaseOp::create(b, loc, ch, i),
                  {tgpu::kComputePartition});
      inFlight.erase(inFlight.begin(), inFlight.begin() + latest + 1);
    }
    if (it == issued.end())
      continue;
    Entry entry{op->getResult(0), {},
                bool(tgpu::stageOf(tgpu::WGMMAOp(it->first).getA()))};
    if (chainFrom) {
      auto from = llvm::find_if(
          inFlight, [&](const Entry &e) { return e.result == chainFrom; });
      if (from != inFlight.end()) {
        entry.mmas = from->mmas;
        entry.staged |= from->staged;
        inFlight.erase(from);
      }
    }
    entry.mmas.push_back(it->second);
    inFlight.push_back(entry);
  }
  assert(inFlight.empty() && "an MMA whose result nothing reads");
}

void KernelChannels::eraseUnused(Operation *op) {
  SmallVector<Operation *> users(op->getUsers().begin(),
                                 op->getUsers().end());
  for (Operation *user : users)
    if (isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(user))
      eraseUnused(user);
  if (op->use_empty())
    op->erase();
}

Value KernelChannels::mmaOperand(const Operand &o) {
  return mmaOperand(o, o.transposed);
}

Value KernelChannels::mmaOperand(const Operand &o, bool transposed) {
  if (!transposed)
    return o.ring;
  OpBuilder b(o.ring.getContext());
  b.setInsertionPointAfterValue(o.ring);
  return tgpu::TransposeOp::create(b, o.ring.getLoc(), o.ring);
}

void KernelChannels::releasePrevious(OpBuilder &b, Location loc, Value i, Value i0,
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

namespace {

struct TileInsertChannels
    : public tilec::impl::TileInsertChannelsBase<TileInsertChannels> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      scf::ForOp loop = tgpu::scheduledLoop(func);
      if (loop && failed(KernelChannels().insert(func, loop)))
        return signalPassFailure();
    }
  }
};

} // namespace
