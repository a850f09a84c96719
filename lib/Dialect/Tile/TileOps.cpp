//===- TileOps.cpp - tile dialect operations ------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ParseResult parseAxis(OpAsmParser &parser, IntegerAttr &axis) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kw;
  if (parser.parseKeyword(&kw))
    return failure();
  int64_t v = kw == "x" ? 0 : kw == "y" ? 1 : kw == "z" ? 2 : -1;
  if (v < 0)
    return parser.emitError(loc) << "expected grid axis x, y or z, found '"
                                 << kw << "'";
  axis = parser.getBuilder().getI32IntegerAttr(v);
  return success();
}

static void printAxis(OpAsmPrinter &p, Operation *, IntegerAttr axis) {
  p << "xyz"[axis.getInt()];
}

/// An optional `sum`, `max` or `min` keyword.
static ParseResult parseOptionalReduceKind(OpAsmParser &parser,
                                           ReduceKindAttr &kind) {
  for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min})
    if (succeeded(parser.parseOptionalKeyword(stringifyReduceKind(k)))) {
      kind = ReduceKindAttr::get(parser.getContext(), k);
      return success();
    }
  return success();
}

static void printOptionalReduceKind(OpAsmPrinter &p, Operation *,
                                    ReduceKindAttr kind) {
  if (kind)
    p << stringifyReduceKind(kind.getValue());
}

// Regions an op parses belong to its operation state from the start: the
// parser's cleanup after a failure (CleanupOpStateRegions) then drops the
// uses of their values, which forward references made elsewhere may have
// resolved to. ODS-generated parsers hold regions in locals until the end
// and free them on failure with those uses still live (a use after free
// found by scripts/fuzz.py; test/fuzz/region-forward-reference.mlir).
ParseResult ScanOp::parse(OpAsmParser &parser, OperationState &result) {
  Region *combiner = result.addRegion();
  auto &props = result.getOrAddProperties<Properties>();
  ReduceKindAttr kind;
  OpAsmParser::UnresolvedOperand src;
  IntegerAttr dim;
  RankedTensorType type;
  if (parseOptionalReduceKind(parser, kind) || parser.parseOperand(src) ||
      parser.parseKeyword("dim") ||
      parser.parseAttribute(dim, parser.getBuilder().getI32Type()))
    return failure();
  props.kind = kind;
  props.dim = dim;
  if (succeeded(parser.parseOptionalKeyword("exclusive")))
    props.exclusive = parser.getBuilder().getUnitAttr();
  if (succeeded(parser.parseOptionalKeyword("combine")) &&
      parser.parseRegion(*combiner))
    return failure();
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseCustomTypeWithFallback(type))
    return failure();
  result.addTypes(type);
  return parser.resolveOperand(src, type, result.operands);
}

void ScanOp::print(OpAsmPrinter &p) {
  p << ' ';
  printOptionalReduceKind(p, *this, getKindAttr());
  p << ' ' << getSrc() << " dim ";
  p.printAttributeWithoutType(getDimAttr());
  if (getExclusive())
    p << " exclusive";
  if (!getCombiner().empty()) {
    p << " combine ";
    p.printRegion(getCombiner());
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {"kind", "dim", "exclusive"});
  p << " : ";
  p.printStrippedAttrOrType(cast<RankedTensorType>(getSrc().getType()));
}

/// Checks that `v` is a tile; reports on `op` otherwise.
static LogicalResult verifyTile(Operation *op, Value v, StringRef what) {
  if (auto err = checkTileType(v.getType()))
    return op->emitOpError() << what << ": " << *err;
  return success();
}

static RankedTensorType tileType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// StreamKUnitOp
//===----------------------------------------------------------------------===//

LogicalResult StreamKUnitOp::verify() {
  auto func = (*this)->getParentOfType<func::FuncOp>();
  if (!func || !func->hasAttr(kStreamKAttr))
    return emitOpError() << "belongs in a stream-K kernel ('" << kStreamKAttr
                         << "')";
  return success();
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  int64_t rank = getTensor().getType().getRank();
  int64_t dim = int32_t(getDim()); // the attribute is a signed i32
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a "
                         << "tensor of rank " << rank;
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  int64_t d = getTensor().getType().getShape()[getDim()];
  if (ShapedType::isDynamic(d))
    return {};
  return IntegerAttr::get(getType(), d);
}

//===----------------------------------------------------------------------===//
// WorkspaceOp
//===----------------------------------------------------------------------===//

LogicalResult WorkspaceOp::verify() {
  TensorViewType t = getType();
  if (getSizes().size() != t.getRank())
    return emitOpError() << "has " << getSizes().size()
                         << " extents for a view of rank " << t.getRank();
  if (t.isTMA())
    return emitOpError() << "views the workspace without TMA";
  // Row-major, contiguous: strides [?, ..., ?, 1] (or static ones that
  // say the same for static extents).
  auto strides = t.getStrides();
  if (strides.back() != 1 ||
      llvm::any_of(strides.drop_back(),
                   [](int64_t s) { return !ShapedType::isDynamic(s); }))
    return emitOpError() << "views the workspace row-major (strides "
                            "[?, ..., ?, 1])";
  StringRef size = getSemaphores() ? kSemaphoresAttr : kWorkspaceAttr;
  auto func = (*this)->getParentOfType<func::FuncOp>();
  if (!func || !func->hasAttr(size))
    return emitOpError() << "is in a kernel without a '" << size << "' size";
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyAccess(Operation *op, TensorViewType tensor,
                                  Value tile, size_t numOffsets) {
  // A scalar: the one element at the offsets, of the view's element type.
  if (!isa<ShapedType>(tile.getType())) {
    if (numOffsets != tensor.getRank())
      return op->emitOpError() << "expected " << tensor.getRank()
                               << " offsets (one per tensor dim), found "
                               << numOffsets;
    if (tile.getType() != tensor.getElementType())
      return op->emitOpError()
             << "expected a scalar of the tensor's element type "
             << tensor.getElementType() << ", found " << tile.getType();
    return success();
  }
  if (failed(verifyTile(op, tile, "tile")))
    return failure();
  RankedTensorType tt = tileType(tile);
  if (numOffsets != tensor.getRank())
    return op->emitOpError() << "expected " << tensor.getRank()
                             << " offsets (one per tensor dim), found "
                             << numOffsets;
  if (tt.getRank() != int64_t(tensor.getRank()))
    return op->emitOpError() << "expected a tile of rank " << tensor.getRank()
                             << " like the tensor, found " << tt;
  if (tt.getElementType() != tensor.getElementType())
    return op->emitOpError() << "expected tile element type "
                             << tensor.getElementType()
                             << " like the tensor, found "
                             << tt.getElementType();
  return success();
}

/// A load's or store's mask: an i1 tile of the tile's shape (and layout,
/// where both have one).
static LogicalResult verifyMask(Operation *op, Value tile, Value mask) {
  if (!mask)
    return success();
  if (!isa<ShapedType>(tile.getType()))
    return op->emitOpError() << "masks tiles, not a scalar (guard a scalar "
                                "access with scf.if)";
  if (failed(verifyTile(op, mask, "mask")))
    return failure();
  RankedTensorType t = tileType(tile), m = tileType(mask);
  if (!m.getElementType().isInteger(1) || m.getShape() != t.getShape())
    return op->emitOpError() << "expected a mask of i1 elements and shape "
                             << t.getShape() << " like the tile, found " << m;
  if (m.getEncoding() && t.getEncoding() && m.getEncoding() != t.getEncoding())
    return op->emitOpError() << "mask has another layout than the tile";
  return success();
}

/// A load's or gather's padding, if any: of the view's element type.
static LogicalResult verifyPadding(Operation *op, TypedAttr pad,
                                   TensorViewType tensor) {
  if (pad && pad.getType() != tensor.getElementType())
    return op->emitOpError() << "expected padding of type "
                             << tensor.getElementType() << ", found "
                             << pad.getType();
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyAccess(*this, getTensor().getType(), getResult(),
                          getOffsets().size())) ||
      failed(verifyMask(*this, getResult(), getMask())))
    return failure();
  if (getInBounds() && getMask())
    return emitOpError() << "is in_bounds and has a mask";
  return verifyPadding(*this, getPaddingAttr(), getTensor().getType());
}

bool tile::isZeroPadding(Attribute pad) {
  if (!pad)
    return true;
  if (auto f = dyn_cast<FloatAttr>(pad))
    return f.getValue().isZero();
  auto i = dyn_cast<IntegerAttr>(pad);
  return i && i.getValue().isZero();
}

bool LoadOp::padsWithZero() { return isZeroPadding(getPaddingAttr()); }

LogicalResult StoreOp::verify() {
  if (failed(verifyAccess(*this, getTensor().getType(), getValue(),
                          getOffsets().size())))
    return failure();
  if (getInBounds() && getMask())
    return emitOpError() << "is in_bounds and has a mask";
  if (std::optional<AtomicKind> kind = getReduce()) {
    if (*kind != AtomicKind::Add)
      return emitOpError() << "reduces with '" << stringifyAtomicKind(*kind)
                           << "'; a store reduces with 'add' only";
    if (!isa<RankedTensorType>(getValue().getType()) ||
        !getTensor().getType().getElementType().isF32())
      return emitOpError() << "reduces a value of "
                           << getTensor().getType().getElementType()
                           << "; a reducing store adds an f32 tile";
  }
  return verifyMask(*this, getValue(), getMask());
}

//===----------------------------------------------------------------------===//
// GatherOp / ScatterOp / AtomicRMWOp / AtomicCASOp
//===----------------------------------------------------------------------===//

/// The ops that address a view element by element: `value` (the result or
/// the stored tile) of the view's element type, one i32 index tile per view
/// dim and an optional i1 mask, all of `value`'s shape (and layout, where
/// they have one).
static LogicalResult verifyIndexed(Operation *op, TensorViewType tensor,
                                   Value value, ValueRange indices,
                                   Value mask) {
  if (failed(verifyTile(op, value, "value")))
    return failure();
  RankedTensorType vt = tileType(value);
  if (indices.size() != tensor.getRank())
    return op->emitOpError() << "expected " << tensor.getRank()
                             << " index tiles (one per tensor dim), found "
                             << indices.size();
  if (vt.getElementType() != tensor.getElementType())
    return op->emitOpError() << "expected element type "
                             << tensor.getElementType()
                             << " like the tensor, found "
                             << vt.getElementType();
  auto sameShape = [&](Value v, Type elt, StringRef what) -> LogicalResult {
    if (failed(verifyTile(op, v, what)))
      return failure();
    RankedTensorType t = tileType(v);
    if (t.getElementType() != elt || t.getShape() != vt.getShape())
      return op->emitOpError()
             << "expected " << what << " of " << elt << " elements and shape "
             << vt.getShape() << " like the value, found " << t;
    if (t.getEncoding() && vt.getEncoding() &&
        t.getEncoding() != vt.getEncoding())
      return op->emitOpError() << what << " has another layout than the value";
    return success();
  };
  Type i32 = IntegerType::get(op->getContext(), 32);
  for (auto [d, idx] : llvm::enumerate(indices))
    if (failed(sameShape(idx, i32, "index tile " + std::to_string(d))))
      return failure();
  if (mask &&
      failed(sameShape(mask, IntegerType::get(op->getContext(), 1), "mask")))
    return failure();
  return success();
}

LogicalResult GatherOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getResult(),
                           getIndices(), getMask())))
    return failure();
  return verifyPadding(*this, getPaddingAttr(), getTensor().getType());
}

LogicalResult ScatterOp::verify() {
  return verifyIndexed(*this, getTensor().getType(), getValue(), getIndices(),
                       getMask());
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getValue(),
                           getIndices(), getMask())))
    return failure();
  Type t = getTensor().getType().getElementType();
  bool i32 = t.isInteger(32), f32 = t.isF32();
  bool ok = false;
  StringRef types;
  switch (getKind()) {
  case AtomicKind::Add:
    ok = i32 || f32 || t.isF16() || t.isBF16();
    types = "f32, f16, bf16 and i32";
    break;
  case AtomicKind::Max:
  case AtomicKind::Min:
    ok = i32 || f32;
    types = "i32 (signed) and f32";
    break;
  case AtomicKind::Xchg:
    ok = i32 || f32;
    types = "i32 and f32";
    break;
  default:
    ok = i32;
    types = "i32";
    break;
  }
  if (!ok)
    return emitOpError() << "atomic " << stringifyAtomicKind(getKind())
                         << " is not supported on " << t << " (it takes "
                         << types << ")";
  return success();
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyIndexed(*this, getTensor().getType(), getValue(),
                           getIndices(), getMask())))
    return failure();
  Type t = getTensor().getType().getElementType();
  if (!t.isInteger(32) && !t.isF32())
    return emitOpError() << "compare-and-swap is not supported on " << t
                         << " (it takes i32 and f32)";
  return success();
}

//===----------------------------------------------------------------------===//
// PhiloxOp / RandOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyCounter(Operation *op, Value v, StringRef what) {
  if (failed(verifyTile(op, v, what)))
    return failure();
  if (!tileType(v).getElementType().isInteger(32))
    return op->emitOpError() << "expected " << what << " of i32 elements, found "
                             << tileType(v);
  return success();
}

LogicalResult PhiloxOp::verify() { return verifyCounter(*this, getC0(), "counters"); }

LogicalResult RandOp::verify() {
  if (failed(verifyCounter(*this, getOffsets(), "offsets")) ||
      failed(verifyTile(*this, getResult(), "result")))
    return failure();
  RankedTensorType r = tileType(getResult()), o = tileType(getOffsets());
  if (!r.getElementType().isF32() || r.getShape() != o.getShape())
    return emitOpError() << "expected an f32 result of the offsets' shape "
                         << o.getShape() << ", found " << r;
  return success();
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  for (auto [v, name] : {std::pair{getA(), "a"}, {getB(), "b"},
                         {getAcc(), "acc"}})
    if (failed(verifyTile(*this, v, name)))
      return failure();
  RankedTensorType a = tileType(getA()), b = tileType(getB()),
                   c = tileType(getAcc());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError() << "expected rank-2 operands, found ranks "
                         << a.getRank() << ", " << b.getRank() << ", "
                         << c.getRank();
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError() << "expected b to have " << k
                         << " rows (the columns of a), found "
                         << b.getDimSize(0);
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError() << "expected acc of shape " << m << "x" << n
                         << ", found " << c.getDimSize(0) << "x"
                         << c.getDimSize(1);
  Type ea = a.getElementType(), eb = b.getElementType(),
       ec = c.getElementType();
  if (ea != eb)
    return emitOpError() << "expected a and b of one element type, found "
                         << ea << " and " << eb;
  bool int8 = ea.isInteger(8), tf32 = ea.isF32();
  if (!isa<BFloat16Type, Float16Type, Float8E4M3FNType, Float8E5M2Type>(ea) &&
      !int8 && !tf32)
    return emitOpError() << "expected bf16, f16, f8E4M3FN, f8E5M2, i8 or f32 "
                            "(tf32) inputs, found "
                         << ea;
  if (int8 && !ec.isInteger(32))
    return emitOpError() << "expected an i32 accumulator for i8 inputs, found "
                         << ec;
  if (!int8 && !ec.isF32() && !(ec.isF16() && ea.isF16()))
    return emitOpError() << "expected an f32 accumulator (or f16 for f16 "
                            "inputs), found "
                         << ec;
  int64_t minK = 256 / ea.getIntOrFloatBitWidth();
  if (m < 16 || n < 8 || k < minK)
    return emitOpError() << "expected M >= 16, N >= 8 and K >= " << minK
                         << ", found " << m << "x" << n << "x" << k;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (failed(verifyTile(*this, getSrc(), "source")))
    return failure();
  RankedTensorType src = tileType(getSrc());
  int64_t dim = getDim();
  if (dim < 0 || dim >= src.getRank())
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << src.getRank();
  Type elt = src.getElementType();
  if (elt.getIntOrFloatBitWidth() == 8 && isa<FloatType>(elt))
    return emitOpError() << "cannot reduce " << elt << " tiles; cast first";
  if (src.getRank() == 1) {
    if (getType() != elt)
      return emitOpError() << "reducing a rank-1 tile gives a scalar " << elt
                           << ", found " << getType();
    return success();
  }
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + dim);
  auto res = dyn_cast<RankedTensorType>(getType());
  if (!res || res.getShape() != ArrayRef<int64_t>(shape) ||
      res.getElementType() != elt)
    return emitOpError() << "expected result "
                         << RankedTensorType::get(shape, elt) << ", found "
                         << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp / SortOp / TopKOp
//===----------------------------------------------------------------------===//

/// `dim` is a dim of `t`; elements are not 8-bit floats (no arithmetic).
static LogicalResult verifyAlongDim(Operation *op, Value src, int64_t dim) {
  if (failed(verifyTile(op, src, "source")))
    return failure();
  RankedTensorType t = tileType(src);
  if (dim < 0 || dim >= t.getRank())
    return op->emitOpError() << "dim " << dim << " is out of range for rank "
                             << t.getRank();
  Type elt = t.getElementType();
  if (isa<FloatType>(elt) && elt.getIntOrFloatBitWidth() == 8)
    return op->emitOpError() << "cannot work on " << elt
                             << " tiles; extend them first";
  return success();
}

LogicalResult ScanOp::verify() {
  if (failed(verifyAlongDim(*this, getSrc(), int32_t(getDim()))))
    return failure();
  Type elt = tileType(getSrc()).getElementType();
  bool hasRegion = !getCombiner().empty();
  if (getKind().has_value() == hasRegion)
    return emitOpError() << "expects either a combiner kind (sum, max, min) "
                            "or a `combine` region, not "
                         << (hasRegion ? "both" : "neither");
  if (elt.isInteger(1) && getKind())
    return emitOpError() << "cannot " << stringifyReduceKind(*getKind())
                         << "-scan i1 tiles; extend them first";
  if (!hasRegion)
    return success();
  if (getExclusive())
    return emitOpError() << "an exclusive scan needs a named combiner (sum, "
                            "max, min): a region has no identity";
  Region &r = getCombiner();
  if (!r.hasOneBlock())
    return emitOpError() << "expects the combiner to be one block";
  Block &b = r.front();
  if (b.getNumArguments() != 2 || b.getArgument(0).getType() != elt ||
      b.getArgument(1).getType() != elt)
    return emitOpError() << "expects the combiner to take two " << elt
                         << " arguments";
  auto yield = dyn_cast<YieldOp>(b.getTerminator());
  if (!yield || yield.getValues().size() != 1 ||
      yield.getValues()[0].getType() != elt)
    return emitOpError() << "expects the combiner to end in tile.yield of one "
                         << elt;
  for (Operation &op : b.without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        op.getNumRegions() != 0)
      return op.emitOpError()
             << "is not allowed in a scan combiner (arith and math ops only)";
    for (Type t : llvm::concat<const Type>(op.getOperandTypes(),
                                           op.getResultTypes()))
      if (isa<ShapedType>(t))
        return op.emitOpError() << "works on scalars in a scan combiner, "
                                   "found "
                                << t;
  }
  return success();
}

/// Keys and values: tiles of one shape, at most 1024 along `dim`.
static LogicalResult verifySortOperands(Operation *op, Value keys,
                                        ValueRange values, int64_t dim) {
  if (failed(verifyAlongDim(op, keys, dim)))
    return failure();
  RankedTensorType kt = tileType(keys);
  if (kt.getElementType().isInteger(1))
    return op->emitOpError() << "cannot sort i1 keys; extend them first";
  if (kt.getDimSize(dim) > 1024)
    return op->emitOpError() << "sorts at most 1024 elements along a dim, "
                                "found "
                             << kt.getDimSize(dim);
  for (Value v : values) {
    if (failed(verifyTile(op, v, "value")))
      return failure();
    if (tileType(v).getShape() != kt.getShape())
      return op->emitOpError() << "expects values of the keys' shape "
                               << RankedTensorType::get(kt.getShape(),
                                                        tileType(v)
                                                            .getElementType())
                               << ", found " << v.getType();
  }
  return success();
}

LogicalResult SortOp::verify() {
  return verifySortOperands(*this, getKeys(), getValues(), int32_t(getDim()));
}

LogicalResult SortOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  for (Value v : operands)
    inferred.push_back(v.getType());
  return success();
}

LogicalResult TopKOp::verify() {
  int64_t dim = int32_t(getDim());
  if (failed(verifySortOperands(*this, getKeys(), getValues(), dim)))
    return failure();
  int64_t n = tileType(getKeys()).getDimSize(dim);
  int64_t k = int32_t(getK());
  if (k < 1 || k > n || (k & (k - 1)))
    return emitOpError() << "k is a power of two in 1.." << n
                         << " (the dim's size), found " << k;
  if (getTopValues().size() != getValues().size())
    return emitOpError() << "expects " << getValues().size()
                         << " value results, found "
                         << getTopValues().size();
  for (auto [in, out] : llvm::zip(
           llvm::concat<Value>(ValueRange{getKeys()}, getValues()),
           llvm::concat<Value>(ValueRange{getTopKeys()}, getTopValues()))) {
    SmallVector<int64_t> shape(tileType(in).getShape());
    shape[dim] = k;
    auto want = RankedTensorType::get(shape, tileType(in).getElementType());
    auto got = dyn_cast<RankedTensorType>(out.getType());
    if (!got || got.getShape() != want.getShape() ||
        got.getElementType() != want.getElementType())
      return emitOpError() << "expected result " << want << ", found "
                           << out.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PrintOp / AssertOp
//===----------------------------------------------------------------------===//

/// A string that fits a printf format once '%' is escaped: printable.
static LogicalResult verifyDebugText(Operation *op, StringRef text,
                                     StringRef what) {
  if (text.size() > 256)
    return op->emitOpError() << what << " is at most 256 characters, found "
                             << text.size();
  for (char c : text)
    if (c == 0 || c == '\n' || c == '\r')
      return op->emitOpError() << what
                               << " cannot hold NUL or line breaks";
  return success();
}

/// Element types printf can print (scalar or tile).
static bool isPrintable(Type t) {
  Type e = getElementTypeOrSelf(t);
  return isa<IndexType>(e) ||
         (isa<IntegerType>(e) && e.getIntOrFloatBitWidth() <= 64) ||
         (isa<FloatType>(e) && e.getIntOrFloatBitWidth() >= 16 &&
          e.getIntOrFloatBitWidth() <= 64);
}

LogicalResult PrintOp::verify() {
  if (failed(verifyDebugText(*this, getPrefix(), "the prefix")))
    return failure();
  for (Value v : getArgs()) {
    if (isa<RankedTensorType>(v.getType()) &&
        failed(verifyTile(*this, v, "operand")))
      return failure();
    if (!isa<RankedTensorType>(v.getType()) && isa<ShapedType>(v.getType()))
      return emitOpError() << "prints tiles and scalars, found "
                           << v.getType();
    if (!isPrintable(v.getType()))
      return emitOpError() << "cannot print " << v.getType()
                           << "; integers of up to 64 bits, index, f16, bf16, f32 "
                              "and f64 print (extend 8-bit floats first)";
  }
  if (auto p = getProgram()) {
    if (p->size() != 3 || llvm::any_of(*p, [](int32_t x) { return x < 0; }))
      return emitOpError() << "expects `program [x, y, z]` with three "
                              "non-negative program ids";
  }
  return success();
}

bool tilec::tile::isProfileScopeName(StringRef name) {
  return !name.empty() && name.size() <= 48 && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || StringRef("_.:#-").contains(c);
  });
}

/// The tile.profile_end that closes `begin` (nested scopes balanced in
/// between), or the tile.profile_begin that `end` closes, in their block.
template <typename FromOp, typename ToOp>
static LogicalResult verifyProfilePair(FromOp op, bool forward) {
  if (!isProfileScopeName(op.getScope()))
    return op.emitOpError() << "scope name '" << op.getScope()
                            << "' is not 1 to 48 characters of "
                               "[A-Za-z0-9_.:#-]";
  IntegerAttr frame = op.getFrameAttr(), slot = op.getSlotAttr();
  if (bool(frame) != bool(slot) ||
      (frame && (frame.getInt() < 0 || slot.getInt() < 0)))
    return op.emitOpError()
           << "takes 'frame' and 'slot' together, both non-negative";
  int depth = 0;
  Operation *o = op.getOperation();
  while ((o = forward ? o->getNextNode() : o->getPrevNode())) {
    if (isa<FromOp>(o)) {
      ++depth;
    } else if (auto to = dyn_cast<ToOp>(o)) {
      if (depth == 0) {
        if (to.getScope() != op.getScope())
          return op.emitOpError()
                 << "scope '" << op.getScope() << "' is " << (forward ? "closed" : "opened")
                 << " by scope '" << to.getScope() << "' (scopes nest)";
        return success();
      }
      --depth;
    }
  }
  return op.emitOpError() << "scope '" << op.getScope() << "' has no "
                          << (forward ? "tile.profile_end after it"
                                      : "tile.profile_begin before it")
                          << " in its block";
}

LogicalResult ProfileBeginOp::verify() {
  return verifyProfilePair<ProfileBeginOp, ProfileEndOp>(*this, true);
}
LogicalResult ProfileEndOp::verify() {
  return verifyProfilePair<ProfileEndOp, ProfileBeginOp>(*this, false);
}

LogicalResult AssertOp::verify() {
  if (failed(verifyDebugText(*this, getMessage(), "the message")))
    return failure();
  Type t = getCond().getType();
  if (isa<RankedTensorType>(t) && failed(verifyTile(*this, getCond(),
                                                    "condition")))
    return failure();
  if (!getElementTypeOrSelf(t).isInteger(1) ||
      (isa<ShapedType>(t) && !isa<RankedTensorType>(t)))
    return emitOpError() << "expects an i1 condition (scalar or tile), found "
                         << t;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

static LogicalResult verifySameElements(Operation *op, Value src, Value res) {
  if (failed(verifyTile(op, src, "source")) ||
      failed(verifyTile(op, res, "result")))
    return failure();
  if (tileType(src).getElementType() != tileType(res).getElementType())
    return op->emitOpError() << "expected the result element type "
                             << tileType(src).getElementType() << ", found "
                             << tileType(res).getElementType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifySameElements(*this, getSrc(), getResult())))
    return failure();
  RankedTensorType s = tileType(getSrc()), r = tileType(getResult());
  if (s.getRank() != r.getRank()) {
    InFlightDiagnostic d = emitOpError()
                           << "broadcasts within a rank: the source has rank "
                           << s.getRank() << ", the result " << r.getRank();
    // Say which unit dims to insert: an axis of the result whose removal
    // leaves a shape the source broadcasts to (numpy's leading axis first).
    if (s.getRank() + 1 == r.getRank())
      for (int64_t axis = 0; axis < r.getRank(); ++axis) {
        SmallVector<int64_t> want(r.getShape());
        want.erase(want.begin() + axis);
        if (!llvm::all_of(llvm::seq<int64_t>(0, s.getRank()), [&](int64_t i) {
              return s.getDimSize(i) == 1 || s.getDimSize(i) == want[i];
            }))
          continue;
        SmallVector<int64_t> expanded(s.getShape());
        expanded.insert(expanded.begin() + axis, 1);
        std::string to;
        llvm::raw_string_ostream os(to);
        os << "!tile.tile<";
        llvm::interleave(expanded, os, "x");
        os << "x" << s.getElementType() << ">";
        d << "; insert the unit dim first: `tile.expand_dims %x axis " << axis
          << "` (to " << to << "), then broadcast";
        break;
      }
    return d;
  }
  for (int64_t d = 0; d < s.getRank(); ++d)
    if (s.getDimSize(d) != 1 && s.getDimSize(d) != r.getDimSize(d))
      return emitOpError() << "dim " << d << " of size " << s.getDimSize(d)
                           << " can only broadcast from size 1, found result "
                              "size "
                           << r.getDimSize(d);
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  if (failed(verifySameElements(*this, getSrc(), getResult())))
    return failure();
  RankedTensorType s = tileType(getSrc());
  int64_t axis = getAxis();
  if (axis < 0 || axis > s.getRank())
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << s.getRank();
  SmallVector<int64_t> shape(s.getShape());
  shape.insert(shape.begin() + axis, 1);
  if (tileType(getResult()).getShape() != ArrayRef<int64_t>(shape))
    return emitOpError() << "expected result shape "
                         << RankedTensorType::get(shape, s.getElementType())
                         << ", found " << getType();
  return success();
}

/// A block of `block`'s shape at `offsets` inside `whole`: one offset per
/// dim, the block inside the tile.
static LogicalResult verifyBlock(Operation *op, RankedTensorType block,
                                 RankedTensorType whole,
                                 ArrayRef<int64_t> offsets) {
  if (block.getRank() != whole.getRank())
    return op->emitOpError() << "expected a block of rank " << whole.getRank()
                             << " like the tile, found " << block;
  if (int64_t(offsets.size()) != whole.getRank())
    return op->emitOpError() << "expected " << whole.getRank()
                             << " offsets, one per dim, found "
                             << offsets.size();
  for (unsigned d = 0; d < offsets.size(); ++d)
    if (offsets[d] < 0 || offsets[d] > whole.getDimSize(d) - block.getDimSize(d))
      return op->emitOpError()
             << "the block of " << block.getDimSize(d) << " at offset "
             << offsets[d] << " along dim " << d << " is not inside the "
             << whole.getDimSize(d) << " elements of the tile";
  return success();
}

LogicalResult ExtractSliceOp::verify() {
  if (failed(verifySameElements(*this, getSrc(), getResult())))
    return failure();
  return verifyBlock(*this, tileType(getResult()), tileType(getSrc()),
                     getOffsets());
}

LogicalResult InsertSliceOp::verify() {
  if (failed(verifyTile(*this, getSrc(), "block")) ||
      failed(verifyTile(*this, getDest(), "tile")))
    return failure();
  if (tileType(getSrc()).getElementType() != tileType(getDest()).getElementType())
    return emitOpError() << "expected a block of "
                         << tileType(getDest()).getElementType()
                         << " like the tile, found "
                         << tileType(getSrc()).getElementType();
  return verifyBlock(*this, tileType(getSrc()), tileType(getDest()),
                     getOffsets());
}

SmallVector<SmallVector<int64_t>> ConcatOp::getBlockOffsets() {
  SmallVector<SmallVector<int64_t>> offsets;
  SmallVector<int64_t> at(getType().getRank(), 0);
  for (Value v : getInputs()) {
    offsets.push_back(at);
    at[getDim()] += tileType(v).getDimSize(getDim());
  }
  return offsets;
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expected at least one tile";
  RankedTensorType first = tileType(getInputs().front());
  int64_t dim = getDim();
  if (dim < 0 || dim >= first.getRank())
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << first.getRank();
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value in : getInputs()) {
    if (failed(verifySameElements(*this, in, getResult())))
      return failure();
    RankedTensorType t = tileType(in);
    if (t.getRank() != first.getRank())
      return emitOpError() << "expected tiles of rank " << first.getRank()
                           << ", found " << t;
    for (unsigned d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != first.getDimSize(d))
        return emitOpError() << "expected every tile to have "
                             << first.getDimSize(d) << " elements along dim "
                             << d << " (all dims but " << dim
                             << " agree), found " << t;
    shape[dim] += t.getDimSize(dim);
  }
  if (tileType(getResult()).getShape() != ArrayRef<int64_t>(shape))
    return emitOpError() << "expected result shape "
                         << RankedTensorType::get(shape, first.getElementType())
                         << ", found " << getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElements(*this, getSrc(), getResult())))
    return failure();
  if (tileType(getSrc()).getNumElements() !=
      tileType(getResult()).getNumElements())
    return emitOpError() << "expected " << tileType(getSrc()).getNumElements()
                         << " elements like the source, found "
                         << tileType(getResult()).getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(verifySameElements(*this, getSrc(), getResult())))
    return failure();
  RankedTensorType s = tileType(getSrc()), r = tileType(getResult());
  ArrayRef<int32_t> perm = getPermutation();
  SmallVector<bool> seen(s.getRank(), false);
  if (int64_t(perm.size()) != s.getRank())
    return emitOpError() << "expected a permutation of " << s.getRank()
                         << " dims, found " << perm.size();
  for (int32_t p : perm) {
    if (p < 0 || p >= s.getRank() || seen[p])
      return emitOpError() << "expected a permutation of 0.." << s.getRank() - 1;
    seen[p] = true;
  }
  for (unsigned i = 0; i < perm.size(); ++i)
    if (r.getDimSize(i) != s.getDimSize(perm[i]))
      return emitOpError() << "expected result dim " << i << " of size "
                           << s.getDimSize(perm[i]) << ", found "
                           << r.getDimSize(i);
  return success();
}

LogicalResult SplatOp::verify() {
  if (failed(verifyTile(*this, getResult(), "result")))
    return failure();
  if (getValue().getType() != tileType(getResult()).getElementType())
    return emitOpError() << "expected a scalar of the tile's element type "
                         << tileType(getResult()).getElementType()
                         << ", found " << getValue().getType();
  return success();
}

LogicalResult IotaOp::verify() {
  if (failed(verifyTile(*this, getResult(), "result")))
    return failure();
  RankedTensorType r = tileType(getResult());
  if (r.getRank() != 1 || !r.getElementType().isInteger(32))
    return emitOpError() << "expected a rank-1 tile of i32, found " << r;
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  if (failed(verifySameElements(*this, getSrc(), getResult())))
    return failure();
  if (tileType(getSrc()).getShape() != tileType(getResult()).getShape())
    return emitOpError() << "expected the shape of the source, found "
                         << getType();
  if (SharedLayoutAttr shared = getSharedAttr()) {
    RankedTensorType t = tileType(getResult());
    if (shared.getRank() != t.getRank())
      return emitOpError() << "expected a shared layout of rank " << t.getRank()
                           << ", found rank " << shared.getRank();
    ArrayRef<int64_t> flat = shared.getOffsetBases();
    for (unsigned i = 0; i < flat.size(); ++i)
      if (flat[i] < 0 || flat[i] >= t.getDimSize(i % t.getRank()))
        return emitOpError() << "shared layout basis coordinate " << flat[i]
                             << " is outside dim " << i % t.getRank()
                             << " of " << t;
    if (!shared.toLayout(t.getShape()).isInvertible())
      return emitOpError() << "expected a shared layout that holds each of the "
                           << t.getNumElements()
                           << " elements at exactly one offset";
  }
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

namespace {
/// convert_layout(splat | iota | splat constant) -> the same in the new layout.
struct RematerializeCheapConvert : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (!def)
      return failure();
    Type t = op.getType();
    if (auto splat = dyn_cast<SplatOp>(def)) {
      rewriter.replaceOpWithNewOp<SplatOp>(op, t, splat.getValue());
      return success();
    }
    if (isa<IotaOp>(def)) {
      rewriter.replaceOpWithNewOp<IotaOp>(op, t);
      return success();
    }
    DenseElementsAttr dense;
    if (matchPattern(def, m_Constant(&dense)) && dense.isSplat()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, t, dense.reshape(cast<ShapedType>(t)));
      return success();
    }
    return failure();
  }
};

/// convert_layout(broadcast(x)) -> broadcast(convert_layout(x)), so that the
/// conversion moves to the smaller operand and can cancel.
struct SinkConvertThroughBroadcast : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto bc = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!bc || !getLayoutAttr(op.getType()) ||
        !getLayoutAttr(bc.getSrc().getType()))
      return failure();
    LinearLayout target = getLayout(op.getType());
    if (!target.isAxisAligned())
      return failure();
    std::vector<int> dims;
    RankedTensorType srcTy = tileType(bc.getSrc());
    for (int64_t d = 0; d < srcTy.getRank(); ++d)
      if (srcTy.getDimSize(d) != tileType(op).getDimSize(d))
        dims.push_back(d);
    LinearLayout operand = target.broadcastOperand(dims);
    Value src = bc.getSrc();
    if (getLayout(src.getType()) != operand)
      src = ConvertLayoutOp::create(rewriter, op.getLoc(),
                                    withLayout(srcTy, operand), src);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), src);
    return success();
  }
};

/// convert_layout(expand_dims(x)) -> expand_dims(convert_layout(x)).
struct SinkConvertThroughExpandDims : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto ed = op.getSrc().getDefiningOp<ExpandDimsOp>();
    if (!ed || !getLayoutAttr(op.getType()) ||
        !getLayoutAttr(ed.getSrc().getType()))
      return failure();
    LinearLayout target = getLayout(op.getType());
    LinearLayout operand = target.squeezeDim(ed.getAxis());
    Value src = ed.getSrc();
    if (getLayout(src.getType()) != operand)
      src = ConvertLayoutOp::create(rewriter, op.getLoc(),
                                    withLayout(src.getType(), operand), src);
    rewriter.replaceOpWithNewOp<ExpandDimsOp>(op, op.getType(), src,
                                              ed.getAxis());
    return success();
  }
};
} // namespace

namespace {
/// A block of a loaded tile that only blocks read is a load of the block:
/// the same elements, padding and bounds, with no register or shared
/// memory move between, and a load the later passes can make a TMA copy.
/// Before layouts only (a layout picks how the tile is read).
struct LoadBlocksSeparately : OpRewritePattern<ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto load = op.getSrc().getDefiningOp<LoadOp>();
    if (!load || load.getMask() || getLayoutAttr(load.getType()) ||
        getLayoutAttr(op.getType()) ||
        !llvm::all_of(load->getUsers(),
                      [](Operation *u) { return isa<ExtractSliceOp>(u); }))
      return failure();
    SmallVector<Value> offsets;
    for (auto [o, extra] : llvm::zip(load.getOffsets(), op.getOffsets())) {
      if (extra == 0) {
        offsets.push_back(o);
        continue;
      }
      Value c = arith::ConstantIntOp::create(rewriter, op.getLoc(), extra, 32);
      offsets.push_back(arith::AddIOp::create(rewriter, op.getLoc(), o, c));
    }
    auto block = LoadOp::create(rewriter, load.getLoc(), op.getType(),
                                load.getTensor(), offsets, Value(),
                                load.getPaddingAttr(), load.getInBounds());
    block->setDiscardableAttrs(load->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, block.getResult());
    return success();
  }
};
} // namespace

namespace {
/// An i32 index tile as `Σ scalars + constant`, plus an iota along tile
/// dim `dim` (-1: the same index everywhere).
struct BoxIndex {
  int dim = -1;
  SmallVector<Value> scalars;
  int64_t constant = 0;
};

/// `v` as a BoxIndex, seen through splats, iotas, constants, additions,
/// expand_dims and broadcasts (none: not one).
static std::optional<BoxIndex> matchBoxIndex(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto splat = dyn_cast<SplatOp>(def)) {
    BoxIndex r;
    r.scalars.push_back(splat.getValue());
    return r;
  }
  if (isa<IotaOp>(def)) {
    BoxIndex r;
    r.dim = 0;
    return r;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!dense || !dense.getElementType().isInteger(32))
      return std::nullopt;
    BoxIndex r;
    r.constant = dense.getSplatValue<APInt>().getSExtValue();
    return r;
  }
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    auto a = matchBoxIndex(add.getLhs()), b = matchBoxIndex(add.getRhs());
    if (!a || !b || (a->dim >= 0 && b->dim >= 0))
      return std::nullopt;
    a->dim = std::max(a->dim, b->dim);
    a->scalars.append(b->scalars);
    a->constant += b->constant;
    return a;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
    auto r = matchBoxIndex(expand.getSrc());
    if (r && r->dim >= int(expand.getAxis()))
      ++r->dim;
    return r;
  }
  if (auto bcast = dyn_cast<BroadcastOp>(def)) {
    auto r = matchBoxIndex(bcast.getSrc());
    if (r && r->dim >= 0 &&
        cast<RankedTensorType>(bcast.getSrc().getType()).getShape()[r->dim] !=
            cast<RankedTensorType>(bcast.getType()).getShape()[r->dim])
      return std::nullopt;
    return r;
  }
  return std::nullopt;
}

/// Where the index tiles `indices` of a value of `shape` address a box of
/// the view (each tile dim of more than one element along exactly one view
/// dim, in the view's order; the other view dims one index): the box's
/// shape (the view's rank) and its offsets, built at the rewriter's point.
static std::optional<std::pair<SmallVector<int64_t>, SmallVector<Value>>>
matchBox(PatternRewriter &rewriter, Location loc, ValueRange indices,
         ArrayRef<int64_t> shape) {
  SmallVector<BoxIndex> index;
  for (Value i : indices) {
    auto m = matchBoxIndex(i);
    if (!m)
      return std::nullopt;
    index.push_back(*m);
  }
  SmallVector<int64_t> box;
  int lastDim = -1;
  for (const BoxIndex &b : index) {
    if (b.dim < 0) {
      box.push_back(1);
      continue;
    }
    if (b.dim <= lastDim)
      return std::nullopt;
    lastDim = b.dim;
    box.push_back(shape[b.dim]);
  }
  for (auto [d, n] : llvm::enumerate(shape))
    if (n > 1 && llvm::none_of(index, [&, d = d](const BoxIndex &b) {
          return b.dim == int(d);
        }))
      return std::nullopt;
  SmallVector<Value> offsets;
  for (const BoxIndex &b : index) {
    Value sum;
    if (b.constant || b.scalars.empty())
      sum = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                         b.constant);
    for (Value s : b.scalars)
      sum = sum ? Value(arith::AddIOp::create(rewriter, loc, sum, s)) : s;
    offsets.push_back(sum);
  }
  return std::make_pair(box, offsets);
}

/// `v` (a value or mask of `shape`) reshaped to the box `box`.
static Value toBox(PatternRewriter &rewriter, Location loc, Value v,
                   ArrayRef<int64_t> box) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == box)
    return v;
  return ReshapeOp::create(rewriter, loc,
                           RankedTensorType::get(box, t.getElementType()), v);
}

/// A relaxed, GPU-scope f32 `atomic_rmw add` whose result nobody reads and
/// whose index tiles address a box (matchBox) is a reducing store of that
/// box: no index tiles to compute and hold, and vector reductions
/// (split-K's partial products, attention backward's dQ).
struct AtomicAddOfBoxIsReducingStore : public OpRewritePattern<AtomicRMWOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AtomicRMWOp op,
                                PatternRewriter &rewriter) const override {
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    if (!op->use_empty() || op.getKind() != AtomicKind::Add ||
        op.getSem() != MemSemantics::Relaxed ||
        op.getScope() != MemScope::GPU || !vt.getElementType().isF32() ||
        vt.getEncoding())
      return failure();
    Location loc = op.getLoc();
    auto box = matchBox(rewriter, loc, op.getIndices(), vt.getShape());
    if (!box)
      return failure();
    auto &[shape, offsets] = *box;
    Value mask = op.getMask();
    StoreOp::create(rewriter, loc, toBox(rewriter, loc, op.getValue(), shape),
                    op.getTensor(), offsets,
                    mask ? toBox(rewriter, loc, mask, shape) : Value(),
                    /*in_bounds=*/false,
                    AtomicKindAttr::get(rewriter.getContext(), AtomicKind::Add));
    rewriter.eraseOp(op);
    return success();
  }
};

/// A gather whose index tiles address a box (matchBox) is a load of that
/// box (the same elements, mask and padding: an element outside the view
/// is not read either way): no index tiles, vector loads, and in a loop
/// of dots a copy the load partition makes (a per-row vector gathered as
/// `lse[b, h, m0 + iota]`). Before layouts.
struct GatherOfBoxIsLoad : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto vt = cast<RankedTensorType>(op.getType());
    if (vt.getEncoding())
      return failure();
    Location loc = op.getLoc();
    auto box = matchBox(rewriter, loc, op.getIndices(), vt.getShape());
    if (!box)
      return failure();
    auto &[shape, offsets] = *box;
    Value mask = op.getMask();
    auto load = LoadOp::create(
        rewriter, loc, RankedTensorType::get(shape, vt.getElementType()),
        op.getTensor(), offsets,
        mask ? toBox(rewriter, loc, mask, shape) : Value(),
        op.getPaddingAttr(), /*in_bounds=*/false);
    Value v = load.getResult();
    if (ArrayRef<int64_t>(shape) != vt.getShape())
      v = ReshapeOp::create(rewriter, loc, vt, v);
    rewriter.replaceOp(op, v);
    return success();
  }
};
} // namespace

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<GatherOfBoxIsLoad>(context);
}

void AtomicRMWOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<AtomicAddOfBoxIsReducingStore>(context);
}

void ExtractSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<LoadBlocksSeparately>(context);
}

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<RematerializeCheapConvert, SinkConvertThroughBroadcast,
              SinkConvertThroughExpandDims>(context);
}
