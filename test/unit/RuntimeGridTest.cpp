// Grid rules: parsing and evaluating the `grid` expressions of docs/BUNDLE.md.
#include "RuntimeTestUtil.h"

#include <random>

using namespace tilec_test;

namespace {

// A kernel with params: 0 tensor t (rank 3), 1 scalar n i32, 2 scalar m i64,
// 3 scalar f f32, and the given grid expressions.
std::string grid_meta(const std::string& x, const std::string& y = "1",
                      const std::string& z = "1", const std::string& cluster = "1 1 1") {
  return "tilec-bundle 1\narch sm_90a\nkernel k\nthreads 32\ncluster " + cluster + "\ngrid " +
         x + " " + y + " " + z +
         "\n"
         "param tensor t f16 3 shape ? ? ? strides ? ? ? align 2\n"
         "param scalar n i32\n"
         "param scalar m i64\n"
         "param scalar f f32\n"
         "end\n";
}

std::vector<tilec_arg> grid_args(int64_t d0, int64_t d1, int64_t d2, int64_t n, int64_t m) {
  return {tensor_arg(0x1000, TILEC_DTYPE_F16, {d0, d1, d2}), int_arg(TILEC_DTYPE_I32, n),
          int_arg(TILEC_DTYPE_I64, m), float_arg(TILEC_DTYPE_F32, 0.5)};
}

struct Loaded {
  BundlePtr bundle;
  tilec_kernel* kernel = nullptr;
};

Loaded load_grid(const std::string& x, const std::string& y = "1", const std::string& z = "1",
                 const std::string& cluster = "1 1 1") {
  Loaded l;
  l.bundle = load_ok(make_bundle(grid_meta(x, y, z, cluster)));
  if (l.bundle) {
    EXPECT_TRUE(IsOk(tilec_bundle_get_kernel(l.bundle.get(), "k", &l.kernel)));
  }
  return l;
}

// Evaluates x (y = z = 1) for the given args; returns -1 on error.
int64_t eval_x(const std::string& x, const std::vector<tilec_arg>& args) {
  Loaded l = load_grid(x);
  if (!l.kernel) return -1;
  uint32_t grid[3] = {0, 0, 0};
  tilec_status s = tilec_kernel_grid(l.kernel, args.data(), args.size(), grid);
  if (s) {
    ADD_FAILURE() << x << ": " << tilec_status_message(s);
    tilec_status_free(s);
    return -1;
  }
  return grid[0];
}

::testing::AssertionResult grid_error(const std::string& x, const std::vector<tilec_arg>& args,
                                      std::initializer_list<const char*> parts,
                                      const std::string& y = "1") {
  Loaded l = load_grid(x, y);
  if (!l.kernel) return ::testing::AssertionFailure() << "did not load";
  uint32_t grid[3];
  return IsError(tilec_kernel_grid(l.kernel, args.data(), args.size(), grid),
                 TILEC_ERROR_INVALID_ARGUMENT, parts);
}

}  // namespace

TEST(RuntimeGrid, Literals) {
  auto args = grid_args(1, 1, 1, 1, 1);
  EXPECT_EQ(eval_x("1", args), 1);
  EXPECT_EQ(eval_x("2147483647", args), 2147483647);
  EXPECT_EQ(eval_x("add(-5,6)", args), 1);
}

TEST(RuntimeGrid, DimReadsExtentsOfTensorParams) {
  auto args = grid_args(7, 11, 13, 0, 0);
  EXPECT_EQ(eval_x("dim(0,0)", args), 7);
  EXPECT_EQ(eval_x("dim(0,1)", args), 11);
  EXPECT_EQ(eval_x("dim(0,2)", args), 13);
}

TEST(RuntimeGrid, ArgReadsIntegerScalars) {
  auto args = grid_args(1, 1, 1, 42, 5000000000);
  EXPECT_EQ(eval_x("arg(1)", args), 42);
  EXPECT_EQ(eval_x("div(arg(2),5)", args), 1000000000);
}

TEST(RuntimeGrid, CdivRoundsUp) {
  auto args = grid_args(1000, 1024, 1025, 0, 0);
  EXPECT_EQ(eval_x("cdiv(dim(0,0),1024)", args), 1);
  EXPECT_EQ(eval_x("cdiv(dim(0,1),1024)", args), 1);
  EXPECT_EQ(eval_x("cdiv(dim(0,2),1024)", args), 2);
  EXPECT_EQ(eval_x("cdiv(1,1)", args), 1);
}

TEST(RuntimeGrid, ArithmeticAndMinMax) {
  auto args = grid_args(100, 30, 1, 3, 0);
  EXPECT_EQ(eval_x("add(dim(0,0),dim(0,1))", args), 130);
  EXPECT_EQ(eval_x("sub(dim(0,0),dim(0,1))", args), 70);
  EXPECT_EQ(eval_x("mul(dim(0,1),arg(1))", args), 90);
  EXPECT_EQ(eval_x("div(dim(0,0),dim(0,1))", args), 3);
  EXPECT_EQ(eval_x("min(dim(0,0),dim(0,1))", args), 30);
  EXPECT_EQ(eval_x("max(dim(0,0),dim(0,1))", args), 100);
  EXPECT_EQ(eval_x("mul(cdiv(dim(0,0),16),cdiv(dim(0,1),16))", args), 7 * 2);
  EXPECT_EQ(eval_x("min(132,mul(cdiv(dim(0,0),8),cdiv(dim(0,1),8)))", args), 13 * 4);
}

TEST(RuntimeGrid, DivIsFloorAndCdivIsCeilingForNegatives) {
  auto args = grid_args(1, 1, 1, 0, 0);
  EXPECT_EQ(eval_x("add(div(-7,2),10)", args), 6);   // floor(-3.5) = -4
  EXPECT_EQ(eval_x("add(cdiv(-7,2),10)", args), 7);  // ceil(-3.5) = -3
  EXPECT_EQ(eval_x("add(div(7,-2),10)", args), 6);
  EXPECT_EQ(eval_x("add(cdiv(7,-2),10)", args), 7);
  EXPECT_EQ(eval_x("div(-8,-2)", args), 4);
  EXPECT_EQ(eval_x("cdiv(-7,-2)", args), 4);
}

TEST(RuntimeGrid, ThreeAxes) {
  Loaded l = load_grid("cdiv(dim(0,2),64)", "cdiv(dim(0,1),128)", "dim(0,0)");
  ASSERT_NE(l.kernel, nullptr);
  auto args = grid_args(4, 1000, 4096, 0, 0);
  uint32_t grid[3];
  ASSERT_TRUE(IsOk(tilec_kernel_grid(l.kernel, args.data(), args.size(), grid)));
  EXPECT_EQ(grid[0], 64u);
  EXPECT_EQ(grid[1], 8u);
  EXPECT_EQ(grid[2], 4u);
}

TEST(RuntimeGrid, ResultBelowOneIsAnError) {
  EXPECT_TRUE(grid_error("cdiv(dim(0,0),1024)", grid_args(0, 1, 1, 0, 0),
                         {"tilec_kernel_grid: kernel 'k' grid x 'cdiv(dim(0,0),1024)'",
                          "evaluates to 0 (must be in 1..2147483647)"}));
  EXPECT_TRUE(grid_error("sub(1,5)", grid_args(1, 1, 1, 0, 0), {"evaluates to -4"}));
}

TEST(RuntimeGrid, ResultAboveLimitIsAnError) {
  EXPECT_TRUE(grid_error("2147483648", grid_args(1, 1, 1, 0, 0),
                         {"evaluates to 2147483648 (must be in 1..2147483647)"}));
  EXPECT_TRUE(grid_error("1", grid_args(1, 70000, 1, 0, 0),
                         {"grid y 'dim(0,1)'", "evaluates to 70000 (must be in 1..65535)"},
                         "dim(0,1)"));
}

TEST(RuntimeGrid, DivisionByZeroIsAnError) {
  EXPECT_TRUE(grid_error("cdiv(5,arg(1))", grid_args(1, 1, 1, 0, 0),
                         {"division by zero in cdiv(5,0)"}));
  EXPECT_TRUE(grid_error("div(5,arg(1))", grid_args(1, 1, 1, 0, 0),
                         {"division by zero in div(5,0)"}));
}

TEST(RuntimeGrid, OverflowIsAnError) {
  EXPECT_TRUE(grid_error("mul(arg(2),arg(2))", grid_args(1, 1, 1, 0, int64_t{1} << 40),
                         {"overflow in mul(1099511627776,1099511627776)"}));
  EXPECT_TRUE(grid_error("add(9223372036854775807,1)", grid_args(1, 1, 1, 0, 0),
                         {"overflow in add"}));
  EXPECT_TRUE(grid_error("sub(-9223372036854775808,1)", grid_args(1, 1, 1, 0, 0),
                         {"overflow in sub"}));
  EXPECT_TRUE(grid_error("div(-9223372036854775808,-1)", grid_args(1, 1, 1, 0, 0),
                         {"overflow in div"}));
}

TEST(RuntimeGrid, ArgumentOfTheWrongKindIsAnError) {
  auto args = grid_args(8, 1, 1, 4, 0);
  std::swap(args[0], args[1]);  // a scalar where the rule reads dim(0,0)
  EXPECT_TRUE(grid_error("dim(0,0)", args, {"dim(0,0): argument 0 is not a tensor"}));
  args = grid_args(8, 1, 1, 4, 0);
  args[1] = float_arg(TILEC_DTYPE_F32, 4.0);
  EXPECT_TRUE(grid_error("arg(1)", args, {"arg(1): argument 1 is not an integer scalar"}));
  args = grid_args(8, 1, 1, 4, 0);
  args[0].rank = 2;
  EXPECT_TRUE(grid_error("dim(0,2)", args, {"dim(0,2): argument 0 has rank 2"}));
}

TEST(RuntimeGrid, WrongArgumentCount) {
  auto args = grid_args(8, 1, 1, 4, 0);
  args.pop_back();
  EXPECT_TRUE(grid_error("1", args, {"kernel 'k' expects 4 arguments (t, n, m, f), got 3"}));
}

TEST(RuntimeGrid, ParseErrors) {
  struct Case {
    const char* expr;
    const char* message;
  } cases[] = {
      {"cdiv(dim(0,0)", "expected ',' but the expression ended"},
      {"cdiv(1,2", "expected ')' but the expression ended"},
      {"cdiv(1,2))", "unexpected ')' after the expression"},
      {"cdiv(1;2)", "expected ',', found ';'"},
      {"max(1)", "expected ','"},
      {"dim(0)", "expected ','"},
      {"dim(x,0)", "expected a non-negative integer literal (parameter index)"},
      {"dim(0,-1)", "expected a non-negative integer literal (dimension)"},
      {"arg(add(1,2))", "expected a non-negative integer literal (parameter index)"},
      {"Cdiv(1,2)", "unexpected character 'C'"},
      {"foo(1,2)", "unknown function 'foo'"},
      {"-", "expected a digit"},
      {"99999999999999999999", "integer literal out of range"},
      {"9223372036854775808", "integer literal out of range"},
      {"add(1,2)x", "unexpected 'x' after the expression"},
  };
  for (const Case& c : cases) {
    std::string bytes = make_bundle(grid_meta(c.expr));
    EXPECT_TRUE(IsBadBundle(bytes, {"metadata line 6: grid x: bad grid expression", c.expr,
                                    c.message}))
        << c.expr;
  }
}

TEST(RuntimeGrid, DeepNestingIsRejectedNotAStackOverflow) {
  std::string e;
  for (int i = 0; i < 10000; ++i) e += "add(1,";
  e += "1";
  for (int i = 0; i < 10000; ++i) e += ")";
  EXPECT_TRUE(IsBadBundle(make_bundle(grid_meta(e)), {"expression nested too deeply"}));
  // 60 levels are fine.
  std::string ok;
  for (int i = 0; i < 60; ++i) ok += "max(1,";
  ok += "7";
  for (int i = 0; i < 60; ++i) ok += ")";
  EXPECT_EQ(eval_x(ok, grid_args(1, 1, 1, 0, 0)), 7);
}

TEST(RuntimeGrid, ExtremeLiteralsParse) {
  EXPECT_EQ(eval_x("max(1,-9223372036854775808)", grid_args(1, 1, 1, 0, 0)), 1);
  EXPECT_EQ(eval_x("min(1,9223372036854775807)", grid_args(1, 1, 1, 0, 0)), 1);
}

// Random expressions over the grammar's alphabet either parse or are rejected
// with BAD_BUNDLE; evaluating the ones that parse never crashes.
TEST(RuntimeGrid, RandomExpressionsNeverCrash) {
  static const char* kTokens[] = {"dim(", "arg(", "cdiv(", "add(", "sub(", "mul(", "div(",
                                  "min(", "max(", "(",    ")",    ",",    "0",    "1",
                                  "2",    "3",    "-",    "9999999999", "x"};
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string e;
    const int len = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < len; ++i) e += kTokens[rng() % (sizeof(kTokens) / sizeof(kTokens[0]))];
    const std::string bytes = make_bundle(grid_meta(e));
    tilec_bundle* b = nullptr;
    tilec_status s = tilec_bundle_load_memory(bytes.data(), bytes.size(), &b);
    if (s) {
      EXPECT_EQ(tilec_status_code(s), TILEC_ERROR_BAD_BUNDLE) << e;
      tilec_status_free(s);
      continue;
    }
    ++parsed;
    tilec_kernel* k = nullptr;
    EXPECT_TRUE(IsOk(tilec_bundle_get_kernel(b, "k", &k)));
    auto args = grid_args(static_cast<int64_t>(rng() % 5), 3, 1, static_cast<int64_t>(rng() % 3) - 1, 0);
    uint32_t grid[3];
    tilec_status g = tilec_kernel_grid(k, args.data(), args.size(), grid);
    if (g) {
      EXPECT_EQ(tilec_status_code(g), TILEC_ERROR_INVALID_ARGUMENT) << e;
    }
    tilec_status_free(g);
    tilec_bundle_free(b);
  }
  EXPECT_GT(parsed, 100);  // the generator does produce valid expressions
}
