//===- Toolkit.h - The CUDA toolkit as nvcc shows it to a file --*- C++ -*-===//
//
// A CUDA file with host code is parsed with the toolkit's headers (Clang's
// --cuda-path). nvcc gives a file more than Clang 16 does by itself, and
// code written for nvcc counts on it:
//   - CUDA 13 keeps Thrust, CUB and libcu++ under include/cccl, which nvcc
//     searches (`#include <cub/cub.cuh>`, `<cuda/std/type_traits>`);
//   - libcu++'s type traits use C variadics in unevaluated SFINAE, which
//     Clang's CUDA mode refuses in device code unless told otherwise;
//   - __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__ and __CUDACC_VER_BUILD__
//     (code picks a toolkit's API by them: HeCBench's rle takes Thrust's
//     constant_iterator on CUDA 13, CUB's removed ConstantInputIterator
//     before);
//   - the host compiler's own headers: omp.h, which GCC has and Clang's
//     resource directory lacks (GCC's own does not parse with Clang 16),
//     comes from the prelude (OmpFallbackHeader), searched after every other.
// The flags below give the parse what nvcc gives the compile; nothing is
// compiled with them (gpumerge keeps host code as written).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_TOOLKIT_H
#define GPUMERGE_FRONTEND_TOOLKIT_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// The CUDA toolkit's root (include/cuda_runtime.h under it): beside nvcc on
/// PATH, else /usr/local/cuda; empty when there is none.
std::string findCudaPath();

/// The toolkit's version as nvcc reports it: from `nvcc --version`'s
/// "release 13.0, V13.0.88" line (\p NvccVersionText), else from cuda.h's
/// CUDA_VERSION (13000: 13.0, no build number).
struct CudaVersion {
  int Major = 0, Minor = 0;
  std::optional<int> Build;
};
std::optional<CudaVersion> parseNvccVersion(llvm::StringRef NvccVersionText);
std::optional<CudaVersion> parseCudaHeaderVersion(llvm::StringRef CudaH);

/// The parse flags for a file with host code, beyond --cuda-path (see the
/// file comment), for the toolkit at \p CudaPath. Computed once a process.
const std::vector<std::string> &nvccParseArgs(const std::string &CudaPath);

/// Does the toolkit's nvcc at \p CudaPath compile \p Source (the text of
/// \p FileName, whose directory its quoted includes are searched in) with
/// the -I, -D, -U, -include and -std flags of \p ParseArgs? Device code only,
/// to PTX, relocatable (a kernel may launch kernels), for sm_90. False where
/// there is no nvcc to ask: where Clang and nvcc may disagree, gpumerge
/// trusts Clang's "no" unless nvcc says "yes".
bool nvccCompiles(const std::string &CudaPath, const std::string &Source,
                  const std::string &FileName,
                  const std::vector<std::string> &ParseArgs);

} // namespace gpumerge

#endif
