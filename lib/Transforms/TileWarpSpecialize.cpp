//===- TileWarpSpecialize.cpp - TMA producer, wgmma consumers -------------===//
//
// The tile-warp-specialize pass: materialization, the last of the
// warp-specialization steps. It takes the loop tile-insert-channels
// prepared (one loop, its ops tagged with the partitions that run them,
// channels between them; see TileInsertChannels.cpp) and builds the
// regions that run it:
//
//   %ch, %ringA, %ringB = tgpu.channel consumer_warps W kind <...> : ...
//   tgpu.warp_specialize producer(warps = 4, regs = 40) {
//     <the scalar code the load partition needs, cloned>
//     scf.for %k ... (%i) {            i: the use counter
//       <the load partition's ops, in body order: acquires, TMA copies>
//     }
//   } consumer(regs = R) {
//     <the kernel's code, the load partition's ops erased, and the loop in
//      a branch taken when it runs at all (ptxas serializes wgmma, C7515,
//      where a path that skips the loop joins before the last wait)>
//   }
//
// The partition schedule's decisions are read from the IR: in a kernel
// with `tgpu.persistent`, both regions walk the program's tiles (grouped
// rasterization; the use counters, %i0 and the once-tile index %t0 of
// tile-insert-channels, running on across tiles); a compute partition of
// `copies = 2` runs as two ping-ponging consumer warpgroups; channels with
// `cluster` get cluster barriers around the regions.
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"


#include <array>

#define DEBUG_TYPE "tile-warp-specialize"

namespace tilec {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

constexpr int kProducerWarps = 4;
constexpr int kProducerRegs = 40;

/// A (checked) grid expression of `func` as i32 arithmetic; `sms` has no
/// in-kernel value (callers exclude it).
Value emitGridExpr(OpBuilder &b, Location loc, func::FuncOp func,
                   GridExprAttr e) {
  switch (e.getOp()) {
  case GridOp::Literal:
  case GridOp::Sms:
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), e.getValue());
  case GridOp::Dim:
    return DimOp::create(b, loc, func.getArgument(e.getValue()), e.getAxis());
  case GridOp::Arg: {
    Value arg = func.getArgument(e.getValue());
    unsigned bits = arg.getType().getIntOrFloatBitWidth();
    if (bits > 32)
      return arith::TruncIOp::create(b, loc, b.getI32Type(), arg);
    if (bits < 32)
      return arith::ExtSIOp::create(b, loc, b.getI32Type(), arg);
    return arg;
  }
  default:
    break;
  }
  Value x = emitGridExpr(b, loc, func, e.lhs());
  Value y = emitGridExpr(b, loc, func, e.rhs());
  switch (e.getOp()) {
  case GridOp::CDiv:
    return arith::CeilDivSIOp::create(b, loc, x, y);
  case GridOp::Div:
    return arith::FloorDivSIOp::create(b, loc, x, y);
  case GridOp::Add:
    return arith::AddIOp::create(b, loc, x, y);
  case GridOp::Sub:
    return arith::SubIOp::create(b, loc, x, y);
  case GridOp::Mul:
    return arith::MulIOp::create(b, loc, x, y);
  case GridOp::Min:
    return arith::MinSIOp::create(b, loc, x, y);
  default:
    return arith::MaxSIOp::create(b, loc, x, y);
  }
}

/// A persistent schedule: a grid of min(SMs, tiles) programs, each walking
/// tiles t = program_id, + num_programs, ... of the original gx x gy grid in
/// groups of kGroupM rows of tiles (tiles sharing A rows and B columns run
/// at about the same time, so they meet in L2).
struct Persistent {
  static constexpr int64_t kGroupM = 8;
  GridExprAttr gx, gy; // the original grid's x and y extents
  int cluster = 1;     // programs a cluster (along x)

  /// The persistent grid: min(SMs, tiles), in whole clusters.
  GridAttr grid() const {
    MLIRContext *ctx = gx.getContext();
    auto lit = [&](int64_t v) { return GridExprAttr::literal(ctx, v); };
    auto call = GridExprAttr::call;
    GridExprAttr sms = GridExprAttr::sms(ctx), x;
    if (cluster == 1) {
      x = call(GridOp::Min, sms, call(GridOp::Mul, gx, gy));
    } else {
      GridExprAttr c = lit(cluster);
      GridExprAttr pairs = call(GridOp::Mul, call(GridOp::CDiv, gx, c), gy);
      x = call(GridOp::Mul,
               call(GridOp::Min, call(GridOp::Div, sms, c), pairs), c);
    }
    return GridAttr::get(ctx, {x, lit(1), lit(1)});
  }

  /// The schedule of a kernel tile-partition-schedule marked
  /// tgpu.persistent (none for any other).
  static std::optional<Persistent> plan(func::FuncOp func) {
    if (!func->hasAttr(tgpu::kPersistentAttr))
      return std::nullopt;
    auto grid = func->getAttrOfType<GridAttr>(kGridAttr);
    Persistent p;
    p.gx = grid.axis(0);
    p.gy = grid.axis(1);
    return p;
  }

  /// The tile loop at `b` (one i32 iter_arg, starting at 0) and the
  /// program ids (x, y) of its current tile. With `copies` consumer copies,
  /// copy `copy` takes every copies-th of the program's tiles, starting
  /// with its copy-th; `count` receives how many tiles the program has,
  /// `ordinal` the current tile's place among them (0, 1, ...).
  std::pair<scf::ForOp, std::array<Value, 2>>
  wrap(OpBuilder &b, Location loc, func::FuncOp func, Value copy = {},
       int copies = 1, Value *count = nullptr, Value *ordinal = nullptr) {
    Value nx = emitGridExpr(b, loc, func, gx);
    Value ny = emitGridExpr(b, loc, func, gy);
    Value first = ProgramIdOp::create(b, loc, 0);
    Value stride = NumProgramsOp::create(b, loc, 0);
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    // In clusters of `cluster` programs along x, the cluster walks tiles of
    // `cluster` rows of tiles; program rank r takes row r of each.
    Value rank;
    if (cluster > 1) {
      Value cl = arith::ConstantIntOp::create(b, loc, b.getI32Type(), cluster);
      rank = arith::RemUIOp::create(b, loc, first, cl);
      first = arith::DivUIOp::create(b, loc, first, cl);
      stride = arith::DivUIOp::create(b, loc, stride, cl);
      nx = arith::CeilDivSIOp::create(b, loc, nx, cl);
    }
    Value tiles = arith::MulIOp::create(b, loc, nx, ny);
    if (count) {
      // ceil((tiles - first) / stride), first < tiles for every program.
      Value left = arith::SubIOp::create(b, loc, tiles, first);
      *count = arith::CeilDivSIOp::create(b, loc, left, stride);
    }
    Value first0 = first, stride0 = stride;
    if (copy) {
      first = arith::AddIOp::create(
          b, loc, first, arith::MulIOp::create(b, loc, copy, stride));
      stride = arith::MulIOp::create(
          b, loc, stride,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), copies));
    }
    auto loop = scf::ForOp::create(b, loc, first, tiles, stride,
                                   ValueRange{zero});
    OpBuilder ib = OpBuilder::atBlockBegin(loop.getBody());
    Value t = loop.getInductionVar();
    if (ordinal)
      *ordinal = arith::DivUIOp::create(
          ib, loc, arith::SubIOp::create(ib, loc, t, first0), stride0);
    Value group = arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), kGroupM);
    Value perGroup = arith::MulIOp::create(ib, loc, group, ny);
    Value groupId = arith::DivUIOp::create(ib, loc, t, perGroup);
    Value firstM = arith::MulIOp::create(ib, loc, groupId, group);
    Value rows = arith::MinSIOp::create(
        ib, loc, arith::SubIOp::create(ib, loc, nx, firstM), group);
    Value inGroup = arith::RemUIOp::create(ib, loc, t, perGroup);
    Value px = arith::AddIOp::create(
        ib, loc, firstM, arith::RemUIOp::create(ib, loc, inGroup, rows));
    Value py = arith::DivUIOp::create(ib, loc, inGroup, rows);
    if (cluster > 1)
      px = arith::AddIOp::create(
          ib, loc,
          arith::MulIOp::create(
              ib, loc, px,
              arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), cluster)),
          rank);
    return {loop, {px, py}};
  }
};

struct TileWarpSpecialize
    : public tilec::impl::TileWarpSpecializeBase<TileWarpSpecialize> {
  using Base::Base;

  void runOnOperation() override {
    bool wgmma = hasWGMMA(getTarget(getOperation()));
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      scf::ForOp loop = tgpu::scheduledLoop(func);
      if (wgmma && loop && failed(specialize(func, loop)))
        return signalPassFailure();
      // The partition schedule is consumed here.
      func.walk([&](Operation *op) {
        op->removeAttr(tgpu::kPartitionAttr);
        op->removeAttr(tgpu::kPartitionsAttr);
      });
      func->removeAttr(tgpu::kPersistentAttr);
      // A cluster the kernel asked for runs only with the specialized loop.
      auto cl = func->getAttrOfType<IntegerAttr>(kClusterAttr);
      if (cl && cl.getInt() > 1 && !func->hasAttr(kProducerWarpsAttr)) {
        mlir::emitRemark(func.getLoc())
            << "tile.cluster ignored: clusters need the warp-specialized "
               "TMA main loop (sm_90a)";
        func->removeAttr(kClusterAttr);
      }
    }
  }

  /// Whether `op` runs in partition `p` (of the scheduled loop it belongs
  /// to, or stands beside).
  static bool runsIn(Operation *op, int32_t p) {
    return llvm::is_contained(tgpu::getPartitions(op), p);
  }
  /// Whether only the load partition runs `op`.
  static bool loadOnly(Operation *op) {
    ArrayRef<int32_t> parts = tgpu::getPartitions(op);
    return parts.size() == 1 && parts[0] == tgpu::kLoadPartition;
  }

  // The kernel being specialized.
  scf::ForOp loop;
  /// The use counter's initial value (%i0, the loop's last init) and the
  /// use index of the tiles copied once (%t0, null if none): the
  /// persistent tile loop replaces them with values of the tile.
  Value counterInit, onceIndex;

  LogicalResult specialize(func::FuncOp func, scf::ForOp l) {
    MLIRContext *ctx = &getContext();
    loop = l;
    Location loc = loop.getLoc();
    int numWarps = getNumWarps(func);
    std::optional<Persistent> pers = Persistent::plan(func);
    int copies = tgpu::getComputeCopies(loop);
    if (copies > 1 && !pers)
      return loop.emitError() << "a compute partition of " << copies
                              << " copies takes turns over the persistent "
                                 "tile loop: the kernel needs "
                              << tgpu::kPersistentAttr;
    // tile-insert-channels put the channels (and the transposed views of
    // their buffers) at the top of the kernel, and the use counter last
    // among the loop's iter_args. The regions go after them.
    Block &entry = func.getBody().front();
    Operation *lastChannel = nullptr;
    bool clustered = false;
    for (Operation &op : entry) {
      if (!isa<tgpu::ChannelOp, tgpu::TransposeOp>(op))
        break;
      lastChannel = &op;
      if (auto ch = dyn_cast<tgpu::ChannelOp>(op))
        clustered |= ch.getCluster().has_value();
    }
    if (!lastChannel || loop.getInitArgs().empty() ||
        !loop.getInitArgs().back().getType().isInteger(32))
      return loop.emitError() << "a scheduled loop without channels: run "
                                 "tile-insert-channels first";
    counterInit = loop.getInitArgs().back();
    onceIndex = {};
    for (Operation &op : entry)
      if (auto wait = dyn_cast<tgpu::ChannelWaitOp>(op))
        onceIndex = wait.getIndex();
    if (auto cl = func->getAttrOfType<IntegerAttr>(kClusterAttr);
        cl && clustered) {
      if (!pers)
        return loop.emitError() << "a cluster of CTAs shares copies over the "
                                   "persistent tile loop: the kernel needs "
                                << tgpu::kPersistentAttr;
      pers->cluster = cl.getInt();
    }

    OpBuilder b(ctx);
    b.setInsertionPointAfter(lastChannel);
    // With clusters, no CTA signals or multicasts into another before its
    // barriers are initialized, nor leaves while the others may still.
    if (clustered)
      tgpu::ClusterSyncOp::create(b, loc);

    // Everything else of the kernel runs in the consumer region.
    int consumerRegs = std::min<int>(
        240, (65536 - 32 * kProducerWarps * kProducerRegs) /
                 (32 * numWarps * copies) / 8 * 8);
    auto ws = tgpu::WarpSpecializeOp::create(b, loc, kProducerWarps,
                                             kProducerRegs, consumerRegs);
    ws.setConsumerCopies(copies);
    Block *producer = new Block, *consumer = new Block;
    ws.getProducer().push_back(producer);
    ws.getConsumer().push_back(consumer);
    auto rest = std::next(Block::iterator(ws));
    consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                     rest, std::prev(entry.end()));
    // The store buffers belong to the consumers (each copy its own).
    SmallVector<Operation *> storeBuffers;
    for (Operation &op : *consumer)
      if (isa<tgpu::AllocOp>(op))
        storeBuffers.push_back(&op);

    if (pers && copies > 1) {
      buildPingPong(func, *pers, producer, consumer);
      func->setAttr(kConsumerGroupsAttr,
                    IntegerAttr::get(IntegerType::get(ctx, 32), copies));
      func->setAttr(kGridAttr, pers->grid());
    } else if (pers) {
      // Both partitions walk the same tiles: program (t % gx-group, ...)
      // for t = program_id, program_id + num_programs, ... < gx * gy; the
      // channel's use counter runs on across tiles.
      buildPersistentProducer(func, *pers, producer);
      Value ordinal;
      eraseLoadPartition(consumer);
      scf::ForOp cLoop = wrapConsumer(func, *pers, consumer, {}, 1, nullptr,
                                      onceIndex ? &ordinal : nullptr);
      Block *cBody = cLoop.getBody();
      Value cEnd = guardLoop(cLoop.getRegionIterArgs()[0], ordinal);
      OpBuilder cy = OpBuilder::atBlockEnd(cBody);
      scf::YieldOp::create(cy, loc, cEnd);
      func->setAttr(kGridAttr, pers->grid());
    } else {
      OpBuilder pb = OpBuilder::atBlockEnd(producer);
      splitProducer(pb, {}, nullptr, {});
      eraseLoadPartition(consumer);
      guardLoop({}, {});
    }
    for (Operation *op : llvm::reverse(storeBuffers))
      op->moveBefore(consumer, consumer->begin());
    if (clustered) {
      OpBuilder after(ws->getBlock(), std::next(Block::iterator(ws)));
      tgpu::ClusterSyncOp::create(after, loc);
    }
    func->setAttr(kProducerWarpsAttr,
                  IntegerAttr::get(IntegerType::get(ctx, 32), kProducerWarps));
    return success();
  }

  /// The producer's tile loop over the persistent schedule's tiles (its
  /// use counter running on across them).
  void buildPersistentProducer(func::FuncOp func, Persistent &pers,
                               Block *producer) {
    Location loc = loop.getLoc();
    OpBuilder pb = OpBuilder::atBlockEnd(producer);
    Value ordinal;
    auto [pLoop, pIds] = pers.wrap(pb, loc, func, {}, 1, nullptr,
                                   onceIndex ? &ordinal : nullptr);
    OpBuilder inner = OpBuilder::atBlockEnd(pLoop.getBody());
    Value pEnd =
        splitProducer(inner, pLoop.getRegionIterArgs()[0], &pIds, ordinal);
    scf::YieldOp::create(inner, loc, pEnd);
  }

  /// Moves the consumer region's code (after the insertion point's ops) into
  /// a tile loop over the persistent schedule's tiles (see Persistent::wrap
  /// for `copy`, `copies`, `count`), program ids x and y becoming the
  /// loop's tile coordinates.
  scf::ForOp wrapConsumer(func::FuncOp func, Persistent &pers, Block *consumer,
                          Value copy, int copies, Value *count,
                          Value *ordinal = nullptr) {
    Location loc = func.getLoc();
    OpBuilder cb(func.getContext());
    if (copy)
      cb.setInsertionPointAfterValue(copy);
    else
      cb.setInsertionPointToStart(consumer);
    auto [cLoop, cIds] =
        pers.wrap(cb, loc, func, copy, copies, count, ordinal);
    Block *cBody = cLoop.getBody();
    // Everything after the loop runs once a tile, but the wait for the
    // last TMA stores (tile-tma-store-epilogue) once a program.
    auto end = consumer->end();
    if (!consumer->empty() && isa<tgpu::TMAStoreWaitOp>(consumer->back()))
      end = std::prev(end);
    cBody->getOperations().splice(cBody->end(), consumer->getOperations(),
                                  std::next(Block::iterator(cLoop)), end);
    for (Operation &op : llvm::make_early_inc_range(*cBody))
      if (auto pid = dyn_cast<ProgramIdOp>(op))
        if (pid.getAxis() < 2) {
          pid.replaceAllUsesWith(cIds[pid.getAxis()]);
          pid.erase();
        }
    return cLoop;
  }

  /// The ping-pong schedule: the producer walks the program's tiles as in
  /// the cooperative one; consumer copy c (tgpu.consumer_index) takes the
  /// program's tiles c, c + 2, ... . Its use counter at its m-th tile is
  /// (2m + c) * iterations (every tile runs as many). The copies take turns
  /// at the main loop and at the epilogue (named barriers 8 + c and
  /// 10 + c), so one's epilogue runs while the other multiplies.
  void buildPingPong(func::FuncOp func, Persistent &pers, Block *producer,
                     Block *consumer) {
    Location loc = loop.getLoc();
    buildPersistentProducer(func, pers, producer);
    eraseLoadPartition(consumer);
    OpBuilder cb = OpBuilder::atBlockBegin(consumer);
    Value copy = tgpu::ConsumerIndexOp::create(cb, loc, cb.getI32Type());
    Value count;
    scf::ForOp cLoop = wrapConsumer(func, pers, consumer, copy, 2, &count);
    Block *cBody = cLoop.getBody();
    // m: the copy's tiles so far; g = 2m + c: the program's tile index.
    Value m = cLoop.getRegionIterArgs()[0];
    // Before the loop and the wait for its tile copied once, if any.
    Operation *head = loop;
    if (auto w = dyn_cast_or_null<tgpu::ChannelWaitOp>(loop->getPrevNode());
        w && w.getIndex() == onceIndex)
      head = w;
    OpBuilder lb(head);
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), v);
    };
    Value two = cst(2), one = cst(1), zero = cst(0);
    Value g = arith::AddIOp::create(lb, loc,
                                    arith::MulIOp::create(lb, loc, m, two), copy);
    Value span = arith::SubIOp::create(lb, loc, loop.getUpperBound(),
                                       loop.getLowerBound());
    Value iters = arith::MaxSIOp::create(
        lb, loc, arith::CeilDivSIOp::create(lb, loc, span, loop.getStep()),
        zero);
    Value iStart = arith::MulIOp::create(lb, loc, g, iters);
    Value first = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq, g,
                                        zero);
    Value notFirst = arith::XOrIOp::create(
        lb, loc, first, arith::ConstantIntOp::create(lb, loc, lb.getI1Type(), 1));
    Value hasNext = arith::CmpIOp::create(
        lb, loc, arith::CmpIPredicate::slt,
        arith::AddIOp::create(lb, loc, g, one), count);
    Value other = arith::SubIOp::create(lb, loc, one, copy);
    auto turn = [&](OpBuilder &ob, Value cond, int64_t base, Value who,
                    bool wait) {
      auto ifOp = scf::IfOp::create(ob, loc, TypeRange{}, cond, false);
      OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
      Value id = arith::AddIOp::create(
          ib, loc, who, arith::ConstantIntOp::create(ib, loc, ib.getI32Type(),
                                                     base));
      int32_t threads = 2 * 32 * getNumWarps(func);
      if (wait)
        tgpu::NamedBarrierWaitOp::create(ib, loc, id, threads);
      else
        tgpu::NamedBarrierArriveOp::create(ib, loc, id, threads);
    };
    // Wait for the main-loop turn, multiply, pass the turn on.
    turn(lb, notFirst, kMmaTurn, copy, true);
    Value end = guardLoop(iStart, g);
    Operation *guard = end.getDefiningOp();
    OpBuilder ab(guard->getContext());
    ab.setInsertionPointAfter(guard);
    turn(ab, hasNext, kMmaTurn, other, false);
    // The same for the epilogue (the rest of the tile's code).
    turn(ab, notFirst, kEpilogueTurn, copy, true);
    OpBuilder yb = OpBuilder::atBlockEnd(cBody);
    turn(yb, hasNext, kEpilogueTurn, other, false);
    scf::YieldOp::create(
        yb, loc, ValueRange{arith::AddIOp::create(
                     yb, loc, m, arith::ConstantIntOp::create(
                                     yb, loc, yb.getI32Type(), 1))});
  }

  /// Named barriers of the ping-pong turns (8 + copy, 10 + copy; the
  /// lowering's partitions use 1..3).
  static constexpr int64_t kMmaTurn = 8, kEpilogueTurn = 10;

  /// The load partition at `b`: the scalar code it needs from outside the
  /// loop (program ids x and y replaced by `ids`), its ops beside the loop
  /// (the tiles copied once) and a loop of its ops, in program order; its
  /// use counter starts at `iStart` (else the loop's own %i0), the tiles
  /// copied once are use `ordinal` (else %t0). Returns the counter after
  /// the loop.
  Value splitProducer(OpBuilder &b, Value iStart,
                      const std::array<Value, 2> *ids, Value ordinal) {
    Location loc = loop.getLoc();
    Block *body = loop.getBody();
    IRMapping map;
    if (iStart)
      map.map(counterInit, iStart);
    if (ordinal && onceIndex)
      map.map(onceIndex, ordinal);
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
    for (Operation &op : *loop->getBlock())
      if (&op != loop.getOperation() && runsIn(&op, tgpu::kLoadPartition)) {
        requireOperands(&op);
        if (op.getNumResults() == 0 || !map.contains(op.getResult(0)))
          needed.insert(&op);
      }
    for (Operation &op : body->without_terminator())
      if (runsIn(&op, tgpu::kLoadPartition))
        requireOperands(&op);
    SmallVector<Operation *> ordered(needed.begin(), needed.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    for (Operation *op : ordered) {
      auto pid = dyn_cast<ProgramIdOp>(op);
      if (ids && pid && pid.getAxis() < 2)
        map.map(pid.getResult(), (*ids)[pid.getAxis()]);
      else
        b.clone(*op, map);
    }

    // The loop, carrying the use counter alone.
    auto ploop = scf::ForOp::create(
        b, loc, map.lookupOrDefault(loop.getLowerBound()),
        map.lookupOrDefault(loop.getUpperBound()),
        map.lookupOrDefault(loop.getStep()),
        ValueRange{map.lookupOrDefault(counterInit)});
    OpBuilder lb = OpBuilder::atBlockBegin(ploop.getBody());
    map.map(loop.getInductionVar(), ploop.getInductionVar());
    map.map(loop.getRegionIterArgs().back(), ploop.getRegionIterArgs()[0]);
    for (Operation &op : body->without_terminator())
      if (runsIn(&op, tgpu::kLoadPartition))
        lb.clone(op, map);
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    scf::YieldOp::create(lb, loc,
                         ValueRange{map.lookup(yield.getOperands().back())});
    return ploop.getResult(0);
  }

  /// Erases the ops only the load partition runs from the consumer region
  /// (they live on in the producer).
  void eraseLoadPartition(Block *consumer) {
    SmallVector<Operation *> dead;
    for (Operation &op : *consumer)
      if (loadOnly(&op))
        dead.push_back(&op);
    for (Operation &op : loop.getBody()->without_terminator())
      if (loadOnly(&op))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead)) {
      op->dropAllUses();
      op->erase();
    }
  }

  /// Puts the loop, and the ops after it that read its results (the last
  /// MMAs' wait, the last release), in a branch taken when it runs: ptxas
  /// serializes wgmma (C7515) when a path that skips the loop (defining
  /// the accumulators otherwise) joins before the wait. The use counter
  /// starts at `iStart` and the tiles copied once are use `ordinal` where
  /// given (the persistent tile loop's). Returns the counter after it.
  Value guardLoop(Value iStart, Value ordinal) {
    Location loc = loop.getLoc();
    if (iStart && iStart != counterInit) {
      Operation *def = counterInit.getDefiningOp();
      counterInit.replaceAllUsesWith(iStart);
      if (def && def->use_empty())
        def->erase();
      counterInit = iStart;
    }
    if (ordinal && onceIndex && ordinal != onceIndex) {
      Operation *def = onceIndex.getDefiningOp();
      onceIndex.replaceAllUsesWith(ordinal);
      if (def && def->use_empty())
        def->erase();
      onceIndex = ordinal;
    }
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
    return guard.getResults().back();
  }
};
} // namespace
