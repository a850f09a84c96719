// Private declarations shared by the runtime's sources.
#ifndef TILEC_RUNTIME_INTERNAL_H
#define TILEC_RUNTIME_INTERNAL_H

#include "tilec/runtime.h"

#include "cuda_driver.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <cstdio>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

struct tilec_status_st {
  int code;
  int driver_error;
  std::string message;
};

namespace tilec_rt {

// Internal failures are thrown as Error and turned into a tilec_status at the
// C boundary (api.cpp); nothing throws past it.
struct Error {
  int code;
  std::string message;
  int driver_error = 0;
};

// String building without iostreams: a library loaded into a process that
// also holds other C++ runtimes (torch) must not depend on locale facets,
// which can be interposed and then crash (seen with torch 2.11).
inline void append(std::string& s, const std::string& v) { s += v; }
inline void append(std::string& s, const char* v) { s += v ? v : "(null)"; }
inline void append(std::string& s, char c) { s += c; }
template <class T>
std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>>
append(std::string& s, T v) {
  char buf[32];
  if constexpr (std::is_signed_v<T>)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  s += buf;
}

template <class... A>
std::string cat(const A&... parts) {
  std::string s;
  (append(s, parts), ...);
  return s;
}

[[noreturn]] inline void fail(int code, std::string message, int driver_error = 0) {
  throw Error{code, std::move(message), driver_error};
}

// ---- dtypes --------------------------------------------------------------
bool dtype_valid(int dtype);
size_t dtype_size(int dtype);
const char* dtype_name(int dtype);  // "?" for invalid ones
int dtype_from_name(const std::string& name);
bool dtype_is_int(int dtype);
bool dtype_is_float(int dtype);

// Round-to-nearest-even conversion of a double to a small float format.
uint32_t float_to_f32_bits(double v);
uint16_t float_to_f16_bits(double v);
uint16_t float_to_bf16_bits(double v);
uint8_t float_to_f8e4m3_bits(double v);  // e4m3fn: no inf, saturates to +-448
uint8_t float_to_f8e5m2_bits(double v);

// ---- grid expressions -----------------------------------------------------
struct GridExpr {
  enum Op : uint8_t { Lit, Dim, Arg, Cdiv, Add, Sub, Mul, Div, Min, Max, Sms, Stride };
  struct Node {
    Op op;
    int64_t value;  // Lit
    int64_t a, b;   // Dim, Stride: param, dim; Arg: param; binary ops: node indices
  };
  std::vector<Node> nodes;
  int64_t root = -1;
  std::string text;
  bool uses_sms() const {
    for (const Node& n : nodes)
      if (n.op == Sms) return true;
    return false;
  }
};

// Parses one grid expression; throws Error(BAD_BUNDLE) with a message
// describing the problem (without line information).
GridExpr parse_grid_expr(const std::string& text);

// ---- bundles --------------------------------------------------------------
struct Param {
  int kind = 0;
  int dtype = 0;
  std::string name;
  int rank = 0;
  int64_t shape[TILEC_MAX_RANK] = {};
  int64_t strides[TILEC_MAX_RANK] = {};
  int64_t align = 0;
  bool tma = false;
  bool tma_fallback = false;  // the kernel reads the view without TMA if its descriptor is zero
  int32_t box[TILEC_MAX_RANK] = {};
  int swizzle = 0;  // bytes
  int fill = TILEC_FILL_ZERO;
  size_t abi_first = 0;  // index of its first ABI parameter
};

// The bundle's driver modules in one context, each loaded on the first
// launch of one of its kernels.
struct ModuleSlot {
  CUcontext ctx = nullptr;
  std::vector<CUmodule> modules;      // per code module; null: not loaded
  std::vector<CUfunction> functions;  // per kernel, lazily resolved
  std::vector<uint32_t> smem_set;     // dynamic smem attribute set so far
  int smem_optin = -1;                // the device's opt-in limit, once read
  // Workspaces per stream: launches on one stream run in order and may
  // share one; launches on two streams get two.
  struct Workspace {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
  };
  // Keyed by the stream and, for a launch captured into a CUDA graph, the
  // capture's id (0 otherwise): a graph keeps the buffers of its capture.
  using WorkspaceKey = std::pair<CUstream, unsigned long long>;
  struct KeyHash {
    size_t operator()(const WorkspaceKey& k) const {
      return std::hash<const void*>()(k.first) ^ (std::hash<unsigned long long>()(k.second) << 1);
    }
  };
  std::unordered_map<WorkspaceKey, Workspace, KeyHash> workspaces;
  // Semaphores per stream: zero between launches (every kernel leaves the
  // ones it used zero), never shared with scratch.
  std::unordered_map<WorkspaceKey, Workspace, KeyHash> semaphores;
  // Buffers replaced by larger ones: launches in flight and captured graphs
  // may still use them, so they are freed with the bundle.
  std::vector<CUdeviceptr> retired;
};

// A frame of a profiled kernel's records (`profile frame`, docs/BUNDLE.md):
// what its clock readings (slots) mean. In the buffer a frame is the words
// [frame id, `args` arguments, `slots` clocks] padded to 16-byte records.
struct ProfileFrame {
  struct Event {
    uint32_t slot, scope;
    bool end, arg;  // a scope's end; a begin with an argument
  };
  std::vector<Event> events;  // in program order
  uint32_t slots = 0, args = 0;
  uint32_t records() const { return (1 + args + slots + 3) / 4; }
};

// A kernel's last launch (driver.cpp, "launch cache"): what a launch with
// the same arguments, stream, grid request and context would compute
// again, kept so that it can be issued at once. Only launches that need
// nothing per launch (no workspace, semaphores or profile buffer).
struct LaunchCache {
  std::mutex mutex;
  bool valid = false;
  // The key.
  std::vector<tilec_arg> args;
  CUstream stream = nullptr;
  CUcontext ctx = nullptr;
  bool explicit_grid = false, choose = false;
  uint32_t requested_grid[3] = {0, 0, 0};
  int tune_mode = 0;
  uint64_t tuned_generation = 0;
  // What the launch computed.
  const tilec_kernel* chosen = nullptr;
  CUfunction function = nullptr;
  uint32_t grid[3] = {0, 0, 0};
  std::vector<uint8_t> storage;  // the parameter buffer
  std::vector<void*> params;     // into storage
  std::string where;
};

}  // namespace tilec_rt

struct tilec_kernel {
  tilec_bundle* bundle = nullptr;
  size_t index = 0;
  std::string name;
  uint32_t threads = 0;
  uint32_t smem = 0;
  uint32_t cluster[3] = {1, 1, 1};
  tilec_rt::GridExpr grid[3];
  std::vector<tilec_rt::Param> params;
  // ABI layout (static: ranks are fixed by the metadata).
  std::vector<size_t> abi_offsets;
  std::vector<size_t> abi_sizes;
  size_t abi_size = 0;
  int line = 0;  // metadata line of `kernel`
  uint32_t module = 0;  // `module N`: the code module holding its machine code
  int module_line = 0;
  // `plain NAME`: the same kernel without TMA, launched instead when a TMA
  // view cannot be encoded (resolved after parsing).
  std::string plain_name;
  int plain_line = 0;
  const tilec_kernel* plain = nullptr;
  // `variant NAME` lines: the same program at other tile shapes; `cost
  // EXPR`: the launch's estimated time (every member of such a family has
  // one). A launch runs the member whose cost is least.
  std::vector<std::string> variant_names;
  std::vector<int> variant_lines;
  std::vector<const tilec_kernel*> variants;
  tilec_rt::GridExpr cost;
  bool has_cost = false;
  int cost_line = 0;
  // `workspace EXPR`: bytes of scratch device memory the runtime provides
  // (zero when first allocated), passed as a trailing 64-bit address
  // parameter. `semaphores EXPR`: bytes of device memory that are zero
  // when a launch starts and that every kernel leaves zero (split-K's tile
  // counters), passed after it.
  tilec_rt::GridExpr workspace, semaphores;
  bool has_workspace = false, has_semaphores = false;
  // `profile groups NAME...`, `profile scopes NAME...` and one or more
  // `profile frame EVENT...` (all or none): the kernel was compiled with
  // --profile; its last ABI parameters are the address of a profile buffer
  // (0: record nothing) and the records a warp group has room for.
  std::vector<std::string> profile_groups, profile_scopes;
  std::vector<tilec_rt::ProfileFrame> profile_frames;
  bool profiled() const { return !profile_scopes.empty(); }
  tilec_rt::LaunchCache last_launch;
};

namespace tilec_rt {
// One profiled launch: what the kernel's metadata says, and its buffer.
struct ProfileLaunch {
  std::string kernel;
  std::vector<std::string> groups, scopes;
  std::vector<ProfileFrame> frames;
  uint32_t grid[3] = {1, 1, 1};
  CUdeviceptr device = 0;  // until collected
  size_t device_bytes = 0;
  CUcontext ctx = nullptr;
  std::vector<uint8_t> host;  // after collecting
  bool collected = false;
};

}  // namespace tilec_rt

struct tilec_profile {
  uint32_t records_per_group = 0;
  std::mutex mutex;
  std::vector<tilec_rt::ProfileLaunch> launches;
  // Device buffers of collected launches, reused by later launches (a
  // launch then allocates nothing): address, bytes, context.
  struct Pooled {
    tilec_rt::CUdeviceptr ptr;
    size_t bytes;
    tilec_rt::CUcontext ctx;
  };
  std::vector<Pooled> pool;
};


struct tilec_bundle {
  std::string arch;
  std::string metadata;
  // Per code module (format version 2 repeats the sections; version 1 has
  // one module): its cubin and PTX, where the bundle has them.
  std::vector<std::vector<uint8_t>> cubins;
  std::vector<std::string> ptxs;  // NUL-terminated by std::string
  bool has_cubin = false;
  bool has_ptx = false;
  size_t module_count() const { return has_cubin ? cubins.size() : ptxs.size(); }
  std::vector<std::unique_ptr<tilec_kernel>> kernels;
  // The kernels by name: lookups and duplicate checks stay linear in the
  // number of kernels (a bundle of 50,000 took 20 s with pairwise checks).
  std::unordered_map<std::string, tilec_kernel*> by_name;
  uint64_t hash = 0;  // of the bundle's bytes (FNV-1a)
  std::mutex mutex;  // guards modules and the autotuning choices
  std::vector<tilec_rt::ModuleSlot> modules;
  // Autotuned choices: "<gpu>\t<driver>\t<kernel>\t<bucket>" -> member
  // name; `tuned_from_disk`: the cache file was read into it.
  std::unordered_map<std::string, std::string> tuned;
  bool tuned_from_disk = false;
  // Bumped whenever `tuned` changes: cached launches chose without it.
  std::atomic<uint64_t> tuned_generation{0};
  ~tilec_bundle();
};

namespace tilec_rt {

// Parses a whole bundle; throws Error(BAD_BUNDLE).
std::unique_ptr<tilec_bundle> parse_bundle(const uint8_t* data, size_t size);
// Parses the metadata text into `bundle` (arch, kernels); throws Error(BAD_BUNDLE).
void parse_metadata(const std::string& text, tilec_bundle& bundle);

// ---- validation / grid / packing (no driver) --------------------------------
void check_arg_count(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api);
void validate_args(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api);
/// Why TMA cannot read tensor argument `a` of TMA parameter `p` ("" if it can).
std::string tma_problem(const Param& p, const tilec_arg& a);
/// The kernel to run for these arguments: `k`'s plain variant when a TMA
/// view of `k` (without a fallback of its own) cannot be encoded; else, with
/// `sms` >= 1, the member of `k` and its variants whose cost is least (the
/// first of equals); else `k`.
const tilec_kernel& select_variant(const tilec_kernel& k, const tilec_arg* args, size_t n,
                                   const char* api, int64_t sms);
/// The value of `k`'s cost expression for these arguments.
int64_t eval_cost(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api,
                  int64_t sms);
/// The bytes of workspace (or with `semaphores`, of semaphores) `k` needs
/// for these arguments (0 without them).
int64_t eval_workspace(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api,
                       bool semaphores, int64_t sms);
// `sms`: the current device's multiprocessor count, or -1 where the caller
// has no device (an expression using `sms` is then an error).
void eval_grid(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api,
               uint32_t grid[3], int64_t sms = -1);
// Whether any grid expression of `k` uses `sms`.
bool grid_uses_sms(const tilec_kernel& k);
// The current device's multiprocessor count, asked of the driver on first
// use and at most once (a launch may need it to choose a variant and to
// evaluate the chosen kernel's grid).
class DeviceSms {
 public:
  explicit DeviceSms(const char* api) : api_(api) {}
  int64_t get();
  // The `sms` argument of eval_grid for `k`: the count if its grid uses
  // `sms`, else -1.
  int64_t for_grid(const tilec_kernel& k) { return grid_uses_sms(k) ? get() : -1; }
  // The `sms` argument of select_variant for `k`: the count if `k` has
  // variants to choose from, else -1.
  int64_t for_choice(const tilec_kernel& k) { return k.variants.empty() ? -1 : get(); }

 private:
  const char* api_;
  int64_t sms_ = -1;
};
void check_grid(const tilec_kernel& k, const uint32_t grid[3], const char* api,
                bool from_rule);
// Writes the packed parameters into `buffer` (k.abi_size bytes, 64-aligned);
// tensor maps are zero-filled. Args must be validated.
void pack_args(const tilec_kernel& k, const tilec_arg* args, uint8_t* buffer);

// ---- driver ------------------------------------------------------------------
// Loads the driver and runs cuInit once; throws NO_DRIVER / DRIVER with
// messages that start with `api`. Failures are not cached.
Driver& driver(const char* api);
// Throws Error(DRIVER) "<what>: <call> failed: NAME (string)" if `r` failed.
void check_cu(Driver& d, CUresult r, const char* call, const std::string& what);
// Makes sure the calling thread has a current context; returns it.
CUcontext ensure_context(Driver& d, const char* api);
// Device of the current context.
CUdevice current_device(Driver& d, const char* api);
// Loads the bundle's modules into `ctx` (once) and resolves every kernel.
void load_module(Driver& d, tilec_bundle& b, CUcontext ctx, const char* api);
// Launches `k`, or with `choose` the member of its family the plain rule,
// the autotuner or the cost model picks (not with an explicit grid).
void launch(tilec_kernel& k, CUstream stream, const uint32_t* explicit_grid,
            const tilec_arg* args, size_t n, const char* api, bool choose = true,
            tilec_profile* profile = nullptr);

// ---- the profiler (profile.cpp) ----------------------------------------------
// Bytes of a profile buffer: its header, then per CTA and warp group a slice
// header and `records` records.
size_t profile_buffer_bytes(uint32_t records, const uint32_t grid[3], size_t groups);
// Allocates and initializes the buffer of a launch of `k` with `grid`,
// remembered in `p` until collected.
CUdeviceptr profile_buffer_for(tilec_profile& p, const tilec_kernel& k, const uint32_t grid[3],
                               CUcontext ctx, const std::string& where);
// Waits for the launches not yet collected and reads their buffers back
// (freeing them).
void profile_collect(tilec_profile& p, const char* api);
// A buffer read elsewhere, as a launch of `k` with `grid`.
void profile_add_buffer(tilec_profile& p, const tilec_kernel& k, const uint32_t grid[3],
                        const void* data, size_t size);
// The collected launches as a Chrome trace-event JSON document / a text
// table, and the records the buffers had no room for (from the slice
// headers alone).
std::string profile_trace(tilec_profile& p);
// The same as a Perfetto protobuf trace (TrackEvent slices on a thread
// track per CTA and warp group under a process track per launch and SM).
std::string profile_trace_perfetto(tilec_profile& p);
std::string profile_summary(tilec_profile& p);
uint64_t profile_dropped(tilec_profile& p);
// Frees the buffers of launches never collected.
void profile_release(tilec_profile& p);
// ---- files (file.cpp) -----------------------------------------------------------
enum class FileRead { Ok, OpenFailed, NotRegular, TooLarge, ReadFailed };
// Reads `path` into `out` if it is a regular file of at most `max_bytes`;
// `err` gets errno where opening or reading failed. Never blocks on a FIFO.
FileRead read_regular_file(const std::string& path, size_t max_bytes, std::string& out, int& err);
// Writes `text` to `path` through a temporary file renamed into place;
// false (errno says why) if it could not.
bool write_file_atomically(const std::string& path, const std::string& text);

// ---- autotuning (autotune.cpp) -------------------------------------------------
enum class TuneMode { Off, Memory, Tune };
// TILEC_AUTOTUNE: "0" Off (the cost model only), "1" Tune (launches use the
// disk cache and tune on a miss), unset Memory (choices an explicit
// tilec_kernel_autotune made in this process).
TuneMode tune_mode();
// The member of `k`'s family the autotuner chose for these arguments, or
// null (none known and `mode` does not tune, or `k` has no variants).
// Tuning launches every member on `stream`, several times, and keeps
// `fallback` (the cost model's choice) unless another member beats it by
// more than the timings' noise, twice.
const tilec_kernel* autotuned(tilec_kernel& k, CUstream stream, const tilec_arg* args,
                              size_t n, const char* api, TuneMode mode,
                              const tilec_kernel& fallback);
// The member of `k`'s family these arguments run: the plain twin where a
// TMA view cannot be read, else the autotuner's choice (`mode`), else the
// cost model's (`sms` as select_variant takes it).
const tilec_kernel& choose_member(tilec_kernel& k, CUstream stream, const tilec_arg* args,
                                  size_t n, const char* api, int64_t sms, TuneMode mode);
// The problem bucket of a launch: its dynamic extents (up to 128 the next
// power of two, above a multiple of 128) and integer scalars.
std::string problem_bucket(const tilec_kernel& k, const tilec_arg* args, size_t n);

// Unloads every loaded module of the bundle; never throws.
void unload_modules(tilec_bundle& b) noexcept;

}  // namespace tilec_rt

#endif  // TILEC_RUNTIME_INTERNAL_H
