//===- Report.cpp - tilec compile --report=bank-conflicts -----------------===//

#include "Report.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

static std::string locationText(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return (fl.getFilename().getValue() + ":" + Twine(fl.getLine()) + ":" +
            Twine(fl.getColumn()))
        .str();
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

static void printAccess(llvm::raw_ostream &os, StringRef what,
                        const SharedAccess &a, int64_t elementBytes) {
  os << llvm::format("  %-6s %3lld x %2lld-byte, %2lld wavefronts each (ideal %lld): "
                     "%lld excess\n",
                     what.str().c_str(), (long long)a.instructions,
                     (long long)(a.vectorElements * elementBytes),
                     (long long)a.wavefronts, (long long)a.idealWavefronts,
                     (long long)a.excessWavefronts());
}

int64_t tilec::reportBankConflicts(ModuleOp module, llvm::raw_ostream &os) {
  os << "bank conflicts: shared-memory accesses, per warp (32 banks of 4 "
        "bytes)\n";
  int64_t excess = 0, count = 0;
  module.walk([&](ConvertLayoutOp op) {
    auto attr = op.getSharedAttr();
    if (!attr)
      return;
    auto t = cast<RankedTensorType>(op.getType());
    LinearLayout from = getLayout(op.getSrc().getType()), to = getLayout(t);
    LinearLayout shared = attr.toLayout(t.getShape());
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    auto store = analyzeSharedAccess(from, shared, bits);
    auto load = analyzeSharedAccess(to, shared, bits);
    ++count;
    os << locationText(op.getLoc()) << ": tile.convert_layout "
       << RankedTensorType::get(t.getShape(), t.getElementType()) << "\n";
    os << "  from   " << from.toString() << "\n";
    os << "  to     " << to.toString() << "\n";
    os << "  via    " << shared.toString() << "\n";
    if (!store || !load) {
      os << "  (the shared layout does not hold the tile)\n";
      return;
    }
    int64_t bytes = std::max(1u, bits / 8);
    printAccess(os, "store", *store, bytes);
    printAccess(os, "load", *load, bytes);
    excess += store->excessWavefronts() + load->excessWavefronts();
  });
  os << count << " conversions through shared memory, " << excess
     << " excess wavefronts\n";
  return excess;
}

static std::vector<std::pair<Location, std::string>>
describeMainLoop(func::FuncOp func) {
  std::vector<std::pair<Location, std::string>> out;
  auto shape = [](ArrayRef<int64_t> dims) {
    std::string t;
    for (auto [i, d] : llvm::enumerate(dims))
      t += (i ? "x" : "") + std::to_string(d);
    return t;
  };
  // Loads: the TMA copies of one tile (one op a box) and thread copies, in
  // program order, one line a tile.
  llvm::MapVector<Location, std::string> loads;
  // Whether `op` runs each iteration of the innermost loop (the main loop;
  // a persistent kernel's tile loop holds it and the copies made once a
  // tile, and the epilogue).
  auto inMainLoop = [](Operation *op) {
    auto loop = op->getParentOfType<scf::ForOp>();
    return loop && !loop->walk([&](scf::ForOp inner) {
                           return inner == loop ? WalkResult::advance()
                                                : WalkResult::interrupt();
                         })
                         .wasInterrupted();
  };
  func.walk([&](Operation *op) {
    if (auto copy = dyn_cast<tgpu::TMALoadOp>(op)) {
      auto view = copy.getDesc().getType();
      auto buf = cast<tgpu::SharedBufferType>(copy.getDst().getType());
      bool inLoop = inMainLoop(op);
      std::string swz =
          view.getTmaSwizzle()
              ? std::to_string(view.getTmaSwizzle()) + "-byte swizzle"
              : "no swizzle";
      loads[op->getLoc()] =
          "load: TMA, a " + shape(buf.getSlotShape()) + " slot in boxes of " +
          shape(view.getTmaBox()) + " (" + swz + "), " +
          (buf.getNumSlots() == 1
               ? std::string("one slot")
               : std::to_string(buf.getNumSlots()) + " in a ring") +
          (inLoop ? ", each iteration" : ", once before the main loop");
    } else if (auto copy = dyn_cast<tgpu::ThreadCopyOp>(op)) {
      auto buf = cast<tgpu::SharedBufferType>(copy.getBuffer().getType());
      loads[op->getLoc()] =
          copy.getInSlot()
              ? "load: copied K-major by the load partition's threads "
                "(transposed through registers into a " +
                    shape(buf.getSlotShape()) + " slot, as 8-bit wgmma "
                    "reads B), " + std::to_string(buf.getNumSlots()) +
                    " in a ring"
              : "load: copied by the load partition's threads into " +
                    std::to_string(buf.getNumSlots()) + " slots";
    } else if (auto gather = dyn_cast<tgpu::ThreadGatherOp>(op)) {
      auto buf = cast<tgpu::SharedBufferType>(gather.getBuffer().getType());
      auto view = gather.getTensor().getType();
      loads[op->getLoc()] =
          "gather: made by the load partition's threads into the MMA's " +
          shape(buf.getSlotShape()) + " slot (" +
          (view.isTMA() ? "TMA boxes of " + shape(view.getTmaBox()) +
                              " where a run of rows is one, else cp.async"
                        : std::string("cp.async")) +
          ", not waited for), " + std::to_string(buf.getNumSlots()) +
          " in a ring, each iteration";
    } else if (auto store = dyn_cast<tgpu::TMAStoreOp>(op);
               store && store.getReduce() && inMainLoop(op)) {
      // A reducing store of the main loop (an epilogue's has no line).
      auto view = store.getDesc().getType();
      auto buf = store.getBuffer().getType();
      loads[op->getLoc()] =
          "store: TMA reduce-add (cp.reduce.async.bulk.tensor) in boxes of " +
          shape(view.getTmaBox()) + " (" +
          std::to_string(view.getTmaSwizzle()) + "-byte swizzle) through " +
          std::to_string(buf.getNumSlots()) + " slots, each iteration";
    } else if (auto store = dyn_cast<tgpu::SlotStoreOp>(op)) {
      bool gather = store.getValue().getDefiningOp<GatherOp>() != nullptr;
      loads[op->getLoc()] =
          std::string(gather ? "gather: made" : "load: read") +
          " by the load partition's threads into " +
          std::to_string(store.getBuffer().getType().getNumSlots()) +
          " slots, each iteration";
    }
  });
  for (auto &[loc, entry] : loads)
    out.push_back({loc, entry});
  // MMAs: the instruction and its warpgroups from the accumulator's
  // layout (as the lowering reads it), the operands' sources and
  // majorness, the wait that reads its result.
  func.walk([&](tgpu::WGMMAOp mma) {
    auto acc = cast<RankedTensorType>(mma.getType());
    auto [groupsM, groupsN] = getLayout(acc).wgmmaWarpGroupsOf();
    auto b = mma.getB().getType();
    Type elt = b.getElementType();
    int64_t m = acc.getShape()[0], n = acc.getShape()[1],
            k = b.getSlotShape()[0], kStep = tgpu::wgmmaK(elt);
    auto major = [&](tgpu::SharedBufferType t, int operand) {
      auto d = tgpu::getOperandDescriptor(t, operand);
      return std::string(d && d->kMajor ? "K-major" : "MN-major");
    };
    std::string text = "dot: wgmma m64n" + std::to_string(n / groupsN) + "k" +
                       std::to_string(kStep) + " x" +
                       std::to_string(m / (64 * groupsM) * (k / kStep)) +
                       " a warpgroup";
    if (groupsM * groupsN > 1)
      text += ", " + std::to_string(groupsM * groupsN) + " warpgroups" +
              (groupsN > 1 ? " splitting N" : " splitting M");
    if (auto a = dyn_cast<tgpu::SharedBufferType>(mma.getA().getType()))
      text += std::string(tgpu::stageOf(mma.getA())
                              ? "; A staged in shared memory by the compute "
                                "warps ("
                              : "; A from shared memory (") +
              major(a, 0) + ")";
    else
      text += std::string("; A from registers") +
              (mma.getA().getDefiningOp<ConvertLayoutOp>()
                   ? " (converted through shared memory)"
                   : "");
    text += ", B from shared memory (" + major(b, 1) + ")";
    std::string waited = "; left in flight into the next iteration";
    for (Operation *user : mma->getUsers())
      if (auto next = dyn_cast<tgpu::WGMMAOp>(user);
          next && next.getAcc() == mma.getResult()) {
        // (MLA's S = Q·Kᵀ over the latent columns, then the rotary ones.)
        waited = "; its result the next MMA's accumulator, waited for with it";
        break;
      } else if (auto wait = dyn_cast<tgpu::WGMMAWaitOp>(user)) {
        waited = wait.getPendings() == 0
                     ? "; waited for before the next MMA"
                     : "; waited for with " +
                           std::to_string(wait.getPendings()) +
                           " later MMA group(s) in flight";
        break;
      }
    std::pair<Location, std::string> line{mma.getLoc(), text + waited};
    if (!llvm::is_contained(out, line))
      out.push_back(line);
  });
  return out;
}

std::vector<KernelPath> tilec::describeKernelPaths(ModuleOp module) {
  std::vector<KernelPath> paths;
  bool asyncTarget = TargetInfo::of(module).hasAsyncMMA();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(kKernelAttr))
      continue;
    KernelPath p{func.getSymName().str(), func.getLoc(), "", false,
                 func->hasAttr(kVariantOfAttr) ||
                     func->hasAttr(kPlainVariantOfAttr),
                 func->hasAttr(kPlainVariantOfAttr)};
    bool ws = false, wgmma = false, tcgen05 = false, mmaSync = false,
         tma = false, threadCopies = false, claims = false;
    func.walk([&](Operation *op) {
      claims |= isa<tgpu::ClaimTileOp>(op);
      ws |= isa<tgpu::WarpSpecializeOp>(op);
      wgmma |= isa<tgpu::WGMMAOp>(op);
      tcgen05 |= isa<tgpu::Tcgen05MMAOp>(op);
      mmaSync |= isa<DotOp>(op);
      tma |= isa<tgpu::TMALoadOp>(op) || op->hasAttr(tgpu::kTMAAttr);
      threadCopies |= isa<tgpu::ThreadCopyOp>(op);
    });
    std::string d;
    auto stages = func->getAttrOfType<IntegerAttr>(tgpu::kNumStagesAttr);
    if (ws) {
      // (A twin's load partition copies what TMA cannot read itself.)
      d = std::string("warp-specialized ") +
          (threadCopies && !tma ? "thread copies + " : "TMA + ") +
          (wgmma     ? "wgmma"
           : tcgen05 ? "tcgen05 (tensor memory)"
                     : "mma.sync");
      if (auto sched = func->getAttr(kScheduleAttr)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        sched.print(os);
        d += ", " + text;
      }
      if (stages)
        d += ", " + std::to_string(stages.getInt()) + " stages";
      // (tile-persistent-tiles consumes the attribute; the grid rule it
      // leaves counts the multiprocessors.)
      auto grid = func->getAttrOfType<GridAttr>(kGridAttr);
      auto dynamic = func->getAttrOfType<TileSchedulerAttr>(tgpu::kPersistentAttr);
      if (claims || (dynamic && dynamic.getValue() == TileScheduler::Dynamic))
        d += ", persistent (tiles taken dynamically)";
      else if (func->hasAttr(tgpu::kPersistentAttr) ||
               (grid && grid.axis(0).usesSms()))
        d += ", persistent";
      if (auto c = func->getAttrOfType<IntegerAttr>(kClusterAttr))
        d += ", cluster of " + std::to_string(c.getInt());
      if (func->hasAttr(tgpu::kCtaGroupAttr))
        d += ", MMAs over the CTA pair (cta_group::2)";
    } else if (stages) {
      d = "pipelined (" + std::string(tma ? "TMA ring, " : "") +
          std::to_string(stages.getInt()) + " stages)";
    } else {
      d = "plain";
    }
    if (mmaSync && !ws)
      d += ", dots on mma.sync";
    p.missedFastPath = mmaSync && asyncTarget && !p.isTwin;
    p.description = d;
    if (ws)
      p.mainLoop = describeMainLoop(func);
    paths.push_back(std::move(p));
  }
  return paths;
}

std::map<std::string, PtxasStats> tilec::parsePtxasInfo(StringRef log) {
  std::map<std::string, PtxasStats> stats;
  llvm::Regex function("Compiling entry function '([^']+)'"),
      frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
            "([0-9]+) bytes spill loads"),
      used("Used ([0-9]+) registers");
  PtxasStats *current = nullptr;
  SmallVector<StringRef> lines, m;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    if (function.match(line, &m)) {
      current = &stats[m[1].str()];
    } else if (current && frame.match(line, &m)) {
      m[1].getAsInteger(10, current->stackBytes);
      m[2].getAsInteger(10, current->spillStores);
      m[3].getAsInteger(10, current->spillLoads);
    } else if (current && used.match(line, &m)) {
      m[1].getAsInteger(10, current->registers);
    }
  }
  return stats;
}
