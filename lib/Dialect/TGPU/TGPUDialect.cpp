//===- TGPUDialect.cpp - tgpu dialect, types and ops ----------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

#include "tilec/Dialect/TGPU/TGPUDialect.cpp.inc"
#include "tilec/Dialect/TGPU/TGPUEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TGPU/TGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TGPU/TGPUTypes.cpp.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/TGPU/TGPUOps.cpp.inc"

void TGPUDialect::initialize() {
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/TGPU/TGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TGPU/TGPUOps.cpp.inc"
      >();
}

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
  if (kind != MMAKind::MMASync && b != OperandSource::Shared)
    return emitError() << stringifyMMAKind(kind)
                       << " reads B from shared memory";
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
  // The lowering's own bookkeeping (tgpu.thread_range, tgpu.tma_args,
  // tgpu.launch_warps: lib/Conversion/TileToLLVM) is not checked here.
  return success();
}

MMAAttr tgpu::getMMA(tile::DotOp dot) {
  if (auto a = dot->getAttrOfType<MMAAttr>(kMMAAttr))
    return a;
  return MMAAttr::mmaSync(dot.getContext());
}

TMACopyAttr tgpu::getTMACopy(tile::LoadOp load) {
  return load->getAttrOfType<TMACopyAttr>(kTMAAttr);
}

ArrayRef<int32_t> tgpu::getPartitions(Operation *op) {
  if (auto ids = op->getAttrOfType<DenseI32ArrayAttr>(kPartitionAttr))
    return ids.asArrayRef();
  return {};
}

scf::ForOp tgpu::scheduledLoop(func::FuncOp func) {
  for (auto loop : func.getBody().front().getOps<scf::ForOp>())
    if (loop->hasAttr(kPartitionsAttr))
      return loop;
  return {};
}

void tgpu::selectMMASync(tile::DotOp dot) {
  dot->setAttr(kMMAAttr, MMAAttr::mmaSync(dot.getContext()));
  auto type = cast<RankedTensorType>(dot.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  auto iterArg = dyn_cast<BlockArgument>(dot.getAcc());
  int numWarps = tile::getNumWarps(dot->getParentOfType<func::FuncOp>());
  if (!tile::getLayoutAttr(type) || shape.size() != 2 || numWarps % 4 ||
      tile::getLayout(type) != LinearLayout::tmem32x32b(shape, numWarps))
    return;
  bool carried = loop && iterArg && iterArg.getOwner() == loop.getBody();
  auto [wm, wn] =
      LinearLayout::mmaWarpSplit(shape[0], shape[1], numWarps, !carried);
  auto mmaType = cast<RankedTensorType>(
      tile::withLayout(type, LinearLayout::mmaAccumulator(shape, wm, wn)));
  if (!carried) {
    OpBuilder b(dot);
    auto aType = cast<RankedTensorType>(dot.getA().getType());
    std::vector<int64_t> aShape(aType.getShape().begin(),
                                aType.getShape().end());
    LinearLayout aWant = LinearLayout::mmaOperand(
        0, aShape, aType.getElementType().getIntOrFloatBitWidth(), wm, wn);
    if (tile::getLayout(aType) != aWant)
      dot.getAMutable().assign(tile::ConvertLayoutOp::create(
          b, dot.getLoc(), tile::withLayout(aType, aWant), dot.getA()));
    dot.getAccMutable().assign(
        tile::ConvertLayoutOp::create(b, dot.getLoc(), mmaType, dot.getAcc()));
    dot.getResult().setType(mmaType);
    b.setInsertionPointAfter(dot);
    auto back = tile::ConvertLayoutOp::create(b, dot.getLoc(), type, dot.getResult());
    dot.getResult().replaceAllUsesExcept(back, back);
    return;
  }
  unsigned idx = iterArg.getArgNumber() - 1;
  OpBuilder b(loop);
  OpOperand &init = loop.getInitsMutable()[idx];
  init.set(tile::ConvertLayoutOp::create(b, loop.getLoc(), mmaType, init.get()));
  iterArg.setType(mmaType);
  dot.getResult().setType(mmaType);
  Value result = loop.getResult(idx);
  result.setType(mmaType);
  b.setInsertionPointAfter(loop);
  auto back = tile::ConvertLayoutOp::create(b, loop.getLoc(), type, result);
  result.replaceAllUsesExcept(back, back);
}

int tgpu::getComputeCopies(scf::ForOp loop) {
  auto parts = loop->getAttrOfType<ArrayAttr>(kPartitionsAttr);
  int copies = 1;
  for (Attribute a : parts ? parts : ArrayAttr::get(loop.getContext(), {}))
    if (auto p = dyn_cast<PartitionAttr>(a);
        p && p.getRole() == PartitionRole::Compute)
      copies = std::max<int>(copies, p.getCopies());
  return copies;
}

bool tgpu::inRole(Operation *op, scf::ForOp loop, PartitionRole role) {
  auto parts = loop->getAttrOfType<ArrayAttr>(kPartitionsAttr);
  if (!parts)
    return false;
  return llvm::any_of(getPartitions(op), [&](int32_t i) {
    return cast<PartitionAttr>(parts[i]).getRole() == role;
  });
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static unsigned bitsOf(Type t) { return std::max(8u, t.getIntOrFloatBitWidth()); }

// Shared by the two buffer types (shared memory, tensor memory): leading
// dims count slots, a single leading `?` is a channel's ring of unknown
// depth.

static void printDims(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      printer << "?";
    else
      printer << d;
    printer << "x";
  }
}

static LogicalResult
verifySlotCounts(function_ref<InFlightDiagnostic()> emitError,
                 ArrayRef<int64_t> counts) {
  for (int64_t d : counts)
    if (ShapedType::isDynamic(d)) {
      if (counts.size() != 1)
        return emitError() << "a ring of unknown depth has one leading `?`";
    } else if (d <= 0) {
      return emitError() << "slot counts must be positive, found " << d;
    }
  return success();
}

/// The product of `counts`; ShapedType::kDynamic for a ring of unknown
/// depth.
static int64_t slotCount(ArrayRef<int64_t> counts) {
  int64_t n = 1;
  for (int64_t d : counts) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    n *= d;
  }
  return n;
}

Type SharedBufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elt;
  tile::SharedLayoutAttr layout;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elt) || parser.parseComma() ||
      parser.parseAttribute(layout) || parser.parseGreater())
    return {};
  return parser.getChecked<SharedBufferType>(parser.getContext(), shape, elt,
                                             layout);
}

void SharedBufferType::print(AsmPrinter &printer) const {
  printer << "<";
  printDims(printer, getShape());
  printer << getElementType() << ", " << getLayout() << ">";
}

LogicalResult
SharedBufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elt,
                         tile::SharedLayoutAttr layout) {
  if (!tile::isTileElementType(elt))
    return emitError() << "unsupported element type " << elt;
  if (layout.getRank() > shape.size() || layout.getRank() == 0)
    return emitError() << "layout of rank " << layout.getRank()
                       << " does not fit a buffer of rank " << shape.size();
  int64_t slotElems = 1;
  for (int64_t d : shape.take_back(layout.getRank())) {
    if (ShapedType::isDynamic(d))
      return emitError() << "slot dims must be static";
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      return emitError() << "slot dims must be powers of two, found " << d;
    slotElems *= d;
  }
  if (failed(verifySlotCounts(emitError, shape.drop_back(layout.getRank()))))
    return failure();
  if (int64_t(1) << (layout.getOffsetBases().size() / layout.getRank()) !=
      slotElems)
    return emitError() << "layout has "
                       << layout.getOffsetBases().size() / layout.getRank()
                       << " offset bases, a slot of " << slotElems
                       << " elements needs " << llvm::Log2_64(slotElems);
  // Every basis names an element of the slot.
  ArrayRef<int64_t> slot = shape.take_back(layout.getRank());
  ArrayRef<int64_t> flat = layout.getOffsetBases();
  for (size_t i = 0; i < flat.size(); ++i)
    if (flat[i] < 0 || flat[i] >= slot[i % slot.size()])
      return emitError() << "offset basis " << i / slot.size() << " has "
                         << flat[i] << " in dim " << i % slot.size()
                         << ", outside the slot's " << slot[i % slot.size()];
  return success();
}

ArrayRef<int64_t> SharedBufferType::getSlotShape() const {
  return getShape().take_back(getLayout().getRank());
}

int64_t SharedBufferType::getNumSlots() const {
  return slotCount(getShape().drop_back(getLayout().getRank()));
}

bool SharedBufferType::hasUnknownDepth() const {
  return ShapedType::isDynamic(getNumSlots());
}

int64_t SharedBufferType::getSlotBytes() const {
  int64_t n = bitsOf(getElementType()) / 8;
  for (int64_t d : getSlotShape())
    n *= d;
  return n;
}

SharedBufferType SharedBufferType::withNumSlots(int64_t n) const {
  SmallVector<int64_t> shape = {n};
  llvm::append_range(shape, getSlotShape());
  return get(getContext(), shape, getElementType(), getLayout());
}

int64_t SharedBufferType::getAlignment() const {
  return isLaunchControlResponses(*this) ? 16 : 1024;
}

int64_t SharedBufferType::getSlotStride() const {
  return llvm::alignTo(getSlotBytes(), getAlignment());
}

LinearLayout SharedBufferType::getSlotLayout() const {
  return getLayout().toLayout(getSlotShape());
}

Type TensorMemoryBufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elt;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elt) || parser.parseGreater())
    return {};
  return parser.getChecked<TensorMemoryBufferType>(parser.getContext(), shape,
                                                   elt);
}

void TensorMemoryBufferType::print(AsmPrinter &printer) const {
  printer << "<";
  printDims(printer, getShape());
  printer << getElementType() << ">";
}

LogicalResult
TensorMemoryBufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elt) {
  if (!(elt.isF32() || elt.isInteger(32) || elt.isF16() || elt.isBF16()))
    return emitError() << "tensor memory holds f32, i32, f16 or bf16 tiles, "
                          "not "
                       << elt;
  if (shape.size() < 2)
    return emitError() << "a slot is 2-d (128 lanes x columns)";
  if (shape[shape.size() - 2] != 128)
    return emitError() << "a slot has 128 rows (TMEM lanes), not "
                       << shape[shape.size() - 2];
  int64_t cols = shape.back();
  if (cols <= 0 || !llvm::isPowerOf2_64(cols) ||
      cols * elt.getIntOrFloatBitWidth() < 32 * 8)
    return emitError() << "a slot's columns are a power of two of at least 8 "
                          "32-bit columns, found "
                       << cols;
  ArrayRef<int64_t> counts = shape.drop_back(2);
  if (failed(verifySlotCounts(emitError, counts)))
    return failure();
  // (A ring of unknown depth counts one slot here; its columns are counted
  // once allocated, by tile-allocate-tensor-memory.)
  int64_t slots = slotCount(counts);
  int64_t total = cols * elt.getIntOrFloatBitWidth() / 32 *
                  (ShapedType::isDynamic(slots) ? 1 : slots);
  if (total > 512)
    return emitError() << "takes " << total
                       << " columns; tensor memory has 512";
  return success();
}

int64_t TensorMemoryBufferType::getNumSlots() const {
  return slotCount(getShape().drop_back(2));
}

bool TensorMemoryBufferType::hasUnknownDepth() const {
  return ShapedType::isDynamic(getNumSlots());
}

TensorMemoryBufferType TensorMemoryBufferType::withNumSlots(int64_t n) const {
  SmallVector<int64_t> shape = {n};
  llvm::append_range(shape, getSlotShape());
  return get(getContext(), shape, getElementType());
}

int64_t TensorMemoryBufferType::getSlotColumns() const {
  return getShape().back() * getElementType().getIntOrFloatBitWidth() / 32;
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

int64_t tgpu::wgmmaK(Type elementType) {
  // 32 bytes of K: k32 for 8-bit inputs, k16 for 16-bit, k8 for tf32.
  return 256 / bitsOf(elementType);
}

int64_t tgpu::slotByteOffset(SharedBufferType buffer, ArrayRef<int64_t> coords) {
  LinearLayout inv = buffer.getSlotLayout().invert();
  LinearLayout::NamedValues in;
  for (auto [i, c] : llvm::enumerate(coords))
    in.push_back({outDimName(i), c});
  return inv.apply(in).front().second * bitsOf(buffer.getElementType()) / 8;
}

/// The fast (contiguous) dim and the swizzle of a 2-d slot laid out as one
/// of the NVMMA swizzles, if it is.
static std::optional<std::pair<int, int>> matchNVMMA(SharedBufferType buffer) {
  ArrayRef<int64_t> shape = buffer.getSlotShape();
  if (shape.size() < 2)
    return std::nullopt;
  std::vector<int64_t> s(shape.begin(), shape.end());
  LinearLayout layout = buffer.getSlotLayout();
  // 2-d slots along either dim; deeper ones (TMA boxes with outer dims)
  // along the last, the outer dims slowest.
  std::vector<std::vector<int64_t>> orders;
  if (s.size() == 2) {
    orders = {{0, 1}, {1, 0}};
  } else {
    orders.emplace_back();
    for (int d = s.size() - 1; d >= 0; --d)
      orders.back().push_back(d);
  }
  for (const auto &order : orders)
    for (int sw : {128, 64, 32})
      if (LinearLayout::sharedNVMMA(s, order, bitsOf(buffer.getElementType()),
                                    sw) == layout)
        return std::make_pair(int(order[0]), sw);
  return std::nullopt;
}

int tgpu::getOperandDescriptorSwizzle(SharedBufferType buffer) {
  auto m = matchNVMMA(buffer);
  return m ? m->second : -1;
}

std::optional<OperandDescriptor>
tgpu::getOperandDescriptor(SharedBufferType buffer, int operand) {
  auto m = matchNVMMA(buffer);
  if (!m)
    return std::nullopt;
  auto [fast, sw] = *m;
  ArrayRef<int64_t> shape = buffer.getSlotShape();
  unsigned bits = bitsOf(buffer.getElementType());
  int kDim = operand == 0 ? 1 : 0;
  int mnDim = 1 - kDim;
  OperandDescriptor d;
  d.kMajor = fast == kDim;
  d.swizzleBytes = sw;
  int64_t atomElems = sw * 8 / bits; // elements of one swizzled row
  auto at = [&](int dim, int64_t v) {
    SmallVector<int64_t> c(2, 0);
    c[dim] = v;
    return slotByteOffset(buffer, c);
  };
  if (d.kMajor) {
    // 8-row groups along M/N are SBO apart; one k-step stays inside a
    // swizzled row, so LBO is unused (1 by convention).
    if (shape[mnDim] < 8 || shape[kDim] * bits < 8 * 16 * 8 / 8)
      return std::nullopt;
    d.strideByteOffset = at(mnDim, 8);
    d.leadingByteOffset = 1;
  } else {
    // MN-major: swizzled rows run along M/N; 8-row groups along K are
    // SBO apart, atoms side by side along M/N are LBO apart.
    if (shape[kDim] < 8)
      return std::nullopt;
    d.strideByteOffset = at(kDim, 8);
    d.leadingByteOffset = shape[mnDim] > atomElems ? at(mnDim, atomElems) : 1;
  }
  return d;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// `t` with its 2-d slots transposed: the offset bases' coordinates swap.
static SharedBufferType transposedSlots(SharedBufferType t) {
  SmallVector<int64_t> shape(t.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  SmallVector<int64_t> bases(t.getLayout().getOffsetBases());
  for (unsigned i = 0; i + 1 < bases.size(); i += 2)
    std::swap(bases[i], bases[i + 1]);
  return SharedBufferType::get(
      t.getContext(), shape, t.getElementType(),
      tile::SharedLayoutAttr::get(t.getContext(), 2, bases));
}

void TransposeOp::build(OpBuilder &b, OperationState &state, Value src) {
  build(b, state, transposedSlots(cast<SharedBufferType>(src.getType())), src);
}

LogicalResult TransposeOp::verify() {
  SharedBufferType src = getSrc().getType();
  if (src.getLayout().getRank() != 2)
    return emitOpError() << "needs 2-d slots";
  if (getResult().getType() != transposedSlots(src))
    return emitOpError() << "result must be " << transposedSlots(src);
  return success();
}

SharedBufferType tgpu::launchControlResponses(MLIRContext *ctx, int64_t rows) {
  // Row-major: offset bits 0-1 the word, the rest the row.
  SmallVector<int64_t> bases{0, 1, 0, 2};
  for (int64_t r = 1; r < rows; r *= 2)
    bases.append({r, 0});
  return SharedBufferType::get(ctx, {rows, 4},
                               IntegerType::get(ctx, 32),
                               tile::SharedLayoutAttr::get(ctx, 2, bases));
}

bool tgpu::isLaunchControlResponses(SharedBufferType t) {
  // The cheap tests first: every buffer's alignment asks.
  ArrayRef<int64_t> shape = t.getShape();
  return shape.size() == 2 && shape[1] == 4 &&
         t.getElementType().isInteger(32) && llvm::isPowerOf2_64(shape[0]) &&
         t == launchControlResponses(t.getContext(), shape[0]);
}

/// A buffer of try_cancel responses: one slot of Nx4 i32, row-major.
static LogicalResult verifyResponses(Operation *op, SharedBufferType t) {
  if (!isLaunchControlResponses(t))
    return op->emitOpError()
           << "needs a buffer of try_cancel responses, a power-of-two N rows "
              "of 4 i32, row-major (as tgpu::launchControlResponses makes), "
              "found "
           << t;
  return success();
}

LogicalResult TryCancelOp::verify() {
  return verifyResponses(*this, getResponse().getType());
}

LogicalResult QueryCancelOp::verify() {
  return verifyResponses(*this, getResponse().getType());
}

LogicalResult ArriveOp::verify() {
  if (getCluster() && getLeader())
    return emitOpError() << "arrives on every CTA's barrier (cluster) or on "
                            "the leader's, not both";
  return success();
}

LogicalResult TMALoadOp::verify() {
  tile::TensorViewType desc = getDesc().getType();
  SharedBufferType dst = getDst().getType();
  if (!desc.isTMA())
    return emitOpError() << "needs a view with a TMA box and swizzle";
  if (desc.getTmaSwizzle() != 0 &&
      getOperandDescriptorSwizzle(dst) != desc.getTmaSwizzle())
    return emitOpError() << "the buffer's layout is not the descriptor's "
                         << desc.getTmaSwizzle() << "-byte swizzle";
  if (getCoords().size() != desc.getTmaBox().size())
    return emitOpError() << "has " << getCoords().size()
                         << " coordinates for a box of rank "
                         << desc.getTmaBox().size();
  if (desc.getElementType() != dst.getElementType())
    return emitOpError() << "copies " << desc.getElementType() << " into a "
                         << dst.getElementType() << " buffer";
  ArrayRef<int64_t> slot = dst.getSlotShape();
  ArrayRef<int64_t> box = desc.getTmaBox();
  // A box may have more dims than the slot: leading 1s (a 2-d tile of a
  // 3-d view).
  if (slot.size() > box.size() ||
      llvm::any_of(box.drop_back(slot.size()), [](int64_t d) { return d != 1; }))
    return emitOpError() << "slot rank " << slot.size()
                         << " differs from the box rank " << box.size()
                         << " (beyond leading 1s of the box)";
  box = box.take_back(slot.size());
  for (auto [s, b] : llvm::zip(slot, box))
    if (s % b != 0)
      return emitOpError() << "slot dim " << s << " is not a multiple of box dim "
                           << b;
  for (unsigned i = 0; i + 1 < slot.size(); ++i)
    if (slot[i] != box[i])
      return emitOpError() << "only the innermost dim may take several boxes";
  if (auto bars = dyn_cast<BarriersType>(getBarriers().getType())) {
    if (dst.hasUnknownDepth())
      return emitOpError() << "a ring of unknown depth is filled through its "
                              "channel";
    if (bars.getCount() < dst.getNumSlots())
      return emitOpError() << "needs a barrier per slot";
  } else {
    auto ch = getBarriers().getDefiningOp<ChannelOp>();
    if (!ch || !llvm::is_contained(ch.getBuffers(), getDst()))
      return emitOpError() << "copies into a buffer of the channel it names";
  }
  if (getMulticast() && getLeader())
    return emitOpError() << "multicasts to every CTA's barrier or completes "
                            "on the leader's, not both";
  if (auto n = getMulticast())
    if ((slot.back() / desc.getTmaBox().back()) % *n)
      return emitOpError() << "a slot of " << slot.back() / desc.getTmaBox().back()
                           << " boxes does not split among " << *n << " CTAs";
  return success();
}

Value tgpu::ringSlot(OpBuilder &b, Location loc, Value i, int64_t slots) {
  return arith::RemUIOp::create(
      b, loc, i, arith::ConstantIntOp::create(b, loc, b.getI32Type(), slots));
}

Value tgpu::ringPhase(OpBuilder &b, Location loc, Value i, int64_t slots) {
  Value round = arith::DivUIOp::create(
      b, loc, i, arith::ConstantIntOp::create(b, loc, b.getI32Type(), slots));
  return arith::AndIOp::create(
      b, loc, round, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
}

FailureOr<TMASlot> tgpu::planTMASlot(RankedTensorType tile, std::string &why,
                                     bool squeeze) {
  ArrayRef<int64_t> fullShape = tile.getShape();
  ArrayRef<int64_t> shape = fullShape;
  while (squeeze && shape.size() > 2 && shape.front() == 1)
    shape = shape.drop_front();
  unsigned bits = bitsOf(tile.getElementType());
  if (shape.size() < 2) {
    why = "the tile is 1-d";
    return failure();
  }
  int64_t rowBytes = shape.back() * bits / 8;
  if (rowBytes < 32 || shape[shape.size() - 2] < 8) {
    why = "the tile is too narrow for a swizzled slot";
    return failure();
  }
  if (llvm::any_of(shape.drop_back(), [](int64_t d) { return d > 256; })) {
    why = "the tile has an outer extent over 256 (the TMA box limit)";
    return failure();
  }
  TMASlot t;
  t.swizzle = rowBytes >= 128 ? 128 : rowBytes >= 64 ? 64 : 32;
  t.box.assign(fullShape.begin(), fullShape.end());
  t.box.back() = t.swizzle * 8 / bits;
  std::vector<int64_t> s(shape.begin(), shape.end()), order;
  for (int d = s.size() - 1; d >= 0; --d)
    order.push_back(d);
  LinearLayout slot = LinearLayout::sharedNVMMA(s, order, bits, t.swizzle);
  MLIRContext *ctx = tile.getContext();
  SmallVector<int64_t> one = {1};
  one.append(shape.begin(), shape.end());
  t.type = SharedBufferType::get(ctx, one, tile.getElementType(),
                                 tile::SharedLayoutAttr::get(ctx, slot));
  return t;
}

FailureOr<TMASlot> tgpu::planHalfSlot(RankedTensorType tile, int dim) {
  SmallVector<int64_t> half(tile.getShape());
  half[dim] /= 2;
  std::string unused;
  FailureOr<TMASlot> whole = planTMASlot(tile, unused, /*squeeze=*/true);
  FailureOr<TMASlot> slot = planTMASlot(
      RankedTensorType::get(half, tile.getElementType()), unused, true);
  if (failed(whole) || failed(slot) || slot->swizzle != whole->swizzle)
    return failure();
  return slot;
}

std::optional<SmallVector<unsigned>>
tgpu::chunkSelectBits(const LinearLayout &layout, int64_t cols) {
  if (layout.getRank() != 2 || layout.getShape()[1] % cols != 0)
    return std::nullopt;
  int64_t chunks = layout.getShape()[1] / cols;
  SmallVector<unsigned> bits(llvm::Log2_64(chunks), ~0u);
  for (InDim d : {InDim::Register, InDim::Lane, InDim::Warp})
    for (auto [i, c] : llvm::enumerate(layout.getBases(d))) {
      if (c[1] < cols)
        continue;
      if (d != InDim::Register || c[0] != 0 || c[1] % cols ||
          !llvm::isPowerOf2_64(c[1] / cols))
        return std::nullopt;
      unsigned k = llvm::Log2_64(c[1] / cols);
      if (bits[k] != ~0u)
        return std::nullopt;
      bits[k] = i;
    }
  if (llvm::is_contained(bits, ~0u))
    return std::nullopt;
  return bits;
}

LogicalResult TMAStoreOp::verify() {
  tile::TensorViewType desc = getDesc().getType();
  SharedBufferType buf = getBuffer().getType();
  auto vt = cast<RankedTensorType>(getValue().getType());
  if (!desc.isTMA())
    return emitOpError() << "needs a view with a TMA box and swizzle";
  ArrayRef<int64_t> fullBox = desc.getTmaBox();
  if (vt.getRank() != 2 || fullBox.size() < 2 ||
      getCoords().size() != fullBox.size() ||
      llvm::any_of(fullBox.drop_back(2), [](int64_t d) { return d != 1; }))
    return emitOpError() << "stores 2-d tiles (of views of any rank: a box "
                            "with leading 1s), one coordinate a dim";
  ArrayRef<int64_t> box = fullBox.take_back(2);
  if (buf.getSlotShape() != box || buf.hasUnknownDepth())
    return emitOpError() << "the buffer's slots must be the TMA box, a "
                            "known number of them";
  if (desc.getTmaSwizzle() != 0 &&
      getOperandDescriptorSwizzle(buf) != desc.getTmaSwizzle())
    return emitOpError() << "the buffer's layout is not the descriptor's "
                         << desc.getTmaSwizzle() << "-byte swizzle";
  if (vt.getElementType() != desc.getElementType() ||
      buf.getElementType() != desc.getElementType())
    return emitOpError() << "value, view and buffer element types differ";
  if (vt.getShape()[0] != box[0] || vt.getShape()[1] % box[1])
    return emitOpError() << "a " << vt.getShape()[0] << "x" << vt.getShape()[1]
                         << " tile is not whole " << box[0] << "x" << box[1]
                         << " boxes side by side";
  int64_t chunks = vt.getShape()[1] / box[1];
  if (chunks % buf.getNumSlots())
    return emitOpError() << chunks << " chunks do not cycle through "
                         << buf.getNumSlots() << " slots evenly";
  if (!tile::getLayoutAttr(vt))
    return emitOpError() << "needs a value with a layout";
  if (!chunkSelectBits(tile::getLayout(vt), box[1]))
    return emitOpError() << "the value's layout does not split into "
                         << box[1] << "-column chunks by register";
  return success();
}

/// A tile of registers that is one slot of `buf` (shape and element type)
/// and has a layout; `what` names it in the errors.
static LogicalResult verifySlotTile(Operation *op, SharedBufferType buf,
                                    Type tile, StringRef what) {
  auto t = cast<RankedTensorType>(tile);
  if (t.getShape() != buf.getSlotShape() ||
      t.getElementType() != buf.getElementType())
    return op->emitOpError() << what << " must be a slot of the buffer";
  if (!tile::getLayoutAttr(t))
    return op->emitOpError() << "needs a " << what << " layout";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifySlotTile(*this, getBuffer().getType(), getResult().getType(),
                        "result");
}

LogicalResult LocalStoreOp::verify() {
  if (getBuffer().getType().hasUnknownDepth())
    return emitOpError() << "needs a buffer of known depth";
  return verifySlotTile(*this, getBuffer().getType(), getValue().getType(),
                        "value");
}

LogicalResult ThreadCopyOp::verify() {
  auto tile = cast<RankedTensorType>(getTile());
  SharedBufferType buf = getBuffer().getType();
  if (int64_t(getOffsets().size()) != getTensor().getType().getRank() ||
      tile.getRank() != getTensor().getType().getRank())
    return emitOpError() << "needs an offset and a tile dim for each dim of "
                            "the view";
  if (tile.getElementType() != getTensor().getType().getElementType() ||
      tile.getElementType() != buf.getElementType())
    return emitOpError() << "the view, the tile and the buffer must have one "
                            "element type";
  if (!tile::getLayoutAttr(tile))
    return emitOpError() << "needs a tile layout";
  // The tile's shape without its leading unit dims is the slot's.
  ArrayRef<int64_t> shape = tile.getShape();
  while (shape.size() > buf.getSlotShape().size() && shape.front() == 1)
    shape = shape.drop_front();
  if (shape != buf.getSlotShape())
    return emitOpError() << "the tile (leading unit dims dropped) must be a "
                            "slot of the buffer";
  return success();
}

LogicalResult WGMMAOp::verify() {
  SharedBufferType b = getB().getType();
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (acc != getResult().getType())
    return emitOpError() << "result type must match the accumulator";
  auto aBuf = dyn_cast<SharedBufferType>(getA().getType());
  auto aRegs = dyn_cast<RankedTensorType>(getA().getType());
  if (bool(aBuf) != bool(getASlot()))
    return emitOpError() << "A in shared memory needs a slot index; A in "
                            "registers takes none";
  ArrayRef<int64_t> aShape = aBuf ? aBuf.getSlotShape() : aRegs.getShape();
  Type aElt = aBuf ? aBuf.getElementType() : aRegs.getElementType();
  if (aShape.size() != 2 || b.getSlotShape().size() != 2 || acc.getRank() != 2)
    return emitOpError() << "operands must be 2-d";
  int64_t m = aShape[0], k = aShape[1];
  int64_t n = b.getSlotShape()[1];
  if (b.getSlotShape()[0] != k || acc.getShape()[0] != m ||
      acc.getShape()[1] != n)
    return emitOpError() << "shapes do not match: " << m << "x" << k << " * "
                         << b.getSlotShape()[0] << "x" << n << " -> "
                         << acc.getShape()[0] << "x" << acc.getShape()[1];
  if (aElt != b.getElementType())
    return emitOpError() << "operand element types differ";
  if (aElt.isInteger(8) ? !acc.getElementType().isInteger(32)
                        : !acc.getElementType().isF32())
    return emitOpError() << "accumulates " << aElt << " in "
                         << (aElt.isInteger(8) ? "i32" : "f32") << " only";
  if (m % 64 != 0 || n % 8 != 0 || n > 256 || k % wgmmaK(aElt))
    return emitOpError() << "needs M a multiple of 64, N a multiple of 8 up "
                            "to 256 and K a multiple of "
                         << wgmmaK(aElt);
  if (aRegs) {
    if (bitsOf(aElt) != 16)
      return emitOpError() << "a register A has 16-bit elements";
    auto accLayout = tile::getLayoutAttr(acc);
    auto aLayout = tile::getLayoutAttr(aRegs);
    if (!accLayout || !aLayout)
      return emitOpError() << "register operands need layouts";
    int warps = tile::getLayout(acc).getNumWarps();
    if (warps % 4 ||
        tile::getLayout(aRegs) !=
            LinearLayout::wgmmaOperandA({m, k}, warps / 4))
      return emitOpError() << "a register A must be in the wgmma register-A "
                              "layout of the accumulator's warpgroups";
  }
  for (int i = aRegs ? 1 : 0; i < 2; ++i) {
    auto d = getOperandDescriptor(i == 0 ? aBuf : b, i);
    if (!d)
      return emitOpError() << "operand " << (i == 0 ? "A" : "B")
                           << " is not in an NVMMA-swizzled shared layout";
    if (!d->kMajor && bitsOf(aElt) != 16)
      return emitOpError() << "8-bit and tf32 operands must be K-major";
  }
  return success();
}

bool tgpu::isWaitAfterType(Type type) {
  Type t = getElementTypeOrSelf(type);
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() <= 32 &&
         (!isa<ShapedType>(type) || isa<RankedTensorType>(type));
}

LogicalResult WGMMAWaitOp::verify() {
  for (Value v : getAfter())
    if (!isWaitAfterType(v.getType()))
      return emitOpError("'after' takes tiles and scalars of at most 32-bit "
                         "integers or floats, not ")
             << v.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor memory and tcgen05
//===----------------------------------------------------------------------===//

std::optional<TMemAccess> tgpu::matchTMemAccess(RankedTensorType tile) {
  if (tile.getRank() != 2 || tile.getShape()[0] != 128 ||
      !tile::getLayoutAttr(tile))
    return std::nullopt;
  LinearLayout l = tile::getLayout(tile);
  std::vector<int64_t> shape(tile.getShape().begin(), tile.getShape().end());
  int warps = l.getNumWarps();
  unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
  if (warps % 4 || (bits != 32 && bits != 16))
    return std::nullopt;
  if (shape[1] >= warps / 4 && l == LinearLayout::tmem32x32b(shape, warps))
    return TMemAccess{TMemShape::Lanes32x32b, warps};
  if (bits != 32 || warps != 4)
    return std::nullopt;
  if (shape[1] >= 2 && l == LinearLayout::tmem16x64b(shape, warps))
    return TMemAccess{TMemShape::Lanes16x64b, warps};
  if (shape[1] >= 4 && l == LinearLayout::tmem16x128b(shape, warps))
    return TMemAccess{TMemShape::Lanes16x128b, warps};
  if (shape[1] >= 8 && l == LinearLayout::tmem16x256b(shape, warps))
    return TMemAccess{TMemShape::Lanes16x256b, warps};
  return std::nullopt;
}

uint32_t tgpu::tcgen05InstructionDescriptor(Type elt, int64_t m, int64_t n,
                                            bool aKMajor, bool bKMajor) {
  // PTX ISA 9.7.16.4.2 (Table 42): D format (bits 4-5: F32 1, S32 2), A
  // and B formats (7-9, 10-12: f16 0 / bf16 1 / tf32 2 for .kind::f16 and
  // .kind::tf32; e4m3 0 / e5m2 1 for .kind::f8f6f4; signed 8-bit 1 for
  // .kind::i8), transpose A and B (15, 16: 0 is K-major), N >> 3 (17-22),
  // M >> 4 (24-28).
  uint32_t format = elt.isBF16() || isa<Float8E5M2Type>(elt) ||
                            elt.isInteger(8)
                        ? 1
                    : elt.isF32() ? 2
                                  : 0;
  uint32_t dFormat = elt.isInteger(8) ? 2 : 1;
  return (dFormat << 4) | (format << 7) | (format << 10) |
         (uint32_t(!aKMajor) << 15) | (uint32_t(!bKMajor) << 16) |
         (uint32_t(n >> 3) << 17) | (uint32_t(m >> 4) << 24);
}

/// The element type tcgen05.mma reads as: 16-bit (.kind::f16), 8-bit
/// floats (.kind::f8f6f4), f32 as tf32 (.kind::tf32), 8-bit integers
/// (.kind::i8).
static bool isTcgen05Input(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isInteger(8) ||
         isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

LogicalResult Tcgen05MMAOp::verify() {
  SharedBufferType b = getB().getType();
  TensorMemoryBufferType d = getD().getType();
  auto aSmem = dyn_cast<SharedBufferType>(getA().getType());
  auto aTmem = dyn_cast<TensorMemoryBufferType>(getA().getType());
  ArrayRef<int64_t> aShape = aSmem ? aSmem.getSlotShape() : aTmem.getSlotShape();
  Type elt = aSmem ? aSmem.getElementType() : aTmem.getElementType();
  if (aShape.size() != 2 || b.getSlotShape().size() != 2)
    return emitOpError() << "operands must be 2-d";
  int64_t m = aShape[0], k = aShape[1];
  int64_t nB = b.getSlotShape()[1], n = d.getSlotShape()[1];
  int group = getCtaGroup();
  if (b.getSlotShape()[0] != k || d.getSlotShape()[0] != m || nB * group != n)
    return emitOpError() << "shapes do not match: " << m << "x" << k << " * "
                         << b.getSlotShape()[0] << "x" << nB
                         << (group == 2 ? " (half of B)" : "") << " -> "
                         << d.getSlotShape()[0] << "x" << n;
  if (elt != b.getElementType())
    return emitOpError() << "operand element types differ";
  if (!isTcgen05Input(elt))
    return emitOpError() << "reads f16, bf16, f8E4M3FN, f8E5M2, f32 (as "
                            "tf32) or i8, not "
                         << elt;
  if (elt.isInteger(8) ? !d.getElementType().isInteger(32)
                       : !d.getElementType().isF32())
    return emitOpError() << (elt.isInteger(8) ? "accumulates i8 in i32"
                                              : "accumulates in f32");
  if (aTmem && elt.getIntOrFloatBitWidth() != 16)
    return emitOpError() << "an A in tensor memory has 16-bit elements";
  if (m != 128 || n % 16 || n < 16 || n > 256 || k % wgmmaK(elt))
    return emitOpError() << "needs M = 128 rows a CTA, N a multiple of 16 "
                            "from 16 to 256 and K a multiple of "
                         << wgmmaK(elt);
  if (aSmem && !getOperandDescriptor(aSmem, 0))
    return emitOpError() << "A's slot layout is no NVMMA swizzle";
  if (!getOperandDescriptor(b, 1))
    return emitOpError() << "B's slot layout is no NVMMA swizzle";
  return success();
}

/// The columns `column` .. + the tile's of a slot of `buffer`, read or
/// written by a register tile in a tcgen05.ld/st layout.
static LogicalResult verifyTMemAccess(Operation *op,
                                      TensorMemoryBufferType buffer,
                                      RankedTensorType tile, int64_t column) {
  if (tile.getElementType() != buffer.getElementType())
    return op->emitOpError() << "moves " << buffer.getElementType()
                             << " elements, not " << tile.getElementType();
  if (tile.getRank() != 2 || tile.getShape()[0] != 128 || column < 0 ||
      column + tile.getShape()[1] > buffer.getSlotShape()[1])
    return op->emitOpError()
           << "the tile is not 128 rows of columns within a slot of "
           << buffer.getSlotShape()[1];
  int64_t bits = tile.getElementType().getIntOrFloatBitWidth();
  if (column * bits % 32)
    return op->emitOpError() << "starts inside a 32-bit column";
  if (!matchTMemAccess(tile))
    return op->emitOpError()
           << "the tile's layout is none of tcgen05.ld/st's (tmem32x32b, "
              "tmem16x64b, tmem16x128b, tmem16x256b)";
  return success();
}

LogicalResult TMemLoadOp::verify() {
  if (failed(verifyTMemAccess(*this, getSrc().getType(),
                              cast<RankedTensorType>(getResult().getType()),
                              getColumn())))
    return failure();
  for (Operation *user : getResult().getUsers()) {
    auto wait = dyn_cast<TMemWaitOp>(user);
    if (!wait || wait.getKind() != TMemWaitKind::Load)
      return emitOpError() << "result is read before a tgpu.tmem_wait load";
  }
  return success();
}

LogicalResult TMemStoreOp::verify() {
  return verifyTMemAccess(*this, getDst().getType(),
                          cast<RankedTensorType>(getValue().getType()),
                          getColumn());
}

LogicalResult TMemWaitOp::verify() {
  if (getKind() == TMemWaitKind::Store && !getValues().empty())
    return emitOpError() << "a store wait passes no values";
  for (Value v : getValues())
    if (!v.getDefiningOp<TMemLoadOp>())
      return emitOpError() << "passes tgpu.tmem_load results only";
  return success();
}

/// A placed buffer's `offset`: one per copy of the region it is in, each
/// aligned to `align`.
static LogicalResult verifyOffsets(Operation *op,
                                   std::optional<ArrayRef<int64_t>> offsets,
                                   int64_t align) {
  if (!offsets)
    return success();
  int copies = getRegionCopies(op);
  if (int64_t(offsets->size()) != copies)
    return op->emitOpError() << "has " << offsets->size()
                             << " offsets; its region runs " << copies
                             << " copies";
  for (int64_t o : *offsets)
    if (o < 0 || o % align)
      return op->emitOpError() << "offsets are multiples of " << align
                               << " bytes, found " << o;
  return success();
}

LogicalResult TMemAllocOp::verify() {
  if (getType().hasUnknownDepth())
    return emitOpError() << "needs a known number of slots (a ring of "
                            "unknown depth is a channel's)";
  std::optional<ArrayRef<int64_t>> columns = getColumn();
  if (!columns)
    return success();
  int copies = getRegionCopies(*this);
  if (int64_t(columns->size()) != copies)
    return emitOpError() << "has " << columns->size()
                         << " columns; its region runs " << copies << " copies";
  for (int64_t c : *columns)
    if (c < 0 || c + getType().getColumns() > 512)
      return emitOpError() << "columns " << c << ".." << c + getType().getColumns()
                           << " are not within tensor memory's 512";
  return success();
}

LogicalResult AllocOp::verify() {
  if (getResult().getType().hasUnknownDepth())
    return emitOpError() << "needs a known number of slots (a ring of "
                            "unknown depth is a tgpu.channel's)";
  return verifyOffsets(*this, getOffset(),
                       getResult().getType().getAlignment());
}

LogicalResult BarriersOp::verify() {
  return verifyOffsets(*this, getOffset(), 8);
}

LogicalResult ChannelOp::verify() {
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError() << "must run on every thread, outside "
                            "tgpu.warp_specialize (its barriers are "
                            "initialized by all)";
  if (getBuffers().empty())
    return emitOpError() << "needs at least one buffer";
  bool tmem = false;
  for (Type t : getBuffers().getTypes()) {
    auto smem = dyn_cast<SharedBufferType>(t);
    auto tm = dyn_cast<TensorMemoryBufferType>(t);
    tmem |= bool(tm);
    if (smem ? !smem.hasUnknownDepth() : !tm.hasUnknownDepth())
      return emitOpError() << "buffers are rings of unknown depth (`?x...`; "
                              "use depth to fix it), found "
                           << t;
  }
  FillKind fill = getKind() ? getKind()->getFill() : FillKind::TMA;
  if (tmem && !getDepth())
    return emitOpError() << "a channel of tensor-memory buffers needs a depth";
  if (tmem ? fill == FillKind::TMA : fill == FillKind::MMA)
    return emitOpError() << "tensor-memory buffers are filled by MMAs (fill "
                            "= mma) or by the producer's warps (fill = "
                            "arrive), shared-memory ones by TMA copies or "
                            "the producer's warps";
  if (getProducerWarps() && fill != FillKind::Arrive)
    return emitOpError() << "producer_warps counts the warps that fill a "
                            "use of a fill = arrive channel";
  return success();
}

int64_t ChannelOp::getUseBytes() {
  int64_t n = 0;
  for (Type t : getBuffers().getTypes())
    if (auto smem = dyn_cast<SharedBufferType>(t))
      n += smem.getSlotBytes();
  return n;
}

int64_t ChannelOp::getUseStride() {
  int64_t n = 0;
  for (Type t : getBuffers().getTypes())
    if (auto smem = dyn_cast<SharedBufferType>(t))
      n += smem.getSlotStride();
  return n;
}

/// The channel operand of a channel op must come from a tgpu.channel.
static LogicalResult verifyChannelUse(Operation *op, Value channel) {
  if (!channel.getDefiningOp<ChannelOp>())
    return op->emitOpError() << "needs a channel defined by tgpu.channel";
  return success();
}

LogicalResult ChannelAcquireOp::verify() {
  return verifyChannelUse(*this, getChannel());
}
LogicalResult ChannelFillOp::verify() {
  if (failed(verifyChannelUse(*this, getChannel())))
    return failure();
  auto ch = getChannel().getDefiningOp<ChannelOp>();
  if (!ch.getKind() || ch.getKind()->getFill() == FillKind::TMA)
    return emitOpError() << "marks uses of channels filled by MMAs or by "
                            "the producer's warps (fill = mma, arrive); "
                            "copies complete their own";
  return success();
}
LogicalResult ChannelWaitOp::verify() {
  return verifyChannelUse(*this, getChannel());
}
LogicalResult ChannelReleaseOp::verify() {
  return verifyChannelUse(*this, getChannel());
}

int tgpu::getComputeGroups(Operation *root) {
  int groups = 0;
  root->walk([&](WarpSpecializeOp op) {
    for (Attribute a : op.getPartitions())
      if (auto p = cast<PartitionAttr>(a); p.getRole() == PartitionRole::Compute)
        groups += p.getCopies();
  });
  return std::max(groups, 1);
}

int tgpu::getRegionCopies(Operation *op) {
  for (Region *r = op->getParentRegion(); r; r = r->getParentRegion())
    if (auto ws = dyn_cast<WarpSpecializeOp>(r->getParentOp()))
      return ws.getPartition(r->getRegionNumber()).getCopies();
  return 1;
}

int tgpu::getLaunchWarps(Operation *kernel) {
  int warps = 0;
  kernel->walk([&](WarpSpecializeOp op) { warps = op.getTotalWarps(); });
  if (warps)
    return warps;
  if (auto a = kernel->getAttrOfType<IntegerAttr>(kLaunchWarpsAttr))
    return a.getInt();
  return tile::getNumWarps(kernel);
}

Region *WarpSpecializeOp::getRegionOf(PartitionRole role) {
  for (auto [i, a] : llvm::enumerate(getPartitions()))
    if (cast<PartitionAttr>(a).getRole() == role)
      return &getPartitionRegions()[i];
  return nullptr;
}

int WarpSpecializeOp::getNumGroups() {
  int groups = 0;
  for (Attribute a : getPartitions())
    groups += cast<PartitionAttr>(a).getCopies();
  return groups;
}

int WarpSpecializeOp::getTotalWarps() {
  int warps = 0;
  bool budgets = false;
  for (Attribute a : getPartitions()) {
    auto p = cast<PartitionAttr>(a);
    warps += p.getWarps() * p.getCopies();
    budgets |= p.getRegs() != 0;
  }
  // Budgets are set a warpgroup at a time (setmaxnreg): a launch that sets
  // them takes whole warpgroups, the warps past the last partition only
  // joining their warpgroup's budget.
  return budgets ? (warps + 3) / 4 * 4 : warps;
}

// The partition regions belong to the operation state while they are
// parsed (see ScanOp::parse in TileOps.cpp for why).
ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  auto &props = result.getOrAddProperties<Properties>();
  ArrayAttr partitions;
  if (parser.parseAttribute(partitions))
    return failure();
  props.partitions = partitions;
  if (succeeded(parser.parseOptionalKeyword("scratch"))) {
    auto scratch = dyn_cast_or_null<DenseI64ArrayAttr>(
        DenseI64ArrayAttr::parse(parser, Type()));
    if (!scratch)
      return failure();
    props.scratch = scratch;
  }
  Region *region = result.addRegion();
  OptionalParseResult first = parser.parseOptionalRegion(*region);
  if (first.has_value()) {
    if (failed(*first))
      return failure();
    while (succeeded(parser.parseOptionalComma()))
      if (parser.parseRegion(*result.addRegion()))
        return failure();
  } else {
    result.regions.pop_back();
  }
  for (auto &r : result.regions)
    if (r->empty())
      r->emplaceBlock();
  return parser.parseOptionalAttrDict(result.attributes);
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getPartitionsAttr());
  if (getScratchAttr()) {
    p << " scratch ";
    p.printStrippedAttrOrType(getScratchAttr());
  }
  p << ' ';
  llvm::interleaveComma(getPartitionRegions(), p,
                        [&](Region &r) { p.printRegion(r); });
  p.printOptionalAttrDict((*this)->getAttrs(), {"partitions", "scratch"});
}

LogicalResult WarpSpecializeOp::verify() {
  if (getPartitions().empty())
    return emitOpError() << "needs at least one partition";
  if (getPartitions().size() != getPartitionRegions().size())
    return emitOpError() << "has " << getPartitionRegions().size()
                         << " regions for " << getPartitions().size()
                         << " partitions";
  // setmaxnreg is a warpgroup's: every warpgroup a partition with a
  // budget takes part of has that one budget (its other partitions the
  // same; sm_100a's one-warp load and MMA partitions share one).
  SmallVector<std::pair<int32_t, size_t>> warpRegs; // per warp: regs, partition
  for (auto [i, a] : llvm::enumerate(getPartitions())) {
    auto p = cast<PartitionAttr>(a);
    if (p.getWarps() == 0)
      return emitOpError() << "partition " << i << " needs its warps";
    for (int32_t w = 0; w < p.getWarps() * p.getCopies(); ++w)
      warpRegs.push_back({p.getRegs(), i});
  }
  for (size_t w = 0; w < warpRegs.size(); ++w) {
    auto [regs, i] = warpRegs[w];
    for (size_t o = w / 4 * 4; o < std::min(warpRegs.size(), w / 4 * 4 + 4); ++o)
      if (regs != 0 && warpRegs[o].first != regs)
        return emitOpError()
               << "partition " << i << " sets a register budget of " << regs
               << " but shares warpgroup " << w / 4 << " with partition "
               << warpRegs[o].second << " ("
               << (warpRegs[o].first ? std::to_string(warpRegs[o].first)
                                     : std::string("no budget"))
               << "): setmaxnreg is a warpgroup's";
  }
  if (getScratch() && int(getScratch()->size()) != getNumGroups())
    return emitOpError() << "has " << getScratch()->size()
                         << " scratch shifts for " << getNumGroups()
                         << " groups of warps";
  if (getScratch() && llvm::any_of(*getScratch(), [](int64_t s) { return s < 0; }))
    return emitOpError() << "scratch shifts are not negative";
  if (getTotalWarps() > 32)
    return emitOpError() << "takes " << getTotalWarps()
                         << " warps, more than a block's 32";
  return success();
}
