/* Runs examples/gemm.mlir through its generated C launch function
 * (tilec compile --emit=c) and checks it against a float64 reference on the
 * CPU: fresh random bf16 inputs, a poisoned output, a shape that is not a
 * multiple of the 128x128 tile.
 *
 *   gemm_check [M N K] [seed]
 *
 * Exit 0: correct. Exit 1: wrong or an error. Exit 77: no GPU here. */
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
  return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint64_t rng_state;
static float uniform(void) { /* in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((rng_state >> 40) & 0xffffff) / 8388608.0f - 1.0f;
}

static int fail(const char *what, tilec_status s) {
  fprintf(stderr, "gemm_check: %s: %s\n", what, tilec_status_message(s));
  tilec_status_free(s);
  return 1;
}

int main(int argc, char **argv) {
  int64_t m = 300, n = 200, k = 136;
  rng_state = 0x5eed;
  if (argc >= 4) {
    m = atoll(argv[1]);
    n = atoll(argv[2]);
    k = atoll(argv[3]);
  }
  if (argc >= 5)
    rng_state = strtoull(argv[4], NULL, 0);

  int sms, smem, major, minor;
  tilec_status s = tilec_device_info(&sms, &smem, &major, &minor);
  if (s) {
    printf("gemm_check: no GPU here (%s); nothing to run\n",
           tilec_status_message(s));
    tilec_status_free(s);
    return 77;
  }
  printf("gemm_check: device sm_%d%d with %d SMs; C = relu(A B + bias), "
         "M=%lld N=%lld K=%lld\n",
         major, minor, sms, (long long)m, (long long)n, (long long)k);

  size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
  uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c = malloc(nc * 2);
  float *bias = malloc((size_t)n * 4);
  for (size_t i = 0; i < na; ++i)
    a[i] = to_bf16(uniform());
  for (size_t i = 0; i < nb; ++i)
    b[i] = to_bf16(uniform());
  for (int64_t i = 0; i < n; ++i)
    bias[i] = uniform();
  for (size_t i = 0; i < nc; ++i)
    c[i] = 0xffff; /* NaN: every element must be written */

  uint64_t da, db, dbias, dc;
  if ((s = tilec_malloc(&da, na * 2)) || (s = tilec_malloc(&db, nb * 2)) ||
      (s = tilec_malloc(&dbias, (size_t)n * 4)) ||
      (s = tilec_malloc(&dc, nc * 2)))
    return fail("allocating", s);
  if ((s = tilec_memcpy_htod(da, a, na * 2)) ||
      (s = tilec_memcpy_htod(db, b, nb * 2)) ||
      (s = tilec_memcpy_htod(dbias, bias, (size_t)n * 4)) ||
      (s = tilec_memcpy_htod(dc, c, nc * 2)))
    return fail("copying inputs", s);

  int64_t a_shape[2] = {m, k}, a_strides[2] = {k, 1};
  int64_t b_shape[2] = {k, n}, b_strides[2] = {n, 1};
  int64_t bias_shape[1] = {n}, bias_strides[1] = {1};
  int64_t c_shape[2] = {m, n}, c_strides[2] = {n, 1};
  if ((s = gemm_gemm(NULL, da, a_shape, a_strides, db, b_shape, b_strides,
                     dbias, bias_shape, bias_strides, dc, c_shape, c_strides)))
    return fail("launching", s);
  if ((s = tilec_synchronize()))
    return fail("running", s);
  if ((s = tilec_memcpy_dtoh(c, dc, nc * 2)))
    return fail("copying the result", s);

  double num = 0, den = 0;
  long bad = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = bias[j];
      for (int64_t p = 0; p < k; ++p)
        ref += (double)from_bf16(a[i * k + p]) * from_bf16(b[p * n + j]);
      ref = ref > 0 ? ref : 0;
      double out = from_bf16(c[i * n + j]);
      if (!isfinite(out))
        ++bad;
      num += (out - ref) * (out - ref);
      den += ref * ref;
    }
  double err = sqrt(num) / sqrt(den);
  int ok = bad == 0 && err < 1e-2;
  printf("gemm_check: %s: ||C - ref|| / ||ref|| = %.3e (tolerance 1e-2, "
         "bf16 output), %ld unwritten or non-finite\n",
         ok ? "PASS" : "FAIL", err, bad);
  tilec_free(da);
  tilec_free(db);
  tilec_free(dbias);
  tilec_free(dc);
  free(a);
  free(b);
  free(c);
  free(bias);
  return ok ? 0 : 1;
}
