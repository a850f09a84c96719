//===- TileTMAStoreEpilogue.cpp - epilogue stores through TMA -------------===//
//
// The tile-tma-store-epilogue pass. In a kernel whose main loop is
// scheduled for warp specialization, a store of a 2-d tile after the loop
// (at the top level or in an scf.if there: every consumer thread runs it,
// the condition being a scalar) goes out through
// shared memory with TMA:
//
//   %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #shared>    (entry block)
//   %acc = scf.for ... {tgpu.partitions = [...]}
//   %o = arith.truncf %acc : ... to tensor<128x256xbf16, #wgmma_acc>
//   tgpu.tma_store %o, %C[%m0, %n0] via %buf
//   ...
//   tgpu.tma_store_wait {pendings = 0}     (the kernel's last op)
//
// C becomes a TMA view whose box is the tile's rows by one swizzle span;
// the tile keeps its (wgmma) layout, the conversion the store asked for
// goes, and the tile leaves in box-wide column chunks through the buffer's
// slots (two rounds of them; one for a tile of one round: the chunks that
// warps hold at once, a tile split by columns across warpgroups, are a
// round; one where the second round would cost the main loop a stage
// below four and is half a stage or more: 256x128's 256-row boxes).
// Several epilogue stores of one view go so where they write disjoint
// elements (a tile's column blocks, or the branches of an scf.if) and take
// one box, each through slots of its own. A
// reducing store (`reduce add`) adds with TMA
// (`cp.reduce.async.bulk.tensor`); one of the main loop's (attention
// backward's dQ, each iteration) goes the same way, in the compute
// partition, its buffer one round where two leave the loop fewer than two
// stages. Stores that cannot get a remark saying why. The wait ends the
// kernel: the copies read shared memory until then. tile-warp-specialize
// moves the buffers and the wait into its consumer region (the wait after
// the persistent tile loop).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "tile-tma-store-epilogue"

namespace tilec {
#define GEN_PASS_DEF_TILETMASTOREEPILOGUE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// An epilogue store that goes out through shared memory with TMA.
struct EpilogueStore {
  StoreOp store;
  Value value; // what is stored (before the conversion for the store)
  BlockArgument view;
  tgpu::TMASlot whole; // the whole tile's box and swizzle
  tgpu::SharedBufferType bufferType;
  int64_t perRound = 1; // chunks the warps hold at once
};

/// Two rounds of slots of the box (the tile's rows, one swizzle span of
/// columns): round r of the tile goes through the slots of r % 2 (tile
/// widths and boxes are powers of two: one round, or an even number).
constexpr int64_t kStoreRounds = 2;

/// The main loop's stages are worth a round of epilogue slots up to this
/// many (128x256 GEMMs run four).
constexpr int64_t kDeepEnough = 4;

/// The shared memory one stage of `loop`'s operand ring takes (one slot of
/// each operand load's), 0 where a slot cannot be planned.
int64_t stageBytes(scf::ForOp loop,
                   ArrayRef<std::pair<Operation *, bool>> loads) {
  int64_t bytes = 0;
  SmallVector<Operation *> seen;
  for (auto [load, transposed] : loads) {
    if (load->getBlock() != loop.getBody() || llvm::is_contained(seen, load))
      continue;
    seen.push_back(load);
    std::string why;
    FailureOr<tgpu::TMASlot> slot = tgpu::planTMASlot(
        cast<RankedTensorType>(load->getResult(0).getType()), why,
        /*squeeze=*/true);
    if (failed(slot))
      return 0;
    bytes += slot->type.withNumSlots(1).getTotalBytes();
  }
  return bytes;
}

/// The conversions only `store` reads, down to the value its TMA store
/// takes: they go with it.
SmallVector<Operation *> conversionsItTakes(StoreOp store,
                                           const EpilogueStore &e) {
  SmallVector<Operation *> ops;
  for (Operation *op : storedConversions(store)) {
    if (op->getResult(0) == e.value)
      break;
    ops.push_back(op);
  }
  return ops;
}

/// `b`'s offset minus `a`'s where it is a constant: the same value, `a`
/// plus a constant, or two constants.
std::optional<int64_t> offsetDistance(Value a, Value b) {
  if (a == b)
    return 0;
  auto plus = [](Value x, Value base) -> std::optional<int64_t> {
    auto add = x.getDefiningOp<arith::AddIOp>();
    if (!add)
      return std::nullopt;
    if (add.getLhs() == base)
      return getConstantIntValue(add.getRhs());
    if (add.getRhs() == base)
      return getConstantIntValue(add.getLhs());
    return std::nullopt;
  };
  if (std::optional<int64_t> d = plus(b, a))
    return d;
  if (std::optional<int64_t> d = plus(a, b))
    return -*d;
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca && cb)
    return *cb - *ca;
  return std::nullopt;
}

/// Whether two stores of one view never write the same element: they run
/// in the two branches of one scf.if, or their offsets agree but along one
/// dim, where one starts at or past the other's end (a 128x128 tile at n0
/// and a 128x64 one at n0 + 128).
bool disjointStores(StoreOp a, StoreOp b) {
  for (auto ifOp = a->getParentOfType<scf::IfOp>(); ifOp;
       ifOp = ifOp->getParentOfType<scf::IfOp>())
    if (ifOp->isAncestor(b) &&
        ifOp.getThenRegion().isAncestor(a->getParentRegion()) !=
            ifOp.getThenRegion().isAncestor(b->getParentRegion()))
      return true;
  ArrayRef<int64_t> sa = cast<RankedTensorType>(a.getValue().getType()).getShape(),
                    sb = cast<RankedTensorType>(b.getValue().getType()).getShape();
  int apart = 0;
  for (auto [d, offsets] :
       llvm::enumerate(llvm::zip(a.getOffsets(), b.getOffsets()))) {
    std::optional<int64_t> dist =
        offsetDistance(std::get<0>(offsets), std::get<1>(offsets));
    if (!dist)
      return false;
    if (*dist == 0)
      continue;
    if ((*dist > 0 && *dist < sa[d]) || (*dist < 0 && -*dist < sb[d]))
      return false;
    ++apart;
  }
  return apart == 1;
}

std::optional<EpilogueStore> planStore(StoreOp store, std::string &why,
                                       bool inLoop = false,
                                       bool withOthers = true) {
  auto view = dyn_cast<BlockArgument>(store.getTensor());
  TensorViewType vt = store.getTensor().getType();
  // (A view already TMA's: another store of it went first, and this one
  // must take the same box, below.)
  if (!view || vt.getRank() < 2 || (vt.isTMA() && inLoop)) {
    why = "the view is not a kernel argument of rank 2 or more";
    return std::nullopt;
  }
  if (failed(tgpu::checkTMAView(vt, why)))
    return std::nullopt;
  if (store.getMask()) {
    why = "the store has a mask (TMA writes whole boxes)";
    return std::nullopt;
  }
  // (A reducing store adds an f32 tile, as TMA can.)
  if (inLoop && !store.getReduce()) {
    // (Stores of one iteration and the next may reach the same elements:
    // bulk copies in flight are not ordered; adds need not be.)
    why = "only reducing stores of the loop go through TMA";
    return std::nullopt;
  }
  // Other stores of the view may go through TMA too: epilogue stores
  // outside every loop that write other elements (the column blocks of a
  // tile) and take the same box, so the view has one descriptor.
  SmallVector<StoreOp> others;
  for (Operation *u : view.getUsers()) {
    // (A tgpu.tma_store: another store of the view, already through TMA.)
    if (u == store.getOperation() || isa<DimOp>(u) ||
        (!inLoop && isa<tgpu::TMAStoreOp>(u)))
      continue;
    auto other = dyn_cast<StoreOp>(u);
    if (inLoop || !other || other.getReduce() || store.getReduce() ||
        other->getParentOfType<LoopLikeOpInterface>() ||
        store->getParentOfType<LoopLikeOpInterface>() ||
        !disjointStores(store, other)) {
      why = "the view has other uses";
      return std::nullopt;
    }
    others.push_back(other);
  }
  // A tile of more dims than 2 has leading 1s (a 1x1xRxC tile of a 4-d
  // view): the box keeps the view's rank, the slots are 2-d.
  auto tt = cast<RankedTensorType>(store.getValue().getType());
  ArrayRef<int64_t> shape = tt.getShape();
  if (llvm::any_of(shape.drop_back(2), [](int64_t d) { return d != 1; })) {
    why = "the tile is not 2-d (leading unit dims aside)";
    return std::nullopt;
  }
  std::string unused;
  FailureOr<tgpu::TMASlot> whole =
      tgpu::planTMASlot(tt, unused, /*squeeze=*/true);
  if (tt.getElementType().getIntOrFloatBitWidth() < 8 || failed(whole)) {
    why = tt.getRank() == 1 ? "the tile is 1-d"
                            : "the tile is not 8..256 rows of at least 32 "
                              "bytes";
    return std::nullopt;
  }
  EpilogueStore e;
  e.store = store;
  e.view = view;
  e.whole = *whole;
  if (vt.isTMA() && (vt.getTmaBox() != ArrayRef<int64_t>(e.whole.box) ||
                     vt.getTmaSwizzle() != e.whole.swizzle)) {
    why = "another store of the view takes another TMA box";
    return std::nullopt;
  }
  if (withOthers)
    for (StoreOp other : others) {
      std::string otherWhy;
      std::optional<EpilogueStore> o =
          planStore(other, otherWhy, /*inLoop=*/false, /*withOthers=*/false);
      if (!o || o->whole.box != e.whole.box ||
          o->whole.swizzle != e.whole.swizzle) {
        why = "another store of the view cannot take the same TMA box";
        return std::nullopt;
      }
    }
  ArrayRef<int64_t> box = ArrayRef<int64_t>(e.whole.box).take_back(2);
  int64_t chunks = shape.back() / box[1];
  // The 2-d values the stored one comes from (through conversions the
  // store asked for and reshapes adding unit dims), earliest first: the
  // first that splits into chunks is stored, skipping the conversions.
  SmallVector<Value> candidates;
  SmallVector<Value> chain = {store.getValue()};
  for (Operation *def : storedConversions(store))
    chain.push_back(def->getOperand(0));
  for (Value v : llvm::reverse(chain))
    if (cast<RankedTensorType>(v.getType()).getRank() == 2)
      candidates.push_back(v);
  std::optional<tgpu::ChunkSelect> sel;
  for (Value v : candidates) {
    if (!getLayoutAttr(v.getType()))
      continue;
    sel = tgpu::chunkSelectBits(getLayout(v.getType()), box[1]);
    if (!sel)
      continue;
    // A chunk is the layout without the selecting bits; it must fit the
    // slot (any distributed layout does; the check is the lowering's).
    e.value = v;
    break;
  }
  if (!e.value) {
    why = "the tile's layout does not split into box-wide chunks by "
          "register and warp";
    return std::nullopt;
  }
  // Slots of one box each: the box-shaped tile's TMA slot, a round's
  // chunks (those the warps hold at once) in flight twice. A tile of one
  // round uses one round of slots (its chunks would otherwise always land
  // in the first slots while their last copies may still read them).
  e.perRound = sel->perRound();
  int64_t rounds = chunks / e.perRound;
  e.bufferType = tgpu::planTMASlot(RankedTensorType::get(box,
                                                         tt.getElementType()),
                                   unused)
                     ->type.withNumSlots(e.perRound *
                                         std::min(rounds, kStoreRounds));
  return e;
}

struct TileTMAStoreEpilogue
    : public tilec::impl::TileTMAStoreEpilogueBase<TileTMAStoreEpilogue> {
  using Base::Base;

  void runOnOperation() override {
    if (!TargetInfo::of(getOperation()).hasAsyncMMA())
      return;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal() ||
          func->hasAttr(kPlainVariantOfAttr))
        continue;
      scf::ForOp loop = tgpu::scheduledLoop(func);
      if (loop && useTMAStores(func, loop)) {
        OpBuilder b(func.getBody().front().getTerminator());
        tgpu::TMAStoreWaitOp::create(b, loop.getLoc(), 0);
        orderReleases(func);
      }
    }
  }

  /// Whether `store` may run before `op`: earlier in their closest common
  /// block, or both inside a loop (an earlier iteration's).
  static bool mayPrecede(Operation *store, Operation *op) {
    for (Operation *x = op; x; x = x->getParentOp()) {
      Operation *y = x->getBlock()->findAncestorOpInBlock(*store);
      if (!y)
        continue;
      if (y != x && y->isBeforeInBlock(x))
        return true;
      // (y == x: both inside x, in different regions; x itself may loop.)
      for (Operation *p = y == x ? x : x->getParentOp(); p;
           p = p->getParentOp())
        if (isa<LoopLikeOpInterface>(p))
          return true;
      return false;
    }
    return false;
  }

  /// An atomic with release ordering (release, acq_rel) that a TMA store
  /// may precede waits for the store's writes first: the bulk copies are
  /// asynchronous, their issuing thread alone can wait for them
  /// (deterministic attention backward signals that its dQ adds are done).
  /// One with acquire ordering (acquire, acq_rel) that may precede a TMA
  /// store fences the async proxy after it (kAsyncProxyFenceAttr): the
  /// acquire is the generic proxy's, the bulk copies the async proxy's
  /// (the same kernel's spin before its adds).
  static void orderReleases(func::FuncOp func) {
    SmallVector<Operation *> stores;
    func.walk([&](tgpu::TMAStoreOp s) { stores.push_back(s); });
    func.walk([&](Operation *op) {
      MemSemantics sem;
      if (auto rmw = dyn_cast<AtomicRMWOp>(op))
        sem = rmw.getSem();
      else if (auto cas = dyn_cast<AtomicCASOp>(op))
        sem = cas.getSem();
      else
        return;
      if ((sem == MemSemantics::Acquire || sem == MemSemantics::AcqRel) &&
          llvm::any_of(stores,
                       [&](Operation *s) { return mayPrecede(op, s); }))
        op->setAttr(tgpu::kAsyncProxyFenceAttr,
                    UnitAttr::get(op->getContext()));
      if (sem != MemSemantics::Release && sem != MemSemantics::AcqRel)
        return;
      if (llvm::any_of(stores,
                       [&](Operation *s) { return mayPrecede(s, op); })) {
        OpBuilder b(op);
        auto wait =
            tgpu::TMAStoreWaitOp::create(b, op->getLoc(), 0, /*writes=*/true);
        // (In the loop: the atomic's partition.)
        wait->setDiscardableAttrs(op->getDiscardableAttrDictionary());
        // In a loop the wait is every iteration's (a default atomic is
        // acq_rel): say so, with what needs none.
        if (op->getParentOfType<LoopLikeOpInterface>())
          mlir::emitRemark(op->getLoc())
              << variantPrefix(func) << "'" << op->getName()
              << "' with release ordering waits each iteration for the "
                 "writes of the TMA stores before it (their adds or copies "
                 "done in memory); `sem relaxed` waits for nothing";
      }
    });
  }

  /// Epilogue stores of 2-d tiles (top-level ops after the loop, so every
  /// consumer thread runs them) become TMA stores through shared memory;
  /// returns whether any did.
  static bool useTMAStores(func::FuncOp func, scf::ForOp loop) {
    Block &entry = func.getBody().front();
    bool any = false;
    // The main loop's reducing stores first (dQ's adds in attention
    // backward, each iteration: the buffer's bytes are better spent there
    // than on an epilogue's), then the epilogue's.
    SmallVector<std::pair<StoreOp, bool>> stores;
    for (auto store : loop.getBody()->getOps<StoreOp>())
      if (store.getReduce())
        stores.push_back({store, true});
    // (A split-K member's partial tile goes to the workspace, which has no
    // TMA descriptor: not an epilogue store, no remark.) Stores in an
    // scf.if count: its condition is a scalar, the same in every thread of
    // the program (a split-K member's epilogue runs in the last unit's).
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
      op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
        if (auto store = dyn_cast<StoreOp>(inner))
          if (!store.getTensor().getDefiningOp<WorkspaceOp>())
            stores.push_back({store, false});
        return isa<scf::IfOp>(inner) ? WalkResult::advance()
                                     : WalkResult::skip();
      });
    SmallVector<std::pair<Operation *, bool>> loads = sharedOperandLoads(loop);
    int64_t copies = tgpu::getComputeCopies(loop);
    int64_t staged = 0;
    // The shared memory at two stages without the conversions of every
    // store that can go through TMA.
    SmallVector<Operation *> allGone;
    for (auto [store, inLoop] : stores) {
      std::string ignored;
      if (std::optional<EpilogueStore> e = planStore(store, ignored, inLoop))
        llvm::append_range(allGone, conversionsItTakes(store, *e));
    }
    int64_t asked = askedRingStages(func);
    int64_t restAll = loads.empty() ? 0
                                    : twoStageSharedBytes(func, loop, loads,
                                                          copies, allGone, asked);
    for (auto [store, inLoop] : stores) {
      std::string why;
      std::optional<EpilogueStore> e = planStore(store, why, inLoop);
      SmallVector<Operation *> gone;
      if (e)
        gone = conversionsItTakes(store, *e);
      // The staging buffers (one a compute copy) must leave the loop its
      // two stages (SharedMemoryPlan; an epilogue that converts much, as a
      // random-number one does, may not): without them the store converts
      // in scratch the kernel has already. A store of the loop takes one
      // round of slots where two do not fit.
      if (e && !loads.empty()) {
        int64_t most = TargetInfo::of(func).sharedMemoryPerBlock(func);
        int64_t rest =
            twoStageSharedBytes(func, loop, loads, copies, gone, asked);
        auto fits = [&] {
          return rest > most ||
                 rest + staged + copies * e->bufferType.getTotalBytes() <=
                     most;
        };
        if (!fits() && inLoop && e->bufferType.getNumSlots() > e->perRound)
          e->bufferType = e->bufferType.withNumSlots(e->perRound);
        // An epilogue store whose second round of slots costs the loop a
        // stage it would have at one round, where it has fewer than four,
        // takes one round: a 256x128 tile's 256-row boxes (two rounds, 64
        // KB) left its loop three stages where 128x256 has four, and it
        // ran 4-15% slower a tile. One round waits for a chunk's copy out
        // before the next chunk takes the slot, once a tile.
        // (Counted without the conversions of every store that goes
        // through TMA, not only this one's.)
        int64_t stage = stageBytes(loop, loads);
        if (!inLoop && stage > 0 && restAll <= most &&
            e->bufferType.getNumSlots() > e->perRound) {
          auto stagesWith = [&](int64_t buffer) {
            return asked + (most - restAll - staged - copies * buffer) / stage;
          };
          int64_t twoBytes = e->bufferType.getTotalBytes();
          int64_t oneBytes =
              e->bufferType.withNumSlots(e->perRound).getTotalBytes();
          int64_t two = stagesWith(twoBytes), one = stagesWith(oneBytes);
          // (Only where the round saved is half a stage or more: the count
          // above is an estimate, which the later plan can beat by a few
          // KB where scratch and buffers share memory.)
          if (two < kDeepEnough && one > two &&
              2 * copies * (twoBytes - oneBytes) >= stage)
            e->bufferType = e->bufferType.withNumSlots(e->perRound);
        }
        if (fits()) {
          staged += copies * e->bufferType.getTotalBytes();
        } else {
          why = "its " +
                std::to_string(copies * e->bufferType.getTotalBytes()) +
                "-byte staging buffer would leave the main loop fewer than " +
                (asked > 2 ? std::to_string(asked) +
                                 " pipeline stages (tile.num_stages)"
                           : std::string("two pipeline stages"));
          e.reset();
        }
      }
      if (!e) {
        mlir::emitRemark(store.getLoc())
            << variantPrefix(func)
            << (inLoop ? "reducing store of the main loop not through TMA "
                         "(red.global): "
                       : "epilogue store not through TMA: ")
            << why;
        continue;
      }
      setArgumentType(func, e->view,
                      cast<TensorViewType>(e->view.getType())
                          .withTMA(e->whole.box, e->whole.swizzle));
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      Value buf = tgpu::AllocOp::create(b, store.getLoc(), e->bufferType);
      any = true;
      b.setInsertionPoint(store);
      auto tmaStore = tgpu::TMAStoreOp::create(
          b, store.getLoc(), e->value, e->view, store.getOffsets(), buf,
          store.getReduceAttr());
      // (In the loop: its partition, the compute one.)
      tmaStore->setDiscardableAttrs(store->getDiscardableAttrDictionary());
      // The store and the conversions and reshapes only it read.
      store.erase();
      for (Operation *op : gone)
        op->erase();
    }
    return any;
  }
};

} // namespace

std::optional<int64_t> tilec::tmaStoreStagingBytes(StoreOp store) {
  std::string why;
  std::optional<EpilogueStore> e = planStore(store, why);
  if (!e)
    return std::nullopt;
  return e->bufferType.getTotalBytes();
}
