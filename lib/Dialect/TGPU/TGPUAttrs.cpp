//===- TGPUAttrs.cpp - tgpu attributes ------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "TGPUUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TGPU/TGPUAttrs.cpp.inc"

void TGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/TGPU/TGPUAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult MMAAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              MMAKind kind, OperandSource a, OperandSource b) {
  if (kind == MMAKind::MMASync &&
      (a != OperandSource::Registers || b != OperandSource::Registers))
    return emitError() << "mma_sync reads both operands from registers";
  if (kind != MMAKind::MMASync && b != OperandSource::Shared &&
      (kind != MMAKind::WGMMA || b != OperandSource::KMajorCopy))
    return emitError() << stringifyMMAKind(kind)
                       << " reads B from shared memory (wgmma: or a K-major "
                          "copy's)";
  return success();
}

LogicalResult
TensorMemoryAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t columns, int32_t ctaGroup,
                         std::optional<int64_t> address) {
  if (ctaGroup != 1 && ctaGroup != 2)
    return emitError() << "the CTA group is 1 or 2, not " << ctaGroup;
  if (columns < 32 || columns > 512 || !llvm::isPowerOf2_64(columns))
    return emitError() << "allocates a power of two of 32 to 512 columns, "
                          "not "
                       << columns;
  if (address && (*address < 0 || *address % 8))
    return emitError() << "the address word's offset must be a non-negative "
                          "multiple of 8";
  return success();
}

LogicalResult PartitionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                    PartitionRole role, int32_t warps,
                                    int32_t regs, int32_t copies) {
  if (copies < 1 || copies > 2)
    return emitError() << "a partition runs as 1 or 2 copies, found " << copies;
  if (copies > 1 && role != PartitionRole::Compute)
    return emitError() << "only a compute partition runs as several copies";
  if (warps < 0)
    return emitError() << "a partition's warps are not negative, found "
                       << warps;
  if (regs != 0 && (regs < 24 || regs > 256 || regs % 8 != 0))
    return emitError() << "register budgets are multiples of 8 in 24..256, "
                          "found "
                       << regs;
  return success();
}

// #tgpu.partition<role (, warps = N)? (, regs = N)? (, copies = N)?>, the
// keys in any order.
Attribute PartitionAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef roleName;
  if (parser.parseLess() || parser.parseKeyword(&roleName))
    return {};
  std::optional<PartitionRole> role = symbolizePartitionRole(roleName);
  if (!role) {
    parser.emitError(loc) << "expected a partition role (load, compute), "
                             "found '"
                          << roleName << "'";
    return {};
  }
  int32_t values[3] = {0, 0, 1};
  bool seen[3] = {false, false, false};
  const char *keys[3] = {"warps", "regs", "copies"};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return {};
    int i = 0;
    while (i < 3 && key != keys[i])
      ++i;
    if (i == 3 || seen[i]) {
      parser.emitError(keyLoc)
          << (i == 3 ? "unknown" : "repeated") << " partition key '" << key
          << "' (expected warps, regs, copies)";
      return {};
    }
    seen[i] = true;
    if (parser.parseEqual() || parser.parseInteger(values[i]))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PartitionAttr>(loc, parser.getContext(), *role,
                                          values[0], values[1], values[2]);
}

void PartitionAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyPartitionRole(getRole());
  if (getWarps())
    printer << ", warps = " << getWarps();
  if (getRegs())
    printer << ", regs = " << getRegs();
  if (getCopies() != 1)
    printer << ", copies = " << getCopies();
  printer << ">";
}

LogicalResult
TMACopyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                    ArrayRef<int64_t> box, int64_t swizzle) {
  if (box.empty() || box.size() > 5 ||
      llvm::any_of(box, [](int64_t d) { return d < 1 || d > 256; }))
    return emitError() << "a TMA box has 1 to 5 dims of 1..256 elements";
  if (!llvm::is_contained({0, 32, 64, 128}, swizzle))
    return emitError() << "a TMA swizzle is 0, 32, 64 or 128 bytes, found "
                       << swizzle;
  return success();
}

LogicalResult TGPUDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kMMAAttr) {
    if (!isa<tile::DotOp>(op) || !isa<MMAAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' is a tile.dot's #tgpu.mma<...>";
    return success();
  }
  if (name == kTMAAttr) {
    auto load = dyn_cast<tile::LoadOp>(op);
    auto copy = dyn_cast<TMACopyAttr>(attr.getValue());
    if (!load || !copy)
      return op->emitError() << "'" << name
                             << "' is a tile.load's #tgpu.tma_copy<...>";
    if (load.getMask())
      return op->emitError() << "'" << name
                             << "' on a masked load (TMA copies whole boxes)";
    if (int64_t(copy.getBox().size()) !=
        cast<RankedTensorType>(load.getType()).getRank())
      return op->emitError() << "'" << name << "': the box has "
                             << copy.getBox().size()
                             << " dims but the tile has rank "
                             << cast<RankedTensorType>(load.getType()).getRank();
    return success();
  }
  if (name == kPartitionsAttr) {
    auto arr = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<scf::ForOp>(op) || !arr || arr.empty() ||
        !llvm::all_of(arr, [](Attribute a) { return isa<PartitionAttr>(a); }))
      return op->emitError() << "'" << name
                             << "' is a loop's array of #tgpu.partition<...>";
    return success();
  }
  if (name == kPersistentAttr) {
    if (!isa<func::FuncOp>(op) || !op->hasAttr(tile::kKernelAttr) ||
        !isa<UnitAttr, tile::TileSchedulerAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' is a unit or a #tile.tile_scheduler "
                                "attribute of a tile.kernel function";
    return success();
  }
  if (name == kCtaGroupAttr) {
    auto g = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<func::FuncOp>(op) || !op->hasAttr(tile::kKernelAttr) || !g ||
        !g.getType().isInteger(32) || g.getInt() != 2)
      return op->emitError() << "'" << name
                             << "' is a tile.kernel function's i32 2";
    return success();
  }
  if (name == kTensorMemoryAttr) {
    if (!isa<func::FuncOp>(op) || !op->hasAttr(tile::kKernelAttr) ||
        !isa<TensorMemoryAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a tile.kernel "
                                               "function's #tgpu.tensor_memory";
    return success();
  }
  if (name == kNamedBarriersAttr) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!isa<func::FuncOp>(op) || !dict ||
        !llvm::all_of(dict, [](NamedAttribute a) {
          auto i = dyn_cast<IntegerAttr>(a.getValue());
          return i && i.getType().isInteger(32) && i.getInt() >= 0 &&
                 i.getInt() < 16;
        }))
      return op->emitError() << "'" << name << "' is a function's dictionary "
                                               "of i32 named-barrier ids (0..15)";
    return success();
  }
  if (name == kPartitionAttr) {
    auto ids = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
    auto loop = dyn_cast_or_null<scf::ForOp>(op->getParentOp());
    auto parts = loop ? loop->getAttrOfType<ArrayAttr>(kPartitionsAttr)
                      : ArrayAttr();
    // An op beside such a loop (a copy issued once before it, the release
    // after it) belongs to its schedule too.
    if (!parts && op->getBlock())
      for (auto sibling : op->getBlock()->getOps<scf::ForOp>())
        if ((parts = sibling->getAttrOfType<ArrayAttr>(kPartitionsAttr)))
          break;
    if (!ids || ids.empty() || !parts)
      return op->emitError() << "'" << name
                             << "' is a non-empty array<i32> on an op of a "
                                "loop with tgpu.partitions (or of its "
                                "block)";
    for (int32_t i : ids.asArrayRef())
      if (i < 0 || i >= int32_t(parts.size()))
        return op->emitError() << "'" << name << "': no partition " << i
                               << " (the loop has " << parts.size() << ")";
    return success();
  }
  if (name == kScratchOffsetAttr) {
    auto off = dyn_cast<IntegerAttr>(attr.getValue());
    if (!off || !off.getType().isInteger(64) || off.getInt() < 0)
      return op->emitError() << "'" << name
                             << "' is a byte offset in shared memory (i64): "
                                "a kernel's scratch area or an op's scratch";
    return success();
  }
  if (name == kNumStagesAttr) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<func::FuncOp>(op) || !n || !n.getType().isInteger(32) ||
        n.getInt() < 2 || n.getInt() > 8)
      return op->emitError() << "'" << name
                             << "' is a function's i32 number of ring slots "
                                "(2..8)";
    return success();
  }
  // The lowering's own bookkeeping (tgpu.thread_range, tgpu.tma_args,
  // tgpu.launch_warps: lib/Conversion/TileToLLVM) is not checked here.
  return success();
}
