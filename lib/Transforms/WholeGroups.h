//===- WholeGroups.h - A branch for merged copies all inside ----*- C++ -*-===//
//
// A kernel merged without staging keeps the naive guard once per copy (each
// copy checks its own position, so every size runs in one launch):
//
//   if (x_0 < w && y_0 < h) c[y_0 * w + x_0] = a[y_0] * b[x_0];
//   if (x_1 < w && y_0 < h) c[y_0 * w + x_1] = a[y_0] * b[x_1];
//   ...
//
// The copies then share no control flow, so no compiler keeps a[y_0] in a
// register across them, nor combines neighbouring reads into vectors. One
// branch where every copy is inside the guard gives the threads away from
// the domain's edges straight code, and leaves the copies as they were for
// the rest:
//
//   if (x_0 < w && y_0 < h && x_7 < w && y_7 < h) { c[...] = ...; ... }
//   else { if (x_0 < w && y_0 < h) c[...] = ...; ... }
//
// vectorize (its merge in X) and thread-merge (the global variant) use it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_WHOLEGROUPS_H
#define GPUMERGE_TRANSFORMS_WHOLEGROUPS_H

#include "IR/Kernel.h"

#include <array>
#include <cstdint>

namespace gpumerge {

/// Gives \p K, whose body ends in Copies[0] x Copies[1] guarded copies
/// (`if (G_k) B_k`, Y-major, as the generator writes an unstaged kernel
/// that keeps its guard), one branch where every G_k holds, its bodies
/// straight code, and the copies as they were for the rest. Where the guard
/// is convex in the positions, the corner copies' conditions stand for all
/// (the copies' positions are a grid); otherwise each distinct comparison
/// of every copy is tested. False, and \p K unchanged, when the body is not
/// of that shape.
bool branchOnWholeGroups(Function &K, std::array<std::int64_t, 2> Copies);

} // namespace gpumerge

#endif
