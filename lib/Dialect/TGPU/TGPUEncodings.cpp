//===- TGPUEncodings.cpp - how tgpu buffers meet the hardware -------------===//
//
// What the hardware's formats make of tgpu's buffers and tiles: wgmma
// operand descriptors and their NVMMA swizzles, byte offsets in a slot,
// the slot TMA fills for a tile, ring slots and phases, cluster-launch-
// control responses, the tensor-memory access of a tile.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "TGPUUtils.h"
#include "tilec/Layout/BankConflicts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

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

/// The shape of `tile`'s slot: the tile's, without its leading unit dims
/// where `squeeze` asks (keeping two).
static ArrayRef<int64_t> slotShape(RankedTensorType tile, bool squeeze) {
  ArrayRef<int64_t> shape = tile.getShape();
  while (squeeze && shape.size() > 2 && shape.front() == 1)
    shape = shape.drop_front();
  return shape;
}

LogicalResult tgpu::checkTMAView(tile::TensorViewType view, std::string &why) {
  ArrayRef<int64_t> strides = view.getStrides();
  if (strides.back() != 1) {
    why = "the view's inner stride is not 1";
    return failure();
  }
  int64_t bytes = view.getElementType().getIntOrFloatBitWidth() / 8;
  for (auto [d, s] : llvm::enumerate(strides.drop_back())) {
    if (ShapedType::isDynamic(s))
      continue;
    if ((s * bytes) % 16 != 0 || s * bytes >= (int64_t(1) << 40)) {
      why = "the view's stride " + std::to_string(d) + " (" +
            std::to_string(s) + " elements) is not a multiple of 16 bytes "
            "under 2^40";
      return failure();
    }
  }
  return success();
}

FailureOr<TMASlot> tgpu::planTMASlot(RankedTensorType tile, std::string &why,
                                     bool squeeze) {
  ArrayRef<int64_t> shape = slotShape(tile, squeeze);
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
  return slotOfSwizzle(tile, rowSwizzle(rowBytes), squeeze);
}

int64_t tgpu::rowSwizzle(int64_t rowBytes) {
  return rowBytes >= 128 ? 128 : rowBytes >= 64 ? 64 : 32;
}

FailureOr<TMASlot> tgpu::planRegisterSlot(RankedTensorType tile,
                                          std::string &why) {
  std::string swizzled;
  FailureOr<TMASlot> slot = planTMASlot(tile, swizzled);
  if (succeeded(slot))
    return slot;
  ArrayRef<int64_t> shape = tile.getShape();
  unsigned bits = bitsOf(tile.getElementType());
  if (shape.back() * bits % 128 != 0) {
    why = "its rows are not a multiple of 16 bytes (TMA's box rows)";
    return failure();
  }
  if (llvm::any_of(shape, [](int64_t d) { return d > 256; })) {
    why = "the tile has an extent over 256 (the TMA box limit)";
    return failure();
  }
  return slotOfSwizzle(tile, 0);
}

TMASlot tgpu::slotOfSwizzle(RankedTensorType tile, int64_t swizzle,
                            bool squeeze) {
  ArrayRef<int64_t> fullShape = tile.getShape();
  ArrayRef<int64_t> shape = slotShape(tile, squeeze);
  unsigned bits = bitsOf(tile.getElementType());
  TMASlot t;
  t.swizzle = swizzle;
  t.box.assign(fullShape.begin(), fullShape.end());
  if (swizzle)
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

FailureOr<GatherBoxes> tgpu::gatherBoxes(tile::TensorViewType view,
                                         RankedTensorType tile,
                                         SharedBufferType buffer, int rowDim,
                                         int64_t rows, std::string &why) {
  auto fail = [&](const char *reason) {
    why = reason;
    return failure();
  };
  if (tile.getRank() != 2 || !tile::getLayoutAttr(tile))
    return fail("the tile is not a 2-d laid-out tile");
  if (failed(checkTMAView(view, why)))
    return failure();
  GatherBoxes g;
  g.colDim = view.getRank() - 1;
  g.rowDim = rowDim;
  g.rows = rows;
  if (rowDim < 0 || rowDim >= g.colDim)
    return fail("the row dim is not an outer dim of the view");
  auto nvmma = matchNVMMA(buffer);
  if (!nvmma || nvmma->first != 1)
    return fail("the slot is not an NVMMA swizzle along the tile's rows");
  g.swizzle = nvmma->second;
  g.cols = g.swizzle * 8 / bitsOf(tile.getElementType());
  ArrayRef<int64_t> shape = tile.getShape();
  if (shape[1] % g.cols || rows % 8 || rows > 256 || shape[0] % rows)
    return fail("the tile is not made of whole boxes");
  // A run is one warp's: lanes and registers span the rows inside a run,
  // warps the runs.
  LinearLayout l = tile::getLayout(tile);
  for (const auto &b : l.getBases("lane"))
    if (b[0] >= rows)
      return fail("a warp's lanes hold rows of two runs");
  for (const auto &b : l.getBases("warp"))
    if (b[1] != 0 || b[0] < rows)
      return fail("a run's rows are spread over warps");
  // Box j of run k at offset[j] + k * runBytes: atoms of 8 rows at a
  // regular stride (a run starts on an atom).
  g.runBytes = slotByteOffset(buffer, {rows, 0}) - slotByteOffset(buffer, {0, 0});
  for (int64_t j = 0; j < shape[1] / g.cols; ++j) {
    g.offset.push_back(slotByteOffset(buffer, {0, j * g.cols}));
    for (int64_t k = 0; k < shape[0] / rows; ++k)
      if (slotByteOffset(buffer, {k * rows, j * g.cols}) !=
          g.offset.back() + k * g.runBytes)
        return fail("the slot's runs are not at a regular stride");
  }
  g.box.assign(view.getRank(), 1);
  g.box[rowDim] = rows;
  g.box[g.colDim] = g.cols;
  return g;
}

std::optional<StagedA> tgpu::stagedA(tile::DotOp dot) {
  auto cvt = dot.getA().getDefiningOp<tile::ConvertLayoutOp>();
  if (!cvt)
    return std::nullopt;
  StagedA s;
  s.tile = cvt.getSrc();
  if (auto tr = s.tile.getDefiningOp<tile::TransposeOp>()) {
    s.tile = tr.getSrc();
    s.transposed = true;
  }
  auto t = cast<RankedTensorType>(s.tile.getType());
  if (t.getRank() != 2 || !tile::getLayoutAttr(t) ||
      bitsOf(t.getElementType()) != 16)
    return std::nullopt;
  int64_t rowBytes = t.getShape()[1] * 2;
  int64_t swizzle = rowSwizzle(rowBytes);
  if (rowBytes < 32 || rowBytes % swizzle || t.getShape()[0] < 8)
    return std::nullopt;
  s.type = slotOfSwizzle(t, swizzle).type;
  if (!analyzeSharedAccess(tile::getLayout(t), s.type.getSlotLayout(), 16) ||
      !getOperandDescriptor(s.transposed ? transposedSlots(s.type) : s.type,
                            0))
    return std::nullopt;
  return s;
}

LocalStageOp tgpu::stageOf(Value operand) {
  if (auto tr = operand.getDefiningOp<TransposeOp>())
    operand = tr.getSrc();
  return operand.getDefiningOp<LocalStageOp>();
}

std::optional<TMASlot> tgpu::getTMASlot(tile::LoadOp load, bool squeeze) {
  TMACopyAttr copy = getTMACopy(load);
  if (!copy)
    return std::nullopt;
  TMASlot slot = slotOfSwizzle(cast<RankedTensorType>(load.getType()),
                               copy.getSwizzle(), squeeze);
  // The box the copy records: fewer rows than the tile where its view is
  // shared with tiles of fewer rows (boxes of rows fill the slot).
  if (copy.getBox().size() == slot.box.size())
    slot.box.assign(copy.getBox().begin(), copy.getBox().end());
  return slot;
}

TMASlot tgpu::getSideSlot(tile::LoadOp load) {
  if (std::optional<TMASlot> slot = getTMASlot(load))
    return *slot;
  return slotOfSwizzle(cast<RankedTensorType>(load.getType()), 0);
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

SmallVector<unsigned> tgpu::ChunkSelect::chunkBits(InDim d) const {
  SmallVector<unsigned> out;
  for (auto [i, b] : llvm::enumerate(bits))
    if (b.first == d)
      out.push_back(i);
  return out;
}

std::optional<tgpu::ChunkSelect>
tgpu::chunkSelectBits(const LinearLayout &layout, int64_t cols) {
  if (layout.getRank() != 2 || layout.getShape()[1] % cols != 0)
    return std::nullopt;
  int64_t chunks = layout.getShape()[1] / cols;
  ChunkSelect sel;
  sel.bits.assign(llvm::Log2_64(chunks), {InDim::Lane, ~0u});
  for (InDim d : {InDim::Register, InDim::Lane, InDim::Warp})
    for (auto [i, c] : llvm::enumerate(layout.getBases(d))) {
      if (c[1] < cols)
        continue;
      if (d == InDim::Lane || c[0] != 0 || c[1] % cols ||
          !llvm::isPowerOf2_64(c[1] / cols))
        return std::nullopt;
      unsigned k = llvm::Log2_64(c[1] / cols);
      if (sel.bits[k].second != ~0u)
        return std::nullopt;
      sel.bits[k] = {d, unsigned(i)};
    }
  if (llvm::any_of(sel.bits, [](auto &b) { return b.second == ~0u; }))
    return std::nullopt;
  return sel;
}

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
