//===- VerifyCuda.h - What --verify builds on a CUDA device -----*- C++ -*-===//
//
// On a GPU (--device=cuda) a CUDA file is verified with no translation in
// between: the reference is the input's device code as written, the
// candidate the output's as emitted, each with its host code left out
// (HostCode.h) and compiled by NVRTC. A kernel split at global barriers has
// no such input to run: its reference is its phases, printed in CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_VERIFYCUDA_H
#define GPUMERGE_RUNTIME_VERIFYCUDA_H

#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace gpumerge {

struct CudaVerifyPrograms {
  std::string Reference, Candidate;
  /// What the reference is, for the report.
  std::string ReferenceNote;
};

/// The programs for verifying \p M's kernels replaced by \p Replacements
/// (as emitModule takes them) on a CUDA device; \p ParseArgs are the
/// arguments \p M was parsed with. Errors for an OpenCL input, and where the
/// emitted file does not parse (a gpumerge bug).
llvm::Expected<CudaVerifyPrograms>
cudaVerifyPrograms(const Module &M,
                   const std::map<std::string, const Function *> &Replacements,
                   const std::vector<std::string> &ParseArgs);

/// The name NVRTC finds \p Kernel of those programs by, where \p Naive is
/// the input's kernel it stands for (itself, its fallback or edge kernel):
/// qualified with the namespaces the input declares \p Naive in
/// (`blas::scal<float>`). \p Kernel defaults to \p Naive's name as written,
/// its template's for an instantiation (`scal<float>`).
std::string cudaKernelName(const Function &Naive, llvm::StringRef Kernel = "");

} // namespace gpumerge

#endif
