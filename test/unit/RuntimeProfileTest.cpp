// The profiler's host side on synthetic buffers (no driver): the metadata's
// `profile` lines, the ABI parameters they add, decoding frames into
// scopes (32-bit clocks unwrapped, to ns through each slice's own rate),
// the trace file and the summary, and buffers that overflowed, were cut
// short, hold what no frame describes or are not profile buffers at all.
#include "RuntimeTestUtil.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>
#include <random>
#include <sstream>

using namespace tilec_test;

namespace {

const char* kMeta =
    "tilec-bundle 1\n"
    "arch sm_90a\n"
    "kernel k\n"
    "threads 256\n"
    "profile groups load compute\n"
    "profile scopes kernel iteration wait#0 tile\n"
    "profile frame 0:+0\n"                  // 0: the kernel's begin
    "profile frame 0:+3@\n"                 // 1: a tile's begin
    "profile frame 0:+1@ 1:-1\n"            // 2: an iteration
    "profile frame 0:+1@ 1:+2 2:-2 3:-1\n"  // 3: an iteration with a wait
    "profile frame 0:-3\n"                  // 4: a tile's end
    "profile frame 0:-0\n"                  // 5: the kernel's end
    "grid 2 1 1\n"
    "param scalar n i32\n"
    "end\n";

// A frame as the kernel stores it: its id, arguments and (64-bit) clocks,
// of which the buffer keeps the low 32 bits.
struct Frame {
  uint32_t id;
  std::vector<uint32_t> args;
  std::vector<uint64_t> clocks;
  uint32_t records() const { return uint32_t(1 + args.size() + clocks.size() + 3) / 4; }
};

// A buffer of `ctas` x 2 slices of `cap` records: slice (c, g) starts at
// globaltimer 1000 * (c + 1) + 100 g with clock `clk0`, runs at 2 cycles a
// ns, and holds the frames that fit; `attempted` overrides the records
// attempted.
struct Buffer {
  uint32_t cap;
  uint32_t ctas;
  std::vector<uint8_t> bytes;
  Buffer(uint32_t cap, uint32_t ctas) : cap(cap), ctas(ctas) {
    bytes.assign(64 + size_t(ctas) * 2 * (64 + 16 * size_t(cap)), 0);
    put32(0, 2);
    put32(4, cap);
    put32(8, 2);
  }
  void put32(size_t off, uint32_t v) { std::memcpy(&bytes[off], &v, 4); }
  void put64(size_t off, uint64_t v) { std::memcpy(&bytes[off], &v, 8); }
  size_t slice(uint32_t cta, uint32_t g) const { return 64 + (cta * 2 + g) * (64 + 16 * size_t(cap)); }
  void fill(uint32_t cta, uint32_t g, const std::vector<Frame>& frames, uint32_t sm,
            uint64_t clk0 = 5000) {
    size_t s = slice(cta, g);
    uint64_t gt0 = 1000 * (cta + 1) + 100 * g;
    uint32_t attempted = 0, stored = 0;
    for (const Frame& f : frames) {
      attempted += f.records();
      if (attempted > cap) continue;  // this and every later frame: dropped
      size_t w = s + 64 + 16 * size_t(stored);
      put32(w, f.id);
      for (uint32_t a : f.args) put32(w += 4, a);
      for (uint64_t c : f.clocks) put32(w += 4, static_cast<uint32_t>(c));
      stored = attempted;
    }
    put32(s, attempted);
    put32(s + 4, sm);
    put32(s + 8, stored);
    put64(s + 16, gt0);
    put64(s + 24, clk0);
    put64(s + 32, gt0 + 1000);   // 1000 ns later
    put64(s + 40, clk0 + 2000);  // 2000 cycles later
  }
};

// kernel [0, 2000) cycles from `clk0`, tile 7 around two iterations, a
// wait in the second: 6 frames, 7 records.
std::vector<Frame> one_tile(uint64_t clk0 = 5000) {
  return {{0, {}, {clk0}},
          {1, {7}, {clk0 + 100}},
          {2, {0}, {clk0 + 200, clk0 + 400}},
          {3, {1}, {clk0 + 400, clk0 + 500, clk0 + 700, clk0 + 800}},
          {4, {}, {clk0 + 900}},
          {5, {}, {clk0 + 2000}}};
}

class RuntimeProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    bundle_ = load_ok(make_bundle(kMeta));
    ASSERT_TRUE(IsOk(tilec_bundle_get_kernel(bundle_.get(), "k", &kernel_)));
    ASSERT_TRUE(IsOk(tilec_profile_create(16, &profile_)));
  }
  void TearDown() override { tilec_profile_free(profile_); }

  std::string summary() {
    size_t n = 0;
    EXPECT_TRUE(IsOk(tilec_profile_summary(profile_, nullptr, 0, &n)));
    std::string s(n, '\0');
    EXPECT_TRUE(IsOk(tilec_profile_summary(profile_, s.data(), n, &n)));
    s.resize(n - 1);
    return s;
  }
  std::string trace() {
    // A file of this test and process: ctest runs the tests of this
    // binary as parallel processes, and a shared name raced (one test's
    // remove or write under another's read).
    std::string path = ::testing::TempDir() + "/tilec_profile_test_" +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                       "_" + std::to_string(getpid()) + ".json";
    EXPECT_TRUE(IsOk(tilec_profile_write_trace(profile_, path.c_str())));
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::remove(path.c_str());
    return ss.str();
  }
  // The summary line of `group` and `scope`, split into fields.
  std::vector<std::string> row(const std::string& text, const std::string& group,
                               const std::string& scope) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::vector<std::string> f;
      for (std::string w; ls >> w;) f.push_back(w);
      if (f.size() == 9 && f[1] == group && f[2] == scope) return f;
    }
    return {};
  }

  BundlePtr bundle_;
  tilec_kernel* kernel_ = nullptr;
  tilec_profile* profile_ = nullptr;
  const uint32_t grid_[3] = {2, 1, 1};
};

}  // namespace

TEST_F(RuntimeProfile, MetadataAndAbi) {
  EXPECT_EQ(tilec_kernel_profiled(kernel_), 1);
  // n, then the profile buffer's address (8) and the records a group (4).
  EXPECT_EQ(tilec_kernel_abi_num_params(kernel_), 3u);
  tilec_arg arg{};
  arg.kind = TILEC_ARG_SCALAR;
  arg.dtype = TILEC_DTYPE_I32;
  arg.value.i = 5;
  size_t size = 0, offsets[3];
  ASSERT_TRUE(IsOk(tilec_kernel_pack_args(kernel_, &arg, 1, nullptr, 0, &size, offsets)));
  EXPECT_EQ(offsets[1], 8u);
  EXPECT_EQ(offsets[2], 16u);
  EXPECT_EQ(size, 20u);
}

TEST_F(RuntimeProfile, BadProfileLines) {
  auto bad = [](const std::string& lines, const char* what) {
    std::string meta = std::string("tilec-bundle 1\narch sm_90a\nkernel k\nthreads 128\n") + lines +
                       "grid 1 1 1\nend\n";
    tilec_bundle* b = nullptr;
    const std::string bytes = make_bundle(meta);
    EXPECT_TRUE(IsError(tilec_bundle_load_memory(bytes.data(), bytes.size(), &b),
                        TILEC_ERROR_BAD_BUNDLE, {what}));
  };
  bad("profile groups main\n", "has 'profile groups' without 'profile scopes'");
  bad("profile groups main main\nprofile scopes kernel\n", "lists 2 profile groups for 128 threads");
  bad("profile groups main\nprofile scopes two\"words\n", "bad profile scopes name");
  bad("profile lanes main\n", "bad profile line 'lanes'");
  bad("profile scopes\n", "'profile scopes' lists no names");
  const std::string ok = "profile groups main\nprofile scopes kernel\n";
  bad(ok + "profile frame\n", "'profile frame' lists no events");
  bad(ok + "profile frame 1:+0\n", "bad profile frame event '1:+0'");
  bad(ok + "profile frame 0:+0 2:-0\n", "bad profile frame event '2:-0'");
  bad(ok + "profile frame 0:-0@\n", "bad profile frame event '0:-0@'");
  bad(ok + "profile frame 0:*0\n", "bad profile frame event '0:*0'");
  bad(ok + "profile frame 0:+1\n", "a profile frame names scope 1 of 1");
  bad("profile frame 0:+0\n", "has 'profile frame' lines without 'profile groups'");
}

TEST_F(RuntimeProfile, DecodesScopesTraceAndSummary) {
  Buffer buf(16, 2);
  buf.fill(0, 0, one_tile(), 3);
  buf.fill(0, 1, one_tile(), 3);
  buf.fill(1, 0, one_tile(), 4);
  buf.fill(1, 1, one_tile(), 4);
  ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(),
                                            buf.bytes.size())));
  EXPECT_EQ(tilec_profile_dropped(profile_), 0u);
  std::string s = summary();
  // Two slices a group: 2 kernels of 1000 ns (2000 cycles at 2 a ns).
  EXPECT_EQ(row(s, "compute", "kernel"),
            (std::vector<std::string>{"k", "compute", "kernel", "2", "2.000", "1.000", "1.000",
                                      "1.000", "100.0%"}))
      << s;
  // Iterations of 200 and 400 cycles: 100 and 200 ns, 4 of them, 600 ns.
  EXPECT_EQ(row(s, "load", "iteration"),
            (std::vector<std::string>{"k", "load", "iteration", "4", "0.600", "0.150", "0.100",
                                      "0.200", "30.0%"}))
      << s;
  EXPECT_NE(s.find("records dropped (buffer full): 0; unmatched records: 0"), std::string::npos);
  std::string t = trace();
  // Times from the first slice's start (globaltimer 1000): CTA 1's group 1
  // starts at 2100 ns, its wait at 2100 + 250 ns.
  EXPECT_NE(t.find("\"name\":\"wait#0\",\"pid\":4,\"tid\":3,\"ts\":1.350,\"dur\":0.100,"
                   "\"args\":{\"cta\":1,\"group\":\"compute\",\"tile\":7}"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\"name\":\"iteration\",\"pid\":3,\"tid\":0,\"ts\":0.100,\"dur\":0.100,"
                   "\"args\":{\"cta\":0,\"group\":\"load\",\"tile\":7,\"iter\":0}"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4,\"tid\":3,\"args\":{\"name\":"
                   "\"CTA 1 wg 1 compute\"}}"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\"otherData\":{\"dropped\":0,\"unmatched\":0,\"truncated\":0}"),
            std::string::npos);
}

TEST_F(RuntimeProfile, OverflowedBufferDropsAndCounts) {
  // Room for 4 of 7 records a slice: frames 0-2 (3 records) are stored,
  // frame 3 (2) does not fit and nothing after it is stored: 4 dropped.
  // Of what is kept (kernel, tile and iteration 0 begun, iteration 0
  // ended) the two scopes left open are reported unmatched, not closed by
  // invention; the stale record after the stored ones is not read.
  Buffer buf(4, 2);
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t g = 0; g < 2; ++g) {
      buf.put32(buf.slice(c, g) + 64 + 48, 2);  // a stale frame 2 at record 3
      buf.fill(c, g, one_tile(), c);
    }
  ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(),
                                            buf.bytes.size())));
  EXPECT_EQ(tilec_profile_dropped(profile_), 4u * 4u);
  std::string s = summary();
  EXPECT_NE(s.find("records dropped (buffer full): 16; unmatched records: 8"), std::string::npos)
      << s;
  EXPECT_EQ(row(s, "load", "iteration")[3], "2") << s;
  EXPECT_TRUE(row(s, "load", "kernel").empty()) << s;
}

TEST_F(RuntimeProfile, ClockWrapsAcross32Bits) {
  // The slice starts 100 cycles before the 32-bit clock wraps: the
  // records' low words wrap, the times do not.
  Buffer buf(16, 2);
  const uint64_t clk0 = (uint64_t(7) << 32) - 100;
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t g = 0; g < 2; ++g) buf.fill(c, g, one_tile(clk0), 0, clk0);
  ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(),
                                            buf.bytes.size())));
  std::string s = summary();
  EXPECT_EQ(row(s, "load", "iteration"),
            (std::vector<std::string>{"k", "load", "iteration", "4", "0.600", "0.150", "0.100",
                                      "0.200", "30.0%"}))
      << s;
  EXPECT_EQ(row(s, "compute", "kernel")[4], "2.000") << s;
}

TEST_F(RuntimeProfile, TruncatedBufferLosesSlices) {
  Buffer buf(16, 2);
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t g = 0; g < 2; ++g) buf.fill(c, g, one_tile(), c);
  // Cut inside the third slice: the last two are missing.
  size_t cut = buf.slice(1, 0) + 100;
  ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(), cut)));
  std::string s = summary();
  EXPECT_NE(s.find("slices missing from short buffers: 2"), std::string::npos) << s;
  EXPECT_EQ(row(s, "compute", "kernel")[3], "1") << s;
  std::string t = trace();
  EXPECT_NE(t.find("\"truncated\":2"), std::string::npos);
}

TEST_F(RuntimeProfile, MismatchedRecordsAreCountedNotPaired) {
  // The kernel's end while a tile is open (it closes nothing), then an
  // unknown frame id, which ends the slice's reading.
  Buffer buf(16, 2);
  std::vector<Frame> f = {{0, {}, {5000}}, {2, {0}, {5100, 5200}}, {1, {3}, {5300}},
                          {5, {}, {5400}}, {9, {}, {5500}},        {2, {1}, {5600, 5700}}};
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t g = 0; g < 2; ++g) buf.fill(c, g, f, 0);
  ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(),
                                            buf.bytes.size())));
  std::string s = summary();
  // Each slice: the kernel's end (1), the unknown frame (1), the kernel's
  // and the tile's begins left open (2).
  EXPECT_NE(s.find("unmatched records: 16"), std::string::npos) << s;
  EXPECT_EQ(row(s, "load", "iteration")[3], "2") << s;
  EXPECT_TRUE(row(s, "load", "kernel").empty()) << s;
}

TEST_F(RuntimeProfile, RejectsWhatIsNotAProfileBuffer) {
  std::vector<uint8_t> junk(256, 0x5a);
  EXPECT_TRUE(IsError(tilec_profile_add_buffer(profile_, kernel_, grid_, junk.data(), junk.size()),
                      TILEC_ERROR_INVALID_ARGUMENT, {"not a tilec profile buffer"}));
  tilec_profile* p = nullptr;
  EXPECT_TRUE(IsError(tilec_profile_create(0, &p), TILEC_ERROR_INVALID_ARGUMENT,
                      {"records_per_group must be 1..16777216"}));
}

// The decoder's work and reads are bounded by the buffer, not by its header
// or the grid: a header's records a group near 2^32 made a slice's offset
// wrap around 2^64 and summary() read before the buffer (SIGSEGV); a
// 65535^3 grid with a 64-byte buffer looped for hours.
TEST_F(RuntimeProfile, CraftedHeaderOrHugeGridReadsOnlyTheBuffer) {
  Buffer buf(16, 2);
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t g = 0; g < 2; ++g) buf.fill(c, g, one_tile(), c);
  for (uint32_t records : {0xffffffffu, 0x10000000u, 0x0fffffffu}) {
    buf.put32(4, records);
    ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(),
                                              buf.bytes.size())));
    std::string s = summary();
    EXPECT_NE(s.find("slices missing from short buffers"), std::string::npos) << s;
  }
  const uint32_t huge[3] = {65535, 65535, 65535};
  std::vector<uint8_t> header(64, 0);
  const uint32_t words[3] = {2, 16, 2};  // version, records a group, groups
  std::memcpy(header.data(), words, sizeof words);
  ASSERT_TRUE(IsOk(tilec_profile_add_buffer(profile_, kernel_, huge, header.data(),
                                            header.size())));
  std::string s = summary();
  EXPECT_NE(s.find("slices missing from short buffers"), std::string::npos) << s;
  EXPECT_FALSE(trace().empty());
}

TEST_F(RuntimeProfile, RejectsABufferOfAnotherKernelOrGrid) {
  Buffer buf(16, 2);
  buf.put32(8, 3);  // made for 3 warp groups a CTA; the kernel has 2
  EXPECT_TRUE(IsError(tilec_profile_add_buffer(profile_, kernel_, grid_, buf.bytes.data(),
                                               buf.bytes.size()),
                      TILEC_ERROR_INVALID_ARGUMENT,
                      {"the buffer is of 3 warp groups a CTA, kernel 'k' has 2"}));
  buf.put32(8, 2);
  for (const uint32_t* g : {(const uint32_t[3]){0, 1, 1}, (const uint32_t[3]){1, 65536, 1},
                            (const uint32_t[3]){0x80000000u, 1, 1}})
    EXPECT_TRUE(IsError(tilec_profile_add_buffer(profile_, kernel_, g, buf.bytes.data(),
                                                 buf.bytes.size()),
                        TILEC_ERROR_INVALID_ARGUMENT, {"is no launch grid"}));
}

// A structured mutator over the decoder through the C API: valid buffers
// with bytes, header fields and slice headers set to random or edge values,
// cut at random lengths, under random grids; each is added, summarized and
// written as a trace. None may crash, hang or read outside its buffer (run
// under -fsanitize=address for the last); a refusal is an error value.
TEST_F(RuntimeProfile, FuzzedBuffersDecodeOrAreRefused) {
  std::mt19937 rng(47);
  const uint32_t edges[] = {0, 1, 2, 3, 15, 16, 17, 255, 0x7fffffffu, 0x80000000u,
                            0xfffffffeu, 0xffffffffu};
  for (int iter = 0; iter < 400; ++iter) {
    Buffer buf(1 + rng() % 24, 1 + rng() % 3);
    for (uint32_t c = 0; c < buf.ctas; ++c)
      for (uint32_t g = 0; g < 2; ++g) buf.fill(c, g, one_tile(5000 + rng() % 100), rng() % 4);
    for (int m = rng() % 6; m > 0; --m) {
      size_t at = rng() % buf.bytes.size();
      switch (rng() % 4) {
      case 0: buf.bytes[at] = static_cast<uint8_t>(rng()); break;
      case 1: if (at + 4 <= buf.bytes.size()) buf.put32(at & ~size_t(3), edges[rng() % 12]); break;
      case 2: buf.put32(4 * (1 + rng() % 2), edges[rng() % 12]); break;  // records, groups
      default: if (at + 8 <= buf.bytes.size()) buf.put64(at & ~size_t(7), uint64_t(rng()) << 32 | rng());
      }
    }
    size_t size = rng() % 3 ? buf.bytes.size() : rng() % (buf.bytes.size() + 1);
    uint32_t grid[3] = {1 + rng() % 4, 1, 1};
    if (rng() % 5 == 0) grid[rng() % 3] = edges[rng() % 12];
    tilec_profile* p = nullptr;
    ASSERT_TRUE(IsOk(tilec_profile_create(16, &p)));
    tilec_status s = tilec_profile_add_buffer(p, kernel_, grid, buf.bytes.data(), size);
    if (s) {
      EXPECT_EQ(tilec_status_code(s), TILEC_ERROR_INVALID_ARGUMENT) << tilec_status_message(s);
      tilec_status_free(s);
    } else {
      size_t n = 0;
      EXPECT_TRUE(IsOk(tilec_profile_summary(p, nullptr, 0, &n)));
      std::string text(n, '\0');
      EXPECT_TRUE(IsOk(tilec_profile_summary(p, text.data(), n, &n)));
      (void)tilec_profile_dropped(p);
      std::string path = ::testing::TempDir() + "/tilec_profile_fuzz_" + std::to_string(getpid());
      tilec_status_free(tilec_profile_write_trace(p, path.c_str()));
      std::remove(path.c_str());
    }
    tilec_profile_free(p);
  }
}
