//===- Nvrtc.h - CUDA source to device code, at run time --------*- C++ -*-===//
//
// NVRTC compiles CUDA C++ device code without a driver or a GPU, so it is
// loaded on its own: a CudaSession needs it to build programs, and it can be
// tested (and used to check emitted kernels) on a machine with no GPU.
// libnvrtc is found with dlopen — GPUMERGE_LIBNVRTC, then libnvrtc.so.13,
// .so.12, .so.11.2 and libnvrtc.so on the loader's path, then the same in
// the CUDA toolkit's lib64 — so gpumerge has no link-time dependency on CUDA.
//
// Sources may be whole CUDA files with their host code taken out (Verify
// runs the input's kernels as written): an #include of a host header NVRTC
// does not have (<stdio.h>, <math.h>, <iostream>) is answered with a stub
// header (declarations of the fixed-width integer types for <stdint.h>, the
// device assert for <assert.h>, empty otherwise), and the result says which.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_NVRTC_H
#define GPUMERGE_RUNTIME_NVRTC_H

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace gpumerge {

struct NvrtcOutput {
  /// A CUBIN for the asked architecture, or PTX (IsPtx) when this NVRTC
  /// cannot compile for it (a GPU newer than the compiler): the driver
  /// then compiles the PTX itself.
  std::vector<char> Binary;
  bool IsPtx = false;
  std::string Log;
  /// The -arch option used.
  std::string Arch;
  /// Host headers answered with stubs, in the order asked.
  std::vector<std::string> StubbedHeaders;
  /// Each kernel asked for → its name in the binary (mangled, unless the
  /// kernel is extern "C").
  std::map<std::string, std::string> LoweredNames;
};

class Nvrtc {
public:
  /// Loads libnvrtc; the error names every library tried.
  static llvm::Expected<Nvrtc &> get();

  /// "13.0".
  std::string version() const;
  /// The path of the library loaded.
  const std::string &libraryPath() const { return Path; }

  /// Compiles \p Source (named \p Name in messages) for compute capability
  /// \p Major.\p Minor with -default-device, the CUDA headers' directory
  /// when one is found, and \p Options (the user's -D/-I, one per item);
  /// \p Kernels are looked up as name expressions (`&mm`, `&ns::k`). The
  /// error carries NVRTC's log.
  llvm::Expected<NvrtcOutput>
  compile(const std::string &Source, const std::string &Name, int Major,
          int Minor, const std::vector<std::string> &Options,
          const std::vector<std::string> &Kernels = {});

  /// The include directory of the CUDA toolkit (CUDA_PATH, CUDA_HOME, beside
  /// nvcc on PATH, /usr/local/cuda), or "".
  static std::string cudaIncludeDir();

  struct Api;

private:
  Nvrtc() = default;
  std::string Path;
  Api *A = nullptr;
};

/// Splits an OpenCL-style build option string ("-I/x -DN=4 -D M=2") into
/// NVRTC options, one per item ("-I/x", "-DN=4", "-DM=2").
std::vector<std::string> splitBuildOptions(const std::string &Options);

} // namespace gpumerge

#endif
