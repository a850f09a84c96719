//===- SharedMemoryPlan.cpp - a kernel's shared memory, laid out ----------===//

#include "tilec/Dialect/TGPU/Transforms/SharedMemoryPlan.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

SharedMemoryPlan::SharedMemoryPlan(func::FuncOp func, int64_t openDepth)
    : func(func), openDepth(openDepth), live(func) {
  tensorMemory = func->hasAttr(tgpu::kTensorMemoryAttr);
  collect(func.getBody(), 0);
}

/// Each copy of each buffer and barrier array, in the order the lowering
/// leaves the code in: program order, a tgpu.warp_specialize's regions one
/// after the other and each region copy by copy.
void SharedMemoryPlan::collect(Region &region, unsigned copy) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (auto ws = dyn_cast<tgpu::WarpSpecializeOp>(op)) {
        for (auto [i, r] : llvm::enumerate(ws.getPartitionRegions()))
          for (int c = 0; c < ws.getPartition(i).getCopies(); ++c)
            collect(r, c);
        continue;
      }
      if (auto alloc = dyn_cast<tgpu::AllocOp>(op))
        items.push_back({&op, copy, alloc.getType().getTotalBytes(),
                         alloc.getType().getAlignment(), false,
                         live.lastUse(alloc)});
      if (auto bars = dyn_cast<tgpu::BarriersOp>(op))
        items.push_back(
            {&op, copy, 8 * bars.getType().getCount(), 8, true, 0});
      if (isa<tgpu::TMemAllocOp>(op))
        tensorMemory = true;
      // A channel: the rings and barriers tile-pipeline makes of it, where
      // it is.
      if (auto ch = dyn_cast<tgpu::ChannelOp>(op)) {
        int64_t depth = ch.getDepth().value_or(openDepth);
        for (Value buf : ch.getBuffers()) {
          if (isa<tgpu::TensorMemoryBufferType>(buf.getType())) {
            tensorMemory = true;
            continue;
          }
          auto type = cast<tgpu::SharedBufferType>(buf.getType())
                          .withNumSlots(depth);
          items.push_back({nullptr, copy, type.getTotalBytes(),
                           type.getAlignment(), false, live.lastUse(buf)});
        }
        for (int i = 0; i < 2; ++i)
          items.push_back({nullptr, copy, 8 * depth, 8, true, 0});
      }
      for (Region &r : op.getRegions())
        collect(r, copy);
    }
}

void SharedMemoryPlan::addBuffer(tgpu::SharedBufferType type, int64_t lastUse,
                                 int64_t copies, bool first) {
  for (int64_t c = 0; c < copies; ++c)
    items.insert(first ? items.begin() + c : items.end(),
                 {nullptr, unsigned(c), type.getTotalBytes(),
                  type.getAlignment(), false, lastUse});
}

void SharedMemoryPlan::addBarriers(int64_t count) {
  items.push_back({nullptr, 0, 8 * count, 8, true, 0});
}

SharedMemoryPlan::Layout SharedMemoryPlan::layout() const {
  Layout out;
  // Buffers first (the 1024-byte aligned ones, then the rest), then
  // barriers.
  auto group = [](const Item &item) {
    return item.barriers ? 2 : item.alignment == 1024 ? 0 : 1;
  };
  SmallVector<int64_t> at(items.size());
  int64_t end = 0, buffersEnd = 0;
  for (int g : {0, 1, 2}) {
    if (g == 2)
      buffersEnd = end;
    for (auto [i, item] : llvm::enumerate(items)) {
      if (group(item) != g)
        continue;
      end = llvm::alignTo(end, item.alignment);
      at[i] = end;
      end += item.bytes;
      if (item.op) {
        SmallVector<int64_t> &places = out.offsets[item.op];
        places.resize(tgpu::getRegionCopies(item.op));
        places[item.copy] = at[i];
      }
    }
  }
  if (tensorMemory) {
    end = llvm::alignTo(end, 8);
    out.tensorMemoryWord = end;
    end += 8;
  }
  auto scratchOf = [&](Operation *op) -> int64_t {
    if (auto stage = dyn_cast<tgpu::LocalStageOp>(op))
      return stage.getType().getSlotBytes();
    return dropped.contains(op) ? 0 : tile::getScratchBytes(op);
  };

  bool specialized =
      computeGroups ||
      func->walk([](tgpu::WarpSpecializeOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (specialized) {
    // One area: as much as the most any op needs, once a group that takes
    // scratch (tgpu::partitionTakesScratch: those run at once; the code
    // outside the regions uses the first).
    // A staged MMA operand (tgpu.local_stage, or a dot's A selected to be
    // one, as the passes that size rings see it) is read by descriptor:
    // its swizzle repeats every 1024 bytes, so scratch starts on one.
    int64_t scratch = 0, align = 128;
    func.walk([&](Operation *op) {
      scratch = std::max(scratch, scratchOf(op));
      auto dot = dyn_cast<DotOp>(op);
      if (isa<tgpu::LocalStageOp>(op) ||
          (dot && tgpu::getMMA(dot) &&
           tgpu::getMMA(dot).getA() == tgpu::OperandSource::Staged))
        align = 1024;
    });
    int64_t groups = computeGroups.value_or(tgpu::getScratchGroups(func));
    out.groupScratch = llvm::alignTo(scratch, align);
    int64_t start = end ? llvm::alignTo(end, align) : 0;
    if (end)
      out.scratchStart = start;
    out.bytes = start + (groups > 1 ? out.groupScratch * groups : scratch);
    return out;
  }

  // Each op's scratch at the lowest 128-byte aligned place that overlaps
  // neither the barriers and the tensor-memory word ([buffersEnd, end))
  // nor a buffer still in use at the op.
  out.bytes = end;
  func.walk([&](Operation *op) {
    int64_t bytes = scratchOf(op);
    if (!bytes)
      return;
    SmallVector<std::pair<int64_t, int64_t>> busy;
    if (buffersEnd < end)
      busy.push_back({buffersEnd, end});
    for (auto [i, item] : llvm::enumerate(items))
      if (!item.barriers && item.lastUse >= live.position(op))
        busy.push_back({at[i], at[i] + item.bytes});
    llvm::sort(busy);
    int64_t place = 0, align = isa<tgpu::LocalStageOp>(op) ? 1024 : 128;
    for (auto [from, to] : busy) {
      if (place + bytes <= from)
        break;
      place = std::max(place, int64_t(llvm::alignTo(to, align)));
    }
    out.scratch[op] = place;
    out.bytes = std::max(out.bytes, place + bytes);
  });
  return out;
}

SmallVector<std::pair<Operation *, bool>>
tilec::sharedOperandLoads(scf::ForOp loop) {
  SmallVector<std::pair<Operation *, bool>> loads;
  for (DotOp dot : loop.getBody()->getOps<DotOp>()) {
    tgpu::MMAAttr mma = tgpu::getMMA(dot);
    if (!mma || !mma.isAsync() ||
        (mma.getB() != tgpu::OperandSource::Shared &&
         mma.getB() != tgpu::OperandSource::KMajorCopy))
      return {};
    SmallVector<Value, 2> shared;
    // (A K-major copy's slot holds the tile transposed: as many bytes.)
    if (mma.getB() == tgpu::OperandSource::KMajorCopy) {
      LoadOp load = kMajorCopyLoad(dot);
      if (!load)
        return {};
      loads.push_back({load, true});
    } else {
      shared.push_back(dot.getB());
    }
    if (mma.getA() == tgpu::OperandSource::Shared)
      shared.push_back(dot.getA());
    for (Value v : shared) {
      bool transposed;
      Operation *src = operandSource(v, transposed);
      if (tgpu::isThreadGather(src) && src->getBlock() == loop.getBody()) {
        loads.push_back({src, transposed});
        continue;
      }
      LoadOp load = operandLoad(v, transposed);
      if (!load || load.getMask() || !tgpu::getTMACopy(load) ||
          (load->getBlock() != loop.getBody() &&
           load->getBlock() != loop->getBlock()))
        return {};
      loads.push_back({load, transposed});
    }
  }
  return loads;
}

SmallVector<Operation *> tilec::storedConversions(StoreOp store) {
  SmallVector<Operation *> ops;
  Operation *def = store.getValue().getDefiningOp();
  while (isa_and_nonnull<ConvertLayoutOp, ReshapeOp>(def) &&
         def->hasOneUse()) {
    ops.push_back(def);
    def = def->getOperand(0).getDefiningOp();
  }
  return ops;
}

namespace {
/// What storeUnconverted changes of a store: the conversions and reshapes
/// between its value and it (store up), and its mask's reshapes (store
/// up) and the tile under them, which is built again in another layout.
struct Unconverted {
  SmallVector<Operation *> chain;
  SmallVector<ReshapeOp> maskReshapes;
  Value mask;
};
} // namespace

/// The store as storeUnconverted takes it, or none where it cannot: no
/// conversion goes, or the mask is not made of splats, iotas and constants
/// (isRematerializable).
static std::optional<Unconverted> unconverted(StoreOp store) {
  Unconverted u;
  u.chain = storedConversions(store);
  if (llvm::none_of(u.chain, llvm::IsaPred<ConvertLayoutOp>))
    return std::nullopt;
  if (Value m = store.getMask()) {
    while (auto r = m.getDefiningOp<ReshapeOp>()) {
      u.maskReshapes.push_back(r);
      m = r.getSrc();
    }
    if (!isRematerializable(m))
      return std::nullopt;
    u.mask = m;
  }
  return u;
}

bool tilec::canStoreUnconverted(StoreOp store) {
  return unconverted(store).has_value();
}

bool tilec::storeUnconverted(StoreOp store) {
  std::optional<Unconverted> u = unconverted(store);
  if (!u)
    return false;
  Value v = u->chain.back()->getOperand(0);
  OpBuilder b(store);
  for (Operation *op : llvm::reverse(u->chain))
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      v = reshapeAgain(b, reshape, v); // (its partition tags kept)
  store.getValueMutable().assign(v);
  for (Operation *op : u->chain)
    op->erase();
  if (!u->mask)
    return true;
  // The mask built again in the stored tile's layout (the layout the
  // value's reshapes give, taken back through the mask's own), the old
  // one's ops erased as they fall out of use.
  auto shape = cast<RankedTensorType>(u->mask.getType()).getShape();
  LinearLayout layout = getLayout(v.getType()).reshape(
      std::vector<int64_t>(shape.begin(), shape.end()));
  DictionaryAttr tags =
      u->mask.getDefiningOp()->getDiscardableAttrDictionary();
  Value mask = rematerialize(b, u->mask, layout, [&](Operation *op) {
    op->setDiscardableAttrs(tags);
  });
  for (ReshapeOp r : llvm::reverse(u->maskReshapes))
    mask = reshapeAgain(b, r, mask);
  Operation *old = store.getMask().getDefiningOp();
  store.getMaskMutable().assign(mask);
  // (An op two operands reach is queued twice: once erased, skipped.)
  SmallVector<Operation *> work{old};
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op || erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value o : op->getOperands())
      work.push_back(o.getDefiningOp());
    erased.insert(op);
    op->erase();
  }
  return true;
}

int64_t tilec::askedRingStages(func::FuncOp func) {
  if (auto a = func->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
    return std::max<int64_t>(2, a.getInt());
  return 2;
}

int64_t tilec::twoStageSharedBytes(func::FuncOp func, scf::ForOp loop,
                                   ArrayRef<std::pair<Operation *, bool>> loads,
                                   int64_t copies,
                                   ArrayRef<Operation *> without,
                                   int64_t stages) {
  SharedMemoryPlan plan(func);
  plan.specialize(copies);
  for (Operation *op : without)
    plan.dropScratch(op);
  func.walk([&](ConvertLayoutOp cv) {
    Value v = cv.getSrc();
    while (isa_and_nonnull<ConvertLayoutOp, TransposeOp, ReshapeOp>(
        v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    Operation *from = v.getDefiningOp();
    if (from && llvm::any_of(loads, [&](auto &l) { return l.first == from; }))
      plan.dropScratch(cv);
  });
  for (auto [k, operand] : llvm::enumerate(loads)) {
    Operation *load = operand.first;
    // One slot a load, however many dots read it and either way round.
    if (llvm::any_of(ArrayRef(loads).take_front(k),
                     [&](auto &l) { return l.first == load; }))
      continue;
    std::string why;
    FailureOr<tgpu::TMASlot> slot = tgpu::planTMASlot(
        cast<RankedTensorType>(load->getResult(0).getType()), why,
        /*squeeze=*/true);
    if (failed(slot))
      return std::numeric_limits<int64_t>::max();
    bool inLoop = load->getBlock() == loop.getBody();
    plan.addBuffer(slot->type.withNumSlots(inLoop ? stages : 1),
                   SharedMemoryLiveness::kForever, inLoop ? 1 : copies);
    plan.addBarriers(inLoop ? stages : 1);
    plan.addBarriers(inLoop ? stages : 1);
  }
  // The side loads (tiles of the loop no dot reads, TMA copies or the load
  // partition's): a channel of their own, as deep as the operands'.
  bool anySide = false;
  for (LoadOp load : loop.getBody()->getOps<LoadOp>()) {
    bool operand = llvm::any_of(loads, [&](auto &l) { return l.first == load; });
    auto parts = load->getAttrOfType<DenseI32ArrayAttr>(tgpu::kPartitionAttr);
    bool producer = tgpu::getTMACopy(load) ||
                    (parts && llvm::is_contained(parts.asArrayRef(),
                                                 tgpu::kLoadPartition));
    if (operand || !producer || onlyDotsOf(load, loop))
      continue;
    plan.addBuffer(tgpu::getSideSlot(load).type.withNumSlots(stages),
                   SharedMemoryLiveness::kForever, 1);
    anySide = true;
  }
  if (anySide) {
    plan.addBarriers(stages);
    plan.addBarriers(stages);
  }
  return plan.bytes();
}
