//===- VerifyPrograms.h - The programs a verify run builds ------*- C++ -*-===//
//
// A verify run builds two programs: the reference (the input's kernels) and
// the candidate (the output's). On OpenCL the reference is the input as
// written where it can be (an OpenCL input whose kernels were not split at
// global barriers), else gpumerge's printing of it (a CUDA input's
// translation, split kernels' phases), or --reference's kernel; the
// candidate is the output printed as OpenCL, with a race-checking form of
// its optimized kernels beside it (CodeGen/RaceCheck.h). On CUDA both are
// NVRTC programs (VerifyCuda.h). A CUDA kernel named like an OpenCL
// built-in function runs under another name in the translation.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_VERIFYPROGRAMS_H
#define GPUMERGE_RUNTIME_VERIFYPROGRAMS_H

#include "Analysis/LaunchConditions.h"
#include "IR/Kernel.h"
#include "Runtime/DeviceRun.h"
#include "Runtime/Verify.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <vector>

namespace gpumerge {

/// The function that a function of \p M named in \p Reached calls and the
/// OpenCL compiler's \p Log calls undeclared (`__vmaxs4`, a CUDA intrinsic
/// with no OpenCL spelling), or "".
std::string untranslatedCall(const Module &M,
                             const std::set<std::string> &Reached,
                             llvm::StringRef Log);

/// The name kernel \p Kernel of \p M has in its OpenCL translation: a CUDA
/// kernel named like an OpenCL built-in function (`step`, `dot`) runs as
/// gpumerge_NAME.
std::string translatedKernelName(const Module &M, const std::string &Kernel);

/// Renames the OpenCL kernel \p From in \p Text to \p To.
void renameKernel(std::string &Text, const std::string &From,
                  const std::string &To);

/// Sets \p Run's NVRTC programs and the kernels each launches for the
/// \p Launches of \p Stages (each stage's emitted kernel in place of its
/// naive one), and \p Result's Reference.
llvm::Error setCudaPrograms(const Module &M,
                            const std::vector<VerifyStage> &Stages,
                            const std::vector<Launch> &Launches,
                            const VerifyOptions &Opts, DeviceRun &Run,
                            VerifyResult &Result);

/// Sets \p Run's OpenCL programs for the \p Launches of \p Stages (the
/// race-checking form of the optimized kernels that run among them), and
/// \p Result's Reference; \p Reached receives the functions the programs
/// hold. False where there is nothing to run: \p Result's Detail says why.
bool setOpenCLPrograms(const Module &M, const std::vector<VerifyStage> &Stages,
                       const std::vector<Launch> &Launches,
                       const VerifyOptions &Opts, DeviceRun &Run,
                       VerifyResult &Result, std::set<std::string> &Reached);

} // namespace gpumerge

#endif
