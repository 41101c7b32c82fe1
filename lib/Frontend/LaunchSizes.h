//===- LaunchSizes.h - Sizes the host code launches kernels at -*- C++ -*-===//
//
// Internal to lib/Frontend. The search weighs a version's grid against the
// target's SMs at the sizes the kernel runs at (Transforms/Search.h), and
// `#pragma gpumerge size` is one way to say them. A whole program usually
// says them already: PolyBench launches
//
//   int main() { int ni = NI; ... gemmCuda(ni, nj, nk, ...); }
//   void gemmCuda(int ni, ...) { gemm_kernel<<<grid, block>>>(ni, ...); }
//
// with NI a #define. This reads, for each kernel, the integer arguments
// that every launch in the main file passes with one compile-time value:
// a constant expression, a local variable or parameter never written after
// its initialization, followed to its initializer or to the arguments of
// every call of its function, and arithmetic on those. A value that any
// launch or call leaves unknown, or that two launches disagree on, is not a
// hint. Hints steer the model only: every version stays correct at any
// size.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_LAUNCHSIZES_H
#define GPUMERGE_FRONTEND_LAUNCHSIZES_H

#include "clang/AST/ASTContext.h"

#include <cstdint>
#include <map>
#include <string>

namespace gpumerge {

/// Kernel name (kernelInstanceName) -> integer parameter -> the value every
/// launch of the main file passes it.
using LaunchSizeHints =
    std::map<std::string, std::map<std::string, std::int64_t>>;

LaunchSizeHints collectLaunchSizes(clang::ASTContext &Ctx);

} // namespace gpumerge

#endif
