//===- TGPUTypes.cpp - tgpu types -----------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "TGPUUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TGPU/TGPUTypes.cpp.inc"

void TGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/TGPU/TGPUTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//


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
