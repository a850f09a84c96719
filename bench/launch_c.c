/* Host time of a launch through the C API (issue 15): the vector add and
 * the GEMM (three TMA descriptors) of examples/, launched by tilec_launch
 * (the GEMM also with tilec_launch_grid on the member tilec_launch picks,
 * so the member choice is not timed), and the same vector add kernel launched
 * by the bare driver (cuLaunchKernel on a module of its cubin, its parameters
 * packed once): the floor a launch through any library stands on.
 *
 *   cc -O2 bench/launch_c.c -I runtime/include -L DIR -ltilec_runtime -ldl -o launch_c
 *   LD_LIBRARY_PATH=DIR ./launch_c BUNDLE_DIR [vector_add.cubin]
 *
 * Each figure: the median over 30 batches of 200 launches of the host time
 * of one call (clock_gettime around the batch, the device drained with
 * tilec_synchronize between batches, outside the timing). The ways are
 * timed in turn, a batch of each in every round with the order rotating,
 * so that all see the same machine (a run's figures drift by 15% from one
 * run to the next). Exit 77 without a GPU. */
#define _POSIX_C_SOURCE 199309L
#include "tilec/runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 200, BATCHES = 30, MAX_WAYS = 16 };

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

/* One way to launch, called BATCH times a batch. */
struct way {
  const char *kernel, *call, *on;
  void (*launch)(struct way *);
  void *stream; /* NULL: the legacy default stream */
  tilec_kernel *k; /* tilec: the kernel, its grid (NULL: its rule), its args */
  const uint32_t *grid;
  const tilec_arg *args;
  size_t n;
  void *fn; /* bare: the function, its grid and block, params or buffer */
  unsigned blocks, threads;
  void **params;
  void *extra[5];
  size_t size;
  double t[BATCHES];
};

static void tilec_way(struct way *w) {
  check(w->grid ? tilec_launch_grid(w->k, w->stream, w->grid, w->args, w->n)
                : tilec_launch(w->k, w->stream, w->args, w->n),
        w->call);
}

/* The driver's entry points the bare launch needs (cuda.h's types as
 * integers and pointers: no CUDA header needed). */
typedef int (*cuModuleLoadData_t)(void **, const void *);
typedef int (*cuModuleGetFunction_t)(void **, void *, const char *);
typedef int (*cuLaunchKernel_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, void *, void **, void **);
typedef int (*cuStreamCreate_t)(void **, unsigned);
static cuLaunchKernel_t cu_launch;
static cuStreamCreate_t cu_stream_create;

static void bare_way(struct way *w) {
  if (cu_launch(w->fn, w->blocks, 1, 1, w->threads, 1, 1, 0, w->stream, w->params,
                w->params ? NULL : w->extra)) {
    fprintf(stderr, "launch_c: cuLaunchKernel failed\n");
    exit(1);
  }
}

/* `name` of `cubin` as a CUfunction in the current context (the runtime's
 * primary context); NULL if the driver or the cubin cannot be had. */
static void *bare_function(const char *cubin, const char *name) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return NULL;
  cuModuleLoadData_t load = (cuModuleLoadData_t)dlsym(lib, "cuModuleLoadData");
  cuModuleGetFunction_t get = (cuModuleGetFunction_t)dlsym(lib, "cuModuleGetFunction");
  cu_launch = (cuLaunchKernel_t)dlsym(lib, "cuLaunchKernel");
  cu_stream_create = (cuStreamCreate_t)dlsym(lib, "cuStreamCreate");
  FILE *f = fopen(cubin, "rb");
  if (!load || !get || !cu_launch || !f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *image = malloc((size_t)bytes);
  size_t got = fread(image, 1, (size_t)bytes, f);
  fclose(f);
  void *module, *fn;
  if (got != (size_t)bytes || load(&module, image) || get(&fn, module, name))
    return NULL;
  return fn;
}

/* Times every way in turn; each way's median (microseconds a launch) in
 * t[0] after sorting. */
static void time_ways(struct way *ways, int count) {
  for (int w = 0; w < count; ++w) { /* warm-up: module loads, caches */
    for (int i = 0; i < BATCH; ++i)
      ways[w].launch(&ways[w]);
    check(tilec_synchronize(), "synchronize");
  }
  for (int b = 0; b < BATCHES; ++b)
    for (int j = 0; j < count; ++j) {
      struct way *w = &ways[(b + j) % count];
      double t0 = now_us();
      for (int i = 0; i < BATCH; ++i)
        w->launch(w);
      w->t[b] = (now_us() - t0) / BATCH;
      check(tilec_synchronize(), "synchronize");
    }
  for (int w = 0; w < count; ++w)
    qsort(ways[w].t, BATCHES, sizeof(double), cmp);
}

static double median(const struct way *w) {
  return (w->t[BATCHES / 2 - 1] + w->t[BATCHES / 2]) / 2;
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

  char member_call[64];
  snprintf(member_call, sizeof member_call, "tilec_launch_grid (%s)", tilec_kernel_name(member));
  struct way ways[MAX_WAYS];
  memset(ways, 0, sizeof ways);
  int count = 0;
  ways[count++] = (struct way){.kernel = "vector add", .call = "tilec_launch",
                               .launch = tilec_way, .k = va, .args = vargs, .n = 3};
  ways[count++] = (struct way){.kernel = "GEMM 256^3", .call = "tilec_launch (chooses)",
                               .launch = tilec_way, .k = gemm, .args = gargs, .n = 4};
  ways[count++] = (struct way){.kernel = "GEMM 256^3", .call = member_call,
                               .launch = tilec_way, .k = member, .grid = grid,
                               .args = gargs, .n = 4};
  /* The same vector add kernel by the bare driver: its parameters packed
   * by the runtime (no TMA maps), passed as pointers to each (as the
   * runtime does) and as one buffer. */
  size_t size = 0, nabi = tilec_kernel_abi_num_params(va);
  size_t *offsets = calloc(nabi, sizeof *offsets);
  check(tilec_kernel_pack_args(va, vargs, 3, NULL, 0, &size, offsets), "pack_args");
  char *buf = calloc(1, size);
  check(tilec_kernel_pack_args(va, vargs, 3, buf, size, &size, offsets), "pack_args");
  void **params = calloc(nabi, sizeof *params);
  for (size_t i = 0; i < nabi; ++i)
    params[i] = buf + offsets[i];
  uint32_t vgrid[3];
  check(tilec_kernel_grid(va, vargs, 3, vgrid), "tilec_kernel_grid");
  void *fn = argc > 2 ? bare_function(argv[2], "vector_add") : NULL;
  if (fn) {
    for (int form = 0; form < 2; ++form) {
      struct way *w = &ways[count++];
      *w = (struct way){.kernel = "vector add",
                        .call = form ? "cuLaunchKernel (bare, buffer)"
                                     : "cuLaunchKernel (bare, params)",
                        .launch = bare_way, .fn = fn, .blocks = vgrid[0],
                        .threads = tilec_kernel_threads(va), .params = form ? NULL : params,
                        .size = size};
      /* CU_LAUNCH_PARAM_BUFFER_POINTER (1), _SIZE (2), _END (0) */
      w->extra[0] = (void *)1, w->extra[1] = buf, w->extra[2] = (void *)2;
      w->extra[3] = &w->size, w->extra[4] = NULL;
    }
  } else if (argc > 2) {
    printf("launch_c: no bare launch (cannot load %s or the driver)\n", argv[2]);
  }
  /* Every way again on a stream of its own (CU_STREAM_NON_BLOCKING): the
   * legacy default stream makes the driver order each launch against every
   * blocking stream of the context, a cost of that stream, not of the
   * launch. */
  void *stream = NULL;
  if (cu_stream_create && !cu_stream_create(&stream, 1 /* NON_BLOCKING */)) {
    for (int w = 0, n = count; w < n && count < MAX_WAYS; ++w) {
      ways[count] = ways[w];
      ways[count].stream = stream;
      ways[count++].on = "own stream";
    }
  }
  for (int w = 0; w < count; ++w)
    if (!ways[w].on)
      ways[w].on = "default (0)";
  time_ways(ways, count);

  printf("launch_c: sm_%d%d, %s; ways timed in turn, median of %d batches of %d\n", major,
         minor, tilec_runtime_version(), BATCHES, BATCH);
  printf("%-14s %-32s %-12s %10s\n", "kernel", "call", "stream", "host us");
  for (int w = 0; w < count; ++w)
    printf("%-14s %-32s %-12s %10.2f\n", ways[w].kernel, ways[w].call, ways[w].on,
           median(&ways[w]));
  if (fn) {
    int half = count / 2; /* ways[half..] are ways[0..] on the own stream */
    printf("tilec_launch over the bare cuLaunchKernel (vector add): %+.2f us (default "
           "stream)",
           median(&ways[0]) - median(&ways[3]));
    if (stream)
      printf(", %+.2f us (own stream)", median(&ways[half]) - median(&ways[half + 3]));
    printf("\n");
  }
  free(params);
  free(buf);
  free(offsets);
  tilec_bundle_free(va_b);
  tilec_bundle_free(gemm_b);
  return 0;
}
