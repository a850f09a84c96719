//===- TileWarpSpecialize.cpp - TMA producer, wgmma consumers -------------===//
//
// The tile-warp-specialize pass. The loop tile-partition-schedule
// scheduled (it checked the loop qualifies; tile-plain-twin and
// tile-tma-store-epilogue ran on the kernel since), e.g. a GEMM's
//
//   %acc = scf.for %k = ... iter_args(%c = %init) {
//     %a = tile.load %A[...]   %b = tile.load %B[...]   (partition 0)
//     %d = tile.dot %a, %b, %c                          (partition 1)
//     scf.yield %d
//   } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
//   <epilogue>
//
// becomes
//
//   %ch, %ringA, %ringB = tgpu.channel consumer_warps W   (NVMMA-swizzled
//                                                       slots, depth open)
//   tgpu.warp_specialize producer(warps = 4, regs = 40) {
//     <index computations, cloned>
//     scf.for %k ... (%i) {            i: the use counter
//       %s = tgpu.channel_acquire %ch[%i]
//       tgpu.tma_load %A[...] -> %ringA[%s], %ch   (and B)
//     }
//   } consumer(regs = R) {
//     <the kernel's code, with the loop replaced by>
//     scf.for %k ... (%c, %i) {
//       %s = tgpu.channel_wait %ch[%i]
//       %d = tgpu.wgmma %ringA[%s], %ringB[%s], %c
//       tgpu.wgmma_wait {pendings = 1}     // the previous use's MMAs done
//       if i > 0: tgpu.channel_release %ch[%i - 1]
//     }
//     tgpu.wgmma_wait %acc {pendings = 0}
//     <epilogue>
//   }
//
// tile-pipeline chooses the channel's depth and lowers it to rings with
// full/empty mbarriers.
// The loaded views become TMA views (their box: the slot, the innermost dim
// cut to the swizzle span).
//
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

/// One operand of a dot that TMA brings in.
struct Operand {
  LoadOp load;
  bool transposed; // the dot reads the loaded tile transposed
  bool multicast = false; // shared by the CTAs of a cluster
  bool isB = false;       // a B operand (the one clusters share)
  bool once = false;      // loaded before the loop, once a tile
  int channel = -1;       // the loop channel it goes through (not once)
  BlockArgument view; // the kernel argument
  tgpu::TMASlot slot; // its box, swizzle and one slot of the ring
  Value ring;
};

/// A dot of the loop and where its operands come from: indices into
/// Candidate::operands; A's is -1 where wgmma reads A from registers.
struct MMA {
  DotOp dot;
  int a, b;
};

struct Candidate {
  scf::ForOp loop;
  SmallVector<MMA> mmas;
  SmallVector<Operand> operands; // the TMA-copied operands of the dots
  /// Whether the compute partition uses an MMA's result in the iteration
  /// that issues it (math on the accumulator, an accumulator not carried
  /// by the loop alone): each MMA is then waited for at once, and the use
  /// released in its own iteration; else one MMA group stays in flight.
  bool usesResultsInLoop = false;
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

/// The slot of a load convert-tile-to-tgpu planned a TMA copy for (rows
/// along the view's contiguous dim, the widest swizzle the row fills);
/// wgmma operands are 2-d tiles (of views of any rank: a box with leading
/// 1s fills a 2-d slot).
std::optional<Operand> planOperand(LoadOp load, std::string &why) {
  auto view = cast<BlockArgument>(load.getTensor());
  FailureOr<tgpu::TMASlot> slot = tgpu::planTMASlot(
      cast<RankedTensorType>(load.getType()), why, /*squeeze=*/true);
  if (failed(slot))
    return std::nullopt;
  if (slot->type.getSlotShape().size() != 2) {
    why = "a dot operand is not a 2-d tile of its view";
    return std::nullopt;
  }
  Operand o;
  o.load = load;
  o.view = view;
  o.slot = *slot;
  return o;
}

std::optional<Candidate> match(scf::ForOp loop, std::string &why) {
  Candidate c;
  c.loop = loop;
  Block *body = loop.getBody();
  SmallVector<DotOp> dots;
  for (Operation &op : body->without_terminator())
    if (auto dot = dyn_cast<DotOp>(op))
      dots.push_back(dot);
  // tile-partition-schedule scheduled the loop (it qualifies): the load
  // partition issues the copies, the compute partition runs the dots and
  // side-effect-free math.
  for (DotOp dot : dots) {
    tgpu::MMAAttr mma = tgpu::getMMA(dot);
    if (!carriedAlone(dot, body))
      c.usesResultsInLoop = true;
    MMA m{dot, -1, -1};
    for (auto [idx, v] : llvm::enumerate(ValueRange{dot.getA(), dot.getB()})) {
      if (idx == 0 && mma.getA() == tgpu::OperandSource::Registers) {
        // A register A is math of the compute partition (or computed
        // before the loop), read where the dot stands.
        c.usesResultsInLoop |= bool(dot.getA().getDefiningOp()) &&
                               dot.getA().getDefiningOp()->getBlock() == body;
        continue;
      }
      bool transposed;
      LoadOp load = operandLoad(v, transposed);
      // A copy before the loop the partition schedule gave to the load
      // partition is issued once a tile, before the loop.
      bool once = load->getBlock() == loop->getBlock() &&
                  load->isBeforeInBlock(loop) &&
                  tgpu::inRole(load, loop, tgpu::PartitionRole::Load);
      if (load->getBlock() != body && !once) {
        why = "a dot operand is not loaded in the loop (nor copied once "
              "before it)";
        return std::nullopt;
      }
      auto known = llvm::find_if(c.operands, [&](const Operand &o) {
        return o.load == load && o.transposed == transposed;
      });
      if (known != c.operands.end()) { // one copy for every dot reading it
        (idx == 0 ? m.a : m.b) = known - c.operands.begin();
        continue;
      }
      std::optional<Operand> o = planOperand(load, why);
      if (!o)
        return std::nullopt;
      o->transposed = transposed;
      o->isB = idx == 1;
      o->once = once;
      (idx == 0 ? m.a : m.b) = c.operands.size();
      c.operands.push_back(*o);
    }
    c.mmas.push_back(m);
  }
  // Math in the loop reads an MMA's result in its iteration.
  for (Operation &op : body->without_terminator())
    if (!isa<DotOp, ConvertLayoutOp, TransposeOp, ReshapeOp>(op) &&
        !isScalarPure(&op) &&
        !tgpu::inRole(&op, loop, tgpu::PartitionRole::Load))
      c.usesResultsInLoop = true;
  return c;
}

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
      if (wgmma && !func->hasAttr(kPlainVariantOfAttr) &&
          failed(specializeKernel(func)))
        return signalPassFailure();
      // wgmma runs only in a specialized loop (so far): dots left behind
      // (loops not specialized, plain twins) are selected for mma.sync.
      // The partition schedule is consumed here (loops left alone run
      // every op in every warp).
      func.walk([&](Operation *op) {
        auto dot = dyn_cast<DotOp>(op);
        if (dot && tgpu::getMMA(dot).isWGMMA())
          dot->setAttr(tgpu::kMMAAttr, tgpu::MMAAttr::mmaSync(&getContext()));
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

  /// Specializes the kernel's scheduled loop (tile-partition-schedule said
  /// why about the loops it did not schedule).
  LogicalResult specializeKernel(func::FuncOp func) {
    scf::ForOp loop = tgpu::scheduledLoop(func);
    if (!loop)
      return success();
    std::string why;
    std::optional<Candidate> c = match(loop, why);
    if (c)
      return specialize(func, *c, getNumWarps(func));
    mlir::emitRemark(loop.getLoc())
        << variantPrefix(func) << "not warp-specialized (TMA and wgmma not used): "
        << why;
    return success();
  }


  /// The cluster size the kernel asks for (tile.cluster) if it can run:
  /// clusters of programs along x share every B operand, each CTA copying
  /// its share of B's boxes and multicasting them. Says why not otherwise.
  int useCluster(func::FuncOp func, Candidate &c,
                 std::optional<Persistent> &pers) {
    auto a = func->getAttrOfType<IntegerAttr>(kClusterAttr);
    if (!a || a.getInt() < 2)
      return 1;
    int n = a.getInt();
    std::string why;
    if (!pers)
      why = "it needs the persistent tile loop";
    for (const Operand &o : c.operands) {
      if (!why.empty() || !o.isB)
        continue;
      if ((o.slot.type.getSlotShape().back() / o.slot.box.back()) % n)
        why = "a B slot is not a multiple of " + std::to_string(n) +
              " TMA boxes wide";
    }
    if (!why.empty()) {
      mlir::emitRemark(c.loop.getLoc())
          << variantPrefix(func) << "cluster of " << n << " not used: " << why;
      func->removeAttr(kClusterAttr);
      return 1;
    }
    for (Operand &o : c.operands)
      o.multicast = o.isB;
    pers->cluster = n;
    return n;
  }

  /// Programs a cluster of the kernel being specialized.
  int cluster = 1;

  LogicalResult specialize(func::FuncOp func, Candidate &c, int numWarps) {
    MLIRContext *ctx = &getContext();
    Location loc = c.loop.getLoc();
    scf::ForOp loop = c.loop;
    std::optional<Persistent> pers = Persistent::plan(func);
    int copies = tgpu::getComputeCopies(loop);
    if (copies > 1 && !pers)
      return loop.emitError() << "a compute partition of " << copies
                              << " copies takes turns over the persistent "
                                 "tile loop: the kernel needs "
                              << tgpu::kPersistentAttr;
    cluster = useCluster(func, c, pers);

    // Views become TMA views.
    for (Operand &o : c.operands) {
      auto vt = cast<TensorViewType>(o.view.getType());
      setArgumentType(func, o.view, vt.withTMA(o.slot.box, o.slot.swizzle));
    }

    // The channels at the top of the kernel, a buffer per operand,
    // released by every consumer warp (of each CTA of a cluster);
    // tile-pipeline chooses their depths. Where MMAs stay in flight across
    // iterations (GEMM), one channel carries a use's operands, released
    // together; where the loop's math waits for each MMA (attention), each
    // MMA's operands have a channel of their own, released as soon as that
    // MMA is done (K's slot frees while P·V still reads V's).
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    chans.clear();
    for (MMA &mma : c.mmas) {
      SmallVector<Operand *> fresh;
      for (int idx : {mma.a, mma.b})
        if (idx >= 0 && !c.operands[idx].once &&
            c.operands[idx].channel < 0)
          fresh.push_back(&c.operands[idx]);
      if (fresh.empty())
        continue;
      if (!c.usesResultsInLoop && !chans.empty()) {
        for (Operand *o : fresh)
          o->channel = 0;
        continue;
      }
      for (Operand *o : fresh)
        o->channel = chans.size();
      chans.push_back({});
    }
    // A channel over the operands `in` selects, their rings set.
    auto makeChannel = [&](llvm::function_ref<bool(const Operand &)> in,
                           IntegerAttr clusterAttr, IntegerAttr depth) {
      SmallVector<Type> types;
      for (Operand &o : c.operands)
        if (in(o))
          types.push_back(o.slot.type.withNumSlots(ShapedType::kDynamic));
      auto channel = tgpu::ChannelOp::create(
          b, loc, tgpu::ChannelType::get(ctx), types,
          b.getI64IntegerAttr(numWarps), clusterAttr, depth,
          tgpu::ChannelKindAttr::get(ctx, tgpu::FillKind::TMA,
                                     tgpu::ReleaseKind::MMA));
      auto ring = channel.getBuffers().begin();
      for (Operand &o : c.operands)
        if (in(o))
          o.ring = *ring++;
      return channel.getChannel();
    };
    IntegerAttr clusterAttr =
        cluster > 1 ? b.getI32IntegerAttr(cluster) : IntegerAttr();
    for (auto [k, chan] : llvm::enumerate(chans)) {
      int id = k;
      chan = makeChannel([&](const Operand &o) { return o.channel == id; },
                         clusterAttr, IntegerAttr());
    }
    // The tiles copied once a loop go through a channel of their own, a
    // use a tile: one slot each consumer copy (each copy works on its own
    // tile; not multicast).
    onceCh = {};
    if (llvm::any_of(c.operands, [](const Operand &o) { return o.once; }))
      onceCh = makeChannel([](const Operand &o) { return o.once; },
                           IntegerAttr(), b.getI64IntegerAttr(copies));
    // With clusters, no CTA signals or multicasts into another before its
    // barriers are initialized, nor leaves while the others may still.
    if (cluster > 1)
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
      buildPingPong(func, c, *pers, producer, consumer);
      func->setAttr(kConsumerGroupsAttr,
                    IntegerAttr::get(IntegerType::get(ctx, 32), copies));
      func->setAttr(kGridAttr, pers->grid());
    } else if (pers) {
      // Both partitions walk the same tiles: program (t % gx-group, ...)
      // for t = program_id, program_id + num_programs, ... < gx * gy; the
      // channel's use counter runs on across tiles.
      buildPersistentProducer(func, c, *pers, producer);
      Value ordinal;
      scf::ForOp cLoop = wrapConsumer(func, *pers, consumer, {}, 1, nullptr,
                                      onceCh ? &ordinal : nullptr);
      Block *cBody = cLoop.getBody();
      Value cEnd = buildConsumer(c, cLoop.getRegionIterArgs()[0], ordinal);
      OpBuilder cy = OpBuilder::atBlockEnd(cBody);
      scf::YieldOp::create(cy, loc, cEnd);
      func->setAttr(kGridAttr, pers->grid());
    } else {
      OpBuilder pb = OpBuilder::atBlockEnd(producer);
      Value zero = arith::ConstantIntOp::create(pb, loc, pb.getI32Type(), 0);
      buildProducer(pb, c, zero, nullptr, zero);
      OpBuilder cb(c.loop);
      Value czero = arith::ConstantIntOp::create(cb, loc, cb.getI32Type(), 0);
      buildConsumer(c, czero, czero);
    }
    for (Operation *op : llvm::reverse(storeBuffers))
      op->moveBefore(consumer, consumer->begin());
    // The tiles copied once reach the MMAs through their channel now.
    for (Operand &o : c.operands)
      if (o.once)
        eraseUnused(o.load);
    if (cluster > 1) {
      OpBuilder after(ws->getBlock(), std::next(Block::iterator(ws)));
      tgpu::ClusterSyncOp::create(after, loc);
    }
    func->setAttr(kProducerWarpsAttr,
                  IntegerAttr::get(IntegerType::get(ctx, 32), kProducerWarps));
    return success();
  }

  /// The producer's tile loop over the persistent schedule's tiles (its
  /// use counter running on across them).
  void buildPersistentProducer(func::FuncOp func, Candidate &c,
                               Persistent &pers, Block *producer) {
    Location loc = c.loop.getLoc();
    OpBuilder pb = OpBuilder::atBlockEnd(producer);
    Value ordinal;
    auto [pLoop, pIds] = pers.wrap(pb, loc, func, {}, 1, nullptr,
                                   onceCh ? &ordinal : nullptr);
    OpBuilder inner = OpBuilder::atBlockEnd(pLoop.getBody());
    Value pEnd = buildProducer(inner, c, pLoop.getRegionIterArgs()[0],
                               &pIds, ordinal);
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
  void buildPingPong(func::FuncOp func, Candidate &c, Persistent &pers,
                     Block *producer, Block *consumer) {
    Location loc = c.loop.getLoc();
    buildPersistentProducer(func, c, pers, producer);
    OpBuilder cb = OpBuilder::atBlockBegin(consumer);
    Value copy = tgpu::ConsumerIndexOp::create(cb, loc, cb.getI32Type());
    Value count;
    scf::ForOp cLoop = wrapConsumer(func, pers, consumer, copy, 2, &count);
    Block *cBody = cLoop.getBody();
    // m: the copy's tiles so far; g = 2m + c: the program's tile index.
    Value m = cLoop.getRegionIterArgs()[0];
    OpBuilder lb(c.loop);
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), v);
    };
    Value two = cst(2), one = cst(1), zero = cst(0);
    Value g = arith::AddIOp::create(lb, loc,
                                    arith::MulIOp::create(lb, loc, m, two), copy);
    Value span = arith::SubIOp::create(lb, loc, c.loop.getUpperBound(),
                                       c.loop.getLowerBound());
    Value iters = arith::MaxSIOp::create(
        lb, loc, arith::CeilDivSIOp::create(lb, loc, span, c.loop.getStep()),
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
    Value end = buildConsumer(c, iStart, g);
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

  /// The producer's loop at `b`, its use counter starting at `iStart`;
  /// returns the counter after it. `ids` replaces program_id x and y.
  Value buildProducer(OpBuilder &b, Candidate &c, Value iStart,
                      const std::array<Value, 2> *ids, Value ordinal) {
    scf::ForOp loop = c.loop;
    Location loc = loop.getLoc();
    IRMapping map;
    // Clone what the bounds and the loads' indices need from outside the
    // loop (scalar code of the kernel), in program order.
    SetVector<Operation *> needed;
    std::function<void(Value)> require = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() == loop.getBody() || needed.contains(def))
        return;
      if (def->getParentOp() != loop->getParentOp())
        return;
      for (Value o : def->getOperands())
        require(o);
      needed.insert(def);
    };
    for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      require(v);
    for (Operand &o : c.operands)
      for (Value idx : o.load.getOffsets()) {
        SetVector<Operation *> inner;
        std::function<void(Value)> walk = [&](Value v) {
          Operation *def = v.getDefiningOp();
          if (!def)
            return;
          if (def->getBlock() == loop.getBody()) {
            for (Value x : def->getOperands())
              walk(x);
          } else {
            require(v);
          }
        };
        walk(idx);
      }
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

    // The tiles copied once: use `ordinal` of their channel.
    if (onceCh) {
      Value slot = tgpu::ChannelAcquireOp::create(b, loc, onceCh, ordinal);
      for (Operand &o : c.operands)
        if (o.once)
          emitCopy(b, o, slot, onceCh, map);
    }
    auto ploop = scf::ForOp::create(
        b, loc, map.lookupOrDefault(loop.getLowerBound()),
        map.lookupOrDefault(loop.getUpperBound()),
        map.lookupOrDefault(loop.getStep()), ValueRange{iStart});
    OpBuilder lb = OpBuilder::atBlockBegin(ploop.getBody());
    map.map(loop.getInductionVar(), ploop.getInductionVar());
    Value i = ploop.getRegionIterArgs()[0];
    // The loads' index arithmetic, then each channel's copies.
    for (Operation &op : loop.getBody()->without_terminator())
      if (!isa<LoadOp>(op) &&
          tgpu::inRole(&op, loop, tgpu::PartitionRole::Load))
        lb.clone(op, map);
    for (auto [k, ch] : llvm::enumerate(chans)) {
      Value slot = tgpu::ChannelAcquireOp::create(lb, loc, ch, i);
      for (Operand &o : c.operands)
        if (o.channel == int(k))
          emitCopy(lb, o, slot, ch, map);
    }
    Value one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
    scf::YieldOp::create(lb, loc,
                         ValueRange{arith::AddIOp::create(lb, loc, i, one)});
    return ploop.getResult(0);
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

  /// The TMA copy of `o` into `slot` of its buffer, completing on `ch`.
  void emitCopy(OpBuilder &b, Operand &o, Value slot, Value ch,
                IRMapping &map) {
    SmallVector<Value> coords;
    for (Value idx : o.load.getOffsets())
      coords.push_back(map.lookupOrDefault(idx));
    tgpu::TMALoadOp::create(
        b, o.load.getLoc(), o.view, coords, o.ring, slot, ch,
        o.multicast ? b.getI32IntegerAttr(cluster) : IntegerAttr());
  }

  /// The loop's channels (Operand::channel indexes them) and the channel
  /// of the tiles copied once a loop (null if none).
  SmallVector<Value> chans;
  Value onceCh;

  /// Replaces the loop in place, its use counter starting at `iStart`, the
  /// tiles copied once being use `ordinal` of theirs; returns the counter
  /// after it.
  Value buildConsumer(Candidate &c, Value iStart, Value ordinal) {
    scf::ForOp loop = c.loop;
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    // The tiles copied once: waited for before the loop, released after
    // its last MMA (also where it does not run: the producer copies them
    // either way).
    Value onceSlot;
    if (onceCh)
      onceSlot = tgpu::ChannelWaitOp::create(b, loc, onceCh, ordinal);
    // The loop and its final wait sit in a branch taken when it runs at
    // all: ptxas serializes wgmma (C7515) when a path that skips the loop
    // (defining the accumulators otherwise) joins before the wait.
    Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       loop.getLowerBound(),
                                       loop.getUpperBound());
    SmallVector<Type> guardTypes(loop.getResultTypes());
    guardTypes.push_back(b.getI32Type());
    auto guard = scf::IfOp::create(b, loc, guardTypes, runs,
                                   /*withElseRegion=*/true);
    SmallVector<Value> skipped(loop.getInitArgs());
    skipped.push_back(iStart);
    OpBuilder eb = OpBuilder::atBlockBegin(guard.elseBlock());
    scf::YieldOp::create(eb, loc, skipped);
    b.setInsertionPointToStart(guard.thenBlock());
    SmallVector<Value> inits(loop.getInitArgs());
    inits.push_back(iStart);
    auto nloop = scf::ForOp::create(b, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(), inits);
    Block *nbody = nloop.getBody();
    // Move the old body over (scalar code stays; loads and conversions die).
    Block *obody = loop.getBody();
    SmallVector<Value> repl = {nloop.getInductionVar()};
    for (Value a : nloop.getRegionIterArgs().drop_back())
      repl.push_back(a);
    nbody->getOperations().splice(nbody->begin(), obody->getOperations());
    for (auto [oldArg, newArg] : llvm::zip(obody->getArguments(), repl))
      oldArg.replaceAllUsesWith(newArg);
    auto yield = cast<scf::YieldOp>(nbody->getTerminator());
    Value i = nloop.getRegionIterArgs().back();

    // Each channel's use is waited for before the first MMA reading it,
    // and (where the math waits for each MMA) released after the last.
    OpBuilder lb(c.mmas.front().dot);
    SmallVector<Value> slots(chans.size());
    SmallVector<int> lastReader(chans.size(), -1);
    for (auto [m, mma] : llvm::enumerate(c.mmas))
      for (int idx : {mma.a, mma.b})
        if (idx >= 0 && !c.operands[idx].once)
          lastReader[c.operands[idx].channel] = m;
    for (auto [m, mma] : llvm::enumerate(c.mmas)) {
      DotOp dot = mma.dot;
      lb.setInsertionPoint(dot);
      auto slotOf = [&](const Operand &o) {
        if (o.once)
          return onceSlot;
        Value &slot = slots[o.channel];
        if (!slot)
          slot = tgpu::ChannelWaitOp::create(lb, loc, chans[o.channel], i);
        return slot;
      };
      Value a = dot.getA(), aSlot;
      if (mma.a >= 0) {
        a = mmaOperand(c.operands[mma.a]);
        aSlot = slotOf(c.operands[mma.a]);
      }
      const Operand &bo = c.operands[mma.b];
      Value bSlot = slotOf(bo);
      Value d = tgpu::WGMMAOp::create(lb, dot.getLoc(), dot.getType(), a,
                                      aSlot, mmaOperand(bo), bSlot,
                                      dot.getAcc());
      if (c.usesResultsInLoop) {
        // The math after it reads the result: wait for this MMA now; the
        // channels it was the last to read are free.
        auto w = tgpu::WGMMAWaitOp::create(lb, dot.getLoc(), ValueRange{d}, 0);
        d = w.getResult(0);
        for (auto [k, ch] : llvm::enumerate(chans))
          if (lastReader[k] == int(m))
            tgpu::ChannelReleaseOp::create(lb, loc, ch, i);
      }
      dot.getResult().replaceAllUsesWith(d);
      dot.erase();
    }
    lb.setInsertionPoint(yield);
    if (!c.usesResultsInLoop)
      tgpu::WGMMAWaitOp::create(lb, loc, ValueRange{}, 1);
    Value one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
    if (!c.usesResultsInLoop)
      releasePrevious(lb, loc, i, iStart, chans.front());
    SmallVector<Value> yields(yield.getOperands());
    yields.push_back(arith::AddIOp::create(lb, loc, i, one));
    scf::YieldOp::create(lb, loc, yields);
    yield.erase();
    // Dead loads and conversions.
    SmallVector<Operation *> dead;
    for (Operation &op : nbody->without_terminator())
      if (isa<LoadOp, ConvertLayoutOp, TransposeOp, ReshapeOp>(op))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();

    b.setInsertionPointAfter(nloop);
    SmallVector<Value> done(nloop.getResults());
    if (!c.usesResultsInLoop) {
      // The last use's MMAs are still in flight.
      SmallVector<Value> accs(nloop.getResults().drop_back());
      auto wait = tgpu::WGMMAWaitOp::create(b, loc, accs, 0);
      releasePrevious(b, loc, nloop.getResults().back(), iStart,
                      chans.front());
      done.assign(wait.getResults().begin(), wait.getResults().end());
      done.push_back(nloop.getResults().back());
    }
    scf::YieldOp::create(b, loc, done);
    loop.replaceAllUsesWith(guard.getResults().drop_back());
    loop.erase();
    if (onceCh) {
      b.setInsertionPointAfter(guard);
      tgpu::ChannelReleaseOp::create(b, loc, onceCh, ordinal);
    }
    return guard.getResults().back();
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

  /// if i > iStart: release use i - 1.
  static void releasePrevious(OpBuilder &b, Location loc, Value i, Value iStart,
                              Value ch) {
    Value started =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, i, iStart);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, started, false);
    OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
    Value prev = arith::SubIOp::create(
        ib, loc, i, arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), 1));
    tgpu::ChannelReleaseOp::create(ib, loc, ch, prev);
  }
};
} // namespace
