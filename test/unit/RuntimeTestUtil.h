// Helpers for the runtime unit tests: build bundles in memory, check statuses.
#ifndef TILEC_TEST_UNIT_RUNTIME_TEST_UTIL_H
#define TILEC_TEST_UNIT_RUNTIME_TEST_UTIL_H

#include "tilec/runtime.h"
#include "tilec/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace tilec_test {

struct Section {
  std::string tag;  // 4 bytes: "META", "CUBN", "PTX " or anything else
  std::string payload;
};

inline void put_le32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

inline void put_le64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

/// Assembles a bundle file (docs/BUNDLE.md) from sections.
inline std::string make_bundle_sections(const std::vector<Section>& sections,
                                        uint32_t version = 1,
                                        const std::string& magic = "TILECBN1") {
  std::string out = magic;
  put_le32(out, version);
  put_le32(out, static_cast<uint32_t>(sections.size()));
  for (const Section& s : sections) {
    std::string tag = s.tag;
    tag.resize(4, ' ');
    out += tag;
    put_le32(out, 0);
    put_le64(out, s.payload.size());
    out += s.payload;
    while (out.size() % 8 != 0) out += '\0';
  }
  return out;
}

/// The fake machine code used in tests; the fake driver recognizes the prefix.
inline std::string fake_cubin() { return std::string("FAKECUBN") + std::string(24, '\x7f'); }

/// A bundle with metadata `meta`, a fake cubin and optionally PTX text.
inline std::string make_bundle(const std::string& meta, bool with_cubin = true,
                               const std::string& ptx = "") {
  std::vector<Section> s{{"META", meta}};
  if (with_cubin) s.push_back({"CUBN", fake_cubin()});
  if (!ptx.empty()) s.push_back({"PTX ", ptx});
  return make_bundle_sections(s);
}

/// The example of docs/BUNDLE.md.
inline const char* vector_add_meta() {
  return "tilec-bundle 1\n"
         "arch sm_90a\n"
         "kernel vector_add\n"
         "threads 128\n"
         "smem 0\n"
         "cluster 1 1 1\n"
         "grid cdiv(dim(0,0),1024) 1 1\n"
         "param tensor x f32 1 shape ? strides 1 align 16\n"
         "param tensor y f32 1 shape ? strides 1 align 16\n"
         "param tensor out f32 1 shape ? strides 1 align 16\n"
         "param scalar alpha f32\n"
         "end\n";
}

/// Two copies of the doc example's kernel, `first` (module 0) and `second`
/// (`module 1`), for bundles of two code modules.
inline std::string two_module_meta() {
  std::string k = vector_add_meta();
  k = k.substr(k.find("kernel "));
  std::string second = k;
  second.replace(second.find("vector_add"), 10, "second");
  second.replace(second.find("cluster 1 1 1\n"), 14, "cluster 1 1 1\nmodule 1\n");
  k.replace(k.find("vector_add"), 10, "first");
  return "tilec-bundle 1\narch sm_90a\n" + k + second;
}

/// A fake cubin whose first 8 bytes (what the fake driver records) name it.
inline std::string fake_cubin_named(const std::string& tag8) {
  return tag8.substr(0, 8) + std::string(24, '\x7f');
}

/// A bundle of two modules, module 1 carried as PTX alone (format version
/// 3: an empty CUBN, as a default bundle carries its derived kernels);
/// `version` to try it under another.
inline std::string ptx_only_module_bundle(uint32_t version = 3) {
  return make_bundle_sections({{"META", two_module_meta()},
                               {"CUBN", fake_cubin_named("FAKECUB0")},
                               {"PTX ", "// module 0"},
                               {"CUBN", ""},
                               {"PTX ", "// module 1"}},
                              version);
}

/// A GEMM-like kernel using everything: TMA, cluster, big smem, static dims.
inline const char* gemm_meta() {
  return "tilec-bundle 1\n"
         "# a comment\n"
         "arch sm_90a\n"
         "\n"
         "kernel gemm\n"
         "threads 384\n"
         "smem 200000\n"
         "cluster 2 1 1\n"
         "grid mul(cdiv(dim(0,0),128),2) cdiv(dim(1,1),256) 1\n"
         "param tensor a bf16 2 shape ? 4096 strides ? 1 align 128 tma 64 64 swizzle 128 fill zero\n"
         "param tensor b bf16 2 shape 4096 ? strides ? 1 align 16 tma 128 64 swizzle 128 fill nan\n"
         "param tensor c f32 2 shape ? ? strides ? ? align 16\n"
         "param scalar k i32\n"
         "param scalar alpha bf16\n"
         "end\n"
         "kernel tiny\n"
         "threads 32\n"
         "grid arg(0) 1 1\n"
         "param scalar n i64\n"
         "end\n";
}

struct BundleDeleter {
  void operator()(tilec_bundle* b) const { tilec_bundle_free(b); }
};
using BundlePtr = std::unique_ptr<tilec_bundle, BundleDeleter>;

/// Loads a bundle from memory, failing the test on error.
inline BundlePtr load_ok(const std::string& bytes) {
  tilec_bundle* b = nullptr;
  tilec_status s = tilec_bundle_load_memory(bytes.data(), bytes.size(), &b);
  EXPECT_EQ(s, nullptr) << tilec_status_message(s);
  tilec_status_free(s);
  return BundlePtr(b);
}

/// Success, or a failure that shows the status message.
inline ::testing::AssertionResult IsOk(tilec_status s) {
  if (!s) return ::testing::AssertionSuccess();
  auto r = ::testing::AssertionFailure()
           << tilec_status_code_name(tilec_status_code(s)) << ": " << tilec_status_message(s);
  tilec_status_free(s);
  return r;
}

/// `s` is an error with `code` whose message contains every one of `parts`.
/// Frees `s`.
inline ::testing::AssertionResult IsError(tilec_status s, int code,
                                          std::initializer_list<const char*> parts = {}) {
  if (!s) return ::testing::AssertionFailure() << "expected an error, got success";
  const int got = tilec_status_code(s);
  const std::string msg = tilec_status_message(s);
  tilec_status_free(s);
  if (got != code)
    return ::testing::AssertionFailure()
           << "expected " << tilec_status_code_name(code) << ", got "
           << tilec_status_code_name(got) << ": " << msg;
  for (const char* p : parts)
    if (msg.find(p) == std::string::npos)
      return ::testing::AssertionFailure() << "message lacks '" << p << "': " << msg;
  return ::testing::AssertionSuccess() << msg;
}

/// Loading `bytes` fails with BAD_BUNDLE and a message containing `parts`.
inline ::testing::AssertionResult IsBadBundle(const std::string& bytes,
                                              std::initializer_list<const char*> parts) {
  tilec_bundle* b = reinterpret_cast<tilec_bundle*>(0x1);
  tilec_status s = tilec_bundle_load_memory(bytes.data(), bytes.size(), &b);
  if (b != reinterpret_cast<tilec_bundle*>(0x1))
    return ::testing::AssertionFailure() << "output written on failure";
  return IsError(s, TILEC_ERROR_BAD_BUNDLE, parts);
}

/// Argument constructors: the C++ wrapper's, as plain C structs.
inline tilec_arg tensor_arg(uint64_t data, tilec_dtype dtype, std::vector<int64_t> shape,
                            std::vector<int64_t> strides = {}) {
  return tilec::Arg::tensor(data, dtype, shape, strides);
}

inline tilec_arg int_arg(tilec_dtype dtype, int64_t v) {
  return tilec::Arg::int_scalar(dtype, v);
}

inline tilec_arg float_arg(tilec_dtype dtype, double v) {
  return tilec::Arg::float_scalar(dtype, v);
}

/// Valid arguments for gemm_meta()'s "gemm" with M=512, N=1024, K=4096.
inline std::vector<tilec_arg> gemm_args() {
  return {tensor_arg(0x10000, TILEC_DTYPE_BF16, {512, 4096}),
          tensor_arg(0x20000, TILEC_DTYPE_BF16, {4096, 1024}),
          tensor_arg(0x30000, TILEC_DTYPE_F32, {512, 1024}),
          int_arg(TILEC_DTYPE_I32, 4096),
          float_arg(TILEC_DTYPE_BF16, 1.5)};
}

/// Valid arguments for vector_add_meta() with n elements.
inline std::vector<tilec_arg> vector_add_args(int64_t n) {
  return {tensor_arg(0x1000, TILEC_DTYPE_F32, {n}), tensor_arg(0x2000, TILEC_DTYPE_F32, {n}),
          tensor_arg(0x3000, TILEC_DTYPE_F32, {n}), float_arg(TILEC_DTYPE_F32, 2.0)};
}

}  // namespace tilec_test

#endif  // TILEC_TEST_UNIT_RUNTIME_TEST_UTIL_H
