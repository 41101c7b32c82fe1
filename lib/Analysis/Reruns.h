//===- Reruns.h - Does running a thread twice change what it leaves? -----===//
//
// A one-dimensional kernel is often launched with blocks of more than one
// row, PolyBench's `dim3 block(32, 8)` with a grid one row high: the eight
// threads of each column compute the same element. The optimized kernel
// computes each element once, which is what the input leaves wherever one of
// its copies running alone, or one after another, leaves the same memory:
//
//   tmp[i] = 0;                          x1[i] += a[i * n + j] * y[j];
//   for (j = 0; j < n; j++)              // reads x1[i] before writing it:
//     tmp[i] += a[i * n + j] * x[j];     // a second copy adds again
//   // every read of tmp is of the
//   // element this thread set: a copy
//   // leaves what the first left
//
// The copies run at once in the input, so where they race its result is one
// of those of some order; one after another is such an order. Then the
// launcher need not ask for one thread in the dimensions the kernel does not
// index. The check is conservative: no position in that dimension read; no
// barriers, shared memory, atomics or calls made for their effect; every
// read of an array the kernel writes is of an element the same thread wrote
// before on every path, at an index of values that do not change
// (parameters, positions, locals set once). That the arrays written overlap
// no other is the launcher's to check.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_RERUNS_H
#define GPUMERGE_ANALYSIS_RERUNS_H

#include "IR/Kernel.h"

#include <set>
#include <string>

namespace gpumerge {

/// Why the threads of \p F that differ only in dimension \p Dim (1: Y,
/// 2: Z), which \p F does not index, may leave memory other than one of them
/// alone does, run one after another ("'x1' at line 8 is read before this
/// thread writes it", "line 4 reads tidy"), or empty when they cannot,
/// provided the arrays \p F writes overlap none of the others it accesses.
std::string whyCopiesDiffer(const Function &F, unsigned Dim);

/// The global arrays \p F writes.
std::set<std::string> writtenArrays(const Function &F);

/// Sets \p P's CopiesAllowed in each of Y and Z that \p P does not launch
/// over where the copies of a thread of \p Naive, the input's kernel, leave
/// what one of them leaves and \p P already asks that each array \p Naive
/// writes overlap none of the others it accesses.
void allowHarmlessCopies(LaunchPlan &P, const Function &Naive);

} // namespace gpumerge

#endif
