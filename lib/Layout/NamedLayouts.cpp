//===- NamedLayouts.cpp - named layouts as linear layouts -----------------===//
//
// Constructors of the layouts tilec uses (blocked, mma.sync and wgmma
// fragments, shared memory with and without swizzles, tensor memory) and the
// layouts derived from a distributed layout by shape ops. All are plain
// LinearLayouts: there is no second code path for named layouts.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LinearLayout.h"

#include <algorithm>
#include <cassert>

using namespace tilec;

namespace {
using Coords = LinearLayout::Coords;
using Bases = LinearLayout::Bases;

Coords unit(unsigned rank, int dim, int64_t value) {
  Coords c(rank, 0);
  c[dim] = value;
  return c;
}

/// Builds the bases of a distributed layout dim by dim: each added basis
/// doubles the extent covered along its dim.
struct BasisBuilder {
  std::vector<int64_t> shape;
  std::vector<int64_t> covered;
  Bases bases[3];

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
  /// The m16n8 fragment of mma.sync and wgmma (and tcgen05's 16x256b):
  /// adjacent columns in a register pair, lane % 4 along the columns, lane / 4
  /// along 8 rows, then the second 8 rows.
  void addMmaFragment() {
    add(InDim::Register, 1);
    addN(InDim::Lane, 1, 4);
    addN(InDim::Lane, 0, 8);
    add(InDim::Register, 0);
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

} // namespace

//===----------------------------------------------------------------------===//
// Distributed layouts
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
                                               int numWarps, bool alongM) {
  if (alongM) {
    int wm = int(std::min<int64_t>(numWarps, std::max<int64_t>(1, m / 16)));
    return {wm, numWarps / wm};
  }
  // Each warp holds an (M / warpsM) x K slice of A and a K x (N / warpsN)
  // slice of B: split to minimize the sum, without leaving warps idle along
  // a dim when the other can take them; ties go to M (row reductions then
  // stay within a warp).
  int best = 1;
  int64_t bestCost = -1;
  for (int wm = 1; wm <= numWarps; wm *= 2) {
    int wn = numWarps / wm;
    if ((wm > 1 && m / wm < 16) || (wn > 1 && n / wn < 8))
      continue;
    int64_t cost = m / wm + n / wn;
    if (bestCost < 0 || cost <= bestCost) {
      best = wm;
      bestCost = cost;
    }
  }
  if (bestCost < 0)
    best = int(std::min<int64_t>(numWarps, std::max<int64_t>(1, m / 16)));
  return {best, numWarps / best};
}

LinearLayout LinearLayout::mmaAccumulator(const std::vector<int64_t> &shape,
                                          int warpsM, int warpsN) {
  BasisBuilder b(shape);
  b.addMmaFragment();             // c0..c3
  b.addN(InDim::Warp, 0, warpsM); // warps along M first
  b.addN(InDim::Warp, 1, warpsN);
  return b.finish({1, 0});
}

LinearLayout LinearLayout::mmaOperand(int opIdx,
                                      const std::vector<int64_t> &shape,
                                      unsigned elementBits, int warpsM,
                                      int warpsN) {
  assert((elementBits == 32 || elementBits == 16 || elementBits == 8) &&
         "unsupported mma input");
  // One element (tf32), pairs (16-bit) or quads (8-bit) along K fill one
  // 32-bit register.
  int64_t perReg = 32 / elementBits;
  int kDim = opIdx == 0 ? 1 : 0;
  int otherDim = opIdx == 0 ? 0 : 1;
  BasisBuilder b(shape);
  b.addN(InDim::Register, kDim, perReg);
  b.addN(InDim::Lane, kDim, 4);
  b.addN(InDim::Lane, otherDim, 8);
  if (opIdx == 0)
    b.add(InDim::Register, 0); // a: rows + 8
  b.add(InDim::Register, kDim); // second half of K
  if (opIdx == 0) {
    b.addN(InDim::Warp, 0, warpsM);
    b.addZero(InDim::Warp, warpsN);
    return b.finish({1, 0});
  }
  b.addZero(InDim::Warp, warpsM);
  b.addN(InDim::Warp, 1, warpsN);
  return b.finish({0, 1});
}

std::optional<std::pair<int, int>>
LinearLayout::wgmmaWarpGroups(int64_t m, int64_t n, int numWarps) {
  // Warpgroups stack along M while M has 64 rows for each; the others split
  // N into equal chunks, each a multiple of 8 (a 64-row dot on two
  // warpgroups is two m64n(N/2) MMAs reading the same A).
  int groups = numWarps / 4, wgM = 1;
  if (numWarps % 4 || (groups & (groups - 1)) || m % 64 || n % 8)
    return std::nullopt;
  while (wgM < groups && m % (128 * wgM) == 0)
    wgM *= 2;
  int wgN = groups / wgM;
  // Each warpgroup's share is one wgmma: N / wgN up to 256 (MLA's 64x512
  // output on two warpgroups: m64n256 each).
  if (n % (8 * wgN) || n / wgN > 256)
    return std::nullopt;
  return std::pair<int, int>{wgM, wgN};
}

std::pair<int, int> LinearLayout::wgmmaWarpGroupsOf() const {
  const Bases &warps = getBases(InDim::Warp);
  int groupsM = 1, groupsN = 1;
  for (size_t j = 2; j < warps.size(); ++j)
    (warps[j][0] ? groupsM : groupsN) *= 2;
  return {groupsM, groupsN};
}

LinearLayout LinearLayout::wgmmaAccumulator(const std::vector<int64_t> &shape,
                                            int warpGroupsM, int warpGroupsN) {
  // A warp holds a 16x(N / warpGroupsN) slice as mma.sync's m16n8 fragments
  // along N; the four warps of a warpgroup stack along M, then the
  // warpgroups along M, then along N (each its chunk of N).
  BasisBuilder b(shape);
  b.addMmaFragment();
  b.addN(InDim::Register, 1, shape[1] / 8 / warpGroupsN);
  b.addN(InDim::Warp, 0, 4 * warpGroupsM);
  b.addN(InDim::Warp, 1, warpGroupsN);
  return b.finish({1, 0});
}

LinearLayout LinearLayout::wgmmaOperandA(const std::vector<int64_t> &shape,
                                         int warpGroupsM, int warpGroupsN,
                                         unsigned elementBits) {
  // mma.sync's A fragments, a warp 16 rows: warpgroups that split N read
  // the same A (their warp bits are zero).
  return mmaOperand(0, shape, elementBits, 4 * warpGroupsM, warpGroupsN);
}

LinearLayout LinearLayout::wgmmaOperandB(const std::vector<int64_t> &shape,
                                         unsigned elementBits, int warpGroupsM,
                                         int warpGroupsN) {
  if (warpGroupsN == 1)
    return mmaOperand(1, shape, elementBits, 4 * warpGroupsM, 1);
  // mma.sync's B fragments, a warpgroup's chunk of N in its registers.
  BasisBuilder b(shape);
  b.addN(InDim::Register, 0, 32 / elementBits);
  b.addN(InDim::Lane, 0, 4);
  b.addN(InDim::Lane, 1, 8);
  b.add(InDim::Register, 0);
  b.addN(InDim::Register, 1, shape[1] / 8 / warpGroupsN);
  b.addZero(InDim::Warp, 4 * warpGroupsM);
  b.addN(InDim::Warp, 1, warpGroupsN);
  return b.finish({0, 1});
}

static Coords eraseDim(const Coords &c, int dim) {
  Coords r = c;
  r.erase(r.begin() + dim);
  return r;
}

LinearLayout LinearLayout::reduceDim(int dim) const {
  std::vector<int64_t> newShape = getShape();
  newShape.erase(newShape.begin() + dim);
  Bases nb[3];
  for (int in = 0; in < 3; ++in)
    for (const Coords &c : getBases(InDim(in))) {
      if (c[dim] != 0) {
        if (in != int(InDim::Register))
          nb[in].push_back(Coords(newShape.size(), 0));
        continue;
      }
      nb[in].push_back(eraseDim(c, dim));
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::truncateDim(int dim, int64_t size) const {
  std::vector<int64_t> newShape = getShape();
  newShape[dim] = std::min(newShape[dim], size);
  Bases nb[3];
  for (int in = 0; in < 3; ++in)
    for (const Coords &c : getBases(InDim(in))) {
      if (c[dim] < size) {
        nb[in].push_back(c);
      } else if (in != int(InDim::Register)) {
        Coords z = c;
        z[dim] = 0;
        nb[in].push_back(z);
      }
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

std::vector<unsigned>
LinearLayout::sliceFixedBits(const Coords &offsets,
                             const std::vector<int64_t> &sizes) {
  std::vector<unsigned> fixed;
  for (unsigned d = 0; d < sizes.size(); ++d) {
    unsigned t = 0;
    while ((int64_t(1) << t) < sizes[d])
      ++t;
    for (unsigned k = 0; k < t; ++k)
      if (offsets[d] & (int64_t(1) << k)) {
        t = k;
        break;
      }
    fixed.push_back(t);
  }
  return fixed;
}

std::optional<RegisterBlock>
LinearLayout::slice(const Coords &offsets,
                    const std::vector<int64_t> &sizes) const {
  unsigned rank = getRank();
  std::vector<unsigned> fixed = sliceFixedBits(offsets, sizes);
  // The coordinate bits the offsets can change, as one bit vector.
  auto moving = [&](const Coords &c) {
    std::vector<int64_t> m(rank);
    for (unsigned d = 0; d < rank; ++d)
      m[d] = c[d] >> fixed[d];
    return m;
  };
  auto isZero = [](const std::vector<int64_t> &m) {
    return std::all_of(m.begin(), m.end(), [](int64_t x) { return x == 0; });
  };
  for (InDim in : {InDim::Lane, InDim::Warp})
    for (const Coords &c : getBases(in))
      if (!isZero(moving(c)))
        return std::nullopt;
  // The registers whose elements the offsets do not move (a subspace: the
  // kernel of `moving` over the register bases, by elimination in order so
  // that pure low bases keep their order), then one register basis per
  // moving bit of the block.
  const Bases &regs = getBases(InDim::Register);
  std::vector<std::pair<std::vector<int64_t>, int64_t>> pivots;
  Bases out;
  for (unsigned i = 0; i < regs.size(); ++i) {
    std::vector<int64_t> m = moving(regs[i]);
    int64_t combo = int64_t(1) << i;
    for (auto &[pm, pc] : pivots) {
      // The pivot's lowest set bit (first non-zero dim from the last).
      int d = rank - 1;
      while (pm[d] == 0)
        --d;
      int64_t bit = pm[d] & -pm[d];
      if (m[d] & bit) {
        for (unsigned e = 0; e < rank; ++e)
          m[e] ^= pm[e];
        combo ^= pc;
      }
    }
    if (!isZero(m)) {
      pivots.push_back({m, combo});
      continue;
    }
    Coords c = applyIn(InDim::Register, combo);
    if (isZero(c))
      continue; // a copy of another register
    out.push_back(c);
  }
  for (int d = rank - 1; d >= 0; --d)
    for (int64_t bit = int64_t(1) << fixed[d]; bit < sizes[d]; bit <<= 1) {
      Coords c(rank, 0);
      c[d] = bit;
      out.push_back(c);
    }
  RegisterBlock s{LinearLayout(sizes, out, getBases(InDim::Lane),
                       getBases(InDim::Warp)),
          {}};
  // Each register of the block at its place in this layout (lane 0, warp
  // 0; lanes and warps add only bits the offsets keep).
  std::map<Coords, int64_t> where;
  for (int64_t r = getNumRegisters() - 1; r >= 0; --r)
    where[applyIn(InDim::Register, r)] = r;
  for (int64_t r = 0; r < s.layout.getNumRegisters(); ++r) {
    Coords c = s.layout.applyIn(InDim::Register, r);
    for (unsigned d = 0; d < rank; ++d)
      c[d] += offsets[d];
    auto it = where.find(c);
    if (it == where.end())
      return std::nullopt;
    s.registers.push_back(it->second);
  }
  return s;
}

LinearLayout
LinearLayout::extendInRegisters(const std::vector<int64_t> &shape) const {
  std::vector<int64_t> old = getShape();
  Bases regs = getBases(InDim::Register), lanes = getBases(InDim::Lane),
        warps = getBases(InDim::Warp);
  for (int d = int(shape.size()) - 1; d >= 0; --d)
    for (int64_t bit = old[d]; bit < shape[d]; bit <<= 1) {
      Coords c(shape.size(), 0);
      c[d] = bit;
      regs.push_back(c);
    }
  return LinearLayout(shape, regs, lanes, warps);
}

std::optional<std::vector<std::pair<InDim, unsigned>>>
LinearLayout::bitSources(int dim) const {
  int64_t n = getShape()[dim];
  std::vector<std::pair<InDim, unsigned>> sources;
  std::vector<int> found;
  for (int64_t k = 0; (int64_t(1) << k) < n; ++k) {
    sources.push_back({InDim::Register, 0});
    found.push_back(0);
  }
  for (int in = 0; in < 3; ++in) {
    const Bases &bases = getBases(InDim(in));
    for (unsigned i = 0; i < bases.size(); ++i) {
      const Coords &c = bases[i];
      if (c[dim] == 0)
        continue;
      int64_t v = c[dim];
      bool single = (v & (v - 1)) == 0;
      for (unsigned d = 0; d < c.size(); ++d)
        single &= d == unsigned(dim) || c[d] == 0;
      if (!single)
        return std::nullopt;
      unsigned k = 0;
      while ((int64_t(1) << k) < v)
        ++k;
      if (k >= found.size() || found[k]++)
        return std::nullopt;
      sources[k] = {InDim(in), i};
    }
  }
  if (std::count(found.begin(), found.end(), 0))
    return std::nullopt;
  return sources;
}

LinearLayout
LinearLayout::broadcastOperand(const std::vector<int> &dims) const {
  std::vector<int64_t> newShape = getShape();
  for (int d : dims)
    newShape[d] = 1;
  Bases nb[3];
  for (int in = 0; in < 3; ++in)
    for (const Coords &c : getBases(InDim(in))) {
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
  std::vector<int64_t> newShape = getShape();
  newShape.insert(newShape.begin() + axis, 1);
  Bases nb[3];
  for (int in = 0; in < 3; ++in)
    for (Coords c : getBases(InDim(in))) {
      c.insert(c.begin() + axis, 0);
      nb[in].push_back(c);
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::squeezeDim(int axis) const {
  assert(getShape()[axis] == 1 && "squeezing a dim of size > 1");
  std::vector<int64_t> newShape = getShape();
  newShape.erase(newShape.begin() + axis);
  Bases nb[3];
  for (int in = 0; in < 3; ++in)
    for (const Coords &c : getBases(InDim(in)))
      nb[in].push_back(eraseDim(c, axis));
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::transpose(const std::vector<int> &perm) const {
  std::vector<int64_t> shape = getShape(), newShape(shape.size());
  for (unsigned i = 0; i < perm.size(); ++i)
    newShape[i] = shape[perm[i]];
  Bases nb[3];
  for (int in = 0; in < 3; ++in)
    for (const Coords &c : getBases(InDim(in))) {
      Coords t(c.size());
      for (unsigned i = 0; i < perm.size(); ++i)
        t[i] = c[perm[i]];
      nb[in].push_back(t);
    }
  return LinearLayout(newShape, nb[0], nb[1], nb[2]);
}

LinearLayout LinearLayout::reshape(const std::vector<int64_t> &newShape) const {
  NamedSizes dims;
  for (unsigned i = 0; i < newShape.size(); ++i)
    dims.push_back({outDimName(i), newShape[i]});
  LinearLayout r = reshapeOuts(dims);
  return LinearLayout(newShape, r.getBases(InDim::Register),
                      r.getBases(InDim::Lane), r.getBases(InDim::Warp));
}

LinearLayout LinearLayout::withNumWarps(int numWarps) const {
  Bases warp = getBases(InDim::Warp);
  while ((int64_t(1) << warp.size()) < numWarps)
    warp.push_back(Coords(getRank(), 0));
  return LinearLayout(getShape(), getBases(InDim::Register),
                      getBases(InDim::Lane), warp);
}

std::vector<int64_t> LinearLayout::getShape() const {
  std::vector<int64_t> s;
  for (auto &[name, size] : outs)
    s.push_back(size);
  return s;
}

Coords LinearLayout::applyIn(InDim d, int64_t index) const {
  Coords c;
  for (auto &[n, v] : LinearLayout::apply(NamedValues{{inDimName(d), index}}))
    c.push_back(v);
  return c;
}

Coords LinearLayout::apply(int64_t reg, int64_t lane, int64_t warp) const {
  Coords c;
  for (auto &[n, v] : LinearLayout::apply(
           NamedValues{{"register", reg}, {"lane", lane}, {"warp", warp}}))
    c.push_back(v);
  return c;
}

bool LinearLayout::isAxisAligned() const {
  for (auto &[name, bases] : ins)
    for (const Coords &c : bases)
      if (std::count_if(c.begin(), c.end(), [](int64_t v) { return v; }) > 1)
        return false;
  return true;
}

int64_t LinearLayout::getContiguity(int dim) const {
  const Bases &regs = getBases(InDim::Register);
  unsigned rank = getRank();
  unsigned run = 0;
  while (run < regs.size() && regs[run] == unit(rank, dim, 1 << run))
    ++run;
  // Every other basis must keep a run's start aligned to the run's length.
  while (run > 0) {
    int64_t vec = int64_t(1) << run;
    bool aligned = true;
    for (auto &[name, bases] : ins)
      for (unsigned i = (name == "register" ? run : 0); i < bases.size(); ++i)
        if (bases[i][dim] % vec != 0)
          aligned = false;
    if (aligned)
      break;
    --run;
  }
  return int64_t(1) << run;
}

std::optional<int64_t> LinearLayout::findRegister(const Coords &coords) const {
  for (int64_t r = 0; r < getNumRegisters(); ++r)
    if (applyIn(InDim::Register, r) == coords)
      return r;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Shared-memory layouts
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::sharedUnswizzled(const std::vector<int64_t> &shape,
                                            const std::vector<int64_t> &order) {
  return sharedSwizzled(shape, order, 1, 1, 1);
}

/// Swizzle atoms of `rowElems` elements along the fast dim: within an atom,
/// groups of `vec` elements of row r are XORed with (r / perPhase) %
/// maxPhase; atoms follow each other after all the rows, then outer dims.
static LinearLayout swizzledAtoms(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &order,
                                  int64_t vec, int64_t perPhase,
                                  int64_t maxPhase, int64_t rowElems) {
  unsigned rank = shape.size();
  int64_t fast = order[0];
  Bases offset;
  for (int64_t v = 1; v < rowElems; v *= 2)
    offset.push_back(unit(rank, fast, v));
  if (rank > 1) {
    int64_t slow = order[1];
    for (int64_t r = 1; r < shape[slow]; r *= 2) {
      Coords c = unit(rank, slow, r);
      c[fast] = ((r / perPhase) % maxPhase) * vec % rowElems;
      offset.push_back(c);
    }
  }
  for (int64_t v = rowElems; v < shape[fast]; v *= 2)
    offset.push_back(unit(rank, fast, v));
  for (unsigned k = 2; k < order.size(); ++k)
    for (int64_t v = 1; v < shape[order[k]]; v *= 2)
      offset.push_back(unit(rank, order[k], v));
  LinearLayout::NamedSizes outs;
  for (unsigned i = 0; i < rank; ++i)
    outs.push_back({outDimName(i), shape[i]});
  return LinearLayout({{"offset", offset}}, outs);
}

LinearLayout LinearLayout::sharedSwizzled(const std::vector<int64_t> &shape,
                                          const std::vector<int64_t> &order,
                                          int64_t vec, int64_t perPhase,
                                          int64_t maxPhase) {
  return swizzledAtoms(shape, order, vec, perPhase, maxPhase, shape[order[0]]);
}

LinearLayout LinearLayout::sharedNVMMA(const std::vector<int64_t> &shape,
                                       const std::vector<int64_t> &order,
                                       unsigned elementBits, int swizzleBytes) {
  if (swizzleBytes == 0 || shape.size() < 2)
    return sharedUnswizzled(shape, order);
  // A swizzle atom is 8 rows of `swizzleBytes`; 16-byte chunks of row r are
  // XORed with r / (128 / swizzleBytes) % (swizzleBytes / 16). Wider tiles
  // are atoms side by side, after all the rows.
  int64_t rowElems = std::min<int64_t>(swizzleBytes * 8 / elementBits,
                                       shape[order[0]]);
  return swizzledAtoms(shape, order, 128 / elementBits, 128 / swizzleBytes,
                       swizzleBytes / 16, rowElems);
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::tmem32x32b(const std::vector<int64_t> &shape,
                                      int numWarps) {
  // Rows are TMEM lanes: warp w % 4 owns lanes 32 (w % 4) .. + 31; a fifth
  // and further warps (other warpgroups) split the columns in runs of 16
  // (or of their share, if less): warpgroup g holds runs g, g + G, ...,
  // so that every chunk of 32 or more columns (a TMA box of 128 bytes of
  // f32) has each warpgroup's part in the same registers (a TMA store
  // leaves a tile chunk by chunk).
  BasisBuilder b(shape);
  b.addN(InDim::Lane, 0, 32);
  b.addN(InDim::Warp, 0, std::min(numWarps, 4));
  if (numWarps > 4) {
    int64_t groups = numWarps / 4;
    int64_t run = std::min<int64_t>(16, shape[1] / groups);
    b.addN(InDim::Register, 1, run);
    b.addN(InDim::Warp, 1, groups);
  }
  return b.finish({1, 0});
}

LinearLayout LinearLayout::tmem16x64b(const std::vector<int64_t> &shape,
                                      int numWarps) {
  // Thread t holds lane t/4 + 8 (t % 2), column (t/2) % 2 of each two
  // columns; register j the next two columns; then the other 16 lanes of
  // its quadrant.
  BasisBuilder b(shape);
  b.bases[int(InDim::Lane)].push_back(unit(2, 0, 8));
  b.add(InDim::Lane, 1);
  b.addN(InDim::Lane, 0, 8);
  b.covered[0] = 16;
  b.addN(InDim::Register, 1, shape[1] / 2);
  b.add(InDim::Register, 0);
  b.addN(InDim::Warp, 0, std::min(numWarps, 4));
  return b.finish({1, 0});
}

LinearLayout LinearLayout::tmem16x128b(const std::vector<int64_t> &shape,
                                       int numWarps) {
  // Thread t holds lanes t/4 and t/4 + 8 (registers 2j, 2j + 1), column
  // t % 4 of each four columns; then the other 16 lanes of its quadrant.
  BasisBuilder b(shape);
  b.addN(InDim::Lane, 1, 4);
  b.addN(InDim::Lane, 0, 8);
  b.add(InDim::Register, 0);
  b.addN(InDim::Register, 1, shape[1] / 4);
  b.add(InDim::Register, 0);
  b.addN(InDim::Warp, 0, std::min(numWarps, 4));
  return b.finish({1, 0});
}

LinearLayout LinearLayout::tmem16x256b(const std::vector<int64_t> &shape,
                                       int numWarps) {
  // A warp reads 16 TMEM lanes x 256 bits: thread t holds lanes t/4 and
  // t/4 + 8, 32-bit columns 2 (t % 4) and 2 (t % 4) + 1; then the next 256
  // bits, then the other 16 lanes of its quadrant.
  BasisBuilder b(shape);
  b.addMmaFragment();
  b.addN(InDim::Register, 1, shape[1] / 8);
  b.add(InDim::Register, 0);
  b.addN(InDim::Warp, 0, std::min(numWarps, 4));
  return b.finish({1, 0});
}
