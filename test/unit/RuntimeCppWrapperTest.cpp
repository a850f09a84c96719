// The header-only C++ wrapper (tilec/runtime.hpp).
#include "tilec/runtime.hpp"

#include "RuntimeTestUtil.h"

using tilec_test::gemm_meta;
using tilec_test::make_bundle;
using tilec_test::vector_add_meta;

TEST(RuntimeCpp, BundleAndKernelMetadata) {
  const std::string bytes = make_bundle(gemm_meta());
  tilec::Bundle b = tilec::Bundle::load_memory(bytes.data(), bytes.size());
  EXPECT_EQ(b.arch(), "sm_90a");
  EXPECT_TRUE(b.has_cubin());
  EXPECT_FALSE(b.has_ptx());
  EXPECT_EQ(b.kernel_names(), (std::vector<std::string>{"gemm", "tiny"}));
  tilec::Kernel k = b.kernel("gemm");
  EXPECT_EQ(k.name(), "gemm");
  EXPECT_EQ(k.threads(), 384u);
  EXPECT_EQ(k.smem(), 200000u);
  EXPECT_EQ(k.cluster(), (tilec::Grid{2, 1, 1}));
  EXPECT_EQ(k.grid_expr(1), "cdiv(dim(1,1),256)");
  std::vector<tilec::ParamInfo> params = k.params();
  ASSERT_EQ(params.size(), 5u);
  EXPECT_EQ(params[0].name, "a");
  EXPECT_TRUE(params[0].tma);
  EXPECT_EQ(params[0].shape, (std::vector<int64_t>{TILEC_DYNAMIC, 4096}));
  EXPECT_EQ(params[0].box, (std::vector<int32_t>{64, 64}));
  EXPECT_EQ(params[0].swizzle, 128);
  EXPECT_EQ(params[4].kind, TILEC_ARG_SCALAR);
  EXPECT_EQ(params[4].dtype, TILEC_DTYPE_BF16);
}

TEST(RuntimeCpp, ArgsGridAndPacking) {
  const std::string bytes = make_bundle(vector_add_meta());
  tilec::Bundle b = tilec::Bundle::load_memory(bytes.data(), bytes.size());
  tilec::Kernel k = b.kernel("vector_add");
  const uint64_t base = 0x10000;
  std::vector<tilec::Arg> args{tilec::Arg::tensor(base, TILEC_DTYPE_F32, {5000}),
                               tilec::Arg::tensor(base + 0x8000, TILEC_DTYPE_F32, {5000}),
                               tilec::Arg::tensor(base + 0x10000, TILEC_DTYPE_F32, {5000}),
                               tilec::Arg::f32(0.5f)};
  EXPECT_EQ(args[0].strides[0], 1);
  EXPECT_EQ(k.grid(args), (tilec::Grid{5, 1, 1}));
  k.validate(args);
  std::vector<uint8_t> packed = k.pack(args);
  EXPECT_EQ(packed.size(), 76u);

  tilec::Arg t = tilec::Arg::tensor(base, TILEC_DTYPE_F16, {2, 3, 4});
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.strides[0], 12);
  EXPECT_EQ(t.strides[1], 4);
  EXPECT_EQ(t.strides[2], 1);
  tilec::Arg s = tilec::Arg::tensor(base, TILEC_DTYPE_F16, {2, 3}, {1, 2});
  EXPECT_EQ(s.strides[0], 1);
  EXPECT_EQ(s.strides[1], 2);
}

TEST(RuntimeCpp, ErrorsAreExceptionsWithCodes) {
  const std::string bytes = make_bundle(vector_add_meta());
  tilec::Bundle b = tilec::Bundle::load_memory(bytes.data(), bytes.size());
  try {
    b.kernel("nope");
    FAIL() << "no exception";
  } catch (const tilec::Error& e) {
    EXPECT_EQ(e.code(), TILEC_ERROR_NOT_FOUND);
    EXPECT_NE(std::string(e.what()).find("no kernel 'nope'"), std::string::npos);
  }
  tilec::Kernel k = b.kernel("vector_add");
  std::vector<tilec::Arg> args{tilec::Arg::i32(3)};
  try {
    k.validate(args);
    FAIL() << "no exception";
  } catch (const tilec::Error& e) {
    EXPECT_EQ(e.code(), TILEC_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("expects 4 arguments"), std::string::npos);
  }
  EXPECT_THROW(tilec::Bundle::load_memory("junk", 4), tilec::Error);
  EXPECT_THROW(tilec::Arg::tensor(uint64_t{0}, TILEC_DTYPE_F32, std::vector<int64_t>{}), tilec::Error);
}
