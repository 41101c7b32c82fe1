//===- NvccCheck.h - Does each CUDA file gpumerge writes compile? -*- C++ -*-===//
//
// A user builds gpumerge's output with nvcc, not with the Clang that
// gpumerge reads it with, and verify runs kernels on PoCL, translated: a
// kernel it cannot translate (a `tex2D<float>` read) is skipped there, and a
// spelling that Clang takes and nvcc does not would reach the user's build.
// So where nvcc is on the machine, every CUDA file gpumerge writes is first
// compiled with it (`nvcc -c`, for the target's architecture, the input's
// directory and the user's -I, -D, -U, -include and -std flags). Where it
// fails and the input compiles, each optimized kernel is tried alone; the
// ones that break the build are written as the input's, with a warning that
// names them as a gpumerge bug (exit 4).
//
//   all optimized ──compiles──▶ written
//        │ fails
//        ▼
//   none optimized ──fails──▶ written (the flags do not build the input:
//        │ compiles                   nothing to compare with)
//        ▼
//   each alone: the ones that fail are reverted; none alone: all reverted
//
// Results are cached by content beside ptxas's (PtxasCache.h), so a second
// run over an unchanged tree compiles nothing. GPUMERGE_NO_NVCC_CHECK=1
// turns the check off.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_NVCCCHECK_H
#define GPUMERGE_DRIVER_NVCCCHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// nvcc and the flags that the CUDA files written for one input compile
/// with.
class NvccCheck {
public:
  /// The check for the outputs of \p InputPath, read with \p ClangArgs
  /// (the flags after `--`), for \p SmArch ("sm_90"); nullopt where it is
  /// off: GPUMERGE_NO_NVCC_CHECK=1, or no nvcc (Ptxas.h's findNvcc).
  static std::optional<NvccCheck>
  forInput(llvm::StringRef InputPath, llvm::ArrayRef<std::string> ClangArgs,
           llvm::StringRef SmArch);

  /// "" when \p Text compiles; else nvcc's first error, with the line of
  /// \p Text it names ("line 15: error: no instance of overloaded function
  /// \"tex2D\" matches the argument list"); nullopt where nvcc could not be
  /// run to a verdict (it crashed, or took over 3 minutes).
  std::optional<std::string> firstError(llvm::StringRef Text) const;

  /// The command a user would run, for messages: "nvcc -c -arch=sm_90".
  std::string command() const;

  /// The flags of \p ClangArgs that nvcc takes the same way.
  static std::vector<std::string> nvccFlags(llvm::ArrayRef<std::string> Args);

private:
  NvccCheck() = default;
  std::string Nvcc, Arch;
  std::vector<std::string> Flags;
};

/// Of \p Changed, the kernels whose optimized form keeps the file from
/// compiling, each with nvcc's first error. \p Emit writes the file with the
/// optimized forms of the kernels it is given and the input's of the others.
/// Empty when the whole file compiles, or when the input's kernels alone do
/// not (then \p InputFails is set: the flags cannot build the input).
std::map<std::string, std::string> kernelsBreakingTheBuild(
    const NvccCheck &Check, llvm::ArrayRef<std::string> Changed,
    llvm::function_ref<std::string(llvm::ArrayRef<std::string>)> Emit,
    bool &InputFails);

} // namespace gpumerge

#endif
