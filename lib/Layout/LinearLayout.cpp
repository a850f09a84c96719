//===- LinearLayout.cpp - layouts as linear maps over F2 ------------------===//

#include "tilec/Layout/LinearLayout.h"

#include <algorithm>
#include <cassert>
#include <sstream>

using namespace tilec;

namespace {
using Coords = LinearLayout::Coords;
using Bases = LinearLayout::Bases;

Coords unit(unsigned rank, int dim, int64_t value) {
  Coords c(rank, 0);
  c[dim] = value;
  return c;
}

bool isZero(const Coords &c) {
  return std::all_of(c.begin(), c.end(), [](int64_t v) { return v == 0; });
}

/// Builds the bases of a layout dim by dim: each added basis doubles the
/// extent covered along its dim.
struct BasisBuilder {
  std::vector<int64_t> shape;
  std::vector<int64_t> covered;
  std::array<Bases, kNumInDims> bases;

  explicit BasisBuilder(std::vector<int64_t> shape)
      : shape(shape), covered(shape.size(), 1) {}

  void add(InDim in, int dim) {
    bases[int(in)].push_back(unit(shape.size(), dim, covered[dim]));
    covered[dim] *= 2;
  }
  void addN(InDim in, int dim, int64_t count) {
    for (int64_t s = 1; s < count; s *= 2)
      add(in, dim);
  }
  void addZero(InDim in, int64_t count) {
    for (int64_t s = 1; s < count; s *= 2)
      bases[int(in)].push_back(Coords(shape.size(), 0));
  }
  /// Zero the bases that fall outside the shape (those indices replicate)
  /// and repeat in registers, dims in `order`, until the shape is covered.
  LinearLayout finish(const std::vector<int64_t> &order) {
    for (Bases &bs : bases)
      for (Coords &c : bs)
        for (unsigned d = 0; d < c.size(); ++d)
          if (c[d] >= shape[d])
            c = Coords(shape.size(), 0);
    for (int64_t d : order)
      while (covered[d] < shape[d])
        add(InDim::Register, d);
    return LinearLayout(shape, bases[0], bases[1], bases[2]);
  }
};

int64_t log2i(int64_t v) {
  int64_t l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return l;
}
} // namespace

LinearLayout::LinearLayout(std::vector<int64_t> shape, Bases registerBases,
                           Bases laneBases, Bases warpBases)
    : shape(std::move(shape)),
      bases{std::move(registerBases), std::move(laneBases),
            std::move(warpBases)} {}

//===----------------------------------------------------------------------===//
// Named constructors
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::blocked(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &sizePerThread,
                                   const std::vector<int64_t> &threadsPerWarp,
                                   const std::vector<int64_t> &warpsPerCTA,
                                   const std::vector<int64_t> &order) {
  BasisBuilder b(shape);
  for (int64_t d : order)
    b.addN(InDim::Register, d, sizePerThread[d]);
  for (int64_t d : order)
    b.addN(InDim::Lane, d, threadsPerWarp[d]);
  for (int64_t d : order)
    b.addN(InDim::Warp, d, warpsPerCTA[d]);
  return b.finish(order);
}

LinearLayout LinearLayout::coalesced(const std::vector<int64_t> &shape,
                                     unsigned elementBits, int numWarps,
                                     int contigDim) {
  unsigned rank = shape.size();
  std::vector<int64_t> order{contigDim};
  for (int d = rank - 1; d >= 0; --d)
    if (d != contigDim)
      order.push_back(d);
  std::vector<int64_t> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  int64_t vecBits = std::max<unsigned>(elementBits, 8);
  spt[contigDim] = std::min<int64_t>(128 / vecBits, shape[contigDim]);
  int64_t lanes = 32;
  for (int64_t d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    int64_t t = std::min(lanes, room);
    tpw[d] = t;
    lanes /= t;
  }
  tpw[contigDim] *= lanes;
  int64_t warps = numWarps;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int64_t d = *it;
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    int64_t w = std::min(warps, room);
    wpc[d] = w;
    warps /= w;
  }
  wpc[order.back()] *= warps;
  return blocked(shape, spt, tpw, wpc, order);
}

std::pair<int, int> LinearLayout::mmaWarpSplit(int64_t m, int64_t n,
                                               int numWarps) {
  (void)n;
  int warpsM = int(std::min<int64_t>(numWarps, std::max<int64_t>(1, m / 16)));
  return {warpsM, numWarps / warpsM};
}

LinearLayout LinearLayout::mmaAccumulator(const std::vector<int64_t> &shape,
                                          int warpsM, int warpsN) {
  BasisBuilder b(shape);
  b.add(InDim::Register, 1);      // c0,c1: adjacent columns
  b.addN(InDim::Lane, 1, 4);      // lane % 4: column pairs
  b.addN(InDim::Lane, 0, 8);      // lane / 4: rows
  b.add(InDim::Register, 0);      // c2,c3: row + 8
  b.addN(InDim::Warp, 0, warpsM); // warps along M first
  b.addN(InDim::Warp, 1, warpsN);
  return b.finish({1, 0});
}

LinearLayout LinearLayout::mmaOperand(int opIdx,
                                      const std::vector<int64_t> &shape,
                                      unsigned elementBits, int warpsM,
                                      int warpsN) {
  assert((elementBits == 16 || elementBits == 8) && "unsupported mma input");
  // Element pairs (16-bit) or quads (8-bit) along K fill one 32-bit register.
  int64_t perReg = 32 / elementBits;
  int kDim = opIdx == 0 ? 1 : 0;
  int otherDim = opIdx == 0 ? 0 : 1;
  BasisBuilder b(shape);
  b.addN(InDim::Register, kDim, perReg);
  b.addN(InDim::Lane, kDim, 4);
  b.addN(InDim::Lane, otherDim, 8);
  if (opIdx == 0)
    b.add(InDim::Register, 0); // a: rows + 8
  b.add(InDim::Register, kDim);  // second half of K
  if (opIdx == 0) {
    b.addN(InDim::Warp, 0, warpsM);
    b.addZero(InDim::Warp, warpsN);
    return b.finish({1, 0});
  }
  b.addZero(InDim::Warp, warpsM);
  b.addN(InDim::Warp, 1, warpsN);
  return b.finish({0, 1});
}

//===----------------------------------------------------------------------===//
// Derived layouts
//===----------------------------------------------------------------------===//

static Coords eraseDim(const Coords &c, int dim) {
  Coords r = c;
  r.erase(r.begin() + dim);
  return r;
}

LinearLayout LinearLayout::reduceDim(int dim) const {
  std::vector<int64_t> newShape = shape;
  newShape.erase(newShape.begin() + dim);
  std::array<Bases, kNumInDims> nb;
  for (int in = 0; in < kNumInDims; ++in)
    for (const Coords &c : bases[in]) {
      if (c[dim] != 0) {
        if (in != int(InDim::Register))
          nb[in].push_back(Coords(newShape.size(), 0));
        continue;
      }
      nb[in].push_back(eraseDim(c, dim));
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout
LinearLayout::broadcastOperand(const std::vector<int> &dims) const {
  std::vector<int64_t> newShape = shape;
  for (int d : dims)
    newShape[d] = 1;
  std::array<Bases, kNumInDims> nb;
  for (int in = 0; in < kNumInDims; ++in)
    for (const Coords &c : bases[in]) {
      bool along = std::any_of(dims.begin(), dims.end(),
                               [&](int d) { return c[d] != 0; });
      if (!along) {
        nb[in].push_back(c);
      } else if (in != int(InDim::Register)) {
        Coords z = c;
        for (int d : dims)
          z[d] = 0;
        nb[in].push_back(z);
      }
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::expandDims(int axis) const {
  std::vector<int64_t> newShape = shape;
  newShape.insert(newShape.begin() + axis, 1);
  std::array<Bases, kNumInDims> nb = bases;
  for (Bases &bs : nb)
    for (Coords &c : bs)
      c.insert(c.begin() + axis, 0);
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::squeezeDim(int axis) const {
  assert(shape[axis] == 1 && "squeezing a dim of size > 1");
  std::vector<int64_t> newShape = shape;
  newShape.erase(newShape.begin() + axis);
  std::array<Bases, kNumInDims> nb = bases;
  for (Bases &bs : nb)
    for (Coords &c : bs)
      c = eraseDim(c, axis);
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::transpose(const std::vector<int> &perm) const {
  std::vector<int64_t> newShape(shape.size());
  for (unsigned i = 0; i < perm.size(); ++i)
    newShape[i] = shape[perm[i]];
  std::array<Bases, kNumInDims> nb = bases;
  for (Bases &bs : nb)
    for (Coords &c : bs) {
      Coords t(c.size());
      for (unsigned i = 0; i < perm.size(); ++i)
        t[i] = c[perm[i]];
      c = t;
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::reshape(const std::vector<int64_t> &newShape) const {
  // Row-major flattening with power-of-two dims concatenates coordinate bits,
  // so it is linear over F2 and maps bases to bases.
  auto flatten = [&](const Coords &c) {
    int64_t idx = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      idx = idx * shape[d] + c[d];
    return idx;
  };
  auto unflatten = [&](int64_t idx) {
    Coords c(newShape.size());
    for (int d = int(newShape.size()) - 1; d >= 0; --d) {
      c[d] = idx % newShape[d];
      idx /= newShape[d];
    }
    return c;
  };
  std::array<Bases, kNumInDims> nb;
  for (int in = 0; in < kNumInDims; ++in)
    for (const Coords &c : bases[in])
      nb[in].push_back(unflatten(flatten(c)));
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::withNumWarps(int numWarps) const {
  LinearLayout r = *this;
  while (r.getNumWarps() < numWarps)
    r.bases[int(InDim::Warp)].push_back(Coords(shape.size(), 0));
  return r;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

Coords LinearLayout::applyIn(InDim d, int64_t index) const {
  Coords c(shape.size(), 0);
  const Bases &bs = bases[int(d)];
  for (unsigned i = 0; i < bs.size(); ++i)
    if (index & (int64_t(1) << i))
      for (unsigned k = 0; k < c.size(); ++k)
        c[k] ^= bs[i][k];
  return c;
}

Coords LinearLayout::apply(int64_t reg, int64_t lane, int64_t warp) const {
  Coords c = applyIn(InDim::Register, reg);
  Coords l = applyIn(InDim::Lane, lane);
  Coords w = applyIn(InDim::Warp, warp);
  for (unsigned k = 0; k < c.size(); ++k)
    c[k] ^= l[k] ^ w[k];
  return c;
}

bool LinearLayout::isAxisAligned() const {
  for (const Bases &bs : bases)
    for (const Coords &c : bs)
      if (std::count_if(c.begin(), c.end(), [](int64_t v) { return v; }) > 1)
        return false;
  return true;
}

bool LinearLayout::isSurjective() const {
  // The image of a linear map is spanned by its bases: compute its rank by
  // Gaussian elimination over the flattened coordinate bits.
  std::vector<uint64_t> rows;
  int64_t totalBits = 0;
  for (int64_t s : shape)
    totalBits += log2i(s);
  auto flatten = [&](const Coords &c) {
    uint64_t idx = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      idx = idx * uint64_t(shape[d]) + uint64_t(c[d]);
    return idx;
  };
  for (const Bases &bs : bases)
    for (const Coords &c : bs) {
      uint64_t v = flatten(c);
      for (uint64_t r : rows)
        v = std::min(v, v ^ r);
      if (v) {
        rows.push_back(v);
        std::sort(rows.rbegin(), rows.rend());
      }
    }
  return int64_t(rows.size()) == totalBits;
}

int64_t LinearLayout::getContiguity(int dim) const {
  const Bases &regs = bases[int(InDim::Register)];
  unsigned run = 0;
  while (run < regs.size() && regs[run] == unit(shape.size(), dim, 1 << run))
    ++run;
  // Every other basis must keep a run's start aligned to the run's length.
  while (run > 0) {
    int64_t vec = int64_t(1) << run;
    bool aligned = true;
    for (int in = 0; in < kNumInDims; ++in)
      for (unsigned i = (in == 0 ? run : 0); i < bases[in].size(); ++i)
        if (bases[in][i][dim] % vec != 0)
          aligned = false;
    if (aligned)
      break;
    --run;
  }
  return int64_t(1) << run;
}

int64_t LinearLayout::getThreadGranularity(int dim) const {
  int64_t g = 0;
  for (int in = 1; in < kNumInDims; ++in)
    for (const Coords &c : bases[in])
      if (c[dim] != 0 && (g == 0 || c[dim] < g))
        g = c[dim];
  return g;
}

std::optional<int64_t> LinearLayout::findRegister(const Coords &coords) const {
  for (int64_t r = 0; r < getNumRegisters(); ++r)
    if (applyIn(InDim::Register, r) == coords)
      return r;
  return std::nullopt;
}

std::string LinearLayout::toString() const {
  std::ostringstream os;
  const char *names[] = {"register", "lane", "warp"};
  for (int in = 0; in < kNumInDims; ++in) {
    if (in)
      os << ", ";
    os << names[in] << " = [";
    for (unsigned i = 0; i < bases[in].size(); ++i) {
      os << (i ? ", [" : "[");
      for (unsigned k = 0; k < bases[in][i].size(); ++k)
        os << (k ? ", " : "") << bases[in][i][k];
      os << "]";
    }
    os << "]";
  }
  return os.str();
}
