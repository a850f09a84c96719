//===- LinearLayoutAlgebraTest.cpp - operations on layouts, as a spec ------===//

#include "tilec/Layout/LinearLayout.h"

#include <gtest/gtest.h>

#include <random>

using namespace tilec;
using LL = LinearLayout;
using Bases = LL::Bases;
using Coords = LL::Coords;

namespace {

TEST(LinearLayoutAlgebra, BuildingBlocks) {
  EXPECT_EQ(LL::identity1D(8, "lane", "dim0"),
            LL({{"lane", {{1}, {2}, {4}}}}, {{"dim0", 8}}));
  EXPECT_EQ(LL::zeros1D(4, "warp", "dim0"),
            LL({{"warp", {{0}, {0}}}}, {{"dim0", 1}}));
  EXPECT_EQ(LL::strided1D(4, 8, "register", "dim1"),
            LL({{"register", {{8}, {16}}}}, {{"dim1", 32}}));
}

TEST(LinearLayoutAlgebra, ProductStacksSharedDimsHighOverLow) {
  // 4 registers then 32 lanes along one dim: lanes start at 4.
  LL l = LL::identity1D(4, "register", "dim1") *
         LL::identity1D(32, "lane", "dim1");
  EXPECT_EQ(l.getOutDimSize("dim1"), 128);
  EXPECT_EQ(l.getBases("lane"), (Bases{{4}, {8}, {16}, {32}, {64}}));
  // Different output dims stay apart.
  LL m = LL::identity1D(4, "register", "dim1") *
         LL::identity1D(2, "register", "dim0");
  EXPECT_EQ(m.getBases("register"), (Bases{{1, 0}, {2, 0}, {0, 1}}));
  EXPECT_EQ(m.getOutDims(), (LL::NamedSizes{{"dim1", 4}, {"dim0", 2}}));
}

TEST(LinearLayoutAlgebra, ApplyNamedInputs) {
  LL l = LL::identity1D(4, "register", "dim1") *
         LL::identity1D(32, "lane", "dim1") * LL::identity1D(2, "warp", "dim0");
  EXPECT_EQ(l.apply({{"register", 3}, {"lane", 2}, {"warp", 1}}),
            (LL::NamedValues{{"dim1", 11}, {"dim0", 1}}));
  EXPECT_EQ(l.apply({{"lane", 1}}), (LL::NamedValues{{"dim1", 4}, {"dim0", 0}}));
}

TEST(LinearLayoutAlgebra, ComposeAppliesOuterAfterThis) {
  // A transpose of a 4x8 tile as a layout on coordinates.
  LL tr({{"dim0", {{0, 1}, {0, 2}}}, {"dim1", {{1, 0}, {2, 0}, {4, 0}}}},
        {{"dim0", 8}, {"dim1", 4}});
  LL l = LL::coalesced({4, 8}, 32, 1, 1);
  LL t = l.compose(tr);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t r = 0; r < t.getNumRegisters(); ++r) {
      Coords a = l.apply(r, lane, 0), b = t.apply(r, lane, 0);
      EXPECT_EQ(b, (Coords{a[1], a[0]}));
    }
}

TEST(LinearLayoutAlgebra, InvertAPermutation) {
  LL p({{"x", {{2}, {1}, {4}}}}, {{"y", 8}});
  LL inv = p.invert();
  EXPECT_EQ(inv.getBases("y"), (Bases{{2}, {1}, {4}}));
  EXPECT_EQ(p.compose(inv.transposeOuts({"x"})),
            LL::identity1D(8, "x", "x").transposeOuts({"x"}));
  EXPECT_TRUE(p.isInvertible());
  EXPECT_FALSE(LL::zeros1D(2, "x", "y", 2).isInvertible());
}

TEST(LinearLayoutAlgebra, InvertAndComposeGivesSharedOffsets) {
  // Where in a row-major 16x32 shared buffer each register of a coalesced
  // layout lives: offset = 32 * row + col.
  LL dist = LL::coalesced({16, 32}, 32, 4, 1);
  LL shared = LL::sharedUnswizzled({16, 32}, {1, 0});
  std::optional<LL> toOffset = dist.invertAndCompose(shared);
  ASSERT_TRUE(toOffset.has_value());
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < dist.getNumRegisters(); ++r) {
        Coords c = dist.apply(r, lane, w);
        auto off = toOffset->apply({{"register", r}, {"lane", lane}, {"warp", w}});
        EXPECT_EQ(off, (LL::NamedValues{{"offset", 32 * c[0] + c[1]}}));
      }
  // ... and composing with the shared layout gives the distributed one back.
  EXPECT_EQ(toOffset->compose(shared), dist);
}

TEST(LinearLayoutAlgebra, InvertAndComposeFailsOutsideTheImage) {
  LL a = LL::identity1D(4, "x", "dim0");
  LL b = LL::zeros1D(4, "y", "dim0", 4);
  EXPECT_FALSE(a.invertAndCompose(b).has_value());
}

TEST(LinearLayoutAlgebra, PseudoinverseOfABroadcast) {
  // Lanes 0..3 replicate: the right inverse picks lane bits that matter.
  LL l({{"lane", {{0}, {0}, {1}, {2}, {4}}}}, {{"dim0", 8}});
  std::optional<LL> r = l.pseudoinvert();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->getBases("dim0"), (Bases{{4}, {8}, {16}}));
  for (int64_t y = 0; y < 8; ++y)
    EXPECT_EQ(l.apply(r->apply({{"dim0", y}})),
              (LL::NamedValues{{"dim0", y}}));
}

TEST(LinearLayoutAlgebra, ReshapeFlattenTranspose) {
  LL l = LL::coalesced({8, 16}, 16, 2, 1);
  LL flat = l.flattenOuts("dim0");
  EXPECT_EQ(flat.getOutDims(), (LL::NamedSizes{{"dim0", 128}}));
  EXPECT_EQ(flat.reshapeOuts({{"dim0", 8}, {"dim1", 16}}), l);
  LL ins = l.flattenIns("thread");
  EXPECT_EQ(ins.getInDimSize("thread"), l.getTotalInDimSize());
  EXPECT_EQ(ins.reshapeIns({{"register", l.getNumRegisters()},
                            {"lane", 32},
                            {"warp", 2}}),
            l);
  LL t = l.transposeOuts({"dim1", "dim0"});
  EXPECT_EQ(t.apply({{"lane", 1}}), (LL::NamedValues{{"dim1", 8}, {"dim0", 0}}));
  EXPECT_EQ(t.transposeOuts({"dim0", "dim1"}), l);
}

TEST(LinearLayoutAlgebra, Sublayout) {
  LL l = LL::coalesced({8, 16}, 16, 2, 1);
  LL lanes = l.sublayout({"lane"}, {"dim1"});
  EXPECT_EQ(lanes.getBases("lane"), (Bases{{8}, {0}, {0}, {0}, {0}}));
}

TEST(LinearLayoutAlgebra, DivideLeftAndRight) {
  LL a = LL::identity1D(4, "register", "dim0");
  LL b = LL::identity1D(32, "lane", "dim0") * LL::identity1D(2, "register", "dim0");
  LL ab = a * b;
  std::optional<LL> right = ab.divideLeft(a);
  ASSERT_TRUE(right.has_value());
  EXPECT_EQ(*right, b);
  std::optional<LL> left = ab.divideRight(b);
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(*left, a);
  // The ldmatrix-like 8x8 tile is not a left factor of a layout whose first
  // register runs down the rows.
  LL rows = LL::identity1D(2, "register", "dim0") * LL::identity1D(8, "lane", "dim1");
  EXPECT_FALSE(rows.divideLeft(LL::identity1D(2, "register", "dim1")).has_value());
}

TEST(LinearLayoutAlgebra, QuotientRemovesIdentityDims) {
  LL l = LL::identity1D(4, "register", "dim0") * LL::identity1D(2, "block", "block");
  std::optional<LL> q = l.quotient({"block"});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(*q, LL::identity1D(4, "register", "dim0"));
  LL mixed({{"register", {{1, 1}}}, {"block", {{0, 1}}}}, {{"dim0", 2}, {"block", 2}});
  EXPECT_FALSE(mixed.quotient({"block"}).has_value());
}

TEST(LinearLayoutAlgebra, FreeVariableMasks) {
  // lane bits 0, 1 replicate; warp bit 1 repeats lane bit 2.
  LL l({{"lane", {{0}, {0}, {1}, {2}, {4}}}, {"warp", {{8}, {1}}}},
       {{"dim0", 16}});
  auto masks = l.getFreeVariableMasks();
  EXPECT_EQ(masks["lane"], 0b00011);
  EXPECT_EQ(masks["warp"], 0b10);
}

TEST(LinearLayoutAlgebra, NumConsecutiveInOut) {
  EXPECT_EQ(LL::coalesced({64, 32}, 16, 4, 1).getNumConsecutiveInOut(), 8);
  EXPECT_EQ(LL::mmaAccumulator({16, 8}, 1, 1).getNumConsecutiveInOut(), 2);
}

//===----------------------------------------------------------------------===//
// Named layouts against their definitions
//===----------------------------------------------------------------------===//

TEST(NamedLayouts, SwizzledSharedMatchesItsFormula) {
  // Element (r, c) sits at r * 64 + ((c / 8) ^ ((r / 2) % 4)) * 8 + c % 8.
  LL s = LL::sharedSwizzled({32, 64}, {1, 0}, 8, 2, 4);
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 64; ++c) {
      int64_t off = r * 64 + (((c / 8) ^ ((r / 2) % 4)) * 8) + c % 8;
      EXPECT_EQ(s.apply({{"offset", off}}),
                (LL::NamedValues{{"dim0", r}, {"dim1", c}}));
    }
  EXPECT_TRUE(s.isInvertible());
}

TEST(NamedLayouts, NVMMASwizzlesMatchTMA) {
  // 128-byte swizzle, bf16: 16-byte chunk j of row r is stored at j ^ (r % 8).
  LL s128 = LL::sharedNVMMA({16, 64}, {1, 0}, 16, 128);
  LL s64 = LL::sharedNVMMA({16, 32}, {1, 0}, 16, 64);
  LL s32 = LL::sharedNVMMA({16, 16}, {1, 0}, 16, 32);
  for (int64_t r = 0; r < 16; ++r) {
    for (int64_t c = 0; c < 64; ++c)
      EXPECT_EQ(s128.apply({{"offset", r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8}}),
                (LL::NamedValues{{"dim0", r}, {"dim1", c}}));
    for (int64_t c = 0; c < 32; ++c)
      EXPECT_EQ(s64.apply({{"offset", r * 32 + ((c / 8) ^ ((r / 2) % 4)) * 8 + c % 8}}),
                (LL::NamedValues{{"dim0", r}, {"dim1", c}}));
    for (int64_t c = 0; c < 16; ++c)
      EXPECT_EQ(s32.apply({{"offset", r * 16 + ((c / 8) ^ ((r / 4) % 2)) * 8 + c % 8}}),
                (LL::NamedValues{{"dim0", r}, {"dim1", c}}));
  }
  // A 128-column bf16 tile is two 64-column atoms, the second after all rows.
  LL wide = LL::sharedNVMMA({8, 128}, {1, 0}, 16, 128);
  EXPECT_EQ(wide.apply({{"offset", 8 * 64}}),
            (LL::NamedValues{{"dim0", 0}, {"dim1", 64}}));
}

TEST(NamedLayouts, WgmmaAccumulatorMatchesPtx) {
  // wgmma m64nN D fragment: warp w of the group holds rows 16w..16w+15;
  // d[i] is at row 16w + g + 8 ((i >> 1) & 1), col 8 (i >> 2) + 2t + (i & 1).
  LL l = LL::wgmmaAccumulator({64, 32}, 1);
  ASSERT_EQ(l.getNumRegisters(), 16);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t i = 0; i < 16; ++i) {
        int64_t g = lane / 4, t = lane % 4;
        EXPECT_EQ(l.apply(i, lane, w),
                  (Coords{16 * w + g + 8 * ((i >> 1) & 1),
                          8 * (i >> 2) + 2 * t + (i & 1)}));
      }
}

TEST(NamedLayouts, WgmmaRegisterAMatchesPtx) {
  LL l = LL::wgmmaOperandA({64, 16}, 1);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t i = 0; i < 8; ++i) {
        int64_t g = lane / 4, t = lane % 4;
        EXPECT_EQ(l.apply(i, lane, w),
                  (Coords{16 * w + g + 8 * ((i >> 1) & 1),
                          2 * t + (i & 1) + 8 * (i >> 2)}));
      }
}

TEST(NamedLayouts, WgmmaAccumulatorFeedsRegisterA) {
  // Attention's P·V: the first MMA's accumulator (M x N, f32), cast to 16
  // bits, is the second's register A operand (M x K with K = N). The two
  // layouts are the same map, so no register moves between the MMAs (f32
  // pairs become packed 16-bit pairs in place): every thread's register r
  // holds the same element in both.
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{
           {64, 16}, {64, 32}, {64, 64}, {64, 128}, {128, 64}, {128, 128}}) {
    int groups = int(m / 64);
    LL acc = LL::wgmmaAccumulator({m, n}, groups);
    LL a = LL::wgmmaOperandA({m, n}, groups);
    EXPECT_EQ(acc, a) << m << "x" << n;
    std::optional<LL> moves = acc.invertAndCompose(a);
    ASSERT_TRUE(moves.has_value());
    for (int64_t w = 0; w < 4 * groups; ++w)
      for (int64_t lane = 0; lane < 32; lane += 5)
        for (int64_t r = 0; r < acc.getNumRegisters(); ++r) {
          LL::NamedValues in = {{"register", r}, {"lane", lane}, {"warp", w}};
          EXPECT_EQ(moves->apply(in), in) << m << "x" << n;
        }
  }
}

TEST(NamedLayouts, WgmmaRegisterA8BitMatchesPtx) {
  // m64nNk32 with 8-bit A: register i holds bytes 4t..4t+3 (i even) or
  // 16+4t..16+4t+3 (i odd) of rows g (i % 4 < 2) and g + 8 of each k32.
  LL l = LL::wgmmaOperandA({64, 32}, 1, 1, 8);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t i = 0; i < 16; ++i) {
        int64_t g = lane / 4, t = lane % 4, reg = i / 4, byte = i % 4;
        EXPECT_EQ(l.apply(i, lane, w),
                  (Coords{16 * w + g + 8 * (reg & 1),
                          16 * (reg >> 1) + 4 * t + byte}));
      }
}

TEST(NamedLayouts, Fp8AccumulatorFeedsRegisterAWithKeysRenamed) {
  // fp8 attention's P·V: the accumulator of Q·Kᵀ gives thread t keys
  // 8j + 2t + {0, 1} of each 32, 8-bit wgmma's A wants 4t + {0..3} and
  // 16 + 4t + {0..3}. Not the same map (lanes would move) ...
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{
           {64, 32}, {64, 128}, {128, 128}}) {
    int groups = int(m / 64);
    LL acc = LL::wgmmaAccumulator({m, n}, groups);
    LL a = LL::wgmmaOperandA({m, n}, groups, 1, 8);
    EXPECT_NE(acc, a);
    // ... but P with its keys (k3 k2 k1 k0) renamed (k2 k1 k3 k0) (examples/
    // attention_fp8.mlir's reshape [m, n/16, 2, 4, 2], transpose
    // [0, 1, 3, 2, 4], reshape back) holds in each thread exactly the
    // elements A's layout wants there: a permutation of its registers.
    LL renamed = acc.reshape({m, n / 16, 2, 4, 2})
                     .transpose({0, 1, 3, 2, 4})
                     .reshape({m, n});
    std::optional<LL> moves = a.invertAndCompose(renamed);
    ASSERT_TRUE(moves.has_value()) << m << "x" << n;
    for (int64_t w = 0; w < 4 * groups; ++w)
      for (int64_t lane = 0; lane < 32; lane += 5)
        for (int64_t r = 0; r < a.getNumRegisters(); ++r) {
          LL::NamedValues in = {{"register", r}, {"lane", lane}, {"warp", w}};
          for (auto &[name, value] : moves->apply(in))
            if (name != "register")
              EXPECT_EQ(value, name == "lane" ? lane : w) << m << "x" << n;
        }
  }
}

TEST(NamedLayouts, WgmmaWarpGroupsSplitN) {
  // Warpgroups stack along M while M has 64 rows for each, then split N.
  using Split = std::optional<std::pair<int, int>>;
  EXPECT_EQ(LL::wgmmaWarpGroups(128, 256, 8), Split({2, 1}));
  EXPECT_EQ(LL::wgmmaWarpGroups(64, 256, 8), Split({1, 2}));
  EXPECT_EQ(LL::wgmmaWarpGroups(128, 64, 16), Split({2, 2}));
  EXPECT_EQ(LL::wgmmaWarpGroups(192, 64, 8), Split({1, 2}));
  EXPECT_EQ(LL::wgmmaWarpGroups(64, 8, 8), std::nullopt); // 4 columns each
  EXPECT_EQ(LL::wgmmaWarpGroups(32, 64, 4), std::nullopt);
  EXPECT_EQ(LL::wgmmaWarpGroups(64, 64, 6), std::nullopt);
  // Past 256 columns only where each warpgroup's share is at most 256
  // (MLA's 64x512 output: m64n256 on each of two).
  EXPECT_EQ(LL::wgmmaWarpGroups(64, 512, 8), Split({1, 2}));
  EXPECT_EQ(LL::wgmmaWarpGroups(64, 512, 4), std::nullopt);
  EXPECT_EQ(LL::wgmmaWarpGroups(128, 512, 8), std::nullopt);
  // Warpgroup g of a 64x128 tile split in two holds columns 64g..64g+63 in
  // the registers warpgroup 0 holds columns 0..63 in: d[i] of its m64n64.
  LL acc = LL::wgmmaAccumulator({64, 128}, 1, 2);
  ASSERT_EQ(acc.getNumRegisters(), 32);
  EXPECT_TRUE(acc.isSurjective());
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t lane = 0; lane < 32; lane += 3)
      for (int64_t i = 0; i < 32; ++i) {
        int64_t g = lane / 4, t = lane % 4;
        EXPECT_EQ(acc.apply(i, lane, w),
                  (Coords{16 * (w % 4) + g + 8 * ((i >> 1) & 1),
                          64 * (w / 4) + 8 * (i >> 2) + 2 * t + (i & 1)}));
      }
  // Both warpgroups hold all of A (their warp bit is zero).
  LL a = LL::wgmmaOperandA({64, 32}, 1, 2);
  for (int64_t lane = 0; lane < 32; lane += 7)
    for (int64_t r = 0; r < a.getNumRegisters(); ++r)
      EXPECT_EQ(a.apply(r, lane, 1), a.apply(r, lane, 5));
}

TEST(NamedLayouts, TensorMemory32x32b) {
  // Warp w, lane l reads TMEM lane 32 w + l; register r is column r.
  LL l = LL::tmem32x32b({128, 64}, 4);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < 64; r += 7)
        EXPECT_EQ(l.apply(r, lane, w), (Coords{32 * w + lane, r}));
  LL eight = LL::tmem32x32b({128, 64}, 8);
  EXPECT_EQ(eight.getNumRegisters(), 32);
  EXPECT_EQ(eight.apply(0, 0, 4), (Coords{0, 16}));
  EXPECT_TRUE(eight.isSurjective());
  // Wider tiles: the second warpgroup holds every other 16-column run, so
  // each chunk of 32 columns or more is the same registers of both.
  LL wide = LL::tmem32x32b({128, 256}, 8);
  EXPECT_EQ(wide.getNumRegisters(), 128);
  EXPECT_EQ(wide.apply(15, 0, 0), (Coords{0, 15}));
  EXPECT_EQ(wide.apply(16, 0, 0), (Coords{0, 32}));
  EXPECT_EQ(wide.apply(0, 3, 5), (Coords{32 + 3, 16}));
  EXPECT_EQ(wide.apply(64 + 1, 0, 4), (Coords{0, 128 + 16 + 1}));
  EXPECT_TRUE(wide.isSurjective());
}

TEST(NamedLayouts, TensorMemory16x256b) {
  LL l = LL::tmem16x256b({128, 8}, 4);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(l.apply(i, lane, 1),
                (Coords{32 + lane / 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1)}));
  EXPECT_EQ(l.apply(4, 0, 0), (Coords{16, 0}));
  EXPECT_TRUE(l.isSurjective());
}

/// The (TMEM lane, column) register j of lane t of warp w holds under
/// the tcgen05.ld/st fragments (PTX ISA 9.7.16.2.3.1) for a 128x64 f32
/// tile over 4 warps: each warp's quadrant of 32 lanes, a 16-lane shape
/// twice (the second access 16 lanes down).
TEST(NamedLayouts, TensorMemory16LaneShapesFollowThePtxFragments) {
  struct Case {
    const char *name;
    LL layout;
    int64_t regsPerRep, colsPerRep;
    Coords (*at)(int64_t t, int64_t j);
  };
  std::vector<Case> cases = {
      {"16x64b", LL::tmem16x64b({128, 64}, 4), 1, 2,
       [](int64_t t, int64_t j) {
         return Coords{t / 4 + 8 * (t % 2), (t / 2) % 2 + 2 * j};
       }},
      {"16x128b", LL::tmem16x128b({128, 64}, 4), 2, 4,
       [](int64_t t, int64_t j) {
         return Coords{t / 4 + 8 * (j % 2), t % 4 + 4 * (j / 2)};
       }},
      {"16x256b", LL::tmem16x256b({128, 64}, 4), 4, 8,
       [](int64_t t, int64_t j) {
         return Coords{t / 4 + 8 * ((j / 2) % 2), 2 * (t % 4) + j % 2 + 8 * (j / 4)};
       }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(c.layout.isSurjective());
    // 64 columns: 64 / colsPerRep repetitions a half, two halves.
    int64_t perHalf = 64 / c.colsPerRep * c.regsPerRep;
    ASSERT_EQ(c.layout.getNumRegisters(), 2 * perHalf);
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t t = 0; t < 32; ++t)
        for (int64_t j = 0; j < perHalf; ++j) {
          Coords want = c.at(t, j);
          want[0] += 32 * w;
          // Register j of the first access; the layout numbers registers
          // its own way, so find the one at the coordinates of thread 0.
          auto r = c.layout.findRegister(
              {c.at(0, j)[0], c.at(0, j)[1]});
          ASSERT_TRUE(r.has_value());
          EXPECT_EQ(c.layout.apply(*r, t, w), want);
          auto r2 = c.layout.findRegister({c.at(0, j)[0] + 16, c.at(0, j)[1]});
          ASSERT_TRUE(r2.has_value());
          want[0] += 16;
          EXPECT_EQ(c.layout.apply(*r2, t, w), want);
        }
  }
}

//===----------------------------------------------------------------------===//
// Properties over random layouts
//===----------------------------------------------------------------------===//

/// A random layout from input dims `ins` (sizes in bits) onto `outs`.
LL randomLayout(std::mt19937 &rng, const LL::NamedSizes &outs,
                const std::vector<std::pair<std::string, unsigned>> &ins) {
  LL::NamedBases bases;
  for (auto &[name, bits] : ins) {
    Bases b;
    for (unsigned i = 0; i < bits; ++i) {
      Coords c;
      for (auto &[on, size] : outs)
        c.push_back(int64_t(rng() % size));
      b.push_back(c);
    }
    bases.push_back({name, b});
  }
  return LL(bases, outs);
}

/// A random bijection onto `outs` from one input dim `in`.
LL randomBijection(std::mt19937 &rng, const LL::NamedSizes &outs,
                   const std::string &in) {
  unsigned bits = 0;
  const int64_t total = LL({}, outs).getTotalOutDimSize();
  while ((int64_t(1) << bits) < total)
    ++bits;
  while (true) {
    LL l = randomLayout(rng, outs, {{in, bits}});
    if (l.isInvertible())
      return l;
  }
}

TEST(LinearLayoutProperties, CompositionIsAssociative) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    LL a = randomLayout(rng, {{"x", 8}, {"y", 4}}, {{"register", 3}, {"lane", 2}});
    LL b = randomLayout(rng, {{"p", 16}}, {{"x", 3}, {"y", 2}});
    LL c = randomLayout(rng, {{"q", 4}, {"r", 8}}, {{"p", 4}});
    EXPECT_EQ(a.compose(b).compose(c), a.compose(b.compose(c)));
  }
}

TEST(LinearLayoutProperties, InvertAndComposeThenComposeGivesBackTheOriginal) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 200; ++iter) {
    LL::NamedSizes outs{{"dim0", 16}, {"dim1", 8}};
    LL d = randomLayout(rng, outs, {{"register", 3}, {"lane", 5}, {"warp", 2}});
    LL s = randomBijection(rng, outs, "offset");
    std::optional<LL> c = d.invertAndCompose(s);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->compose(s), d);
  }
}

TEST(LinearLayoutProperties, ReshapeRoundTrips) {
  std::mt19937 rng(13);
  for (int iter = 0; iter < 200; ++iter) {
    LL l = randomLayout(rng, {{"dim0", 4}, {"dim1", 16}, {"dim2", 2}},
                        {{"register", 2}, {"lane", 5}});
    EXPECT_EQ(l.reshapeOuts({{"dim0", 128}}).reshapeOuts(
                  {{"dim0", 4}, {"dim1", 16}, {"dim2", 2}}),
              l);
    EXPECT_EQ(l.flattenIns("t").reshapeIns({{"register", 4}, {"lane", 32}}), l);
  }
}

TEST(LinearLayoutProperties, InverseOfABijectionIsTwoSided) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 100; ++iter) {
    LL s = randomBijection(rng, {{"dim0", 8}, {"dim1", 16}}, "offset");
    LL inv = s.invert();
    for (int64_t o = 0; o < 128; ++o) {
      auto c = s.apply({{"offset", o}});
      EXPECT_EQ(inv.apply(c), (LL::NamedValues{{"offset", o}}));
    }
  }
}

} // namespace
