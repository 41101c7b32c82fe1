//===- BlockBounds.h - Block sizes that shared arrays allow -----*- C++ -*-===//
//
// A kernel with shared memory often sizes it for the block it is launched
// with and indexes it by the thread's position in the block:
//
//   __shared__ float t[64];
//   t[threadIdx.x] = x[i];            // blocks of at most 64 threads
//
// Its own host code launches it so; --verify, which chooses the launch of a
// kernel-only file, must not launch more (the input itself would write past
// t, and only the optimized kernel's checked run would say so: a mismatch
// that is the launch's).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_BLOCKBOUNDS_H
#define GPUMERGE_ANALYSIS_BLOCKBOUNDS_H

#include "IR/Kernel.h"

#include <array>
#include <cstdint>

namespace gpumerge {

/// The largest block, in X and Y (0: no bound), at which every element of
/// a shared array of \p F indexed by the thread's position in its block
/// (`t[tidx]`, `t[tidy][tidx + 1]`: tidx or tidy plus a constant) is inside
/// the array.
std::array<std::int64_t, 2> sharedArrayBlockBound(const Function &F);

} // namespace gpumerge

#endif
