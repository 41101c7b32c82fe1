//===- Device.h - What --verify and --tune need of a device -----*- C++ -*-===//
//
// Two sessions run kernels: OpenCLSession (the ICD loader; PoCL on a CPU) and
// CudaSession (NVRTC and the driver API, loaded with dlopen where a GPU is).
// Verify and the tuner talk to either through this interface: build a program
// from source in the device's language, make buffers, view a buffer as
// texels (an OpenCL image1d_buffer_t, a CUDA texture object over linear
// memory), launch a kernel by name, read buffers back, and time a launch on
// the device's own clock (OpenCL event profiling, CUDA events).
//
// Ranges are OpenCL's: a global size per dimension that is a whole number of
// work-groups (CUDA: grid = Global / Local blocks of Local threads).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_DEVICE_H
#define GPUMERGE_RUNTIME_DEVICE_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpumerge {

/// One kernel argument: a buffer or texel view (by handle from
/// createBuffer/createTexelView), a scalar (bytes exactly as the kernel's
/// parameter type), or __local memory of a size (OpenCL only).
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

enum class DeviceKind { OpenCL, Cuda };
const char *deviceKindName(DeviceKind K);

/// The element type of a texel view: one 32-bit float, int or unsigned int
/// per channel.
enum class TexelChannel { Float, Int, UInt };

/// The times of one kernel measured on the device: a warm-up launch (not
/// kept), then each timed launch in milliseconds, in order.
struct KernelTimes {
  std::vector<double> Ms;
  /// The median of Ms (the mean of the middle two for an even count).
  double median() const;
};

class DeviceSession {
public:
  virtual ~DeviceSession();

  virtual DeviceKind kind() const = 0;
  /// "NVIDIA H100 80GB HBM3", "cpu-haswell-...": a tuning cache key.
  virtual std::string deviceName() const = 0;
  /// The driver (and runtime compiler) version: a tuning cache key.
  virtual std::string driverVersion() const = 0;

  /// Builds \p Source (OpenCL C, or CUDA C++ for a CUDA session) with
  /// \p Options (-D/-I/-U); \p Kernels names the kernels that will be
  /// launched (CUDA C++ mangles their names; OpenCL needs no list). The
  /// error carries the compiler's log.
  virtual llvm::Expected<unsigned>
  buildProgram(const std::string &Source, const std::string &Options,
               const std::vector<std::string> &Kernels) = 0;
  /// Programs buildProgram will be asked for soon, each by its source,
  /// options and kernels: a session may begin building them now, in the
  /// background (CUDA compiles them with NVRTC on other threads, which need
  /// no GPU: NvrtcAhead.h). The default does nothing.
  struct BuildRequest {
    std::string Source, Options;
    std::vector<std::string> Kernels;
  };
  virtual void expectBuilds(const std::vector<BuildRequest> &Builds);
  /// A buffer initialized with \p Init (its size is the buffer's).
  virtual llvm::Expected<unsigned>
  createBuffer(const std::vector<std::uint8_t> &Init) = 0;
  virtual llvm::Expected<std::vector<std::uint8_t>>
  readBuffer(unsigned Buffer) = 0;
  /// A read-only view of \p Width texels of \p Channels (1 or 4) channels
  /// over buffer \p Buffer; its handle is passed to launch() like a
  /// buffer's. Errors where the device has no such views or \p Width
  /// exceeds maxTexelViewWidth().
  virtual llvm::Expected<unsigned> createTexelView(unsigned Buffer,
                                                   TexelChannel Channel,
                                                   std::size_t Width,
                                                   unsigned Channels) = 0;
  /// The most texels a view may have (0: no views).
  virtual std::size_t maxTexelViewWidth() const = 0;
  /// Frees buffer or texel view \p Object, whose handle is not used again
  /// (a run of many --tune candidates holds one candidate's at a time).
  virtual void release(unsigned Object) = 0;
  /// Frees program \p Program, whose handle is not used again.
  virtual void releaseProgram(unsigned Program) = 0;
  /// Fills \p Program's module-scope array \p Name (a CUDA __constant__
  /// array, which a host fills with cudaMemcpyToSymbol) with \p Data. The
  /// default errors: OpenCL programs take such arrays as arguments.
  virtual llvm::Error setGlobal(unsigned Program, const std::string &Name,
                                const std::vector<std::uint8_t> &Data);
  /// Launches \p KernelName of \p Program and waits for it to finish.
  virtual llvm::Error launch(unsigned Program, const std::string &KernelName,
                             const std::vector<KernelArg> &Args,
                             const NDRange &Range) = 0;
  /// Launches like launch() and returns the kernel's time on the device, in
  /// milliseconds.
  virtual llvm::Expected<double> launchTimed(unsigned Program,
                                             const std::string &KernelName,
                                             const std::vector<KernelArg> &Args,
                                             const NDRange &Range) = 0;

  /// \p Warmup untimed launches, then \p Runs timed ones (each waits for the
  /// one before). The arguments stay the same: a kernel that reads what it
  /// writes is timed on its own results, which is what a repeated launch in
  /// an application does too.
  llvm::Expected<KernelTimes>
  timeKernel(unsigned Program, const std::string &KernelName,
             const std::vector<KernelArg> &Args, const NDRange &Range,
             unsigned Warmup = 1, unsigned Runs = 7);
};

} // namespace gpumerge

#endif
