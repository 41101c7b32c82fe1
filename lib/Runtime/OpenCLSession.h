//===- OpenCLSession.h - Run OpenCL kernels through the ICD loader -*- C++ -*-//
//
// Used by --verify (and later the tuner): builds OpenCL C source, creates
// buffers, launches kernels in order on one in-order queue, reads buffers back.
// On this project's machines the ICD loader finds PoCL (OpenCL on the CPU).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_OPENCLSESSION_H
#define GPUMERGE_RUNTIME_OPENCLSESSION_H

#include "Runtime/Device.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpumerge {

class OpenCLSession : public DeviceSession {
public:
  /// Opens the first platform/device found (CPU preferred, i.e. PoCL).
  /// Errors when no platform is there, with a hint to install PoCL.
  /// The first call loads the OpenCL drivers with RTLD_DEEPBIND so that
  /// PoCL's own LLVM (15) does not bind to the LLVM 16 we link; it must come
  /// before anything else in the process initializes the ICD loader.
  static llvm::Expected<std::unique_ptr<OpenCLSession>> create();
  ~OpenCLSession() override;

  DeviceKind kind() const override { return DeviceKind::OpenCL; }
  std::string deviceName() const override;
  /// The platform's version and the device's driver version.
  std::string driverVersion() const override;
  bool supportsDouble() const;
  bool supportsImages() const;

  /// Builds \p Source; the error carries the build log.
  llvm::Expected<unsigned> buildProgram(const std::string &Source,
                                        const std::string &Options = "");
  llvm::Expected<unsigned>
  buildProgram(const std::string &Source, const std::string &Options,
               const std::vector<std::string> &Kernels) override {
    return buildProgram(Source, Options);
  }
  /// Creates a buffer initialized with \p Init (its size is the buffer's).
  llvm::Expected<unsigned>
  createBuffer(const std::vector<std::uint8_t> &Init) override;
  /// Sets the arguments and enqueues \p KernelName from program \p Program,
  /// then waits for it to finish.
  llvm::Error launch(unsigned Program, const std::string &KernelName,
                     const std::vector<KernelArg> &Args,
                     const NDRange &Range) override;
  /// The kernel's time from the queue's event profiling (CL_PROFILING_
  /// COMMAND_START to _END).
  llvm::Expected<double> launchTimed(unsigned Program,
                                     const std::string &KernelName,
                                     const std::vector<KernelArg> &Args,
                                     const NDRange &Range) override;
  llvm::Expected<std::vector<std::uint8_t>>
  readBuffer(unsigned Buffer) override;

  /// The element formats an image1d_buffer_t may view a buffer as (one
  /// channel, CL_R), for the texture variant's read-only arrays.
  using ImageChannel = TexelChannel;
  /// Creates a read-only image1d_buffer_t of \p Width texels of \p Channels
  /// (1: CL_R, 4: CL_RGBA, for arrays read as 4-vectors) over buffer
  /// \p Buffer (clCreateImage, CL_MEM_OBJECT_IMAGE1D_BUFFER); its id is
  /// passed to launch() like a buffer's. Errors when the device has no
  /// images or \p Width exceeds CL_DEVICE_IMAGE_MAX_BUFFER_SIZE.
  llvm::Expected<unsigned> createImage1DBuffer(unsigned Buffer,
                                               ImageChannel Channel,
                                               std::size_t Width,
                                               unsigned Channels = 1);
  /// CL_DEVICE_IMAGE_MAX_BUFFER_SIZE (0 without image support).
  std::size_t imageMaxBufferSize() const;

  llvm::Expected<unsigned> createTexelView(unsigned Buffer,
                                           TexelChannel Channel,
                                           std::size_t Width,
                                           unsigned Channels) override {
    return createImage1DBuffer(Buffer, Channel, Width, Channels);
  }
  std::size_t maxTexelViewWidth() const override {
    return imageMaxBufferSize();
  }
  void release(unsigned Object) override;
  void releaseProgram(unsigned Program) override;

private:
  OpenCLSession();
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace gpumerge

#endif
