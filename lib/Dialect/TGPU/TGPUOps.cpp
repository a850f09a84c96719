//===- TGPUOps.cpp - tgpu ops: builders and verifiers ---------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "TGPUUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

#define GET_OP_CLASSES
#include "tilec/Dialect/TGPU/TGPUOps.cpp.inc"

void TGPUDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TGPU/TGPUOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

SharedBufferType tgpu::transposedSlots(SharedBufferType t) {
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

/// A dynamic schedule's counter: two contiguous i32 words (the counter and
/// the programs done), as the lowerings address them.
static LogicalResult verifyTileCounter(Operation *op, tile::TensorViewType t) {
  if (t.getRank() != 1 || !t.getElementType().isInteger(32) ||
      t.getStrides().front() != 1 ||
      (!ShapedType::isDynamic(t.getShape().front()) && t.getShape().front() < 2))
    return op->emitOpError()
           << "counts in a 1-d i32 view of at least 2 contiguous elements, "
              "found "
           << t;
  return success();
}

LogicalResult ClaimTileOp::verify() {
  if (failed(verifyTileCounter(*this, getCounter().getType())))
    return failure();
  return verifyResponses(*this, getResponse().getType());
}

LogicalResult ReleaseTileCounterOp::verify() {
  return verifyTileCounter(*this, getCounter().getType());
}

LogicalResult ClaimedTileOp::verify() {
  return verifyResponses(*this, getResponse().getType());
}

LogicalResult ArriveOp::verify() {
  if (getCluster() && getLeader())
    return emitOpError() << "arrives on every CTA's barrier (cluster) or on "
                            "the leader's, not both";
  if (getAsyncCopies() && (getCluster() || getLeader() || getExpectTx()))
    return emitOpError() << "async_copies arrives on this CTA's barrier, "
                            "without expect_tx";
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
  for (unsigned i = 0; i + 2 < slot.size(); ++i)
    if (slot[i] != box[i])
      return emitOpError() << "only the innermost two dims may take several "
                              "boxes";
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
  if (auto n = getMulticast()) {
    int64_t boxes = 1;
    for (auto [s, b] : llvm::zip(slot, box))
      boxes *= s / b;
    if (boxes % *n)
      return emitOpError() << "a slot of " << boxes
                           << " boxes does not split among " << *n << " CTAs";
  }
  return success();
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
  if (!tile::getLayoutAttr(vt))
    return emitOpError() << "needs a value with a layout";
  std::optional<ChunkSelect> sel =
      chunkSelectBits(tile::getLayout(vt), box[1]);
  if (!sel)
    return emitOpError() << "the value's layout does not split into "
                         << box[1] << "-column chunks by register and warp";
  int64_t rounds = vt.getShape()[1] / box[1] / sel->perRound();
  int64_t slots = buf.getNumSlots();
  if (slots % sel->perRound() || rounds % (slots / sel->perRound()))
    return emitOpError() << rounds << " rounds of " << sel->perRound()
                         << " chunks do not cycle through " << slots
                         << " slots evenly";
  if (std::optional<tile::AtomicKind> kind = getReduce()) {
    Type elt = vt.getElementType();
    if (*kind != tile::AtomicKind::Add ||
        !(elt.isF32() || elt.isF16() || elt.isBF16() || elt.isInteger(32)))
      return emitOpError() << "reduces by add only, of f32, f16, bf16 or i32";
  }
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

LogicalResult SlotStoreOp::verify() {
  return verifySlotTile(*this, getBuffer().getType(), getValue().getType(),
                        "value");
}

LogicalResult LocalStageOp::verify() {
  SharedBufferType buf = getResult().getType();
  if (buf.getNumSlots() != 1)
    return emitOpError() << "stages into a one-slot buffer";
  return verifySlotTile(*this, buf, getValue().getType(), "value");
}

/// The element types and the layout a threads' copy into a slot needs: one
/// element type for the view, the tile and the buffer; a tile layout.
static LogicalResult verifyCopyTile(Operation *op, tile::TensorViewType view,
                                    RankedTensorType tile,
                                    SharedBufferType buf) {
  if (tile.getElementType() != view.getElementType() ||
      tile.getElementType() != buf.getElementType())
    return op->emitOpError() << "the view, the tile and the buffer must have "
                                "one element type";
  if (!tile::getLayoutAttr(tile))
    return op->emitOpError() << "needs a tile layout";
  return success();
}

LogicalResult ThreadCopyOp::verify() {
  auto tile = cast<RankedTensorType>(getTile());
  SharedBufferType buf = getBuffer().getType();
  if (int64_t(getOffsets().size()) != getTensor().getType().getRank() ||
      tile.getRank() != getTensor().getType().getRank())
    return emitOpError() << "needs an offset and a tile dim for each dim of "
                            "the view";
  if (failed(verifyCopyTile(*this, getTensor().getType(), tile, buf)))
    return failure();
  if (std::optional<tile::LinearLayoutAttr> inSlot = getInSlot()) {
    // As many elements as a slot, each thread's in the same registers.
    ArrayRef<int64_t> slot = buf.getSlotShape();
    auto bases = [](tile::LinearLayoutAttr a) {
      return std::array<size_t, 3>{a.getRegisterBases().size() / a.getRank(),
                                   a.getLaneBases().size() / a.getRank(),
                                   a.getWarpBases().size() / a.getRank()};
    };
    auto enc = dyn_cast_or_null<tile::LinearLayoutAttr>(tile.getEncoding());
    if (!enc || inSlot->getRank() != slot.size() ||
        bases(*inSlot) != bases(enc) ||
        tile.getNumElements() != ShapedType::getNumElements(slot))
      return emitOpError() << "'in_slot' must lay the tile's registers, "
                              "lanes and warps out over a slot of the buffer";
    return success();
  }
  // The tile's shape without its leading unit dims is the slot's.
  ArrayRef<int64_t> shape = tile.getShape();
  while (shape.size() > buf.getSlotShape().size() && shape.front() == 1)
    shape = shape.drop_front();
  if (shape != buf.getSlotShape())
    return emitOpError() << "the tile (leading unit dims dropped) must be a "
                            "slot of the buffer";
  return success();
}

LogicalResult ThreadGatherOp::verify() {
  auto tile = cast<RankedTensorType>(getTile());
  SharedBufferType buf = getBuffer().getType();
  if (int64_t(getIndices().size()) != getTensor().getType().getRank())
    return emitOpError() << "needs an index tile for each dim of the view";
  for (Value v : getIndices()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() != tile.getShape() || !t.getElementType().isInteger(32))
      return emitOpError() << "index tiles must be i32 tiles of the tile's "
                              "shape";
  }
  if (Value m = getMask())
    if (cast<RankedTensorType>(m.getType()).getShape() != tile.getShape())
      return emitOpError() << "the mask must have the tile's shape";
  if (failed(verifyCopyTile(*this, getTensor().getType(), tile, buf)))
    return failure();
  if (tile.getShape() != buf.getSlotShape())
    return emitOpError() << "the tile must be a slot of the buffer";
  // A TMA view: its box is the run's (R rows along one outer dim, the
  // swizzle span along the contiguous one), completing on `barriers`.
  tile::TensorViewType view = getTensor().getType();
  if (view.isTMA() != bool(getBarriers()))
    return emitOpError() << "takes barriers for its TMA boxes exactly when "
                            "its view is a TMA view";
  std::string why;
  if (view.isTMA() && failed(gatherBoxesOf(*this, why)))
    return emitOpError() << "cannot take TMA boxes: " << why;
  return success();
}

FailureOr<GatherBoxes> tgpu::gatherBoxesOf(ThreadGatherOp op,
                                           std::string &why) {
  tile::TensorViewType view = op.getTensor().getType();
  if (!view.isTMA()) {
    why = "the view is no TMA view";
    return failure();
  }
  ArrayRef<int64_t> box = view.getTmaBox();
  int rowDim = -1;
  for (int d = 0, e = box.size() - 1; d < e; ++d)
    if (box[d] != 1)
      rowDim = rowDim == -1 ? d : -2;
  if (rowDim < 0) {
    why = "the box spans more or fewer than one outer dim";
    return failure();
  }
  FailureOr<GatherBoxes> boxes =
      gatherBoxes(view, cast<RankedTensorType>(op.getTile()),
                  op.getBuffer().getType(), rowDim, box[rowDim], why);
  if (succeeded(boxes) && (ArrayRef<int64_t>(boxes->box) != box ||
                           boxes->swizzle != view.getTmaSwizzle())) {
    why = "the box is not " + std::to_string(box[rowDim]) + " rows by " +
          std::to_string(boxes->cols) + " columns with a " +
          std::to_string(boxes->swizzle) + "-byte swizzle (the slot's)";
    return failure();
  }
  return boxes;
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
  // N up to 256 a warpgroup: past 256 only where the accumulator is the
  // wgmma layout of warpgroups splitting N, each a share of at most 256.
  bool split = false;
  if (n > 256 && tile::getLayoutAttr(acc)) {
    auto [groupsM, groupsN] = tile::getLayout(acc).wgmmaWarpGroupsOf();
    split = n % (8 * groupsN) == 0 && n / groupsN <= 256 &&
            tile::getLayout(acc) ==
                LinearLayout::wgmmaAccumulator({m, n}, groupsM, groupsN);
  }
  if (m % 64 != 0 || n % 8 != 0 || (n > 256 && !split) || k % wgmmaK(aElt))
    return emitOpError() << "needs M a multiple of 64, N a multiple of 8 up "
                            "to 256 a warpgroup and K a multiple of "
                         << wgmmaK(aElt);
  if (aRegs) {
    if (bitsOf(aElt) != 16 && bitsOf(aElt) != 8)
      return emitOpError() << "a register A has 16-bit or 8-bit elements";
    auto accLayout = tile::getLayoutAttr(acc);
    auto aLayout = tile::getLayoutAttr(aRegs);
    if (!accLayout || !aLayout)
      return emitOpError() << "register operands need layouts";
    int warps = tile::getLayout(acc).getNumWarps();
    auto split = LinearLayout::wgmmaWarpGroups(m, n, warps);
    if (!split ||
        tile::getLayout(aRegs) !=
            LinearLayout::wgmmaOperandA({m, k}, split->first, split->second,
                                        bitsOf(aElt)))
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
  if (tmem && fill == FillKind::AsyncCopy)
    return emitOpError() << "cp.async copies fill shared-memory buffers";
  if (tmem ? fill == FillKind::TMA : fill == FillKind::MMA)
    return emitOpError() << "tensor-memory buffers are filled by MMAs (fill "
                            "= mma) or by the producer's warps (fill = "
                            "arrive), shared-memory ones by TMA copies or "
                            "the producer's warps";
  if (getProducerWarps() && fill != FillKind::Arrive &&
      fill != FillKind::AsyncCopy)
    return emitOpError() << "producer_warps counts the warps that fill a "
                            "use of a fill = arrive or async_copy channel";
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
                            "the producer's warps (fill = mma, arrive, "
                            "async_copy); TMA copies complete their own";
  return success();
}
LogicalResult ChannelWaitOp::verify() {
  return verifyChannelUse(*this, getChannel());
}
LogicalResult ChannelReleaseOp::verify() {
  return verifyChannelUse(*this, getChannel());
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
