// Autotuning: time every member of a kernel's family (the kernel and its
// tile-shape variants) on the launch's own arguments, keep the fastest per
// problem bucket, in memory and in a cache file per bundle, so that another
// process does not tune again (docs/RUNTIME.md, "Autotuning").
#include "internal.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tilec_rt {
namespace {

// 2: a bucket marks tensors whose rows are not 32-byte aligned ("u").
constexpr const char* kHeader = "tilec-autotune 2";
constexpr size_t kMaxCacheBytes = size_t{16} << 20;

int64_t bucket_of(int64_t e) {
  if (e <= 128) {
    int64_t p = 1;
    while (p < e) p *= 2;
    return p;
  }
  return (e + 127) / 128 * 128;
}

// Tabs and newlines would break the file's lines; a device name has none,
// but the file must not depend on it.
std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string cache_dir() {
  if (const char* d = std::getenv("TILEC_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return cat(x, "/tilec");
  if (const char* h = std::getenv("HOME"); h && *h) return cat(h, "/.cache/tilec");
  return "";
}

std::string cache_path(const tilec_bundle& b) {
  const std::string dir = cache_dir();
  if (dir.empty()) return "";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(b.hash));
  return cat(dir, "/autotune-", hex, ".txt");
}

void warn(const std::string& what) { std::fprintf(stderr, "tilec: warning: %s\n", what.c_str()); }

// mkdir -p; false if the directory cannot be made.
bool make_dirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Reads the cache file into `out` (key -> member). A missing file is empty;
// a corrupt one (or one that is not a regular file, or too large) is empty
// with a warning.
void read_cache(const std::string& path, std::unordered_map<std::string, std::string>& out) {
  std::string text;
  int err = 0;
  switch (read_regular_file(path, kMaxCacheBytes, text, err)) {
    case FileRead::Ok:
      break;
    case FileRead::OpenFailed:
      return;  // no cache yet
    case FileRead::NotRegular:
    case FileRead::TooLarge:
    case FileRead::ReadFailed:
      warn(cat("ignoring the autotuning cache ", path, ": not a regular file of at most ",
               kMaxCacheBytes, " bytes"));
      return;
  }
  std::unordered_map<std::string, std::string> entries;
  size_t start = 0;
  int line = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string l = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (line == 1) {
      if (l != kHeader) {
        warn(cat("ignoring the autotuning cache ", path, ": line 1 is not '", kHeader, "'"));
        return;
      }
      continue;
    }
    // gpu, driver, kernel, bucket, member, milliseconds
    std::vector<std::string> f;
    size_t s = 0;
    for (size_t t; (t = l.find('\t', s)) != std::string::npos; s = t + 1) f.push_back(l.substr(s, t - s));
    f.push_back(l.substr(s));
    char* endp = nullptr;
    const double ms = f.size() == 6 ? std::strtod(f[5].c_str(), &endp) : -1;
    if (f.size() != 6 || f[4].empty() || !endp || *endp || !(ms >= 0)) {
      warn(cat("ignoring the autotuning cache ", path, ": line ", line, " is malformed"));
      return;
    }
    entries[cat(f[0], "\t", f[1], "\t", f[2], "\t", f[3])] = cat(f[4], "\t", f[5]);
  }
  if (line == 0) {
    warn(cat("ignoring the autotuning cache ", path, ": empty"));
    return;
  }
  for (auto& [k, v] : entries) out[k] = v;
}

// Adds `key` -> `value` to the cache file: what other processes wrote since
// is kept, and the new file replaces the old in one rename. Writers hold an
// exclusive flock on `path`.lock from reading the file to the rename, so
// processes tuning at once lose none of each other's entries.
void write_cache(const std::string& path, const std::string& key, const std::string& value) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && !make_dirs(path.substr(0, slash))) {
    warn(cat("cannot create the autotuning cache directory of ", path, ": ", std::strerror(errno)));
    return;
  }
  struct Lock {
    int fd;
    ~Lock() {
      if (fd >= 0) ::close(fd);  // releases the flock
    }
  } lock{::open(cat(path, ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)};
  int locked = -1;
  if (lock.fd >= 0)
    while ((locked = ::flock(lock.fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
  if (locked != 0) {
    warn(cat("cannot lock the autotuning cache ", path, ".lock: ", std::strerror(errno)));
    return;
  }
  std::unordered_map<std::string, std::string> entries;
  read_cache(path, entries);
  entries[key] = value;
  std::string text = cat(kHeader, "\n");
  for (const auto& [k, v] : entries) text += cat(k, "\t", v, "\n");
  if (!write_file_atomically(path, text))
    warn(cat("cannot write the autotuning cache ", path, ": ", std::strerror(errno)));
}

// "<gpu>\t<driver>" of the current context's device, asked once per device.
std::string device_key(Driver& d, const char* api) {
  if (!d.cuDeviceGetName || !d.cuDriverGetVersion)
    fail(TILEC_ERROR_UNSUPPORTED, cat(api, ": the CUDA driver lacks cuDeviceGetName"));
  static std::mutex mutex;
  static std::unordered_map<CUdevice, std::string> keys;
  const CUdevice dev = current_device(d, api);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = keys.find(dev);
  if (it != keys.end()) return it->second;
  char name[256] = {};
  check_cu(d, d.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName", api);
  int version = 0;
  check_cu(d, d.cuDriverGetVersion(&version), "cuDriverGetVersion", api);
  return keys[dev] = cat(field(name), "\t", version);
}

// A buffer twice the device's L2 cache, written before each timed launch so
// that every member starts with a cold L2, as kernels reading weights do in
// practice and as Triton's do_bench times them (with a warm L2, smaller
// tiles, which re-read more, looked faster than they are: at 3072^2 x 4096
// the tuner took 64x128 tiles that were 25% slower cold). Freed with the
// tuning; without memory for it the members are timed warm, with a warning.
struct L2Flush {
  Driver& d;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  L2Flush(Driver& d, const char* api) : d(d) {
    int l2 = 0;
    if (d.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                               current_device(d, api)) != CUDA_SUCCESS ||
        l2 <= 0 || !d.cuMemsetD8Async)
      return;
    bytes = 2 * static_cast<size_t>(l2);
    if (d.cuMemAlloc(&ptr, bytes) != CUDA_SUCCESS) {
      std::fprintf(stderr, "tilec: warning: autotuning with a warm L2 cache: no memory for a "
                           "%zu-byte buffer to flush it\n", bytes);
      ptr = 0;
      bytes = 0;
    }
  }
  ~L2Flush() {
    if (ptr) d.cuMemFree(ptr);
  }
  void operator()(CUstream stream, const char* api) {
    if (ptr) check_cu(d, d.cuMemsetD8Async(ptr, 0, bytes, stream), "cuMemsetD8Async", api);
  }
};

// A member's launches: the median milliseconds and the spread around it
// (the interquartile range).
struct Timing {
  double ms = 0;
  double spread = 0;
};

// How long a launch of `m` takes on `stream`: after a warm-up launch, the
// median (and the interquartile range) of launches each after an L2 flush
// and between two events, about 10 ms of them (5 to 100).
Timing time_member(Driver& d, tilec_kernel& m, CUstream stream, const tilec_arg* args, size_t n,
                   L2Flush& flush, const char* api) {
  if (!d.cuEventCreate || !d.cuEventRecord || !d.cuEventSynchronize || !d.cuEventElapsedTime ||
      !d.cuEventDestroy)
    fail(TILEC_ERROR_UNSUPPORTED, cat(api, ": the CUDA driver lacks the event functions"));
  CUevent start = nullptr, stop = nullptr;
  check_cu(d, d.cuEventCreate(&start, 0), "cuEventCreate", api);
  if (CUresult r = d.cuEventCreate(&stop, 0)) {
    d.cuEventDestroy(start);
    check_cu(d, r, "cuEventCreate", api);
  }
  struct Events {
    Driver& d;
    CUevent a, b;
    ~Events() {
      d.cuEventDestroy(a);
      d.cuEventDestroy(b);
    }
  } guard{d, start, stop};
  auto once = [&] {
    flush(stream, api);
    check_cu(d, d.cuEventRecord(start, stream), "cuEventRecord", api);
    launch(m, stream, nullptr, args, n, api, /*choose=*/false);
    check_cu(d, d.cuEventRecord(stop, stream), "cuEventRecord", api);
    check_cu(d, d.cuEventSynchronize(stop), "cuEventSynchronize", api);
    float ms = 0;
    check_cu(d, d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime", api);
    return static_cast<double>(ms);
  };
  once();  // warm-up: loads the module, sets attributes
  const double first = once();
  const int reps = static_cast<int>(std::min(100.0, std::max(5.0, 10.0 / std::max(first, 1e-3))));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) ms.push_back(once());
  std::sort(ms.begin(), ms.end());
  return {ms[reps / 2], ms[(3 * reps) / 4] - ms[reps / 4]};
}

// Whether `candidate` beats `incumbent` beyond the noise of both timings:
// by more than either's spread and than 1% of the incumbent's time (a
// spread of few launches can be 0 by chance).
bool beats(const Timing& candidate, const Timing& incumbent) {
  const double noise =
      std::max({candidate.spread, incumbent.spread, 0.01 * incumbent.ms});
  return candidate.ms < incumbent.ms - noise;
}

}  // namespace

TuneMode tune_mode() {
  const char* v = std::getenv("TILEC_AUTOTUNE");
  if (!v) return TuneMode::Memory;
  if (std::strcmp(v, "0") == 0) return TuneMode::Off;
  if (std::strcmp(v, "1") == 0) return TuneMode::Tune;
  return TuneMode::Memory;
}

std::string problem_bucket(const tilec_kernel& k, const tilec_arg* args, size_t n) {
  std::string s;
  for (size_t i = 0; i < n && i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    const tilec_arg& a = args[i];
    if (i) s += ";";
    if (p.kind == TILEC_ARG_TENSOR) {
      bool unaligned = false;
      for (int d = 0; d < p.rank; ++d) {
        if (d) s += "x";
        s += p.shape[d] == TILEC_DYNAMIC ? cat(bucket_of(a.shape[d])) : cat(p.shape[d]);
        if (d + 1 < p.rank && a.shape[d] > 1 &&
            a.strides[d] * static_cast<int64_t>(dtype_size(p.dtype)) % 32 != 0)
          unaligned = true;
      }
      // Rows 16- but not 32-byte aligned cost TMA copies more (a member's
      // cost reads the strides): another bucket.
      if (unaligned) s += "u";
    } else if (dtype_is_int(p.dtype)) {
      s += cat(a.value.i);
    } else {
      s += "f";
    }
  }
  return s;
}

const tilec_kernel* autotuned(tilec_kernel& k, CUstream stream, const tilec_arg* args, size_t n,
                              const char* api, TuneMode mode, const tilec_kernel& fallback) {
  if (k.variants.empty() || mode == TuneMode::Off) return nullptr;
  tilec_bundle& b = *k.bundle;
  if (mode == TuneMode::Memory) {
    // The common launch: nothing tuned in this process, no driver calls.
    std::lock_guard<std::mutex> lock(b.mutex);
    if (b.tuned.empty()) return nullptr;
  }
  Driver& d = driver(api);
  ensure_context(d, api);
  const std::string bucket = problem_bucket(k, args, n);
  const std::string key = cat(device_key(d, api), "\t", k.name, "\t", bucket);
  auto member = [&](const std::string& name) -> const tilec_kernel* {
    if (name == k.name) return &k;
    for (const tilec_kernel* v : k.variants)
      if (v->name == name) return v;
    return nullptr;  // not of this family (a stale or edited entry)
  };
  const std::string path = cache_path(b);
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    if (mode == TuneMode::Tune && !b.tuned_from_disk && !path.empty()) {
      std::unordered_map<std::string, std::string> disk;
      read_cache(path, disk);
      for (auto& [key2, v] : disk) b.tuned.emplace(key2, v.substr(0, v.find('\t')));
      b.tuned_from_disk = true;
      ++b.tuned_generation;
    }
    auto it = b.tuned.find(key);
    if (it != b.tuned.end())
      if (const tilec_kernel* m = member(it->second)) return m;
  }
  if (mode != TuneMode::Tune) return nullptr;

  // Tune (without the bundle's lock: the launches take it). The cost
  // model's choice is timed first; it stays the choice unless a member
  // beats it beyond the noise, in this timing and again in a second one
  // of the two alone (an autotuner that took a member slower than the
  // default, as a 2-3% noisy win can be, loses to not tuning).
  std::vector<tilec_kernel*> members{const_cast<tilec_kernel*>(&fallback)};
  if (&fallback != &k) members.push_back(&k);
  for (const tilec_kernel* v : k.variants)
    if (v != &fallback) members.push_back(const_cast<tilec_kernel*>(v));
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const tilec_kernel* best = nullptr;
  Timing best_t, default_t;
  bool timed_default = false;
  std::optional<Error> refused;  // the first member that could not launch
  L2Flush flush(d, api);
  for (size_t i = 0; i < members.size(); ++i) {
    Timing t;
    try {
      t = time_member(d, *members[i], stream, args, n, flush, api);
    } catch (const Error& e) {
      // A member the device cannot run at this problem (its workspace does
      // not fit in the free memory, ...) is left out, as Triton leaves out
      // configurations that run out of resources; other errors stop tuning.
      if (e.code != TILEC_ERROR_OUT_OF_RESOURCES) throw;
      std::fprintf(stderr, "tilec: autotuning %s [%s]: %s left out: %s\n", k.name.c_str(),
                   bucket.c_str(), members[i]->name.c_str(), e.message.c_str());
      if (!refused) refused = e;
      continue;
    }
    if (i == 0) {
      default_t = t;
      timed_default = true;
    }
    if (!best || t.ms < best_t.ms) {
      best = members[i];
      best_t = t;
    }
    if (seconds() > 1.0)
      std::fprintf(stderr, "tilec: autotuning %s [%s]: %zu of %zu timed, %s %.4f ms\n",
                   k.name.c_str(), bucket.c_str(), i + 1, members.size(),
                   members[i]->name.c_str(), t.ms);
  }
  if (!best) throw *refused;
  if (timed_default && best != &fallback) {
    // The fastest must beat the default beyond the noise, and again when
    // the two are timed once more (default first, as before).
    bool keep = !beats(best_t, default_t);
    if (!keep) {
      try {
        const Timing d2 =
            time_member(d, *const_cast<tilec_kernel*>(&fallback), stream, args, n, flush, api);
        const Timing b2 =
            time_member(d, *const_cast<tilec_kernel*>(best), stream, args, n, flush, api);
        keep = !beats(b2, d2);
      } catch (const Error& e) {
        // (A member that could not launch the second time: the default.)
        if (e.code != TILEC_ERROR_OUT_OF_RESOURCES) throw;
        keep = true;
      }
    }
    if (keep) {
      best = &fallback;
      best_t = default_t;
    }
  }
  const double best_ms = best_t.ms;
  if (seconds() > 1.0)
    std::fprintf(stderr, "tilec: autotuned %s [%s] in %.1f s: %s (%.4f ms)\n", k.name.c_str(),
                 bucket.c_str(), seconds(), best->name.c_str(), best_ms);
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    b.tuned[key] = best->name;
    ++b.tuned_generation;
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.6f", best_ms);
    if (!path.empty()) write_cache(path, key, cat(best->name, "\t", ms));
  }
  return best;
}

const tilec_kernel& choose_member(tilec_kernel& k, CUstream stream, const tilec_arg* args,
                                  size_t n, const char* api, int64_t sms, TuneMode mode) {
  const tilec_kernel& c = select_variant(k, args, n, api, sms);
  if (&c == k.plain) return c;
  const tilec_kernel* t = autotuned(k, stream, args, n, api, mode, c);
  return t ? *t : c;
}

}  // namespace tilec_rt
