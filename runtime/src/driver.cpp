// The CUDA driver: loading it at run time, contexts, modules and launches.
#include "internal.h"

#include <atomic>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

namespace tilec_rt {
namespace {

std::mutex g_mutex;             // guards g_driver and g_primary
// Loaded once (under g_mutex), kept for the life of the process; read
// without the lock once set (every launch asks for it).
std::atomic<Driver*> g_driver{nullptr};
std::map<int, CUcontext> g_primary;  // primary contexts retained by the runtime

constexpr uint32_t kDefaultSmemLimit = 48 * 1024;

std::string driver_path(bool& from_env) {
  const char* env = std::getenv("TILEC_CUDA_DRIVER");
  from_env = env && *env;
  return from_env ? std::string(env) : std::string("libcuda.so.1");
}

int tensor_map_dtype(int dtype) {
  switch (dtype) {
    case TILEC_DTYPE_I16: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case TILEC_DTYPE_I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case TILEC_DTYPE_I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case TILEC_DTYPE_F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case TILEC_DTYPE_BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case TILEC_DTYPE_F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case TILEC_DTYPE_F64: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT8;  // i1, i8, f8e4m3, f8e5m2
  }
}

int tensor_map_swizzle(int bytes) {
  switch (bytes) {
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

std::string kernel_prefix(const tilec_kernel& k, const char* api) {
  return cat(api, ": kernel '", k.name, "'");
}

// Best-effort compute capability of the current device, for messages.
std::string device_cc_text(Driver& d) {
  CUdevice dev = 0;
  int major = 0, minor = 0;
  if (d.cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
      d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != 0 ||
      d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != 0)
    return "unknown";
  return cat(major, ".", minor);
}

// Whether code for `arch` runs on a device of compute capability
// major.minor. An arch-specific target (sm_90a, sm_100a: wgmma, setmaxnreg,
// tcgen05) runs on its own compute capability alone, a family target
// (sm_100f) on its major's later minors, a plain one on it and later ones.
bool arch_runs_on(const std::string& arch, int major, int minor, std::string& needs) {
  size_t i = 3;
  int number = 0;
  while (i < arch.size() && arch[i] >= '0' && arch[i] <= '9') number = number * 10 + (arch[i++] - '0');
  const std::string suffix = arch.substr(i);
  const int want_major = number / 10, want_minor = number % 10;
  const std::string cc = cat(want_major, ".", want_minor);
  if (suffix == "a") {
    needs = cat("compute capability ", cc, " exactly");
    return major == want_major && minor == want_minor;
  }
  if (suffix == "f") {
    needs = cat("compute capability ", want_major, ".x, at least ", cc);
    return major == want_major && minor >= want_minor;
  }
  needs = cat("compute capability ", cc, " or later");
  return major > want_major || (major == want_major && minor >= want_minor);
}

ModuleSlot& slot_for(tilec_bundle& b, CUcontext ctx) {
  for (ModuleSlot& s : b.modules)
    if (s.ctx == ctx) return s;
  ModuleSlot s;
  s.ctx = ctx;
  s.modules.assign(b.module_count(), nullptr);
  s.functions.assign(b.kernels.size(), nullptr);
  s.smem_set.assign(b.kernels.size(), 0);
  b.modules.push_back(std::move(s));
  return b.modules.back();
}

// Code module `index` of the bundle in the slot's context, loaded on first
// use: the cubin, else the PTX through the driver's JIT (a module carried
// as PTX alone, or a cubin the device cannot run). The driver keeps what it
// compiled in its cache on disk (~/.nv/ComputeCache), so a later process
// loads it without compiling again.
CUmodule module_in(Driver& d, tilec_bundle& b, ModuleSlot& slot, uint32_t index,
                   const char* api) {
  CUmodule& module = slot.modules[index];
  if (module) return module;
  // Refused before the driver tries (it would only say there is no kernel
  // image), naming both sides.
  CUdevice dev = 0;
  int major = 0, minor = 0;
  std::string needs;
  if (d.cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
      d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == 0 &&
      d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == 0 &&
      !arch_runs_on(b.arch, major, minor, needs))
    fail(TILEC_ERROR_UNSUPPORTED,
         cat(api, ": the bundle was compiled for ", b.arch, ", which needs ", needs,
             "; this device has compute capability ", major, ".", minor,
             " (compile for it: tilec compile --arch=sm_", major, minor, "a)"));
  std::string errors;
  CUresult last = CUDA_SUCCESS;
  auto describe = [&](CUresult r) {
    const char* name = nullptr;
    const char* str = nullptr;
    d.cuGetErrorName(r, &name);
    d.cuGetErrorString(r, &str);
    return cat(name ? name : "CUDA error", " (", str ? str : cat("code ", r), ")");
  };
  if (b.has_cubin && !b.cubins[index].empty()) {
    last = d.cuModuleLoadData(&module, b.cubins[index].data());
    if (last != CUDA_SUCCESS) {
      module = nullptr;
      errors = cat("cuModuleLoadData (cubin) failed: ", describe(last));
    }
  }
  if (!module && b.has_ptx) {
    std::vector<char> log(16384, '\0');
    int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
    last = d.cuModuleLoadDataEx(&module, b.ptxs[index].c_str(), 2, options, values);
    if (last != CUDA_SUCCESS) {
      module = nullptr;
      log.back() = '\0';
      if (!errors.empty()) errors += "; ";
      errors += cat("cuModuleLoadDataEx (PTX JIT) failed: ", describe(last));
      if (log[0]) errors += cat("; JIT log: ", log.data());
    }
  }
  if (!module) {
    const std::string which =
        b.module_count() > 1 ? cat(" module ", index, " of ", b.module_count()) : "";
    fail(TILEC_ERROR_DRIVER,
         cat(api, ": cannot load the bundle", which, " (arch ", b.arch,
             ") on this device (compute capability ", device_cc_text(d), "): ", errors),
         last);
  }
  return module;
}

// The workspace of `k`'s launches on `stream` in `ctx`: at least `bytes`,
// zero when allocated (ordered on the stream), kept for later launches and
// replaced by a larger one when a launch needs more (the old one is kept
// until the bundle is freed: launches in flight may use it). With
// `semaphores`, the stream's semaphores instead (the same rules; every
// kernel leaves them zero). A launch being captured into a CUDA graph gets
// buffers of the capture's own, allocated in relaxed capture mode and
// zeroed by a memset the graph replays before its kernels: the graph keeps
// them, and never shares them with the stream's later launches.
CUdeviceptr workspace_for(Driver& d, tilec_kernel& k, CUcontext ctx, CUstream stream, size_t bytes,
                          bool semaphores, const std::string& where) {
  if (bytes == 0) return 0;
  unsigned long long capture = 0;  // the capture's id; 0: not capturing
  int status = 0;                  // CU_STREAM_CAPTURE_STATUS_ACTIVE = 1
  if (d.cuStreamGetCaptureInfo &&
      d.cuStreamGetCaptureInfo(stream, &status, &capture, nullptr, nullptr, nullptr) !=
          CUDA_SUCCESS)
    status = 0;
  const bool capturing = status == 1;
  if (!capturing) capture = 0;
  tilec_bundle& b = *k.bundle;
  std::lock_guard<std::mutex> lock(b.mutex);
  ModuleSlot& slot = slot_for(b, ctx);
  ModuleSlot::Workspace& ws = (semaphores ? slot.semaphores : slot.workspaces)[{stream, capture}];
  if (ws.bytes >= bytes) return ws.ptr;
  if (!d.cuMemsetD8Async)
    fail(TILEC_ERROR_UNSUPPORTED, cat(where, ": the CUDA driver lacks cuMemsetD8Async"));
  // At least twice the old size: the retired buffers (kept until the
  // bundle is freed) then take less than the live one.
  const size_t size = std::max((bytes + 255) / 256 * 256, 2 * ws.bytes);
  if (ws.ptr) {
    slot.retired.push_back(ws.ptr);
    ws = {};
  }
  CUdeviceptr ptr = 0;
  int mode = 2;  // CU_STREAM_CAPTURE_MODE_RELAXED
  const bool relax = capturing && d.cuThreadExchangeStreamCaptureMode &&
                     d.cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS;
  const CUresult allocated = d.cuMemAlloc(&ptr, size);
  if (relax) d.cuThreadExchangeStreamCaptureMode(&mode);
  if (allocated == CUDA_ERROR_OUT_OF_MEMORY)
    fail(TILEC_ERROR_OUT_OF_RESOURCES,
         cat(where, ": cuMemAlloc of a ", size, "-byte ", semaphores ? "semaphores" : "workspace",
             " buffer failed: out of device memory"),
         allocated);
  check_cu(d, allocated, "cuMemAlloc", cat(where, " workspace of ", size, " bytes"));
  if (CUresult r = d.cuMemsetD8Async(ptr, 0, size, stream)) {
    d.cuMemFree(ptr);
    check_cu(d, r, "cuMemsetD8Async", where);
  }
  ws.ptr = ptr;
  ws.bytes = size;
  return ptr;
}

CUfunction function_in(Driver& d, tilec_kernel& k, ModuleSlot& slot, const char* api) {
  CUfunction& f = slot.functions[k.index];
  if (!f) {
    CUmodule module = module_in(d, *k.bundle, slot, k.module, api);
    CUfunction found = nullptr;
    check_cu(d, d.cuModuleGetFunction(&found, module, k.name.c_str()), "cuModuleGetFunction",
             kernel_prefix(k, api) + " (is the kernel in the bundle's machine code?)");
    f = found;
  }
  return f;
}

}  // namespace

Driver& driver(const char* api) {
  if (Driver* ready = g_driver.load(std::memory_order_acquire)) return *ready;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (Driver* ready = g_driver.load(std::memory_order_acquire)) return *ready;
  bool from_env = false;
  const std::string path = driver_path(from_env);
  const std::string origin = from_env ? " (set by TILEC_CUDA_DRIVER)" : "";
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    fail(TILEC_ERROR_NO_DRIVER,
         cat(api, ": cannot load the CUDA driver library '", path, "'", origin, ": ",
             err ? err : "unknown error", " (is the NVIDIA driver installed?)"));
  }
  auto d = std::make_unique<Driver>();
  const char* missing = nullptr;
#define TILEC_RESOLVE(field, symbol, required, ret, args)                        \
  d->field = reinterpret_cast<ret(*) args>(dlsym(handle, symbol));               \
  if (!d->field && required && !missing) missing = symbol;
  TILEC_CUDA_FUNCTIONS(TILEC_RESOLVE)
#undef TILEC_RESOLVE
  if (missing) {
    dlclose(handle);
    fail(TILEC_ERROR_NO_DRIVER,
         cat(api, ": the CUDA driver library '", path, "'", origin, " lacks '", missing,
             "' (driver too old, or not libcuda)"));
  }
  d->handle = handle;
  const CUresult r = d->cuInit(0);
  // On failure the library stays open (cuInit may have started threads) but is
  // not remembered, so that the next call tries again.
  check_cu(*d, r, "cuInit", api);
  Driver* loaded = d.release();
  g_driver.store(loaded, std::memory_order_release);
  return *loaded;
}

void check_cu(Driver& d, CUresult r, const char* call, const std::string& what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* str = nullptr;
  if (d.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (d.cuGetErrorString(r, &str) != CUDA_SUCCESS) str = nullptr;
  fail(TILEC_ERROR_DRIVER,
       cat(what, what.empty() ? "" : ": ", call, " failed: ", name ? name : cat("CUDA error ", r),
           " (", str ? str : "no description", ")"),
       r);
}

CUcontext ensure_context(Driver& d, const char* api) {
  CUcontext ctx = nullptr;
  check_cu(d, d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", api);
  if (ctx) return ctx;
  int index = 0;
  if (const char* env = std::getenv("TILEC_DEVICE"); env && *env) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 0 || v > 1 << 20)
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           cat(api, ": TILEC_DEVICE='", env, "' is not a device index"));
    index = static_cast<int>(v);
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_primary.find(index);
    if (it != g_primary.end()) {
      ctx = it->second;
    } else {
      CUdevice dev = 0;
      check_cu(d, d.cuDeviceGet(&dev, index), "cuDeviceGet",
               cat(api, ": device ", index));
      check_cu(d, d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain",
               cat(api, ": device ", index));
      g_primary[index] = ctx;  // kept for the life of the process
    }
  }
  check_cu(d, d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", api);
  return ctx;
}

CUdevice current_device(Driver& d, const char* api) {
  CUdevice dev = 0;
  check_cu(d, d.cuCtxGetDevice(&dev), "cuCtxGetDevice", api);
  return dev;
}

void load_module(Driver& d, tilec_bundle& b, CUcontext ctx, const char* api) {
  std::lock_guard<std::mutex> lock(b.mutex);
  ModuleSlot& slot = slot_for(b, ctx);
  for (auto& k : b.kernels) function_in(d, *k, slot, api);
}

int64_t DeviceSms::get() {
  if (sms_ >= 0) return sms_;
  Driver& d = driver(api_);
  ensure_context(d, api_);
  int v = 0;
  check_cu(d,
           d.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                  current_device(d, api_)),
           "cuDeviceGetAttribute", api_);
  sms_ = v;
  return sms_;
}

namespace {

// Issues `k`'s function `f` on `stream` (a cluster launch where `k` has
// clusters).
void issue(Driver& d, const tilec_kernel& k, CUfunction f, const uint32_t grid[3],
           CUstream stream, void** kernel_params, const std::string& where) {
  if (k.cluster[0] == 1 && k.cluster[1] == 1 && k.cluster[2] == 1) {
    check_cu(d,
             d.cuLaunchKernel(f, grid[0], grid[1], grid[2], k.threads, 1, 1, k.smem, stream,
                              kernel_params, nullptr),
             "cuLaunchKernel", where);
    return;
  }
  if (!d.cuLaunchKernelEx)
    fail(TILEC_ERROR_UNSUPPORTED,
         cat(where, ": cluster launch needs cuLaunchKernelEx, which the CUDA driver lacks"));
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = k.cluster[0];
  attr.value.clusterDim.y = k.cluster[1];
  attr.value.clusterDim.z = k.cluster[2];
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof config);
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = k.threads;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = k.smem;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  check_cu(d, d.cuLaunchKernelEx(&config, f, kernel_params, nullptr), "cuLaunchKernelEx", where);
}

// ---- launch cache ----------------------------------------------------------
// A launch with the same arguments (every field a tensor or scalar argument
// uses), stream, grid request, context and autotuning state as the kernel's
// last one chooses the same member, grid and parameters (TMA descriptors
// included: they encode the same addresses and extents), so it reissues
// them: the repeated launch of a training or serving loop skips the checks,
// the cost rules and the encoding. Launches that get a buffer per launch
// (workspace, semaphores: per stream and capture; a profile buffer) are not
// cached.

bool same_arg(const tilec_arg& a, const tilec_arg& b) {
  if (a.kind != b.kind || a.dtype != b.dtype) return false;
  if (a.kind != TILEC_ARG_TENSOR) return std::memcmp(&a.value, &b.value, sizeof a.value) == 0;
  if (a.data != b.data || a.rank != b.rank) return false;
  if (a.rank < 0 || a.rank > TILEC_MAX_RANK) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

bool cache_matches(const LaunchCache& c, const tilec_kernel& k, CUstream stream,
                   CUcontext ctx, const uint32_t* explicit_grid, bool choose,
                   const tilec_arg* args, size_t n, int mode) {
  if (!c.valid || c.stream != stream || c.ctx != ctx || c.choose != choose ||
      c.explicit_grid != (explicit_grid != nullptr) || c.tune_mode != mode ||
      c.tuned_generation != k.bundle->tuned_generation.load(std::memory_order_relaxed) ||
      c.args.size() != n)
    return false;
  if (explicit_grid && std::memcmp(c.requested_grid, explicit_grid, sizeof c.requested_grid))
    return false;
  for (size_t i = 0; i < n; ++i)
    if (!same_arg(c.args[i], args[i])) return false;
  return true;
}

}  // namespace

void launch(tilec_kernel& requested, CUstream stream, const uint32_t* explicit_grid,
            const tilec_arg* args, size_t n, const char* api, bool choose,
            tilec_profile* profile) {
  const int mode = static_cast<int>(tune_mode());
  if (!profile && args) {
    LaunchCache& c = requested.last_launch;
    std::lock_guard<std::mutex> lock(c.mutex);
    // Valid only after a launch went through: the driver is loaded (and an
    // argument error still comes before any driver error).
    CUcontext ctx = nullptr;
    if (c.valid) {
      Driver& d = driver(api);
      if (d.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx &&
          cache_matches(c, requested, stream, ctx, explicit_grid, choose, args, n, mode)) {
        issue(d, *c.chosen, c.function, c.grid, stream,
              c.params.empty() ? nullptr : c.params.data(), c.where);
        return;
      }
    }
  }
  // Read before choosing: a choice made while tuning finished is cached as
  // an older generation's (and so not reused).
  const uint64_t generation = requested.bundle->tuned_generation.load(std::memory_order_relaxed);
  DeviceSms sms(api);
  if (choose) check_arg_count(requested, args, n, api);
  // An explicit grid runs the kernel named (or its plain twin): no tuning.
  const tilec_kernel* chosen =
      !choose         ? &requested
      : explicit_grid ? &select_variant(requested, args, n, api, -1)
                      : &choose_member(requested, stream, args, n, api,
                                       sms.for_choice(requested), tune_mode());
  tilec_kernel& k = const_cast<tilec_kernel&>(*chosen);
  validate_args(k, args, n, api);
  uint32_t grid[3];
  if (explicit_grid) {
    // The grid was made for the kernel named; its plain variant (the only
    // other kernel an explicit grid may run) takes it only under the same
    // rule.
    if (&k != &requested)
      for (int i = 0; i < 3; ++i)
        if (k.grid[i].text != requested.grid[i].text)
          fail(TILEC_ERROR_INVALID_ARGUMENT,
               cat(kernel_prefix(requested, api), ": a view TMA cannot read needs ", k.name,
                   ", whose grid rule (", k.grid[0].text, " ", k.grid[1].text, " ",
                   k.grid[2].text, ") is not ", requested.name,
                   "'s; launch without an explicit grid"));
    std::memcpy(grid, explicit_grid, sizeof grid);
  } else {
    eval_grid(k, args, n, api, grid, sms.for_grid(k));
  }
  check_grid(k, grid, api, explicit_grid == nullptr);

  Driver& d = driver(api);
  const CUcontext ctx = ensure_context(d, api);
  const std::string where = kernel_prefix(k, api);
  CUfunction f = nullptr;
  {
    tilec_bundle& b = *k.bundle;
    std::lock_guard<std::mutex> lock(b.mutex);
    ModuleSlot& slot = slot_for(b, ctx);
    f = function_in(d, k, slot, api);
    if (k.smem > kDefaultSmemLimit && slot.smem_set[k.index] != k.smem) {
      if (slot.smem_optin < 0) {
        int optin = 0;
        check_cu(d,
                 d.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                        current_device(d, api)),
                 "cuDeviceGetAttribute", where);
        slot.smem_optin = optin;
      }
      if (k.smem > static_cast<uint32_t>(slot.smem_optin))
        fail(TILEC_ERROR_OUT_OF_RESOURCES,
             cat(where, " needs ", k.smem, " bytes of dynamic shared memory, the device allows at most ",
                 slot.smem_optin, " bytes per block (opt-in limit)"));
      check_cu(d, d.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       static_cast<int>(k.smem)),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", where);
      slot.smem_set[k.index] = k.smem;
    }
  }

  // Parameter storage, 128-byte aligned so that every CUtensorMap offset
  // (a multiple of 64) is 64-byte aligned in memory too.
  std::vector<uint8_t> storage(k.abi_size + 128);
  uint8_t* buf = storage.data() + (128 - reinterpret_cast<uintptr_t>(storage.data()) % 128) % 128;
  pack_args(k, args, buf);

  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    if (!p.tma) continue;
    if (!d.cuTensorMapEncodeTiled)
      fail(TILEC_ERROR_UNSUPPORTED,
           cat(where, " parameter ", i, " ('", p.name,
               "'): the CUDA driver lacks cuTensorMapEncodeTiled (needs a CUDA 12 driver)"));
    const tilec_arg& a = args[i];
    if (p.tma_fallback && !tma_problem(p, a).empty()) {
      // The kernel sees a zero descriptor and reads the view without TMA.
      std::memset(buf + k.abi_offsets[p.abi_first], 0, sizeof(CUtensorMap));
      continue;
    }
    const int r = p.rank;
    const uint64_t esize = dtype_size(p.dtype);
    uint64_t dims[TILEC_MAX_RANK], strides[TILEC_MAX_RANK];
    uint32_t box[TILEC_MAX_RANK], elem_strides[TILEC_MAX_RANK];
    for (int j = 0; j < r; ++j) {  // the driver wants the innermost dim first
      dims[j] = static_cast<uint64_t>(a.shape[r - 1 - j]);
      box[j] = static_cast<uint32_t>(p.box[r - 1 - j]);
      elem_strides[j] = 1;
    }
    for (int j = 0; j + 1 < r; ++j)  // bytes, for dims 1..r-1 (innermost-first order)
      strides[j] = static_cast<uint64_t>(a.strides[r - 2 - j]) * esize;
    auto* map = reinterpret_cast<CUtensorMap*>(buf + k.abi_offsets[p.abi_first]);
    check_cu(d,
             d.cuTensorMapEncodeTiled(map, tensor_map_dtype(p.dtype), static_cast<uint32_t>(r),
                                      reinterpret_cast<void*>(static_cast<uintptr_t>(a.data)), dims,
                                      strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      tensor_map_swizzle(p.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                      p.fill == TILEC_FILL_NAN
                                          ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                          : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
             "cuTensorMapEncodeTiled", cat(where, " parameter ", i, " ('", p.name, "')"));
  }

  // The workspace, then the semaphores: the last ABI parameters.
  size_t trailing = k.abi_offsets.size() - (k.has_workspace ? 1 : 0) -
                    (k.has_semaphores ? 1 : 0) - (k.profiled() ? 2 : 0);
  for (bool semaphores : {false, true}) {
    if (!(semaphores ? k.has_semaphores : k.has_workspace)) continue;
    const GridExpr& e = semaphores ? k.semaphores : k.workspace;
    const int64_t bytes =
        eval_workspace(k, args, n, api, semaphores, e.uses_sms() ? sms.get() : -1);
    const CUdeviceptr ws =
        workspace_for(d, k, ctx, stream, static_cast<size_t>(bytes), semaphores, where);
    std::memcpy(buf + k.abi_offsets[trailing++], &ws, sizeof ws);
  }

  // The profile buffer's address (0 in a launch that does not record).
  if (profile) {
    if (!k.profiled())
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           cat(where, " was compiled without --profile: it records nothing"));
    const CUdeviceptr pb = profile_buffer_for(*profile, k, grid, ctx, where);
    std::memcpy(buf + k.abi_offsets[trailing], &pb, sizeof pb);
    std::memcpy(buf + k.abi_offsets[trailing + 1], &profile->records_per_group,
                sizeof profile->records_per_group);
  }

  std::vector<void*> params(k.abi_offsets.size());
  for (size_t j = 0; j < params.size(); ++j) params[j] = buf + k.abi_offsets[j];
  void** kernel_params = params.empty() ? nullptr : params.data();
  issue(d, k, f, grid, stream, kernel_params, where);

  // Remember it for the next launch with the same arguments (see above).
  if (profile || !args || k.has_workspace || k.has_semaphores) return;
  LaunchCache& c = requested.last_launch;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.valid = false;
  c.args.assign(args, args + n);
  c.stream = stream;
  c.ctx = ctx;
  c.choose = choose;
  c.explicit_grid = explicit_grid != nullptr;
  if (explicit_grid) std::memcpy(c.requested_grid, explicit_grid, sizeof c.requested_grid);
  c.tune_mode = mode;
  c.tuned_generation = generation;
  c.chosen = &k;
  c.function = f;
  std::memcpy(c.grid, grid, sizeof c.grid);
  c.storage = std::move(storage);  // the heap buffer (and `buf` in it) stays
  c.params = std::move(params);
  c.where = where;
  c.valid = true;
}

void unload_modules(tilec_bundle& b) noexcept {
  if (b.modules.empty()) return;
  // (A bundle with loaded modules was loaded through a driver already set.)
  Driver* d = g_driver.load(std::memory_order_acquire);
  if (!d) return;
  // Kernels launched from a module may still run: wait for the context to go
  // idle before unloading (errors are ignored, e.g. at process exit).
  for (ModuleSlot& s : b.modules) {
    CUcontext cur = nullptr;
    if (d->cuCtxGetCurrent(&cur) != CUDA_SUCCESS) continue;
    auto unload = [&] {
      d->cuCtxSynchronize();
      for (CUmodule m : s.modules)
        if (m) d->cuModuleUnload(m);
      for (auto* buffers : {&s.workspaces, &s.semaphores})
        for (auto& [key, ws] : *buffers)
          if (ws.ptr) d->cuMemFree(ws.ptr);
      for (CUdeviceptr p : s.retired) d->cuMemFree(p);
    };
    if (cur == s.ctx) {
      unload();
    } else if (d->cuCtxPushCurrent(s.ctx) == CUDA_SUCCESS) {
      unload();
      CUcontext popped = nullptr;
      d->cuCtxPopCurrent(&popped);
    }
  }
  b.modules.clear();
}

}  // namespace tilec_rt

tilec_bundle::~tilec_bundle() { tilec_rt::unload_modules(*this); }
