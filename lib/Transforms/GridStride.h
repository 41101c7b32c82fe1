//===- GridStride.h - A grid-stride loop read as a bounds guard -*- C++ -*-===//
//
// Much CUDA code walks its domain in a grid-stride loop, so that any grid
// covers it (the launch is sized for the device, not the data):
//
//   int stride = blockDim.x * gridDim.x;
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
//     y[i] = a * x[i] + y[i];
//
// Where each iteration stands alone (nothing carried from one to the next,
// no barrier, no thread or block built-in but through i), the loop computes
// what one thread per element would:
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n)
//     y[i] = a * x[i] + y[i];
//
// The passes start from that form, and an optimized kernel made from it is
// launched over the loop's bound, on a grid of its own (LaunchPlan Extent):
// the user's grid does not cover the domain, and need not. A kernel no pass
// changed stays the input's loop, as written; so does the fallback.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_GRIDSTRIDE_H
#define GPUMERGE_TRANSFORMS_GRIDSTRIDE_H

#include "IR/Kernel.h"

#include <memory>
#include <string>

namespace gpumerge {

/// \p F with its grid-stride loop read as a bounds guard, its
/// GridStrideLine set to the loop's line; null when \p F is not such a
/// kernel, with why in \p WhyNot (empty when it has no grid-stride loop).
std::unique_ptr<Function> guardGridStride(const Function &F,
                                          std::string &WhyNot);

/// Gives \p K, an optimized kernel made from \p Guarded (a guardGridStride
/// form), a launch of its own over the loop's bound where its plan kept
/// the naive launch (or it has none): that launch is the user's grid, which
/// the guard alone does not cover. False when K's plan does not say the
/// domain it is launched over (then it cannot run apart from the user's
/// grid).
bool launchOverGuard(Function &K, const Function &Guarded);

} // namespace gpumerge

#endif
