//===- ArchTarget.h - Machine description for a build's GPUs ----*- C++ -*-===//
//
// nvcc builds name GPUs by architecture (-arch=sm_90, -gencode
// arch=compute_80,code=sm_80); gpumerge optimizes for a machine description
// (h100, a100, v100). The descriptions carry their architecture (SmArch), so
// the mapping is read from them: sm_90 → h100, sm_80 → a100, sm_70 → v100.
// An architecture without a description of its own takes the newest
// description not newer than it (sm_86 → a100); a build for several takes
// its newest, the GPU the optimized code will mostly run on.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_NVCC_ARCHTARGET_H
#define GPUMERGE_NVCC_ARCHTARGET_H

#include <string>
#include <utility>
#include <vector>

namespace gpumerge {
namespace nvcc {

/// The architecture nvcc builds for when the command line names none
/// (CUDA 13: sm_75; CUDA 12 had sm_52).
constexpr unsigned NvccDefaultArchitecture = 75;

struct TargetChoice {
  std::string Target; ///< "" when no description can stand for the build
  /// Why this one, when it is not the plain match of a single architecture
  /// (several architectures, none given, none exact): for one line on
  /// stderr. Empty for a plain match.
  std::string Note;
};

/// Picks the description for a build for \p Architectures (sm numbers,
/// empty: nvcc's default; \p Symbolic: "all", "all-major", "native" or "")
/// among \p Descriptions: (name, sm number) of those with an SmArch.
TargetChoice
chooseTarget(const std::vector<unsigned> &Architectures,
             const std::string &Symbolic,
             std::vector<std::pair<std::string, unsigned>> Descriptions);

/// "sm_90" → 90; 0 when \p SmArch is not of that form.
unsigned smNumber(const std::string &SmArch);

} // namespace nvcc
} // namespace gpumerge

#endif
