//===- CudaSession.h - CUDA kernels via NVRTC and the driver ---*- C++ -*-===//
//
// The CUDA counterpart of OpenCLSession, for --verify --device=cuda and
// --tune on a GPU: programs are CUDA C++ compiled by NVRTC for the device's
// architecture, loaded with cuModuleLoadData and launched with cuLaunchKernel
// on the device's primary context; texel views are texture objects over
// linear memory (cuTexObjectCreate), as the generated launchers make them;
// launches are timed with CUDA events.
//
// libcuda.so.1 (GPUMERGE_LIBCUDA overrides it, for tests) and libnvrtc are
// loaded lazily with dlopen, as PyTorch and NVIDIA Warp load them: gpumerge
// builds and runs on machines without a GPU, a driver or a toolkit, and
// create() then returns a clean "no CUDA device: ..." error saying what is
// missing.
//
// The driver must not be initialized in a process that later forks a child
// using CUDA (the child inherits an unusable driver state): gpumerge creates
// sessions only in the child processes of Isolate.h, and probe() asks a
// child what device there is.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_CUDASESSION_H
#define GPUMERGE_RUNTIME_CUDASESSION_H

#include "Runtime/Device.h"

#include <memory>

namespace gpumerge {

/// What a CUDA device is, for reports and the tuning cache.
struct CudaDeviceInfo {
  std::string Name;   ///< "NVIDIA H100 80GB HBM3"
  std::string Driver; ///< "CUDA driver 13.0, NVRTC 13.0"
  int Major = 0, Minor = 0;
  unsigned Index = 0;
  std::string arch() const {
    return "sm_" + std::to_string(Major) + std::to_string(Minor);
  }
};

class CudaSession : public DeviceSession {
public:
  /// Opens CUDA device \p Index. Errors start with "no CUDA device: " and
  /// say what is missing: the driver library, a symbol of it (a driver too
  /// old), a device (cuInit or cuDeviceGetCount), or NVRTC.
  static llvm::Expected<std::unique_ptr<CudaSession>>
  create(unsigned Index = 0);
  ~CudaSession() override;

  /// create() in a child process (Isolate.h), so this process keeps no
  /// driver state: what device \p Index is, or why there is none.
  static llvm::Expected<CudaDeviceInfo> probe(unsigned Index = 0);

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  std::string deviceName() const override;
  std::string driverVersion() const override;
  const CudaDeviceInfo &info() const;

  /// Compiles CUDA C++ \p Source with NVRTC (Nvrtc.h) for this device;
  /// \p Options is an OpenCL-style string of -D/-I/-U options; launch()
  /// finds \p Kernels by their names as written (NVRTC lowers them to the
  /// mangled names).
  llvm::Expected<unsigned>
  buildProgram(const std::string &Source, const std::string &Options,
               const std::vector<std::string> &Kernels) override;
  /// The host headers NVRTC was given stubs for in building \p Program.
  std::vector<std::string> stubbedHeaders(unsigned Program) const;

  llvm::Expected<unsigned>
  createBuffer(const std::vector<std::uint8_t> &Init) override;
  llvm::Expected<std::vector<std::uint8_t>>
  readBuffer(unsigned Buffer) override;
  /// A texture object over the buffer's linear memory: CU_AD_FORMAT_FLOAT,
  /// SIGNED_INT32 or UNSIGNED_INT32 with 1 or 4 channels, read as elements
  /// (cudaReadModeElementType); passed to a kernel as its
  /// cudaTextureObject_t.
  llvm::Expected<unsigned> createTexelView(unsigned Buffer,
                                           TexelChannel Channel,
                                           std::size_t Width,
                                           unsigned Channels) override;
  /// cuModuleGetGlobal and cuMemcpyHtoD: what cudaMemcpyToSymbol does for
  /// the host program. Errors when \p Data is larger than the global.
  llvm::Error setGlobal(unsigned Program, const std::string &Name,
                        const std::vector<std::uint8_t> &Data) override;
  /// The device's maxTexture1DLinear, as the generated launchers read it.
  std::size_t maxTexelViewWidth() const override;
  void release(unsigned Object) override;
  /// Compiles \p Builds with NVRTC ahead, on NvrtcAhead::defaultWorkers()
  /// threads.
  void expectBuilds(const std::vector<BuildRequest> &Builds) override;
  void releaseProgram(unsigned Program) override;
  /// The device's texture alignment in bytes (buffers are aligned to it).
  std::size_t textureAlignment() const;

  llvm::Error launch(unsigned Program, const std::string &KernelName,
                     const std::vector<KernelArg> &Args,
                     const NDRange &Range) override;
  /// The kernel's time between two events recorded around it.
  llvm::Expected<double> launchTimed(unsigned Program,
                                     const std::string &KernelName,
                                     const std::vector<KernelArg> &Args,
                                     const NDRange &Range) override;

  /// Registers per thread and static shared bytes of a built kernel.
  struct KernelAttributes {
    int Registers = 0, SharedBytes = 0, MaxThreadsPerBlock = 0;
  };
  llvm::Expected<KernelAttributes> attributes(unsigned Program,
                                              const std::string &KernelName);

  struct Impl;

private:
  CudaSession();
  std::unique_ptr<Impl> P;
};

} // namespace gpumerge

#endif
