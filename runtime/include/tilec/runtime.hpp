// Header-only C++ wrapper over the tilec runtime C API (tilec/runtime.h):
// RAII handles, exceptions instead of status values, argument helpers.
//
//   tilec::Bundle bundle = tilec::Bundle::load_file("vector_add.tlc");
//   tilec::Kernel k = bundle.kernel("vector_add");
//   k.launch({tilec::Arg::tensor(x, TILEC_DTYPE_F32, {n}),
//             tilec::Arg::tensor(y, TILEC_DTYPE_F32, {n}),
//             tilec::Arg::tensor(out, TILEC_DTYPE_F32, {n}),
//             tilec::Arg::f32(2.0f)});
#ifndef TILEC_RUNTIME_HPP
#define TILEC_RUNTIME_HPP

#include "tilec/runtime.h"

#include <array>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// A failed runtime call: the status code, its message, and for
/// TILEC_ERROR_DRIVER the driver's CUresult.
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message, int driver_error = 0)
      : std::runtime_error(message), code_(code), driver_error_(driver_error) {}
  int code() const noexcept { return code_; }
  int driver_error() const noexcept { return driver_error_; }

 private:
  int code_;
  int driver_error_;
};

/// Throws tilec::Error for a non-NULL status (and frees it).
inline void check(tilec_status status) {
  if (!status) return;
  Error e(tilec_status_code(status), tilec_status_message(status),
          tilec_status_driver_error(status));
  tilec_status_free(status);
  throw e;
}

/// A launch argument with constructors for tensors and scalars.
struct Arg : tilec_arg {
  Arg() { std::memset(static_cast<tilec_arg*>(this), 0, sizeof(tilec_arg)); }

  /// A tensor at device address `data`; `strides` (elements) default to
  /// row-major contiguous.
  static Arg tensor(uint64_t data, tilec_dtype dtype, std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides = {}) {
    return tensor(data, dtype, std::vector<int64_t>(shape), std::vector<int64_t>(strides));
  }
  static Arg tensor(const void* data, tilec_dtype dtype, std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides = {}) {
    return tensor(reinterpret_cast<uint64_t>(data), dtype, shape, strides);
  }
  static Arg tensor(uint64_t data, tilec_dtype dtype, const std::vector<int64_t>& shape,
                    const std::vector<int64_t>& strides = {}) {
    if (shape.empty() || shape.size() > TILEC_MAX_RANK)
      throw Error(TILEC_ERROR_INVALID_ARGUMENT, "tilec::Arg::tensor: rank must be 1..5");
    if (!strides.empty() && strides.size() != shape.size())
      throw Error(TILEC_ERROR_INVALID_ARGUMENT,
                  "tilec::Arg::tensor: strides and shape differ in length");
    Arg a;
    a.kind = TILEC_ARG_TENSOR;
    a.dtype = dtype;
    a.data = data;
    a.rank = static_cast<int32_t>(shape.size());
    int64_t step = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      a.shape[i] = shape[i];
      a.strides[i] = strides.empty() ? step : strides[i];
      step *= shape[i];
    }
    return a;
  }
  /// An integer scalar of dtype i1..i64.
  static Arg int_scalar(tilec_dtype dtype, int64_t v) {
    Arg a;
    a.kind = TILEC_ARG_SCALAR;
    a.dtype = dtype;
    a.value.i = v;
    return a;
  }
  /// A float scalar of dtype f16, bf16, f32, f64, f8e4m3 or f8e5m2.
  static Arg float_scalar(tilec_dtype dtype, double v) {
    Arg a;
    a.kind = TILEC_ARG_SCALAR;
    a.dtype = dtype;
    a.value.f = v;
    return a;
  }
  static Arg i1(bool v) { return int_scalar(TILEC_DTYPE_I1, v ? 1 : 0); }
  static Arg i8(int8_t v) { return int_scalar(TILEC_DTYPE_I8, v); }
  static Arg i16(int16_t v) { return int_scalar(TILEC_DTYPE_I16, v); }
  static Arg i32(int32_t v) { return int_scalar(TILEC_DTYPE_I32, v); }
  static Arg i64(int64_t v) { return int_scalar(TILEC_DTYPE_I64, v); }
  static Arg f16(double v) { return float_scalar(TILEC_DTYPE_F16, v); }
  static Arg bf16(double v) { return float_scalar(TILEC_DTYPE_BF16, v); }
  static Arg f32(float v) { return float_scalar(TILEC_DTYPE_F32, v); }
  static Arg f64(double v) { return float_scalar(TILEC_DTYPE_F64, v); }
};
static_assert(sizeof(Arg) == sizeof(tilec_arg), "Arg adds no state");

/// Metadata of one kernel parameter.
struct ParamInfo {
  int kind = 0;
  int dtype = 0;
  std::string name;
  int rank = 0;
  std::vector<int64_t> shape;    ///< TILEC_DYNAMIC for '?'
  std::vector<int64_t> strides;  ///< TILEC_DYNAMIC for '?'
  int64_t align = 0;
  bool tma = false;
  std::vector<int32_t> box;
  int swizzle = 0;
  int fill = TILEC_FILL_ZERO;
};

using Grid = std::array<uint32_t, 3>;

/// A kernel of a Bundle (non-owning; valid while the Bundle lives).
class Kernel {
 public:
  explicit Kernel(tilec_kernel* k = nullptr) : k_(k) {}
  tilec_kernel* get() const noexcept { return k_; }
  std::string name() const { return tilec_kernel_name(k_); }
  uint32_t threads() const { return tilec_kernel_threads(k_); }
  uint32_t smem() const { return tilec_kernel_smem(k_); }
  Grid cluster() const {
    Grid c{};
    tilec_kernel_cluster(k_, c.data());
    return c;
  }
  std::string grid_expr(int axis) const {
    const char* e = tilec_kernel_grid_expr(k_, axis);
    return e ? e : "";
  }
  size_t num_params() const { return tilec_kernel_num_params(k_); }
  ParamInfo param(size_t i) const {
    tilec_param_info info;
    check(tilec_kernel_param(k_, i, &info));
    ParamInfo p;
    p.kind = info.kind;
    p.dtype = info.dtype;
    p.name = info.name;
    p.rank = info.rank;
    p.shape.assign(info.shape, info.shape + info.rank);
    p.strides.assign(info.strides, info.strides + info.rank);
    p.align = info.align;
    p.tma = info.tma != 0;
    if (p.tma) p.box.assign(info.box, info.box + info.rank);
    p.swizzle = info.swizzle;
    p.fill = info.fill;
    return p;
  }
  std::vector<ParamInfo> params() const {
    std::vector<ParamInfo> v;
    for (size_t i = 0; i < num_params(); ++i) v.push_back(param(i));
    return v;
  }
  void validate(const std::vector<Arg>& args) const {
    check(tilec_kernel_validate(k_, args.data(), args.size()));
  }
  Grid grid(const std::vector<Arg>& args) const {
    Grid g{};
    check(tilec_kernel_grid(k_, args.data(), args.size(), g.data()));
    return g;
  }
  /// The packed kernel parameters (TMA descriptors zero-filled).
  std::vector<uint8_t> pack(const std::vector<Arg>& args) const {
    size_t size = 0;
    check(tilec_kernel_pack_args(k_, args.data(), args.size(), nullptr, 0, &size, nullptr));
    std::vector<uint8_t> buf(size);
    check(tilec_kernel_pack_args(k_, args.data(), args.size(), buf.data(), buf.size(), &size,
                                 nullptr));
    return buf;
  }
  /// The fastest member of the kernel's family for these arguments, timed
  /// on `stream` or read from the autotuning cache (tilec_kernel_autotune).
  std::string autotune(const std::vector<Arg>& args, void* stream = nullptr) const {
    tilec_kernel* chosen = nullptr;
    check(tilec_kernel_autotune(k_, stream, args.data(), args.size(), &chosen));
    return tilec_kernel_name(chosen);
  }
  /// Launches with the metadata grid rule on `stream` (a CUstream).
  void launch(const std::vector<Arg>& args, void* stream = nullptr) const {
    check(tilec_launch(k_, stream, args.data(), args.size()));
  }
  /// Launches with an explicit grid.
  void launch(const Grid& grid, const std::vector<Arg>& args, void* stream = nullptr) const {
    check(tilec_launch_grid(k_, stream, grid.data(), args.data(), args.size()));
  }

 private:
  tilec_kernel* k_;
};

/// An owned bundle.
class Bundle {
 public:
  static Bundle load_file(const std::string& path) {
    tilec_bundle* b = nullptr;
    check(tilec_bundle_load_file(path.c_str(), &b));
    return Bundle(b);
  }
  static Bundle load_memory(const void* data, size_t size) {
    tilec_bundle* b = nullptr;
    check(tilec_bundle_load_memory(data, size, &b));
    return Bundle(b);
  }
  explicit Bundle(tilec_bundle* b = nullptr) : b_(b) {}
  tilec_bundle* get() const noexcept { return b_.get(); }
  std::string arch() const { return tilec_bundle_arch(b_.get()); }
  std::string metadata() const { return tilec_bundle_metadata(b_.get()); }
  bool has_cubin() const { return tilec_bundle_has_cubin(b_.get()) != 0; }
  bool has_ptx() const { return tilec_bundle_has_ptx(b_.get()) != 0; }
  size_t num_modules() const { return tilec_bundle_num_modules(b_.get()); }
  std::vector<std::string> kernel_names() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < tilec_bundle_num_kernels(b_.get()); ++i)
      names.emplace_back(tilec_bundle_kernel_name(b_.get(), i));
    return names;
  }
  Kernel kernel(const std::string& name) const {
    tilec_kernel* k = nullptr;
    check(tilec_bundle_get_kernel(b_.get(), name.c_str(), &k));
    return Kernel(k);
  }
  void load_module() const { check(tilec_bundle_load_module(b_.get())); }

 private:
  struct Free {
    void operator()(tilec_bundle* b) const noexcept { tilec_bundle_free(b); }
  };
  std::unique_ptr<tilec_bundle, Free> b_;
};

/// Device memory owned by this object (tilec_malloc / tilec_free).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { check(tilec_malloc(&ptr_, bytes)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceBuffer() { tilec_status_free(tilec_free(ptr_)); }
  uint64_t ptr() const noexcept { return ptr_; }
  size_t size() const noexcept { return bytes_; }
  void copy_from_host(const void* src, size_t bytes) { check(tilec_memcpy_htod(ptr_, src, bytes)); }
  void copy_to_host(void* dst, size_t bytes) const { check(tilec_memcpy_dtoh(dst, ptr_, bytes)); }

 private:
  uint64_t ptr_ = 0;
  size_t bytes_ = 0;
};

struct DeviceInfo {
  int sm_count = 0;
  int smem_optin = 0;
  int cc_major = 0;
  int cc_minor = 0;
};

inline DeviceInfo device_info() {
  DeviceInfo i;
  check(tilec_device_info(&i.sm_count, &i.smem_optin, &i.cc_major, &i.cc_minor));
  return i;
}

inline void synchronize() { check(tilec_synchronize()); }
inline void synchronize(void* stream) { check(tilec_stream_synchronize(stream)); }

}  // namespace tilec

#endif  // TILEC_RUNTIME_HPP
