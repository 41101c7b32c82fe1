//===- CudaApi.h - The parts of cuda.h and nvrtc.h gpumerge calls -*- C++ -*-//
//
// gpumerge builds and runs where no CUDA toolkit is installed, so it does not
// include cuda.h or nvrtc.h: the handful of types, constants and signatures
// it calls through dlopen()ed function pointers are declared here, with the
// values and layouts of CUDA 13's headers (stable since CUDA 9 for these).
// CudaApiTest checks them against the real headers wherever those exist.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_CUDAAPI_H
#define GPUMERGE_RUNTIME_CUDAAPI_H

#include <cstddef>

namespace gpumerge {
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUtexObject = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUevent = struct CUevent_st *;
using CUstream = struct CUstream_st *;

enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
};

// CUdevice_attribute
enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// CUfunction_attribute
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
};

// CUarray_format, CUresourcetype, texture flags, event flags
enum : int {
  CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
  CU_AD_FORMAT_FLOAT = 0x20,
  CU_RESOURCE_TYPE_LINEAR = 0x02,
};
// cuda.h spells these as macros: other names here, so both can be included.
constexpr unsigned TrsfReadAsInteger = 0x01; ///< CU_TRSF_READ_AS_INTEGER
constexpr unsigned EventDefault = 0x0;       ///< CU_EVENT_DEFAULT

/// CUDA_RESOURCE_DESC (cuda.h: CUDA_RESOURCE_DESC_v1).
struct ResourceDesc {
  int resType;
  union {
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned int numChannels;
      std::size_t sizeInBytes;
    } linear;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
};

/// CUDA_TEXTURE_DESC (cuda.h: CUDA_TEXTURE_DESC_v1).
struct TextureDesc {
  int addressMode[3];
  int filterMode;
  unsigned int flags;
  unsigned int maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};

} // namespace cuda

namespace nvrtc {
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram *;
enum : nvrtcResult {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_COMPILATION = 6,
};
} // namespace nvrtc

} // namespace gpumerge

#endif
