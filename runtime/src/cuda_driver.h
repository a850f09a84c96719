// Private: the slice of the CUDA driver API the runtime uses, declared here so
// that the runtime builds without the CUDA toolkit and never links libcuda.
// Values checked against cuda.h of CUDA 13.0.
#ifndef TILEC_RUNTIME_CUDA_DRIVER_H
#define TILEC_RUNTIME_CUDA_DRIVER_H

#include <cstddef>
#include <cstdint>

namespace tilec_rt {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;

// CUdevice_attribute
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;

// CUfunction_attribute
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

// CUjit_option
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// CUlaunchAttributeID
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

// Tensor maps.
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
constexpr int CU_TENSOR_MAP_DATA_TYPE_INT32 = 3;
constexpr int CU_TENSOR_MAP_DATA_TYPE_INT64 = 5;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8;
constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1;

constexpr size_t kTensorMapSize = 128;
constexpr size_t kTensorMapAlign = 64;

struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == kTensorMapSize, "CUtensorMap is 128 bytes");

union CUlaunchAttributeValue {
  char pad[64];
  void* align_as_pointer;  // the real union holds pointers
  struct {
    unsigned x, y, z;
  } clusterDim;
};

struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  CUlaunchAttributeValue value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute layout");

struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned numAttrs;
};

// The driver entry points, resolved with dlsym. `required` ones must exist.
#define TILEC_CUDA_FUNCTIONS(X)                                                             \
  X(cuGetErrorName, "cuGetErrorName", true, CUresult, (CUresult, const char**))           \
  X(cuGetErrorString, "cuGetErrorString", true, CUresult, (CUresult, const char**))       \
  X(cuInit, "cuInit", true, CUresult, (unsigned))                                          \
  X(cuDeviceGet, "cuDeviceGet", true, CUresult, (CUdevice*, int))                          \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", true, CUresult, (int*, int, CUdevice))   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", true, CUresult,                  \
    (CUcontext*, CUdevice))                                                                \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", true, CUresult, (CUcontext*))                      \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", true, CUresult, (CUcontext))                       \
  X(cuCtxGetDevice, "cuCtxGetDevice", true, CUresult, (CUdevice*))                         \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", true, CUresult, (CUcontext))                  \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", true, CUresult, (CUcontext*))                   \
  X(cuCtxSynchronize, "cuCtxSynchronize", true, CUresult, (void))                          \
  X(cuModuleLoadData, "cuModuleLoadData", true, CUresult, (CUmodule*, const void*))        \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", true, CUresult,                              \
    (CUmodule*, const void*, unsigned, int*, void**))                                      \
  X(cuModuleGetFunction, "cuModuleGetFunction", true, CUresult,                            \
    (CUfunction*, CUmodule, const char*))                                                  \
  X(cuModuleUnload, "cuModuleUnload", true, CUresult, (CUmodule))                          \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", true, CUresult, (CUfunction, int, int))      \
  X(cuLaunchKernel, "cuLaunchKernel", true, CUresult,                                      \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,     \
     CUstream, void**, void**))                                                            \
  X(cuLaunchKernelEx, "cuLaunchKernelEx", false, CUresult,                                 \
    (const CUlaunchConfig*, CUfunction, void**, void**))                                   \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", false, CUresult,                     \
    (CUtensorMap*, int, uint32_t, void*, const uint64_t*, const uint64_t*,                 \
     const uint32_t*, const uint32_t*, int, int, int, int))                                \
  X(cuStreamSynchronize, "cuStreamSynchronize", true, CUresult, (CUstream))                \
  X(cuMemAlloc, "cuMemAlloc_v2", true, CUresult, (CUdeviceptr*, size_t))                   \
  X(cuMemFree, "cuMemFree_v2", true, CUresult, (CUdeviceptr))                              \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", true, CUresult, (CUdeviceptr, const void*, size_t))   \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", true, CUresult, (void*, CUdeviceptr, size_t))        \
  X(cuMemsetD8Async, "cuMemsetD8Async", false, CUresult,                                   \
    (CUdeviceptr, unsigned char, size_t, CUstream))                                        \
  /* workspaces of launches captured into CUDA graphs: the capture's id and status, */     \
  /* and relaxed capture mode around their allocation */                                   \
  X(cuStreamGetCaptureInfo, "cuStreamGetCaptureInfo_v2", false, CUresult,                  \
    (CUstream, int*, unsigned long long*, void*, const void**, size_t*))                   \
  X(cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode", false,         \
    CUresult, (int*))                                                                      \
  /* autotuning: the device's name and the driver's version key the cache */               \
  X(cuDeviceGetName, "cuDeviceGetName", false, CUresult, (char*, int, CUdevice))           \
  X(cuDriverGetVersion, "cuDriverGetVersion", false, CUresult, (int*))                     \
  X(cuEventCreate, "cuEventCreate", false, CUresult, (CUevent*, unsigned))                 \
  X(cuEventRecord, "cuEventRecord", false, CUresult, (CUevent, CUstream))                  \
  X(cuEventSynchronize, "cuEventSynchronize", false, CUresult, (CUevent))                  \
  X(cuEventElapsedTime, "cuEventElapsedTime", false, CUresult, (float*, CUevent, CUevent)) \
  X(cuEventDestroy, "cuEventDestroy_v2", false, CUresult, (CUevent))

struct Driver {
#define TILEC_DECLARE_FN(field, symbol, required, ret, args) ret(*field) args = nullptr;
  TILEC_CUDA_FUNCTIONS(TILEC_DECLARE_FN)
#undef TILEC_DECLARE_FN
  void* handle = nullptr;
};

}  // namespace tilec_rt

#endif  // TILEC_RUNTIME_CUDA_DRIVER_H
