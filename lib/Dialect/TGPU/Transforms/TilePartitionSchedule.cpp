//===- TilePartitionSchedule.cpp - which partition runs each op -----------===//
//
// The tile-partition-schedule pass: the first of the warp-specialization
// steps. For a kernel's top-level loop with a dot tile-select-mma-and-tma
// selected wgmma for, it lists the loop's partitions and gives every op of
// the body the partitions that run it, by what the op is, not by matching
// the loop's shape:
//
//   scf.for ... {
//     %k2 = arith.addi %k, %c64        {tgpu.partition = array<i32: 0>}
//     %a = tile.load %A[%m, %k2] {tgpu.tma = ...}
//                                      {tgpu.partition = array<i32: 0>}
//     %d = tile.dot %a', %b', %acc     {tgpu.partition = array<i32: 1>}
//     %s = arith.mulf %d, ...          {tgpu.partition = array<i32: 1>}
//   } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
//
// TMA copies (loads with tgpu.tma, those before the loop too) go to the
// load partition (0); MMAs and everything else to the compute partition
// (1); side-effect-free scalar code goes to every partition that uses its
// result (the index arithmetic of the copies to the load partition; code
// both need to both, each partition computing its own copy); a profiled
// scope (tile.profile_begin/end, left only in profiled builds) to every
// partition that runs an op it encloses, the compute partition if none.
// Later steps insert a channel on every value that crosses partitions and
// build the warp-specialized regions.
//
// On sm_100a (tcgen05 dots) the MMAs get a partition of their own, the
// MMA partition (2), whose one thread issues them; the compute partition
// keeps the rest (the math on the MMAs' results, the epilogue), and the
// operand conversions that only feed dots go with the dots:
//
//   } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>,
//                         #tgpu.partition<mma>]}
//
// It also decides how the kernel runs, for the later steps to read: a
// kernel whose grid allows it walks its tiles persistently
// (`tgpu.persistent` on the function), and a kernel that asks for the
// ping-pong schedule gets a compute partition of two copies
// (`#tgpu.partition<compute, copies = 2>`) where that can run.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/ProfileRecords.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Analysis/SliceAnalysis.h"

#include <set>

#define DEBUG_TYPE "tile-partition-schedule"

namespace tilec {
#define GEN_PASS_DEF_TILEPARTITIONSCHEDULE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Whether the load partition may compute an index tile or a mask of its
/// copies with `op`: a tile load of a kernel argument (an index table,
/// masked or not), a gather of one (paged K's pages, through indices that
/// are index tiles too), a splat, iota, constant, broadcast, expand_dims
/// or conversion, or elementwise arith and math, of one tile result.
bool isIndexTileOp(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (auto load = dyn_cast<LoadOp>(op))
    return isa<BlockArgument>(load.getTensor());
  if (auto gather = dyn_cast<GatherOp>(op))
    return isa<BlockArgument>(gather.getTensor()) &&
           !tgpu::isThreadGather(op);
  if (isa<SplatOp, IotaOp, arith::ConstantOp, BroadcastOp, ExpandDimsOp,
          ConvertLayoutOp>(op))
    return true;
  return isMemoryEffectFree(op) && op->getNumRegions() == 0 &&
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

/// The stores after `loop` (its epilogue's) and the layout conversions
/// only they read (storedConversions), which make their writes wider.
std::pair<SmallVector<StoreOp>, SmallVector<Operation *>>
epilogueStoreConversions(scf::ForOp loop) {
  SmallVector<StoreOp> stores;
  SmallVector<Operation *> conversions;
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
    op->walk([&](StoreOp store) {
      if (!canStoreUnconverted(store))
        return;
      stores.push_back(store);
      llvm::append_range(conversions, storedConversions(store));
    });
  return {stores, conversions};
}

/// Why `loop` cannot be warp-specialized for want of shared memory, or
/// empty: two stages of its ring (the least a pipeline overlaps with) must
/// fit beside the rest of the kernel, the scratch of its epilogue included
/// (SharedMemoryPlan; a random-number epilogue converts 128 KiB), at the
/// least it can take. Where they fit only if the epilogue's stores write
/// their values as they are (narrower writes, once a program), `asIs`
/// gets those stores' conversions to drop; so where the kernel asks for a
/// deeper ring (`tile.num_stages`) that fits only so. Otherwise the kernel
/// keeps its plain loop, whose epilogue's scratch takes the ring's bytes
/// once the loop is done.
std::string ringDoesNotFit(func::FuncOp func, scf::ForOp loop, int copies,
                           const TargetInfo &target,
                           SmallVector<StoreOp> &asIs) {
  SmallVector<std::pair<Operation *, bool>> loads = sharedOperandLoads(loop);
  if (loads.empty())
    return "";
  // At least: the conversions only the epilogue's stores read may go with
  // TMA stores (tile-tma-store-epilogue, which then checks its staging).
  // Each store then takes the staging buffer or its conversions' scratch,
  // whichever tile-tma-store-epilogue keeps: at least the smaller (a 64x128
  // bf16 tile's staging is as large as its conversion: dropping both
  // admitted attention backward at D128 with two blocks an SM, whose ring
  // then did not fit).
  SmallVector<Operation *> storeConversions;
  int64_t staging = 0;
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
    op->walk([&](StoreOp store) {
      if (std::optional<int64_t> b = tmaStoreStagingBytes(store)) {
        llvm::append_range(storeConversions, storedConversions(store));
        staging += copies * *b;
      }
    });
  auto atLeast = [&](int64_t stages) {
    int64_t bytes = twoStageSharedBytes(func, loop, loads, copies,
                                        storeConversions, stages);
    if (bytes != std::numeric_limits<int64_t>::max() && staging)
      bytes += std::min(staging, twoStageSharedBytes(func, loop, loads, copies,
                                                     {}, stages) -
                                     bytes);
    return bytes;
  };
  int64_t most = target.sharedMemoryPerBlock(func);
  auto [epilogue, conversions] = epilogueStoreConversions(loop);
  auto fitsAsIs = [&](int64_t stages) {
    return !epilogue.empty() &&
           twoStageSharedBytes(func, loop, loads, copies, conversions,
                               stages) <= most;
  };
  // The depth asked for, then the two the loop needs at the least.
  int64_t asked = askedRingStages(func);
  int64_t bytes = 0;
  for (int64_t stages : asked > 2 ? SmallVector<int64_t>{asked, 2}
                                  : SmallVector<int64_t>{2}) {
    bytes = atLeast(stages);
    if (bytes <= most)
      return "";
    if (fitsAsIs(stages)) {
      asIs = epilogue;
      return "";
    }
  }
  return "two stages of its ring and the rest of the kernel (its "
         "epilogue's scratch included) take " +
         (bytes == std::numeric_limits<int64_t>::max()
              ? std::string("more")
              : std::to_string(bytes)) +
         " bytes of shared memory, more than the " + std::to_string(most) +
         " a block has";
}

struct TilePartitionSchedule
    : public tilec::impl::TilePartitionScheduleBase<TilePartitionSchedule> {
  using Base::Base;

  void runOnOperation() override {
    const TargetInfo &target = TargetInfo::of(getOperation());
    if (!target.hasAsyncMMA())
      return;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      // sm_100a's channels carry MMA operands only: a tile no dot reads
      // (a side load) is loaded by the compute partition's threads, which
      // keeps the loop plain (said below).
      if (target.tcgen05)
        dropSideCopies(func, scf::ForOp());
      // One main loop a kernel: the first that qualifies; the ones before
      // it say why they do not.
      scf::ForOp scheduled;
      for (auto loop : func.getBody().front().getOps<scf::ForOp>()) {
        bool hasAsync = false;
        loop.getBody()->walk([&](DotOp dot) {
          hasAsync |= tgpu::getMMA(dot).isAsync();
        });
        if (!hasAsync)
          continue;
        Partitions parts = assign(loop, target);
        std::string why = unschedulable(loop, parts);
        bool pers = false;
        int copies = 1;
        SmallVector<StoreOp> asIs;
        if (why.empty()) {
          pers = persistent && canWalkTilesPersistently(func);
          copies = usePingPong(func, loop, pers, target) ? 2 : 1;
          why = ringDoesNotFit(func, loop, copies, target, asIs);
        }
        if (why.empty()) {
          storeAsIs(func, asIs);
          if (pers)
            func->setAttr(tgpu::kPersistentAttr,
                          persistentScheduler(func, copies, target));
          if (useCtaPair(func, loop, pers, target))
            func->setAttr(tgpu::kCtaGroupAttr,
                          IntegerAttr::get(IntegerType::get(func.getContext(), 32), 2));
          record(loop, parts, copies, target);
          scheduled = loop;
          break;
        }
        mlir::emitRemark(loop.getLoc())
            << variantPrefix(func) << "not warp-specialized (TMA and "
            << target.asyncMMAName()
            << " not used): " << why;
      }
      // A request for launch control or the dynamic scheduler that no
      // persistent tile loop takes.
      auto want = func->getAttrOfType<TileSchedulerAttr>(kTileSchedulerAttr);
      if (want && want.getValue() != TileScheduler::Static &&
          !func->hasAttr(tgpu::kPersistentAttr))
        mlir::emitRemark(func.getLoc())
            << variantPrefix(func)
            << (want.getValue() == TileScheduler::LaunchControl
                    ? "launch control"
                    : "dynamic tile scheduler")
            << " not used: the kernel does not walk its tiles "
               "persistently (no warp-specialized main loop, or a grid its "
               "programs cannot walk)";
      // wgmma and tcgen05 run only in a scheduled (warp-specialized) loop:
      // dots elsewhere are selected for mma.sync.
      SmallVector<DotOp> demoted;
      func.walk([&](DotOp dot) {
        if (tgpu::getMMA(dot).isAsync() &&
            (!scheduled || !scheduled->isAncestor(dot)))
          demoted.push_back(dot);
      });
      for (DotOp dot : demoted)
        tgpu::selectMMASync(dot);
      // So do the threads' gathers into dot slots: elsewhere a gather is
      // the registers' again.
      func.walk([&](GatherOp gather) {
        if (!scheduled || !scheduled->isAncestor(gather))
          gather->removeAttr(tgpu::kThreadGatherAttr);
      });
      // Side loads are TMA copies of the load partition in the scheduled
      // loop only.
      dropSideCopies(func, scheduled);
    }
  }

  /// Stores the values of the epilogue's `stores` as they are
  /// (storeUnconverted), and says so.
  static void storeAsIs(func::FuncOp func, ArrayRef<StoreOp> stores) {
    int64_t asked = askedRingStages(func);
    for (StoreOp store : stores) {
      int64_t scratch = 0;
      for (Operation *op : storedConversions(store))
        scratch = std::max(scratch, getScratchBytes(op));
      storeUnconverted(store);
      auto type = cast<RankedTensorType>(store.getValue().getType());
      int cd = store.getTensor().getType().getContiguousDim();
      if (cd < 0)
        cd = type.getRank() - 1;
      int64_t bytes = getLayout(type).getContiguity(cd) *
                      type.getElementTypeBitWidth() / 8;
      mlir::emitRemark(store.getLoc())
          << variantPrefix(func)
          << "epilogue store writes its value in the layout it has (" << bytes
          << " contiguous bytes a thread): converting it for wider writes "
             "takes "
          << scratch << " bytes of shared memory, which "
          << (asked > 2 ? std::to_string(asked) +
                              " stages of the main loop's ring (tile.num_stages)"
                        : std::string("two stages of the main loop's ring"))
          << " leave no room for";
    }
  }

  /// Drops the TMA copies of tiles no dot reads (side loads) from the
  /// top-level loops of `func` other than `keep`.
  static void dropSideCopies(func::FuncOp func, scf::ForOp keep) {
    for (auto loop : func.getBody().front().getOps<scf::ForOp>())
      if (loop != keep)
        for (LoadOp load : loop.getBody()->getOps<LoadOp>())
          if (tgpu::getTMACopy(load) && !onlyDotsOf(load, loop))
            load->removeAttr(tgpu::kTMAAttr);
  }

  using Partitions = llvm::DenseMap<Operation *, std::set<int32_t>>;

  /// What tgpu.persistent holds: the launch-control or the dynamic
  /// scheduler where the kernel asks for it (tile.tile_scheduler) and can
  /// run it, else a unit (the static waves); a remark says why a request is
  /// not met.
  static Attribute persistentScheduler(func::FuncOp func, int copies,
                                       const TargetInfo &target) {
    MLIRContext *ctx = func.getContext();
    auto want = func->getAttrOfType<TileSchedulerAttr>(kTileSchedulerAttr);
    if (!want || want.getValue() == TileScheduler::Static)
      return UnitAttr::get(ctx);
    auto streamK = func->getAttrOfType<IntegerAttr>(kStreamKAttr);
    bool split = streamK && streamK.getInt() > 1;
    bool launchControl = want.getValue() == TileScheduler::LaunchControl;
    auto cluster = func->getAttrOfType<IntegerAttr>(kClusterAttr);
    std::string why;
    if (launchControl && !target.tcgen05)
      why = "cluster launch control is sm_100a's";
    else if (split)
      why = "a stream-K kernel's units are split statically";
    else if (launchControl)
      return want;
    else if (copies > 1)
      why = "ping-pong consumers take alternate tiles of a fixed order";
    else if (cluster && cluster.getInt() > 1)
      why = "a cluster's programs take their tiles together";
    else if (func->hasAttr(kSemaphoresAttr))
      why = "the kernel's semaphores are its own";
    if (why.empty())
      return want;
    mlir::emitRemark(func.getLoc())
        << variantPrefix(func) << "tiles scheduled in static waves, not "
        << (launchControl ? "by launch control" : "dynamically") << ": "
        << why;
    return UnitAttr::get(ctx);
  }

  /// Whether the bounds of `loop` depend on the tile (program ids, and
  /// what is loaded at them): tiles of unequal work.
  static bool tripCountDependsOnTile(scf::ForOp loop) {
    SetVector<Operation *> slice;
    BackwardSliceOptions opts;
    opts.omitBlockArguments = true;
    for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      (void)getBackwardSlice(v, &slice, opts);
    return llvm::any_of(slice, [](Operation *op) {
      return isa<ProgramIdOp, NumProgramsOp, StreamKUnitOp>(op);
    });
  }

  /// Whether the MMAs of `loop` run over the CTA pair of the kernel's
  /// cluster (tgpu.cta_group = 2), as the kernel asks (tile.cta_group = 2);
  /// a remark says why not where it cannot.
  static bool useCtaPair(func::FuncOp func, scf::ForOp loop, bool pers,
                         const TargetInfo &target) {
    auto want = func->getAttrOfType<IntegerAttr>(kCtaGroupAttr);
    if (!want || want.getInt() != 2)
      return false;
    auto cluster = func->getAttrOfType<IntegerAttr>(kClusterAttr);
    auto streamK = func->getAttrOfType<IntegerAttr>(kStreamKAttr);
    std::string why;
    if (!target.tcgen05)
      why = "the CTA pair's MMA (tcgen05 cta_group::2) is sm_100a's";
    else if (!cluster || cluster.getInt() != 2)
      why = "it runs on a cluster of two (tile.cluster = 2)";
    else if (!pers)
      why = "it needs the persistent tile loop";
    else if (streamK && streamK.getInt() > 1)
      why = "a stream-K kernel splits tiles, a pair shares them";
    else
      why = pairOperands(loop);
    if (why.empty())
      return true;
    mlir::emitRemark(loop.getLoc())
        << variantPrefix(func) << "CTA pair (cta_group 2) not used: " << why;
    return false;
  }

  /// Why the dots of `loop` cannot run over a CTA pair ("" if they can):
  /// each a tcgen05 MMA reading A and B from shared memory, 128 rows a CTA,
  /// its B the same for both CTAs (its copy independent of program_id x)
  /// and half of B's columns still a slot of B's swizzle.
  static std::string pairOperands(scf::ForOp loop) {
    for (auto dot : loop.getBody()->getOps<DotOp>()) {
      tgpu::MMAAttr mma = tgpu::getMMA(dot);
      if (!mma.isTCGen05() || mma.getA() != tgpu::OperandSource::Shared ||
          mma.getB() != tgpu::OperandSource::Shared)
        return "every MMA of the main loop must read A and B from shared "
               "memory";
      auto type = cast<RankedTensorType>(dot.getType());
      if (type.getShape()[0] != 128 || type.getShape()[1] % 32)
        return "every MMA must make 128 rows a CTA and a multiple of 32 "
               "columns";
      bool transposed;
      LoadOp b = operandLoad(dot.getB(), transposed);
      if (!b || dependsOnProgramId(b.getOffsets(), 0))
        return "B must be the same for both CTAs of the pair (its copy may "
               "not depend on program_id x)";
      auto bt = cast<RankedTensorType>(b.getType());
      if (failed(tgpu::planHalfSlot(bt, bt.getRank() - (transposed ? 2 : 1))))
        return "half of B's columns must keep B's swizzle";
    }
    return "";
  }

  /// Whether the ping-pong schedule the kernel asks for can run (`pers`:
  /// it walks its tiles persistently); says why not in a remark.
  static bool usePingPong(func::FuncOp func, scf::ForOp loop, bool pers,
                          const TargetInfo &target) {
    auto sched = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    if (!sched || sched.getValue() != Schedule::PingPong)
      return false;
    std::string why;
    if (target.tcgen05)
      why = "on sm_100a the epilogue of one tile overlaps the next tile's "
            "MMAs through the double-buffered accumulator";
    else if (!pers)
      why = "it needs the persistent tile loop";
    else if (getNumWarps(func) != 4)
      why = "each consumer copy is one warpgroup: tile.num_warps must be 4";
    // Consumers find their slots by counting the other's iterations, so
    // every tile must run the same number of them.
    if (why.empty() && tripCountDependsOnTile(loop))
      why = "the main loop's trip count depends on the tile";
    if (why.empty())
      return true;
    mlir::emitRemark(loop.getLoc())
        << variantPrefix(func)
        << "ping-pong schedule not used (cooperative instead): " << why;
    return false;
  }

  /// Whether the kernel writes a view `loop` loads (a store, scatter or
  /// atomic anywhere in it): data one program may publish to another
  /// behind a counter, which the load partition would read before the
  /// compute partition's acquire.
  static bool writesLoadedView(scf::ForOp loop) {
    auto func = loop->getParentOfType<func::FuncOp>();
    bool found = false;
    func.walk([&](Operation *op) {
      Value view;
      if (auto store = dyn_cast<StoreOp>(op))
        view = store.getTensor();
      else if (auto scatter = dyn_cast<ScatterOp>(op))
        view = scatter.getTensor();
      else if (auto rmw = dyn_cast<AtomicRMWOp>(op))
        view = rmw.getTensor();
      else if (auto cas = dyn_cast<AtomicCASOp>(op))
        view = cas.getTensor();
      found |= view && loadsView(loop, view);
    });
    return found;
  }

  /// Whether an op of `loop`'s body loads from `view`.
  static bool loadsView(scf::ForOp loop, Value view) {
    bool found = false;
    loop.getBody()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op))
        found |= load.getTensor() == view;
      else if (auto gather = dyn_cast<GatherOp>(op))
        found |= gather.getTensor() == view;
    });
    return found;
  }

  /// The first op of `op` (itself, or one in a region of it) the compute
  /// partition cannot run alone; null where it can all: math, branches
  /// and loops over such work (a mask applied only to the blocks that
  /// need one, a reduction only some steps make, a spin-wait), reductions
  /// into a view the loop never loads (a reducing store, an atomic whose
  /// old values nobody reads: attention backward's dQ += dS K), which it
  /// issues and waits for nothing, and any atomic on such a view (a
  /// semaphore: deterministic dQ adds wait for their turn) where the
  /// views the loop loads are read-only (an acquire in the compute
  /// partition orders nothing the load partition reads ahead of it).
  static Operation *notComputeWork(scf::ForOp loop, Operation *op) {
    if (isMemoryEffectFree(op) && op->getNumRegions() == 0)
      return nullptr;
    if (isa<scf::IfOp, scf::WhileOp>(op)) {
      for (Region &r : op->getRegions())
        for (Operation &inner : r.getOps())
          if (!isa<scf::YieldOp, scf::ConditionOp>(inner))
            if (Operation *bad = notComputeWork(loop, &inner))
              return bad;
      return nullptr;
    }
    Value reduced;
    bool reads = !op->use_empty();
    if (auto rmw = dyn_cast<AtomicRMWOp>(op))
      reduced = rmw.getTensor();
    if (auto cas = dyn_cast<AtomicCASOp>(op))
      reduced = cas.getTensor();
    if (reduced && reads && writesLoadedView(loop))
      return op;
    if (auto store = dyn_cast<StoreOp>(op); store && store.getReduce())
      reduced = store.getTensor();
    if (reduced && !loadsView(loop, reduced))
      return nullptr;
    return op;
  }

  /// Why the partitions `parts` of `loop` cannot be built yet ("" if they
  /// can): every dot on wgmma, each shared-memory operand a TMA copy in the
  /// loop (or once before it), the compute partition the dots and work
  /// it can do alone (notComputeWork), the copies read by nothing else,
  /// one box a view.
  static std::string unschedulable(scf::ForOp loop, Partitions &parts) {
    Block *body = loop.getBody();
    SmallVector<LoadOp> loads;
    SmallVector<Operation *> threadCopies; // (gathers, K-major copies)
    bool inLoop = false;
    for (Operation &op : body->without_terminator()) {
      auto dot = dyn_cast<DotOp>(op);
      if (!dot)
        continue;
      tgpu::MMAAttr mma = tgpu::getMMA(dot);
      if (!mma.isAsync())
        return "a dot of the loop runs on mma.sync";
      for (auto [idx, v] : llvm::enumerate(dotOperands(dot))) {
        if (idx == 0 && mma.getA() != tgpu::OperandSource::Shared)
          continue; // (computed: in registers, or written to tensor memory)
        // (A K-major copy: the load partition's threads copy it.)
        if (idx == 1 && mma.getB() == tgpu::OperandSource::KMajorCopy) {
          LoadOp load = kMajorCopyLoad(dot);
          if (!load)
            return "a K-major copy's B is no longer its load's tile";
          inLoop = true;
          threadCopies.push_back(load);
          continue;
        }
        bool transposed;
        Operation *src = operandSource(v, transposed);
        if (tgpu::isThreadGather(src) && src->getBlock() == body) {
          inLoop = true;
          threadCopies.push_back(src);
          continue;
        }
        LoadOp load = operandLoad(v, transposed);
        bool once = load && load->getBlock() == loop->getBlock() &&
                    load->isBeforeInBlock(loop) && tgpu::getTMACopy(load);
        if (!load || (load->getBlock() != body && !once))
          return "a dot operand is not loaded in the loop (nor copied once "
                 "before it)";
        inLoop |= !once;
        loads.push_back(load);
      }
    }
    if (!inLoop)
      return "no dot operand is loaded in the loop";
    for (Operation &op : body->without_terminator()) {
      const std::set<int32_t> &p = parts[&op];
      bool load = p.count(tgpu::kLoadPartition), compute = p.count(tgpu::kComputePartition);
      if (isa<DotOp>(op) || (load && !compute) || isScalarPure(&op) ||
          isProfileRecord(&op) || (!compute && p.count(tgpu::kMMAPartition)))
        continue;
      if (isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(op) &&
          llvm::all_of(op.getUsers(), [](Operation *u) {
            return isa<DotOp, ConvertLayoutOp, TransposeOp, ReshapeOp>(u);
          }))
        continue;
      if (Operation *bad = notComputeWork(loop, &op))
        return "the compute partition accesses memory ('" +
               bad->getName().getStringRef().str() + "')";
    }
    SmallVector<Operation *> copies(loads.begin(), loads.end());
    llvm::append_range(copies, threadCopies);
    for (Operation *copy : copies)
      for (Operation *user : copy->getUsers())
        if (!isa<ConvertLayoutOp, TransposeOp, ReshapeOp, DotOp>(user))
          return "a loaded dot operand has other users";
    // Each view is copied with one box.
    for (LoadOp a : loads)
      for (LoadOp b : loads)
        if (a.getTensor() == b.getTensor() &&
            tgpu::getTMACopy(a).getBox() != tgpu::getTMACopy(b).getBox())
          return "one view is loaded with two different tile shapes";
    return "";
  }

  /// The partitions that run each op of the loop's body.
  static Partitions assign(scf::ForOp loop, const TargetInfo &target) {
    Block *body = loop.getBody();
    Partitions parts;
    // sm_100a: the tcgen05 MMAs, and the conversions of their operands,
    // are the MMA partition's.
    // (Not an A the compute partition writes into tensor memory.)
    auto feedsOnlyDots = [&](Operation &op) {
      return isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(op) &&
             llvm::all_of(op.getUses(), [&](OpOperand &use) {
               Operation *u = use.getOwner();
               auto dot = dyn_cast<DotOp>(u);
               if (dot && use.getOperandNumber() == 0 &&
                   tgpu::getMMA(dot).getA() ==
                       tgpu::OperandSource::TensorMemory)
                 return false;
               return parts.count(u) && parts[u] == std::set<int32_t>{
                                                      tgpu::kMMAPartition};
             });
    };
    // The loads of K-major copies (the load partition's threads copy them
    // transposed).
    llvm::SmallPtrSet<Operation *, 4> kMajorCopies;
    for (DotOp dot : body->getOps<DotOp>())
      if (tgpu::getMMA(dot) &&
          tgpu::getMMA(dot).getB() == tgpu::OperandSource::KMajorCopy)
        if (LoadOp load = kMajorCopyLoad(dot))
          kMajorCopies.insert(load);
    // Users first: walk the body backwards so that scalar code sees the
    // partitions of everything that uses it.
    for (Operation &op : llvm::reverse(body->without_terminator())) {
      std::set<int32_t> &p = parts[&op];
      auto load = dyn_cast<LoadOp>(op);
      if ((load && tgpu::getTMACopy(load)) || tgpu::isThreadGather(&op) ||
          kMajorCopies.contains(&op)) {
        p.insert(tgpu::kLoadPartition);
        continue;
      }
      // A gather, or a load no TMA copy brings, which the load
      // partition's threads can make (sm_90a: sm_100a's channels carry
      // MMA operands only).
      if ((isa<GatherOp>(op) || load) &&
          !target.tcgen05 && producerCopy(&op, loop)) {
        p.insert(tgpu::kLoadPartition);
        continue;
      }
      // The index tiles and masks of such copies (math, and tiles of an
      // index table): the load partition computes them too
      // (tile-insert-channels lays its copy out for its warps).
      if (isIndexTileOp(&op) &&
          llvm::any_of(op.getUsers(), [&](Operation *user) {
            Operation *u = body->findAncestorOpInBlock(*user);
            return u && parts.count(u) && parts[u].count(tgpu::kLoadPartition);
          })) {
        for (Operation *user : op.getUsers()) {
          Operation *u = body->findAncestorOpInBlock(*user);
          if (u && !u->hasTrait<OpTrait::IsTerminator>() && parts.count(u))
            p.insert(parts[u].begin(), parts[u].end());
          else
            p.insert(tgpu::kComputePartition);
        }
        continue;
      }
      // A profiled scope runs in every partition that runs an op it
      // encloses (a scope around a copy and a dot: the producer records
      // its copy, the consumers their dot); the compute partition's if it
      // encloses none. Its end was visited first, its contents since.
      if (auto begin = dyn_cast<ProfileBeginOp>(op)) {
        ProfileEndOp end = getScopeEnd(begin);
        for (Operation *o = begin->getNextNode(); o != end; o = o->getNextNode())
          if (!isProfileRecord(o))
            p.insert(parts[o].begin(), parts[o].end());
        if (p.empty())
          p.insert(tgpu::kComputePartition);
        parts[end] = p;
        continue;
      }
      if (isa<ProfileEndOp>(op))
        continue;
      if (target.tcgen05) {
        auto dot = dyn_cast<DotOp>(op);
        if ((dot && tgpu::getMMA(dot).isTCGen05()) || feedsOnlyDots(op)) {
          p.insert(tgpu::kMMAPartition);
          continue;
        }
      }
      if (isScalarPure(&op)) {
        for (Operation *user : op.getUsers()) {
          Operation *u = body->findAncestorOpInBlock(*user);
          if (u && !u->hasTrait<OpTrait::IsTerminator>() && parts.count(u))
            p.insert(parts[u].begin(), parts[u].end());
          else
            p.insert(tgpu::kComputePartition); // the loop's results, the yield
        }
        if (p.empty()) // unused: wherever it does least harm
          p.insert(tgpu::kComputePartition);
        continue;
      }
      p.insert(tgpu::kComputePartition);
    }
    return parts;
  }

  /// Records the partitions on the loop and its ops, the compute
  /// partition running as `copies` copies (and an MMA partition on
  /// sm_100a).
  void record(scf::ForOp loop, Partitions &parts, int copies,
              const TargetInfo &target) {
    MLIRContext *ctx = &getContext();
    Block *body = loop.getBody();
    for (Operation &op : body->without_terminator()) {
      const std::set<int32_t> &p = parts[&op];
      op.setAttr(tgpu::kPartitionAttr,
                 DenseI32ArrayAttr::get(
                     ctx, SmallVector<int32_t>(p.begin(), p.end())));
    }
    // Copies before the loop that only its dots read (tile-select-mma-and-tma
    // planned them: Q of attention) are the load partition's too, issued
    // once before its loop.
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
      auto load = dyn_cast<LoadOp>(op);
      if (load && tgpu::getTMACopy(load))
        load->setAttr(tgpu::kPartitionAttr,
                      DenseI32ArrayAttr::get(ctx, {tgpu::kLoadPartition}));
    }
    SmallVector<Attribute> list = {
        tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::Load),
        tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::Compute, copies)};
    if (target.tcgen05)
      list.push_back(tgpu::PartitionAttr::get(ctx, tgpu::PartitionRole::MMA));
    loop->setAttr(tgpu::kPartitionsAttr, ArrayAttr::get(ctx, list));
  }
};

} // namespace

bool tilec::producerCopy(Operation *op, scf::ForOp loop) {
  auto gather = dyn_cast<GatherOp>(op);
  auto load = dyn_cast<LoadOp>(op);
  if ((!gather && !load) || (load && tgpu::getTMACopy(load)))
    return false;
  Value tensor = gather ? gather.getTensor() : load.getTensor();
  auto view = dyn_cast<BlockArgument>(tensor);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  // (Its threads hold the whole tile and its indices: at most 32 elements
  // a thread of the partition's warpgroup.)
  if (op->getBlock() != loop.getBody() || op->use_empty() || !view || !type ||
      !isa<func::FuncOp>(view.getOwner()->getParentOp()) ||
      type.getNumElements() > 32 * 128)
    return false;
  if (load && !llvm::all_of(load.getOffsets(), [&](Value o) {
        return isScalarIndex(o, loop);
      }))
    return false;
  // Its value reaches no dot as an operand (an MMA reads a swizzled slot).
  SmallVector<Value> work = {op->getResult(0)};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<DotOp>(user))
        return false;
      if (isa<ConvertLayoutOp, ReshapeOp, TransposeOp>(user))
        work.push_back(user->getResult(0));
    }
  }
  return producerIndices(op, loop);
}

/// Whether `op`'s results reach only the indices and masks of gathers
/// that only the loop's dots read, through index math.
static bool onlyIndicesOfGathers(Operation *op, scf::ForOp loop) {
  SmallVector<Operation *> work = {op};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    if (auto gather = dyn_cast<GatherOp>(cur); gather && cur != op) {
      if (gather->getBlock() != loop.getBody() || !onlyDotsOf(cur, loop))
        return false;
      continue;
    }
    if (isa<LoadOp, GatherOp>(cur) || !isIndexTileOp(cur) || seen.size() > 64)
      return false;
    for (Operation *user : cur->getUsers())
      work.push_back(user);
  }
  return true;
}

bool tilec::producerIndices(Operation *op, scf::ForOp loop) {
  auto gather = dyn_cast<GatherOp>(op);
  auto load = dyn_cast<LoadOp>(op);
  // Its index tiles and mask: splats of scalar indices, iotas, constants,
  // unmasked tiles loaded at scalar indices (an index table, which the
  // partition's threads then read instead of a TMA copy planned for it)
  // and the math between them.
  SmallVector<Value> slice;
  if (gather)
    llvm::append_range(slice, gather.getIndices());
  if (Value mask = gather ? gather.getMask() : load.getMask())
    slice.push_back(mask);
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!slice.empty()) {
    Value v = slice.pop_back_val();
    if (!isa<RankedTensorType>(v.getType())) {
      if (!isScalarIndex(v, loop))
        return false;
      continue;
    }
    // (A tile the loop carries, or a kernel argument, the load partition
    // cannot compute.)
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (!seen.insert(def).second)
      continue;
    if (seen.size() > 64)
      return false;
    if (!isIndexTileOp(def))
      return false;
    llvm::append_range(slice, def->getOperands());
  }
  // An index table only copies read (else the compute partition would
  // read it too): this one, or other gathers only dots read through index
  // math of their own (MLA's latent and rotary columns of one page).
  for (Operation *table : seen)
    if (isa<LoadOp, GatherOp>(table) &&
        llvm::any_of(table->getUsers(), [&](Operation *u) {
          return u != op && !seen.contains(u) && !onlyIndicesOfGathers(u, loop);
        }))
      return false;
  return true;
}

bool tilec::threadGatherable(GatherOp gather, scf::ForOp loop,
                             std::string &why) {
  auto view = dyn_cast<BlockArgument>(gather.getTensor());
  auto type = cast<RankedTensorType>(gather.getType());
  if (!view || !isa<func::FuncOp>(view.getOwner()->getParentOp())) {
    why = "the view is not a kernel argument";
    return false;
  }
  if (type.getElementType().getIntOrFloatBitWidth() != 16) {
    why = "its elements are not 16-bit";
    return false;
  }
  if (!isZeroPadding(gather.getPaddingAttr())) {
    why = "the padding is not zero";
    return false;
  }
  if (failed(tgpu::planTMASlot(type, why)))
    return false;
  if (!producerIndices(gather, loop)) {
    why = "its index tiles or mask are not computed from scalars of the "
          "loop, iotas and index tables only it reads";
    return false;
  }
  return true;
}