//===- Report.cpp - tilec compile --report=bank-conflicts -----------------===//

#include "Report.h"

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"

#include "llvm/Support/Format.h"

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
