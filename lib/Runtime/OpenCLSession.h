//===- OpenCLSession.h - Run OpenCL kernels through the ICD loader -*- C++ -*-//
//
// Used by --verify (and later the tuner): builds OpenCL C source, creates
// buffers, launches kernels in order on one in-order queue, reads buffers back.
// On this project's machines the ICD loader finds PoCL (OpenCL on the CPU).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_OPENCLSESSION_H
#define GPUMERGE_RUNTIME_OPENCLSESSION_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpumerge {

/// One kernel argument: a buffer (by handle from createBuffer), a scalar
/// (bytes exactly as the kernel's parameter type), or __local memory of a size.
struct KernelArg {
  enum class Kind { Buffer, Scalar, LocalMemory } ArgKind = Kind::Scalar;
  unsigned BufferId = 0;           ///< Kind::Buffer
  std::vector<std::uint8_t> Bytes; ///< Kind::Scalar
  std::size_t LocalBytes = 0;      ///< Kind::LocalMemory

  static KernelArg buffer(unsigned Id);
  static KernelArg i32(std::int32_t V);
  static KernelArg u32(std::uint32_t V);
  static KernelArg i64(std::int64_t V);
  static KernelArg f32(float V);
  static KernelArg f64(double V);
  static KernelArg local(std::size_t Bytes);
};

struct NDRange {
  unsigned Dims = 1;
  std::array<std::size_t, 3> Global{1, 1, 1};
  std::array<std::size_t, 3> Local{0, 0, 0}; ///< all 0: let the runtime pick
};

class OpenCLSession {
public:
  /// Opens the first platform/device found (CPU preferred, i.e. PoCL).
  /// Errors when no platform is there, with a hint to install PoCL.
  /// The first call loads the OpenCL drivers with RTLD_DEEPBIND so that
  /// PoCL's own LLVM (15) does not bind to the LLVM 16 we link; it must come
  /// before anything else in the process initializes the ICD loader.
  static llvm::Expected<std::unique_ptr<OpenCLSession>> create();
  ~OpenCLSession();

  std::string deviceName() const;
  bool supportsDouble() const;
  bool supportsImages() const;

  /// Builds \p Source; the error carries the build log.
  llvm::Expected<unsigned> buildProgram(const std::string &Source,
                                        const std::string &Options = "");
  /// Creates a buffer initialized with \p Init (its size is the buffer's).
  llvm::Expected<unsigned> createBuffer(const std::vector<std::uint8_t> &Init);
  /// Sets the arguments and enqueues \p KernelName from program \p Program,
  /// then waits for it to finish.
  llvm::Error launch(unsigned Program, const std::string &KernelName,
                     const std::vector<KernelArg> &Args, const NDRange &Range);
  llvm::Expected<std::vector<std::uint8_t>> readBuffer(unsigned Buffer);

  /// The element formats an image1d_buffer_t may view a buffer as (one
  /// channel, CL_R), for the texture variant's read-only arrays.
  enum class ImageChannel { Float, Int, UInt };
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

private:
  OpenCLSession();
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace gpumerge

#endif
