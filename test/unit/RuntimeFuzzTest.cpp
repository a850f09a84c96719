// Robustness: thousands of random mutations of valid bundles must load or be
// rejected with BAD_BUNDLE, never crash or read out of bounds (run this under
// -fsanitize=address to check the latter). Whatever loads is exercised too.
#include "RuntimeTestUtil.h"

#include <random>

using namespace tilec_test;

namespace {

// Reads every accessor and runs validate / grid / pack with plausible args.
void exercise(tilec_bundle* b, std::mt19937& rng) {
  (void)tilec_bundle_arch(b);
  (void)tilec_bundle_metadata(b);
  for (size_t i = 0; i < tilec_bundle_num_kernels(b); ++i) {
    tilec_kernel* k = nullptr;
    tilec_status s = tilec_bundle_get_kernel(b, tilec_bundle_kernel_name(b, i), &k);
    ASSERT_EQ(s, nullptr) << tilec_status_message(s);
    std::vector<tilec_arg> args;
    for (size_t p = 0; p < tilec_kernel_num_params(k); ++p) {
      tilec_param_info info;
      ASSERT_EQ(tilec_kernel_param(k, p, &info), nullptr);
      if (info.kind == TILEC_ARG_SCALAR) {
        args.push_back(tilec_dtype_is_integer(info.dtype)
                           ? int_arg(static_cast<tilec_dtype>(info.dtype), rng() % 3)
                           : float_arg(static_cast<tilec_dtype>(info.dtype), 1.0));
        continue;
      }
      std::vector<int64_t> shape;
      for (int d = 0; d < info.rank; ++d)
        shape.push_back(info.shape[d] >= 0 ? info.shape[d] : 1 + rng() % 300);
      args.push_back(tensor_arg(0x100000, static_cast<tilec_dtype>(info.dtype), shape));
    }
    uint32_t grid[3];
    tilec_status_free(tilec_kernel_validate(k, args.data(), args.size()));
    tilec_status_free(tilec_kernel_grid(k, args.data(), args.size(), grid));
    size_t size = 0;
    std::vector<uint8_t> buf(4096);
    tilec_status_free(tilec_kernel_pack_args(k, args.data(), args.size(), buf.data(), buf.size(),
                                             &size, nullptr));
  }
}

void try_load(const std::string& bytes, std::mt19937& rng, int& loaded) {
  tilec_bundle* b = nullptr;
  tilec_status s = tilec_bundle_load_memory(bytes.data(), bytes.size(), &b);
  if (s) {
    EXPECT_EQ(tilec_status_code(s), TILEC_ERROR_BAD_BUNDLE) << tilec_status_message(s);
    EXPECT_NE(std::string(tilec_status_message(s)), "");
    EXPECT_EQ(b, nullptr);
    tilec_status_free(s);
    return;
  }
  ++loaded;
  exercise(b, rng);
  tilec_bundle_free(b);
}

std::string mutate_bytes(std::string s, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 6) {
      case 0:  // flip a bit
        if (!s.empty()) s[pos] = static_cast<char>(s[pos] ^ (1 << (rng() % 8)));
        break;
      case 1:  // random byte
        if (!s.empty()) s[pos] = static_cast<char>(rng());
        break;
      case 2:  // truncate
        s.resize(pos);
        break;
      case 3:  // insert a byte
        s.insert(s.begin() + static_cast<long>(pos), static_cast<char>(rng()));
        break;
      case 4:  // delete a run
        s.erase(pos, rng() % 16);
        break;
      case 5:  // set one of the size / count fields to something big
        if (s.size() >= 32) {
          const size_t field = (rng() % 2) ? 12 : 24;
          s[field + rng() % 4] = static_cast<char>(rng());
        }
        break;
    }
  }
  return s;
}

// Mutates the metadata text at the token level, then builds a well-formed
// container around it, so that the metadata parser is exercised deeply.
std::string mutate_metadata(const std::string& meta, std::mt19937& rng) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : meta) {
    if (c == ' ' || c == '\n') {
      if (!cur.empty()) tokens.push_back(cur);
      tokens.push_back(std::string(1, c));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  static const char* kJunk[] = {"?", "-1", "0", "99999999999999999999", "tma", "end", "kernel k",
                                "param", "scalar", "tensor", "f17", "bf16", "(", ")", ",", "#",
                                "dim(9,9)", "arg(0)", "\n", " ", "\t", "\r", "", "6", "256"};
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !tokens.empty(); ++e) {
    const size_t i = rng() % tokens.size();
    switch (rng() % 4) {
      case 0: tokens.erase(tokens.begin() + static_cast<long>(i)); break;
      case 1: tokens[i] = kJunk[rng() % (sizeof(kJunk) / sizeof(kJunk[0]))]; break;
      case 2: tokens.insert(tokens.begin() + static_cast<long>(i), tokens[rng() % tokens.size()]); break;
      case 3: std::swap(tokens[i], tokens[rng() % tokens.size()]); break;
    }
  }
  std::string out;
  for (const auto& t : tokens) out += t;
  return out;
}

}  // namespace

TEST(RuntimeFuzz, RandomByteMutationsOfValidBundles) {
  std::mt19937 rng(42);
  const std::string seeds[] = {make_bundle(vector_add_meta()),
                               make_bundle(gemm_meta(), true, ".version 8.0\n")};
  int loaded = 0;
  for (int iter = 0; iter < 4000; ++iter)
    try_load(mutate_bytes(seeds[iter % 2], rng), rng, loaded);
  // Many mutations hit only padding or the fake cubin, so some still load.
  EXPECT_GT(loaded, 0);
}

TEST(RuntimeFuzz, RandomMetadataMutations) {
  std::mt19937 rng(7);
  const std::string metas[] = {vector_add_meta(), gemm_meta()};
  int loaded = 0;
  for (int iter = 0; iter < 4000; ++iter)
    try_load(make_bundle(mutate_metadata(metas[iter % 2], rng)), rng, loaded);
  EXPECT_GT(loaded, 0);
}

TEST(RuntimeFuzz, RandomBytes) {
  std::mt19937 rng(99);
  int loaded = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s = "TILECBN1";
    s += std::string("\x01\x00\x00\x00", 4);
    const size_t n = rng() % 200;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>(rng());
    try_load(s, rng, loaded);
  }
  EXPECT_EQ(loaded, 0);
}
