//===- BankConflicts.cpp - shared-memory wavefronts of a warp -------------===//
//
// The words a warp touches in one instruction are an affine image of the
// lane bits and the word-in-vector bits; its linear part M maps them to word
// addresses and the bank of a word is its low 5 bits. Every bank the image
// reaches then holds the same number of distinct words,
// 2^(rank(M) - rank(bank ∘ M)), and that is the instruction's wavefront
// count. Other registers and warps only translate the image, which permutes
// banks and changes nothing.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BankConflicts.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tilec;

namespace {
unsigned rankOf(std::vector<uint64_t> vs) {
  unsigned rank = 0;
  for (unsigned bit = 64; bit-- > 0;) {
    auto pivot = std::find_if(vs.begin(), vs.end(), [&](uint64_t v) {
      return (v >> bit) & 1;
    });
    if (pivot == vs.end())
      continue;
    uint64_t p = *pivot;
    vs.erase(pivot);
    for (uint64_t &v : vs)
      if ((v >> bit) & 1)
        v ^= p;
    ++rank;
  }
  return rank;
}
} // namespace

int64_t tilec::sharedVectorElements(const LinearLayout &toOffset,
                                    int64_t elementBytes,
                                    int64_t maxVectorBytes, int64_t start) {
  const auto &regs = toOffset.getBases("register");
  unsigned run = 0;
  while (run < regs.size() && regs[run][0] == (int64_t(1) << run) &&
         (int64_t(2) << run) * elementBytes <= maxVectorBytes)
    ++run;
  for (; run > 0; --run) {
    int64_t vec = int64_t(1) << run;
    bool aligned = start % vec == 0;
    for (auto &[name, bases] : toOffset.getInDims())
      for (unsigned i = (name == "register" ? run : 0); i < bases.size(); ++i)
        aligned &= bases[i][0] % vec == 0;
    if (aligned)
      break;
  }
  return int64_t(1) << run;
}

std::optional<SharedAccess>
tilec::analyzeSharedAccess(const LinearLayout &dist, const LinearLayout &shared,
                           unsigned elementBits, int64_t maxVectorBytes) {
  std::optional<LinearLayout> toOffset = dist.invertAndCompose(shared);
  if (!toOffset)
    return std::nullopt;
  int64_t bytes = std::max<int64_t>(1, elementBits / 8);
  SharedAccess a;
  a.vectorElements = sharedVectorElements(*toOffset, bytes, maxVectorBytes);
  a.instructions = dist.getNumRegisters() / a.vectorElements;
  a.toOffset = *toOffset;
  int64_t vecBytes = a.vectorElements * bytes;
  // Word addresses: offset * bytes / 4 for each lane, plus the words of a
  // vector wider than one.
  std::vector<uint64_t> words;
  int64_t byteShift = __builtin_ctzll(uint64_t(bytes)); // bytes: 1, 2, 4, 8
  for (const auto &c : toOffset->getBases("lane"))
    words.push_back(uint64_t(c[0] << byteShift) >> 2);
  for (int64_t w = 1; w < vecBytes / 4; w *= 2)
    words.push_back(uint64_t(w));
  std::vector<uint64_t> banks;
  for (uint64_t w : words)
    banks.push_back(w & 31);
  unsigned distinct = rankOf(words);
  a.wavefronts = int64_t(1) << (distinct - rankOf(banks));
  // The fewest wavefronts that can serve the distinct words (threads reading
  // one word share it).
  a.idealWavefronts = std::max<int64_t>(1, (int64_t(1) << distinct) / 32);
  return a;
}

int64_t tilec::simulateWavefronts(const LinearLayout &dist,
                                  const LinearLayout &shared,
                                  unsigned elementBits,
                                  int64_t vectorElements) {
  // offset of every element, by brute force over the shared layout.
  std::map<LinearLayout::Coords, int64_t> offsetOf;
  for (int64_t o = 0; o < shared.getInDimSize("offset"); ++o) {
    LinearLayout::Coords c;
    for (auto &[n, v] : shared.apply({{"offset", o}}))
      c.push_back(v);
    offsetOf[c] = o;
  }
  int64_t bytes = std::max<int64_t>(1, elementBits / 8);
  int64_t worst = 0;
  for (int64_t w = 0; w < dist.getNumWarps(); ++w)
    for (int64_t r0 = 0; r0 < dist.getNumRegisters(); r0 += vectorElements) {
      std::map<int64_t, std::set<int64_t>> wordsInBank;
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t e = 0; e < vectorElements; ++e) {
          int64_t byte = offsetOf.at(dist.apply(r0 + e, lane, w)) * bytes;
          for (int64_t b = 0; b < bytes; b += 4) {
            int64_t word = (byte + b) / 4;
            wordsInBank[word % 32].insert(word);
          }
        }
      for (auto &[bank, set] : wordsInBank)
        worst = std::max<int64_t>(worst, set.size());
    }
  return worst;
}

std::optional<SharedChoice> tilec::chooseSharedLayout(const LinearLayout &from,
                                                      const LinearLayout &to,
                                                      unsigned elementBits) {
  std::vector<int64_t> shape = from.getShape();
  unsigned rank = shape.size();
  int64_t bytes = std::max<int64_t>(1, elementBits / 8);
  std::optional<SharedChoice> best;
  // Lexicographic: the fewest shared-memory wavefronts in all (what the
  // round trip costs the memory pipe), then the fewest instructions (the
  // widest vectors), then the fewest excess wavefronts. Wider vectors win
  // unless their conflicts cost more wavefronts than they save.
  auto score = [&](const SharedChoice &c) {
    return std::make_tuple(c.store.instructions * c.store.wavefronts +
                               c.load.instructions * c.load.wavefronts,
                           c.store.instructions + c.load.instructions,
                           c.store.excessWavefronts() + c.load.excessWavefronts());
  };
  auto consider = [&](const LinearLayout &shared) {
    std::optional<SharedAccess> s = analyzeSharedAccess(from, shared, elementBits);
    std::optional<SharedAccess> l = analyzeSharedAccess(to, shared, elementBits);
    if (!s || !l)
      return;
    SharedChoice c{shared, *s, *l};
    if (!best || score(c) < score(*best))
      best = c;
  };
  for (unsigned fast = 0; fast < rank; ++fast) {
    std::vector<int64_t> order{fast};
    for (int d = rank - 1; d >= 0; --d)
      if (unsigned(d) != fast)
        order.push_back(d);
    consider(LinearLayout::sharedUnswizzled(shape, order));
    if (rank < 2)
      continue;
    int64_t rowLen = shape[fast], rows = shape[order[1]];
    for (int64_t vec = 1; vec <= std::min<int64_t>(16 / bytes, rowLen); vec *= 2)
      for (int64_t perPhase = 1; perPhase <= std::min<int64_t>(rows, 32);
           perPhase *= 2)
        for (int64_t maxPhase = 2; vec * maxPhase <= rowLen &&
                                   perPhase * maxPhase <= rows;
             maxPhase *= 2)
          consider(LinearLayout::sharedSwizzled(shape, order, vec, perPhase,
                                                maxPhase));
  }
  return best;
}

bool tilec::isRegisterPermutation(const LinearLayout &from,
                                  const LinearLayout &to) {
  if (from.getBases(InDim::Lane) != to.getBases(InDim::Lane) ||
      from.getBases(InDim::Warp) != to.getBases(InDim::Warp))
    return false;
  for (int64_t r = 0; r < to.getNumRegisters(); ++r)
    if (!from.findRegister(to.applyIn(InDim::Register, r)))
      return false;
  return true;
}

std::optional<LinearLayout> tilec::shuffleTransfer(const LinearLayout &from,
                                                   const LinearLayout &to) {
  std::optional<LinearLayout> t = to.invertAndCompose(from);
  if (!t)
    return std::nullopt;
  // Output coordinates of t are (register, lane, warp) of `from`.
  std::vector<std::string> names;
  for (auto &[n, s] : t->getOutDims())
    names.push_back(n);
  if (names != std::vector<std::string>{"register", "lane", "warp"})
    return std::nullopt;
  // Warps stay: warp bit i goes to warp bit i and nothing else goes there.
  const auto &warps = t->getBases("warp");
  for (unsigned i = 0; i < warps.size(); ++i)
    if (warps[i] != LinearLayout::Coords{0, 0, int64_t(1) << i})
      return std::nullopt;
  for (const char *in : {"register", "lane"})
    for (const auto &c : t->getBases(in))
      if (c[2] != 0)
        return std::nullopt;
  // The source register may not depend on the lane.
  for (const auto &c : t->getBases("lane"))
    if (c[0] != 0)
      return std::nullopt;
  return t;
}

std::optional<MatrixLoad> tilec::matchLdmatrix(const LinearLayout &toOffset) {
  const auto &reg = toOffset.getBases("register");
  const auto &lane = toOffset.getBases("lane");
  if (reg.size() < 3 || lane.size() != 5)
    return std::nullopt;
  auto off = [](const LinearLayout::Coords &c) { return c[0]; };
  auto rowStart = [&](const LinearLayout::Coords &c) { return off(c) % 8 == 0; };
  // Every register bit past the first three (the next group of matrices)
  // and every warp bit must keep rows 16-byte aligned.
  for (unsigned i = 3; i < reg.size(); ++i)
    if (!rowStart(reg[i]))
      return std::nullopt;
  for (const auto &c : toOffset.getBases("warp"))
    if (!rowStart(c))
      return std::nullopt;
  MatrixLoad m;
  // Plain: a lane gets two adjacent elements of row lane / 4 at column
  // 2 (lane % 4); rows are lane bits 2-4.
  if (off(reg[0]) == 1 && off(lane[0]) == 2 && off(lane[1]) == 4 &&
      rowStart(lane[2]) && rowStart(lane[3]) && rowStart(lane[4]) &&
      rowStart(reg[1]) && rowStart(reg[2])) {
    m.rowBases = {off(lane[2]), off(lane[3]), off(lane[4]), off(reg[1]),
                  off(reg[2])};
    return m;
  }
  // .trans: a lane gets rows 2 (lane % 4) and +1 at column lane / 4; rows are
  // register bit 0 and lane bits 0-1.
  if (off(lane[2]) == 1 && off(lane[3]) == 2 && off(lane[4]) == 4 &&
      rowStart(reg[0]) && rowStart(lane[0]) && rowStart(lane[1]) &&
      rowStart(reg[1]) && rowStart(reg[2])) {
    m.transposed = true;
    m.rowBases = {off(reg[0]), off(lane[0]), off(lane[1]), off(reg[1]),
                  off(reg[2])};
    return m;
  }
  return std::nullopt;
}
