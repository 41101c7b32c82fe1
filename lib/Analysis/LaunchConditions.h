//===- LaunchConditions.h - When the optimized path runs --------*- C++ -*-===//
//
// An emitted kernel runs its optimized path only where its launch
// conditions hold (LaunchPlan: the naive domain at least one tile in each
// tiled dimension, and every precondition, `k % 4 == 0`); elsewhere the
// launcher takes the fallback. This unit is the arithmetic over sizes that
// decides those conditions, with no device: which sizes verify runs at (the
// input kernel sound there, its domain not tiny), whether the optimized path
// applies at them, sizes where it does, and whether any sizes can make it
// apply at all (the driver drops a variant that never can).
//
// The launch domain is what the launchers compute: per dimension, the
// largest over the phases of each phase's smallest bounds guard, --grid
// (\p Grid) where no guard bounds a dimension.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_LAUNCHCONDITIONS_H
#define GPUMERGE_ANALYSIS_LAUNCHCONDITIONS_H

#include "Analysis/Domain.h"
#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// How a kernel is launched: threads per block and, per dimension, how many
/// naive threads one thread of this kernel stands for (1 for the naive one).
struct LaunchShape {
  std::array<std::int64_t, 2> Block = {16, 16};
  std::array<std::int64_t, 2> Coverage = {1, 1};
};

/// The naive launch: 16x16 blocks for 2-D kernels, 256 threads for 1-D;
/// the block size the kernel's thread positions assume where they assume
/// one (Function::FixedBlock, 0 where none); at most what its shared arrays
/// admit (\p AtMost, sharedArrayBlockBound, 0 where nothing bounds it).
LaunchShape naiveLaunch(unsigned Dims,
                        std::array<std::int64_t, 2> Fixed = {0, 0},
                        std::array<std::int64_t, 2> AtMost = {0, 0});

/// naiveLaunch for the kernel \p F.
LaunchShape naiveLaunchOf(const Function &F, unsigned Dims);

/// One launch of a sequence: a kernel of the input and what stands for it
/// in the output (its LaunchPlan, when it has one, carries the launch
/// conditions), launched with Shape.
struct VerifyStage {
  const Function *Naive = nullptr;
  const Function *Emitted = nullptr;
  LaunchShape Shape;
};

/// Sizes for every integer parameter: \p Given first, then the kernel's
/// size hints scaled down (v ≥ 256 → v/32 + an odd offset), then defaults
/// 67, 45, 53, 39, ... — non-square, not multiples of 16, so that a run at
/// them exercises the edges a tile leaves.
SizeBindings chooseSizes(const Function &F, const SizeBindings &Given);

/// The grid verify runs \p DomainFrom over when no guard bounds their
/// thread position and no --grid is given: 8192 threads (a multiple of every
/// power-of-two tile, so the optimized path's whole-tile condition holds),
/// where the launch alone sizes the work, one element a thread, whatever the
/// grid (1-D, each array written touched only at `c * idx + k`; babelstream's
/// kernels, the paper dialect's mv). None otherwise: a 2-D kernel's rows are
/// usually a size (`y * w + x`), which a grid of verify's choosing would
/// overlap; a kernel of one block (threadIdx alone) would race with itself.
/// A phase where one thread runs whatever the grid is left out.
std::optional<std::array<std::int64_t, 2>>
assumedVerifyGrid(const std::vector<const Function *> &DomainFrom);

/// The launch domain of the kernels \p DomainFrom launched over one grid
/// (the phases of a kernel split at its global barriers, or one kernel): in
/// each dimension the largest domain their guards give; errors as
/// evaluateDomain when none has a guard there.
/// \p Grid (--grid) gives the dimensions no guard bounds; \p Guarded (when
/// given) says which dimensions a guard bounds.
llvm::Expected<std::array<std::int64_t, 2>>
sequenceDomain(const std::vector<const Function *> &DomainFrom,
               const SizeBindings &Sizes,
               const std::optional<std::array<std::int64_t, 2>> &Grid = {},
               std::array<bool, 2> *Guarded = nullptr);

/// Whether \p Plan's launch conditions hold for a naive domain of \p Domain
/// threads at \p Sizes (distinct buffers assumed): the launcher's choice
/// between the optimized path and the fallback. \p Failed says which
/// condition does not hold, for the report.
bool planApplies(const LaunchPlan &Plan,
                 const std::array<std::int64_t, 2> &Domain,
                 const SizeBindings &Sizes, std::string &Failed);

/// What makes \p Sizes unusable for verify: an empty or unknown launch
/// domain, an access of an input kernel before its array, or two threads of
/// an input kernel writing one element (or one reading what another
/// writes): the input's result would not be defined, so nothing could be
/// compared with it. Empty when usable; \p Race says whether a race is why.
std::string sizeProblem(const std::vector<const Function *> &DomainFrom,
                        const std::vector<VerifyStage> &Stages,
                        const SizeBindings &Sizes,
                        const std::optional<std::array<std::int64_t, 2>> &Grid,
                        bool *Race = nullptr);

/// \p Sizes, or sizes near them without a sizeProblem: the sizes the user
/// did not give (\p Given) are raised one at a time; where guarded
/// dimensions are empty (a conv's `w - 99` and `h - fh + 1`), each is first
/// filled by a raise of its own.
SizeBindings
repairSizes(const std::vector<const Function *> &DomainFrom,
            const std::vector<VerifyStage> &Stages, SizeBindings Sizes,
            const SizeBindings &Given,
            const std::optional<std::array<std::int64_t, 2>> &Grid);

/// \p Sizes, with the sizes the user did not give (\p Given) changed where
/// that makes a tiny guarded domain larger (LU's `j = idx + k + 1; if (j <
/// n)` at k = 67, n = 69 runs one thread): a run over a few threads hardly
/// tests a kernel. Each round takes the one change that most raises the
/// smallest guarded extent (toward 16) and keeps the sizes free of a
/// sizeProblem.
SizeBindings
widenDomain(const std::vector<const Function *> &DomainFrom,
            const std::vector<VerifyStage> &Stages, SizeBindings Sizes,
            const SizeBindings &Given,
            const std::optional<std::array<std::int64_t, 2>> &Grid);

/// Sizes near \p Sizes (chooseSizes filling the rest) at which every
/// planned stage's launch conditions hold, so verify can run the optimized
/// path and not only the fallback. Sizes are raised: those a condition of
/// their own constrains first (`f % 4 == 0`), then one at a time by the
/// smallest step that makes more conditions hold, then coupled conditions
/// solved together; the result is free of a sizeProblem the starting sizes
/// did not have. Nullopt when a small search finds none.
std::optional<SizeBindings> sizesForOptimizedStages(
    const std::vector<const Function *> &DomainFrom,
    const std::vector<VerifyStage> &Stages, const SizeBindings &Sizes,
    const std::optional<std::array<std::int64_t, 2>> &Grid = {});

/// sizesForOptimizedStages for one kernel, \p Emitted standing for
/// \p Naive.
std::optional<SizeBindings> sizesForOptimizedPath(const Function &Naive,
                                                  const Function &Emitted,
                                                  const SizeBindings &Sizes);

/// Can the launch conditions of the stages' plans hold together at all?
enum class PlanSatisfiability {
  Holds,   ///< at the sizes put in the witness
  Never,   ///< decided: constants (`5 % 32 == 0`), or one free size scanned
           ///< over its periods (`n % 256 == 0` and `(n - 1) % 32 == 0`)
  Unknown, ///< several sizes and the search found none
};

/// Whether any sizes make the launch conditions of \p Stages' plans hold
/// together, over the domain of \p DomainFrom (\p Grid where no guard bounds
/// it). A variant whose optimized path can never run is all fallback: the
/// driver drops it. Conditions are decided group by group (those sharing
/// sizes together); \p Witness (when given) receives sizes where they hold.
PlanSatisfiability
planSatisfiability(const std::vector<const Function *> &DomainFrom,
                   const std::vector<VerifyStage> &Stages,
                   const std::optional<std::array<std::int64_t, 2>> &Grid = {},
                   SizeBindings *Witness = nullptr);

} // namespace gpumerge

#endif
