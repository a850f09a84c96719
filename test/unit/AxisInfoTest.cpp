//===- AxisInfoTest.cpp - the contiguity analysis on small programs -------===//
//
// Each case parses a kernel body and checks AxisInfo of the value defined
// by the op tagged `{tag}`: contiguity, constancy and divisibility per dim.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/AxisInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tilec::tile;

namespace {

constexpr int64_t kAny = int64_t(1) << 30; // divisibility of zero

class AxisInfoTest : public ::testing::Test {
protected:
  AxisInfoTest() {
    ctx.loadDialect<TileDialect, arith::ArithDialect, func::FuncDialect>();
  }

  /// AxisInfo of the value tagged in `body`, the body of a function with
  /// arguments %pid (i32) and %ids (!tile.tile<32xi32>).
  AxisInfo infoOf(const std::string &body) {
    std::string src = "func.func @f(%pid: i32, %ids: !tile.tile<32xi32>, "
                      "%n: i32) {\n" +
                      body + "\n  return\n}\n";
    module = parseSourceString<ModuleOp>(src, &ctx);
    EXPECT_TRUE(module) << src;
    Value tagged;
    module->walk([&](Operation *op) {
      if (op->hasAttr("tag"))
        tagged = op->getResult(0);
    });
    EXPECT_TRUE(tagged) << "no op tagged in\n" << src;
    return AxisInfo::get(tagged);
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

using V = std::vector<int64_t>;
V vec(const llvm::SmallVector<int64_t> &v) { return V(v.begin(), v.end()); }

TEST_F(AxisInfoTest, IotaIsOneAlignedRun) {
  AxisInfo a = infoOf("%i = tile.iota {tag} : !tile.tile<64xi32>");
  EXPECT_EQ(vec(a.contiguity), V{64});
  EXPECT_EQ(vec(a.constancy), V{1});
  EXPECT_EQ(vec(a.divisibility), V{kAny});
}

TEST_F(AxisInfoTest, OffsetByAMultipleKeepsRunsAndAlignment) {
  AxisInfo a = infoOf(R"(
  %c64 = arith.constant 64 : i32
  %o = arith.muli %pid, %c64 : i32
  %i = tile.iota : !tile.tile<64xi32>
  %s = tile.splat %o : i32 -> !tile.tile<64xi32>
  %x = arith.addi %i, %s {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(a.contiguity), V{64});
  EXPECT_EQ(vec(a.divisibility), V{64});
}

TEST_F(AxisInfoTest, UnknownOffsetKeepsRunsButNotAlignment) {
  AxisInfo a = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %s = tile.splat %pid : i32 -> !tile.tile<64xi32>
  %x = arith.addi %s, %i {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(a.contiguity), V{64});
  EXPECT_EQ(vec(a.divisibility), V{1});
}

TEST_F(AxisInfoTest, BroadcastColumnsAndRows) {
  AxisInfo cols = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %e = tile.expand_dims %i axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %b = tile.broadcast %e {tag} : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>)");
  EXPECT_EQ(vec(cols.contiguity), (V{1, 64}));
  EXPECT_EQ(vec(cols.constancy), (V{32, 1}));
  EXPECT_EQ(cols.divisibility[1], kAny);
  AxisInfo rows = infoOf(R"(
  %e = tile.expand_dims %ids axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %b = tile.broadcast %e {tag} : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>)");
  EXPECT_EQ(vec(rows.contiguity), (V{1, 1}));
  EXPECT_EQ(vec(rows.constancy), (V{1, 64}));
}

TEST_F(AxisInfoTest, MaskOfRowsIsConstantAlongColumns) {
  AxisInfo a = infoOf(R"(
  %e = tile.expand_dims %ids axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %b = tile.broadcast %e : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<32x64xi32>
  %m = arith.cmpi slt, %b, %nt {tag} : !tile.tile<32x64xi32>)");
  EXPECT_EQ(vec(a.constancy), (V{1, 64}));
  EXPECT_EQ(vec(a.contiguity), (V{1, 1}));
}

TEST_F(AxisInfoTest, ReshapeKeepsARowMaskConstantAlongColumns) {
  // A masked store of a 2-D tile into a 3-D view (O[h, rows, :]): the
  // mask reshaped to the view's rank stays constant along the columns, so
  // the store still goes in vectors.
  AxisInfo a = infoOf(R"(
  %e = tile.expand_dims %ids axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %b = tile.broadcast %e : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<32x64xi32>
  %m = arith.cmpi slt, %b, %nt : !tile.tile<32x64xi32>
  %r = tile.reshape %m {tag} : !tile.tile<32x64xi1> -> !tile.tile<1x32x64xi1>)");
  EXPECT_EQ(vec(a.constancy), (V{1, 1, 64}));
  EXPECT_EQ(vec(a.contiguity), (V{1, 1, 1}));
  // Rows merged into one dim: only the last dim, whose size stays, keeps
  // what it had.
  AxisInfo merged = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %e = tile.expand_dims %i axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %b = tile.broadcast %e : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  %r = tile.reshape %b {tag} : !tile.tile<32x64xi32> -> !tile.tile<2x16x64xi32>)");
  EXPECT_EQ(vec(merged.contiguity), (V{1, 1, 64}));
  EXPECT_EQ(vec(merged.constancy), (V{1, 1, 1}));
  AxisInfo flat = infoOf(R"(
  %e = tile.expand_dims %ids axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %b = tile.broadcast %e : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %r = tile.reshape %b {tag} : !tile.tile<32x64xi32> -> !tile.tile<2048xi32>)");
  EXPECT_EQ(vec(flat.constancy), V{1});
}

TEST_F(AxisInfoTest, ScaledIotaIsNotContiguous) {
  AxisInfo a = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %two = arith.constant dense<2> : !tile.tile<64xi32>
  %x = arith.muli %i, %two {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(a.contiguity), V{1});
  EXPECT_EQ(vec(a.constancy), V{1});
  // Not every value of iota is even before the product: only 2 is known.
  EXPECT_EQ(vec(a.divisibility), V{2});
}

TEST_F(AxisInfoTest, ShiftsAndUnitFactorsKeepWhatTheyCan) {
  AxisInfo same = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %one = arith.constant dense<1> : !tile.tile<64xi32>
  %x = arith.muli %one, %i {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(same.contiguity), V{64});
  AxisInfo shifted = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %c = arith.constant dense<3> : !tile.tile<64xi32>
  %x = arith.shli %i, %c {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(shifted.contiguity), V{1});
  EXPECT_EQ(vec(shifted.divisibility), V{8});
}

TEST_F(AxisInfoTest, SubtractingARunIsNotARun) {
  AxisInfo a = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %s = tile.splat %pid : i32 -> !tile.tile<64xi32>
  %x = arith.subi %s, %i {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(a.contiguity), V{1});
  AxisInfo b = infoOf(R"(
  %i = tile.iota : !tile.tile<64xi32>
  %c = arith.constant dense<8> : !tile.tile<64xi32>
  %x = arith.subi %i, %c {tag} : !tile.tile<64xi32>)");
  EXPECT_EQ(vec(b.contiguity), V{64});
  EXPECT_EQ(vec(b.divisibility), V{8});
}

TEST_F(AxisInfoTest, LoadedValuesAreUnknown) {
  AxisInfo a = infoOf(R"(
  %c1 = arith.constant dense<1> : !tile.tile<32xi32>
  %x = arith.addi %ids, %c1 {tag} : !tile.tile<32xi32>)");
  EXPECT_EQ(vec(a.contiguity), V{1});
  EXPECT_EQ(vec(a.constancy), V{1});
  EXPECT_EQ(vec(a.divisibility), V{1});
}

} // namespace
