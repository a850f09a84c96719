//===- BankConflictsTest.cpp - wavefront counts vs. a simulator -----------===//

#include "tilec/Layout/BankConflicts.h"

#include <gtest/gtest.h>

#include <random>

using namespace tilec;
using LL = LinearLayout;
using Bases = LL::Bases;

namespace {

/// One f32 a thread, lanes down the rows of a 32x32 tile.
LL columnOfLanes() {
  Bases regs, lanes;
  for (int64_t c = 1; c < 32; c *= 2)
    regs.push_back({0, c});
  for (int64_t r = 1; r < 32; r *= 2)
    lanes.push_back({r, 0});
  return LL({32, 32}, regs, lanes, {});
}

TEST(BankConflicts, LanesDownAColumnOfARowMajorBufferConflict32Ways) {
  // Each lane's row starts in bank 0: 16-byte vectors along the row, but all
  // 32 lanes hit banks 0-3.
  auto a = analyzeSharedAccess(columnOfLanes(),
                               LL::sharedUnswizzled({32, 32}, {1, 0}), 32);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->vectorElements, 4);
  EXPECT_EQ(a->wavefronts, 32);
  EXPECT_EQ(a->idealWavefronts, 4);
  EXPECT_EQ(a->instructions, 8);
  EXPECT_EQ(a->excessWavefronts(), 8 * 28);
  EXPECT_EQ(simulateWavefronts(columnOfLanes(),
                               LL::sharedUnswizzled({32, 32}, {1, 0}), 32, 4),
            32);
  // One element at a time is no better.
  auto scalar = analyzeSharedAccess(columnOfLanes(),
                                    LL::sharedUnswizzled({32, 32}, {1, 0}), 32,
                                    /*maxVectorBytes=*/4);
  EXPECT_EQ(scalar->vectorElements, 1);
  EXPECT_EQ(scalar->wavefronts, 32);
}

TEST(BankConflicts, ASwizzleRemovesThem) {
  LL swizzled = LL::sharedSwizzled({32, 32}, {1, 0}, 1, 1, 32);
  auto a = analyzeSharedAccess(columnOfLanes(), swizzled, 32);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->wavefronts, 1);
  EXPECT_EQ(simulateWavefronts(columnOfLanes(), swizzled, 32, 1), 1);
}

TEST(BankConflicts, CoalescedRowsUse16ByteVectorsConflictFree) {
  LL dist = LL::coalesced({64, 64}, 16, 4, 1);
  auto a = analyzeSharedAccess(dist, LL::sharedUnswizzled({64, 64}, {1, 0}), 16);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->vectorElements, 8);
  EXPECT_EQ(a->wavefronts, 4);
  EXPECT_EQ(a->idealWavefronts, 4);
  EXPECT_EQ(a->excessWavefronts(), 0);
}

TEST(BankConflicts, SubWordAccessesShareWords) {
  // 32 lanes reading 32 consecutive bf16: 16 words, one wavefront.
  LL dist = LL::identity1D(32, "lane", "dim0") * LL::zeros1D(1, "register", "dim0") *
            LL::zeros1D(1, "warp", "dim0");
  auto a = analyzeSharedAccess(dist, LL::sharedUnswizzled({32}, {0}), 16);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->wavefronts, 1);
  EXPECT_EQ(simulateWavefronts(dist, LL::sharedUnswizzled({32}, {0}), 16, 1), 1);
}

TEST(BankConflicts, MmaAccumulatorIntoNVMMA128) {
  // An f32 accumulator stored into a 128-byte-swizzled buffer, 8 bytes a
  // thread: the swizzle spreads the 8 rows of a fragment over the banks.
  LL acc = LL::mmaAccumulator({64, 32}, 4, 1);
  LL plain = LL::sharedUnswizzled({64, 32}, {1, 0});
  LL swz = LL::sharedNVMMA({64, 32}, {1, 0}, 32, 128);
  auto p = analyzeSharedAccess(acc, plain, 32);
  auto s = analyzeSharedAccess(acc, swz, 32);
  ASSERT_TRUE(p && s);
  EXPECT_EQ(p->vectorElements, 2);
  EXPECT_EQ(p->wavefronts, 8);
  EXPECT_EQ(s->wavefronts, 2);
  EXPECT_EQ(s->idealWavefronts, 2);
}

/// The analysis agrees with the simulator on random layouts.
TEST(BankConflicts, AnalysisAgreesWithTheSimulator) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<int64_t> shape{int64_t(1) << (3 + rng() % 3),
                               int64_t(1) << (3 + rng() % 4)};
    unsigned bits = std::vector<unsigned>{8, 16, 32, 64}[rng() % 4];
    int64_t vec = int64_t(1) << (rng() % 4), per = int64_t(1) << (rng() % 3),
            maxp = int64_t(1) << (rng() % 4);
    if (vec * maxp > shape[1])
      maxp = 1;
    LL shared = LL::sharedSwizzled(shape, {1, 0}, vec, per, maxp);
    // A random distributed layout covering the tile: a blocked one with
    // random parameters, its register bases shuffled.
    std::vector<int64_t> spt{1, int64_t(1) << (rng() % 3)};
    std::vector<int64_t> tpw{1, 32};
    if (rng() % 2)
      tpw = {32 / std::min<int64_t>(32, shape[1] / spt[1]),
             std::min<int64_t>(32, shape[1] / spt[1])};
    LL dist = LL::blocked(shape, spt, tpw, {2, 1}, rng() % 2 ? std::vector<int64_t>{1, 0}
                                                            : std::vector<int64_t>{0, 1});
    auto a = analyzeSharedAccess(dist, shared, bits);
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->wavefronts,
              simulateWavefronts(dist, shared, bits, a->vectorElements))
        << dist.toString() << " into vec=" << vec << " per=" << per
        << " max=" << maxp << " bits=" << bits;
  }
}

} // namespace

namespace {

TEST(SwizzleChoice, TransposeGetsVectorsOnBothSidesWithoutConflicts) {
  // Rows of a 64x64 bf16 tile in, columns out (as a transpose does).
  LL rows = LL::coalesced({64, 64}, 16, 4, 1);
  LL cols = LL::coalesced({64, 64}, 16, 4, 0);
  auto c = chooseSharedLayout(rows, cols, 16);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->store.vectorElements * c->load.vectorElements, 8);
  EXPECT_EQ(c->store.excessWavefronts(), 0);
  EXPECT_EQ(c->load.excessWavefronts(), 0);
}

TEST(SwizzleChoice, MmaOperandFromCoalescedRows) {
  LL rows = LL::coalesced({128, 32}, 16, 8, 1);
  LL a = LL::mmaOperand(0, {128, 32}, 16, 8, 1);
  auto c = chooseSharedLayout(rows, a, 16);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->store.vectorElements, 8);
  EXPECT_EQ(c->load.vectorElements, 2);
  EXPECT_EQ(c->store.excessWavefronts() + c->load.excessWavefronts(), 0);
}

} // namespace

namespace {

TEST(ShuffleTransfer, LanePermutationsAreShuffles) {
  LL a({32}, {}, {{1}, {2}, {4}, {8}, {16}}, {});
  LL b({32}, {}, {{16}, {8}, {4}, {2}, {1}}, {});
  auto t = shuffleTransfer(a, b);
  ASSERT_TRUE(t.has_value());
  // Lane 1 of b holds element 16, which lane 16 of a holds.
  EXPECT_EQ(t->apply({{"lane", 1}}),
            (LL::NamedValues{{"register", 0}, {"lane", 16}, {"warp", 0}}));
}

TEST(ShuffleTransfer, RegistersPickingLanesAreShuffles) {
  // b holds in two registers (each on 16 lanes, twice) what a spreads over
  // 32 lanes: b's register picks the source lane.
  LL a({32}, {}, {{1}, {2}, {4}, {8}, {16}}, {});
  LL b({32}, {{16}}, {{1}, {2}, {4}, {8}, {0}}, {});
  auto t = shuffleTransfer(a, b);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->apply({{"register", 1}, {"lane", 3}}),
            (LL::NamedValues{{"register", 0}, {"lane", 19}, {"warp", 0}}));
  // ... but not the other way round: b's register would depend on a's lane.
  EXPECT_FALSE(shuffleTransfer(b, a).has_value());
}

TEST(ShuffleTransfer, CrossingWarpsIsNot) {
  LL a({64}, {}, {{1}, {2}, {4}, {8}, {16}}, {{32}});
  LL b({64}, {}, {{2}, {4}, {8}, {16}, {32}}, {{1}});
  EXPECT_FALSE(shuffleTransfer(a, b).has_value());
}

} // namespace

namespace {

TEST(Ldmatrix, MmaOperandsFromRowMajorBuffers) {
  // A (MxK, K contiguous): plain ldmatrix; B (KxN, N contiguous): .trans.
  LL a = LL::mmaOperand(0, {64, 32}, 16, 4, 1);
  LL b = LL::mmaOperand(1, {32, 64}, 16, 4, 1);
  auto ta = a.invertAndCompose(LL::sharedUnswizzled({64, 32}, {1, 0}));
  auto tb = b.invertAndCompose(LL::sharedUnswizzled({32, 64}, {1, 0}));
  ASSERT_TRUE(ta && tb);
  auto ma = matchLdmatrix(*ta), mb = matchLdmatrix(*tb);
  ASSERT_TRUE(ma && mb);
  EXPECT_FALSE(ma->transposed);
  // Rows of A's matrices: lane bits 2-4 walk rows (32 elements apart), the
  // matrix bits the second 8 rows and the second 8 columns.
  EXPECT_EQ(ma->rowBases, (std::vector<int64_t>{32, 64, 128, 256, 8}));
  EXPECT_TRUE(mb->transposed);
  EXPECT_EQ(mb->rowBases, (std::vector<int64_t>{64, 128, 256, 512, 1024}));
  // A coalesced layout is not what ldmatrix delivers.
  auto tc = LL::coalesced({64, 32}, 16, 4, 1).invertAndCompose(
      LL::sharedUnswizzled({64, 32}, {1, 0}));
  EXPECT_FALSE(matchLdmatrix(*tc).has_value());
}

} // namespace
