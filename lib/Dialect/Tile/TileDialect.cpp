//===- TileDialect.cpp - tile dialect, types and attributes ---------------===//

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

#include "tilec/Dialect/Tile/TileDialect.cpp.inc"
#include "tilec/Dialect/Tile/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/TileAttrs.cpp.inc"

namespace {
/// Prints layouts as aliases (#linear, #linear1, ...) at the top of a module.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<LinearLayoutAttr>(attr)) {
      os << "linear";
      return AliasResult::FinalAlias;
    }
    if (isa<SharedLayoutAttr>(attr)) {
      os << "shared";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/TileOps.cpp.inc"
      >();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/Tile/TileTypes.cpp.inc"
      >();
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/Tile/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Tile types
//===----------------------------------------------------------------------===//

bool tile::isTileElementType(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.isSignless() && llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                                i.getWidth());
  return isa<Float16Type, BFloat16Type, Float32Type, Float8E4M3FNType,
             Float8E5M2Type>(t);
}

static constexpr const char *kElementTypes =
    "i1, i8, i16, i32, i64, f16, bf16, f32, f8E4M3FN or f8E5M2";

std::optional<std::string> tile::checkTileType(Type t) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  auto tt = dyn_cast<RankedTensorType>(t);
  if (!tt) {
    os << "expected a tile, found '" << t << "'";
    return msg;
  }
  if (tt.getRank() < 1 || tt.getRank() > 5) {
    os << "expected a tile of rank 1 to 5, found rank " << tt.getRank();
    return msg;
  }
  for (int64_t d : tt.getShape())
    if (ShapedType::isDynamic(d) || d <= 0 || !llvm::isPowerOf2_64(d)) {
      os << "expected tile dims to be static powers of two, found '" << t
         << "'";
      return msg;
    }
  if (!isTileElementType(tt.getElementType())) {
    os << "unsupported tile element type '" << tt.getElementType()
       << "'; expected " << kElementTypes;
    return msg;
  }
  if (Attribute enc = tt.getEncoding()) {
    auto ll = dyn_cast<LinearLayoutAttr>(enc);
    if (!ll) {
      os << "expected a #tile.linear layout, found '" << enc << "'";
      return msg;
    }
    if (ll.getRank() != tt.getRank()) {
      os << "layout has rank " << ll.getRank() << " but the tile has rank "
         << tt.getRank();
      return msg;
    }
    LinearLayout layout = ll.toLayout(tt.getShape());
    for (InDim in : {InDim::Register, InDim::Lane, InDim::Warp})
      for (const auto &c : layout.getBases(in))
        for (unsigned d = 0; d < c.size(); ++d)
          if (c[d] < 0 || c[d] >= tt.getShape()[d]) {
            os << "layout basis coordinate " << c[d] << " of dim " << d
               << " is outside the tile's extent " << tt.getShape()[d];
            return msg;
          }
    if (!layout.isSurjective()) {
      os << "layout does not cover every element of '" << t << "'";
      return msg;
    }
  }
  return std::nullopt;
}

LinearLayoutAttr tile::getLayoutAttr(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt ? dyn_cast_or_null<LinearLayoutAttr>(tt.getEncoding()) : nullptr;
}

LinearLayout tile::getLayout(Type t) {
  auto tt = cast<RankedTensorType>(t);
  return cast<LinearLayoutAttr>(tt.getEncoding()).toLayout(tt.getShape());
}

RankedTensorType tile::withLayout(Type t, const LinearLayout &layout) {
  auto tt = cast<RankedTensorType>(t);
  return RankedTensorType::get(tt.getShape(), tt.getElementType(),
                               LinearLayoutAttr::get(t.getContext(), layout));
}

int tile::getNumWarps(Operation *kernel) {
  if (auto a = kernel->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
    return a.getInt();
  return 4;
}

Type TileDialect::parseType(DialectAsmParser &parser) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Type t;
  OptionalParseResult res = generatedTypeParser(parser, &mnemonic, t);
  if (res.has_value())
    return succeeded(*res) ? t : Type();
  if (mnemonic != "tile") {
    parser.emitError(loc) << "unknown tile type '" << mnemonic
                          << "'; expected 'tile' or 'tensor'";
    return {};
  }
  // `!tile.tile<128x64xbf16[, layout]>` spells the tile tensor<...>.
  SmallVector<int64_t> shape;
  Type elt;
  Attribute enc;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elt))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(enc))
    return {};
  if (parser.parseGreater())
    return {};
  auto tt = RankedTensorType::get(shape, elt, enc);
  if (auto err = checkTileType(tt)) {
    parser.emitError(loc) << *err;
    return {};
  }
  return tt;
}

void TileDialect::printType(Type t, DialectAsmPrinter &printer) const {
  (void)generatedTypePrinter(t, printer);
}

//===----------------------------------------------------------------------===//
// TensorViewType
//===----------------------------------------------------------------------===//

static SmallVector<int64_t> defaultStrides(unsigned rank) {
  SmallVector<int64_t> s(rank, ShapedType::kDynamic);
  if (rank)
    s.back() = 1;
  return s;
}

static void printDimOrDynamic(AsmPrinter &p, int64_t v) {
  if (ShapedType::isDynamic(v))
    p << "?";
  else
    p << v;
}

Type TensorViewType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape, strides;
  Type elt;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elt))
    return {};
  bool sawComma = succeeded(parser.parseOptionalComma());
  if (sawComma && succeeded(parser.parseOptionalKeyword("strides"))) {
    sawComma = false;
    if (parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
          if (succeeded(parser.parseOptionalQuestion())) {
            strides.push_back(ShapedType::kDynamic);
            return success();
          }
          int64_t v;
          if (parser.parseInteger(v))
            return failure();
          strides.push_back(v);
          return success();
        }))
      return {};
  }
  if (strides.empty())
    strides = defaultStrides(shape.size());
  SmallVector<int64_t> box;
  int64_t swizzle = 0;
  if (sawComma || succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("tma") || parser.parseEqual() ||
        parser.parseDimensionList(box, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false) ||
        parser.parseComma() || parser.parseKeyword("swizzle") ||
        parser.parseEqual() || parser.parseInteger(swizzle))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), shape, elt, strides, box, swizzle);
}

void TensorViewType::print(AsmPrinter &p) const {
  p << "<";
  for (int64_t d : getShape()) {
    printDimOrDynamic(p, d);
    p << "x";
  }
  p << getElementType();
  if (ArrayRef<int64_t>(defaultStrides(getRank())) != getStrides()) {
    p << ", strides = [";
    llvm::interleaveComma(getStrides(), p,
                          [&](int64_t s) { printDimOrDynamic(p, s); });
    p << "]";
  }
  if (isTMA()) {
    p << ", tma = ";
    llvm::interleave(getTmaBox(), p, "x");
    p << ", swizzle = " << getTmaSwizzle();
  }
  p << ">";
}

TensorViewType TensorViewType::withTMA(ArrayRef<int64_t> box,
                                       int64_t swizzle) const {
  return get(getContext(), getShape(), getElementType(), getStrides(), box,
             swizzle);
}

LogicalResult
TensorViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> shape, Type elementType,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> box,
                       int64_t swizzle) {
  if (shape.empty() || shape.size() > 5)
    return emitError() << "expected a tensor of rank 1 to 5, found rank "
                       << shape.size();
  if (!isTileElementType(elementType))
    return emitError() << "unsupported tensor element type " << elementType
                       << "; expected " << kElementTypes;
  if (strides.size() != shape.size())
    return emitError() << "expected " << shape.size()
                       << " strides (one per dim), found " << strides.size();
  // The box last: it needs a ranked view of a tile element type.
  if (!box.empty()) {
    if (box.size() != shape.size())
      return emitError() << "expected a TMA box of rank " << shape.size()
                         << ", found rank " << box.size();
    for (int64_t d : box)
      if (d < 1 || d > 256)
        return emitError() << "TMA box dims are 1..256, found " << d;
    if (strides.back() != 1)
      return emitError() << "a TMA view needs a unit innermost stride";
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
      return emitError() << "TMA swizzle is 0, 32, 64 or 128, found "
                         << swizzle;
    int64_t inner =
        box.back() * std::max(8u, elementType.getIntOrFloatBitWidth()) / 8;
    if (inner % 16 != 0 || (swizzle && inner > swizzle))
      return emitError() << "the TMA box's inner extent (" << inner
                         << " bytes) must be a multiple of 16 and at most "
                            "the swizzle span";
  }
  for (int64_t d : shape) {
    if (!ShapedType::isDynamic(d) && d < 0)
      return emitError() << "expected non-negative dims, found " << d;
    // Kernels index with 32-bit integers (tile.dim is an i32).
    if (!ShapedType::isDynamic(d) && d > INT32_MAX)
      return emitError() << "dim " << d
                         << " does not fit the 32-bit indices of a kernel (at "
                            "most 2147483647)";
  }
  for (int64_t s : strides)
    if (!ShapedType::isDynamic(s) && s < 0)
      return emitError() << "expected non-negative strides, found " << s;
  return success();
}

int64_t TensorViewType::getContiguousDim() const {
  ArrayRef<int64_t> s = getStrides();
  for (int d = int(s.size()) - 1; d >= 0; --d)
    if (s[d] == 1)
      return d;
  return -1;
}

//===----------------------------------------------------------------------===//
// LinearLayoutAttr
//===----------------------------------------------------------------------===//

Attribute LinearLayoutAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<SmallVector<int64_t>> lists[3];
  const char *names[] = {"register", "lane", "warp"};
  if (parser.parseLess())
    return {};
  for (int i = 0; i < 3; ++i) {
    if ((i && parser.parseComma()) || parser.parseKeyword(names[i]) ||
        parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
          lists[i].emplace_back();
          return parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() {
                int64_t v;
                if (parser.parseInteger(v))
                  return failure();
                lists[i].back().push_back(v);
                return success();
              });
        }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  unsigned rank = 0;
  for (auto &l : lists)
    if (!l.empty())
      rank = l.front().size();
  SmallVector<int64_t> flat[3];
  for (int i = 0; i < 3; ++i)
    for (auto &c : lists[i]) {
      if (c.size() != rank) {
        parser.emitError(loc) << "every basis must have " << rank
                              << " coordinates, found one with " << c.size();
        return {};
      }
      flat[i].append(c.begin(), c.end());
    }
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), rank, flat[0], flat[1], flat[2]);
}

void LinearLayoutAttr::print(AsmPrinter &p) const {
  const char *names[] = {"register", "lane", "warp"};
  ArrayRef<int64_t> flat[] = {getRegisterBases(), getLaneBases(),
                              getWarpBases()};
  unsigned rank = getRank();
  p << "<";
  for (int i = 0; i < 3; ++i) {
    p << (i ? ", " : "") << names[i] << " = [";
    for (unsigned b = 0; b * rank < flat[i].size(); ++b) {
      p << (b ? ", [" : "[");
      llvm::interleaveComma(flat[i].slice(b * rank, rank), p);
      p << "]";
    }
    p << "]";
  }
  p << ">";
}

LogicalResult
LinearLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned rank, ArrayRef<int64_t> reg,
                         ArrayRef<int64_t> lane, ArrayRef<int64_t> warp) {
  if (rank == 0)
    return emitError() << "a layout needs at least one basis to give its rank";
  if (lane.size() != 5 * rank)
    return emitError() << "expected 5 lane bases (32 lanes), found "
                       << lane.size() / rank;
  for (ArrayRef<int64_t> l : {reg, lane, warp})
    for (int64_t v : l)
      if (v < 0)
        return emitError() << "basis coordinates must be non-negative, found "
                           << v;
  return success();
}

LinearLayout LinearLayoutAttr::toLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  auto unflat = [&](ArrayRef<int64_t> flat) {
    LinearLayout::Bases bs;
    for (unsigned b = 0; b * rank < flat.size(); ++b)
      bs.emplace_back(flat.begin() + b * rank, flat.begin() + (b + 1) * rank);
    return bs;
  };
  return LinearLayout(std::vector<int64_t>(shape.begin(), shape.end()),
                      unflat(getRegisterBases()), unflat(getLaneBases()),
                      unflat(getWarpBases()));
}

LinearLayoutAttr LinearLayoutAttr::get(MLIRContext *ctx,
                                       const LinearLayout &layout) {
  SmallVector<int64_t> flat[3];
  for (int i = 0; i < 3; ++i)
    for (const auto &c : layout.getBases(InDim(i)))
      flat[i].append(c.begin(), c.end());
  return get(ctx, layout.getRank(), flat[0], flat[1], flat[2]);
}

//===----------------------------------------------------------------------===//
// SharedLayoutAttr
//===----------------------------------------------------------------------===//

Attribute SharedLayoutAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<SmallVector<int64_t>> bases;
  if (parser.parseLess() || parser.parseKeyword("offset") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        bases.emplace_back();
        return parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square, [&]() {
              int64_t v;
              if (parser.parseInteger(v))
                return failure();
              bases.back().push_back(v);
              return success();
            });
      }) ||
      parser.parseGreater())
    return {};
  if (bases.empty()) {
    parser.emitError(loc) << "a shared layout needs at least one offset basis";
    return {};
  }
  unsigned rank = bases.front().size();
  SmallVector<int64_t> flat;
  for (auto &c : bases) {
    if (c.size() != rank || rank == 0) {
      parser.emitError(loc) << "every basis must have " << rank
                            << " coordinates, found one with " << c.size();
      return {};
    }
    flat.append(c.begin(), c.end());
  }
  return get(parser.getContext(), rank, flat);
}

void SharedLayoutAttr::print(AsmPrinter &p) const {
  unsigned rank = getRank();
  ArrayRef<int64_t> flat = getOffsetBases();
  p << "<offset = [";
  for (unsigned b = 0; b * rank < flat.size(); ++b) {
    p << (b ? ", [" : "[");
    llvm::interleaveComma(flat.slice(b * rank, rank), p);
    p << "]";
  }
  p << "]>";
}

LinearLayout SharedLayoutAttr::toLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  ArrayRef<int64_t> flat = getOffsetBases();
  LinearLayout::Bases bases;
  for (unsigned b = 0; b * rank < flat.size(); ++b)
    bases.emplace_back(flat.begin() + b * rank, flat.begin() + (b + 1) * rank);
  LinearLayout::NamedSizes outs;
  for (unsigned i = 0; i < shape.size(); ++i)
    outs.push_back({outDimName(i), shape[i]});
  return LinearLayout({{"offset", bases}}, outs);
}

SharedLayoutAttr SharedLayoutAttr::get(MLIRContext *ctx,
                                       const LinearLayout &layout) {
  SmallVector<int64_t> flat;
  for (const auto &c : layout.getBases("offset"))
    flat.append(c.begin(), c.end());
  return get(ctx, layout.getRank(), flat);
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//

Target tile::getTarget(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto t = module->getAttrOfType<TargetAttr>(kTargetAttr))
      return t.getValue();
  return Target::SM90a;
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kTargetAttr) {
    if (!isa<ModuleOp>(op) || !isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' is a module's #tile.target<sm_90a|sm_100a>";
    return success();
  }
  if (name == kDebugAttr) {
    if (!isa<ModuleOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a module's unit attribute";
    return success();
  }
  auto func = dyn_cast<func::FuncOp>(op);
  if (name == kKernelAttr || name == kGridAttr || name == kNumWarpsAttr) {
    if (!func)
      return op->emitError() << "'" << name << "' belongs on a func.func";
  }
  // After convert-tile-to-llvm the signature holds pointers and extents;
  // the attributes were checked against the views before.
  bool lowered = func && llvm::any_of(func.getArgumentTypes(), [](Type t) {
    return isa<LLVM::LLVMPointerType>(t);
  });
  if (lowered)
    return success();
  if (name == kKernelAttr) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (func.getNumResults() != 0)
      return op->emitError() << "a kernel returns nothing, found "
                             << func.getNumResults() << " results";
    for (Type t : func.getArgumentTypes())
      if (!isa<TensorViewType>(t) && !isTileElementType(t))
        return op->emitError()
               << "kernel arguments are !tile.tensor views or scalars of a "
                  "tile element type, found "
               << t;
    if (!op->hasAttr(kGridAttr))
      return op->emitError() << "a kernel needs a launch grid: add "
                                "tile.grid = #tile.grid<cdiv(dim(0, 0), 128), "
                                "...>";
    return success();
  }
  if (name == kGridAttr) {
    auto grid = dyn_cast<GridAttr>(attr.getValue());
    if (!grid)
      return op->emitError()
             << "'tile.grid' must be a #tile.grid<...> of 1 to 3 grid "
                "expressions, e.g. #tile.grid<cdiv(dim(0, 0), 128)>; found "
             << attr.getValue();
    for (GridExprAttr e : grid.getAxes()) {
      if (auto err = e.check(func.getArgumentTypes()))
        return op->emitError() << "bad grid expression '" << e.str()
                               << "': " << *err;
      if (e.usesStride())
        return op->emitError() << "bad grid expression '" << e.str()
                               << "': stride() is for costs only (a kernel "
                                  "cannot read a view's strides)";
    }
    // A rule every launch would reject (the runtime's limits: x in
    // 1..2^31-1, y and z in 1..65535).
    static constexpr char kAxis[] = {'x', 'y', 'z'};
    static constexpr int64_t kMax[] = {INT32_MAX, 65535, 65535};
    for (auto [i, e] : llvm::enumerate(grid.getAxes())) {
      GridExprAttr::Range r = e.range(func.getArgumentTypes());
      auto bad = [&]() {
        return op->emitError()
               << "grid " << kAxis[i] << " '" << e.str() << "' ";
      };
      if (r.divByZero)
        return bad() << "divides by a constant 0: every launch would fail";
      if (r.hi < 1)
        return bad() << "is at most " << r.hi
                     << " for every input: a launch needs 1.." << kMax[i];
      if (r.lo > kMax[i])
        return bad() << "is at least " << r.lo
                     << " for every input: a launch needs 1.." << kMax[i];
    }
    return success();
  }
  // An integer attribute whose value `ok` accepts.
  auto checkInt = [&](llvm::function_ref<bool(int64_t)> ok,
                      StringRef what) -> LogicalResult {
    auto i = dyn_cast<IntegerAttr>(attr.getValue());
    if (i && ok(i.getInt()))
      return success();
    return op->emitError() << "'" << name << "' must be " << what
                           << ", found " << attr.getValue();
  };
  if (name == kNumWarpsAttr)
    return checkInt(
        [](int64_t v) { return llvm::is_contained({1, 2, 4, 8, 16}, v); },
        "1, 2, 4, 8 or 16");
  if (name == kNumStagesAttr)
    return checkInt([](int64_t v) { return v >= 2 && v <= 8; }, "2..8");
  if (name == kBlocksPerSMAttr)
    return checkInt([](int64_t v) { return v >= 1 && v <= 4; }, "1..4");
  if (name == kScheduleAttr) {
    if (!func || !isa<ScheduleAttr>(attr.getValue()))
      return op->emitError() << "'tile.schedule' must be "
                                "#tile.schedule<cooperative|pingpong>, found "
                             << attr.getValue();
    return success();
  }
  if (name == kTileSchedulerAttr) {
    if (!func || !isa<TileSchedulerAttr>(attr.getValue()))
      return op->emitError() << "'tile.tile_scheduler' must be "
                                "#tile.tile_scheduler<static|launch_control|"
                                "dynamic>, "
                                "found "
                             << attr.getValue();
    return success();
  }
  if (name == kClusterAttr || name == kCtaGroupAttr)
    return checkInt([](int64_t v) { return v == 1 || v == 2; }, "1 or 2");
  if (name == kSharedMemoryAttr)
    return success();
  if (name == kPlainVariantAttr || name == kPlainVariantOfAttr ||
      name == kVariantOfAttr) {
    if (!isa<FlatSymbolRefAttr>(attr.getValue()) || !func)
      return op->emitError() << "'" << name
                             << "' is a kernel's reference to a kernel (@name)";
    return success();
  }
  if (name == kTileShapesAttr) {
    auto arr = dyn_cast<ArrayAttr>(attr.getValue());
    auto bad = [&]() {
      return op->emitError()
             << "'" << name
             << "' must be a non-empty array of [rows, cols] pairs of powers "
                "of two in 16..256, found "
             << attr.getValue();
    };
    if (!func || !arr || arr.empty())
      return bad();
    for (Attribute a : arr) {
      auto pair = dyn_cast<ArrayAttr>(a);
      if (!pair || pair.size() != 2)
        return bad();
      for (Attribute d : pair) {
        auto i = dyn_cast<IntegerAttr>(d);
        if (!i || i.getInt() < 16 || i.getInt() > 256 ||
            !llvm::isPowerOf2_64(i.getInt()))
          return bad();
      }
    }
    return success();
  }
  if (name == kSplitKAttr) {
    auto arr = dyn_cast<ArrayAttr>(attr.getValue());
    auto inRange = [](Attribute a) {
      auto i = dyn_cast<IntegerAttr>(a);
      return i && i.getInt() >= 2 && i.getInt() <= 16;
    };
    if (!func || !arr || !llvm::all_of(arr, inRange))
      return op->emitError() << "'" << name
                             << "' must be an array of integers in 2..16, "
                                "found "
                             << attr.getValue();
    return success();
  }
  if (name == kStreamKAttr) {
    if (failed(checkInt([](int64_t v) { return v >= 2 && v <= 16; },
                        "an integer in 2..16")))
      return failure();
    auto grid = func ? func->getAttrOfType<GridAttr>(kGridAttr) : GridAttr();
    if (!grid || (grid.getAxes().size() > 2 && !grid.axis(2).isLiteral(1)))
      return op->emitError() << "'" << name
                             << "' belongs on a kernel whose grid has no z "
                                "axis (its units' splits are z)";
    return success();
  }
  if (name == kProfileAttr) {
    if (!func || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a kernel's unit attribute";
    return success();
  }
  if (name == kProfileScopesAttr) {
    auto arr = dyn_cast<ArrayAttr>(attr.getValue());
    if (!func || !arr || llvm::any_of(arr, [](Attribute a) {
          auto s = dyn_cast<StringAttr>(a);
          return !s || !isProfileScopeName(s.getValue());
        }))
      return op->emitError() << "'" << name
                             << "' is a kernel's array of scope names";
    return success();
  }
  if (name == kVariantsAttr) {
    auto arr = dyn_cast<ArrayAttr>(attr.getValue());
    if (!func || !arr || !llvm::all_of(arr, [](Attribute a) {
          return isa<FlatSymbolRefAttr>(a);
        }))
      return op->emitError() << "'" << name
                             << "' is a kernel's array of references to "
                                "kernels ([@name, ...])";
    return success();
  }
  // Grid expressions of the kernel's arguments: "bad cost expression",
  // "bad workspace expression", ...
  if (name == kCostAttr || name == kWorkspaceAttr || name == kSemaphoresAttr) {
    auto e = dyn_cast<GridExprAttr>(attr.getValue());
    if (!e || !func)
      return op->emitError() << "'" << name
                             << "' is a kernel's #tile.expr<...>";
    if (auto err = e.check(func.getArgumentTypes()))
      return op->emitError() << "bad " << name.drop_front(5) // after "tile."
                             << " expression '" << e.str() << "': " << *err;
    if (name != kCostAttr && e.usesStride())
      return op->emitError() << "bad " << name.drop_front(5)
                             << " expression '" << e.str()
                             << "': stride() is for costs only";
    return success();
  }
  if (name == kTmaFallbackAttr) {
    auto a = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
    if (!a || !func)
      return op->emitError() << "'" << name
                             << "' is a kernel's array<i32> of argument numbers";
    for (int32_t i : a.asArrayRef())
      if (i < 0 || i >= int(func.getNumArguments()) ||
          !isa<TensorViewType>(func.getArgumentTypes()[i]))
        return op->emitError() << "'" << name << "': argument " << i
                               << " is not a view";
    return success();
  }
  if (name == kPipelineStagesAttr || name == kPipelineStageAttr ||
      name == kPipelineClusterAttr) {
    if (failed(checkInt([](int64_t v) { return v >= 0; },
                        "a non-negative integer")))
      return failure();
    if (name == kPipelineStagesAttr && !isa<scf::ForOp>(op))
      return op->emitError() << "'" << name << "' belongs on an scf.for";
    return success();
  }
  return op->emitError() << "unknown tile attribute '" << name << "'";
}

int tilec::tile::getBlocksPerSM(Operation *op) {
  auto func = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op)
                                    : op->getParentOfType<func::FuncOp>();
  auto a = func ? func->getAttrOfType<IntegerAttr>(kBlocksPerSMAttr)
                : IntegerAttr();
  return a ? a.getInt() : 1;
}
