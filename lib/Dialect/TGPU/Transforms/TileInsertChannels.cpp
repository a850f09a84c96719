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

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
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

namespace {

/// The load partition's warps where its threads copy the operands (views
/// TMA cannot read). sm_90a: a warpgroup, as its load partition is anyway.
/// sm_100a: two, which share a warpgroup (and its budget) with the MMA
/// warp, so that the compute warps keep the registers they have beside
/// TMA's one load warp (a warpgroup of copy warps and one for the MMA warp
/// left the epilogue 176 a thread, and two GEMM twins spilled). The
/// channel records it (producer_warps); tile-warp-specialize gives the
/// partition as many.
constexpr int64_t kCopyWarps = 4, kCopyWarpsTCGen05 = 2;

/// One operand of a dot that TMA or the load partition's threads bring in.
struct Operand {
  LoadOp load;
  bool transposed;        // the dot reads the loaded tile transposed
  bool threads = false;   // copied by the load partition's threads (the
                          // load has no tgpu.tma: a view TMA cannot read)
  bool once = false;      // loaded before the loop, once a tile
  int channel = -1;       // the loop channel it goes through (not once)
  BlockArgument view;     // the kernel argument
  tgpu::TMASlot slot;     // its box, swizzle and one slot of the ring
  Value ring;
  // A CTA pair's B (tgpu.cta_group): each CTA copies the half of the
  // columns its rank says, `pairDim` the load's dim of B's columns.
  int pairDim = -1;
  int64_t pairHalf = 0;
};

/// A dot of the loop and where its operands come from: indices into
/// Channels::operands; A's is -1 where wgmma reads A from registers.
struct MMA {
  DotOp dot;
  int a, b;
};

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
  bool tcgen05 = false;     // sm_100a: the MMAs are tcgen05's
  bool threadFill = false;  // the load partition's threads copy the operands
  int32_t consumer = tgpu::kComputePartition; // the partition that reads
                                              // the operand channels

  /// The dots' TMA operands, the channel each goes through; fails where a
  /// value crosses partitions some other way.
  LogicalResult collect() {
    mmas.clear();
    operands.clear();
    usesResultsInLoop = false;
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
        if (idx == 0 && mma.getA() == tgpu::OperandSource::Registers) {
          // A register A is math of the compute partition (or computed
          // before the loop), read where the dot stands.
          usesResultsInLoop |= bool(dot.getA().getDefiningOp()) &&
                               dot.getA().getDefiningOp()->getBlock() == body;
          continue;
        }
        bool transposed;
        LoadOp load = operandLoad(v, transposed);
        if (!load || !tgpu::inRole(load, loop, tgpu::PartitionRole::Load))
          return dot.emitError()
                 << "a dot operand read from shared memory is not a load "
                    "of the load partition";
        // Without a TMA copy, the load partition's threads copy the tile
        // (plain loads, then stores into the slot): its offsets are all
        // it may take from the kernel.
        bool threads = !tgpu::getTMACopy(load);
        if (threads && (load.getMask() ||
                        (load->getBlock() != body &&
                         load->getBlock() != loop->getBlock())))
          return load.emitError()
                 << "a dot operand the load partition's threads copy is "
                    "loaded in the loop or right before it, without a mask";
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
        o.threads = threads;
        o.once = load->getBlock() != body;
        (idx == 0 ? m.a : m.b) = operands.size();
        operands.push_back(o);
      }
      mmas.push_back(m);
    }
    threadFill =
        llvm::any_of(operands, [](const Operand &o) { return o.threads; });
    if (threadFill &&
        !llvm::all_of(operands, [](const Operand &o) { return o.threads; }))
      return loop.emitError()
             << "the dots' operands are copied all by TMA or all by the load "
                "partition's threads";
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
    tcgen05 = llvm::any_of(mmas, [](const MMA &m) {
      return tgpu::getMMA(m.dot).isTCGen05();
    });
    consumer = tcgen05 ? tgpu::kMMAPartition : tgpu::kComputePartition;
    if (tcgen05)
      return insertTCGen05(func);
    MLIRContext *ctx = &getContext();
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
    auto kind =
        tgpu::ChannelKindAttr::get(ctx, fillKind(), tgpu::ReleaseKind::MMA);
    // A channel over the operands `in` selects, their rings set.
    auto makeChannel = [&](llvm::function_ref<bool(const Operand &)> in,
                           IntegerAttr depth) {
      SmallVector<Type> types;
      for (Operand &o : operands)
        if (in(o))
          types.push_back(o.slot.type.withNumSlots(ShapedType::kDynamic));
      auto channel = tgpu::ChannelOp::create(
          b, loc, tgpu::ChannelType::get(ctx), types,
          b.getI64IntegerAttr(numWarps), IntegerAttr(), depth, kind,
          producerWarps() ? b.getI64IntegerAttr(producerWarps())
                          : IntegerAttr());
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

  /// The views of the TMA-copied operands become TMA views.
  void setTMAViews(func::FuncOp func) {
    for (Operand &o : operands) {
      if (o.threads)
        continue;
      auto vt = cast<TensorViewType>(o.view.getType());
      setArgumentType(func, o.view, vt.withTMA(o.slot.box, o.slot.swizzle));
    }
  }

  /// A channel at the top of the kernel.
  tgpu::ChannelOp makeChannel(func::FuncOp func, TypeRange types,
                              int64_t consumerWarps, int64_t depth,
                              tgpu::FillKind fill, tgpu::ReleaseKind release,
                              int64_t producerWarps = 0) {
    MLIRContext *ctx = &getContext();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    return tgpu::ChannelOp::create(
        b, loop.getLoc(), tgpu::ChannelType::get(ctx), types,
        b.getI64IntegerAttr(consumerWarps), IntegerAttr(),
        depth ? b.getI64IntegerAttr(depth) : IntegerAttr(),
        tgpu::ChannelKindAttr::get(ctx, fill, release),
        producerWarps ? b.getI64IntegerAttr(producerWarps) : IntegerAttr());
  }

  /// The tensor-memory ring of 128-row tiles of `t`'s shape and element
  /// type.
  static tgpu::TensorMemoryBufferType tmemRing(RankedTensorType t) {
    return tgpu::TensorMemoryBufferType::get(
        t.getContext(), {ShapedType::kDynamic, 128, t.getShape()[1]},
        t.getElementType());
  }

  /// The consumer's read of use `index` of tensor-memory channel `ch`
  /// (PTX ISA 9.7.16.6.4): wait, fence after, a tcgen05.ld of each buffer
  /// as `types`, wait::ld, fence before, release. Returns the values;
  /// `mark` sees each op at `b`'s level (to tag its partition).
  static ValueRange readOut(OpBuilder &b, Location loc, tgpu::ChannelOp ch,
                            Value index, TypeRange types,
                            llvm::function_ref<void(Operation *)> mark) {
    auto w = tgpu::ChannelWaitOp::create(b, loc, ch.getChannel(), index);
    mark(w);
    mark(tgpu::Tcgen05FenceOp::create(b, loc, tgpu::Tcgen05FenceKind::After));
    SmallVector<Value> loaded;
    for (auto [type, ring] : llvm::zip(types, ch.getBuffers())) {
      auto ld = tgpu::TMemLoadOp::create(b, loc, type, ring, w,
                                         b.getI64IntegerAttr(0));
      mark(ld);
      loaded.push_back(ld);
    }
    auto ready = tgpu::TMemWaitOp::create(b, loc, types,
                                          tgpu::TMemWaitKind::Load, loaded);
    mark(ready);
    mark(tgpu::Tcgen05FenceOp::create(b, loc, tgpu::Tcgen05FenceKind::Before));
    mark(tgpu::ChannelReleaseOp::create(b, loc, ch.getChannel(), index));
    return ready.getResults();
  }

  /// The factor the loop-carried O is rescaled by before the MMA adds to it
  /// (`dot`'s accumulator is `mul`, the iter_arg times it): its index
  /// among the iter_args, or -1.
  int rescaledAccumulator(DotOp dot, arith::MulFOp &mul, Value &factor) {
    mul = dot.getAcc().getDefiningOp<arith::MulFOp>();
    if (!mul || !mul->hasOneUse() || !dot.getResult().hasOneUse())
      return -1;
    for (auto [k, v] : llvm::enumerate(mul->getOperands())) {
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg || arg.getOwner() != loop.getBody() ||
          arg.getArgNumber() == 0 || !arg.hasOneUse() ||
          loop.getBody()->getTerminator()->getOperand(arg.getArgNumber() -
                                                      1) != dot.getResult())
        continue;
      factor = mul->getOperand(1 - k);
      return arg.getArgNumber() - 1;
    }
    return -1;
  }

  /// sm_100a attention (FlashAttention-4's structure; see the file
  /// comment): S = Q·Kᵀ and O = P·V on tcgen05, S, P and O in tensor
  /// memory.
  LogicalResult insertTCGen05Attention(func::FuncOp func) {
    MMA sm = mmas[0], om = mmas[1];
    DotOp sDot = sm.dot, oDot = om.dot;
    arith::MulFOp mul;
    Value factor;
    int accIdx = rescaledAccumulator(oDot, mul, factor);
    if (sm.a < 0 || !operands[sm.a].once || operands[sm.b].once ||
        om.a >= 0 || operands[om.b].once ||
        tgpu::getMMA(oDot).getA() != tgpu::OperandSource::TensorMemory ||
        accIdx < 0 || mul.getType() != oDot.getType())
      return sDot.emitError()
             << "sm_100a: attention's loop is S = Q·Kᵀ (Q copied once before "
                "the loop, K in it) and O = P·V (P written to tensor memory, "
                "V copied in the loop) onto the O the loop carries, rescaled "
                "by a factor";
    int numWarps = getNumWarps(func);
    auto sType = cast<RankedTensorType>(sDot.getType());
    auto oType = cast<RankedTensorType>(oDot.getType());
    auto pType = cast<RankedTensorType>(oDot.getA().getType());
    Value init = loop.getInitArgs()[accIdx];
    setTMAViews(func);

    // K and V: a channel each, a use an iteration, released by the MMA
    // thread's commit; Q: once a tile. S: two deep, filled by its MMA's
    // commit, released by the softmax warps once read; P: filled by the
    // softmax warps, released by P·V's commit; O: filled by P·V's commit,
    // released by the softmax warps once rescaled (and by the epilogue).
    auto kRelease = tgpu::ReleaseKind::MMA;
    Operand &q = operands[sm.a], &k = operands[sm.b], &v = operands[om.b];
    auto slotRing = [](Operand &o) {
      return o.slot.type.withNumSlots(ShapedType::kDynamic);
    };
    auto kCh = makeChannel(func, {slotRing(k)}, 1, 0, fillKind(), kRelease,
                           producerWarps());
    auto vCh = makeChannel(func, {slotRing(v)}, 1, 0, fillKind(), kRelease,
                           producerWarps());
    auto qCh = makeChannel(func, {slotRing(q)}, 1, tgpu::getComputeCopies(loop),
                           fillKind(), kRelease, producerWarps());
    auto sCh = makeChannel(func, {tmemRing(sType)}, numWarps, 2,
                           tgpu::FillKind::MMA, tgpu::ReleaseKind::Arrive);
    auto pCh = makeChannel(func, {tmemRing(pType)}, 1, 1,
                           tgpu::FillKind::Arrive, tgpu::ReleaseKind::MMA,
                           numWarps);
    auto oCh = makeChannel(func, {tmemRing(oType)}, numWarps, 1,
                           tgpu::FillKind::MMA, tgpu::ReleaseKind::Arrive);
    k.ring = kCh.getBuffers().front();
    v.ring = vCh.getBuffers().front();
    q.ring = qCh.getBuffers().front();
    k.channel = 0;
    v.channel = 1;
    chans.assign({kCh.getChannel(), vCh.getChannel()});
    onceCh = qCh.getChannel();
    Value sRing = sCh.getBuffers().front(), pRing = pCh.getBuffers().front(),
          oRing = oCh.getBuffers().front();

    onceTile = {};
    addCounter();
    insertProducer();
    Location loc = loop.getLoc();
    Value i = loop.getRegionIterArgs().back();
    Value i0 = loop.getInitArgs().back();
    const int32_t kC = tgpu::kComputePartition, kM = tgpu::kMMAPartition;
    // The counter and its start are every partition's now.
    tag(i0.getDefiningOp(), {tgpu::kLoadPartition, kC, kM});
    Value qOperand = mmaOperand(q), kOperand = mmaOperand(k),
          vOperand = mmaOperand(v);

    // S(j) = Q·K(j)ᵀ into S's slot of use j: the MMA thread's.
    Location sLoc = sDot.getLoc();
    auto issueS = [&](OpBuilder &b, Value j, Value qSlot) {
      auto kw = tgpu::ChannelWaitOp::create(b, loc, kCh.getChannel(), j);
      auto ss = tgpu::ChannelAcquireOp::create(b, loc, sCh.getChannel(), j);
      // (After the softmax's tcgen05.ld of the slot's last use.)
      tgpu::Tcgen05FenceOp::create(b, loc, tgpu::Tcgen05FenceKind::After);
      auto off = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
      tgpu::Tcgen05MMAOp::create(b, sLoc, qOperand, qSlot, kOperand,
                                 kw, sRing, ss, off, b.getI32IntegerAttr(1));
      tgpu::ChannelFillOp::create(b, loc, sCh.getChannel(), j);
      tgpu::ChannelReleaseOp::create(b, loc, kCh.getChannel(), j);
    };
    auto inMMA = [&](Operation *op) { tag(op, {kM}); return op; };
    auto inCompute = [&](Operation *op) { tag(op, {kC}); return op; };

    // Before the loop (the MMA thread): Q, and S of the first iteration.
    OpBuilder pb(loop);
    auto qw = tgpu::ChannelWaitOp::create(pb, loc, onceCh, onceTile);
    inMMA(qw);
    auto runs = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::slt,
                                      loop.getLowerBound(),
                                      loop.getUpperBound());
    tag(runs, {kC, kM});
    auto first = scf::IfOp::create(pb, loc, TypeRange{}, runs, false);
    inMMA(first);
    {
      OpBuilder fb = OpBuilder::atBlockBegin(first.thenBlock());
      issueS(fb, i0, qw);
    }

    // Where S's dot stood: the softmax warps read S out of tensor memory.
    OpBuilder lb(sDot);
    sDot.getResult().replaceAllUsesWith(
        readOut(lb, loc, sCh, i, {sType},
                [&](Operation *op) { inCompute(op); }).front());
    sDot.erase();

    // Where O's dot stood: the softmax warps write P into tensor memory
    // and hand it over; then, after the first iteration, they wait for the
    // last P·V, rescale O in tensor memory and give it back (after P, so
    // that P's registers are free for O's); the MMA thread issues the next
    // iteration's S (so the next softmax overlaps this P·V), then P·V onto
    // O.
    Value acc = loop.getRegionIterArgs()[accIdx];
    lb.setInsertionPoint(oDot);
    auto pa = inCompute(
        tgpu::ChannelAcquireOp::create(lb, loc, pCh.getChannel(), i));
    // (After the last P·V's reads of P, which its commit released.)
    inCompute(tgpu::Tcgen05FenceOp::create(lb, loc,
                                           tgpu::Tcgen05FenceKind::After));
    inCompute(tgpu::TMemStoreOp::create(lb, loc, oDot.getA(), pRing,
                                        pa->getResult(0),
                                        lb.getI64IntegerAttr(0)));
    inCompute(tgpu::TMemWaitOp::create(lb, loc, TypeRange{},
                                       tgpu::TMemWaitKind::Store,
                                       ValueRange{}));
    inCompute(tgpu::Tcgen05FenceOp::create(lb, loc,
                                           tgpu::Tcgen05FenceKind::Before));
    inCompute(tgpu::ChannelFillOp::create(lb, loc, pCh.getChannel(), i));
    auto started = inCompute(arith::CmpIOp::create(
        lb, loc, arith::CmpIPredicate::ugt, i, i0));
    auto rescale = inCompute(scf::IfOp::create(
        lb, loc, TypeRange{}, started->getResult(0), false));
    {
      OpBuilder rb = OpBuilder::atBlockBegin(
          cast<scf::IfOp>(rescale).thenBlock());
      Value prev = arith::SubIOp::create(
          rb, loc, i, arith::ConstantIntOp::create(rb, loc, rb.getI32Type(), 1));
      auto ow = tgpu::ChannelWaitOp::create(rb, loc, oCh.getChannel(), prev);
      tgpu::Tcgen05FenceOp::create(rb, loc, tgpu::Tcgen05FenceKind::After);
      // O a column chunk at a time, at most 64 values a thread each, where
      // the factor is a broadcast (one per row: rebuilt for the chunk).
      auto bcast = factor.getDefiningOp<BroadcastOp>();
      int64_t d = oType.getShape()[1];
      int64_t perThread = 128 * d / (32 * numWarps), chunks = 1;
      std::vector<int64_t> chunkShape = {128, d};
      while (bcast && perThread / chunks > 64 && d / chunks % 64 == 0)
        chunks *= 2;
      chunkShape[1] = d / chunks;
      auto chunkType = cast<RankedTensorType>(withLayout(
          oType, LinearLayout::tmem32x32b(chunkShape, numWarps)));
      chunkType = RankedTensorType::get(chunkShape, oType.getElementType(),
                                        chunkType.getEncoding());
      if (chunks > 1 &&
          getLayout(chunkType).broadcastOperand({1}) !=
              getLayout(bcast.getSrc().getType()))
        chunks = 1, chunkType = oType;
      for (int64_t c = 0; c < chunks; ++c) {
        IntegerAttr column = rb.getI64IntegerAttr(c * d / chunks);
        auto ld = tgpu::TMemLoadOp::create(rb, loc, chunkType, oRing, ow,
                                           column);
        auto ready = tgpu::TMemWaitOp::create(rb, loc, TypeRange{chunkType},
                                              tgpu::TMemWaitKind::Load,
                                              ValueRange{ld.getResult()});
        IRMapping map;
        map.map(acc, ready.getResult(0));
        if (chunks > 1)
          map.map(factor, BroadcastOp::create(rb, loc, chunkType,
                                              bcast.getSrc()));
        Operation *scaled = rb.clone(*mul, map);
        scaled->removeAttr(tgpu::kPartitionAttr);
        scaled->getResult(0).setType(chunkType);
        tgpu::TMemStoreOp::create(rb, loc, scaled->getResult(0), oRing, ow,
                                  column);
      }
      tgpu::TMemWaitOp::create(rb, loc, TypeRange{}, tgpu::TMemWaitKind::Store,
                               ValueRange{});
      tgpu::Tcgen05FenceOp::create(rb, loc, tgpu::Tcgen05FenceKind::Before);
      tgpu::ChannelReleaseOp::create(rb, loc, oCh.getChannel(), prev);
    }

    auto nextK = inMMA(arith::AddIOp::create(lb, loc, loop.getInductionVar(),
                                             loop.getStep()));
    auto more = inMMA(arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt,
                                            nextK->getResult(0),
                                            loop.getUpperBound()));
    auto ahead = inMMA(scf::IfOp::create(lb, loc, TypeRange{},
                                         more->getResult(0), false));
    {
      OpBuilder ab = OpBuilder::atBlockBegin(cast<scf::IfOp>(ahead).thenBlock());
      Value j = arith::AddIOp::create(
          ab, loc, i, arith::ConstantIntOp::create(ab, loc, ab.getI32Type(), 1));
      issueS(ab, j, qw);
    }
    auto oa = inMMA(tgpu::ChannelAcquireOp::create(lb, loc, oCh.getChannel(), i));
    auto pw = inMMA(tgpu::ChannelWaitOp::create(lb, loc, pCh.getChannel(), i));
    inMMA(tgpu::Tcgen05FenceOp::create(lb, loc, tgpu::Tcgen05FenceKind::After));
    auto vw = inMMA(tgpu::ChannelWaitOp::create(lb, loc, vCh.getChannel(), i));
    auto on = inMMA(arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ugt,
                                          i, i0));
    inMMA(tgpu::Tcgen05MMAOp::create(
        lb, oDot.getLoc(), pRing, pw->getResult(0), vOperand,
        vw->getResult(0), oRing, oa->getResult(0), on->getResult(0),
        lb.getI32IntegerAttr(1)));
    inMMA(tgpu::ChannelFillOp::create(lb, loc, oCh.getChannel(), i));
    inMMA(tgpu::ChannelReleaseOp::create(lb, loc, vCh.getChannel(), i));
    inMMA(tgpu::ChannelReleaseOp::create(lb, loc, pCh.getChannel(), i));
    oDot.getResult().replaceAllUsesWith(acc);
    oDot.erase();
    mul.erase();

    Block *body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    lb.setInsertionPoint(yield);
    auto one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
    tag(one, {tgpu::kLoadPartition, kC, kM});
    auto next = arith::AddIOp::create(lb, loc, i, one);
    tag(next, {tgpu::kLoadPartition, kC, kM});
    yield->setOperand(yield->getNumOperands() - 1, next);
    eraseDead(body);

    // After the loop: Q's slot is free once the MMAs completed; the
    // epilogue reads O out of tensor memory after the last P·V (the
    // loop's init where it did not run).
    OpBuilder ab(loop->getContext());
    ab.setInsertionPointAfter(loop);
    inMMA(tgpu::ChannelReleaseOp::create(ab, loc, onceCh, onceTile));
    auto pick = inCompute(scf::IfOp::create(ab, loc, TypeRange{oType},
                                            runs.getResult(), true));
    {
      auto ifOp = cast<scf::IfOp>(pick);
      OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
      Value last = arith::SubIOp::create(
          tb, loc, loop.getResults().back(),
          arith::ConstantIntOp::create(tb, loc, tb.getI32Type(), 1));
      scf::YieldOp::create(
          tb, loc, readOut(tb, loc, oCh, last, {oType}, [](Operation *) {}));
      OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
      scf::YieldOp::create(eb, loc, init);
    }
    loop.getResult(accIdx).replaceAllUsesWith(pick->getResult(0));
    dropIterArg(accIdx);
    eraseUnused(q.load);
    return success();
  }

  /// sm_100a: the loop's tcgen05 MMAs, each onto an accumulator the loop
  /// carries for it alone (see the file comment; attention's loop is
  /// insertTCGen05Attention's).
  LogicalResult insertTCGen05(func::FuncOp func) {
    if (mmas.size() == 2 && tgpu::getMMA(mmas[1].dot).getA() ==
                                tgpu::OperandSource::TensorMemory)
      return insertTCGen05Attention(func);
    Location loc = loop.getLoc();
    Block *body = loop.getBody();
    // Per MMA: its accumulator's iter_arg index, init and type.
    SmallVector<unsigned> accIdx;
    SmallVector<Value> inits;
    SmallVector<Type> accTypes, ringTypes;
    int64_t columns = 0;
    for (MMA &m : mmas) {
      BlockArgument iterArg = carriedAccumulator(m.dot);
      if (!iterArg || m.a < 0 ||
          llvm::any_of(operands, [](const Operand &o) { return o.once; }))
        return m.dot.emitError()
               << "sm_100a: a warp-specialized loop's tcgen05 MMAs each add "
                  "onto an accumulator the loop carries for it alone, both "
                  "operands copied with TMA in the loop (a GEMM's main loop)";
      auto accType = cast<RankedTensorType>(m.dot.getType());
      accIdx.push_back(iterArg.getArgNumber() - 1);
      inits.push_back(loop.getInitArgs()[accIdx.back()]);
      accTypes.push_back(accType);
      ringTypes.push_back(tmemRing(accType));
      columns += accType.getShape()[1];
    }
    int numWarps = getNumWarps(func);
    int32_t ctaGroup = 1;
    if (func->hasAttr(tgpu::kCtaGroupAttr)) {
      ctaGroup = 2;
      if (failed(halveB()))
        return failure();
    }
    setTMAViews(func);

    // The channels: the operands' (the MMA thread's commit releases a
    // use), the accumulators' (filled by the MMAs' commit, released by
    // each epilogue warp).
    // (Each made at the top of the kernel: the operands' ends up first.)
    int64_t depth =
        func->hasAttr(tgpu::kPersistentAttr) && 2 * columns <= 512 ? 2 : 1;
    auto accCh = makeChannel(func, ringTypes, numWarps, depth,
                             tgpu::FillKind::MMA, tgpu::ReleaseKind::Arrive);
    SmallVector<Type> types;
    for (Operand &o : operands)
      types.push_back(o.slot.type.withNumSlots(ShapedType::kDynamic));
    auto ch = makeChannel(func, types, 1, 0, fillKind(), tgpu::ReleaseKind::MMA,
                          producerWarps());
    for (auto [o, ring] : llvm::zip(operands, ch.getBuffers()))
      o.ring = ring;
    chans.assign({ch.getChannel()});
    for (Operand &o : operands)
      o.channel = 0;

    addCounter();
    insertProducer();
    Value i = loop.getRegionIterArgs().back();
    Value i0 = loop.getInitArgs().back();
    auto mmaPart = [](Operation *op) { tag(op, {tgpu::kMMAPartition}); };
    auto epilogue = [](Operation *op) { tag(op, {tgpu::kComputePartition}); };

    // The accumulators: the MMA thread's for the tile, before the loop.
    OpBuilder pb(loop);
    auto t0 = arith::ConstantIntOp::create(pb, loc, pb.getI32Type(), 0);
    tag(t0, {tgpu::kComputePartition, tgpu::kMMAPartition});
    auto accSlot = tgpu::ChannelAcquireOp::create(pb, loc, accCh.getChannel(), t0);
    mmaPart(accSlot);
    // (The epilogue's tcgen05.ld of the slot's last tile came before the
    // release this acquire waited for: PTX ISA 9.7.16.6.4.)
    mmaPart(tgpu::Tcgen05FenceOp::create(pb, loc,
                                         tgpu::Tcgen05FenceKind::After));

    // The MMAs where the dots stood (waiting for the use before the
    // first), the use released by their completion after the last.
    OpBuilder lb(mmas.front().dot);
    auto w = tgpu::ChannelWaitOp::create(lb, loc, ch.getChannel(), i);
    mmaPart(w);
    auto on = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ugt, i, i0);
    mmaPart(on);
    Operation *last = nullptr;
    for (auto [k, m] : llvm::enumerate(mmas)) {
      DotOp dot = m.dot;
      lb.setInsertionPoint(dot);
      last = tgpu::Tcgen05MMAOp::create(
          lb, dot.getLoc(), mmaOperand(operands[m.a]), w,
          mmaOperand(operands[m.b]), w, accCh.getBuffers()[k], accSlot, on,
          lb.getI32IntegerAttr(ctaGroup));
      mmaPart(last);
      dot.getResult().replaceAllUsesWith(loop.getRegionIterArgs()[accIdx[k]]);
      dot.erase();
    }
    lb.setInsertionPointAfter(last);
    mmaPart(tgpu::ChannelReleaseOp::create(lb, loc, ch.getChannel(), i));

    body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    lb.setInsertionPoint(yield);
    auto one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
    tag(one, {tgpu::kLoadPartition, tgpu::kMMAPartition});
    auto next = arith::AddIOp::create(lb, loc, i, one);
    tag(next, {tgpu::kLoadPartition, tgpu::kMMAPartition});
    yield->setOperand(yield->getNumOperands() - 1, next);
    eraseDead(body);

    // After the loop: the MMAs' commit fills the accumulators; the
    // epilogue reads them out of tensor memory and gives them back.
    OpBuilder ab(loop->getContext());
    ab.setInsertionPointAfter(loop);
    mmaPart(tgpu::ChannelFillOp::create(ab, loc, accCh.getChannel(), t0));
    ValueRange ready = readOut(ab, loc, accCh, t0, accTypes, epilogue);
    // A loop that did not run (K = 0) issued no MMA: its inits stand.
    auto runs = arith::CmpIOp::create(ab, loc, arith::CmpIPredicate::slt,
                                      loop.getLowerBound(),
                                      loop.getUpperBound());
    epilogue(runs);
    auto pick = scf::IfOp::create(ab, loc, accTypes, runs,
                                  /*withElseRegion=*/true);
    epilogue(pick);
    OpBuilder tb = OpBuilder::atBlockBegin(pick.thenBlock());
    scf::YieldOp::create(tb, loc, ready);
    OpBuilder eb = OpBuilder::atBlockBegin(pick.elseBlock());
    scf::YieldOp::create(eb, loc, inits);
    for (auto [k, idx] : llvm::enumerate(accIdx))
      loop.getResult(idx).replaceAllUsesWith(pick.getResult(k));
    SmallVector<unsigned> dropped(accIdx);
    llvm::sort(dropped, std::greater<unsigned>());
    for (unsigned idx : dropped)
      dropIterArg(idx);
    return success();
  }

  /// A CTA pair's MMAs (tgpu.cta_group): each CTA's B slot holds half of
  /// B's columns (tile-partition-schedule checked that the half keeps B's
  /// swizzle).
  LogicalResult halveB() {
    for (MMA &m : mmas) {
      Operand &o = operands[m.b];
      if (o.pairDim >= 0)
        continue;
      if (llvm::any_of(mmas, [&](const MMA &x) { return x.a == m.b; }))
        return m.dot.emitError() << "a CTA pair's B is also an A";
      auto type = cast<RankedTensorType>(o.load.getType());
      o.pairDim = type.getRank() - (o.transposed ? 2 : 1);
      o.pairHalf = type.getShape()[o.pairDim] / 2;
      FailureOr<tgpu::TMASlot> slot = tgpu::planHalfSlot(type, o.pairDim);
      if (failed(slot))
        return o.load.emitError() << "half of B's columns is no slot of B's "
                                     "swizzle for the CTA pair";
      o.slot = *slot;
    }
    return success();
  }

  /// Removes iter_arg `idx` of the loop, which the body passes through and
  /// nothing reads after the loop.
  void dropIterArg(unsigned idx) {
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

  /// Erases the loads and conversions nobody reads any more.
  static void eraseDead(Block *body) {
    SmallVector<Operation *> dead;
    for (Operation &op : body->without_terminator())
      if (isa<LoadOp, ConvertLayoutOp, TransposeOp, ReshapeOp>(op))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
  }

  /// The load partition's warps that copy the operands.
  int64_t copyWarps() const { return tcgen05 ? kCopyWarpsTCGen05 : kCopyWarps; }

  /// How the operands' slots are filled.
  tgpu::FillKind fillKind() const {
    return threadFill ? tgpu::FillKind::Arrive : tgpu::FillKind::TMA;
  }

  /// The warps that fill the operands' slots (the channels'
  /// producer_warps): the copy warps where the threads copy, 0 for TMA.
  int64_t producerWarps() const { return threadFill ? copyWarps() : 0; }

  /// The load partition's threads' copy of `o` into `slot` of its ring, in
  /// place of its load: the tile in the coalesced layout of the
  /// partition's warps (the channel's fill follows the last copy).
  void emitThreadCopy(OpBuilder &b, Operand &o, Value slot) {
    auto type = cast<RankedTensorType>(o.load.getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    int contig = o.load.getTensor().getType().getContiguousDim();
    if (contig < 0)
      contig = shape.size() - 1;
    LinearLayout l = LinearLayout::coalesced(
        shape, type.getElementType().getIntOrFloatBitWidth(), copyWarps(),
        contig);
    auto copy = tgpu::ThreadCopyOp::create(
        b, o.load.getLoc(), o.load.getTensor(), o.load.getOffsets(), o.ring,
        slot, cast<RankedTensorType>(withLayout(type, l)));
    tag(copy, {tgpu::kLoadPartition});
  }

  /// The TMA copy of `o` into `slot` of its ring, completing on `ch`, in
  /// place of its load.
  void emitCopy(OpBuilder &b, Operand &o, Value slot, Value ch) {
    if (o.threads)
      return emitThreadCopy(b, o, slot);
    SmallVector<Value> coords(o.load.getOffsets());
    if (o.pairDim >= 0) {
      // A CTA pair's B: columns + rank * half.
      Location loc = o.load.getLoc();
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
        b, o.load.getLoc(), o.view, coords, o.ring, slot, ch, IntegerAttr());
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
        tag(t0, {tgpu::kLoadPartition, consumer});
        index = onceTile = t0;
      }
      auto acq = tgpu::ChannelAcquireOp::create(b, f.getLoc(), ch, index);
      tag(acq, {tgpu::kLoadPartition});
      LoadOp lastLoad;
      for (Operand &o : operands)
        if (in(o)) {
          OpBuilder cb(o.load);
          emitCopy(cb, o, acq, ch);
          if (!lastLoad || lastLoad->isBeforeInBlock(o.load))
            lastLoad = o.load;
        }
      // Threads' copies: the use is filled once the partition's last one
      // is in the slot (each warp arrives after its stores).
      if (threadFill) {
        OpBuilder fb(lastLoad);
        tag(tgpu::ChannelFillOp::create(fb, lastLoad.getLoc(), ch, index),
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

  /// The use index of the tiles copied once (%t0), or null.
  Value onceTile;

  /// The use counter: a new last iter_arg of the loop, starting at %i0 (a
  /// constant of its own before the loop); insertConsumer makes it count.
  void addCounter() {
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
