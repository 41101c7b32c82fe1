//===- Domain.h - Launch domain and buffer extents of a kernel --*- C++ -*-===//
//
// What a runner needs to launch a naive kernel without being told: the
// domain of thread positions (from the bounds guards: `if (x < w && y < h)`
// or `if (x >= n) return;`), and how many elements each array parameter needs
// (the largest index any access can reach, by interval arithmetic over the
// domain, the loop ranges and the given sizes).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_DOMAIN_H
#define GPUMERGE_ANALYSIS_DOMAIN_H

#include "Analysis/Accesses.h"

#include "llvm/Support/Error.h"

#include <array>
#include <map>
#include <set>

namespace gpumerge {

/// Values of the scalar parameters (and #define'd sizes are already literals).
using SizeBindings = std::map<std::string, std::int64_t>;

/// A bound on one dimension from a guard: threads with position < Bound run.
struct DomainBound {
  const Expr *Bound = nullptr; ///< an expression over scalar parameters
  std::int64_t Offset = 0;     ///< `x <= b` is `x < b + 1`: Offset 1
  unsigned Line = 0;
  /// Bound when the finder built it: a position offset by a scalar (LU's
  /// `j = get_global_id(0) + (k + 1); if (j < n)` bounds x by n - k, -1).
  std::shared_ptr<const Expr> Owned;
};

struct KernelDomain {
  unsigned Dims = 1; ///< 1 when the kernel never uses a Y position
  /// The kernel uses idz: a 3-D grid, whose Z positions are layers run by
  /// blocks one layer deep (Builtin::Idz). Its guards on z: LayerBounds
  /// (z < d) and LayerLower (z > 0).
  bool Layered = false;
  std::vector<DomainBound> LayerBounds, LayerLower;
  /// Per dimension, the guards found (the domain is their minimum).
  std::vector<DomainBound> Bounds[2];
  /// Per dimension, lower bounds (`x > 0`, `if (x < 1) return;`): threads
  /// with position >= Bound + Offset run. A stencil's interior.
  std::vector<DomainBound> Lower[2];
};

/// The guards of \p F. Dims is 2 when any Y built-in appears.
KernelDomain findDomain(const Function &F);

/// Whether \p Cond, in \p F, is `idx == 0` (or `0 == idx`), idx the
/// thread's X position, through single-assignment locals (`int tid =
/// blockIdx.x * blockDim.x + threadIdx.x; if (tid == 0)`).
bool isFirstThreadTest(const Expr &Cond, const Function &F);

/// Whether only the first thread of \p F's grid does anything: 1-D, its
/// statements declarations and one `if` of isFirstThreadTest without an
/// else (rd's final sum, PolyBench's gramschmidt_kernel1). Its domain is
/// that one thread, at any size.
bool onlyFirstThreadRuns(const Function &F);

/// Evaluates the domain under \p Sizes: threads per dimension. Errors when a
/// used dimension has no guard (then --grid must say it), naming the kernel.
llvm::Expected<std::array<std::int64_t, 2>>
evaluateDomain(const Function &F, const KernelDomain &D,
               const SizeBindings &Sizes);

/// The layers of a 3-D grid under \p Sizes: the smallest z guard; 1 for a
/// kernel without idz. Errors when a layered kernel has no z guard, or one
/// that cannot be evaluated, naming the kernel.
llvm::Expected<std::int64_t> evaluateLayers(const Function &F,
                                            const KernelDomain &D,
                                            const SizeBindings &Sizes);

/// Elements each array parameter needs when the kernel runs over \p Domain
/// threads with blocks of \p Block (and \p Layers layers of a 3-D grid). Errors
/// name the array and line when an index cannot be bounded. \p Lowest, when
/// given, receives each array's lowest index (negative: the kernel reaches
/// before the array at these sizes), with the guards' lower bounds applied.
/// \p Unbounded, when given, receives the arrays with an index or a loop
/// that cannot be bounded (non-affine, data-dependent) in place of that
/// error; their extents leave those accesses out.
llvm::Expected<std::map<std::string, std::int64_t>> bufferExtents(
    const Function &F, const SizeBindings &Sizes,
    std::array<std::int64_t, 2> Domain, std::array<std::int64_t, 2> Block,
    std::map<std::string, std::int64_t> *Lowest = nullptr,
    std::int64_t Layers = 1, std::set<std::string> *Unbounded = nullptr);

/// Evaluates an integer expression over scalar parameters.
std::optional<std::int64_t> evaluateScalar(const Expr &E, const Function &F,
                                           const SizeBindings &Sizes);

} // namespace gpumerge

#endif
