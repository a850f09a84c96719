// Element types and scalar float conversions.
#include "internal.h"

#include <cmath>
#include <cstring>

namespace tilec_rt {
namespace {

struct DtypeInfo {
  const char* name;
  size_t size;
  bool is_int;
};

// Indexed by tilec_dtype.
const DtypeInfo kDtypes[] = {
    {"?", 0, false},      {"i1", 1, true},    {"i8", 1, true},     {"i16", 2, true},
    {"i32", 4, true},     {"i64", 8, true},   {"f16", 2, false},   {"bf16", 2, false},
    {"f32", 4, false},    {"f64", 8, false},  {"f8e4m3", 1, false}, {"f8e5m2", 1, false},
};
constexpr int kNumDtypes = sizeof(kDtypes) / sizeof(kDtypes[0]);

// Converts `v` to a binary float with `ebits` exponent and `mbits` mantissa
// bits, rounding to nearest even. `fn` selects the "finite" flavour (e4m3fn):
// no infinities, NaN is all ones, overflow saturates to the largest finite.
uint32_t to_small_float(double v, int ebits, int mbits, bool fn) {
  const uint32_t sign_bit = (std::signbit(v) ? 1u : 0u) << (ebits + mbits);
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t exp_all = (1u << ebits) - 1;
  const uint32_t mant_all = (1u << mbits) - 1;
  const uint32_t inf_bits = exp_all << mbits;
  const uint32_t max_bits = fn ? ((exp_all << mbits) | (mant_all - 1))
                               : (((exp_all - 1) << mbits) | mant_all);
  if (std::isnan(v))
    return sign_bit | (fn ? (inf_bits | mant_all) : (inf_bits | (1u << (mbits - 1))));
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign_bit | (fn ? max_bits : inf_bits);
  if (a == 0) return sign_bit;
  int e2 = 0;
  std::frexp(a, &e2);  // a = f * 2^e2, f in [0.5, 1)
  int exp = e2 - 1;    // floor(log2(a))
  const int min_exp = 1 - bias;
  if (exp < min_exp) exp = min_exp;  // subnormal range
  // q = a / 2^(exp - mbits) is exact and below 2^(mbits+1).
  const double q = std::ldexp(a, mbits - exp);
  double r = std::floor(q);
  const double frac = q - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  uint64_t m = static_cast<uint64_t>(r);
  if (m == (uint64_t{1} << (mbits + 1))) {  // rounded up into the next binade
    m >>= 1;
    exp += 1;
  }
  if (m < (uint64_t{1} << mbits)) return sign_bit | static_cast<uint32_t>(m);  // subnormal
  const int64_t field = static_cast<int64_t>(exp) + bias;
  const uint32_t mant = static_cast<uint32_t>(m - (uint64_t{1} << mbits));
  if (fn) {
    if (field > static_cast<int64_t>(exp_all) ||
        (field == static_cast<int64_t>(exp_all) && mant > mant_all - 1))
      return sign_bit | max_bits;
  } else if (field >= static_cast<int64_t>(exp_all)) {
    return sign_bit | inf_bits;
  }
  return sign_bit | (static_cast<uint32_t>(field) << mbits) | mant;
}

}  // namespace

bool dtype_valid(int dtype) { return dtype > 0 && dtype < kNumDtypes; }
size_t dtype_size(int dtype) { return dtype_valid(dtype) ? kDtypes[dtype].size : 0; }
const char* dtype_name(int dtype) { return dtype_valid(dtype) ? kDtypes[dtype].name : "?"; }
bool dtype_is_int(int dtype) { return dtype_valid(dtype) && kDtypes[dtype].is_int; }
bool dtype_is_float(int dtype) { return dtype_valid(dtype) && !kDtypes[dtype].is_int; }

int dtype_from_name(const std::string& name) {
  for (int i = 1; i < kNumDtypes; ++i)
    if (name == kDtypes[i].name) return i;
  return TILEC_DTYPE_INVALID;
}

uint32_t float_to_f32_bits(double v) { return to_small_float(v, 8, 23, false); }
uint16_t float_to_f16_bits(double v) { return static_cast<uint16_t>(to_small_float(v, 5, 10, false)); }
uint16_t float_to_bf16_bits(double v) { return static_cast<uint16_t>(to_small_float(v, 8, 7, false)); }
uint8_t float_to_f8e4m3_bits(double v) { return static_cast<uint8_t>(to_small_float(v, 4, 3, true)); }
uint8_t float_to_f8e5m2_bits(double v) { return static_cast<uint8_t>(to_small_float(v, 5, 2, false)); }

}  // namespace tilec_rt
