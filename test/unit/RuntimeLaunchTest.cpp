// The launch path against a fake CUDA driver (RuntimeFakeCuda.cpp): module
// loading and PTX fallback, contexts, the dynamic smem attribute, TMA
// descriptor encoding, parameter passing, cluster launches, device helpers.
//
// TILEC_FAKE_CUDA_PATH is the fake library, set by CMake.
#include "RuntimeFakeCuda.h"
#include "RuntimeTestUtil.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <thread>

using namespace tilec_test;

namespace {

constexpr int kFuncAttrMaxDynamicSmem = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

class RuntimeLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TILEC_CUDA_DRIVER", TILEC_FAKE_CUDA_PATH, 1);
    unsetenv("TILEC_DEVICE");
    handle_ = dlopen(TILEC_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto state = reinterpret_cast<FakeCudaState* (*)()>(dlsym(handle_, "fake_cuda_state"));
    auto reset = reinterpret_cast<void (*)()>(dlsym(handle_, "fake_cuda_reset"));
    lifetime_init_calls_ = reinterpret_cast<int (*)()>(dlsym(handle_, "fake_cuda_lifetime_init_calls"));
    ASSERT_TRUE(state && reset && lifetime_init_calls_);
    reset();
    fake = state();
  }
  void TearDown() override {
    if (handle_) dlclose(handle_);
  }

  tilec_kernel* kernel(tilec_bundle* b, const char* name) {
    tilec_kernel* k = nullptr;
    EXPECT_TRUE(IsOk(tilec_bundle_get_kernel(b, name, &k)));
    return k;
  }

  FakeCudaState* fake = nullptr;
  int (*lifetime_init_calls_)() = nullptr;

 private:
  void* handle_ = nullptr;
};

template <class T>
T as(const std::vector<uint8_t>& bytes) {
  T v{};
  EXPECT_EQ(bytes.size(), sizeof v);
  std::memcpy(&v, bytes.data(), sizeof v < bytes.size() ? sizeof v : bytes.size());
  return v;
}

}  // namespace

TEST_F(RuntimeLaunch, InitFailureIsReportedAndRetried) {
  if (lifetime_init_calls_() > 0) GTEST_SKIP() << "driver already loaded in this process";
  fake->init_result = 100;
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_DRIVER,
                      {"tilec_synchronize: cuInit failed: CUDA_ERROR_NO_DEVICE "
                       "(no CUDA-capable device is detected)"}));
  fake->init_result = 0;
  EXPECT_TRUE(IsOk(tilec_synchronize()));
  EXPECT_EQ(fake->init_calls, 2);
}

TEST_F(RuntimeLaunch, VectorAdd) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  tilec_kernel* k = kernel(b.get(), "vector_add");
  fake->param_sizes = {8, 8, 8, 8, 8, 8, 8, 8, 8, 4};
  auto args = vector_add_args(5000);
  void* stream = reinterpret_cast<void*>(0x5151);
  ASSERT_TRUE(IsOk(tilec_launch(k, stream, args.data(), args.size())));

  ASSERT_EQ(fake->launches.size(), 1u);
  const FakeLaunch& l = fake->launches[0];
  EXPECT_FALSE(l.ex);  // no cluster: plain cuLaunchKernel
  EXPECT_EQ(l.function, "vector_add");
  EXPECT_EQ(l.grid[0], 5u);  // cdiv(5000, 1024)
  EXPECT_EQ(l.grid[1], 1u);
  EXPECT_EQ(l.grid[2], 1u);
  EXPECT_EQ(l.block[0], 128u);
  EXPECT_EQ(l.block[1], 1u);
  EXPECT_EQ(l.smem, 0u);
  EXPECT_EQ(l.stream, stream);
  ASSERT_EQ(l.params.size(), 10u);
  EXPECT_EQ(as<uint64_t>(l.params[0]), 0x1000u);
  EXPECT_EQ(as<int64_t>(l.params[1]), 5000);
  EXPECT_EQ(as<int64_t>(l.params[2]), 1);
  EXPECT_EQ(as<uint64_t>(l.params[3]), 0x2000u);
  EXPECT_EQ(as<uint64_t>(l.params[6]), 0x3000u);
  EXPECT_EQ(as<float>(l.params[9]), 2.0f);
  EXPECT_TRUE(fake->func_attrs.empty());  // smem 0: no attribute
  ASSERT_EQ(fake->module_loads.size(), 1u);
  EXPECT_EQ(fake->module_loads[0], "cubin:FAKECUBN");

  // The module and function are loaded once.
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->module_loads.size(), 1u);
  EXPECT_EQ(fake->get_function_calls.size(), 1u);
  EXPECT_EQ(fake->launches.size(), 2u);
  EXPECT_EQ(fake->launches[1].stream, nullptr);
}

TEST_F(RuntimeLaunch, RetainsThePrimaryContextWhenNoneIsCurrent) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  auto args = vector_add_args(64);
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size())));
  EXPECT_NE(fake->current_context, nullptr);
  EXPECT_EQ(fake->set_current_calls, 1);
  EXPECT_LE(fake->primary_retains, 1);  // retained once per process
}

TEST_F(RuntimeLaunch, UsesTheCurrentContext) {
  int torch_ctx = 0;
  fake->current_context = &torch_ctx;
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  auto args = vector_add_args(64);
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->current_context, &torch_ctx);
  EXPECT_EQ(fake->set_current_calls, 0);
  EXPECT_EQ(fake->primary_retains, 0);
}

TEST_F(RuntimeLaunch, OneModulePerContext) {
  int ctx_a = 0, ctx_b = 0;
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  tilec_kernel* k = kernel(b.get(), "vector_add");
  auto args = vector_add_args(64);
  fake->current_context = &ctx_a;
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  fake->current_context = &ctx_b;
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->module_loads.size(), 2u);
  // Freeing the bundle unloads both, switching to ctx_a and back for the first.
  b.reset();
  EXPECT_EQ(fake->module_unloads, 2);
  EXPECT_EQ(fake->current_context, &ctx_b);
}

// A `fallback` TMA view that TMA cannot read (rows 63 elements apart) is
// launched with a zeroed descriptor and not encoded; an aligned one is.
TEST_F(RuntimeLaunch, TmaFallbackZeroesTheDescriptorTmaCannotRead) {
  const char* meta =
      "tilec-bundle 1\narch sm_90a\nkernel t\nthreads 128\ngrid 1 1 1\n"
      "param tensor t f32 2 shape ? ? strides ? 1 align 4 tma 32 32 swizzle 128 fill zero fallback\n"
      "end\n";
  BundlePtr b = load_ok(make_bundle(meta));
  tilec_kernel* k = kernel(b.get(), "t");
  fake->param_sizes = {128, 8, 8, 8, 8, 8};
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {64, 63}, {63, 1})};
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->launches.size(), 1u);
  EXPECT_TRUE(fake->encodes.empty());
  uint64_t map[16];
  std::memcpy(map, fake->launches[0].params[0].data(), 128);
  for (uint64_t w : map)
    EXPECT_EQ(w, 0u);
  EXPECT_EQ(as<uint64_t>(fake->launches[0].params[1]), 0x1000u);

  args[0].strides[0] = 64;  // 256-byte rows: TMA reads them
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->encodes.size(), 1u);
  std::memcpy(map, fake->launches[1].params[0].data(), 128);
  EXPECT_EQ(map[0], 0x1000u);
}

// Kernel t__plain: the plain variant of the TMA kernels below.
constexpr const char* kPlainT =
    "kernel t__plain\nthreads 128\ngrid cdiv(dim(0,0),32) 1 1\n"
    "param tensor x f32 2 shape ? ? strides ? 1 align 4\nend\n";

/// A bundle of TMA kernel t (grid rule `grid`) with plain variant t__plain.
std::string plainVariantMeta(const std::string& grid) {
  return "tilec-bundle 1\narch sm_90a\n"
         "kernel t\nthreads 384\nplain t__plain\ngrid " + grid + "\n"
         "param tensor x f32 2 shape ? ? strides ? 1 align 16 tma 32 32 swizzle 128 fill zero\nend\n" +
         kPlainT;
}

// A TMA kernel with a `plain` variant: arguments TMA can read launch it,
// others launch the variant (its own grid and block), instead of an error.
TEST_F(RuntimeLaunch, PlainVariantWhereTmaCannotRead) {
  BundlePtr b = load_ok(make_bundle(plainVariantMeta("7 1 1")));
  tilec_kernel* k = kernel(b.get(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {100, 64}, {64, 1})};
  fake->param_sizes = {128, 8, 8, 8, 8, 8};
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->launches.size(), 1u);
  EXPECT_EQ(fake->launches[0].function, "t");
  EXPECT_EQ(fake->launches[0].grid[0], 7u);
  EXPECT_EQ(fake->launches[0].block[0], 384u);

  args[0].strides[0] = 63;  // 252-byte rows
  args[0].shape[1] = 63;
  fake->param_sizes = {8, 8, 8, 8, 8};
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->launches.size(), 2u);
  EXPECT_EQ(fake->launches[1].function, "t__plain");
  EXPECT_EQ(fake->launches[1].grid[0], 4u);  // cdiv(100,32)
  EXPECT_EQ(fake->launches[1].block[0], 128u);
  EXPECT_TRUE(IsOk(tilec_kernel_validate(k, args.data(), args.size())));

  // An explicit grid was made for t (7 programs); t__plain's rule differs,
  // so the launch is refused rather than run on a grid meant for another
  // kernel.
  const uint32_t grid[3] = {7, 1, 1};
  EXPECT_TRUE(IsError(tilec_launch_grid(k, nullptr, grid, args.data(), args.size()),
                      TILEC_ERROR_INVALID_ARGUMENT,
                      {"needs t__plain, whose grid rule (cdiv(dim(0,0),32) 1 1) is not t's; "
                       "launch without an explicit grid"}));
  EXPECT_EQ(fake->launches.size(), 2u);
}

// Where the plain variant has the kernel's own grid rule, an explicit grid
// serves it too.
TEST_F(RuntimeLaunch, ExplicitGridRunsPlainVariantUnderTheSameRule) {
  BundlePtr b = load_ok(make_bundle(plainVariantMeta("cdiv(dim(0,0),32) 1 1")));
  tilec_kernel* k = kernel(b.get(), "t");
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {100, 63}, {63, 1})};
  fake->param_sizes = {8, 8, 8, 8, 8};
  const uint32_t grid[3] = {4, 1, 1};
  ASSERT_TRUE(IsOk(tilec_launch_grid(k, nullptr, grid, args.data(), args.size())));
  ASSERT_EQ(fake->launches.size(), 1u);
  EXPECT_EQ(fake->launches[0].function, "t__plain");
  EXPECT_EQ(fake->launches[0].grid[0], 4u);
}

// A family of two members over one view x, t (tiles of 256 rows) and
// t__small (128), with the given costs, and the plain twin.
static std::string family_meta(const std::string& cost, const std::string& small_cost) {
  return "tilec-bundle 1\narch sm_90a\n"
         "kernel t\nthreads 384\nplain t__plain\nvariant t__small\n"
         "cost " + cost + "\ngrid min(sms,cdiv(dim(0,0),256)) 1 1\n"
         "param tensor x f32 2 shape ? ? strides ? 1 align 16 tma 32 32 swizzle 128 fill zero\nend\n"
         "kernel t__small\nthreads 384\n"
         "cost " + small_cost + "\ngrid min(sms,cdiv(dim(0,0),128)) 1 1\n"
         "param tensor x f32 2 shape ? ? strides ? 1 align 16 tma 32 32 swizzle 128 fill zero\nend\n" +
         std::string(kPlainT);
}

// A kernel with a tile-shape variant: each launch runs the member whose
// cost is least for the arguments and the device's SMs (the first of
// equals); an explicit grid runs the kernel itself; a view TMA cannot read
// still goes to the plain variant.
TEST_F(RuntimeLaunch, TileShapeVariantChosenByCost) {
  BundlePtr b = load_ok(make_bundle(family_meta("mul(cdiv(cdiv(dim(0,0),256),sms),4)",
                                                "mul(cdiv(cdiv(dim(0,0),128),sms),3)")));
  tilec_kernel* k = kernel(b.get(), "t");
  fake->sm_count = 10;
  auto launch_rows = [&](int64_t rows, int64_t stride) {
    std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {rows, 64}, {stride, 1})};
    fake->param_sizes = stride % 4 ? std::vector<size_t>{8, 8, 8, 8, 8}
                                   : std::vector<size_t>{128, 8, 8, 8, 8, 8};
    tilec_kernel* chosen = nullptr;
    EXPECT_TRUE(IsOk(tilec_kernel_choose(k, args.data(), args.size(), &chosen)));
    EXPECT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
    EXPECT_EQ(fake->launches.back().function, tilec_kernel_name(chosen));
    return fake->launches.back();
  };
  // 1280 rows: 5 tiles of 256 (1 wave, cost 4) or 10 of 128 (1 wave, 3).
  EXPECT_EQ(launch_rows(1280, 64).function, "t__small");
  EXPECT_EQ(fake->launches.back().grid[0], 10u);
  // 5120 rows: 20 of 256 (2 waves, 8) or 40 of 128 (4 waves, 12).
  EXPECT_EQ(launch_rows(5120, 64).function, "t");
  EXPECT_EQ(fake->launches.back().grid[0], 10u);
  // 2560 rows: 10 of 256 (1 wave, 4) or 20 of 128 (2 waves, 6).
  EXPECT_EQ(launch_rows(2560, 64).function, "t");
  // Rows TMA cannot read: the plain variant, whatever the shape.
  EXPECT_EQ(launch_rows(1280, 63).function, "t__plain");

  // An explicit grid launches the kernel named.
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {1280, 64}, {64, 1})};
  fake->param_sizes = {128, 8, 8, 8, 8, 8};
  const uint32_t grid[3] = {3, 1, 1};
  ASSERT_TRUE(IsOk(tilec_launch_grid(k, nullptr, grid, args.data(), args.size())));
  EXPECT_EQ(fake->launches.back().function, "t");
  EXPECT_EQ(fake->launches.back().grid[0], 3u);
}

// A cost may read a tensor's strides (stride(P,D)): the member whose cost
// is least for these strides runs.
TEST_F(RuntimeLaunch, CostReadsStrides) {
  BundlePtr b = load_ok(make_bundle(family_meta("mul(stride(0,0),2)", "200")));
  tilec_kernel* k = kernel(b.get(), "t");
  fake->sm_count = 10;
  auto chosen_for = [&](int64_t stride) {
    std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {1280, 64}, {stride, 1})};
    tilec_kernel* chosen = nullptr;
    EXPECT_TRUE(IsOk(tilec_kernel_choose(k, args.data(), args.size(), &chosen)));
    return std::string(chosen ? tilec_kernel_name(chosen) : "");
  };
  EXPECT_EQ(chosen_for(64), "t");          // cost 128 < 200
  EXPECT_EQ(chosen_for(128), "t__small");  // 256 > 200
}

TEST_F(RuntimeLaunch, GemmWithTmaClusterAndLargeSmem) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  tilec_kernel* k = kernel(b.get(), "gemm");
  fake->param_sizes = {128, 8, 8, 8, 8, 8, 128, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4, 2};
  auto args = gemm_args();
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));

  // Dynamic smem above 48 KiB: the attribute is raised first.
  ASSERT_EQ(fake->func_attrs.size(), 1u);
  EXPECT_EQ(fake->func_attrs[0].function, "gemm");
  EXPECT_EQ(fake->func_attrs[0].attr, kFuncAttrMaxDynamicSmem);
  EXPECT_EQ(fake->func_attrs[0].value, 200000);

  // Cluster 2 1 1: cuLaunchKernelEx with the cluster attribute.
  ASSERT_EQ(fake->launches.size(), 1u);
  const FakeLaunch& l = fake->launches[0];
  EXPECT_TRUE(l.ex);
  EXPECT_EQ(l.num_attrs, 1u);
  EXPECT_EQ(l.cluster[0], 2u);
  EXPECT_EQ(l.cluster[1], 1u);
  EXPECT_EQ(l.cluster[2], 1u);
  EXPECT_EQ(l.grid[0], 8u);  // mul(cdiv(512,128),2)
  EXPECT_EQ(l.grid[1], 4u);  // cdiv(1024,256)
  EXPECT_EQ(l.block[0], 384u);
  EXPECT_EQ(l.smem, 200000u);

  // TMA descriptors: innermost dim first, strides in bytes, box reversed.
  ASSERT_EQ(fake->encodes.size(), 2u);
  const FakeEncode& ea = fake->encodes[0];
  EXPECT_EQ(ea.dtype, 9);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(ea.rank, 2u);
  EXPECT_EQ(ea.address, 0x10000u);
  EXPECT_EQ(ea.dims[0], 4096u);
  EXPECT_EQ(ea.dims[1], 512u);
  EXPECT_EQ(ea.strides[0], 4096u * 2);
  EXPECT_EQ(ea.box[0], 64u);
  EXPECT_EQ(ea.box[1], 64u);
  EXPECT_EQ(ea.element_strides[0], 1u);
  EXPECT_EQ(ea.element_strides[1], 1u);
  EXPECT_EQ(ea.interleave, 0);
  EXPECT_EQ(ea.swizzle, 3);  // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(ea.l2, 2);       // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
  EXPECT_EQ(ea.fill, 0);     // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
  EXPECT_EQ(ea.map % 64, 0u);
  const FakeEncode& eb = fake->encodes[1];
  EXPECT_EQ(eb.address, 0x20000u);
  EXPECT_EQ(eb.dims[0], 1024u);
  EXPECT_EQ(eb.dims[1], 4096u);
  EXPECT_EQ(eb.strides[0], 1024u * 2);
  EXPECT_EQ(eb.box[0], 64u);   // metadata "tma 128 64": innermost 64
  EXPECT_EQ(eb.box[1], 128u);
  EXPECT_EQ(eb.fill, 1);       // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  EXPECT_EQ(eb.map % 64, 0u);

  // The encoded descriptors are what the kernel receives, in ABI order.
  ASSERT_EQ(l.params.size(), 19u);
  uint64_t map_a[16], map_b[16];
  std::memcpy(map_a, l.params[0].data(), 128);
  std::memcpy(map_b, l.params[6].data(), 128);
  EXPECT_EQ(map_a[0], 0x10000u);
  EXPECT_EQ(map_a[1] >> 32, 0x7e57ab1eu);
  EXPECT_EQ(map_b[0], 0x20000u);
  EXPECT_EQ(l.param_addresses[0] % 64, 0u);
  EXPECT_EQ(l.param_addresses[6] % 64, 0u);
  EXPECT_EQ(as<uint64_t>(l.params[1]), 0x10000u);
  EXPECT_EQ(as<int64_t>(l.params[2]), 512);
  EXPECT_EQ(as<int64_t>(l.params[3]), 4096);
  EXPECT_EQ(as<int64_t>(l.params[4]), 4096);
  EXPECT_EQ(as<int64_t>(l.params[5]), 1);
  EXPECT_EQ(as<uint64_t>(l.params[7]), 0x20000u);
  EXPECT_EQ(as<uint64_t>(l.params[12]), 0x30000u);
  EXPECT_EQ(as<int32_t>(l.params[17]), 4096);
  EXPECT_EQ(as<uint16_t>(l.params[18]), 0x3fc0);  // bf16(1.5)

  // The attribute is set once per function.
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->func_attrs.size(), 1u);
}

// The launch cache (driver.cpp): a launch like the kernel's last one
// reissues its parameters, TMA descriptors included, without encoding them
// again; any change of an argument, the stream, the grid request or the
// context computes the launch again.
TEST_F(RuntimeLaunch, RepeatedLaunchReusesItsParameters) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  tilec_kernel* k = kernel(b.get(), "gemm");
  fake->param_sizes = {128, 8, 8, 8, 8, 8, 128, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4, 2};
  auto args = gemm_args();
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->launches.size(), 2u);
  EXPECT_EQ(fake->encodes.size(), 2u);  // encoded by the first launch only
  EXPECT_EQ(fake->launches[1].params, fake->launches[0].params);
  EXPECT_TRUE(fake->launches[1].ex);  // still a cluster launch
  EXPECT_EQ(fake->launches[1].grid[0], fake->launches[0].grid[0]);

  // Another address for A: encoded again, the new address passed.
  args[0].data = 0x50000;
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->encodes.size(), 4u);
  EXPECT_EQ(as<uint64_t>(fake->launches[2].params[1]), 0x50000u);
  // Another extent (M): another grid.
  args[0].shape[0] = 1024;
  args[2].shape[0] = 1024;
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->launches[3].grid[0], 16u);  // mul(cdiv(1024,128),2)
  EXPECT_EQ(as<int64_t>(fake->launches[3].params[2]), 1024);
  // Another scalar.
  args[3].value.i = 2048;
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(as<int32_t>(fake->launches[4].params[17]), 2048);
  // Another stream, then an explicit grid, then the same again: each
  // reissued only when everything is the same.
  void* stream = reinterpret_cast<void*>(0x5151);
  size_t encodes = fake->encodes.size();
  ASSERT_TRUE(IsOk(tilec_launch(k, stream, args.data(), args.size())));
  EXPECT_EQ(fake->launches[5].stream, stream);
  EXPECT_EQ(fake->encodes.size(), encodes + 2);
  const uint32_t grid[3] = {4, 2, 1};
  ASSERT_TRUE(IsOk(tilec_launch_grid(k, stream, grid, args.data(), args.size())));
  EXPECT_EQ(fake->launches[6].grid[0], 4u);
  EXPECT_EQ(fake->launches[6].grid[1], 2u);
  ASSERT_TRUE(IsOk(tilec_launch_grid(k, stream, grid, args.data(), args.size())));
  EXPECT_EQ(fake->launches[7].grid[1], 2u);
  EXPECT_EQ(fake->encodes.size(), encodes + 4);  // the repeat encoded nothing
  ASSERT_TRUE(IsOk(tilec_launch(k, stream, args.data(), args.size())));
  EXPECT_EQ(fake->launches[8].grid[0], 16u);  // the rule's grid again
  // An argument error is still an error, not a reissue of the last launch.
  auto bad = args;
  bad[0].data = 0;
  EXPECT_TRUE(IsError(tilec_launch(k, stream, bad.data(), bad.size()),
                      TILEC_ERROR_INVALID_ARGUMENT, {"data pointer is NULL"}));
  EXPECT_EQ(fake->launches.size(), 9u);
}

// Launches of one kernel from several threads at once, each thread with
// its own tensors and two extents in turn (so the launch cache both misses
// and hits): every launch the driver saw has its thread's address in the
// TMA descriptor and the pointer parameter, and the grid of its own extent.
TEST_F(RuntimeLaunch, LaunchesFromSeveralThreads) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  tilec_kernel* k = kernel(b.get(), "gemm");
  fake->param_sizes = {128, 8, 8, 8, 8, 8, 128, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4, 2};
  constexpr int kThreads = 8, kLaunches = 300;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto args = gemm_args();
      args[0].data = 0x1000000ull * (t + 1);
      for (int i = 0; i < kLaunches; ++i) {
        const int64_t m = (i / 2) % 2 ? 128 * (t + 1) : 128 * (t + 9);
        args[0].shape[0] = m;
        args[2].shape[0] = m;
        tilec_status s = tilec_launch(k, nullptr, args.data(), args.size());
        if (s) {
          ++failures;
          tilec_status_free(s);
        }
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(fake->launches.size(), size_t(kThreads * kLaunches));
  std::map<uint64_t, int> per_thread;
  for (const FakeLaunch& l : fake->launches) {
    const uint64_t a = as<uint64_t>(l.params[1]);
    const int64_t m = as<int64_t>(l.params[2]);
    ASSERT_EQ(a % 0x1000000u, 0u);
    const int t = int(a / 0x1000000u) - 1;
    ASSERT_TRUE(t >= 0 && t < kThreads) << std::hex << a;
    ASSERT_TRUE(m == 128 * (t + 1) || m == 128 * (t + 9)) << m;
    EXPECT_EQ(l.grid[0], uint32_t(2 * (m / 128)));  // mul(cdiv(M,128),2)
    uint64_t encoded;  // the fake descriptor starts with its address
    std::memcpy(&encoded, l.params[0].data(), 8);
    EXPECT_EQ(encoded, a);
    ++per_thread[a];
  }
  EXPECT_EQ(per_thread.size(), size_t(kThreads));
  for (auto& [a, count] : per_thread) EXPECT_EQ(count, kLaunches) << std::hex << a;
}

TEST_F(RuntimeLaunch, SmemAboveTheOptInLimit) {
  fake->smem_optin = 100000;
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  auto args = gemm_args();
  EXPECT_TRUE(IsError(tilec_launch(kernel(b.get(), "gemm"), nullptr, args.data(), args.size()),
                      TILEC_ERROR_OUT_OF_RESOURCES,
                      {"tilec_launch: kernel 'gemm' needs 200000 bytes of dynamic shared memory, "
                       "the device allows at most 100000 bytes per block (opt-in limit)"}));
  EXPECT_TRUE(fake->launches.empty());
  EXPECT_TRUE(fake->func_attrs.empty());
}

TEST_F(RuntimeLaunch, ExplicitGrid) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  auto args = vector_add_args(64);
  const uint32_t grid[3] = {3, 2, 7};
  ASSERT_TRUE(IsOk(tilec_launch_grid(kernel(b.get(), "vector_add"), nullptr, grid, args.data(),
                                     args.size())));
  ASSERT_EQ(fake->launches.size(), 1u);
  EXPECT_EQ(fake->launches[0].grid[0], 3u);
  EXPECT_EQ(fake->launches[0].grid[1], 2u);
  EXPECT_EQ(fake->launches[0].grid[2], 7u);
}

TEST_F(RuntimeLaunch, PersistentGridUsesTheMultiprocessorCount) {
  // min(sms, tiles): 132 SMs, 64 or 100000 elements in 1024-element tiles.
  std::string meta = vector_add_meta();
  const std::string rule = "grid cdiv(dim(0,0),1024) 1 1";
  meta.replace(meta.find(rule), rule.size(), "grid min(sms,cdiv(dim(0,0),1024)) 1 1");
  BundlePtr b = load_ok(make_bundle(meta));
  tilec_kernel* k = kernel(b.get(), "vector_add");
  auto few = vector_add_args(64);
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, few.data(), few.size())));
  auto many = vector_add_args(1000000);
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, many.data(), many.size())));
  fake->sm_count = 114;
  uint32_t grid[3];
  ASSERT_TRUE(IsOk(tilec_kernel_grid(k, many.data(), many.size(), grid)));
  ASSERT_EQ(fake->launches.size(), 2u);
  EXPECT_EQ(fake->launches[0].grid[0], 1u);
  EXPECT_EQ(fake->launches[1].grid[0], 132u);
  EXPECT_EQ(grid[0], 114u);
}

TEST_F(RuntimeLaunch, ExplicitGridMustRespectTheCluster) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  auto args = gemm_args();
  const uint32_t grid[3] = {3, 1, 1};
  EXPECT_TRUE(IsError(tilec_launch_grid(kernel(b.get(), "gemm"), nullptr, grid, args.data(),
                                        args.size()),
                      TILEC_ERROR_INVALID_ARGUMENT,
                      {"grid x (explicit) = 3 is not a multiple of cluster x = 2"}));
}

TEST_F(RuntimeLaunch, PtxFallbackWhenTheCubinDoesNotLoad) {
  fake->cubin_load_result = 209;
  BundlePtr b = load_ok(make_bundle(vector_add_meta(), true, "// ptx text\n"));
  auto args = vector_add_args(64);
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->module_loads.size(), 2u);
  EXPECT_EQ(fake->module_loads[0], "cubin:FAKECUBN");
  EXPECT_EQ(fake->module_loads[1], "ptx:// ptx text\n");
  EXPECT_EQ(fake->launches.size(), 1u);
}

TEST_F(RuntimeLaunch, EachModuleLoadsOnTheFirstLaunchOfOneOfItsKernels) {
  BundlePtr b = load_ok(make_bundle_sections({{"META", two_module_meta()},
                                              {"CUBN", fake_cubin_named("FAKECUB0")},
                                              {"CUBN", fake_cubin_named("FAKECUB1")}},
                                             2));
  auto args = vector_add_args(64);
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "second"), nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->module_loads.size(), 1u);
  EXPECT_EQ(fake->module_loads[0], "cubin:FAKECUB1");
  ASSERT_EQ(fake->function_modules.size(), 1u);
  EXPECT_EQ(fake->function_modules[0], "cubin:FAKECUB1");
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "first"), nullptr, args.data(), args.size())));
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "second"), nullptr, args.data(), args.size())));
  ASSERT_EQ(fake->module_loads.size(), 2u);
  EXPECT_EQ(fake->module_loads[1], "cubin:FAKECUB0");
  ASSERT_EQ(fake->function_modules.size(), 2u);
  EXPECT_EQ(fake->function_modules[1], "cubin:FAKECUB0");
  ASSERT_EQ(fake->launches.size(), 3u);
  EXPECT_EQ(fake->launches[0].function, "second");
  EXPECT_EQ(fake->launches[1].function, "first");
  b.reset();
  EXPECT_EQ(fake->module_unloads, 2);
}

TEST_F(RuntimeLaunch, LoadModuleLoadsEveryModule) {
  BundlePtr b = load_ok(make_bundle_sections(
      {{"META", two_module_meta()}, {"PTX ", "// module 0"}, {"PTX ", "// module 1"}}, 2));
  ASSERT_TRUE(IsOk(tilec_bundle_load_module(b.get())));
  ASSERT_EQ(fake->module_loads.size(), 2u);
  EXPECT_EQ(fake->module_loads[0], "ptx:// module 0");
  EXPECT_EQ(fake->module_loads[1], "ptx:// module 1");
  EXPECT_EQ(fake->function_modules,
            (std::vector<std::string>{"ptx:// module 0", "ptx:// module 1"}));
}

TEST_F(RuntimeLaunch, ModuleLoadFailureNamesTheModule) {
  fake->cubin_load_result = 209;
  BundlePtr b = load_ok(make_bundle_sections({{"META", two_module_meta()},
                                              {"CUBN", fake_cubin_named("FAKECUB0")},
                                              {"CUBN", fake_cubin_named("FAKECUB1")}},
                                             2));
  auto args = vector_add_args(64);
  EXPECT_TRUE(IsError(tilec_launch(kernel(b.get(), "second"), nullptr, args.data(), args.size()),
                      TILEC_ERROR_DRIVER,
                      {"tilec_launch: cannot load the bundle module 1 of 2 (arch sm_90a)",
                       "cuModuleLoadData (cubin) failed"}));
  // Not cached: a later launch tries again.
  fake->cubin_load_result = 0;
  EXPECT_TRUE(IsOk(tilec_launch(kernel(b.get(), "second"), nullptr, args.data(), args.size())));
}

TEST_F(RuntimeLaunch, BundleForAnotherArchIsRefusedBeforeLoading) {
  // An sm_100a bundle on an H100 (9.0), an sm_90a one on a B200 (10.0):
  // refused with both sides named, before the driver is asked, and not
  // cached as loaded.
  std::string meta = vector_add_meta();
  meta.replace(meta.find("sm_90a"), 6, "sm_100a");
  BundlePtr b = load_ok(make_bundle(meta, true, "// ptx\n"));
  auto args = vector_add_args(64);
  EXPECT_TRUE(IsError(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size()),
                      TILEC_ERROR_UNSUPPORTED,
                      {"tilec_launch: the bundle was compiled for sm_100a, which needs compute "
                       "capability 10.0 exactly; this device has compute capability 9.0 "
                       "(compile for it: tilec compile --arch=sm_90a)"}));
  EXPECT_TRUE(fake->module_loads.empty());
  BundlePtr hopper = load_ok(make_bundle(vector_add_meta(), true, "// ptx\n"));
  fake->cc_major = 10;
  EXPECT_TRUE(IsError(tilec_bundle_load_module(hopper.get()), TILEC_ERROR_UNSUPPORTED,
                      {"compiled for sm_90a, which needs compute capability 9.0 exactly; this "
                       "device has compute capability 10.0 (compile for it: tilec compile "
                       "--arch=sm_100a)"}));
  EXPECT_TRUE(IsOk(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size())));
}

TEST_F(RuntimeLaunch, PtxOnlyBundle) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta(), false, ".version 8.0"));
  ASSERT_TRUE(IsOk(tilec_bundle_load_module(b.get())));
  ASSERT_EQ(fake->module_loads.size(), 1u);
  EXPECT_EQ(fake->module_loads[0], "ptx:.version 8.0");
}

// A module carried as PTX alone (format version 3) is JIT-compiled on its
// kernel's first launch; the other module still loads its cubin.
TEST_F(RuntimeLaunch, PtxOnlyModuleOfAVersion3Bundle) {
  BundlePtr b = load_ok(ptx_only_module_bundle());
  ASSERT_TRUE(IsOk(tilec_bundle_load_module(b.get())));
  ASSERT_EQ(fake->module_loads.size(), 2u);
  EXPECT_EQ(fake->module_loads[0], "cubin:FAKECUB0");
  EXPECT_EQ(fake->module_loads[1], "ptx:// module 1");
}

TEST_F(RuntimeLaunch, ModuleLoadFailureExplainsBothAttempts) {
  fake->cubin_load_result = 209;
  fake->ptx_load_result = 218;
  fake->ptx_log = "ptxas fatal: unknown target sm_90a";
  BundlePtr b = load_ok(make_bundle(vector_add_meta(), true, "// ptx\n"));
  auto args = vector_add_args(64);
  tilec_status s = tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size());
  EXPECT_EQ(tilec_status_driver_error(s), 218);
  EXPECT_TRUE(IsError(s, TILEC_ERROR_DRIVER,
                      {"tilec_launch: cannot load the bundle (arch sm_90a) on this device "
                       "(compute capability 9.0)",
                       "cuModuleLoadData (cubin) failed: CUDA_ERROR_NO_BINARY_FOR_GPU",
                       "cuModuleLoadDataEx (PTX JIT) failed: CUDA_ERROR_INVALID_PTX",
                       "JIT log: ptxas fatal: unknown target sm_90a"}));
  EXPECT_TRUE(fake->launches.empty());
}

TEST_F(RuntimeLaunch, KernelMissingFromTheModule) {
  fake->known_functions = {"something_else"};
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  auto args = vector_add_args(64);
  EXPECT_TRUE(IsError(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size()),
                      TILEC_ERROR_DRIVER,
                      {"tilec_launch: kernel 'vector_add'",
                       "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol not found)"}));
}

TEST_F(RuntimeLaunch, DriverLaunchErrorCarriesNameAndCode) {
  fake->launch_result = 701;
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  auto args = vector_add_args(64);
  tilec_status s = tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size());
  EXPECT_EQ(tilec_status_driver_error(s), 701);
  EXPECT_TRUE(IsError(s, TILEC_ERROR_DRIVER,
                      {"tilec_launch: kernel 'vector_add': cuLaunchKernel failed: "
                       "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (too many resources requested for launch)"}));
}

TEST_F(RuntimeLaunch, UnknownDriverErrorCode) {
  fake->launch_result = 4242;
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  auto args = vector_add_args(64);
  EXPECT_TRUE(IsError(tilec_launch(kernel(b.get(), "vector_add"), nullptr, args.data(), args.size()),
                      TILEC_ERROR_DRIVER, {"cuLaunchKernel failed: CUDA error 4242 (no description)"}));
}

TEST_F(RuntimeLaunch, LoadModuleResolvesEveryKernel) {
  BundlePtr b = load_ok(make_bundle(gemm_meta()));
  ASSERT_TRUE(IsOk(tilec_bundle_load_module(b.get())));
  EXPECT_EQ(fake->get_function_calls, (std::vector<std::string>{"gemm", "tiny"}));
  // Idempotent.
  ASSERT_TRUE(IsOk(tilec_bundle_load_module(b.get())));
  EXPECT_EQ(fake->module_loads.size(), 1u);
  EXPECT_EQ(fake->get_function_calls.size(), 2u);
  b.reset();
  EXPECT_EQ(fake->module_unloads, 1);
}

TEST_F(RuntimeLaunch, KernelWithoutParams) {
  BundlePtr b = load_ok(make_bundle(
      "tilec-bundle 1\narch sm_90a\nkernel nop\nthreads 32\ngrid 2 1 1\nend\n"));
  ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "nop"), nullptr, nullptr, 0)));
  ASSERT_EQ(fake->launches.size(), 1u);
  EXPECT_TRUE(fake->launches[0].null_params);
  EXPECT_EQ(fake->launches[0].grid[0], 2u);
}

TEST_F(RuntimeLaunch, TilecDeviceSelectsThePrimaryContext) {
  setenv("TILEC_DEVICE", "3", 1);
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_DRIVER,
                      {"tilec_synchronize: device 3: cuDeviceGet failed"}));
  setenv("TILEC_DEVICE", "gpu0", 1);
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_INVALID_ARGUMENT,
                      {"TILEC_DEVICE='gpu0' is not a device index"}));
  unsetenv("TILEC_DEVICE");
  EXPECT_TRUE(IsOk(tilec_synchronize()));
}

TEST_F(RuntimeLaunch, DeviceHelpers) {
  int sm = 0, optin = 0, major = 0, minor = 0;
  ASSERT_TRUE(IsOk(tilec_device_info(&sm, &optin, &major, &minor)));
  EXPECT_EQ(sm, 132);
  EXPECT_EQ(optin, 232448);
  EXPECT_EQ(major, 9);
  EXPECT_EQ(minor, 0);

  uint64_t p = 0;
  ASSERT_TRUE(IsOk(tilec_malloc(&p, 16)));
  EXPECT_NE(p, 0u);
  const char in[16] = "tilec runtime!";
  char out[16] = {};
  ASSERT_TRUE(IsOk(tilec_memcpy_htod(p, in, sizeof in)));
  ASSERT_TRUE(IsOk(tilec_memcpy_dtoh(out, p, sizeof out)));
  EXPECT_STREQ(out, in);
  ASSERT_TRUE(IsOk(tilec_free(p)));

  ASSERT_TRUE(IsOk(tilec_synchronize()));
  ASSERT_TRUE(IsOk(tilec_stream_synchronize(nullptr)));
  EXPECT_EQ(fake->ctx_syncs, 1);
  EXPECT_EQ(fake->stream_syncs, 1);
}

// ---- autotuning ---------------------------------------------------------------------

// The family of TileShapeVariantChosenByCost: t (cost model's pick for 5120
// rows), t__small, and the plain twin.
class RuntimeAutotune : public RuntimeLaunch {
 protected:
  void SetUp() override {
    RuntimeLaunch::SetUp();
    char tmpl[] = "/tmp/tilec-autotune-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    setenv("TILEC_CACHE_DIR", (dir_ + "/cache").c_str(), 1);
    unsetenv("TILEC_AUTOTUNE");
    fake->sm_count = 10;
  }
  void TearDown() override {
    unsetenv("TILEC_CACHE_DIR");
    unsetenv("TILEC_AUTOTUNE");
    std::system(("rm -rf " + dir_).c_str());
    RuntimeLaunch::TearDown();
  }
  static std::string meta() {
    return family_meta("mul(cdiv(cdiv(dim(0,0),256),sms),4)",
                       "mul(cdiv(cdiv(dim(0,0),128),sms),3)");
  }
  std::vector<tilec_arg> rows(int64_t n, int64_t stride = 64) {
    fake->param_sizes = stride % 4 ? std::vector<size_t>{8, 8, 8, 8, 8}
                                   : std::vector<size_t>{128, 8, 8, 8, 8, 8};
    return {tensor_arg(0x1000, TILEC_DTYPE_F32, {n, 64}, {stride, 1})};
  }
  std::string tune(tilec_kernel* k, const std::vector<tilec_arg>& args) {
    tilec_kernel* chosen = nullptr;
    EXPECT_TRUE(IsOk(tilec_kernel_autotune(k, nullptr, args.data(), args.size(), &chosen)));
    return chosen ? tilec_kernel_name(chosen) : "";
  }
  std::string cache_text() {
    std::string path;
    for (const char* f : {"/cache/"}) path = dir_ + f;
    FILE* ls = popen(("cat " + path + "autotune-*.txt 2>/dev/null").c_str(), "r");
    std::string text;
    char buf[256];
    while (ls && fgets(buf, sizeof buf, ls)) text += buf;
    if (ls) pclose(ls);
    return text;
  }
  std::string dir_;
};

// The fastest member wins whatever the cost model says; the choice is
// cached on disk, and another bundle object (another process) reads it
// without launching anything.
TEST_F(RuntimeAutotune, TimesEveryMemberAndCachesTheFastest) {
  const std::string bytes = make_bundle(meta() );
  BundlePtr b = load_ok(bytes);
  tilec_kernel* k = kernel(b.get(), "t");
  fake->function_ms = {{"t", 2.0}, {"t__small", 0.5}};
  auto args = rows(5120);
  tilec_kernel* by_cost = nullptr;
  ASSERT_TRUE(IsOk(tilec_kernel_choose(k, args.data(), args.size(), &by_cost)));
  EXPECT_STREQ(tilec_kernel_name(by_cost), "t");  // the cost model's pick
  fake->l2_bytes = 1 << 20;
  const size_t allocs = fake->allocations.size();
  EXPECT_EQ(tune(k, args), "t__small");
  const size_t tuning_launches = fake->launches.size();
  EXPECT_GE(tuning_launches, 2u * 5u);  // warm-up, a probe and >= 3 timed each
  EXPECT_EQ(fake->events_created, fake->events_destroyed);
  // Each timed launch comes after a write of a buffer twice the L2 cache
  // (cold caches, as do_bench times), which is freed with the tuning.
  size_t flushes = 0;
  for (const auto& m : fake->memsets) flushes += m.bytes == 2u << 20;
  EXPECT_EQ(flushes, tuning_launches);
  ASSERT_EQ(fake->allocations.size(), allocs + 1);
  EXPECT_EQ(fake->frees.back(), fake->allocations.back());
  EXPECT_NE(cache_text().find("tilec-autotune 2\nFake GPU\t12080\tt\t5120x64\tt__small\t"),
            std::string::npos)
      << cache_text();

  // A launch in this process runs the tuned member.
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->launches.back().function, "t__small");

  // Another bundle object: the disk cache answers, nothing is timed.
  BundlePtr again = load_ok(bytes);
  const size_t before = fake->launches.size();
  EXPECT_EQ(tune(kernel(again.get(), "t"), args), "t__small");
  EXPECT_EQ(fake->launches.size(), before);
  // Rows in the same bucket (5000 -> 5120) too; another bucket is timed.
  EXPECT_EQ(tune(kernel(again.get(), "t"), rows(5000)), "t__small");
  EXPECT_EQ(fake->launches.size(), before);
  fake->function_ms = {{"t", 0.25}, {"t__small", 0.5}};
  EXPECT_EQ(tune(kernel(again.get(), "t"), rows(1280)), "t");
  EXPECT_GT(fake->launches.size(), before);
  EXPECT_NE(cache_text().find("\tt\t1280x64\tt\t"), std::string::npos) << cache_text();
  EXPECT_NE(cache_text().find("\tt\t5120x64\tt__small\t"), std::string::npos) << cache_text();
  // Rows 16- but not 32-byte aligned (36 floats apart) are another
  // bucket: a cost may read the strides, and such rows cost TMA more.
  const size_t aligned = fake->launches.size();
  EXPECT_EQ(tune(kernel(again.get(), "t"), rows(5120, 36)), "t");
  EXPECT_GT(fake->launches.size(), aligned);
  EXPECT_NE(cache_text().find("\tt\t5120x64u\tt\t"), std::string::npos) << cache_text();
}

// The cost model's choice stays unless a member beats it beyond the noise
// of the timings (their interquartile ranges, at least 1%), in the tuning
// and again when the two are timed once more: a member 2% faster under
// +-4% noise is not taken; one 30% faster is.
TEST_F(RuntimeAutotune, KeepsTheDefaultUnlessBeatenBeyondNoise) {
  BundlePtr b = load_ok(make_bundle(meta()));
  tilec_kernel* k = kernel(b.get(), "t");
  fake->l2_bytes = 1 << 20;
  fake->jitter = {0.04, -0.04, 0.03, -0.03, 0.0, 0.02, -0.02};
  for (int64_t n : {5120, 6144}) {
    auto args = rows(n);
    tilec_kernel* by_cost = nullptr;
    ASSERT_TRUE(IsOk(tilec_kernel_choose(k, args.data(), args.size(), &by_cost)));
    EXPECT_STREQ(tilec_kernel_name(by_cost), "t") << n;
  }
  fake->function_ms = {{"t", 1.0}, {"t__small", 0.98}};
  EXPECT_EQ(tune(k, rows(5120)), "t");
  fake->function_ms = {{"t", 1.0}, {"t__small", 0.7}};
  EXPECT_EQ(tune(k, rows(6144)), "t__small");
  // Without noise, any win counts beyond 1%: 0.95 against 1.0 is taken.
  fake->jitter.clear();
  fake->function_ms = {{"t", 1.0}, {"t__small", 0.95}};
  EXPECT_EQ(tune(k, rows(8192)), "t__small");
}

// A member that cannot launch at the problem (here: its workspace does not
// fit in device memory) is left out of the timing with a note on stderr;
// the others are still timed and the fastest of them chosen. When no
// member can launch, tuning fails with the first member's error.
TEST_F(RuntimeAutotune, MembersThatRunOutOfMemoryAreLeftOut) {
  std::string m = meta();
  const std::string small = "kernel t__small\nthreads 384\n";
  m.replace(m.find(small), small.size(), small + "workspace mul(dim(0,0),1024)\n");
  BundlePtr b = load_ok(make_bundle(m));
  tilec_kernel* k = kernel(b.get(), "t");
  fake->function_ms = {{"t", 2.0}, {"t__small", 0.5}};
  fake->max_alloc = 1 << 20;  // t__small needs 5 MiB at 5120 rows
  auto args = rows(5120);
  testing::internal::CaptureStderr();
  EXPECT_EQ(tune(k, args), "t");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tilec: autotuning t [5120x64]: t__small left out: "), std::string::npos)
      << err;
  EXPECT_NE(err.find("out of device memory"), std::string::npos) << err;
  EXPECT_EQ(fake->events_created, fake->events_destroyed);

  // Every member refused: the error, not a choice.
  fake->max_alloc = 1 << 10;
  std::string ws = "kernel t\nthreads 384\n";
  std::string m2 = m;
  m2.replace(m2.find(ws), ws.size(), ws + "workspace mul(dim(0,0),1024)\n");
  BundlePtr none = load_ok(make_bundle(m2));
  tilec_kernel* chosen = nullptr;
  testing::internal::CaptureStderr();
  tilec_status st = tilec_kernel_autotune(kernel(none.get(), "t"), nullptr, args.data(),
                                          args.size(), &chosen);
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(IsError(st, TILEC_ERROR_OUT_OF_RESOURCES, {"workspace buffer failed: out of device memory"}));
  EXPECT_EQ(cache_text().find("5120x64\tt__small"), std::string::npos) << cache_text();
}

// Without TILEC_AUTOTUNE a launch does not tune (the cost model chooses)
// and does not read the disk; with TILEC_AUTOTUNE=1 it tunes on a miss and
// uses the disk cache; with 0 it never tunes, not even when asked.
TEST_F(RuntimeAutotune, TheEnvironmentSwitchesIt) {
  const std::string bytes = make_bundle(meta());
  fake->function_ms = {{"t", 2.0}, {"t__small", 0.5}};
  auto args = rows(5120);
  {
    BundlePtr b = load_ok(bytes);
    ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "t"), nullptr, args.data(), args.size())));
    EXPECT_EQ(fake->launches.size(), 1u);
    EXPECT_EQ(fake->launches.back().function, "t");
    EXPECT_EQ(fake->events_created, 0);
  }
  setenv("TILEC_AUTOTUNE", "1", 1);
  {
    BundlePtr b = load_ok(bytes);
    ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "t"), nullptr, args.data(), args.size())));
    EXPECT_GT(fake->launches.size(), 2u);
    EXPECT_EQ(fake->launches.back().function, "t__small");
  }
  {
    BundlePtr b = load_ok(bytes);  // the cache file answers
    const size_t before = fake->launches.size();
    ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "t"), nullptr, args.data(), args.size())));
    EXPECT_EQ(fake->launches.size(), before + 1);
    EXPECT_EQ(fake->launches.back().function, "t__small");
  }
  setenv("TILEC_AUTOTUNE", "0", 1);
  {
    BundlePtr b = load_ok(bytes);
    const size_t before = fake->launches.size();
    EXPECT_EQ(tune(kernel(b.get(), "t"), args), "t");  // the cost model's
    ASSERT_TRUE(IsOk(tilec_launch(kernel(b.get(), "t"), nullptr, args.data(), args.size())));
    EXPECT_EQ(fake->launches.size(), before + 1);
    EXPECT_EQ(fake->launches.back().function, "t");
  }
}

// The plain rule comes first: a view TMA cannot read is not tuned.
TEST_F(RuntimeAutotune, PlainTwinIsNotTuned) {
  BundlePtr b = load_ok(make_bundle(meta()));
  EXPECT_EQ(tune(kernel(b.get(), "t"), rows(5120, 63)), "t__plain");
  EXPECT_TRUE(fake->launches.empty());
  EXPECT_EQ(cache_text(), "");
}

// A corrupt cache file is ignored with a warning (and replaced), never an
// error; so is one that is not a regular file.
TEST_F(RuntimeAutotune, CorruptCacheIsIgnoredWithAWarning) {
  const std::string bytes = make_bundle(meta());
  fake->function_ms = {{"t", 2.0}, {"t__small", 0.5}};
  auto args = rows(5120);
  {
    BundlePtr b = load_ok(bytes);
    EXPECT_EQ(tune(kernel(b.get(), "t"), args), "t__small");
  }
  const std::string text = cache_text();
  FILE* ls = popen(("ls " + dir_ + "/cache/").c_str(), "r");
  char name[256] = {};
  ASSERT_TRUE(fgets(name, sizeof name, ls));
  pclose(ls);
  std::string path = dir_ + "/cache/" + std::string(name, strcspn(name, "\n"));
  for (const std::string& junk :
       {std::string("garbage\n"), std::string("tilec-autotune 2\na\tb\n"),
        std::string("tilec-autotune 2\nFake GPU\t12080\tt\t5120x64\tt__small\tfast\n"),
        std::string("")}) {
    FILE* f = fopen(path.c_str(), "w");
    fputs(junk.c_str(), f);
    fclose(f);
    BundlePtr b = load_ok(bytes);
    testing::internal::CaptureStderr();
    const size_t before = fake->launches.size();
    EXPECT_EQ(tune(kernel(b.get(), "t"), args), "t__small");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("tilec: warning: ignoring the autotuning cache " + path), std::string::npos)
        << junk << " -> " << err;
    EXPECT_GT(fake->launches.size(), before);  // timed again
    EXPECT_EQ(cache_text().rfind("tilec-autotune 2\n", 0), 0u);  // rewritten whole
  }
  // A directory where the file should be: a warning, and the tuned member.
  std::system(("rm -f " + path + " && mkdir " + path).c_str());
  BundlePtr b = load_ok(bytes);
  testing::internal::CaptureStderr();
  EXPECT_EQ(tune(kernel(b.get(), "t"), args), "t__small");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning:"), std::string::npos) << err;
}

// ---- workspaces -----------------------------------------------------------------------

// A kernel with `workspace EXPR`: the runtime allocates at least EXPR bytes
// per (context, stream), zeroes them once on the stream, passes the address
// as a trailing 64-bit parameter, reuses the buffer while it is large
// enough, replaces it when a launch needs more (keeping the old one, which
// launches in flight and captured CUDA graphs may use, until the bundle is
// freed: no stream synchronization), and frees them with the bundle.
TEST_F(RuntimeLaunch, WorkspaceAllocatedZeroedReusedAndGrown) {
  const std::string meta =
      "tilec-bundle 1\narch sm_90a\nkernel w\nthreads 128\n"
      "workspace mul(cdiv(dim(0,0),128),4)\ngrid cdiv(dim(0,0),128) 1 1\n"
      "param tensor x f32 1 shape ? strides 1 align 16\nend\n";
  BundlePtr b = load_ok(make_bundle(meta));
  tilec_kernel* k = kernel(b.get(), "w");
  EXPECT_EQ(tilec_kernel_abi_num_params(k), 4u);  // ptr, extent, stride, workspace
  fake->param_sizes = {8, 8, 8, 8};
  auto launch = [&](int64_t n, void* stream) {
    std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {n}, {1})};
    EXPECT_TRUE(IsOk(tilec_launch(k, stream, args.data(), args.size())));
    uint64_t ws = 0;
    std::memcpy(&ws, fake->launches.back().params[3].data(), 8);
    return ws;
  };
  const uint64_t first = launch(1000, nullptr);  // 8 tiles: 32 bytes
  ASSERT_EQ(fake->allocations.size(), 1u);
  EXPECT_EQ(first, fake->allocations[0]);
  ASSERT_EQ(fake->memsets.size(), 1u);
  EXPECT_EQ(fake->memsets[0].ptr, first);
  EXPECT_EQ(fake->memsets[0].value, 0);
  EXPECT_EQ(fake->memsets[0].bytes, 256u);  // rounded up to 256
  EXPECT_EQ(launch(100, nullptr), first);   // smaller: the same buffer
  EXPECT_EQ(launch(8192, nullptr), first);  // 256 bytes: still fits
  EXPECT_EQ(fake->allocations.size(), 1u);
  const int syncs = fake->stream_syncs;
  const uint64_t grown = launch(100000, nullptr);  // 3128 bytes: a new one
  EXPECT_NE(grown, 0u);
  ASSERT_EQ(fake->allocations.size(), 2u);
  EXPECT_EQ(fake->stream_syncs, syncs);  // the old one is kept, not freed
  EXPECT_EQ(fake->frees.size(), 0u);
  EXPECT_EQ(fake->memsets.back().bytes, 3328u);
  int other = 0;
  void* stream2 = &other;
  const uint64_t second = launch(1000, stream2);  // another stream: its own
  EXPECT_NE(second, grown);
  EXPECT_EQ(fake->memsets.back().stream, stream2);
  b.reset();
  EXPECT_EQ(fake->frees.size(), 3u);
}

// `semaphores EXPR`: a second trailing address, a buffer of its own per
// stream (zeroed when allocated), never the workspace's.
TEST_F(RuntimeLaunch, SemaphoresAreTheirOwnBufferAfterTheWorkspace) {
  const std::string meta =
      "tilec-bundle 1\narch sm_90a\nkernel w\nthreads 128\n"
      "workspace mul(cdiv(dim(0,0),128),512)\nsemaphores mul(cdiv(dim(0,0),128),4)\n"
      "grid cdiv(dim(0,0),128) 1 1\n"
      "param tensor x f32 1 shape ? strides 1 align 16\nend\n";
  BundlePtr b = load_ok(make_bundle(meta));
  tilec_kernel* k = kernel(b.get(), "w");
  EXPECT_EQ(tilec_kernel_abi_num_params(k), 5u);  // ptr, extent, stride, workspace, semaphores
  fake->param_sizes = {8, 8, 8, 8, 8};
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {1000}, {1})};
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  uint64_t ws = 0, sem = 0;
  std::memcpy(&ws, fake->launches.back().params[3].data(), 8);
  std::memcpy(&sem, fake->launches.back().params[4].data(), 8);
  ASSERT_EQ(fake->allocations.size(), 2u);
  EXPECT_EQ(ws, fake->allocations[0]);
  EXPECT_EQ(sem, fake->allocations[1]);
  ASSERT_EQ(fake->memsets.size(), 2u);
  EXPECT_EQ(fake->memsets[0].bytes, 4096u);  // 8 tiles * 512
  EXPECT_EQ(fake->memsets[1].bytes, 256u);   // 8 tiles * 4, rounded up
  EXPECT_EQ(fake->memsets[1].ptr, sem);
  ASSERT_TRUE(IsOk(tilec_launch(k, nullptr, args.data(), args.size())));
  EXPECT_EQ(fake->allocations.size(), 2u);  // both reused
  b.reset();
  EXPECT_EQ(fake->frees.size(), 2u);
}

TEST_F(RuntimeLaunch, WorkspaceMetadataErrors) {
  auto meta = [](const std::string& ws) {
    return "tilec-bundle 1\narch sm_90a\nkernel w\nthreads 128\n" + ws +
           "grid 1 1 1\nparam tensor x f32 1 shape ? strides 1 align 16\nend\n";
  };
  EXPECT_TRUE(IsBadBundle(make_bundle(meta("workspace dim(3,0)\n")),
                          {"kernel 'w' workspace 'dim(3,0)': parameter 3 does not exist"}));
  EXPECT_TRUE(IsBadBundle(make_bundle(meta("workspace 8\nworkspace 8\n")),
                          {"duplicate 'workspace' in kernel 'w'"}));
  EXPECT_TRUE(IsBadBundle(make_bundle(meta("workspace cdiv(\n")), {"workspace: "}));
  BundlePtr b = load_ok(make_bundle(meta("workspace sub(0,dim(0,0))\n")));
  std::vector<tilec_arg> args{tensor_arg(0x1000, TILEC_DTYPE_F32, {5}, {1})};
  fake->param_sizes = {8, 8, 8, 8};
  EXPECT_TRUE(IsError(tilec_launch(kernel(b.get(), "w"), nullptr, args.data(), args.size()),
                      TILEC_ERROR_INVALID_ARGUMENT,
                      {"kernel 'w' workspace 'sub(0,dim(0,0))' is -5 bytes"}));
  EXPECT_TRUE(fake->launches.empty());
}
