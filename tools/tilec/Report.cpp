//===- Report.cpp - tilec compile --report=bank-conflicts -----------------===//

#include "Report.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
         tma = false, threadCopies = false;
    func.walk([&](Operation *op) {
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
      if (func->hasAttr(tgpu::kPersistentAttr))
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
