//===- LinearLayout.cpp - the algebra of layouts over F2 ------------------===//
//
// Internally a layout is a bit-matrix: one column per input bit (inputs in
// order, each dim's bits least significant first), one row per output bit
// (outputs flattened row-major). Columns are packed into uint64_t, so the
// output space has at most 64 bits and every dim at most 2^31 elements.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LinearLayout.h"

#include <algorithm>
#include <cassert>
#include <sstream>
#include <stdexcept>

using namespace tilec;

namespace {
using Coords = LinearLayout::Coords;
using Bases = LinearLayout::Bases;

unsigned log2Exact(int64_t v) {
  assert(v > 0 && (v & (v - 1)) == 0 && "sizes must be powers of two");
  unsigned l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return l;
}

/// Gaussian elimination over F2 with the combination of original columns
/// that produced each pivot: the basis of a column space and a way to solve
/// A x = b with x using the earliest independent columns.
struct Solver {
  // pivots[b]: a vector whose highest set bit is b, and the input bits that
  // XOR to it.
  std::vector<std::pair<uint64_t, uint64_t>> pivots =
      std::vector<std::pair<uint64_t, uint64_t>>(64, {0, 0});
  unsigned rank = 0;

  static int highBit(uint64_t v) { return 63 - __builtin_clzll(v); }

  /// Adds column `j`; returns whether it was independent of the earlier ones.
  bool add(uint64_t col, unsigned j) {
    uint64_t combo = uint64_t(1) << j;
    while (col) {
      int b = highBit(col);
      if (!pivots[b].first) {
        pivots[b] = {col, combo};
        ++rank;
        return true;
      }
      col ^= pivots[b].first;
      combo ^= pivots[b].second;
    }
    return false;
  }
  /// The input bits x with A x = v, if v is in the column space.
  std::optional<uint64_t> solve(uint64_t v) const {
    uint64_t combo = 0;
    while (v) {
      int b = highBit(v);
      if (!pivots[b].first)
        return std::nullopt;
      v ^= pivots[b].first;
      combo ^= pivots[b].second;
    }
    return combo;
  }
};
} // namespace

const char *tilec::inDimName(InDim d) {
  switch (d) {
  case InDim::Register:
    return "register";
  case InDim::Lane:
    return "lane";
  case InDim::Warp:
    return "warp";
  }
  return "?";
}

std::string tilec::outDimName(unsigned i) { return "dim" + std::to_string(i); }

LinearLayout::LinearLayout(NamedBases ins, NamedSizes outs)
    : ins(std::move(ins)), outs(std::move(outs)) {
  for (auto &[name, size] : this->outs)
    (void)log2Exact(size);
  for (auto &[name, bases] : this->ins)
    for (Coords &c : bases) {
      assert(c.size() == this->outs.size() && "one coordinate per output dim");
      for (unsigned d = 0; d < c.size(); ++d)
        assert(c[d] >= 0 && c[d] < this->outs[d].second &&
               "basis outside the output dim");
    }
  assert(totalOutBits() <= 64 && "output space too large");
}

LinearLayout::LinearLayout(std::vector<int64_t> shape, Bases registerBases,
                           Bases laneBases, Bases warpBases) {
  for (unsigned i = 0; i < shape.size(); ++i)
    outs.push_back({outDimName(i), shape[i]});
  ins = {{"register", std::move(registerBases)},
         {"lane", std::move(laneBases)},
         {"warp", std::move(warpBases)}};
}

//===----------------------------------------------------------------------===//
// Flattening
//===----------------------------------------------------------------------===//

std::vector<unsigned> LinearLayout::outBitOffsets() const {
  std::vector<unsigned> off(outs.size());
  unsigned bits = 0;
  for (int d = int(outs.size()) - 1; d >= 0; --d) {
    off[d] = bits;
    bits += log2Exact(outs[d].second);
  }
  return off;
}

unsigned LinearLayout::totalOutBits() const {
  unsigned bits = 0;
  for (auto &[name, size] : outs)
    bits += log2Exact(size);
  return bits;
}

uint64_t LinearLayout::flattenCoords(const Coords &c) const {
  std::vector<unsigned> off = outBitOffsets();
  uint64_t v = 0;
  for (unsigned d = 0; d < c.size(); ++d)
    v |= uint64_t(c[d]) << off[d];
  return v;
}

Coords LinearLayout::unflattenCoords(uint64_t bits) const {
  std::vector<unsigned> off = outBitOffsets();
  Coords c(outs.size());
  for (unsigned d = 0; d < outs.size(); ++d)
    c[d] = int64_t((bits >> off[d]) & uint64_t(outs[d].second - 1));
  return c;
}

std::vector<uint64_t> LinearLayout::columns() const {
  std::vector<uint64_t> cols;
  for (auto &[name, bases] : ins)
    for (const Coords &c : bases)
      cols.push_back(flattenCoords(c));
  return cols;
}

int LinearLayout::inIndex(const std::string &name) const {
  for (unsigned i = 0; i < ins.size(); ++i)
    if (ins[i].first == name)
      return i;
  return -1;
}

int LinearLayout::outIndex(const std::string &name) const {
  for (unsigned i = 0; i < outs.size(); ++i)
    if (outs[i].first == name)
      return i;
  return -1;
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::identity1D(int64_t size, const std::string &in,
                                      const std::string &out) {
  return strided1D(size, 1, in, out);
}

LinearLayout LinearLayout::zeros1D(int64_t size, const std::string &in,
                                   const std::string &out, int64_t outSize) {
  Bases b(log2Exact(size), Coords{0});
  return LinearLayout({{in, b}}, {{out, outSize}});
}

LinearLayout LinearLayout::strided1D(int64_t size, int64_t stride,
                                     const std::string &in,
                                     const std::string &out) {
  Bases b;
  for (int64_t v = 1; v < size; v *= 2)
    b.push_back({v * stride});
  return LinearLayout({{in, b}}, {{out, size * stride}});
}

LinearLayout LinearLayout::operator*(const LinearLayout &o) const {
  NamedSizes newOuts = outs;
  std::vector<int64_t> shift; // multiplier of o's coordinates, per o out dim
  std::vector<int> oOutPos;
  for (auto &[name, size] : o.outs) {
    int i = outIndex(name);
    if (i >= 0) {
      shift.push_back(outs[i].second);
      newOuts[i].second *= size;
      oOutPos.push_back(i);
    } else {
      shift.push_back(1);
      oOutPos.push_back(newOuts.size());
      newOuts.push_back({name, size});
    }
  }
  auto widen = [&](const Coords &c) {
    Coords r(newOuts.size(), 0);
    for (unsigned d = 0; d < c.size(); ++d)
      r[d] = c[d];
    return r;
  };
  NamedBases newIns;
  for (auto &[name, bases] : ins) {
    Bases b;
    for (const Coords &c : bases)
      b.push_back(widen(c));
    newIns.push_back({name, b});
  }
  for (auto &[name, bases] : o.ins) {
    Bases b;
    for (const Coords &c : bases) {
      Coords r(newOuts.size(), 0);
      for (unsigned d = 0; d < c.size(); ++d)
        r[oOutPos[d]] = c[d] * shift[d];
      b.push_back(r);
    }
    int i = -1;
    for (unsigned k = 0; k < newIns.size(); ++k)
      if (newIns[k].first == name)
        i = k;
    if (i >= 0)
      newIns[i].second.insert(newIns[i].second.end(), b.begin(), b.end());
    else
      newIns.push_back({name, b});
  }
  return LinearLayout(newIns, newOuts);
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  NamedBases newIns;
  for (auto &[name, bases] : ins) {
    Bases b;
    for (const Coords &c : bases) {
      NamedValues in;
      for (unsigned d = 0; d < outs.size(); ++d)
        in.push_back({outs[d].first, c[d]});
      Coords r;
      for (auto &[n, v] : outer.apply(in))
        r.push_back(v);
      b.push_back(r);
    }
    newIns.push_back({name, b});
  }
  return LinearLayout(newIns, outer.outs);
}

std::optional<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &outer) const {
  // Align this layout's output dims with outer's (same names).
  LinearLayout self = transposeOuts([&] {
    std::vector<std::string> order;
    for (auto &[n, s] : outer.outs)
      order.push_back(n);
    return order;
  }());
  if (self.outs != outer.outs)
    return std::nullopt;
  Solver solver;
  std::vector<uint64_t> cols = outer.columns();
  for (unsigned j = 0; j < cols.size(); ++j)
    solver.add(cols[j], j);
  // Unflatten a solution (outer's input bits) into outer's input dims.
  NamedSizes newOuts;
  for (auto &[name, bases] : outer.ins)
    newOuts.push_back({name, int64_t(1) << bases.size()});
  NamedBases newIns;
  for (auto &[name, bases] : self.ins) {
    Bases b;
    for (const Coords &c : bases) {
      std::optional<uint64_t> x = solver.solve(self.flattenCoords(c));
      if (!x)
        return std::nullopt;
      Coords r;
      unsigned bit = 0;
      for (auto &[on, ob] : outer.ins) {
        r.push_back(int64_t((*x >> bit) & ((uint64_t(1) << ob.size()) - 1)));
        bit += ob.size();
      }
      b.push_back(r);
    }
    newIns.push_back({name, b});
  }
  return LinearLayout(newIns, newOuts);
}

std::optional<LinearLayout> LinearLayout::pseudoinvert() const {
  LinearLayout id;
  for (auto &[name, size] : outs)
    id = id * identity1D(size, name, name);
  return id.invertAndCompose(*this);
}

LinearLayout LinearLayout::invert() const {
  assert(isInvertible() && "only a bijection has an inverse");
  return *pseudoinvert();
}

LinearLayout LinearLayout::reshapeIns(const NamedSizes &dims) const {
  std::vector<uint64_t> cols = columns();
  NamedBases newIns;
  unsigned k = 0;
  for (auto &[name, size] : dims) {
    Bases b;
    for (unsigned i = 0; i < log2Exact(size); ++i)
      b.push_back(unflattenCoords(cols.at(k++)));
    newIns.push_back({name, b});
  }
  assert(k == cols.size() && "reshape must keep the input size");
  return LinearLayout(newIns, outs);
}

LinearLayout LinearLayout::reshapeOuts(const NamedSizes &dims) const {
  LinearLayout shape({}, dims);
  assert(shape.totalOutBits() == totalOutBits() &&
         "reshape must keep the output size");
  NamedBases newIns;
  for (auto &[name, bases] : ins) {
    Bases b;
    for (const Coords &c : bases)
      b.push_back(shape.unflattenCoords(flattenCoords(c)));
    newIns.push_back({name, b});
  }
  return LinearLayout(newIns, dims);
}

LinearLayout LinearLayout::flattenIns(const std::string &name) const {
  return reshapeIns({{name, getTotalInDimSize()}});
}

LinearLayout LinearLayout::flattenOuts(const std::string &name) const {
  return reshapeOuts({{name, getTotalOutDimSize()}});
}

LinearLayout
LinearLayout::transposeIns(const std::vector<std::string> &order) const {
  NamedBases newIns;
  for (const std::string &n : order) {
    int i = inIndex(n);
    assert(i >= 0 && "transposeIns: unknown dim");
    newIns.push_back(ins[i]);
  }
  assert(newIns.size() == ins.size() && "transposeIns: not a permutation");
  return LinearLayout(newIns, outs);
}

LinearLayout
LinearLayout::transposeOuts(const std::vector<std::string> &order) const {
  std::vector<int> perm;
  NamedSizes newOuts;
  for (const std::string &n : order) {
    int i = outIndex(n);
    if (i < 0)
      return *this; // not a permutation of this layout's dims
    perm.push_back(i);
    newOuts.push_back(outs[i]);
  }
  if (perm.size() != outs.size())
    return *this;
  NamedBases newIns;
  for (auto &[name, bases] : ins) {
    Bases b;
    for (const Coords &c : bases) {
      Coords r;
      for (int p : perm)
        r.push_back(c[p]);
      b.push_back(r);
    }
    newIns.push_back({name, b});
  }
  return LinearLayout(newIns, newOuts);
}

LinearLayout
LinearLayout::sublayout(const std::vector<std::string> &inNames,
                        const std::vector<std::string> &outNames) const {
  std::vector<int> keep;
  NamedSizes newOuts;
  for (unsigned d = 0; d < outs.size(); ++d)
    if (std::find(outNames.begin(), outNames.end(), outs[d].first) !=
        outNames.end()) {
      keep.push_back(d);
      newOuts.push_back(outs[d]);
    }
  NamedBases newIns;
  for (auto &[name, bases] : ins) {
    if (std::find(inNames.begin(), inNames.end(), name) == inNames.end())
      continue;
    Bases b;
    for (const Coords &c : bases) {
      Coords r;
      for (int d : keep)
        r.push_back(c[d]);
      b.push_back(r);
    }
    newIns.push_back({name, b});
  }
  return LinearLayout(newIns, newOuts);
}

std::optional<LinearLayout::NamedSizes>
LinearLayout::quotientSizes(const LinearLayout &divisor) const {
  NamedSizes q;
  for (auto &[name, size] : outs) {
    int64_t ds = divisor.getOutDimSize(name);
    if (size % ds)
      return std::nullopt;
    q.push_back({name, size / ds});
  }
  return q;
}

std::optional<LinearLayout>
LinearLayout::divideLeft(const LinearLayout &divisor) const {
  // this == divisor * C: each input dim starts with the divisor's bases (in
  // the low part of each output dim); the rest, shifted down, is C.
  std::optional<NamedSizes> cOutsOpt = quotientSizes(divisor);
  if (!cOutsOpt)
    return std::nullopt;
  NamedSizes cOuts = *cOutsOpt;
  for (auto &[name, size] : divisor.outs)
    if (outIndex(name) < 0)
      return std::nullopt;
  NamedBases cIns;
  for (auto &[name, bases] : ins) {
    int di = divisor.inIndex(name);
    size_t n = di >= 0 ? divisor.ins[di].second.size() : 0;
    if (n > bases.size())
      return std::nullopt;
    for (size_t i = 0; i < n; ++i) {
      Coords expect(outs.size(), 0);
      const Coords &dc = divisor.ins[di].second[i];
      for (unsigned d = 0; d < divisor.outs.size(); ++d)
        expect[outIndex(divisor.outs[d].first)] = dc[d];
      if (bases[i] != expect)
        return std::nullopt;
    }
    Bases rest;
    for (size_t i = n; i < bases.size(); ++i) {
      Coords r;
      for (unsigned d = 0; d < outs.size(); ++d) {
        int64_t ds = outs[d].second / cOuts[d].second;
        if (bases[i][d] % ds)
          return std::nullopt;
        r.push_back(bases[i][d] / ds);
      }
      rest.push_back(r);
    }
    cIns.push_back({name, rest});
  }
  for (auto &[name, bases] : divisor.ins)
    if (inIndex(name) < 0 && !bases.empty())
      return std::nullopt;
  LinearLayout c(cIns, cOuts);
  if (divisor * c != *this && (divisor * c).transposeOuts([&] {
        std::vector<std::string> o;
        for (auto &[n, s] : outs)
          o.push_back(n);
        return o;
      }()) != *this)
    return std::nullopt;
  return c;
}

std::optional<LinearLayout>
LinearLayout::divideRight(const LinearLayout &divisor) const {
  // this == B * divisor: each input dim ends with the divisor's bases, in
  // the high part of each output dim.
  std::optional<NamedSizes> bOutsOpt = quotientSizes(divisor);
  if (!bOutsOpt)
    return std::nullopt;
  NamedSizes bOuts = *bOutsOpt;
  NamedBases bIns;
  for (auto &[name, bases] : ins) {
    int di = divisor.inIndex(name);
    size_t n = di >= 0 ? divisor.ins[di].second.size() : 0;
    if (n > bases.size())
      return std::nullopt;
    Bases low(bases.begin(), bases.end() - n);
    for (const Coords &c : low)
      for (unsigned d = 0; d < outs.size(); ++d)
        if (c[d] >= bOuts[d].second)
          return std::nullopt;
    bIns.push_back({name, low});
  }
  LinearLayout b(bIns, bOuts);
  std::vector<std::string> order;
  for (auto &[n, s] : outs)
    order.push_back(n);
  if ((b * divisor).transposeOuts(order) != *this)
    return std::nullopt;
  return b;
}

std::optional<LinearLayout>
LinearLayout::quotient(const std::vector<std::string> &dims) const {
  for (const std::string &dim : dims) {
    int in = inIndex(dim), out = outIndex(dim);
    if (in < 0 || out < 0)
      return std::nullopt;
    if ((int64_t(1) << ins[in].second.size()) != outs[out].second)
      return std::nullopt;
    for (unsigned i = 0; i < ins[in].second.size(); ++i) {
      Coords expect(outs.size(), 0);
      expect[out] = int64_t(1) << i;
      if (ins[in].second[i] != expect)
        return std::nullopt;
    }
    for (auto &[name, bases] : ins)
      if (name != dim)
        for (const Coords &c : bases)
          if (c[out] != 0)
            return std::nullopt;
  }
  std::vector<std::string> keepIns, keepOuts;
  for (auto &[name, b] : ins)
    if (std::find(dims.begin(), dims.end(), name) == dims.end())
      keepIns.push_back(name);
  for (auto &[name, s] : outs)
    if (std::find(dims.begin(), dims.end(), name) == dims.end())
      keepOuts.push_back(name);
  return sublayout(keepIns, keepOuts);
}

std::map<std::string, int64_t> LinearLayout::getFreeVariableMasks() const {
  std::map<std::string, int64_t> masks;
  Solver solver;
  unsigned j = 0;
  for (auto &[name, bases] : ins) {
    int64_t mask = 0;
    for (unsigned i = 0; i < bases.size(); ++i, ++j)
      if (!solver.add(flattenCoords(bases[i]), j))
        mask |= int64_t(1) << i;
    masks[name] = mask;
  }
  return masks;
}

int64_t LinearLayout::getNumConsecutiveInOut() const {
  if (ins.empty())
    return 1;
  const Bases &b = ins.front().second;
  unsigned run = 0;
  while (run < b.size() && flattenCoords(b[run]) == (uint64_t(1) << run))
    ++run;
  return int64_t(1) << run;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

bool LinearLayout::hasInDim(const std::string &name) const {
  return inIndex(name) >= 0;
}

unsigned LinearLayout::getInDimSizeLog2(const std::string &name) const {
  int i = inIndex(name);
  return i < 0 ? 0 : ins[i].second.size();
}

int64_t LinearLayout::getOutDimSize(const std::string &name) const {
  int i = outIndex(name);
  return i < 0 ? 1 : outs[i].second;
}

int64_t LinearLayout::getTotalInDimSize() const {
  int64_t n = 1;
  for (auto &[name, bases] : ins)
    n <<= bases.size();
  return n;
}

int64_t LinearLayout::getTotalOutDimSize() const {
  int64_t n = 1;
  for (auto &[name, size] : outs)
    n *= size;
  return n;
}

const Bases &LinearLayout::getBases(const std::string &in) const {
  static const Bases empty;
  int i = inIndex(in);
  return i < 0 ? empty : ins[i].second;
}

LinearLayout::NamedValues
LinearLayout::apply(const NamedValues &inputs) const {
  Coords c(outs.size(), 0);
  for (auto &[name, value] : inputs) {
    int i = inIndex(name);
    if (i < 0)
      continue;
    const Bases &bs = ins[i].second;
    for (unsigned b = 0; b < bs.size(); ++b)
      if (value & (int64_t(1) << b))
        for (unsigned d = 0; d < c.size(); ++d)
          c[d] ^= bs[b][d];
  }
  NamedValues r;
  for (unsigned d = 0; d < outs.size(); ++d)
    r.push_back({outs[d].first, c[d]});
  return r;
}

Coords LinearLayout::applyAll(const std::vector<int64_t> &inputs) const {
  NamedValues in;
  for (unsigned i = 0; i < inputs.size() && i < ins.size(); ++i)
    in.push_back({ins[i].first, inputs[i]});
  Coords c;
  for (auto &[n, v] : apply(in))
    c.push_back(v);
  return c;
}

bool LinearLayout::isSurjective() const {
  Solver solver;
  std::vector<uint64_t> cols = columns();
  for (unsigned j = 0; j < cols.size(); ++j)
    solver.add(cols[j], j);
  return solver.rank == totalOutBits();
}

bool LinearLayout::isInjective() const {
  Solver solver;
  std::vector<uint64_t> cols = columns();
  for (unsigned j = 0; j < cols.size(); ++j)
    if (!solver.add(cols[j], j))
      return false;
  return true;
}

bool LinearLayout::operator==(const LinearLayout &o) const {
  if (outs != o.outs)
    return false;
  // Input dims are compared by name: their order only matters for
  // flattening, not for the map.
  auto nonEmpty = [](const NamedBases &ins) {
    std::map<std::string, Bases> r;
    for (auto &d : ins)
      if (!d.second.empty())
        r.insert(d);
    return r;
  };
  return nonEmpty(ins) == nonEmpty(o.ins);
}

std::string LinearLayout::toString() const {
  std::ostringstream os;
  for (unsigned i = 0; i < ins.size(); ++i) {
    os << (i ? ", " : "") << ins[i].first << " = [";
    for (unsigned b = 0; b < ins[i].second.size(); ++b) {
      os << (b ? ", [" : "[");
      for (unsigned k = 0; k < ins[i].second[b].size(); ++k)
        os << (k ? ", " : "") << ins[i].second[b][k];
      os << "]";
    }
    os << "]";
  }
  return os.str();
}
