// A fake CUDA driver (libtilec_fake_cuda.so) for testing the launch path
// without a GPU: it implements the driver entry points the runtime resolves,
// records every call in FakeCudaState, and can be told to fail.
#ifndef TILEC_TEST_UNIT_RUNTIME_FAKE_CUDA_H
#define TILEC_TEST_UNIT_RUNTIME_FAKE_CUDA_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

struct FakeLaunch {
  bool ex = false;  // cuLaunchKernelEx
  std::string function;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned smem = 0;
  void* stream = nullptr;
  unsigned cluster[3] = {0, 0, 0};  // from the cluster attribute
  unsigned num_attrs = 0;
  bool null_params = false;
  std::vector<std::vector<uint8_t>> params;  // copied with FakeCudaState::param_sizes
  std::vector<uintptr_t> param_addresses;
};

struct FakeEncode {
  int dtype = -1;
  uint32_t rank = 0;
  uint64_t address = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {};
  uint32_t box[5] = {};
  uint32_t element_strides[5] = {};
  int interleave = -1, swizzle = -1, l2 = -1, fill = -1;
  uintptr_t map = 0;
};

struct FakeFuncAttr {
  std::string function;
  int attr = 0;
  int value = 0;
};

struct FakeCudaState {
  // ---- configuration ----
  int init_result = 0;
  int cc_major = 9, cc_minor = 0, sm_count = 132, smem_optin = 232448;
  int l2_bytes = 1 << 20;  // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
  int cubin_load_result = 0;  // what cuModuleLoadData returns
  int ptx_load_result = 0;    // what cuModuleLoadDataEx returns
  std::string ptx_log;        // written to the JIT error log on failure
  int launch_result = 0;
  std::vector<std::string> known_functions;  // empty: any name resolves
  std::vector<size_t> param_sizes;           // bytes to copy per kernel parameter
  std::string device_name = "Fake GPU";
  int driver_version = 12080;
  std::map<std::string, double> function_ms;  // a launch's time between events (default 1)
  // Noise: launch i of the whole run takes function_ms · (1 + jitter[i % size]).
  std::vector<double> jitter;
  size_t max_alloc = SIZE_MAX;  // cuMemAlloc of more fails with CUDA_ERROR_OUT_OF_MEMORY
  // ---- state and records ----
  void* current_context = nullptr;
  int init_calls = 0;
  int primary_retains = 0;
  int set_current_calls = 0;
  std::vector<std::string> module_loads;  // "cubin:<first 8 bytes>" or "ptx:<text>"
  int module_unloads = 0;
  std::vector<std::string> get_function_calls;
  std::vector<std::string> function_modules;  // per get_function call: its module's load record
  std::vector<FakeFuncAttr> func_attrs;
  std::vector<FakeLaunch> launches;
  std::vector<FakeEncode> encodes;
  std::vector<uint64_t> allocations;
  std::vector<uint64_t> frees;
  struct Memset {
    uint64_t ptr;
    unsigned char value;
    size_t bytes;
    void* stream;
  };
  std::vector<Memset> memsets;
  int stream_syncs = 0, ctx_syncs = 0;
  int events_created = 0, events_destroyed = 0, event_syncs = 0;
};

extern "C" FakeCudaState* fake_cuda_state();
extern "C" void fake_cuda_reset();
/// cuInit calls since the library was loaded (not cleared by fake_cuda_reset).
extern "C" int fake_cuda_lifetime_init_calls();

#endif  // TILEC_TEST_UNIT_RUNTIME_FAKE_CUDA_H
