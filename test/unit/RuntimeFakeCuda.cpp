// The fake CUDA driver; see RuntimeFakeCuda.h. Signatures come from the
// runtime's own declarations (runtime/src/cuda_driver.h).
#include "RuntimeFakeCuda.h"

#include "cuda_driver.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

using namespace tilec_rt;

#define FAKE_API extern "C" __attribute__((visibility("default")))

struct FakeFunction {
  std::string name;
};

namespace {

FakeCudaState g_state;
int g_lifetime_init_calls = 0;
std::vector<void*> g_ctx_stack;  // contexts pushed with cuCtxPushCurrent
std::vector<std::unique_ptr<FakeFunction>> g_functions;
int g_primary_ctx_storage;
CUcontext const kPrimary = reinterpret_cast<CUcontext>(&g_primary_ctx_storage);

// Every entry point holds this lock: the runtime may call the driver from
// several threads at once (RuntimeLaunch.LaunchesFromSeveralThreads), and
// the records are plain vectors.
std::recursive_mutex g_lock;
struct FakeLock {
  std::lock_guard<std::recursive_mutex> guard{g_lock};
};

struct FakeModule {
  bool ptx;
  std::string image;  // as module_loads recorded it
};

void record_launch(FakeLaunch& l, CUfunction f, void** params) {
  l.function = reinterpret_cast<FakeFunction*>(f)->name;
  l.null_params = params == nullptr;
  if (!params) return;
  for (size_t i = 0; i < g_state.param_sizes.size(); ++i) {
    const auto* p = static_cast<const uint8_t*>(params[i]);
    l.params.emplace_back(p, p + g_state.param_sizes[i]);
    l.param_addresses.push_back(reinterpret_cast<uintptr_t>(params[i]));
  }
}

}  // namespace

FAKE_API FakeCudaState* fake_cuda_state() { return &g_state; }
FAKE_API void fake_cuda_reset() {
  g_state = FakeCudaState();
  g_ctx_stack.clear();
}
FAKE_API int fake_cuda_lifetime_init_calls() { return g_lifetime_init_calls; }

// Plain-C views of the records, for tests written in other languages (Python).
FAKE_API void fake_cuda_set_function_ms(const char* name, double ms) {
  g_state.function_ms[name] = ms;
}
FAKE_API int fake_cuda_launch_count() { return static_cast<int>(g_state.launches.size()); }
FAKE_API int fake_cuda_last_launch(unsigned grid[3], unsigned block[3], unsigned* smem,
                                   void** stream, unsigned cluster[3]) {
  if (g_state.launches.empty()) return 0;
  const FakeLaunch& l = g_state.launches.back();
  for (int i = 0; i < 3; ++i) {
    grid[i] = l.grid[i];
    block[i] = l.block[i];
    cluster[i] = l.cluster[i];
  }
  *smem = l.smem;
  *stream = l.stream;
  return 1;
}

FAKE_API CUresult cuGetErrorName(CUresult r, const char** s) {
  FakeLock lock;
  switch (r) {
    case 0: *s = "CUDA_SUCCESS"; return 0;
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
    case 209: *s = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return 0;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 701: *s = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return 0;
    default: *s = nullptr; return 1;
  }
}

FAKE_API CUresult cuGetErrorString(CUresult r, const char** s) {
  FakeLock lock;
  switch (r) {
    case 100: *s = "no CUDA-capable device is detected"; return 0;
    case 209: *s = "no kernel image is available for execution on the device"; return 0;
    case 218: *s = "a PTX JIT compilation failed"; return 0;
    case 500: *s = "named symbol not found"; return 0;
    case 701: *s = "too many resources requested for launch"; return 0;
    default: *s = nullptr; return 1;
  }
}

FAKE_API CUresult cuInit(unsigned) {
  FakeLock lock;
  ++g_state.init_calls;
  ++g_lifetime_init_calls;
  return g_state.init_result;
}

FAKE_API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  FakeLock lock;
  if (ordinal != 0) return 101;  // CUDA_ERROR_INVALID_DEVICE
  *d = 0;
  return 0;
}

FAKE_API CUresult cuDeviceGetAttribute(int* v, int attr, CUdevice) {
  FakeLock lock;
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = g_state.sm_count; return 0;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = g_state.cc_major; return 0;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = g_state.cc_minor; return 0;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = g_state.smem_optin; return 0;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = g_state.l2_bytes; return 0;
    default: return 1;
  }
}

FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  FakeLock lock;
  ++g_state.primary_retains;
  *c = kPrimary;
  return 0;
}

FAKE_API CUresult cuCtxGetCurrent(CUcontext* c) {
  FakeLock lock;
  *c = static_cast<CUcontext>(g_state.current_context);
  return 0;
}

FAKE_API CUresult cuCtxSetCurrent(CUcontext c) {
  FakeLock lock;
  ++g_state.set_current_calls;
  g_state.current_context = c;
  return 0;
}

FAKE_API CUresult cuCtxGetDevice(CUdevice* d) {
  FakeLock lock;
  if (!g_state.current_context) return 201;  // CUDA_ERROR_INVALID_CONTEXT
  *d = 0;
  return 0;
}

FAKE_API CUresult cuCtxPushCurrent_v2(CUcontext c) {
  FakeLock lock;
  g_ctx_stack.push_back(g_state.current_context);
  g_state.current_context = c;
  return 0;
}

FAKE_API CUresult cuCtxPopCurrent_v2(CUcontext* c) {
  FakeLock lock;
  if (g_ctx_stack.empty()) return 201;
  if (c) *c = static_cast<CUcontext>(g_state.current_context);
  g_state.current_context = g_ctx_stack.back();
  g_ctx_stack.pop_back();
  return 0;
}

FAKE_API CUresult cuCtxSynchronize() {
  FakeLock lock;
  ++g_state.ctx_syncs;
  return 0;
}

FAKE_API CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  FakeLock lock;
  g_state.module_loads.push_back("cubin:" + std::string(static_cast<const char*>(image), 8));
  if (g_state.cubin_load_result) return g_state.cubin_load_result;
  *m = reinterpret_cast<CUmodule>(new FakeModule{false, g_state.module_loads.back()});
  return 0;
}

FAKE_API CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned n, int* options,
                                     void** values) {
  FakeLock lock;
  g_state.module_loads.push_back("ptx:" + std::string(static_cast<const char*>(image)));
  if (g_state.ptx_load_result) {
    for (unsigned i = 0; i < n; ++i) {
      if (options[i] != CU_JIT_ERROR_LOG_BUFFER) continue;
      size_t cap = 0;
      for (unsigned j = 0; j < n; ++j)
        if (options[j] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
          cap = reinterpret_cast<uintptr_t>(values[j]);
      if (cap > 0) {
        std::strncpy(static_cast<char*>(values[i]), g_state.ptx_log.c_str(), cap - 1);
        static_cast<char*>(values[i])[cap - 1] = '\0';
      }
    }
    return g_state.ptx_load_result;
  }
  *m = reinterpret_cast<CUmodule>(new FakeModule{true, g_state.module_loads.back()});
  return 0;
}

FAKE_API CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  FakeLock lock;
  g_state.get_function_calls.push_back(name);
  g_state.function_modules.push_back(reinterpret_cast<FakeModule*>(m)->image);
  if (!g_state.known_functions.empty()) {
    bool found = false;
    for (const auto& n : g_state.known_functions) found = found || n == name;
    if (!found) return 500;
  }
  g_functions.push_back(std::make_unique<FakeFunction>(FakeFunction{name}));
  *f = reinterpret_cast<CUfunction>(g_functions.back().get());
  return 0;
}

FAKE_API CUresult cuModuleUnload(CUmodule m) {
  FakeLock lock;
  ++g_state.module_unloads;
  delete reinterpret_cast<FakeModule*>(m);
  return 0;
}

FAKE_API CUresult cuFuncSetAttribute(CUfunction f, int attr, int value) {
  FakeLock lock;
  g_state.func_attrs.push_back({reinterpret_cast<FakeFunction*>(f)->name, attr, value});
  return 0;
}

FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned smem, CUstream stream,
                                 void** params, void** extra) {
  FakeLock lock;
  if (extra) return 1;
  FakeLaunch l;
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.smem = smem;
  l.stream = stream;
  record_launch(l, f, params);
  g_state.launches.push_back(l);
  return g_state.launch_result;
}

FAKE_API CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params,
                                   void** extra) {
  FakeLock lock;
  if (extra) return 1;
  FakeLaunch l;
  l.ex = true;
  l.grid[0] = c->gridDimX, l.grid[1] = c->gridDimY, l.grid[2] = c->gridDimZ;
  l.block[0] = c->blockDimX, l.block[1] = c->blockDimY, l.block[2] = c->blockDimZ;
  l.smem = c->sharedMemBytes;
  l.stream = c->hStream;
  l.num_attrs = c->numAttrs;
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    if (c->attrs[i].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) continue;
    l.cluster[0] = c->attrs[i].value.clusterDim.x;
    l.cluster[1] = c->attrs[i].value.clusterDim.y;
    l.cluster[2] = c->attrs[i].value.clusterDim.z;
  }
  record_launch(l, f, params);
  g_state.launches.push_back(l);
  return g_state.launch_result;
}

FAKE_API CUresult cuTensorMapEncodeTiled(CUtensorMap* map, int dtype, uint32_t rank, void* address,
                                         const uint64_t* dims, const uint64_t* strides,
                                         const uint32_t* box, const uint32_t* elem, int interleave,
                                         int swizzle, int l2, int fill) {
  FakeLock lock;
  FakeEncode e;
  e.dtype = dtype;
  e.rank = rank;
  e.address = reinterpret_cast<uintptr_t>(address);
  for (uint32_t i = 0; i < rank && i < 5; ++i) {
    e.dims[i] = dims[i];
    e.box[i] = box[i];
    e.element_strides[i] = elem[i];
    if (i + 1 < rank) e.strides[i] = strides[i];
  }
  e.interleave = interleave, e.swizzle = swizzle, e.l2 = l2, e.fill = fill;
  e.map = reinterpret_cast<uintptr_t>(map);
  g_state.encodes.push_back(e);
  if (reinterpret_cast<uintptr_t>(map) % 64 != 0) return 1;
  // A recognizable descriptor: the address, then a marker.
  std::memset(map, 0, sizeof *map);
  map->opaque[0] = e.address;
  map->opaque[1] = 0x7e57ab1e00000000ull | g_state.encodes.size();
  return 0;
}

FAKE_API CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  FakeLock lock;
  std::strncpy(name, g_state.device_name.c_str(), static_cast<size_t>(len));
  return 0;
}

FAKE_API CUresult cuDriverGetVersion(int* v) {
  FakeLock lock;
  *v = g_state.driver_version;
  return 0;
}

// An event remembers how many launches came before it; the time between
// two is the sum of function_ms of the launches between them.
struct FakeEvent {
  size_t launches = 0;
};

FAKE_API CUresult cuEventCreate(CUevent* e, unsigned) {
  FakeLock lock;
  ++g_state.events_created;
  *e = reinterpret_cast<CUevent>(new FakeEvent);
  return 0;
}

FAKE_API CUresult cuEventRecord(CUevent e, CUstream) {
  FakeLock lock;
  reinterpret_cast<FakeEvent*>(e)->launches = g_state.launches.size();
  return 0;
}

FAKE_API CUresult cuEventSynchronize(CUevent) {
  FakeLock lock;
  ++g_state.event_syncs;
  return 0;
}

FAKE_API CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  FakeLock lock;
  double total = 0;
  for (size_t i = reinterpret_cast<FakeEvent*>(a)->launches;
       i < reinterpret_cast<FakeEvent*>(b)->launches; ++i) {
    auto it = g_state.function_ms.find(g_state.launches[i].function);
    const double noise =
        g_state.jitter.empty() ? 0.0 : g_state.jitter[i % g_state.jitter.size()];
    total += (it == g_state.function_ms.end() ? 1.0 : it->second) * (1.0 + noise);
  }
  *ms = static_cast<float>(total);
  return 0;
}

FAKE_API CUresult cuEventDestroy_v2(CUevent e) {
  FakeLock lock;
  ++g_state.events_destroyed;
  delete reinterpret_cast<FakeEvent*>(e);
  return 0;
}

FAKE_API CUresult cuStreamSynchronize(CUstream) {
  FakeLock lock;
  ++g_state.stream_syncs;
  return 0;
}

FAKE_API CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  FakeLock lock;
  if (n > g_state.max_alloc) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  void* m = std::malloc(n ? n : 1);
  if (!m) return 2;
  *p = reinterpret_cast<uintptr_t>(m);
  g_state.allocations.push_back(*p);
  return 0;
}

FAKE_API CUresult cuMemFree_v2(CUdeviceptr p) {
  FakeLock lock;
  g_state.frees.push_back(p);
  std::free(reinterpret_cast<void*>(p));
  return 0;
}

FAKE_API CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s) {
  FakeLock lock;
  g_state.memsets.push_back({p, v, n, s});
  std::memset(reinterpret_cast<void*>(p), v, n);
  return 0;
}

FAKE_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  FakeLock lock;
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return 0;
}

FAKE_API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  FakeLock lock;
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return 0;
}
