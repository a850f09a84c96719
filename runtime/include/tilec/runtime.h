/*
 * tilec runtime: loads tilec bundles (.tlc, see docs/BUNDLE.md) and launches
 * their kernels through the CUDA driver API.
 *
 * C API conventions
 * -----------------
 * - Every fallible function returns a `tilec_status`. NULL means success; any
 *   other value is an error object that the caller owns and must release with
 *   tilec_status_free(). Its code and message are read with
 *   tilec_status_code() / tilec_status_message().
 * - Output parameters are written only on success.
 * - No function aborts, prints, or lets a C++ exception escape. A failing call
 *   releases whatever it created.
 * - Parsing bundles, reading metadata, validating arguments, evaluating grids
 *   and packing parameters never touch the CUDA driver. Everything else loads
 *   the driver (libcuda.so.1, or the file named by the TILEC_CUDA_DRIVER
 *   environment variable) on first use. A failed attempt is not remembered:
 *   the next call tries again and re-reads TILEC_CUDA_DRIVER. Once loaded the
 *   driver stays loaded for the life of the process.
 * - Driver calls run in the calling thread's current CUDA context. If the
 *   thread has none, the runtime retains the primary context of device 0 (or
 *   of the device named by the TILEC_DEVICE environment variable) and makes
 *   it current.
 * - Objects (bundles, kernels) may be used from several threads at once.
 */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TILEC_API
#else
#define TILEC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Largest tensor rank a bundle may declare.
#define TILEC_MAX_RANK 5
/// Value of a dynamic (`?`) extent or stride in tilec_param_info.
#define TILEC_DYNAMIC (-1)

/* ------------------------------------------------------------------------ */
/* Status                                                                    */
/* ------------------------------------------------------------------------ */

/// Error object; NULL means success.
typedef struct tilec_status_st* tilec_status;

/// Status codes (tilec_status_code).
typedef enum tilec_code_enum {
  TILEC_OK = 0,
  /// A caller-supplied value is wrong (NULL handle, argument mismatch, ...).
  TILEC_ERROR_INVALID_ARGUMENT = 1,
  /// The bundle container or its metadata is malformed.
  TILEC_ERROR_BAD_BUNDLE = 2,
  /// A named thing (kernel, file) does not exist.
  TILEC_ERROR_NOT_FOUND = 3,
  /// The CUDA driver library could not be loaded or lacks a symbol.
  TILEC_ERROR_NO_DRIVER = 4,
  /// A CUDA driver call failed; the message names the call and the driver's
  /// error name and string, tilec_status_driver_error() gives the CUresult.
  TILEC_ERROR_DRIVER = 5,
  /// Valid request the runtime or the driver cannot do (e.g. driver too old).
  TILEC_ERROR_UNSUPPORTED = 6,
  /// A resource limit is exceeded (shared memory, host memory).
  TILEC_ERROR_OUT_OF_RESOURCES = 7
} tilec_code;

/// The code of `status`; TILEC_OK for NULL.
TILEC_API int tilec_status_code(tilec_status status);
/// The message of `status` (valid until it is freed); "success" for NULL.
TILEC_API const char* tilec_status_message(tilec_status status);
/// The CUresult of a TILEC_ERROR_DRIVER status; 0 for anything else.
TILEC_API int tilec_status_driver_error(tilec_status status);
/// Releases `status`; NULL is fine.
TILEC_API void tilec_status_free(tilec_status status);
/// Name of a status code ("TILEC_ERROR_BAD_BUNDLE"); "TILEC_UNKNOWN" for others.
TILEC_API const char* tilec_status_code_name(int code);

/// The runtime's version string, e.g. "0.1.0".
TILEC_API const char* tilec_runtime_version(void);

/* ------------------------------------------------------------------------ */
/* Element types                                                             */
/* ------------------------------------------------------------------------ */

/// Element types (metadata DTYPE). 0 is no type, so zero-filled args fail.
typedef enum tilec_dtype_enum {
  TILEC_DTYPE_INVALID = 0,
  TILEC_DTYPE_I1 = 1,
  TILEC_DTYPE_I8 = 2,
  TILEC_DTYPE_I16 = 3,
  TILEC_DTYPE_I32 = 4,
  TILEC_DTYPE_I64 = 5,
  TILEC_DTYPE_F16 = 6,
  TILEC_DTYPE_BF16 = 7,
  TILEC_DTYPE_F32 = 8,
  TILEC_DTYPE_F64 = 9,
  TILEC_DTYPE_F8E4M3 = 10,
  TILEC_DTYPE_F8E5M2 = 11
} tilec_dtype;

/// Size in bytes of one element of `dtype`; 0 for an invalid dtype.
TILEC_API size_t tilec_dtype_size(int dtype);
/// Metadata spelling of `dtype` ("f32"); NULL for an invalid dtype.
TILEC_API const char* tilec_dtype_name(int dtype);
/// Inverse of tilec_dtype_name; TILEC_DTYPE_INVALID for an unknown name.
TILEC_API int tilec_dtype_from_name(const char* name);
/// 1 for i1..i64, 0 otherwise.
TILEC_API int tilec_dtype_is_integer(int dtype);

/* ------------------------------------------------------------------------ */
/* Bundles                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct tilec_bundle tilec_bundle;
/// A kernel of a bundle; owned by the bundle, valid until tilec_bundle_free.
typedef struct tilec_kernel tilec_kernel;

/// Reads and parses the bundle file at `path`. Errors: NOT_FOUND (cannot open),
/// BAD_BUNDLE (malformed; the message says what and where).
TILEC_API tilec_status tilec_bundle_load_file(const char* path, tilec_bundle** out);
/// Parses a bundle from memory; the bytes are copied.
TILEC_API tilec_status tilec_bundle_load_memory(const void* data, size_t size,
                                                tilec_bundle** out);
/// Releases a bundle, its kernels and the driver modules loaded for it. NULL is
/// fine. If modules were loaded, first waits (cuCtxSynchronize) for each of
/// their contexts to go idle, so kernels still running are not cut off; that
/// wait is not allowed while a stream of the context is being captured into a
/// CUDA graph (it invalidates the capture): free bundles outside captures (the
/// Python binding defers a release that falls inside one).
TILEC_API void tilec_bundle_free(tilec_bundle* bundle);

/// The `arch` line of the metadata, e.g. "sm_90a".
TILEC_API const char* tilec_bundle_arch(const tilec_bundle* bundle);
/// The full metadata text (NUL-terminated copy of the META section).
TILEC_API const char* tilec_bundle_metadata(const tilec_bundle* bundle);
/// 1 if the bundle has CUBN sections (a cubin for each module).
TILEC_API int tilec_bundle_has_cubin(const tilec_bundle* bundle);
/// 1 if the bundle has `PTX ` sections (PTX for each module).
TILEC_API int tilec_bundle_has_ptx(const tilec_bundle* bundle);
/// Number of machine-code modules (tilec puts the kernels of a large
/// bundle into several, loaded each on the first launch of one of its
/// kernels); 0 for NULL.
TILEC_API size_t tilec_bundle_num_modules(const tilec_bundle* bundle);
/// Number of kernels in the metadata.
TILEC_API size_t tilec_bundle_num_kernels(const tilec_bundle* bundle);
/// Name of kernel `index` (metadata order); NULL if out of range.
TILEC_API const char* tilec_bundle_kernel_name(const tilec_bundle* bundle, size_t index);
/// Looks a kernel up by name. NOT_FOUND lists the available names.
TILEC_API tilec_status tilec_bundle_get_kernel(tilec_bundle* bundle, const char* name,
                                               tilec_kernel** out);
/// Loads the machine code into the calling thread's current context (cubin
/// first, PTX JIT as the fallback) and resolves every kernel. Launches do this
/// lazily; call it to pay the cost (or see the error) up front.
TILEC_API tilec_status tilec_bundle_load_module(tilec_bundle* bundle);

/* ------------------------------------------------------------------------ */
/* Kernel metadata                                                           */
/* ------------------------------------------------------------------------ */

/// Kinds of parameters and arguments.
typedef enum tilec_kind_enum {
  TILEC_ARG_TENSOR = 1,
  TILEC_ARG_SCALAR = 2
} tilec_kind;

/// TMA out-of-bounds fill.
typedef enum tilec_fill_enum {
  TILEC_FILL_ZERO = 0,
  TILEC_FILL_NAN = 1
} tilec_fill;

/// One metadata `param`, as filled by tilec_kernel_param.
typedef struct tilec_param_info {
  int32_t kind;   ///< TILEC_ARG_TENSOR or TILEC_ARG_SCALAR
  int32_t dtype;  ///< tilec_dtype
  const char* name;  ///< owned by the bundle
  int32_t rank;   ///< tensors: 1..TILEC_MAX_RANK; scalars: 0
  int64_t shape[TILEC_MAX_RANK];    ///< static extent, or TILEC_DYNAMIC
  int64_t strides[TILEC_MAX_RANK];  ///< static stride in elements, or TILEC_DYNAMIC
  int64_t align;  ///< required base alignment in bytes (tensors), 0 for scalars
  int32_t tma;    ///< 1 if the runtime encodes a TMA descriptor for this tensor
  int32_t box[TILEC_MAX_RANK];  ///< TMA box in elements (metadata order)
  int32_t swizzle;  ///< TMA swizzle in bytes: 0 (none), 32, 64 or 128
  int32_t fill;     ///< TMA fill: TILEC_FILL_ZERO or TILEC_FILL_NAN
} tilec_param_info;

/// The kernel's name.
TILEC_API const char* tilec_kernel_name(const tilec_kernel* kernel);
/// Threads per block (x).
TILEC_API uint32_t tilec_kernel_threads(const tilec_kernel* kernel);
/// Dynamic shared memory in bytes.
TILEC_API uint32_t tilec_kernel_smem(const tilec_kernel* kernel);
/// Cluster shape; {1,1,1} means no cluster launch.
TILEC_API void tilec_kernel_cluster(const tilec_kernel* kernel, uint32_t cluster[3]);
/// The grid expression text for `axis` (0=x, 1=y, 2=z); NULL if out of range.
TILEC_API const char* tilec_kernel_grid_expr(const tilec_kernel* kernel, int axis);
/// Number of metadata params.
TILEC_API size_t tilec_kernel_num_params(const tilec_kernel* kernel);
/// Fills `*out` with param `index`. INVALID_ARGUMENT if out of range.
TILEC_API tilec_status tilec_kernel_param(const tilec_kernel* kernel, size_t index,
                                          tilec_param_info* out);

/* ------------------------------------------------------------------------ */
/* Arguments                                                                 */
/* ------------------------------------------------------------------------ */

/// One launch argument, matching the metadata param of the same index.
typedef struct tilec_arg {
  int32_t kind;   ///< TILEC_ARG_TENSOR or TILEC_ARG_SCALAR
  int32_t dtype;  ///< tilec_dtype; must equal the param's dtype
  uint64_t data;  ///< tensors: device address of element [0,...,0]
  int32_t rank;   ///< tensors: number of dims
  int64_t shape[TILEC_MAX_RANK];    ///< tensors: extents
  int64_t strides[TILEC_MAX_RANK];  ///< tensors: strides in elements
  /// Scalars: integer dtypes read `i` (range-checked), float dtypes read `f`
  /// (converted to f32/f16/bf16/f8 with round-to-nearest-even).
  union { int64_t i; double f; } value;
} tilec_arg;

/// Checks `args` against the kernel's metadata without the driver: count, kind,
/// dtype, rank, static extents and strides, non-NULL and aligned base pointers,
/// scalar ranges, the TMA rules (16-byte base, innermost stride 1, other
/// strides multiples of 16 bytes), and that the grid rule evaluates to a valid
/// grid divisible by the cluster shape.
TILEC_API tilec_status tilec_kernel_validate(const tilec_kernel* kernel,
                                             const tilec_arg* args, size_t num_args);
/// The kernel tilec_launch runs for `args`: `kernel`'s plain variant where a
/// TMA view cannot be encoded; else the member of `kernel` and its variants
/// (the same program at other tile shapes, docs/BUNDLE.md) whose cost is
/// least for these extents on the current device; else `kernel`. Needs the
/// driver only when the kernel has variants.
TILEC_API tilec_status tilec_kernel_choose(tilec_kernel* kernel, const tilec_arg* args,
                                           size_t num_args, tilec_kernel** chosen);
/// Evaluates the grid rule for `args` (no driver). Only the argument count and
/// the params the rule reads are checked.
TILEC_API tilec_status tilec_kernel_grid(const tilec_kernel* kernel, const tilec_arg* args,
                                         size_t num_args, uint32_t grid[3]);
/// Number of kernel (ABI) parameters: per tensor 1 + 2*rank (+1 with TMA), per scalar 1,
/// 1 each for a workspace and for semaphores, and 2 for a profile buffer.
TILEC_API size_t tilec_kernel_abi_num_params(const tilec_kernel* kernel);
/// Validates `args`, then packs them per the kernel ABI (docs/BUNDLE.md): each
/// ABI parameter at an offset aligned to its size, CUtensorMaps (128 bytes) at
/// 64-byte aligned offsets and zero-filled here (they are encoded at launch),
/// a kernel's workspace and semaphores addresses last, zero here (the launch
/// provides them).
/// `*size` receives the packed size. If `buffer` is NULL only `*size` (and
/// `offsets`) are written; if `capacity` is too small: INVALID_ARGUMENT.
/// `offsets` (optional, tilec_kernel_abi_num_params entries) receives the
/// offset of every ABI parameter. No driver needed.
TILEC_API tilec_status tilec_kernel_pack_args(const tilec_kernel* kernel, const tilec_arg* args,
                                              size_t num_args, void* buffer, size_t capacity,
                                              size_t* size, size_t* offsets);

/* ------------------------------------------------------------------------ */
/* Launch                                                                    */
/* ------------------------------------------------------------------------ */

/// Validates `args`, loads the module if needed, raises the kernel's dynamic
/// shared memory limit when smem > 48 KiB (OUT_OF_RESOURCES if the device's
/// opt-in limit is smaller), encodes TMA descriptors, and launches on `stream`
/// (a CUstream; NULL = the legacy default stream) with the grid from the
/// metadata rule. Uses cuLaunchKernelEx with a cluster attribute when the
/// cluster shape is not 1 1 1. Asynchronous like cuLaunchKernel. A kernel
/// with variants runs the autotuned member where one is known (see
/// tilec_kernel_autotune; with TILEC_AUTOTUNE=1 a launch tunes on a miss),
/// else the member the cost model picks.
TILEC_API tilec_status tilec_launch(tilec_kernel* kernel, void* stream, const tilec_arg* args,
                                    size_t num_args);
/// Autotuning (docs/RUNTIME.md): times every member of `kernel`'s family (the
/// kernel and its `variant`s) on these arguments on `stream` and returns the
/// fastest in `chosen` (may be NULL); later launches of `kernel` with
/// arguments in the same problem bucket run it. The choice is cached per
/// device, driver, bundle and bucket in memory and in
/// $TILEC_CACHE_DIR (else ~/.cache/tilec)/autotune-<bundle hash>.txt, so a
/// cached choice is returned without timing, also in another process. The
/// members run several times on the arguments: outputs are overwritten, and
/// a kernel that reads what it writes must not be tuned on live data. The
/// plain twin (for views TMA cannot read) is chosen as by a launch; with
/// TILEC_AUTOTUNE=0 nothing is timed and the cost model chooses. Tuning that
/// takes over a second reports its progress on stderr.
TILEC_API tilec_status tilec_kernel_autotune(tilec_kernel* kernel, void* stream,
                                             const tilec_arg* args, size_t num_args,
                                             tilec_kernel** chosen);
/// As tilec_launch but with an explicit grid that overrides the metadata rule.
TILEC_API tilec_status tilec_launch_grid(tilec_kernel* kernel, void* stream,
                                         const uint32_t grid[3], const tilec_arg* args,
                                         size_t num_args);

/* ------------------------------------------------------------------------ */
/* Intra-kernel profiler (docs/PROFILER.md)                                  */
/* ------------------------------------------------------------------------ */

/// A recording session: the buffers of profiled launches and, once
/// collected, their records.
typedef struct tilec_profile tilec_profile;

/// A session whose launches have room for `records_per_group` records per
/// warp group of each CTA (16 bytes each; a fuller buffer drops records
/// and counts them). 1..2^24.
TILEC_API tilec_status tilec_profile_create(uint32_t records_per_group, tilec_profile** out);
/// Releases a session (waiting for launches whose buffers were never
/// collected). NULL is fine.
TILEC_API void tilec_profile_free(tilec_profile* profile);
/// 1 if the kernel was compiled with --profile (its metadata has `profile`
/// lines), else 0.
TILEC_API int tilec_kernel_profiled(const tilec_kernel* kernel);
/// As tilec_launch (`grid` NULL) or tilec_launch_grid, with a profile
/// buffer for the launch (allocated here, read back by
/// tilec_profile_collect). INVALID_ARGUMENT if the kernel that runs was
/// compiled without --profile; OUT_OF_RESOURCES if the buffer does not fit
/// in device memory. A profiled kernel launched with tilec_launch records
/// nothing.
TILEC_API tilec_status tilec_launch_profiled(tilec_kernel* kernel, void* stream,
                                             const uint32_t* grid, const tilec_arg* args,
                                             size_t num_args, tilec_profile* profile);
/// Waits for the session's launches (their contexts) and reads their
/// buffers back; their device memory is freed.
TILEC_API tilec_status tilec_profile_collect(tilec_profile* profile);
/// Adds a buffer read elsewhere as a launch of `kernel` with `grid` (for
/// tools and tests); a short buffer loses the slices it lacks, counted.
TILEC_API tilec_status tilec_profile_add_buffer(tilec_profile* profile, const tilec_kernel* kernel,
                                                const uint32_t grid[3], const void* data,
                                                size_t size);
/// Writes the collected launches as a Chrome trace-event JSON file
/// (Perfetto, chrome://tracing): a process per launch and SM, a thread per
/// CTA and warp group, a complete event per scope (times in microseconds
/// with nanosecond digits; args cta, group, tile, iter). A path ending in
/// `.pftrace` or `.perfetto-trace` gets Perfetto's protobuf format
/// instead: the same tracks, a begin/end slice pair per scope (times in
/// ns; debug annotations cta, tile, iter).
TILEC_API tilec_status tilec_profile_write_trace(tilec_profile* profile, const char* path);
/// The text summary (per kernel, warp group role and scope: count, total,
/// mean, p50, p99, share of the group's kernel time; then the dropped and
/// unmatched records). `*length` gets the bytes needed with the NUL; a
/// NULL `buffer` asks only that.
TILEC_API tilec_status tilec_profile_summary(tilec_profile* profile, char* buffer,
                                             size_t capacity, size_t* length);
/// Records the collected buffers had no room for.
TILEC_API uint64_t tilec_profile_dropped(tilec_profile* profile);

/* ------------------------------------------------------------------------ */
/* Device helpers (thin wrappers for C examples and tests)                   */
/* ------------------------------------------------------------------------ */

/// Properties of the current context's device. Any pointer may be NULL.
TILEC_API tilec_status tilec_device_info(int* sm_count, int* smem_optin, int* cc_major,
                                         int* cc_minor);
/// cuCtxSynchronize on the current context.
TILEC_API tilec_status tilec_synchronize(void);
/// cuStreamSynchronize(stream).
TILEC_API tilec_status tilec_stream_synchronize(void* stream);
/// cuMemAlloc: `*ptr` receives a device address of `bytes` bytes.
TILEC_API tilec_status tilec_malloc(uint64_t* ptr, size_t bytes);
/// cuMemFree; 0 is fine.
TILEC_API tilec_status tilec_free(uint64_t ptr);
/// Synchronous host-to-device copy.
TILEC_API tilec_status tilec_memcpy_htod(uint64_t dst, const void* src, size_t bytes);
/// Synchronous device-to-host copy.
TILEC_API tilec_status tilec_memcpy_dtoh(void* dst, uint64_t src, size_t bytes);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TILEC_RUNTIME_H
