//===- LinearLayoutTest.cpp - the layout algebra, as a specification ------===//

#include "tilec/Layout/LinearLayout.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

using namespace tilec;
using Bases = LinearLayout::Bases;
using Coords = LinearLayout::Coords;

namespace {

TEST(LinearLayout, ApplyIsXorOfBases) {
  LinearLayout l({4, 8}, {{0, 1}, {1, 0}}, {{0, 2}, {0, 4}, {2, 0}, {0, 0}, {0, 0}},
                 {{1, 1}});
  EXPECT_EQ(l.apply(0, 0, 0), (Coords{0, 0}));
  EXPECT_EQ(l.apply(3, 0, 0), (Coords{1, 1}));
  EXPECT_EQ(l.apply(1, 3, 0), (Coords{0, 7}));
  // XOR, not addition: (0,1) ^ (1,1) = (1,0).
  EXPECT_EQ(l.apply(1, 0, 1), (Coords{1, 0}));
  EXPECT_EQ(l.apply(0, 4, 0), (Coords{2, 0}));
  EXPECT_EQ(l.getNumRegisters(), 4);
  EXPECT_EQ(l.getNumLanes(), 32);
  EXPECT_EQ(l.getNumWarps(), 2);
}

TEST(LinearLayout, CoalescedF32Vector) {
  // 1024 f32 over 4 warps: 4 consecutive elements (16 bytes) a thread, lanes
  // next, warps after, and the rest repeats in registers.
  LinearLayout l = LinearLayout::coalesced({1024}, 32, 4, 0);
  EXPECT_EQ(l.getBases(InDim::Register), (Bases{{1}, {2}, {512}}));
  EXPECT_EQ(l.getBases(InDim::Lane), (Bases{{4}, {8}, {16}, {32}, {64}}));
  EXPECT_EQ(l.getBases(InDim::Warp), (Bases{{128}, {256}}));
  EXPECT_EQ(l.getContiguity(0), 4);
  EXPECT_TRUE(l.isSurjective());
}

TEST(LinearLayout, CoalescedBf16Rows) {
  // 64x32 bf16: 8 elements (16 bytes) a thread along the row, 4 lanes cover
  // a row, 8 rows a warp, warps down the rows.
  LinearLayout l = LinearLayout::coalesced({64, 32}, 16, 4, 1);
  EXPECT_EQ(l.getBases(InDim::Register),
            (Bases{{0, 1}, {0, 2}, {0, 4}, {32, 0}}));
  EXPECT_EQ(l.getBases(InDim::Lane),
            (Bases{{0, 8}, {0, 16}, {1, 0}, {2, 0}, {4, 0}}));
  EXPECT_EQ(l.getBases(InDim::Warp), (Bases{{8, 0}, {16, 0}}));
  EXPECT_EQ(l.getContiguity(1), 8);
  EXPECT_EQ(l.getContiguity(0), 1);
}

TEST(LinearLayout, BlockedReplicatesSmallShapes) {
  // 16 elements for 32 lanes of 4: lanes past the shape hold copies.
  LinearLayout l = LinearLayout::blocked({16}, {4}, {32}, {2}, {0});
  EXPECT_EQ(l.getBases(InDim::Register), (Bases{{1}, {2}}));
  EXPECT_EQ(l.getBases(InDim::Lane), (Bases{{4}, {8}, {0}, {0}, {0}}));
  EXPECT_EQ(l.getBases(InDim::Warp), (Bases{{0}}));
  EXPECT_TRUE(l.isSurjective());
}

TEST(LinearLayout, MmaAccumulatorMatchesPtx) {
  // PTX ISA, mma.m16n8k16 C/D fragment: row = groupID (+8 for c2, c3),
  // col = 2 * threadID_in_group + (i & 1).
  LinearLayout l = LinearLayout::mmaAccumulator({16, 8}, 1, 1);
  EXPECT_EQ(l.getBases(InDim::Register), (Bases{{0, 1}, {8, 0}}));
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(l.apply(i, lane, 0),
                (Coords{lane / 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1)}));
}

TEST(LinearLayout, MmaOperandsMatchPtxBf16) {
  LinearLayout a = LinearLayout::mmaOperand(0, {16, 16}, 16, 1, 1);
  LinearLayout b = LinearLayout::mmaOperand(1, {16, 8}, 16, 1, 1);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(a.apply(i, lane, 0),
                (Coords{g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)}));
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(b.apply(i, lane, 0),
                (Coords{2 * t + (i & 1) + 8 * (i >> 1), g}));
  }
}

TEST(LinearLayout, MmaOperandsMatchPtxFp8) {
  // m16n8k32 with 8-bit inputs: four elements along K a register.
  LinearLayout a = LinearLayout::mmaOperand(0, {16, 32}, 8, 1, 1);
  LinearLayout b = LinearLayout::mmaOperand(1, {32, 8}, 8, 1, 1);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(a.apply(i, lane, 0),
                (Coords{g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)}));
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(b.apply(i, lane, 0),
                (Coords{4 * t + (i & 3) + 16 * (i >> 2), g}));
  }
}

TEST(LinearLayout, MmaWarpsAndRepetitions) {
  // 64x64 over 4 warps: 2x2 holds the least operand data per warp; with
  // whole rows per warp (alongM) the warps split M, 16 rows each, N repeats
  // in registers, then the 8-row half of each fragment.
  EXPECT_EQ(LinearLayout::mmaWarpSplit(64, 64, 4), std::make_pair(2, 2));
  EXPECT_EQ(LinearLayout::mmaWarpSplit(128, 128, 8), std::make_pair(4, 2));
  EXPECT_EQ(LinearLayout::mmaWarpSplit(16, 256, 4), std::make_pair(1, 4));
  auto [wm, wn] = LinearLayout::mmaWarpSplit(64, 64, 4, /*alongM=*/true);
  EXPECT_EQ(wm, 4);
  EXPECT_EQ(wn, 1);
  LinearLayout c = LinearLayout::mmaAccumulator({64, 64}, wm, wn);
  EXPECT_EQ(c.getBases(InDim::Warp), (Bases{{16, 0}, {32, 0}}));
  EXPECT_EQ(c.getBases(InDim::Register),
            (Bases{{0, 1}, {8, 0}, {0, 8}, {0, 16}, {0, 32}}));
  // B is shared by the warps along M: its warp bases are zero.
  LinearLayout b = LinearLayout::mmaOperand(1, {32, 64}, 16, wm, wn);
  EXPECT_EQ(b.getBases(InDim::Warp), (Bases{{0, 0}, {0, 0}}));
  EXPECT_TRUE(c.isSurjective());
  EXPECT_TRUE(b.isSurjective());
}

TEST(LinearLayout, ReduceDimDropsRegistersAndReplicatesThreads) {
  LinearLayout l = LinearLayout::coalesced({16, 128}, 32, 4, 1);
  LinearLayout r = l.reduceDim(1);
  EXPECT_EQ(r.getShape(), (std::vector<int64_t>{16}));
  // No register basis runs along the reduced dim any more; lanes that did
  // now hold copies.
  for (const Coords &c : r.getBases(InDim::Register))
    EXPECT_NE(c, (Coords{0}));
  EXPECT_EQ(r.getNumLanes(), 32);
  EXPECT_TRUE(r.isSurjective());
}

TEST(LinearLayout, BitSourcesNameOneBasisPerCoordinateBit) {
  // 1024 elements in 4 warps: bits 0-1 registers, 2-6 lanes, 7-8 warps,
  // 9 the third register basis.
  LinearLayout l = LinearLayout::coalesced({1024}, 32, 4, 0);
  auto s = l.bitSources(0);
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->size(), 10u);
  for (unsigned k = 0; k < s->size(); ++k) {
    auto [in, i] = (*s)[k];
    EXPECT_EQ(l.getBases(in)[i], (Coords{int64_t(1) << k}));
  }
  // A basis mixing two dims, or two bases for one bit: none.
  LinearLayout mixed({4, 4}, {{1, 1}, {2, 0}, {0, 2}}, {{0, 1}}, {});
  EXPECT_FALSE(mixed.bitSources(0).has_value());
  LinearLayout twice({4}, {{1}, {2}}, {{1}}, {});
  EXPECT_FALSE(twice.bitSources(0).has_value());
  // A size-1 dim has no bits.
  EXPECT_TRUE(LinearLayout::coalesced({1, 64}, 32, 1, 1).bitSources(0)->empty());
}

TEST(LinearLayout, TruncateDimKeepsTheFirstElements) {
  LinearLayout l = LinearLayout::coalesced({16, 128}, 32, 4, 1);
  LinearLayout t = l.truncateDim(1, 8);
  EXPECT_EQ(t.getShape(), (std::vector<int64_t>{16, 8}));
  EXPECT_TRUE(t.isSurjective());
  // Every element of the truncated layout sits where the full layout puts
  // the same coordinates, for each thread (registers renumbered in order).
  std::vector<unsigned> kept;
  const Bases &regs = l.getBases(InDim::Register);
  for (unsigned i = 0; i < regs.size(); ++i)
    if (regs[i][1] < 8)
      kept.push_back(i);
  for (int64_t r = 0; r < t.getNumRegisters(); ++r) {
    int64_t full = 0;
    for (unsigned j = 0; j < kept.size(); ++j)
      if (r & (int64_t(1) << j))
        full |= int64_t(1) << kept[j];
    for (int64_t lane = 0; lane < 32; lane += 5)
      for (int64_t warp = 0; warp < 4; ++warp) {
        Coords c = l.apply(full, lane, warp), ct = t.apply(r, lane, warp);
        // Lanes and warps beyond 8 hold copies of the element 8 (or 16, ...)
        // before.
        EXPECT_EQ(ct, (Coords{c[0], c[1] & 7}));
      }
  }
}

TEST(LinearLayout, BroadcastOperandIsExpandedReduction) {
  LinearLayout l = LinearLayout::coalesced({16, 128}, 32, 4, 1);
  EXPECT_EQ(l.broadcastOperand({1}), l.reduceDim(1).expandDims(1));
  EXPECT_EQ(l.reduceDim(1).expandDims(1).squeezeDim(1), l.reduceDim(1));
}

TEST(LinearLayout, TransposeAndReshapeRoundTrip) {
  LinearLayout l = LinearLayout::coalesced({8, 16, 32}, 16, 4, 2);
  EXPECT_EQ(l.transpose({2, 0, 1}).transpose({1, 2, 0}), l);
  EXPECT_EQ(l.reshape({128, 32}).reshape({8, 16, 32}), l);
  EXPECT_EQ(l.reshape({4096}).getShape(), (std::vector<int64_t>{4096}));
  EXPECT_TRUE(l.reshape({4096}).isSurjective());
}

TEST(LinearLayout, SurjectivityNeedsEveryBit) {
  // Two lanes with the same basis leave the elements with bit 16 unheld.
  LinearLayout l({32}, {}, {{1}, {2}, {4}, {8}, {8}}, {});
  EXPECT_FALSE(l.isSurjective());
}

TEST(LinearLayout, FindRegister) {
  LinearLayout c = LinearLayout::mmaAccumulator({32, 16}, 1, 1);
  for (int64_t r = 0; r < c.getNumRegisters(); ++r)
    EXPECT_EQ(c.findRegister(c.applyIn(InDim::Register, r)), r);
  EXPECT_FALSE(c.findRegister({1, 0}).has_value()); // a lane's element
}

TEST(LinearLayout, ToStringIsTheAttributeSyntax) {
  LinearLayout l({16, 8}, {{0, 1}, {8, 0}},
                 {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, {});
  EXPECT_EQ(l.toString(), "register = [[0, 1], [8, 0]], lane = [[0, 2], "
                          "[0, 4], [1, 0], [2, 0], [4, 0]], warp = []");
}

/// Every element of a random blocked layout is held by some index, and an
/// index holds exactly the element apply() says (checked by counting).
TEST(LinearLayout, RandomBlockedLayoutsCoverTheirShape) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 200; ++iter) {
    int rank = 1 + rng() % 3;
    std::vector<int64_t> shape, spt, tpw(rank, 1), wpc(rank, 1), order;
    for (int d = 0; d < rank; ++d) {
      shape.push_back(int64_t(1) << (rng() % 6));
      spt.push_back(int64_t(1) << (rng() % 3));
      order.push_back(rank - 1 - d);
    }
    tpw[rng() % rank] = 32;
    wpc[rng() % rank] = int64_t(1) << (rng() % 3);
    LinearLayout l = LinearLayout::blocked(shape, spt, tpw, wpc, order);
    ASSERT_TRUE(l.isSurjective()) << l.toString();
    std::set<Coords> seen;
    for (int64_t w = 0; w < l.getNumWarps(); ++w)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t r = 0; r < l.getNumRegisters(); ++r) {
          Coords c = l.apply(r, lane, w);
          for (int d = 0; d < rank; ++d)
            ASSERT_LT(c[d], shape[d]);
          seen.insert(c);
        }
    int64_t numel = 1;
    for (int64_t s : shape)
      numel *= s;
    EXPECT_EQ(int64_t(seen.size()), numel);
  }
}

} // namespace

/// Every element of a slice, for every thread, sits in the whole tile's
/// register the slice names, at the block's offset.
static void expectSliceHolds(const LinearLayout &whole,
                             const RegisterBlock &s, const Coords &offsets) {
  const LinearLayout &b = s.layout;
  ASSERT_EQ(int64_t(s.registers.size()), b.getNumRegisters());
  EXPECT_TRUE(b.isSurjective());
  for (int64_t r = 0; r < b.getNumRegisters(); ++r)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t warp = 0; warp < whole.getNumWarps(); ++warp) {
        Coords c = b.apply(r, lane, warp);
        for (unsigned d = 0; d < c.size(); ++d)
          c[d] += offsets[d];
        EXPECT_EQ(whole.apply(s.registers[r], lane, warp), c);
      }
}

TEST(LinearLayout, SliceIsWholeRegistersOrNone) {
  // Rows of a coalesced 32x128 f32 tile beyond the warps are registers:
  // blocks of rows are renamings, at aligned and unaligned offsets.
  LinearLayout l = LinearLayout::coalesced({32, 128}, 32, 4, 1);
  for (Coords off : {Coords{0, 0}, Coords{16, 0}, Coords{8, 0}, Coords{4, 0},
                     Coords{12, 0}}) {
    auto s = l.slice(off, {8, 128});
    ASSERT_TRUE(s.has_value()) << off[0];
    expectSliceHolds(l, *s, off);
  }
  // The column's high bits are lane bits: no renaming, and none at an
  // offset that changes a warp's row bits either.
  EXPECT_FALSE(l.slice({0, 64}, {32, 64}).has_value());
  EXPECT_FALSE(l.slice({1, 0}, {16, 128}).has_value());
  // mma.sync accumulator: the fragment's column blocks of 8 are registers.
  LinearLayout acc = LinearLayout::mmaAccumulator({64, 64}, 4, 1);
  for (Coords off : {Coords{0, 32}, Coords{0, 8}, Coords{0, 24}}) {
    auto s = acc.slice(off, {64, 8});
    ASSERT_TRUE(s.has_value()) << off[1];
    expectSliceHolds(acc, *s, off);
  }
  auto s = acc.slice({0, 16}, {64, 32});
  ASSERT_TRUE(s.has_value());
  expectSliceHolds(acc, *s, {0, 16});
  // A register basis mixing a kept bit with a moved one has no renaming
  // where its partner is a lane bit.
  LinearLayout mixed({4, 2}, {{2, 1}}, {{1, 0}, {0, 1}}, {});
  EXPECT_FALSE(mixed.slice({2, 0}, {2, 2}).has_value());
}

TEST(LinearLayout, ExtendInRegistersSlicesBack) {
  LinearLayout l = LinearLayout::mmaAccumulator({64, 32}, 2, 2);
  LinearLayout big = l.extendInRegisters({128, 64});
  EXPECT_EQ(big.getShape(), (std::vector<int64_t>{128, 64}));
  EXPECT_TRUE(big.isInvertible());
  for (Coords off : {Coords{0, 0}, Coords{64, 0}, Coords{0, 32},
                     Coords{64, 32}}) {
    auto s = big.slice(off, {64, 32});
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->layout, l);
    expectSliceHolds(big, *s, off);
  }
}
