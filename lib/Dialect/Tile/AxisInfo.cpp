//===- AxisInfo.cpp - contiguity, constancy and alignment of tiles --------===//
//
// A walk up the definition of a value (see AxisInfo.h), with these rules
// for C (contiguity), K (constancy) and D (divisibility) along a dim, all
// powers of two, g = the smaller (gcd of powers of two):
//
//   iota              C = N, K = 1, D = 2^30 (one run, starting at 0)
//   splat / constant  C = 1, K = N, D = the scalar's (2^30 for zero)
//   broadcast         a broadcast dim: C = 1, K = N (D stays: on a size-1
//                     dim it is every value's); the others as the source
//   expand_dims       the new (size-1) dim: C = K = 1, D = what divides
//                     every value (the largest D of a dim with C = 1)
//   a + b             C = max(g(Ca, Kb), g(Ka, Cb)), K = g(Ka, Kb),
//                     D = g(Da', Db'), where a run shorter than an
//                     operand's own cuts its D to the run's length
//   a - b             the same with C = g(Ca, Kb) only
//   a * 1, a << 0     a's
//   a * b             C = 1, K = g(Ka, Kb), D = Da * Db (a D counted only
//                     where its C = 1: then it divides every value)
//   a << c            C = 1, K = Ka, D = Da << c (likewise)
//   cmp, and, or, xor C = 1, K = g(Ka, Kb), D = 1
//   reshape           size-1 dims added or dropped: the other dims keep
//                     theirs, an added one is expand_dims's; otherwise the
//                     last dim keeps its own where its size stays
//   casts, convert_layout: the source's.
//
// Anything else is unknown. The walk is bounded in depth (a long chain is
// unknown past it) so it stays linear in the program.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/AxisInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

constexpr int64_t kMaxDivisibility = int64_t(1) << 30;
constexpr int kMaxDepth = 32;

int64_t pow2Divisor(APInt v) {
  if (v.isZero())
    return kMaxDivisibility;
  return std::min<int64_t>(int64_t(1) << v.countr_zero(), kMaxDivisibility);
}

int64_t lesser(int64_t a, int64_t b) { return std::min(a, b); }

AxisInfo unknown(Value v) {
  unsigned rank = 1;
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    rank = std::max<int64_t>(1, t.getRank());
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.constancy.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  return info;
}

/// Every value the same, a multiple of `div`.
AxisInfo uniform(Value v, int64_t div) {
  AxisInfo info = unknown(v);
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    for (auto [d, n] : llvm::enumerate(t.getShape()))
      info.constancy[d] = llvm::PowerOf2Ceil(n);
  for (int64_t &x : info.divisibility)
    x = div;
  return info;
}

/// The divisibility of `info`'s values at runs of length `run` (a power
/// of two no longer than its contiguity) along `d`.
int64_t divisibilityAt(const AxisInfo &info, unsigned d, int64_t run) {
  int64_t div = info.divisibility[d];
  return run < info.contiguity[d] ? lesser(div, run) : div;
}

AxisInfo get(Value v, int depth);

/// What divides every value of `info`'s tile: the largest divisibility of a
/// dim whose runs are single values (there it holds of each value).
int64_t divisibilityOfEvery(const AxisInfo &info) {
  int64_t every = 1;
  for (auto [c, d] : llvm::zip(info.contiguity, info.divisibility))
    if (c == 1)
      every = std::max(every, d);
  return every;
}

AxisInfo addSub(Value v, const AxisInfo &a, const AxisInfo &b, bool sub) {
  AxisInfo info = unknown(v);
  for (unsigned d = 0; d < info.contiguity.size(); ++d) {
    int64_t fromA = lesser(a.contiguity[d], b.constancy[d]);
    int64_t fromB = sub ? 1 : lesser(a.constancy[d], b.contiguity[d]);
    int64_t c = std::max(fromA, fromB);
    info.contiguity[d] = c;
    info.constancy[d] = lesser(a.constancy[d], b.constancy[d]);
    info.divisibility[d] =
        lesser(divisibilityAt(a, d, c), divisibilityAt(b, d, c));
  }
  return info;
}

/// The splat or scalar constant value of `v`, if it is one.
std::optional<APInt> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c;
  if (auto splat = v.getDefiningOp<SplatOp>())
    return constantOf(splat.getValue());
  return std::nullopt;
}

AxisInfo get(Value v, int depth) {
  if (depth > kMaxDepth || !getElementTypeOrSelf(v.getType()).isIntOrIndex())
    return unknown(v);
  Operation *def = v.getDefiningOp();
  if (!def)
    return unknown(v);
  auto operand = [&](unsigned i) { return get(def->getOperand(i), depth + 1); };

  if (auto c = constantOf(v))
    return uniform(v, pow2Divisor(*c));
  if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(
          def->getAttr("value"));
      dense && isa<arith::ConstantOp>(def) && dense.isSplat())
    return uniform(v, pow2Divisor(dense.getSplatValue<APInt>()));
  if (auto iota = dyn_cast<IotaOp>(def)) {
    AxisInfo info = unknown(v);
    info.contiguity[0] =
        llvm::PowerOf2Ceil(cast<RankedTensorType>(iota.getType()).getDimSize(0));
    info.divisibility[0] = kMaxDivisibility;
    return info;
  }
  if (auto splat = dyn_cast<SplatOp>(def))
    return uniform(v, get(splat.getValue(), depth + 1).divisibility[0]);
  if (isa<ConvertLayoutOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
          arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
    // Same shape (casts of tiles, or of scalars to scalars).
    AxisInfo src = operand(0);
    if (src.contiguity.size() == unknown(v).contiguity.size())
      return src;
    return unknown(v);
  }
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    AxisInfo src = operand(0);
    auto from = cast<RankedTensorType>(bc.getSrc().getType()).getShape();
    auto to = cast<RankedTensorType>(bc.getType()).getShape();
    if (from.size() != to.size())
      return unknown(v);
    for (unsigned d = 0; d < to.size(); ++d)
      if (from[d] == 1 && to[d] != 1) {
        src.contiguity[d] = 1;
        src.constancy[d] = llvm::PowerOf2Ceil(to[d]);
      }
    return src;
  }
  if (auto ed = dyn_cast<ExpandDimsOp>(def)) {
    AxisInfo src = operand(0);
    int64_t every = divisibilityOfEvery(src);
    unsigned axis = ed.getAxis();
    if (axis > src.contiguity.size())
      return unknown(v);
    src.contiguity.insert(src.contiguity.begin() + axis, 1);
    src.constancy.insert(src.constancy.begin() + axis, 1);
    src.divisibility.insert(src.divisibility.begin() + axis, every);
    return src;
  }
  if (isa<arith::AddIOp>(def))
    return addSub(v, operand(0), operand(1), false);
  if (isa<arith::SubIOp>(def))
    return addSub(v, operand(0), operand(1), true);
  if (isa<arith::MulIOp, arith::ShLIOp>(def)) {
    bool shift = isa<arith::ShLIOp>(def);
    std::optional<APInt> ca = constantOf(def->getOperand(0)),
                         cb = constantOf(def->getOperand(1));
    if (cb && (shift ? cb->isZero() : cb->isOne()))
      return operand(0);
    if (ca && ca->isOne() && !shift)
      return operand(1);
    if (shift && (!cb || cb->getZExtValue() > 30))
      return unknown(v);
    AxisInfo a = operand(0), b = operand(1), info = unknown(v);
    for (unsigned d = 0; d < info.contiguity.size(); ++d) {
      info.constancy[d] = shift ? a.constancy[d]
                                : lesser(a.constancy[d], b.constancy[d]);
      int64_t da = a.contiguity[d] == 1 ? a.divisibility[d] : 1;
      int64_t db = shift ? int64_t(1) << cb->getZExtValue()
                 : b.contiguity[d] == 1 ? b.divisibility[d]
                                        : 1;
      info.divisibility[d] = lesser(da * db, kMaxDivisibility);
    }
    return info;
  }
  if (auto rs = dyn_cast<ReshapeOp>(def)) {
    AxisInfo src = operand(0), info = unknown(v);
    auto from = cast<RankedTensorType>(rs.getSrc().getType()).getShape();
    auto to = cast<RankedTensorType>(rs.getType()).getShape();
    auto nonUnit = [](ArrayRef<int64_t> shape) {
      SmallVector<unsigned> dims;
      for (auto [d, n] : llvm::enumerate(shape))
        if (n != 1)
          dims.push_back(d);
      return dims;
    };
    SmallVector<unsigned> fromDims = nonUnit(from), toDims = nonUnit(to);
    bool same = fromDims.size() == toDims.size() &&
                llvm::all_of(llvm::zip(fromDims, toDims), [&](auto p) {
                  return from[std::get<0>(p)] == to[std::get<1>(p)];
                });
    if (same) {
      for (int64_t &d : info.divisibility)
        d = divisibilityOfEvery(src);
      for (auto [f, t] : llvm::zip(fromDims, toDims)) {
        info.contiguity[t] = src.contiguity[f];
        info.constancy[t] = src.constancy[f];
        info.divisibility[t] = src.divisibility[f];
      }
      return info;
    }
    if (!from.empty() && !to.empty() && from.back() == to.back()) {
      info.contiguity.back() = src.contiguity.back();
      info.constancy.back() = src.constancy.back();
      info.divisibility.back() = src.divisibility.back();
    }
    return info;
  }
  if (isa<arith::CmpIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def)) {
    AxisInfo a = operand(0), b = operand(1), info = unknown(v);
    for (unsigned d = 0; d < info.contiguity.size(); ++d)
      info.constancy[d] = lesser(a.constancy[d], b.constancy[d]);
    return info;
  }
  return unknown(v);
}

} // namespace

AxisInfo AxisInfo::get(Value v) { return ::get(v, 0); }
