// The intra-kernel profiler's host side (docs/PROFILER.md): buffers for
// profiled launches, reading them back, decoding the records into scopes,
// and writing a Chrome trace-event file and a text summary.
#include "internal.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace tilec_rt;

namespace {

// Buffer layout (docs/BUNDLE.md, "Profile buffer").
constexpr size_t kHeaderBytes = 64;
constexpr size_t kRecordBytes = 16;
constexpr uint32_t kVersion = 2;

uint32_t u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// "12.345": nanoseconds as microseconds with three decimals (no floats, no
// locale).
std::string micros(int64_t ns) {
  std::string s = ns < 0 ? "-" : "";
  uint64_t v = static_cast<uint64_t>(ns < 0 ? -ns : ns);
  s += std::to_string(v / 1000);
  std::string frac = std::to_string(v % 1000);
  s += "." + std::string(3 - frac.size(), '0') + frac;
  return s;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

namespace tilec_rt {

// A scope as decoded: [begin, end) in ns since the first launch's start.
struct ProfileEvent {
  size_t launch;
  uint32_t sm, cta, group, scope;
  int64_t begin, end;
  int64_t arg;   // -1: none
  int64_t tile;  // the enclosing `tile` scope's argument, -1: none
};

struct Decoded {
  std::vector<ProfileEvent> events;
  uint64_t dropped = 0;    // records the buffers had no room for
  uint64_t unmatched = 0;  // begins without end (or ends without begin)
  uint64_t truncated = 0;  // slices a short buffer lacks
};

namespace {

// A launch of `k` with `grid`, its buffer not yet attached.
ProfileLaunch launch_of(const tilec_kernel& k, const uint32_t grid[3]) {
  ProfileLaunch l;
  l.kernel = k.name;
  l.groups = k.profile_groups;
  l.scopes = k.profile_scopes;
  l.frames = k.profile_frames;
  std::memcpy(l.grid, grid, sizeof l.grid);
  return l;
}

// A slice's records stored (at most its room) and records dropped (those
// attempted that were not stored), from its header.
uint32_t stored_in(const uint8_t* header, uint32_t records) {
  return std::min(u32(header + 8), records);
}
uint32_t dropped_in(const uint8_t* header, uint32_t records) {
  const uint32_t attempted = u32(header), stored = stored_in(header, records);
  return attempted > stored ? attempted - stored : 0;
}

// Calls f(header, cta, group, records a slice) for each slice of a
// collected launch's buffer, counting in `truncated` those it lacks. The
// work is bounded by the buffer, not by the grid or its header: the slices
// the buffer holds are read, the rest only counted (a header's records a
// group, or a grid of 65535^3, cannot make it read past the buffer or
// loop for ever).
template <class F>
void for_each_slice(const ProfileLaunch& l, uint64_t& truncated, F&& f) {
  const uint8_t* base = l.host.data();
  const size_t size = l.host.size();
  const uint64_t records = size >= kHeaderBytes ? u32(base + 4) : 0;
  const uint64_t groups = l.groups.size();
  const unsigned __int128 total =
      static_cast<unsigned __int128>(uint64_t(l.grid[0]) * l.grid[1] * l.grid[2]) * groups;
  // At most 2^32 records of 16 bytes: no overflow in 64 bits.
  const uint64_t slice_bytes = kHeaderBytes + records * kRecordBytes;
  const uint64_t room = size >= kHeaderBytes ? (size - kHeaderBytes) / slice_bytes : 0;
  const uint64_t n = total < room ? static_cast<uint64_t>(total) : room;
  for (uint64_t i = 0; i < n; ++i)
    f(base + kHeaderBytes + i * slice_bytes, static_cast<uint32_t>(i / groups),
      static_cast<uint32_t>(i % groups), static_cast<uint32_t>(records));
  const unsigned __int128 missing = total - n;
  truncated += missing > UINT64_MAX - truncated ? UINT64_MAX - truncated
                                                : static_cast<uint64_t>(missing);
}

}  // namespace

size_t profile_buffer_bytes(uint32_t records, const uint32_t grid[3], size_t groups) {
  const uint64_t ctas = uint64_t(grid[0]) * grid[1] * grid[2];
  return kHeaderBytes + ctas * groups * (kHeaderBytes + uint64_t(records) * kRecordBytes);
}

// `k`'s buffer for a launch of `grid`: a pooled one that is large enough,
// else a new one; the kernel writes every header, so nothing is cleared.
CUdeviceptr profile_buffer_for(tilec_profile& p, const tilec_kernel& k, const uint32_t grid[3],
                               CUcontext ctx, const std::string& where) {
  const size_t bytes = profile_buffer_bytes(p.records_per_group, grid, k.profile_groups.size());
  std::lock_guard<std::mutex> lock(p.mutex);
  CUdeviceptr ptr = 0;
  size_t have = 0;
  for (size_t i = 0; i < p.pool.size(); ++i) {
    if (p.pool[i].ctx != ctx || p.pool[i].bytes < bytes) continue;
    ptr = p.pool[i].ptr;
    have = p.pool[i].bytes;
    p.pool.erase(p.pool.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (!ptr) {
    Driver& d = driver("tilec_launch_profiled");
    CUresult r = d.cuMemAlloc(&ptr, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      fail(TILEC_ERROR_OUT_OF_RESOURCES,
           cat(where, ": cuMemAlloc of a ", bytes, "-byte profile buffer ran out of memory (",
               p.records_per_group, " records a warp group; ask for fewer)"));
    check_cu(d, r, "cuMemAlloc", cat(where, " profile buffer of ", bytes, " bytes"));
    have = bytes;
  }
  ProfileLaunch l = launch_of(k, grid);
  l.device = ptr;
  l.device_bytes = have;
  l.ctx = ctx;
  p.launches.push_back(std::move(l));
  return ptr;
}

namespace {

// Decodes every collected launch of `p` (its mutex held by the caller).
Decoded decode(const tilec_profile& p) {
  Decoded out;
  // Per slice: the (ns) origin and scale from its header; every launch's
  // times are relative to the earliest slice start of all launches.
  struct Slice {
    size_t launch;
    uint32_t cta, group, sm, count;
    uint64_t gt0, clk0, gt1, clk1;
    const uint8_t* records;
  };
  std::vector<Slice> slices;
  uint64_t origin = UINT64_MAX;
  for (size_t li = 0; li < p.launches.size(); ++li) {
    if (!p.launches[li].collected) continue;
    for_each_slice(p.launches[li], out.truncated,
                   [&](const uint8_t* h, uint32_t cta, uint32_t g, uint32_t records) {
                     Slice s{li,          cta,         g,           u32(h + 4),
                             u32(h),      u64(h + 16), u64(h + 24), u64(h + 32),
                             u64(h + 40), h + kHeaderBytes};
                     if (s.gt0 == 0) return;  // the group never ran (or no recorder)
                     out.dropped += dropped_in(h, records);
                     s.count = stored_in(h, records);
                     origin = std::min(origin, s.gt0);
                     slices.push_back(s);
                   });
  }
  for (const Slice& s : slices) {
    // clock64 to globaltimer ns: the slice's own clock rate where its end
    // was written, else 1 ns a cycle scaled by nothing (a kernel that
    // never ended has no events worth scaling).
    const bool scaled = s.clk1 > s.clk0 && s.gt1 > s.gt0;
    auto ns = [&](uint64_t clk) -> int64_t {
      const double d = static_cast<double>(clk) - static_cast<double>(s.clk0);
      const double rate = scaled ? double(s.gt1 - s.gt0) / double(s.clk1 - s.clk0) : 1.0;
      return static_cast<int64_t>(s.gt0 - origin) + static_cast<int64_t>(d * rate);
    };
    struct Open {
      uint32_t scope;
      int64_t begin, arg;
    };
    std::vector<Open> stack;
    const ProfileLaunch& l = p.launches[s.launch];
    // The stored frames, in order; a clock's high word from the last time
    // (clocks only grow, by less than 2^32 cycles between records of a
    // group).
    uint64_t last = s.clk0;
    std::vector<int64_t> times;
    for (uint32_t at = 0; at < s.count;) {
      const uint8_t* r = s.records + size_t(at) * kRecordBytes;
      const uint32_t id = u32(r);
      if (id >= l.frames.size()) {  // not a frame: stop reading the slice
        ++out.unmatched;
        break;
      }
      const ProfileFrame& f = l.frames[id];
      if (at + f.records() > s.count) {  // a frame cut short: corrupt
        ++out.unmatched;
        break;
      }
      at += f.records();
      times.clear();
      for (uint32_t i = 0; i < f.slots; ++i) {
        const uint32_t lo = u32(r + 4 * (1 + f.args + i));
        last += static_cast<uint32_t>(lo - static_cast<uint32_t>(last));
        times.push_back(ns(last));
      }
      uint32_t next_arg = 0;
      for (const ProfileFrame::Event& e : f.events) {
        const int64_t t = times[e.slot];
        if (!e.end) {
          const int64_t arg = e.arg ? int64_t(u32(r + 4 * (1 + next_arg++))) : -1;
          stack.push_back({e.scope, t, arg});
          continue;
        }
        if (stack.empty() || stack.back().scope != e.scope) {
          ++out.unmatched;
          continue;
        }
        int64_t tile = -1;
        for (const Open& o : stack)
          if (l.scopes[o.scope] == "tile") tile = o.arg;
        const Open o = stack.back();
        stack.pop_back();
        out.events.push_back({s.launch, s.sm, s.cta, s.group, e.scope, o.begin, t, o.arg, tile});
      }
    }
    out.unmatched += stack.size();
  }
  return out;
}

// Sorted values' p-th percentile (nearest rank).
int64_t percentile(const std::vector<int64_t>& sorted, int pct) {
  if (sorted.empty()) return 0;
  size_t rank = (sorted.size() * size_t(pct) + 99) / 100;
  return sorted[std::max<size_t>(rank, 1) - 1];
}

std::string pad(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// Names of a launch-and-SM process and of a CTA-and-warp-group thread.
std::string process_name(const ProfileLaunch& l, const ProfileEvent& e) {
  return l.kernel + " #" + std::to_string(e.launch) + " SM " + std::to_string(e.sm);
}
std::string thread_name(const ProfileLaunch& l, const ProfileEvent& e) {
  return "CTA " + std::to_string(e.cta) + " wg " + std::to_string(e.group) + " " +
         l.groups[e.group];
}

}  // namespace

std::string profile_trace(tilec_profile& p) {
  std::lock_guard<std::mutex> lock(p.mutex);
  const Decoded d = decode(p);
  std::string out = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped\":" +
                    std::to_string(d.dropped) + ",\"unmatched\":" + std::to_string(d.unmatched) +
                    ",\"truncated\":" + std::to_string(d.truncated) + "},\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& e) {
    if (!first) out += ",\n";
    first = false;
    out += e;
  };
  // One process per launch and SM, one thread per CTA and warp group.
  std::map<std::pair<size_t, uint32_t>, bool> processes;
  std::map<std::tuple<size_t, uint32_t, uint32_t, uint32_t>, bool> threads;
  auto pid = [](size_t launch, uint32_t sm) { return std::to_string(launch * 1000 + sm); };
  auto tid = [&](const ProfileEvent& e) {
    return std::to_string(uint64_t(e.cta) * p.launches[e.launch].groups.size() + e.group);
  };
  for (const ProfileEvent& e : d.events) {
    const ProfileLaunch& l = p.launches[e.launch];
    if (!processes[{e.launch, e.sm}]) {
      processes[{e.launch, e.sm}] = true;
      emit("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid(e.launch, e.sm) +
           ",\"args\":{\"name\":" +
           json_string(process_name(l, e)) +
           "}}");
      emit("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + pid(e.launch, e.sm) +
           ",\"args\":{\"sort_index\":" + pid(e.launch, e.sm) + "}}");
    }
    if (!threads[{e.launch, e.sm, e.cta, e.group}]) {
      threads[{e.launch, e.sm, e.cta, e.group}] = true;
      emit("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + pid(e.launch, e.sm) +
           ",\"tid\":" + tid(e) + ",\"args\":{\"name\":" +
           json_string(thread_name(l, e)) +
           "}}");
    }
    std::string args = "\"cta\":" + std::to_string(e.cta) + ",\"group\":" +
                       json_string(l.groups[e.group]);
    if (e.tile >= 0) args += ",\"tile\":" + std::to_string(e.tile);
    if (e.arg >= 0) args += ",\"iter\":" + std::to_string(e.arg);
    emit("{\"ph\":\"X\",\"name\":" + json_string(l.scopes[e.scope]) + ",\"pid\":" +
         pid(e.launch, e.sm) + ",\"tid\":" + tid(e) + ",\"ts\":" + micros(e.begin) +
         ",\"dur\":" + micros(e.end - e.begin) + ",\"args\":{" + args + "}}");
  }
  out += "\n]}\n";
  return out;
}

namespace {

// Protocol-buffer encoding (varints and length-delimited fields), enough
// for Perfetto's trace format (perfetto/trace/perfetto_trace.proto).
struct Proto {
  std::string b;
  void varint(uint64_t v) {
    while (v >= 0x80) {
      b += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    b += static_cast<char>(v);
  }
  Proto& u(int field, uint64_t v) {
    varint(uint64_t(field) << 3);
    varint(v);
    return *this;
  }
  Proto& bytes(int field, const std::string& v) {
    varint(uint64_t(field) << 3 | 2);
    varint(v.size());
    b += v;
    return *this;
  }
  Proto& msg(int field, const Proto& m) { return bytes(field, m.b); }
};

// Field numbers of perfetto_trace.proto.
enum : int {
  kTracePacket = 1,                                // Trace.packet
  kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kTrackDescriptor = 60,  // TracePacket
  kEventAnnotations = 4, kEventType = 9, kEventTrack = 11, kEventName = 23,  // TrackEvent
  kTrackUuid = 1, kTrackName = 2, kTrackProcess = 3, kTrackThread = 4,
  kTrackParent = 5,                                // TrackDescriptor
  kProcessPid = 1, kProcessName = 6,               // ProcessDescriptor
  kThreadPid = 1, kThreadTid = 2, kThreadName = 5,  // ThreadDescriptor
  kAnnotationInt = 4, kAnnotationName = 10,        // DebugAnnotation
  kSliceBegin = 1, kSliceEnd = 2,                  // TrackEvent.Type
  kSequence = 1,
};

}  // namespace

std::string profile_trace_perfetto(tilec_profile& p) {
  std::lock_guard<std::mutex> lock(p.mutex);
  const Decoded d = decode(p);
  Proto trace;
  auto packet = [&](const Proto& body) {
    Proto pk = body;
    pk.u(kSequenceId, kSequence);
    trace.msg(kTracePacket, pk);
  };
  // A process track per launch and SM, a thread track per CTA and warp
  // group (as in the JSON form); tids numbered from 1 across the trace.
  std::map<std::pair<size_t, uint32_t>, uint64_t> processes;
  std::map<std::tuple<size_t, uint32_t, uint32_t, uint32_t>, uint64_t> threads;
  std::map<uint64_t, std::vector<const ProfileEvent*>> on_track;
  for (const ProfileEvent& e : d.events) {
    const ProfileLaunch& l = p.launches[e.launch];
    const uint64_t pid = e.launch * 1000 + e.sm;
    auto [pit, new_process] = processes.try_emplace({e.launch, e.sm}, processes.size() + 1);
    if (new_process) {
      Proto proc, track, pk;
      proc.u(kProcessPid, pid).bytes(kProcessName, process_name(l, e));
      track.u(kTrackUuid, pit->second).msg(kTrackProcess, proc);
      packet(pk.msg(kTrackDescriptor, track));
    }
    auto [tit, new_thread] = threads.try_emplace({e.launch, e.sm, e.cta, e.group},
                                                 (uint64_t(1) << 32) + threads.size() + 1);
    if (new_thread) {
      Proto thread, track, pk;
      thread.u(kThreadPid, pid)
          .u(kThreadTid, threads.size())
          .bytes(kThreadName, thread_name(l, e));
      track.u(kTrackUuid, tit->second).u(kTrackParent, pit->second).msg(kTrackThread, thread);
      packet(pk.msg(kTrackDescriptor, track));
    }
    on_track[tit->second].push_back(&e);
  }
  // Each track's scopes as nested begin/end pairs in time order.
  for (auto& [uuid, evs] : on_track) {
    std::sort(evs.begin(), evs.end(), [](const ProfileEvent* a, const ProfileEvent* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end > b->end;
    });
    std::vector<const ProfileEvent*> open;
    auto end = [&](const ProfileEvent* e) {
      Proto ev, pk;
      ev.u(kEventType, kSliceEnd).u(kEventTrack, uuid);
      packet(pk.u(kTimestamp, uint64_t(e->end)).msg(kTrackEvent, ev));
    };
    for (const ProfileEvent* e : evs) {
      while (!open.empty() && open.back()->end <= e->begin) {
        end(open.back());
        open.pop_back();
      }
      const ProfileLaunch& l = p.launches[e->launch];
      Proto ev, pk;
      ev.u(kEventType, kSliceBegin).u(kEventTrack, uuid).bytes(kEventName, l.scopes[e->scope]);
      auto annotate = [&](const char* name, int64_t v) {
        Proto a;
        a.bytes(kAnnotationName, name).u(kAnnotationInt, uint64_t(v));
        ev.msg(kEventAnnotations, a);
      };
      annotate("cta", e->cta);
      if (e->tile >= 0) annotate("tile", e->tile);
      if (e->arg >= 0) annotate("iter", e->arg);
      packet(pk.u(kTimestamp, uint64_t(e->begin)).msg(kTrackEvent, ev));
      open.push_back(e);
    }
    while (!open.empty()) {
      end(open.back());
      open.pop_back();
    }
  }
  return trace.b;
}

std::string profile_summary(tilec_profile& p) {
  std::lock_guard<std::mutex> lock(p.mutex);
  const Decoded d = decode(p);
  // (kernel, group role, scope) -> durations; (kernel, role) -> kernel time.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<int64_t>> by_scope;
  std::map<std::pair<std::string, std::string>, int64_t> kernel_time;
  for (const ProfileEvent& e : d.events) {
    const ProfileLaunch& l = p.launches[e.launch];
    const std::string& role = l.groups[e.group];
    by_scope[{l.kernel, role, l.scopes[e.scope]}].push_back(e.end - e.begin);
    if (l.scopes[e.scope] == "kernel") kernel_time[{l.kernel, role}] += e.end - e.begin;
  }
  std::string out = pad("kernel", 24) + " " + pad("group", 10) + " " + pad("scope", 14) + " " +
                    pad("count", 9, true) + " " + pad("total us", 12, true) + " " +
                    pad("mean us", 10, true) + " " + pad("p50 us", 10, true) + " " +
                    pad("p99 us", 10, true) + " " + pad("share", 7, true) + "\n";
  for (auto& [key, v] : by_scope) {
    const auto& [kernel, role, scope] = key;
    std::sort(v.begin(), v.end());
    int64_t total = 0;
    for (int64_t x : v) total += x;
    const int64_t kt = kernel_time[{kernel, role}];
    std::string share = "-";
    if (kt > 0) {
      const int64_t permille = (total * 1000 + kt / 2) / kt;
      share = std::to_string(permille / 10) + "." + std::to_string(permille % 10) + "%";
    }
    out += pad(kernel, 24) + " " + pad(role, 10) + " " + pad(scope, 14) + " " +
           pad(std::to_string(v.size()), 9, true) + " " + pad(micros(total), 12, true) + " " +
           pad(micros(total / int64_t(v.size())), 10, true) + " " +
           pad(micros(percentile(v, 50)), 10, true) + " " + pad(micros(percentile(v, 99)), 10, true) +
           " " + pad(share, 7, true) + "\n";
  }
  out += "records dropped (buffer full): " + std::to_string(d.dropped) +
         "; unmatched records: " + std::to_string(d.unmatched) +
         "; slices missing from short buffers: " + std::to_string(d.truncated) + "\n";
  return out;
}

uint64_t profile_dropped(tilec_profile& p) {
  std::lock_guard<std::mutex> lock(p.mutex);
  uint64_t dropped = 0, truncated = 0;
  for (const ProfileLaunch& l : p.launches) {
    if (!l.collected) continue;
    for_each_slice(l, truncated, [&](const uint8_t* h, uint32_t, uint32_t, uint32_t records) {
      if (u64(h + 16) != 0) dropped += dropped_in(h, records);
    });
  }
  return dropped;
}

void profile_release(tilec_profile& p) {
  // The pool, and the buffers of launches never collected (their kernels
  // may still run: each context is synchronized before freeing).
  for (ProfileLaunch& l : p.launches)
    if (!l.collected && l.device) p.pool.push_back({l.device, l.device_bytes, l.ctx});
  if (p.pool.empty()) return;
  try {
    Driver& d = driver("tilec_profile_free");
    for (const tilec_profile::Pooled& b : p.pool) {
      if (d.cuCtxPushCurrent(b.ctx) != CUDA_SUCCESS) continue;
      d.cuCtxSynchronize();
      d.cuMemFree(b.ptr);
      CUcontext popped = nullptr;
      d.cuCtxPopCurrent(&popped);
    }
  } catch (const Error&) {
  }
  p.pool.clear();
}

void profile_collect(tilec_profile& p, const char* api) {
  std::lock_guard<std::mutex> lock(p.mutex);
  bool any = false;
  for (ProfileLaunch& l : p.launches) any |= !l.collected;
  if (!any) return;
  Driver& d = driver(api);
  for (ProfileLaunch& l : p.launches) {
    if (l.collected) continue;
    check_cu(d, d.cuCtxPushCurrent(l.ctx), "cuCtxPushCurrent", api);
    CUresult r = d.cuCtxSynchronize();
    if (r == CUDA_SUCCESS) {
      l.host.resize(profile_buffer_bytes(p.records_per_group, l.grid, l.groups.size()));
      r = d.cuMemcpyDtoH(l.host.data(), l.device, l.host.size());
    }
    p.pool.push_back({l.device, l.device_bytes, l.ctx});
    CUcontext popped = nullptr;
    d.cuCtxPopCurrent(&popped);
    l.device = 0;
    l.collected = true;
    check_cu(d, r, "cuMemcpyDtoH", cat(api, ": reading the profile of '", l.kernel, "'"));
  }
}

void profile_add_buffer(tilec_profile& p, const tilec_kernel& k, const uint32_t grid[3],
                        const void* data, size_t size) {
  ProfileLaunch l = launch_of(k, grid);
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  if (grid[0] < 1 || grid[0] > 0x7fffffffu || grid[1] < 1 || grid[1] > 65535 || grid[2] < 1 ||
      grid[2] > 65535)
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         cat("tilec_profile_add_buffer: grid (", grid[0], ", ", grid[1], ", ", grid[2],
             ") is no launch grid (x 1..2^31-1, y and z 1..65535)"));
  if (size >= 8 && u32(bytes) != kVersion)
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         cat("tilec_profile_add_buffer: not a tilec profile buffer (version ", u32(bytes),
             ", expected ", kVersion, ")"));
  // The header says the warp groups a CTA it was made for has.
  if (size >= 12 && u32(bytes + 8) != k.profile_groups.size())
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         cat("tilec_profile_add_buffer: the buffer is of ", u32(bytes + 8),
             " warp groups a CTA, kernel '", k.name, "' has ", k.profile_groups.size()));
  l.host.assign(bytes, bytes + size);
  l.collected = true;
  std::lock_guard<std::mutex> lock(p.mutex);
  p.launches.push_back(std::move(l));
}

}  // namespace tilec_rt
