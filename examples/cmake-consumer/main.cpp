// Runs the two kernels this project compiled at build time (kernels/*.mlir,
// through tilec_add_kernels) and checks them against float64 references on
// the CPU: fresh random inputs, poisoned outputs, sizes that are not
// multiples of the tiles.
//
//   consumer [seed]       exit 0: correct; 1: wrong or an error; 77: no GPU
#include "axpy.h"
#include "scaled_matmul.h"

#include <tilec/runtime.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

// float -> IEEE half, round to nearest even (normal range; the inputs are
// in [-1, 1)).
uint16_t to_half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  int32_t exp = int32_t((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffffu;
  if (exp <= 0)
    return uint16_t(sign); // too small for these inputs: zero
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h;
  return uint16_t(h);
}

double from_half(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  double mant = h & 0x3ff;
  double v = exp ? std::ldexp(1.0 + mant / 1024.0, exp - 15)
                 : std::ldexp(mant / 1024.0, -14);
  return (h & 0x8000u) ? -v : v;
}

// Launch functions return a tilec_status: null on success, else an error
// with its message, which tilec::check throws as a tilec::Error.
using tilec::check;

bool axpy_check(std::mt19937_64 &rng) {
  const int64_t n = 1000003; // not a multiple of the 1024-element tile
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = u(rng);
    y[i] = u(rng);
  }
  const float alpha = u(rng);
  tilec::DeviceBuffer dx(n * 4), dy(n * 4);
  dx.copy_from_host(x.data(), n * 4);
  dy.copy_from_host(y.data(), n * 4);
  const int64_t shape[1] = {n}, strides[1] = {1};
  check(axpy_axpy(nullptr, alpha, dx.ptr(), shape, strides, dy.ptr(), shape,
                  strides));
  tilec::synchronize();
  dy.copy_to_host(out.data(), n * 4);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double want = double(alpha) * x[i] + y[i];
    double err = std::fabs(out[i] - want);
    if (!(err <= worst)) // NaN counts as the worst
      worst = std::isnan(err) ? INFINITY : err;
  }
  std::printf("axpy          n=%lld              max |error| %.3g\n",
              (long long)n, worst);
  return worst <= 1e-6;
}

bool matmul_check(std::mt19937_64 &rng) {
  const int64_t m = 300, n = 520, k = 136; // not multiples of 128x256x64
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<uint16_t> a(m * k), b(k * n);
  for (auto &v : a)
    v = to_half(u(rng));
  for (auto &v : b)
    v = to_half(u(rng));
  const float alpha = u(rng);
  std::vector<float> c(m * n, NAN); // poison: every element must be written
  tilec::DeviceBuffer da(a.size() * 2), db(b.size() * 2), dc(c.size() * 4);
  da.copy_from_host(a.data(), a.size() * 2);
  db.copy_from_host(b.data(), b.size() * 2);
  dc.copy_from_host(c.data(), c.size() * 4);
  const int64_t a_shape[2] = {m, k}, a_strides[2] = {k, 1};
  const int64_t b_shape[2] = {k, n}, b_strides[2] = {n, 1};
  const int64_t c_shape[2] = {m, n}, c_strides[2] = {n, 1};
  check(scaled_matmul_scaled_matmul(nullptr, da.ptr(), a_shape, a_strides,
                                    db.ptr(), b_shape, b_strides, dc.ptr(),
                                    c_shape, c_strides, alpha));
  tilec::synchronize();
  dc.copy_to_host(c.data(), c.size() * 4);
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t l = 0; l < k; ++l)
        want += from_half(a[i * k + l]) * from_half(b[l * n + j]);
      want *= alpha;
      double err = std::fabs(c[i * n + j] - want);
      if (!(err <= worst))
        worst = std::isnan(err) ? INFINITY : err;
    }
  std::printf("scaled_matmul M=%lld N=%lld K=%lld  max |error| %.3g\n",
              (long long)m, (long long)n, (long long)k, worst);
  return worst <= 1e-3; // f32 accumulation of 136 products in [-1, 1]
}

} // namespace

int main(int argc, char **argv) {
  int sms, smem, major, minor;
  tilec_status s = tilec_device_info(&sms, &smem, &major, &minor);
  if (s) {
    std::printf("consumer: no GPU here (%s); built, nothing to run\n",
                tilec_status_message(s));
    tilec_status_free(s);
    return 77;
  }
  std::mt19937_64 rng(argc > 1 ? std::strtoull(argv[1], nullptr, 0)
                               : std::random_device{}());
  try {
    bool ok = axpy_check(rng);
    ok = matmul_check(rng) && ok;
    std::printf("consumer: %s\n", ok ? "correct" : "WRONG");
    return ok ? 0 : 1;
  } catch (const tilec::Error &e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
