//===- Races.h - Do naive threads write the same element? -------*- C++ -*-===//
//
// A naive kernel is one thread per output element, but at some sizes two
// threads may write one element: `c[i * n + j]` over a domain of m > n
// columns, or `c[y]` written from every x; or one thread may read what
// another writes (`a[i] = a[i - 1] + a[i + 1]`); or some threads may return
// before a barrier the others wait at. The result is then not defined, and
// --verify would compare two arbitrary orders. Verify chooses
// its sizes so that no such race exists, using these checks, and says so
// where none do.
//
// The check is exact for the usual shapes and silent where it cannot decide:
// writes whose flattened index is affine in idx, idy and at most one loop
// iterator with a constant range; anything else is assumed race free.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_RACES_H
#define GPUMERGE_ANALYSIS_RACES_H

#include "Analysis/Domain.h"

#include <array>
#include <string>

namespace gpumerge {

/// A description of a write of \p F that two threads of the domain
/// \p Domain make to one element at \p Sizes ("'c' (line 7): threads (0, 1)
/// and (53, 0) write the same element"), or of two writes of one array that
/// reach one element from two threads (`out[3 * i]` and `out[3 * i + s]`:
/// "'out' (lines 9 and 10): threads (15, 0) and (0, 0) write the same
/// element"); empty when none is found.
std::string findWriteRace(const Function &F, const SizeBindings &Sizes,
                          const std::array<std::int64_t, 2> &Domain);

/// An assignment of \p F to a global array that the check cannot prove
/// no two threads of \p Domain make to one element at \p Sizes (atomic
/// updates left out), with why: a race findWriteRace reports, or an index
/// it cannot follow ("'h' (line 6): an index the check cannot follow", a
/// scatter `h[bin[i]] = v`); "" where it proves them apart. Verify checks
/// the input's writes on the device where this is not "" (CodeGen/
/// WriteCollisions.h).
std::string unprovenWrite(const Function &F, const SizeBindings &Sizes,
                          const std::array<std::int64_t, 2> &Domain);

/// A read of \p F that one thread of \p Domain makes of an element another
/// thread writes at \p Sizes (`a[i] = a[i - 1] + a[i + 1]`: "'a' (lines 7
/// and 8): thread (2, 0) reads the element thread (1, 0) writes"), or empty
/// when none is found ("line 7" where both are on it). The result then
/// depends on the order the threads run. Exact for reads and writes that
/// step alike with the positions and sit in no loop, under no condition but
/// position bounds; anything else is assumed race free.
std::string findReadWriteRace(const Function &F, const SizeBindings &Sizes,
                              const std::array<std::int64_t, 2> &Domain);

/// A barrier of \p F that threads may have left before (`if (x >= w)
/// return;` ahead of `__syncthreads()`, or a return and a barrier in one
/// loop): "the return at line 9 comes before the barrier at line 21", or
/// empty. OpenCL leaves such a barrier undefined, and PoCL's runs of the
/// kernel then differ (CUDA GPUs since Volta let exited threads pass).
std::string findReturnBeforeBarrier(const Function &F);

} // namespace gpumerge

#endif
