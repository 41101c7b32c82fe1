//===- CudaApiTest.cpp - CudaApi.h agrees with the real cuda.h ------------===//
//
// gpumerge declares the few CUDA driver types and constants it calls through
// dlopen (CudaApi.h) instead of including cuda.h, so it builds without a
// toolkit. Where the toolkit's headers exist, this test compiles against them
// and checks every value and layout gpumerge relies on.
//
//===----------------------------------------------------------------------===//
#include "Runtime/CudaApi.h"

#include <cuda.h>
#include <nvrtc.h>

#include "gtest/gtest.h"

#include <cstddef>

namespace g = gpumerge::cuda;

static_assert(sizeof(g::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(g::CUtexObject) == sizeof(CUtexObject));
static_assert(sizeof(g::CUresult) == sizeof(CUresult));
static_assert(sizeof(g::CUdevice) == sizeof(CUdevice));

static_assert(sizeof(g::ResourceDesc) == sizeof(CUDA_RESOURCE_DESC));
static_assert(offsetof(g::ResourceDesc, res) ==
              offsetof(CUDA_RESOURCE_DESC, res));
static_assert(offsetof(g::ResourceDesc, flags) ==
              offsetof(CUDA_RESOURCE_DESC, flags));
static_assert(offsetof(g::ResourceDesc, res.linear.devPtr) ==
              offsetof(CUDA_RESOURCE_DESC, res.linear.devPtr));
static_assert(offsetof(g::ResourceDesc, res.linear.format) ==
              offsetof(CUDA_RESOURCE_DESC, res.linear.format));
static_assert(offsetof(g::ResourceDesc, res.linear.numChannels) ==
              offsetof(CUDA_RESOURCE_DESC, res.linear.numChannels));
static_assert(offsetof(g::ResourceDesc, res.linear.sizeInBytes) ==
              offsetof(CUDA_RESOURCE_DESC, res.linear.sizeInBytes));
static_assert(sizeof(g::TextureDesc) == sizeof(CUDA_TEXTURE_DESC));
static_assert(offsetof(g::TextureDesc, flags) ==
              offsetof(CUDA_TEXTURE_DESC, flags));

TEST(CudaApiTest, ConstantsMatchCudaH) {
  EXPECT_EQ(g::CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(g::CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY);
  EXPECT_EQ(g::CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
            CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER);
  EXPECT_EQ(g::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
            CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
  EXPECT_EQ(g::CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(g::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  EXPECT_EQ(g::CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(g::CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(g::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  EXPECT_EQ(g::CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
            CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH,
            CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(g::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  EXPECT_EQ(g::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  EXPECT_EQ(g::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  EXPECT_EQ(g::CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS);
  EXPECT_EQ(g::CU_AD_FORMAT_FLOAT, CU_AD_FORMAT_FLOAT);
  EXPECT_EQ(g::CU_AD_FORMAT_SIGNED_INT32, CU_AD_FORMAT_SIGNED_INT32);
  EXPECT_EQ(g::CU_AD_FORMAT_UNSIGNED_INT32, CU_AD_FORMAT_UNSIGNED_INT32);
  EXPECT_EQ(g::CU_RESOURCE_TYPE_LINEAR, CU_RESOURCE_TYPE_LINEAR);
  EXPECT_EQ(g::TrsfReadAsInteger, unsigned(CU_TRSF_READ_AS_INTEGER));
  EXPECT_EQ(g::EventDefault, unsigned(CU_EVENT_DEFAULT));
  EXPECT_EQ(gpumerge::nvrtc::NVRTC_ERROR_COMPILATION, NVRTC_ERROR_COMPILATION);
}
