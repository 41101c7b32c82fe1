//===- Extents.h - Symbolic array extents of a kernel -----------*- C++ -*-===//
//
// How many elements an array parameter needs, as an expression over the
// kernel's scalar parameters rather than a number for given sizes (that is
// bufferExtents in Domain.h). Launchers compare address ranges with it at run
// time (LaunchPlan::Elements: arrays kept in registers or shared memory must
// not overlap the arrays written), and the tiling passes reason with it.
//
//   mm:    a[y * k + i], y < h, i < k   →  elements(a) = h * k
//   conv:  out[y * (w - fw + 1) + x]    →  w * h - w * fh + h - fh + w - fw + 1
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_EXTENTS_H
#define GPUMERGE_ANALYSIS_EXTENTS_H

#include "Analysis/Affine.h"

namespace gpumerge {

/// The number of elements array parameter \p Array needs when \p F runs over
/// its guarded domain, as a KIR expression over scalar parameters (e.g.
/// `h * k`), or nullptr when some index cannot be bounded symbolically (a
/// non-affine index, a dimension with several guards, a
/// block-relative position, a loop bound that is not affine). The bound is
/// the one bufferExtents computes by interval arithmetic, term by term, with
/// the sizes left as symbols; several incomparable index forms give a nested
/// `(a > b ? a : b)`. An array never accessed needs 0 elements; a name that
/// is not an array parameter gives nullptr. Where the kernel has no guard
/// in a dimension, the count names the naive launch's threads there
/// (IR/LaunchThreads.h), which launch code binds.
ExprPtr symbolicElements(const Function &F, const std::string &Array);

/// The same bound as a polynomial over scalar parameters, one per index form
/// that no other form dominates (usually one); nullopt when unbounded.
std::optional<std::vector<AffineForm>>
symbolicElementForms(const Function &F, const std::string &Array);

/// \p A (a polynomial over scalar parameters) as a KIR expression:
/// `h * k - k + 1`.
ExprPtr affineToExpr(const AffineForm &A, const Function &F);

} // namespace gpumerge

#endif
