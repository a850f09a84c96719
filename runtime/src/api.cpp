// The C API: argument checks and the exception-to-status boundary.
#include "internal.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>


#ifndef TILEC_RUNTIME_VERSION
#define TILEC_RUNTIME_VERSION "0.1.0"
#endif

using namespace tilec_rt;

namespace {

// Returned when not even a status can be allocated; never freed.
tilec_status_st g_oom_status{TILEC_ERROR_OUT_OF_RESOURCES, 0, "out of host memory"};

tilec_status make_status(int code, const std::string& message, int driver_error) noexcept {
  try {
    return new tilec_status_st{code, driver_error, message};
  } catch (...) {
    return &g_oom_status;
  }
}

// Runs `f`, turning anything it throws into a status.
template <class F>
tilec_status guard(const char* api, F&& f) noexcept {
  try {
    f();
    return nullptr;
  } catch (const Error& e) {
    return make_status(e.code, e.message, e.driver_error);
  } catch (const std::bad_alloc&) {
    return &g_oom_status;
  } catch (const std::exception& e) {
    return make_status(TILEC_ERROR_OUT_OF_RESOURCES, cat(api, ": internal error: ", e.what()), 0);
  } catch (...) {
    return make_status(TILEC_ERROR_OUT_OF_RESOURCES, cat(api, ": internal error"), 0);
  }
}

void require(bool ok, const char* api, const char* what) {
  if (!ok) fail(TILEC_ERROR_INVALID_ARGUMENT, cat(api, ": ", what));
}

}  // namespace

extern "C" {

int tilec_status_code(tilec_status status) { return status ? status->code : TILEC_OK; }

const char* tilec_status_message(tilec_status status) {
  return status ? status->message.c_str() : "success";
}

int tilec_status_driver_error(tilec_status status) { return status ? status->driver_error : 0; }

void tilec_status_free(tilec_status status) {
  if (status && status != &g_oom_status) delete status;
}

const char* tilec_status_code_name(int code) {
  switch (code) {
    case TILEC_OK: return "TILEC_OK";
    case TILEC_ERROR_INVALID_ARGUMENT: return "TILEC_ERROR_INVALID_ARGUMENT";
    case TILEC_ERROR_BAD_BUNDLE: return "TILEC_ERROR_BAD_BUNDLE";
    case TILEC_ERROR_NOT_FOUND: return "TILEC_ERROR_NOT_FOUND";
    case TILEC_ERROR_NO_DRIVER: return "TILEC_ERROR_NO_DRIVER";
    case TILEC_ERROR_DRIVER: return "TILEC_ERROR_DRIVER";
    case TILEC_ERROR_UNSUPPORTED: return "TILEC_ERROR_UNSUPPORTED";
    case TILEC_ERROR_OUT_OF_RESOURCES: return "TILEC_ERROR_OUT_OF_RESOURCES";
    default: return "TILEC_UNKNOWN";
  }
}

const char* tilec_runtime_version(void) { return TILEC_RUNTIME_VERSION; }

size_t tilec_dtype_size(int dtype) { return dtype_size(dtype); }

const char* tilec_dtype_name(int dtype) { return dtype_valid(dtype) ? dtype_name(dtype) : nullptr; }

int tilec_dtype_from_name(const char* name) {
  if (!name) return TILEC_DTYPE_INVALID;
  try {
    return dtype_from_name(name);
  } catch (...) {
    return TILEC_DTYPE_INVALID;
  }
}

int tilec_dtype_is_integer(int dtype) { return dtype_is_int(dtype) ? 1 : 0; }

// ---- bundles ------------------------------------------------------------------

tilec_status tilec_bundle_load_memory(const void* data, size_t size, tilec_bundle** out) {
  static const char* api = "tilec_bundle_load_memory";
  return guard(api, [&] {
    require(out != nullptr, api, "out is NULL");
    require(data != nullptr || size == 0, api, "data is NULL");
    try {
      *out = parse_bundle(static_cast<const uint8_t*>(data), data ? size : 0).release();
    } catch (Error& e) {
      e.message = cat(api, ": ", e.message);
      throw;
    }
  });
}

/// The largest bundle file tilec_bundle_load_file reads (bundles are a few MiB).
constexpr size_t kMaxBundleBytes = size_t{1} << 30;

tilec_status tilec_bundle_load_file(const char* path, tilec_bundle** out) {
  static const char* api = "tilec_bundle_load_file";
  return guard(api, [&] {
    require(out != nullptr, api, "out is NULL");
    require(path != nullptr, api, "path is NULL");
    std::string bytes;
    int err = 0;
    switch (read_regular_file(path, kMaxBundleBytes, bytes, err)) {
      case FileRead::Ok:
        break;
      case FileRead::OpenFailed:
        fail(err == ENOENT || err == ENOTDIR ? TILEC_ERROR_NOT_FOUND : TILEC_ERROR_INVALID_ARGUMENT,
             cat(api, ": cannot open '", path, "': ", std::strerror(err)));
      case FileRead::NotRegular:
        fail(TILEC_ERROR_INVALID_ARGUMENT, cat(api, ": '", path, "' is not a regular file"));
      case FileRead::TooLarge:
        fail(TILEC_ERROR_INVALID_ARGUMENT,
             cat(api, ": '", path, "' is larger than ", kMaxBundleBytes >> 20, " MiB"));
      case FileRead::ReadFailed:
        fail(TILEC_ERROR_INVALID_ARGUMENT, cat(api, ": cannot read '", path, "': ", std::strerror(err)));
    }
    try {
      *out = parse_bundle(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).release();
    } catch (Error& e) {
      e.message = cat(api, ": '", path, "': ", e.message);
      throw;
    }
  });
}

void tilec_bundle_free(tilec_bundle* bundle) { delete bundle; }

const char* tilec_bundle_arch(const tilec_bundle* b) { return b ? b->arch.c_str() : nullptr; }

const char* tilec_bundle_metadata(const tilec_bundle* b) {
  return b ? b->metadata.c_str() : nullptr;
}

int tilec_bundle_has_cubin(const tilec_bundle* b) { return b && b->has_cubin ? 1 : 0; }

int tilec_bundle_has_ptx(const tilec_bundle* b) { return b && b->has_ptx ? 1 : 0; }

size_t tilec_bundle_num_modules(const tilec_bundle* b) { return b ? b->module_count() : 0; }

size_t tilec_bundle_num_kernels(const tilec_bundle* b) { return b ? b->kernels.size() : 0; }

const char* tilec_bundle_kernel_name(const tilec_bundle* b, size_t index) {
  if (!b || index >= b->kernels.size()) return nullptr;
  return b->kernels[index]->name.c_str();
}

tilec_status tilec_bundle_get_kernel(tilec_bundle* b, const char* name, tilec_kernel** out) {
  static const char* api = "tilec_bundle_get_kernel";
  return guard(api, [&] {
    require(b != nullptr, api, "bundle is NULL");
    require(name != nullptr, api, "name is NULL");
    require(out != nullptr, api, "out is NULL");
    auto it = b->by_name.find(name);
    if (it != b->by_name.end()) {
      *out = it->second;
      return;
    }
    std::string names;
    for (auto& k : b->kernels) names += (names.empty() ? "" : ", ") + k->name;
    fail(TILEC_ERROR_NOT_FOUND,
         cat(api, ": no kernel '", name, "' in the bundle (available: ", names, ")"));
  });
}

tilec_status tilec_bundle_load_module(tilec_bundle* b) {
  static const char* api = "tilec_bundle_load_module";
  return guard(api, [&] {
    require(b != nullptr, api, "bundle is NULL");
    Driver& d = driver(api);
    load_module(d, *b, ensure_context(d, api), api);
  });
}

// ---- kernels --------------------------------------------------------------------

const char* tilec_kernel_name(const tilec_kernel* k) { return k ? k->name.c_str() : nullptr; }

uint32_t tilec_kernel_threads(const tilec_kernel* k) { return k ? k->threads : 0; }

uint32_t tilec_kernel_smem(const tilec_kernel* k) { return k ? k->smem : 0; }

void tilec_kernel_cluster(const tilec_kernel* k, uint32_t cluster[3]) {
  if (!cluster) return;
  for (int i = 0; i < 3; ++i) cluster[i] = k ? k->cluster[i] : 0;
}

const char* tilec_kernel_grid_expr(const tilec_kernel* k, int axis) {
  if (!k || axis < 0 || axis > 2) return nullptr;
  return k->grid[axis].text.c_str();
}

size_t tilec_kernel_num_params(const tilec_kernel* k) { return k ? k->params.size() : 0; }

tilec_status tilec_kernel_param(const tilec_kernel* k, size_t index, tilec_param_info* out) {
  static const char* api = "tilec_kernel_param";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    require(out != nullptr, api, "out is NULL");
    if (index >= k->params.size())
      fail(TILEC_ERROR_INVALID_ARGUMENT, cat(api, ": kernel '", k->name, "' has ", k->params.size(),
                                             " params, index ", index, " is out of range"));
    const Param& p = k->params[index];
    tilec_param_info info;
    std::memset(&info, 0, sizeof info);
    info.kind = p.kind;
    info.dtype = p.dtype;
    info.name = p.name.c_str();
    info.rank = p.rank;
    for (int i = 0; i < TILEC_MAX_RANK; ++i) {
      info.shape[i] = i < p.rank ? p.shape[i] : 0;
      info.strides[i] = i < p.rank ? p.strides[i] : 0;
      info.box[i] = i < p.rank && p.tma ? p.box[i] : 0;
    }
    info.align = p.kind == TILEC_ARG_TENSOR ? p.align : 0;
    info.tma = p.tma ? 1 : 0;
    info.swizzle = p.swizzle;
    info.fill = p.fill;
    *out = info;
  });
}

tilec_status tilec_kernel_validate(const tilec_kernel* k, const tilec_arg* args, size_t n) {
  static const char* api = "tilec_kernel_validate";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    DeviceSms sms(api);
    const tilec_kernel& run = select_variant(*k, args, n, api, sms.for_choice(*k));
    validate_args(run, args, n, api);
    uint32_t grid[3];
    eval_grid(run, args, n, api, grid, sms.for_grid(run));
    check_grid(run, grid, api, true);
  });
}

tilec_status tilec_kernel_choose(tilec_kernel* k, const tilec_arg* args, size_t n,
                                 tilec_kernel** chosen) {
  static const char* api = "tilec_kernel_choose";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    require(chosen != nullptr, api, "chosen is NULL");
    check_arg_count(*k, args, n, api);
    *chosen = const_cast<tilec_kernel*>(&select_variant(*k, args, n, api, DeviceSms(api).for_choice(*k)));
  });
}

tilec_status tilec_kernel_grid(const tilec_kernel* k, const tilec_arg* args, size_t n,
                               uint32_t grid[3]) {
  static const char* api = "tilec_kernel_grid";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    require(grid != nullptr, api, "grid is NULL");
    eval_grid(*k, args, n, api, grid, DeviceSms(api).for_grid(*k));
  });
}

size_t tilec_kernel_abi_num_params(const tilec_kernel* k) {
  return k ? k->abi_offsets.size() : 0;
}

tilec_status tilec_kernel_pack_args(const tilec_kernel* k, const tilec_arg* args, size_t n,
                                    void* buffer, size_t capacity, size_t* size, size_t* offsets) {
  static const char* api = "tilec_kernel_pack_args";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    require(size != nullptr, api, "size is NULL");
    validate_args(*k, args, n, api);
    if (buffer && capacity < k->abi_size)
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           cat(api, ": kernel '", k->name, "' needs ", k->abi_size, " bytes, capacity is ", capacity));
    if (buffer) {
      // Pack through an aligned scratch buffer so that the caller's buffer
      // needs no particular alignment.
      std::vector<uint8_t> scratch(k->abi_size + 64);
      uint8_t* p = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
      pack_args(*k, args, p);
      std::memcpy(buffer, p, k->abi_size);
    }
    if (offsets)
      for (size_t j = 0; j < k->abi_offsets.size(); ++j) offsets[j] = k->abi_offsets[j];
    *size = k->abi_size;
  });
}

// ---- launch ---------------------------------------------------------------------

tilec_status tilec_launch(tilec_kernel* k, void* stream, const tilec_arg* args, size_t n) {
  static const char* api = "tilec_launch";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    launch(*k, static_cast<CUstream>(stream), nullptr, args, n, api);
  });
}

tilec_status tilec_profile_create(uint32_t records_per_group, tilec_profile** out) {
  static const char* api = "tilec_profile_create";
  return guard(api, [&] {
    require(out != nullptr, api, "out is NULL");
    require(records_per_group >= 1 && records_per_group <= (1u << 24), api,
            "records_per_group must be 1..16777216");
    auto p = std::make_unique<tilec_profile>();
    p->records_per_group = records_per_group;
    *out = p.release();
  });
}

void tilec_profile_free(tilec_profile* p) {
  if (!p) return;
  profile_release(*p);
  delete p;
}

tilec_status tilec_launch_profiled(tilec_kernel* k, void* stream, const uint32_t* grid,
                                   const tilec_arg* args, size_t n, tilec_profile* p) {
  static const char* api = "tilec_launch_profiled";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    require(p != nullptr, api, "profile is NULL");
    launch(*k, static_cast<CUstream>(stream), grid, args, n, api, true, p);
  });
}

tilec_status tilec_profile_collect(tilec_profile* p) {
  static const char* api = "tilec_profile_collect";
  return guard(api, [&] {
    require(p != nullptr, api, "profile is NULL");
    profile_collect(*p, api);
  });
}

tilec_status tilec_profile_add_buffer(tilec_profile* p, const tilec_kernel* k,
                                      const uint32_t grid[3], const void* data, size_t size) {
  static const char* api = "tilec_profile_add_buffer";
  return guard(api, [&] {
    require(p != nullptr && k != nullptr && grid != nullptr, api,
            "profile, kernel or grid is NULL");
    require(data != nullptr || size == 0, api, "data is NULL");
    require(k->profiled(), api, "the kernel was compiled without --profile");
    profile_add_buffer(*p, *k, grid, data, size);
  });
}

tilec_status tilec_profile_write_trace(tilec_profile* p, const char* path) {
  static const char* api = "tilec_profile_write_trace";
  return guard(api, [&] {
    require(p != nullptr && path != nullptr, api, "profile or path is NULL");
    // Perfetto's protobuf format for .pftrace / .perfetto-trace, else JSON.
    const std::string name = path;
    auto ends_with = [&](const std::string& suffix) {
      return name.size() >= suffix.size() &&
             name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    const bool proto = ends_with(".pftrace") || ends_with(".perfetto-trace");
    if (!write_file_atomically(path, proto ? profile_trace_perfetto(*p) : profile_trace(*p)))
      fail(errno == ENOENT ? TILEC_ERROR_NOT_FOUND : TILEC_ERROR_OUT_OF_RESOURCES,
           cat(api, ": cannot write '", path, "': ", std::strerror(errno)));
  });
}

tilec_status tilec_profile_summary(tilec_profile* p, char* buffer, size_t capacity,
                                   size_t* length) {
  static const char* api = "tilec_profile_summary";
  return guard(api, [&] {
    require(p != nullptr && length != nullptr, api, "profile or length is NULL");
    const std::string text = profile_summary(*p);
    *length = text.size() + 1;
    if (!buffer) return;
    if (capacity < text.size() + 1)
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           cat(api, ": the summary needs ", text.size() + 1, " bytes, capacity is ", capacity));
    std::memcpy(buffer, text.c_str(), text.size() + 1);
  });
}

uint64_t tilec_profile_dropped(tilec_profile* p) {
  return p ? profile_dropped(*p) : 0;
}

int tilec_kernel_profiled(const tilec_kernel* k) { return k && k->profiled() ? 1 : 0; }

tilec_status tilec_kernel_autotune(tilec_kernel* k, void* stream, const tilec_arg* args,
                                   size_t n, tilec_kernel** chosen) {
  static const char* api = "tilec_kernel_autotune";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    check_arg_count(*k, args, n, api);
    const TuneMode mode = tune_mode() == TuneMode::Off ? TuneMode::Off : TuneMode::Tune;
    const tilec_kernel& c = choose_member(*k, static_cast<CUstream>(stream), args, n, api,
                                          DeviceSms(api).for_choice(*k), mode);
    // A cached choice launches nothing: the arguments are checked here (a
    // timed one was checked by its launches).
    if (&c != k->plain) validate_args(*k, args, n, api);
    if (chosen) *chosen = const_cast<tilec_kernel*>(&c);
  });
}

tilec_status tilec_launch_grid(tilec_kernel* k, void* stream, const uint32_t grid[3],
                               const tilec_arg* args, size_t n) {
  static const char* api = "tilec_launch_grid";
  return guard(api, [&] {
    require(k != nullptr, api, "kernel is NULL");
    require(grid != nullptr, api, "grid is NULL");
    launch(*k, static_cast<CUstream>(stream), grid, args, n, api);
  });
}

// ---- device helpers -------------------------------------------------------------

tilec_status tilec_device_info(int* sm_count, int* smem_optin, int* cc_major, int* cc_minor) {
  static const char* api = "tilec_device_info";
  return guard(api, [&] {
    Driver& d = driver(api);
    ensure_context(d, api);
    const CUdevice dev = current_device(d, api);
    int v[4] = {};
    const int attrs[4] = {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR};
    for (int i = 0; i < 4; ++i)
      check_cu(d, d.cuDeviceGetAttribute(&v[i], attrs[i], dev), "cuDeviceGetAttribute", api);
    if (sm_count) *sm_count = v[0];
    if (smem_optin) *smem_optin = v[1];
    if (cc_major) *cc_major = v[2];
    if (cc_minor) *cc_minor = v[3];
  });
}

tilec_status tilec_synchronize(void) {
  static const char* api = "tilec_synchronize";
  return guard(api, [&] {
    Driver& d = driver(api);
    ensure_context(d, api);
    check_cu(d, d.cuCtxSynchronize(), "cuCtxSynchronize", api);
  });
}

tilec_status tilec_stream_synchronize(void* stream) {
  static const char* api = "tilec_stream_synchronize";
  return guard(api, [&] {
    Driver& d = driver(api);
    ensure_context(d, api);
    check_cu(d, d.cuStreamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize", api);
  });
}

tilec_status tilec_malloc(uint64_t* ptr, size_t bytes) {
  static const char* api = "tilec_malloc";
  return guard(api, [&] {
    require(ptr != nullptr, api, "ptr is NULL");
    Driver& d = driver(api);
    ensure_context(d, api);
    CUdeviceptr p = 0;
    const CUresult r = d.cuMemAlloc(&p, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      fail(TILEC_ERROR_OUT_OF_RESOURCES,
           cat(api, ": cuMemAlloc of ", bytes, " bytes failed: out of device memory"), r);
    check_cu(d, r, "cuMemAlloc", cat(api, ": ", bytes, " bytes"));
    *ptr = p;
  });
}

tilec_status tilec_free(uint64_t ptr) {
  static const char* api = "tilec_free";
  return guard(api, [&] {
    if (ptr == 0) return;
    Driver& d = driver(api);
    ensure_context(d, api);
    check_cu(d, d.cuMemFree(ptr), "cuMemFree", api);
  });
}

tilec_status tilec_memcpy_htod(uint64_t dst, const void* src, size_t bytes) {
  static const char* api = "tilec_memcpy_htod";
  return guard(api, [&] {
    require(src != nullptr || bytes == 0, api, "src is NULL");
    if (bytes == 0) return;
    Driver& d = driver(api);
    ensure_context(d, api);
    check_cu(d, d.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD", api);
  });
}

tilec_status tilec_memcpy_dtoh(void* dst, uint64_t src, size_t bytes) {
  static const char* api = "tilec_memcpy_dtoh";
  return guard(api, [&] {
    require(dst != nullptr || bytes == 0, api, "dst is NULL");
    if (bytes == 0) return;
    Driver& d = driver(api);
    ensure_context(d, api);
    check_cu(d, d.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH", api);
  });
}

}  // extern "C"
