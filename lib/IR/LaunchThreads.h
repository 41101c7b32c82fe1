//===- LaunchThreads.h - The naive launch's threads as a symbol -*- C++ -*-===//
//
// A kernel without a bounds guard in a dimension (the paper's own kernels:
// `c[idy][idx] = sum;` launched over exactly the matrix) computes what its
// launch covers there. Its arrays' element counts (LaunchPlan::Elements, for
// the launchers' aliasing checks and texture objects) then depend on that
// launch, so they name it with a symbol that launch code binds: the CUDA
// launcher to grid * block, the NDRange helper to the naive global size.
//
//   A[idy * 2048 + i], i < width, no guard in Y
//     →  elements(A) = 2048 * gpumerge_launch_threads_y - 2048 + width
//
// The symbol is never printed into a kernel; launch code that cannot bind it
// must refuse the plan.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_LAUNCHTHREADS_H
#define GPUMERGE_IR_LAUNCHTHREADS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gpumerge {

/// The symbol for the naive launch's threads in naive dimension \p Dim (0:
/// X, 1: Y).
inline std::string launchThreadsName(unsigned Dim) {
  return Dim == 0 ? "gpumerge_launch_threads_x" : "gpumerge_launch_threads_y";
}

/// The dimension \p Name stands for, when it is such a symbol.
inline std::optional<unsigned> launchThreadsDim(llvm::StringRef Name) {
  for (unsigned D = 0; D < 2; ++D)
    if (Name == launchThreadsName(D))
      return D;
  return std::nullopt;
}

} // namespace gpumerge

#endif
