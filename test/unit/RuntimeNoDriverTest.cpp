// Without a CUDA driver: parsing and validation work, everything that needs
// the driver fails with TILEC_ERROR_NO_DRIVER and names the library.
//
// TILEC_CUDA_DRIVER points the runtime at another driver library. A failed
// load is not remembered, so each call below re-reads the variable.
#include "RuntimeTestUtil.h"

#include <cstdlib>

using namespace tilec_test;

namespace {

class RuntimeNoDriver : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TILEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1); }
  void TearDown() override { unsetenv("TILEC_CUDA_DRIVER"); }
};

}  // namespace

TEST_F(RuntimeNoDriver, LaunchFailsNamingTheLibrary) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  tilec_kernel* k = nullptr;
  ASSERT_TRUE(IsOk(tilec_bundle_get_kernel(b.get(), "vector_add", &k)));
  auto args = vector_add_args(4096);
  EXPECT_TRUE(IsError(tilec_launch(k, nullptr, args.data(), args.size()), TILEC_ERROR_NO_DRIVER,
                      {"tilec_launch: cannot load the CUDA driver library",
                       "'/nonexistent/libcuda.so.1' (set by TILEC_CUDA_DRIVER)"}));
  const uint32_t grid[3] = {4, 1, 1};
  EXPECT_TRUE(IsError(tilec_launch_grid(k, nullptr, grid, args.data(), args.size()),
                      TILEC_ERROR_NO_DRIVER, {"tilec_launch_grid", "/nonexistent/libcuda.so.1"}));
  EXPECT_TRUE(IsError(tilec_bundle_load_module(b.get()), TILEC_ERROR_NO_DRIVER,
                      {"tilec_bundle_load_module", "/nonexistent/libcuda.so.1"}));
}

TEST_F(RuntimeNoDriver, ArgumentErrorsComeFirst) {
  BundlePtr b = load_ok(make_bundle(vector_add_meta()));
  tilec_kernel* k = nullptr;
  ASSERT_TRUE(IsOk(tilec_bundle_get_kernel(b.get(), "vector_add", &k)));
  auto args = vector_add_args(4096);
  args[1].data = 0;
  EXPECT_TRUE(IsError(tilec_launch(k, nullptr, args.data(), args.size()),
                      TILEC_ERROR_INVALID_ARGUMENT,
                      {"tilec_launch: kernel 'vector_add' parameter 1 ('y'): data pointer is NULL"}));
  const uint32_t bad_grid[3] = {1, 70000, 1};
  args = vector_add_args(4096);
  EXPECT_TRUE(IsError(tilec_launch_grid(k, nullptr, bad_grid, args.data(), args.size()),
                      TILEC_ERROR_INVALID_ARGUMENT,
                      {"grid y (explicit) = 70000 (must be in 1..65535)"}));
}

TEST_F(RuntimeNoDriver, DeviceHelpersFail) {
  int sm = -1;
  EXPECT_TRUE(IsError(tilec_device_info(&sm, nullptr, nullptr, nullptr), TILEC_ERROR_NO_DRIVER,
                      {"tilec_device_info", "libcuda.so.1"}));
  EXPECT_EQ(sm, -1);
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_NO_DRIVER, {"tilec_synchronize"}));
  uint64_t p = 0;
  EXPECT_TRUE(IsError(tilec_malloc(&p, 16), TILEC_ERROR_NO_DRIVER, {"tilec_malloc"}));
  char host[4];
  EXPECT_TRUE(IsError(tilec_memcpy_dtoh(host, 0x1000, 4), TILEC_ERROR_NO_DRIVER,
                      {"tilec_memcpy_dtoh"}));
  // Nothing to do needs no driver.
  EXPECT_TRUE(IsOk(tilec_free(0)));
  EXPECT_TRUE(IsOk(tilec_memcpy_htod(0x1000, host, 0)));
}

TEST_F(RuntimeNoDriver, FailuresAreNotCached) {
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_NO_DRIVER, {"/nonexistent/libcuda.so.1"}));
  setenv("TILEC_CUDA_DRIVER", "/another/missing/driver.so", 1);
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_NO_DRIVER, {"/another/missing/driver.so"}));
}

TEST_F(RuntimeNoDriver, LibraryThatIsNotTheDriver) {
  setenv("TILEC_CUDA_DRIVER", "libm.so.6", 1);
  EXPECT_TRUE(IsError(tilec_synchronize(), TILEC_ERROR_NO_DRIVER,
                      {"'libm.so.6' (set by TILEC_CUDA_DRIVER) lacks 'cuGetErrorName'"}));
}
