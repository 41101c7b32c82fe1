//===- NaiveShape.h - A naive kernel: prologue, guard and body --*- C++ -*-===//
//
// The generators (Tiling.h, HaloTile.cpp) rebuild a naive kernel around its
// bounds guard: the declarations and scalar set-up before it (kept as they
// are), the guard itself (an `if` around the rest, or an early return), and
// what it protects (rewritten).
//
//   int j = idx; int i = idy;       Prologue
//   float c = 0.5f; c = c * 2.0f;
//   if (i < n - 1 && j < m && i > 0) Guard: i < n - 1 && j < m && i > 0
//     b[i*m + j] = c * a[...];      Guarded
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_NAIVESHAPE_H
#define GPUMERGE_TRANSFORMS_NAIVESHAPE_H

#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

#include <array>

namespace gpumerge {

struct NaiveShape {
  /// Declarations before the guard, and assignments to scalar locals that
  /// read no memory (`c11 = +0.2;`).
  std::vector<StmtPtr> Prologue;
  std::vector<StmtPtr> Guarded; ///< what the guard protects
  ExprPtr Guard;                ///< null when the kernel has none
  /// The guard tests more than the upper bounds of the positions (a
  /// stencil's `i > 0`): it must stay in the kernel, so nothing that drops
  /// it (staging, whole tiles) applies.
  bool GuardKeepsMore = false;
  /// Conjuncts of the guard (`a && b && c`: 3); 0 without one.
  unsigned GuardAtoms = 0;
  unsigned Dims = 1;
  /// Per dimension, the upper bound of the positions the guard lets run,
  /// over scalar parameters; null where the guard has none.
  std::array<std::shared_ptr<const Expr>, 2> Extent;
};

/// Set-up before a guard: a declaration, or a scalar local assigned from
/// what reads no memory (PolyBench's `c11 = +0.2;`).
bool isPrologue(const Stmt &St);

/// Splits \p F (a naive kernel) at its bounds guard. Errors say why the
/// kernel does not have the shape (two bounds in one dimension, statements
/// after the guard, a guard that is not one `if`).
llvm::Expected<NaiveShape> analyzeShape(const Function &F);

} // namespace gpumerge

#endif
