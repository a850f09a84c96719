/* Host time of a launch through the C API (issue 15): the vector add and
 * the GEMM (three TMA descriptors) of examples/, launched by tilec_launch
 * (the GEMM also with tilec_launch_grid on the member tilec_launch picks,
 * so the member choice is not timed).
 *
 *   cc -O2 bench/launch_c.c -I runtime/include -L DIR -ltilec_runtime -o launch_c
 *   LD_LIBRARY_PATH=DIR ./launch_c BUNDLE_DIR
 *
 * Each figure: the median over 20 batches of 200 launches of the host time
 * of one call (clock_gettime around the batch, the device drained with
 * tilec_synchronize between batches, outside the timing). Exit 77 without
 * a GPU. */
#define _POSIX_C_SOURCE 199309L
#include "tilec/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 200, BATCHES = 20 };

static int check(tilec_status s, const char *what) {
  if (!s)
    return 0;
  fprintf(stderr, "launch_c: %s: %s\n", what, tilec_status_message(s));
  tilec_status_free(s);
  exit(1);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median host microseconds a launch of `k` (grid: NULL for its rule). */
static double host_us(tilec_kernel *k, const uint32_t *grid, const tilec_arg *args,
                      size_t n) {
  double t[BATCHES];
  for (int i = 0; i < BATCH; ++i) /* warm-up: module load, workspace */
    check(grid ? tilec_launch_grid(k, NULL, grid, args, n) : tilec_launch(k, NULL, args, n),
          "warm-up launch");
  check(tilec_synchronize(), "synchronize");
  for (int b = 0; b < BATCHES; ++b) {
    double t0 = now_us();
    for (int i = 0; i < BATCH; ++i)
      check(grid ? tilec_launch_grid(k, NULL, grid, args, n) : tilec_launch(k, NULL, args, n),
            "launch");
    t[b] = (now_us() - t0) / BATCH;
    check(tilec_synchronize(), "synchronize");
  }
  qsort(t, BATCHES, sizeof t[0], cmp);
  return (t[BATCHES / 2 - 1] + t[BATCHES / 2]) / 2;
}

static tilec_arg tensor(uint64_t ptr, int dtype, int rank, const int64_t *shape) {
  tilec_arg a;
  memset(&a, 0, sizeof a);
  a.kind = TILEC_ARG_TENSOR;
  a.dtype = dtype;
  a.data = ptr;
  a.rank = rank;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    a.shape[d] = shape[d];
    a.strides[d] = stride;
    stride *= shape[d];
  }
  return a;
}

static uint64_t zeros(size_t bytes) {
  uint64_t p;
  check(tilec_malloc(&p, bytes), "tilec_malloc");
  void *h = calloc(1, bytes);
  check(tilec_memcpy_htod(p, h, bytes), "tilec_memcpy_htod");
  free(h);
  return p;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "build/examples";
  int sms, smem, major, minor;
  tilec_status s = tilec_device_info(&sms, &smem, &major, &minor);
  if (s) {
    printf("launch_c: no GPU here (%s)\n", tilec_status_message(s));
    tilec_status_free(s);
    return 77;
  }
  char path[4096];
  tilec_bundle *va_b, *gemm_b;
  snprintf(path, sizeof path, "%s/vector_add.tlc", dir);
  check(tilec_bundle_load_file(path, &va_b), path);
  snprintf(path, sizeof path, "%s/gemm.tlc", dir);
  check(tilec_bundle_load_file(path, &gemm_b), path);

  tilec_kernel *va, *gemm, *member;
  check(tilec_bundle_get_kernel(va_b, "vector_add", &va), "vector_add");
  int64_t n = 4096;
  tilec_arg vargs[3];
  for (int i = 0; i < 3; ++i)
    vargs[i] = tensor(zeros((size_t)n * 4), TILEC_DTYPE_F32, 1, &n);

  check(tilec_bundle_get_kernel(gemm_b, "gemm", &gemm), "gemm");
  int64_t mk[2] = {256, 256}, kn[2] = {256, 256}, mn[2] = {256, 256}, nn = 256;
  tilec_arg gargs[4] = {
      tensor(zeros(256 * 256 * 2), TILEC_DTYPE_BF16, 2, mk),
      tensor(zeros(256 * 256 * 2), TILEC_DTYPE_BF16, 2, kn),
      tensor(zeros(256 * 4), TILEC_DTYPE_F32, 1, &nn),
      tensor(zeros(256 * 256 * 2), TILEC_DTYPE_BF16, 2, mn),
  };
  check(tilec_kernel_choose(gemm, gargs, 4, &member), "tilec_kernel_choose");
  uint32_t grid[3];
  check(tilec_kernel_grid(member, gargs, 4, grid), "tilec_kernel_grid");

  printf("launch_c: sm_%d%d, %s\n", major, minor, tilec_runtime_version());
  printf("%-14s %-30s %10s\n", "kernel", "call", "host us");
  printf("%-14s %-30s %10.2f\n", "vector add", "tilec_launch", host_us(va, NULL, vargs, 3));
  printf("%-14s %-30s %10.2f\n", "GEMM 256^3", "tilec_launch (chooses)",
         host_us(gemm, NULL, gargs, 4));
  char what[64];
  snprintf(what, sizeof what, "tilec_launch_grid (%s)", tilec_kernel_name(member));
  printf("%-14s %-30s %10.2f\n", "GEMM 256^3", what, host_us(member, grid, gargs, 4));
  tilec_bundle_free(va_b);
  tilec_bundle_free(gemm_b);
  return 0;
}
