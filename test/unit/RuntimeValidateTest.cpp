// Argument validation and parameter packing (the kernel ABI), without a driver.
#include "RuntimeTestUtil.h"

#include <cmath>
#include <limits>

using namespace tilec_test;

namespace {

struct Fixture {
  BundlePtr bundle;
  tilec_kernel* kernel = nullptr;
};

Fixture load_kernel(const std::string& meta, const char* name) {
  Fixture f;
  f.bundle = load_ok(make_bundle(meta));
  if (f.bundle) {
    EXPECT_TRUE(IsOk(tilec_bundle_get_kernel(f.bundle.get(), name, &f.kernel)));
  }
  return f;
}

::testing::AssertionResult invalid(const Fixture& f, const std::vector<tilec_arg>& args,
                                   std::initializer_list<const char*> parts) {
  return IsError(tilec_kernel_validate(f.kernel, args.data(), args.size()),
                 TILEC_ERROR_INVALID_ARGUMENT, parts);
}

// A kernel with one TMA tensor whose `align` (4) is below the TMA rule (16).
const char* tma_meta() {
  return "tilec-bundle 1\narch sm_90a\nkernel t\nthreads 128\ngrid 1 1 1\n"
         "param tensor t f32 2 shape ? ? strides ? ? align 4 tma 32 32 swizzle none fill zero\n"
         "end\n";
}

// One scalar of every dtype.
const char* scalars_meta() {
  return "tilec-bundle 1\narch sm_90a\nkernel s\nthreads 1\ngrid 1 1 1\n"
         "param scalar a i1\nparam scalar b i8\nparam scalar c i16\nparam scalar d i32\n"
         "param scalar e i64\nparam scalar f f16\nparam scalar g bf16\nparam scalar h f32\n"
         "param scalar i f64\nparam scalar j f8e4m3\nparam scalar k f8e5m2\nend\n";
}

template <class T>
T read_at(const std::vector<uint8_t>& buf, size_t off) {
  T v;
  std::memcpy(&v, buf.data() + off, sizeof v);
  return v;
}

std::vector<uint8_t> pack(const Fixture& f, const std::vector<tilec_arg>& args,
                          std::vector<size_t>* offsets = nullptr) {
  size_t size = 0;
  EXPECT_TRUE(IsOk(
      tilec_kernel_pack_args(f.kernel, args.data(), args.size(), nullptr, 0, &size, nullptr)));
  std::vector<uint8_t> buf(size, 0xcc);
  std::vector<size_t> offs(tilec_kernel_abi_num_params(f.kernel));
  EXPECT_TRUE(IsOk(tilec_kernel_pack_args(f.kernel, args.data(), args.size(), buf.data(),
                                          buf.size(), &size, offs.data())));
  if (offsets) *offsets = offs;
  return buf;
}

}  // namespace

// ---- validation ---------------------------------------------------------------------

TEST(RuntimeValidate, GoodArgumentsPass) {
  Fixture va = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(5000);
  EXPECT_TRUE(IsOk(tilec_kernel_validate(va.kernel, args.data(), args.size())));
  Fixture gemm = load_kernel(gemm_meta(), "gemm");
  auto gargs = gemm_args();
  EXPECT_TRUE(IsOk(tilec_kernel_validate(gemm.kernel, gargs.data(), gargs.size())));
}

TEST(RuntimeValidate, WrongCount) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args.pop_back();
  EXPECT_TRUE(invalid(f, args, {"tilec_kernel_validate: kernel 'vector_add' expects 4 arguments "
                                "(x, y, out, alpha), got 3"}));
  EXPECT_TRUE(IsError(tilec_kernel_validate(f.kernel, nullptr, 4), TILEC_ERROR_INVALID_ARGUMENT,
                      {"args is NULL"}));
}

TEST(RuntimeValidate, WrongKind) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[3] = args[0];
  EXPECT_TRUE(invalid(f, args, {"kernel 'vector_add' parameter 3 ('alpha'): is a tensor, "
                                "metadata expects a scalar"}));
  args = vector_add_args(10);
  args[1] = float_arg(TILEC_DTYPE_F32, 1.0);
  EXPECT_TRUE(invalid(f, args, {"parameter 1 ('y'): is a scalar, metadata expects a tensor"}));
  args = vector_add_args(10);
  args[0].kind = 0;
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('x'): is of invalid kind 0"}));
}

TEST(RuntimeValidate, WrongDtype) {
  Fixture f = load_kernel(gemm_meta(), "gemm");
  auto args = gemm_args();
  args[2].dtype = TILEC_DTYPE_F16;
  EXPECT_TRUE(invalid(f, args, {"tilec_kernel_validate: kernel 'gemm' parameter 2 ('c'): dtype "
                                "is f16, metadata expects f32"}));
  args = gemm_args();
  args[3].dtype = TILEC_DTYPE_I64;
  EXPECT_TRUE(invalid(f, args, {"parameter 3 ('k'): dtype is i64, metadata expects i32"}));
  args = gemm_args();
  args[0].dtype = 99;
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('a'): dtype is invalid (99), metadata expects bf16"}));
}

TEST(RuntimeValidate, WrongRank) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[2] = tensor_arg(0x3000, TILEC_DTYPE_F32, {2, 5});
  EXPECT_TRUE(invalid(f, args, {"parameter 2 ('out'): rank is 2, metadata expects 1"}));
}

TEST(RuntimeValidate, StaticExtentMismatch) {
  Fixture f = load_kernel(gemm_meta(), "gemm");
  auto args = gemm_args();
  args[0] = tensor_arg(0x10000, TILEC_DTYPE_BF16, {512, 2048});
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('a'): extent 1 is 2048, metadata expects 4096"}));
}

TEST(RuntimeValidate, StaticStrideMismatch) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[0].strides[0] = 2;
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('x'): stride 0 is 2, metadata expects 1"}));
  // The stride of a dim of extent 1 is never used, so it is not checked.
  args = vector_add_args(1);
  args[0].strides[0] = 7;
  EXPECT_TRUE(IsOk(tilec_kernel_validate(f.kernel, args.data(), args.size())));
}

TEST(RuntimeValidate, NegativeExtent) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[1].shape[0] = -10;
  EXPECT_TRUE(invalid(f, args, {"parameter 1 ('y'): extent 0 is -10 (negative)"}));
}

TEST(RuntimeValidate, ExtentBeyond32Bits) {
  // Kernels read extents as i32: 2^31 would have been -2^31 in the kernel.
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[2].shape[0] = int64_t{1} << 31;
  EXPECT_TRUE(invalid(f, args, {"parameter 2 ('out'): extent 0 is 2147483648: kernels index with "
                                "32-bit integers, at most 2147483647"}));
  args[2].shape[0] = INT32_MAX;
  args[0].shape[0] = args[1].shape[0] = INT32_MAX;
  EXPECT_TRUE(IsOk(tilec_kernel_validate(f.kernel, args.data(), args.size())));
}

TEST(RuntimeValidate, NullPointer) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[2].data = 0;
  EXPECT_TRUE(invalid(f, args, {"parameter 2 ('out'): data pointer is NULL"}));
}

TEST(RuntimeValidate, MisalignedBase) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  args[0].data = 0x1004;
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('x'): base pointer 0x1004 is not aligned to 16 bytes"}));
  Fixture g = load_kernel(gemm_meta(), "gemm");
  auto gargs = gemm_args();
  gargs[0].data = 0x10040;  // 64-aligned, a asks for 128
  EXPECT_TRUE(invalid(g, gargs, {"parameter 0 ('a'): base pointer 0x10040 is not aligned to 128 bytes"}));
}

TEST(RuntimeValidate, TmaBaseMustBe16ByteAligned) {
  Fixture f = load_kernel(tma_meta(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1004, TILEC_DTYPE_F32, {64, 64})};
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('t'): tma: base pointer 0x1004 is not aligned to 16 bytes"}));
  args[0].data = 0x1010;
  EXPECT_TRUE(IsOk(tilec_kernel_validate(f.kernel, args.data(), args.size())));
}

TEST(RuntimeValidate, TmaInnermostStrideMustBeOne) {
  Fixture f = load_kernel(tma_meta(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {64, 64}, {1, 64})};
  EXPECT_TRUE(invalid(f, args, {"tma: innermost stride (dim 1) is 64, must be 1"}));
}

TEST(RuntimeValidate, TmaStridesMustBeMultiplesOf16Bytes) {
  Fixture f = load_kernel(tma_meta(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {64, 63}, {63, 1})};
  EXPECT_TRUE(invalid(f, args, {"parameter 0 ('t'): tma: stride 0 is 63 elements (x 4 bytes), "
                                "must be a positive multiple of 16 bytes"}));
  args[0].strides[0] = 0;
  EXPECT_TRUE(invalid(f, args, {"tma: stride 0 is 0 elements"}));
  args[0].strides[0] = 64;  // a padded row: fine
  EXPECT_TRUE(IsOk(tilec_kernel_validate(f.kernel, args.data(), args.size())));
}

TEST(RuntimeValidate, TmaExtentsMustBePositive) {
  Fixture f = load_kernel(tma_meta(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {0, 64})};
  EXPECT_TRUE(invalid(f, args, {"tma: extent 0 is 0, must be in 1..2^32"}));
}

// With `fallback` the kernel also reads the view without TMA: views TMA
// cannot read are accepted (the launch zeroes their descriptor).
TEST(RuntimeValidate, TmaFallbackAcceptsViewsTmaCannotRead) {
  std::string meta = tma_meta();
  meta.replace(meta.find("fill zero"), 9, "fill zero fallback");
  Fixture f = load_kernel(meta.c_str(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1004, TILEC_DTYPE_F32, {64, 63}, {63, 1})};
  EXPECT_TRUE(IsOk(tilec_kernel_validate(f.kernel, args.data(), args.size())));
  // Rules that do not concern TMA still hold.
  args[0].data = 0x1002;
  EXPECT_TRUE(invalid(f, args, {"base pointer 0x1002 is not aligned to 4 bytes"}));
}

TEST(RuntimeValidate, ScalarRanges) {
  Fixture f = load_kernel(gemm_meta(), "gemm");
  auto args = gemm_args();
  args[3].value.i = int64_t{1} << 31;
  EXPECT_TRUE(invalid(f, args, {"parameter 3 ('k'): value 2147483648 is out of range for i32 "
                                "(-2147483648..2147483647)"}));
  Fixture s = load_kernel(scalars_meta(), "s");
  std::vector<tilec_arg> sargs{int_arg(TILEC_DTYPE_I1, 2),       int_arg(TILEC_DTYPE_I8, 0),
                               int_arg(TILEC_DTYPE_I16, 0),      int_arg(TILEC_DTYPE_I32, 0),
                               int_arg(TILEC_DTYPE_I64, 0),      float_arg(TILEC_DTYPE_F16, 0),
                               float_arg(TILEC_DTYPE_BF16, 0),   float_arg(TILEC_DTYPE_F32, 0),
                               float_arg(TILEC_DTYPE_F64, 0),    float_arg(TILEC_DTYPE_F8E4M3, 0),
                               float_arg(TILEC_DTYPE_F8E5M2, 0)};
  EXPECT_TRUE(invalid(s, sargs, {"parameter 0 ('a'): value 2 is out of range for i1 (0..1)"}));
  sargs[0].value.i = 1;
  sargs[1].value.i = -129;
  EXPECT_TRUE(invalid(s, sargs, {"parameter 1 ('b'): value -129 is out of range for i8"}));
  sargs[1].value.i = -128;
  sargs[2].value.i = 40000;
  EXPECT_TRUE(invalid(s, sargs, {"parameter 2 ('c'): value 40000 is out of range for i16"}));
  sargs[2].value.i = 32767;
  EXPECT_TRUE(IsOk(tilec_kernel_validate(s.kernel, sargs.data(), sargs.size())));
}

TEST(RuntimeValidate, GridMustBeAMultipleOfTheCluster) {
  const char* meta =
      "tilec-bundle 1\narch sm_90a\nkernel c\nthreads 128\ncluster 2 1 1\ngrid dim(0,0) 1 1\n"
      "param tensor x f32 1 shape ? strides 1 align 4\nend\n";
  Fixture f = load_kernel(meta, "c");
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {3})};
  EXPECT_TRUE(invalid(f, args, {"kernel 'c' grid x = 3 is not a multiple of cluster x = 2"}));
  args[0].shape[0] = 4;
  EXPECT_TRUE(IsOk(tilec_kernel_validate(f.kernel, args.data(), args.size())));
}

TEST(RuntimeValidate, ValidateEvaluatesTheGrid) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(0);
  EXPECT_TRUE(invalid(f, args, {"grid x 'cdiv(dim(0,0),1024)': evaluates to 0"}));
}

// ---- packing (kernel ABI) ------------------------------------------------------------

TEST(RuntimePack, VectorAddLayout) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(5000);
  std::vector<size_t> offs;
  std::vector<uint8_t> buf = pack(f, args, &offs);
  ASSERT_EQ(buf.size(), 76u);  // 9 x 8 bytes + f32
  const std::vector<size_t> expected{0, 8, 16, 24, 32, 40, 48, 56, 64, 72};
  EXPECT_EQ(offs, expected);
  EXPECT_EQ(read_at<uint64_t>(buf, 0), 0x1000u);
  EXPECT_EQ(read_at<int64_t>(buf, 8), 5000);
  EXPECT_EQ(read_at<int64_t>(buf, 16), 1);
  EXPECT_EQ(read_at<uint64_t>(buf, 24), 0x2000u);
  EXPECT_EQ(read_at<uint64_t>(buf, 48), 0x3000u);
  EXPECT_EQ(read_at<float>(buf, 72), 2.0f);
}

TEST(RuntimePack, TmaDescriptorsAre64ByteAlignedAndPrecedeThePointer) {
  Fixture f = load_kernel(gemm_meta(), "gemm");
  auto args = gemm_args();
  std::vector<size_t> offs;
  std::vector<uint8_t> buf = pack(f, args, &offs);
  // a: map@0 ptr@128 extents@136,144 strides@152,160
  // b: map@192 (64-aligned) ptr@320 extents@328,336 strides@344,352
  // c: ptr@360 extents@368,376 strides@384,392; k (i32)@400; alpha (bf16)@404
  const std::vector<size_t> expected{0,   128, 136, 144, 152, 160, 192, 320, 328, 336,
                                     344, 352, 360, 368, 376, 384, 392, 400, 404};
  EXPECT_EQ(offs, expected);
  ASSERT_EQ(buf.size(), 406u);
  for (size_t i = 0; i < 128; ++i) {
    EXPECT_EQ(buf[i], 0) << "map a byte " << i;
    EXPECT_EQ(buf[192 + i], 0) << "map b byte " << i;
  }
  EXPECT_EQ(read_at<uint64_t>(buf, 128), 0x10000u);
  EXPECT_EQ(read_at<int64_t>(buf, 136), 512);
  EXPECT_EQ(read_at<int64_t>(buf, 144), 4096);
  EXPECT_EQ(read_at<int64_t>(buf, 152), 4096);
  EXPECT_EQ(read_at<int64_t>(buf, 160), 1);
  EXPECT_EQ(read_at<uint64_t>(buf, 320), 0x20000u);
  EXPECT_EQ(read_at<int64_t>(buf, 344), 1024);
  EXPECT_EQ(read_at<uint64_t>(buf, 360), 0x30000u);
  EXPECT_EQ(read_at<int32_t>(buf, 400), 4096);
  EXPECT_EQ(read_at<uint16_t>(buf, 404), 0x3fc0);  // bf16(1.5)
}

TEST(RuntimePack, EveryScalarDtype) {
  Fixture f = load_kernel(scalars_meta(), "s");
  std::vector<tilec_arg> args{int_arg(TILEC_DTYPE_I1, 1),
                              int_arg(TILEC_DTYPE_I8, -5),
                              int_arg(TILEC_DTYPE_I16, -300),
                              int_arg(TILEC_DTYPE_I32, 123456789),
                              int_arg(TILEC_DTYPE_I64, -(int64_t{1} << 40)),
                              float_arg(TILEC_DTYPE_F16, -2.5),
                              float_arg(TILEC_DTYPE_BF16, 3.14159),
                              float_arg(TILEC_DTYPE_F32, 1.0 / 3.0),
                              float_arg(TILEC_DTYPE_F64, 1.0 / 3.0),
                              float_arg(TILEC_DTYPE_F8E4M3, -1.0),
                              float_arg(TILEC_DTYPE_F8E5M2, 1.0)};
  std::vector<size_t> offs;
  std::vector<uint8_t> buf = pack(f, args, &offs);
  const std::vector<size_t> expected{0, 1, 2, 4, 8, 16, 18, 20, 24, 32, 33};
  EXPECT_EQ(offs, expected);
  ASSERT_EQ(buf.size(), 34u);
  EXPECT_EQ(buf[0], 1);
  EXPECT_EQ(read_at<int8_t>(buf, 1), -5);
  EXPECT_EQ(read_at<int16_t>(buf, 2), -300);
  EXPECT_EQ(read_at<int32_t>(buf, 4), 123456789);
  EXPECT_EQ(read_at<int64_t>(buf, 8), -(int64_t{1} << 40));
  EXPECT_EQ(read_at<uint16_t>(buf, 16), 0xc100);  // f16(-2.5)
  EXPECT_EQ(read_at<uint16_t>(buf, 18), 0x4049);  // bf16(3.14159)
  EXPECT_EQ(read_at<float>(buf, 20), 1.0f / 3.0f);
  EXPECT_EQ(read_at<double>(buf, 24), 1.0 / 3.0);
  EXPECT_EQ(buf[32], 0xb8);  // f8e4m3(-1)
  EXPECT_EQ(buf[33], 0x3c);  // f8e5m2(1)
}

namespace {

// Packs a single float scalar of `dtype` and returns its bits.
uint32_t float_bits(tilec_dtype dtype, double v) {
  std::string meta = std::string("tilec-bundle 1\narch sm_90a\nkernel s\nthreads 1\ngrid 1 1 1\n") +
                     "param scalar v " + tilec_dtype_name(dtype) + "\nend\n";
  Fixture f = load_kernel(meta, "s");
  std::vector<tilec_arg> args{float_arg(dtype, v)};
  std::vector<uint8_t> buf = pack(f, args);
  uint32_t bits = 0;
  std::memcpy(&bits, buf.data(), buf.size());
  return bits;
}

}  // namespace

TEST(RuntimePack, HalfPrecisionConversionRoundsToNearestEven) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 1.0), 0x3c00u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, -0.0), 0x8000u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 65504.0), 0x7bffu);   // largest finite
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 65520.0), 0x7c00u);   // rounds to inf
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 1e6), 0x7c00u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, -inf), 0xfc00u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, std::ldexp(1.0, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, std::ldexp(1.0, -25)), 0x0000u);  // tie -> even (0)
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, std::ldexp(3.0, -25)), 0x0002u);  // tie -> even (2)
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 1.0 + std::ldexp(1.0, -11)), 0x3c00u);  // tie -> even
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 1.0 + std::ldexp(3.0, -11)), 0x3c02u);  // tie -> even
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, 0.1), 0x2e66u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F16, std::nan("")) & 0x7c00u, 0x7c00u);
  EXPECT_NE(float_bits(TILEC_DTYPE_F16, std::nan("")) & 0x03ffu, 0u);

  EXPECT_EQ(float_bits(TILEC_DTYPE_BF16, 1.0), 0x3f80u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_BF16, -1.5), 0xbfc0u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_BF16, 0.1), 0x3dcdu);
  EXPECT_EQ(float_bits(TILEC_DTYPE_BF16, 1e39), 0x7f80u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_BF16, 1.0 + std::ldexp(1.0, -8)), 0x3f80u);  // tie -> even

  EXPECT_EQ(float_bits(TILEC_DTYPE_F32, 1e300), 0x7f800000u);  // overflow is inf, not UB
  EXPECT_EQ(float_bits(TILEC_DTYPE_F32, 0.1), 0x3dcccccdu);
}

TEST(RuntimePack, Fp8Conversion) {
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E4M3, 1.0), 0x38u);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E4M3, 448.0), 0x7eu);   // largest finite
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E4M3, 1000.0), 0x7eu);  // saturates
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E4M3, -1000.0), 0xfeu);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E4M3, std::nan("")), 0x7fu);
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E4M3, std::ldexp(1.0, -9)), 0x01u);  // smallest subnormal
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E5M2, 57344.0), 0x7bu);  // largest finite
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E5M2, 1e6), 0x7cu);      // inf
  EXPECT_EQ(float_bits(TILEC_DTYPE_F8E5M2, -2.0), 0xc0u);
}

TEST(RuntimePack, CapacityAndSizeQueries) {
  Fixture f = load_kernel(vector_add_meta(), "vector_add");
  auto args = vector_add_args(10);
  size_t size = 0;
  uint8_t small[16];
  EXPECT_TRUE(IsError(tilec_kernel_pack_args(f.kernel, args.data(), args.size(), small,
                                             sizeof small, &size, nullptr),
                      TILEC_ERROR_INVALID_ARGUMENT, {"needs 76 bytes, capacity is 16"}));
  // Packing validates first.
  args[0].data = 0;
  EXPECT_TRUE(IsError(
      tilec_kernel_pack_args(f.kernel, args.data(), args.size(), nullptr, 0, &size, nullptr),
      TILEC_ERROR_INVALID_ARGUMENT, {"tilec_kernel_pack_args", "data pointer is NULL"}));
}

TEST(RuntimeDtype, NamesAndSizes) {
  struct {
    int dtype;
    const char* name;
    size_t size;
  } table[] = {{TILEC_DTYPE_I1, "i1", 1},         {TILEC_DTYPE_I8, "i8", 1},
               {TILEC_DTYPE_I16, "i16", 2},       {TILEC_DTYPE_I32, "i32", 4},
               {TILEC_DTYPE_I64, "i64", 8},       {TILEC_DTYPE_F16, "f16", 2},
               {TILEC_DTYPE_BF16, "bf16", 2},     {TILEC_DTYPE_F32, "f32", 4},
               {TILEC_DTYPE_F64, "f64", 8},       {TILEC_DTYPE_F8E4M3, "f8e4m3", 1},
               {TILEC_DTYPE_F8E5M2, "f8e5m2", 1}};
  for (const auto& e : table) {
    EXPECT_STREQ(tilec_dtype_name(e.dtype), e.name);
    EXPECT_EQ(tilec_dtype_size(e.dtype), e.size);
    EXPECT_EQ(tilec_dtype_from_name(e.name), e.dtype);
  }
  EXPECT_EQ(tilec_dtype_name(0), nullptr);
  EXPECT_EQ(tilec_dtype_name(12), nullptr);
  EXPECT_EQ(tilec_dtype_size(-1), 0u);
  EXPECT_EQ(tilec_dtype_from_name("f17"), TILEC_DTYPE_INVALID);
  EXPECT_EQ(tilec_dtype_from_name(nullptr), TILEC_DTYPE_INVALID);
  EXPECT_EQ(tilec_dtype_is_integer(TILEC_DTYPE_I64), 1);
  EXPECT_EQ(tilec_dtype_is_integer(TILEC_DTYPE_BF16), 0);
  EXPECT_STREQ(tilec_status_code_name(TILEC_ERROR_NO_DRIVER), "TILEC_ERROR_NO_DRIVER");
  EXPECT_STRNE(tilec_runtime_version(), "");
}
