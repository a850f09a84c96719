//===- TileWarpSpecialize.cpp - TMA producer, wgmma consumers -------------===//
//
// The tile-warp-specialize pass: materialization, the last of the
// warp-specialization steps. It takes the loop tile-insert-channels
// prepared (one loop, its ops tagged with the partitions that run them,
// channels between them; see TileInsertChannels.cpp) and builds the
// regions that run it:
//
//   %ch, %ringA, %ringB = tgpu.channel consumer_warps W kind <...> : ...
//   tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 24>,
//                         #tgpu.partition<compute, warps = W, regs = R>] {
//     <the scalar code the load partition needs, cloned>
//     scf.for %k ... (%i) {            i: the use counter
//       <the load partition's ops, in body order: acquires, TMA copies>
//     }
//   }, {
//     <the kernel's code, the load partition's ops erased, and the loop in
//      a branch taken when it runs at all (ptxas serializes wgmma, C7515,
//      where a path that skips the loop joins before the last wait)>
//   }
//
// The regions' partitions carry what materialization decides: the load
// partition a warpgroup at 24 registers a thread, the compute partition
// the kernel's warps (tile.num_warps, which its layouts are for) at what
// is left of the register file, up to 240; `copies = 2` (ping-pong) runs
// two copies of its region, the registers budgeted for both. Then
// tile-cluster-multicast shares copies across a cluster's CTAs, and
// tile-persistent-tiles makes both regions walk the tiles where the kernel
// has `tgpu.persistent`.
//
// On sm_100a the loop has a third partition, the MMA partition's (see
// TileInsertChannels.cpp), and nothing of the loop is left to the compute
// partition (the epilogue after it), which loses its loop:
//
//   tgpu.warp_specialize [#tgpu.partition<compute, warps = W>,
//                         #tgpu.partition<load, warps = 1>,
//                         #tgpu.partition<mma, warps = 1>] {
//     <the kernel's code after the loop's channels: the epilogue>
//   }, {
//     scf.for ... { acquire, TMA copies }
//   }, {
//     %d = acquire the accumulator; scf.for ... { wait, tcgen05_mma,
//     release }; fill the accumulator
//   }
//
// The compute warps come first, so each warp w reaches TMEM lanes 32 (w
// % 4) .. + 31 as its warp of the layout (tcgen05.ld gives a warp its
// quadrant). The one-warp load and MMA partitions share the next
// warpgroup (the launch rounds up to it: 384 threads for 8 compute warps)
// and its budget of 96 registers a thread (setmaxnreg is a warpgroup's),
// and the compute warps raise theirs to the rest (208 for 8 warps; the
// even share would be 168). Compute warps that are no whole warpgroups
// set no budgets.
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"



#define DEBUG_TYPE "tile-warp-specialize"

namespace tilec {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

constexpr int kProducerWarps = 4;
// sm_90a's load partition where it issues TMA copies: the channel phases,
// the step's coordinates and the copies (FA3's producer has as many). At
// 40 the consumers' 232 spilled in attention backward (D 128, 8 bytes);
// at 24 they get 240 and no example spills (nor the producer).
constexpr int kProducerRegs = 24;
// sm_100a's load and MMA warps (one warp each, sharing a warpgroup): the
// persistent tile walk, the channel phases and, for the MMA warp, the
// shared-memory and instruction descriptors take more than sm_90a's
// producer (the grouped GEMM's load warp, which finds each tile's group,
// spilled below 96).
constexpr int kLoadMMARegs = 96;
// sm_90a's load partition where its threads copy the operands (a channel
// of shared-memory slots `fill = arrive`, views TMA cannot read): the
// copies (a run-time loop of chunks, tgpu.thread_copy) take more registers
// than issuing TMA copies; the consumers keep 216 of the pool (at 208,
// with 80 here, the grouped GEMM twin's epilogue spilled).
constexpr int kCopyRegs = 72;
// The same where its threads' copies are all K-major copies (fp8
// attention's V from a row-major view, tgpu.thread_copy with in_slot):
// each thread's loads of 128 bytes in flight together, and their words'
// store addresses. At 72 the D = 128 kernel's copy held half of them, two
// global round trips a block (463 TFLOP/s on an H200 against 531 at 120);
// the compute warps keep 192 (D = 128 fits; D = 256 spills).
constexpr int kKMajorCopyRegs = 120;
// The same where its threads gather more than kWideGather elements a thread
// (gathers unroll a thread's rows and check each run of them: MLA's 64x512
// latent rows and 64x64 rotary ones, 288 a thread, spilled 2 KB at 72,
// into L2 beside 225 KB of shared memory, and took 4.4 us a step; at 120,
// 3.0 us and the kernel 2.4x faster). Paged decode's K and V hold 128.
constexpr int kGatherRegs = 120;
constexpr int64_t kWideGather = 256;
// sm_100a's load partition where its threads copy the operands, and the
// MMA warp beside it: the copies (a run-time loop of chunks) and the tile
// walk. The compute warps get what is left (184 for 8 warps), the copy
// and MMA warps then what they leave (136; at 120 the D = 256 attention
// twin spilled 12 bytes).
constexpr int kCopyMMARegs = 128;

/// The warps of the load partition's threads that copy the operands into
/// shared-memory slots (a channel `fill = arrive` of shared-memory
/// buffers: its producer_warps), 0 where TMA copies them.
int64_t copyWarps(func::FuncOp func) {
  int64_t warps = 0;
  func.walk([&](tgpu::ChannelOp ch) {
    if (ch.getKind() &&
        (ch.getKind()->getFill() == tgpu::FillKind::Arrive ||
         ch.getKind()->getFill() == tgpu::FillKind::AsyncCopy) &&
        llvm::all_of(ch.getBuffers().getTypes(),
                     [](Type t) { return isa<tgpu::SharedBufferType>(t); }))
      warps = std::max<int64_t>(warps, ch.getProducerWarps().value_or(1));
  });
  return warps;
}

/// Whether the load partition's threads copy only K-major copies
/// (tgpu.thread_copy with `in_slot`), at least one.
bool onlyKMajorCopies(func::FuncOp func) {
  bool kMajor = false, other = false;
  func.walk([&](Operation *op) {
    if (auto copy = dyn_cast<tgpu::ThreadCopyOp>(op))
      (copy.getInSlot() ? kMajor : other) = true;
    else if (isa<tgpu::ThreadGatherOp, tgpu::SlotStoreOp>(op))
      other = true;
  });
  return kMajor && !other;
}

/// The elements the load partition's threads gather a thread an iteration
/// (tgpu.thread_gather tiles over the partition's warpgroup).
int64_t gatheredPerThread(func::FuncOp func, int64_t warps) {
  int64_t elements = 0;
  func.walk([&](tgpu::ThreadGatherOp g) {
    elements += cast<RankedTensorType>(g.getTile()).getNumElements();
  });
  return warps ? elements / (32 * warps) : 0;
}

struct TileWarpSpecialize
    : public tilec::impl::TileWarpSpecializeBase<TileWarpSpecialize> {
  using Base::Base;

  void runOnOperation() override {
    bool async = TargetInfo::of(getOperation()).hasAsyncMMA();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      scf::ForOp loop = tgpu::scheduledLoop(func);
      if (async && loop && failed(specialize(func, loop)))
        return signalPassFailure();
      // The partition schedule is consumed here.
      func.walk([&](Operation *op) {
        op->removeAttr(tgpu::kPartitionAttr);
        op->removeAttr(tgpu::kPartitionsAttr);
      });
    }
  }

  // The kernel being specialized.
  scf::ForOp loop;

  /// Whether a partition of `role` of the loop's schedule runs `op` (an
  /// op of its body, or beside it).
  bool runs(Operation *op, tgpu::PartitionRole role) {
    return tgpu::inRole(op, loop, role);
  }
  /// Whether partitions other than the compute partitions run `op`, and
  /// no compute partition.
  bool notComputed(Operation *op) {
    return !tgpu::getPartitions(op).empty() &&
           !runs(op, tgpu::PartitionRole::Compute);
  }

  LogicalResult specialize(func::FuncOp func, scf::ForOp l) {
    MLIRContext *ctx = &getContext();
    loop = l;
    Location loc = loop.getLoc();
    int numWarps = getNumWarps(func);
    int copies = tgpu::getComputeCopies(loop);
    if (copies > 1 && !func->hasAttr(tgpu::kPersistentAttr))
      return loop.emitError() << "a compute partition of " << copies
                              << " copies takes turns over the persistent "
                                 "tile loop: the kernel needs "
                              << tgpu::kPersistentAttr;
    // tile-insert-channels put the channels (and the transposed views of
    // their buffers) at the top of the kernel, and the use counter last
    // among the loop's iter_args. The regions go after them.
    Block &entry = func.getBody().front();
    Operation *lastChannel = nullptr;
    for (Operation &op : entry) {
      if (!isa<tgpu::ChannelOp, tgpu::TransposeOp>(op))
        break;
      lastChannel = &op;
    }
    if (!lastChannel || loop.getInitArgs().empty() ||
        !loop.getInitArgs().back().getType().isInteger(32))
      return loop.emitError() << "a scheduled loop without channels: run "
                                 "tile-insert-channels first";

    OpBuilder b(ctx);
    b.setInsertionPointAfter(lastChannel);

    // Everything else of the kernel runs in the consumer region.
    bool mmaRole = llvm::any_of(
        loop->getAttrOfType<ArrayAttr>(tgpu::kPartitionsAttr),
        [](Attribute a) {
          return cast<tgpu::PartitionAttr>(a).getRole() ==
                 tgpu::PartitionRole::MMA;
        });
    SmallVector<Attribute> parts;
    SmallVector<tgpu::PartitionRole> roles;
    // The registers the block starts with: a thread's even share of the
    // register file (ptxas caps it there: one block an SM) times the
    // launch's threads, whole warpgroups. setmaxnreg only moves registers
    // within it: budgets over it leave a setmaxnreg.inc waiting forever
    // (the sm_90a GEMM twin at 80 + 216 a thread, 65536 registers of the
    // block's 64512, hung).
    const TargetInfo &target = TargetInfo::of(func);
    auto pool = [&](int warps) {
      int threads =
          target.warpSize * int(llvm::alignTo(warps, target.warpgroupWarps));
      return target.registerShare(threads, tile::getBlocksPerSM(func)) *
             threads;
    };
    // The consumers' budget: the pool less a producer warpgroup's, shared
    // by the consumer warps (at most 240 a thread).
    auto consumerBudget = [&](int warps, int producer = kProducerRegs) {
      return std::min<int>(240,
                           (pool(warps + 4) - 32 * kProducerWarps * producer) /
                               (32 * warps) / 8 * 8);
    };
    int64_t copying = copyWarps(func);
    if (mmaRole) {
      // The load partition's warps (one for TMA, more where its threads
      // copy the operands) and the MMA warp share a warpgroup (the launch
      // rounds up to it) and its smaller budget, so the compute warps
      // (whole warpgroups, first) raise theirs as sm_90a's consumers do:
      // 208 a thread for 8 warps instead of the launch's even 168.
      int loadWarps = copying ? copying : 1;
      if (loadWarps + 1 > 4)
        return loop.emitError() << "the load partition's " << loadWarps
                                << " warps and the MMA warp share a warpgroup";
      bool budgets = numWarps % 4 == 0;
      int producerRegs = budgets ? (copying ? kCopyMMARegs : kLoadMMARegs) : 0;
      int computeRegs = budgets ? consumerBudget(numWarps, producerRegs) : 0;
      // Copy warps take what the compute warps leave (a ping-pong GEMM's
      // one compute warpgroup leaves more than kCopyMMARegs).
      if (budgets && copying)
        producerRegs = std::min<int>(
            256,
            (pool(numWarps + 4) - 32 * numWarps * computeRegs) / 128 / 8 * 8);
      parts = {tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::Compute,
                                        numWarps, computeRegs, 1),
               tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::Load,
                                        loadWarps, producerRegs, 1),
               tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::MMA, 1,
                                        producerRegs, 1)};
      roles = {tgpu::PartitionRole::Compute, tgpu::PartitionRole::Load,
               tgpu::PartitionRole::MMA};
    } else {
      // (Where the load partition's threads copy the operands, they are
      // its warpgroup, at a copy's budget.)
      if (copying && copying != kProducerWarps)
        return loop.emitError() << "the load partition is one warpgroup";
      int producerRegs =
          !copying ? kProducerRegs
          : gatheredPerThread(func, copying) > kWideGather ? kGatherRegs
          : onlyKMajorCopies(func)                         ? kKMajorCopyRegs
                                                            : kCopyRegs;
      int consumerRegs = consumerBudget(numWarps * copies, producerRegs);
      // (Never below setmaxnreg's least, 24: many compute warps keep the
      // copy partition's usual budget.)
      if (producerRegs == kGatherRegs && consumerRegs < 24) {
        producerRegs = kCopyRegs;
        consumerRegs = consumerBudget(numWarps * copies, producerRegs);
      }
      // Copy warps take what the compute warps leave (one compute
      // warpgroup at 240 leaves them 256: paged decode's gathers, whose
      // row addresses and table entries spilled at 72).
      if (copying)
        producerRegs = std::max<int>(
            producerRegs,
            std::min<int>(256, (pool(numWarps * copies + 4) -
                                32 * numWarps * copies * consumerRegs) /
                                   128 / 8 * 8));
      parts = {tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::Load,
                                        kProducerWarps, producerRegs, 1),
               tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::Compute,
                                        numWarps, consumerRegs, copies)};
      roles = {tgpu::PartitionRole::Load, tgpu::PartitionRole::Compute};
    }
    auto ws = tgpu::WarpSpecializeOp::create(
        b, loc, b.getArrayAttr(parts), /*scratch=*/DenseI64ArrayAttr(),
        /*regions=*/parts.size());
    Block *consumer = nullptr;
    SmallVector<std::pair<Block *, tgpu::PartitionRole>> others;
    for (auto [region, role] : llvm::zip(ws.getPartitionRegions(), roles)) {
      Block *block = new Block;
      region.push_back(block);
      if (role == tgpu::PartitionRole::Compute)
        consumer = block;
      else
        others.push_back({block, role});
    }
    auto rest = std::next(Block::iterator(ws));
    consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                     rest, std::prev(entry.end()));
    // The store buffers belong to the consumers (each copy its own).
    SmallVector<Operation *> storeBuffers;
    for (Operation &op : *consumer)
      if (isa<tgpu::AllocOp>(op))
        storeBuffers.push_back(&op);

    for (auto [block, role] : others) {
      OpBuilder pb = OpBuilder::atBlockEnd(block);
      if (failed(split(pb, role)))
        return failure();
    }
    eraseOtherPartitions(consumer);
    if (mmaRole)
      eraseIdleLoop();
    else
      guardLoop();
    for (Operation *op : llvm::reverse(storeBuffers))
      op->moveBefore(consumer, consumer->begin());
    return success();
  }

  /// The partition of `role` (load, or sm_100a's MMA partition) at `b`:
  /// the scalar code it needs from outside the loop, its ops beside the
  /// loop (the tiles copied once; the MMA partition's accumulator
  /// handover) and a loop of its ops carrying the use counter alone, in
  /// program order.
  LogicalResult split(OpBuilder &b, tgpu::PartitionRole role) {
    Location loc = loop.getLoc();
    Block *body = loop.getBody();
    auto loads = [&](Operation *op) { return runs(op, role); };
    // The partition's loop carries the use counter alone.
    for (Operation &op : body->without_terminator()) {
      if (!loads(&op))
        continue;
      for (Value v : op.getOperands())
        if (llvm::is_contained(loop.getRegionIterArgs().drop_back(), v))
          return op.emitError()
                 << "the " << tgpu::stringifyPartitionRole(role)
                 << " partition reads a value the loop carries for the "
                    "compute partition";
    }
    IRMapping map;
    SetVector<Operation *> needed;
    std::function<void(Value)> require = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def || map.contains(v) || needed.contains(def) ||
          def->getBlock() != loop->getBlock())
        return;
      for (Value o : def->getOperands())
        require(o);
      needed.insert(def);
    };
    // Values an op (and the ops in its regions) reads from outside `body`.
    auto requireOperands = [&](Operation *op) {
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (!body->getParent()->isAncestor(v.getParentRegion()))
            require(v);
      });
    };
    for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      require(v);
    SmallVector<Operation *> after; // its ops after the loop
    for (Operation &op : *loop->getBlock())
      if (&op != loop.getOperation() && loads(&op)) {
        requireOperands(&op);
        if (loop->isBeforeInBlock(&op))
          after.push_back(&op);
        else
          needed.insert(&op);
      }
    for (Operation &op : body->without_terminator())
      if (loads(&op))
        requireOperands(&op);
    SmallVector<Operation *> ordered(needed.begin(), needed.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    for (Operation *op : ordered)
      b.clone(*op, map);

    // The loop, carrying the use counter alone.
    auto ploop = scf::ForOp::create(
        b, loc, map.lookupOrDefault(loop.getLowerBound()),
        map.lookupOrDefault(loop.getUpperBound()),
        map.lookupOrDefault(loop.getStep()),
        ValueRange{map.lookupOrDefault(loop.getInitArgs().back())});
    OpBuilder lb = OpBuilder::atBlockBegin(ploop.getBody());
    map.map(loop.getInductionVar(), ploop.getInductionVar());
    map.map(loop.getRegionIterArgs().back(), ploop.getRegionIterArgs()[0]);
    for (Operation &op : body->without_terminator())
      if (loads(&op))
        lb.clone(op, map);
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    scf::YieldOp::create(lb, loc,
                         ValueRange{map.lookup(yield.getOperands().back())});
    map.map(loop.getResults().back(), ploop.getResult(0));
    for (Operation *op : after)
      b.clone(*op, map);
    return success();
  }

  /// Erases the ops no compute partition runs from the consumer region
  /// (they live on in the other regions).
  void eraseOtherPartitions(Block *consumer) {
    SmallVector<Operation *> dead;
    for (Operation &op : *consumer)
      if (notComputed(&op))
        dead.push_back(&op);
    for (Operation &op : loop.getBody()->without_terminator())
      if (notComputed(&op))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead)) {
      op->dropAllUses();
      op->erase();
    }
  }

  /// sm_100a: the compute partition runs nothing of the loop (the MMA
  /// partition issues the MMAs): the loop goes.
  void eraseIdleLoop() {
    if (!loop.getBody()->without_terminator().empty() ||
        !loop->use_empty())
      return;
    loop->erase();
  }

  /// Puts the loop, and the ops after it that read its results (the last
  /// MMAs' wait, the last release), in a branch taken when it runs: ptxas
  /// serializes wgmma (C7515) when a path that skips the loop (defining
  /// the accumulators otherwise) joins before the wait.
  void guardLoop() {
    Location loc = loop.getLoc();
    // The compute partition's ops after the loop that read its results
    // (directly or through one another: the last MMAs' wait, the last
    // release), not the epilogue, which runs whether the loop did or not.
    DenseSet<Value> reached(loop.getResults().begin(), loop.getResults().end());
    SmallVector<Operation *> after;
    for (Operation *op = loop->getNextNode(); op && !op->hasTrait<OpTrait::IsTerminator>();
         op = op->getNextNode()) {
      bool reads = false;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          reads |= reached.contains(v);
      });
      if (!reads || tgpu::getPartitions(op).empty())
        break;
      after.push_back(op);
      reached.insert(op->getResults().begin(), op->getResults().end());
    }
    // What the branch yields: each loop result, or where the last wait
    // takes it, the waited value; skipping the loop, its initial value.
    SmallVector<Value> yields(loop.getResults());
    for (Operation *op : after)
      if (auto wait = dyn_cast<tgpu::WGMMAWaitOp>(op))
        for (auto [in, out] : llvm::zip(wait.getValues(), wait.getResults()))
          for (Value &y : yields)
            if (y == in)
              y = out;
    OpBuilder b(loop);
    Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       loop.getLowerBound(),
                                       loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                   /*withElseRegion=*/true);
    OpBuilder eb = OpBuilder::atBlockBegin(guard.elseBlock());
    scf::YieldOp::create(eb, loc, loop.getInitArgs());
    OpBuilder tb = OpBuilder::atBlockBegin(guard.thenBlock());
    auto thenYield = scf::YieldOp::create(tb, loc, yields);
    loop->moveBefore(thenYield);
    for (Operation *op : after)
      op->moveBefore(thenYield);
    for (auto [y, r] : llvm::zip(yields, guard.getResults()))
      y.replaceUsesWithIf(r, [&](OpOperand &use) {
        return !guard->isAncestor(use.getOwner());
      });
  }
};
} // namespace
