//===- TileGrid.cpp - grid expressions and launch-grid rules --------------===//
//
// #tile.expr and #tile.grid: the language the runtime evaluates at launch
// (docs/BUNDLE.md, `grid` and `cost`), held in the IR as a tree of typed
// nodes. Only the bundle writer turns it into text.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"

#include <algorithm>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

/// The runtime's limits on an expression (runtime/src/grid_expr.cpp): a
/// deeper or larger one would make a bundle it refuses.
static constexpr int64_t kMaxGridDepth = 64;
static constexpr int64_t kMaxGridNodes = 1024;

//===----------------------------------------------------------------------===//
// GridExprAttr
//===----------------------------------------------------------------------===//

GridExprAttr GridExprAttr::literal(MLIRContext *ctx, int64_t v) {
  return get(ctx, GridOp::Literal, v, 0, {});
}

GridExprAttr GridExprAttr::sms(MLIRContext *ctx) {
  return get(ctx, GridOp::Sms, 0, 0, {});
}

GridExprAttr GridExprAttr::dimOf(MLIRContext *ctx, int64_t param,
                                 int64_t axis) {
  return get(ctx, GridOp::Dim, param, axis, {});
}

GridExprAttr GridExprAttr::strideOf(MLIRContext *ctx, int64_t param,
                                    int64_t axis) {
  return get(ctx, GridOp::Stride, param, axis, {});
}

GridExprAttr GridExprAttr::argOf(MLIRContext *ctx, int64_t param) {
  return get(ctx, GridOp::Arg, param, 0, {});
}

GridExprAttr GridExprAttr::call(GridOp op, GridExprAttr lhs,
                                GridExprAttr rhs) {
  return get(lhs.getContext(), op, 0, 0, {lhs, rhs});
}

GridExprAttr GridExprAttr::lhs() const {
  return cast<GridExprAttr>(getOperands()[0]);
}

GridExprAttr GridExprAttr::rhs() const {
  return cast<GridExprAttr>(getOperands()[1]);
}

static bool isCallOp(GridOp op) {
  return op != GridOp::Literal && op != GridOp::Sms && op != GridOp::Dim &&
         op != GridOp::Arg && op != GridOp::Stride;
}

LogicalResult
GridExprAttr::verify(function_ref<InFlightDiagnostic()> emitError, GridOp op,
                     int64_t value, int64_t axis,
                     ArrayRef<Attribute> operands) {
  if (operands.size() != (isCallOp(op) ? 2u : 0u))
    return emitError() << "grid '" << stringifyGridOp(op) << "' takes "
                       << (isCallOp(op) ? 2 : 0) << " operands, found "
                       << operands.size();
  for (Attribute a : operands)
    if (!isa<GridExprAttr>(a))
      return emitError() << "grid operands are #tile.expr, found " << a;
  if ((op == GridOp::Dim || op == GridOp::Stride || op == GridOp::Arg) &&
      (value < 0 || axis < 0))
    return emitError() << "grid '" << stringifyGridOp(op)
                       << "' refers to argument " << value << ", dim " << axis;
  return success();
}

bool GridExprAttr::usesSms() const {
  if (getOp() == GridOp::Sms)
    return true;
  return isCall() && (lhs().usesSms() || rhs().usesSms());
}

bool GridExprAttr::usesStride() const {
  if (getOp() == GridOp::Stride)
    return true;
  return isCall() && (lhs().usesStride() || rhs().usesStride());
}

int64_t GridExprAttr::size() const {
  return isCall() ? 1 + lhs().size() + rhs().size() : 1;
}

int64_t GridExprAttr::depth() const {
  return isCall() ? 1 + std::max(lhs().depth(), rhs().depth()) : 1;
}

void GridExprAttr::printExpr(llvm::raw_ostream &os, StringRef sep) const {
  switch (getOp()) {
  case GridOp::Literal:
    os << getValue();
    return;
  case GridOp::Sms:
    os << "sms";
    return;
  case GridOp::Dim:
  case GridOp::Stride:
    os << stringifyGridOp(getOp()) << "(" << getValue() << sep << getAxis()
       << ")";
    return;
  case GridOp::Arg:
    os << "arg(" << getValue() << ")";
    return;
  default:
    os << stringifyGridOp(getOp()) << "(";
    lhs().printExpr(os, sep);
    os << sep;
    rhs().printExpr(os, sep);
    os << ")";
  }
}

std::string GridExprAttr::toText() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printExpr(os, ",");
  return s;
}

std::string GridExprAttr::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printExpr(os, ", ");
  return s;
}

std::optional<std::string> GridExprAttr::check(TypeRange args) const {
  if (depth() > kMaxGridDepth || size() > kMaxGridNodes)
    return "the expression is too large (at most " +
           std::to_string(kMaxGridDepth) + " levels and " +
           std::to_string(kMaxGridNodes) + " nodes)";
  std::optional<std::string> error;
  auto visit = [&](GridExprAttr e, auto &self) -> void {
    if (error)
      return;
    if (e.isCall()) {
      self(e.lhs(), self);
      self(e.rhs(), self);
      return;
    }
    if (e.getOp() != GridOp::Dim && e.getOp() != GridOp::Stride &&
        e.getOp() != GridOp::Arg)
      return;
    int64_t p = e.getValue();
    std::string what = e.str();
    if (p >= int64_t(args.size())) {
      error = what + " refers to argument " + std::to_string(p) +
              " but the kernel has " + std::to_string(args.size());
      return;
    }
    if (e.getOp() == GridOp::Dim || e.getOp() == GridOp::Stride) {
      auto tv = dyn_cast<TensorViewType>(args[p]);
      if (!tv)
        error = what + ": argument " + std::to_string(p) + " is not a tensor";
      else if (e.getAxis() >= int64_t(tv.getRank()))
        error = what + ": argument " + std::to_string(p) + " has rank " +
                std::to_string(tv.getRank());
    } else if (!args[p].isSignlessInteger()) {
      error = what + ": argument " + std::to_string(p) +
              " is not an integer scalar";
    }
  };
  visit(*this, visit);
  return error;
}

GridExprAttr::Range GridExprAttr::range(TypeRange args) const {
  using I = __int128;
  auto clamp = [](I v) -> int64_t {
    return v < I(INT64_MIN) ? INT64_MIN : v > I(INT64_MAX) ? INT64_MAX : int64_t(v);
  };
  auto full = [] { return Range{INT64_MIN, INT64_MAX, false}; };
  switch (getOp()) {
  case GridOp::Literal:
    return {getValue(), getValue(), false};
  case GridOp::Sms:
    return {1, INT64_MAX, false};
  case GridOp::Dim: {
    auto tv = getValue() < int64_t(args.size())
                  ? dyn_cast<TensorViewType>(args[getValue()])
                  : TensorViewType();
    if (tv && getAxis() < int64_t(tv.getRank()) &&
        !ShapedType::isDynamic(tv.getShape()[getAxis()]))
      return {tv.getShape()[getAxis()], tv.getShape()[getAxis()], false};
    return {0, INT64_MAX, false};
  }
  case GridOp::Stride:
    return {0, INT64_MAX, false};
  case GridOp::Arg: {
    Type t = getValue() < int64_t(args.size()) ? args[getValue()] : Type();
    if (t && t.isSignlessInteger() && t.getIntOrFloatBitWidth() < 64) {
      unsigned w = t.getIntOrFloatBitWidth();
      return {-(int64_t(1) << (w - 1)), (int64_t(1) << (w - 1)) - 1, false};
    }
    return full();
  }
  default:
    break;
  }
  Range x = lhs().range(args), y = rhs().range(args);
  bool zero = x.divByZero || y.divByZero;
  auto corners = [&](auto f) {
    I a = f(x.lo, y.lo), b = f(x.lo, y.hi), c = f(x.hi, y.lo), d = f(x.hi, y.hi);
    return Range{clamp(std::min({a, b, c, d})), clamp(std::max({a, b, c, d})),
                 zero};
  };
  switch (getOp()) {
  case GridOp::Add:
    return {clamp(I(x.lo) + y.lo), clamp(I(x.hi) + y.hi), zero};
  case GridOp::Sub:
    return {clamp(I(x.lo) - y.hi), clamp(I(x.hi) - y.lo), zero};
  case GridOp::Mul:
    return corners([](I a, I b) { return a * b; });
  case GridOp::Min:
    return {std::min(x.lo, y.lo), std::min(x.hi, y.hi), zero};
  case GridOp::Max:
    return {std::max(x.lo, y.lo), std::max(x.hi, y.hi), zero};
  case GridOp::CDiv:
  case GridOp::Div: {
    if (y.lo == 0 && y.hi == 0)
      return {INT64_MIN, INT64_MAX, true};
    if (y.lo <= 0 && y.hi >= 0)
      return {INT64_MIN, INT64_MAX, zero};
    // Monotone in each operand for a divisor of one sign: the extremes
    // are at the corners.
    bool ceil = getOp() == GridOp::CDiv;
    return corners([ceil](I a, I b) {
      I q = a / b, r = a % b;
      if (r != 0 && ((r > 0) == (b > 0)) == ceil)
        q += ceil ? 1 : -1;
      return q;
    });
  }
  default:
    return full();
  }
}

static GridExprAttr parseExprAt(AsmParser &parser, int depth) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  if (depth > kMaxGridDepth) {
    parser.emitError(loc) << "grid expression nested more than "
                          << kMaxGridDepth << " deep";
    return {};
  }
  int64_t v;
  OptionalParseResult lit = parser.parseOptionalInteger(v);
  if (lit.has_value())
    return failed(*lit) ? GridExprAttr() : GridExprAttr::literal(ctx, v);
  StringRef name;
  if (parser.parseOptionalKeyword(&name)) {
    parser.emitError(loc) << "expected a grid expression: an integer, sms, "
                             "dim(P, D), stride(P, D), arg(P) or a call";
    return {};
  }
  std::optional<GridOp> op = symbolizeGridOp(name);
  if (!op || *op == GridOp::Literal) {
    parser.emitError(loc) << "unknown grid function '" << name
                          << "'; expected sms, dim, stride, arg, cdiv, add, "
                             "sub, mul, div, min or max";
    return {};
  }
  if (*op == GridOp::Sms)
    return GridExprAttr::sms(ctx);
  if (parser.parseLParen())
    return {};
  if (*op == GridOp::Dim || *op == GridOp::Stride || *op == GridOp::Arg) {
    int64_t param = 0, axis = 0;
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseInteger(param) ||
        (*op != GridOp::Arg &&
         (parser.parseComma() || parser.parseInteger(axis))) ||
        parser.parseRParen())
      return {};
    if (param < 0 || axis < 0) {
      parser.emitError(at) << name << "() takes non-negative literals";
      return {};
    }
    if (*op == GridOp::Stride)
      return GridExprAttr::strideOf(ctx, param, axis);
    return *op == GridOp::Dim ? GridExprAttr::dimOf(ctx, param, axis)
                              : GridExprAttr::argOf(ctx, param);
  }
  GridExprAttr lhs = parseExprAt(parser, depth + 1);
  if (!lhs || parser.parseComma())
    return {};
  GridExprAttr rhs = parseExprAt(parser, depth + 1);
  if (!rhs || parser.parseRParen())
    return {};
  return GridExprAttr::call(*op, lhs, rhs);
}

GridExprAttr GridExprAttr::parseExpr(AsmParser &parser) {
  return parseExprAt(parser, 1);
}

Attribute GridExprAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  GridExprAttr e = parseExpr(parser);
  if (!e || parser.parseGreater())
    return {};
  return e;
}

void GridExprAttr::print(AsmPrinter &p) const {
  p << "<";
  printExpr(p.getStream(), ", ");
  p << ">";
}

//===----------------------------------------------------------------------===//
// GridAttr
//===----------------------------------------------------------------------===//

LogicalResult GridAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<GridExprAttr> axes) {
  if (axes.empty() || axes.size() > 3)
    return emitError() << "a grid has 1 to 3 axes, found " << axes.size();
  return success();
}

GridExprAttr GridAttr::axis(unsigned i) const {
  if (i < getAxes().size())
    return getAxes()[i];
  return GridExprAttr::literal(getContext(), 1);
}

Attribute GridAttr::parse(AsmParser &parser, Type) {
  SmallVector<GridExprAttr> axes;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater, [&]() {
        GridExprAttr e = GridExprAttr::parseExpr(parser);
        if (!e)
          return failure();
        axes.push_back(e);
        return success();
      }))
    return {};
  auto emitError = [&] { return parser.emitError(loc); };
  return getChecked(function_ref<InFlightDiagnostic()>(emitError),
                    parser.getContext(), ArrayRef<GridExprAttr>(axes));
}

void GridAttr::print(AsmPrinter &p) const {
  p << "<";
  llvm::interleave(
      getAxes(), [&](GridExprAttr e) { e.printExpr(p.getStream(), ", "); },
      [&] { p << ", "; });
  p << ">";
}
