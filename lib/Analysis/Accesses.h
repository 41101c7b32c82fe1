//===- Accesses.h - The global-memory accesses of a kernel ------*- C++ -*-===//
//
// Every ArrayRef into global (or constant) memory, with its flattened index
// as an affine form, its index kind (§3.2: constant, predefined, loop,
// unresolved), whether it is a read or a write, and the loops around it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_ACCESSES_H
#define GPUMERGE_ANALYSIS_ACCESSES_H

#include "Analysis/Affine.h"

#include <set>

namespace gpumerge {

enum class IndexKind { Constant, Predefined, Loop, Unresolved };
const char *indexKindName(IndexKind K);

/// A loop around an access, as the coalescing check needs it.
struct LoopInfo {
  std::string Iter;
  std::optional<std::int64_t> Start; ///< when the initial value is constant
  /// The initial value's form when it depends on the thread position
  /// (`for (j = idx; j < n; j += 1024)`). The access's index then has the
  /// start folded in: j stands for the distance travelled from it, so the
  /// index reads `idx + j` and the analyses see each thread's own element.
  std::optional<AffineForm> ThreadStart;
  std::int64_t Step = 1;
  /// False for a loop-invariant step that is not a constant (`j += nt`):
  /// Step is then only the direction (ForStmt::StepExpr).
  bool ConstantStep = true;
  const ForStmt *Loop = nullptr;
};

/// A condition known to hold where an access runs: an enclosing if's
/// condition (Negated in its else branch), or the negation of an earlier
/// `if (c) return;` in an enclosing block.
struct AccessGuard {
  const Expr *Cond = nullptr;
  bool Negated = false;
};

struct Access {
  const ArrayRef *Ref = nullptr;
  std::string Array;
  std::string IndexText;           ///< the index as written (debug spelling)
  std::optional<AffineForm> Index; ///< flattened; nullopt when unresolved
  IndexKind Kind = IndexKind::Unresolved;
  bool IsWrite = false;
  unsigned Line = 0;
  unsigned ElementBytes = 4;
  std::vector<LoopInfo> Loops;     ///< outermost first
  std::vector<AccessGuard> Guards; ///< outermost first
};

/// The global accesses of \p F in source order.
std::vector<Access> collectAccesses(const Function &F);

/// Array parameters \p F names other than as an indexed access: passed to
/// a helper, or taken into a pointer. What is done through them there is
/// not among collectAccesses' accesses (a helper may write them).
std::set<std::string> arraysUsedAsPointers(const Function &F);

/// The integer array parameters of \p F whose values steer an index or a
/// loop's range, directly or through locals (`x[cols[j]]`, `for (j =
/// rows[i]; j < rows[i + 1]; j++)`): verify fills them from 0, as random
/// values below 0 would index before the arrays.
std::set<std::string> arraysSteeringIndices(const Function &F);

/// Those of them that steer where \p F writes global memory (a scatter,
/// `out[idx[i]] = v[i]`): verify fills them with a permutation, so no two
/// threads write one element (the input's result would depend on their
/// order, and a merge's order is not the input's).
std::set<std::string> arraysSteeringWrites(const Function &F);

} // namespace gpumerge

#endif
