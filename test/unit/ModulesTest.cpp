// How tilec puts a bundle's kernels into machine-code modules
// (tilec::assignModules): families whole, in order, at most the asked
// number of kernels a module; a larger family cut into near-equal runs.
#include "tilec/Target/Target.h"

#include <gtest/gtest.h>

using namespace tilec;

namespace {

KernelInfo kernel(std::string name, std::string plain = "",
                  std::vector<std::string> variants = {}) {
  KernelInfo k;
  k.name = std::move(name);
  k.plainVariant = std::move(plain);
  k.variants = std::move(variants);
  return k;
}

std::vector<unsigned> modulesOf(const std::vector<KernelInfo> &kernels) {
  std::vector<unsigned> m;
  for (const KernelInfo &k : kernels)
    m.push_back(k.module);
  return m;
}

} // namespace

TEST(AssignModules, FixedSizeGroupsInOrder) {
  std::vector<KernelInfo> ks;
  for (int i = 0; i < 7; ++i)
    ks.push_back(kernel("k" + std::to_string(i)));
  EXPECT_EQ(assignModules(ks, 3), 3u);
  EXPECT_EQ(modulesOf(ks), (std::vector<unsigned>{0, 0, 0, 1, 1, 1, 2}));
  EXPECT_EQ(assignModules(ks, 7), 1u);
  EXPECT_EQ(modulesOf(ks), std::vector<unsigned>(7, 0));
  EXPECT_EQ(assignModules(ks, 0), 1u); // 0: one module
  EXPECT_EQ(modulesOf(ks), std::vector<unsigned>(7, 0));
  EXPECT_EQ(assignModules(ks, 1), 7u);
  EXPECT_EQ(modulesOf(ks), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(AssignModules, FamiliesStayWhole) {
  // gemm's family: gemm, its variant gemm__64x64 (listed later) and their
  // plain twin gemm__plain; a, b and c alone.
  std::vector<KernelInfo> ks{
      kernel("a"),
      kernel("gemm", "gemm__plain", {"gemm__64x64"}),
      kernel("b"),
      kernel("gemm__plain"),
      kernel("c"),
      kernel("gemm__64x64", "gemm__plain"),
  };
  EXPECT_EQ(assignModules(ks, 4), 2u);
  // a, gemm, gemm__plain, gemm__64x64 | b, c.
  EXPECT_EQ(modulesOf(ks), (std::vector<unsigned>{0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(assignModules(ks, 3), 3u);
  // a | gemm, gemm__plain, gemm__64x64 (4 > 3 with a) | b, c.
  EXPECT_EQ(modulesOf(ks), (std::vector<unsigned>{0, 1, 2, 1, 2, 1}));
}

TEST(AssignModules, LargerFamiliesAreCutIntoNearEqualRuns) {
  // An 11-kernel family (a GEMM's) and a kernel after it.
  std::vector<KernelInfo> ks{kernel("g", "g__plain")};
  for (int i = 0; i < 9; ++i) {
    ks.front().variants.push_back("g__" + std::to_string(i));
    ks.push_back(kernel("g__" + std::to_string(i), "g__plain"));
  }
  ks.push_back(kernel("g__plain"));
  ks.push_back(kernel("after"));
  // 11 > 8: two runs, 6 and 5 kernels in order; `after` in a module of its own.
  EXPECT_EQ(assignModules(ks, 8), 3u);
  EXPECT_EQ(modulesOf(ks),
            (std::vector<unsigned>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2}));
  // 11 > 4: three runs of 4, 4 and 3.
  EXPECT_EQ(assignModules(ks, 4), 4u);
  EXPECT_EQ(modulesOf(ks),
            (std::vector<unsigned>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3}));
  // One module asked for: one module.
  EXPECT_EQ(assignModules(ks, 0), 1u);
  EXPECT_EQ(modulesOf(ks), std::vector<unsigned>(12, 0));
}

TEST(AssignModules, NamesOutsideTheBundleAreIgnored) {
  std::vector<KernelInfo> ks{kernel("x", "missing", {"gone"}), kernel("y")};
  EXPECT_EQ(assignModules(ks, 1), 2u);
  EXPECT_EQ(modulesOf(ks), (std::vector<unsigned>{0, 1}));
  std::vector<KernelInfo> none;
  EXPECT_EQ(assignModules(none, 4), 1u);
}

TEST(AssignModules, LazyMembersAreModulesOfTheirOwn) {
  // gemm (two members, a twin), then two small kernels. markLazyMembers
  // marks what the compiler derived (members, twin); each is a module after
  // its family's, and the next kernels start a module of their own.
  std::vector<KernelInfo> ks{
      kernel("gemm", "gemm__plain", {"gemm__a", "gemm__b"}),
      kernel("gemm__a", "gemm__plain"),
      kernel("gemm__plain"),
      kernel("gemm__b", "gemm__plain"),
      kernel("x"),
      kernel("y"),
  };
  markLazyMembers(ks);
  std::vector<bool> lazy;
  for (const KernelInfo &k : ks)
    lazy.push_back(k.lazy);
  EXPECT_EQ(lazy, (std::vector<bool>{false, true, true, true, false, false}));
  EXPECT_EQ(assignModules(ks, 8), 5u);
  // gemm | gemm__a | gemm__plain | gemm__b | x, y.
  EXPECT_EQ(modulesOf(ks), (std::vector<unsigned>{0, 1, 2, 3, 4, 4}));
  // One module asked for: one module, every kernel assembled.
  EXPECT_EQ(assignModules(ks, 0), 1u);
  EXPECT_EQ(modulesOf(ks), std::vector<unsigned>(6, 0));
  for (const KernelInfo &k : ks)
    EXPECT_FALSE(k.lazy);
}
