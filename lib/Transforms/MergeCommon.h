//===- MergeCommon.h - What block-merge and thread-merge share --*- C++ -*-===//
//
// Both merge passes of §3.5 (BlockMerge.cpp, ThreadMerge.cpp) start from the
// shape a kernel has now, regenerate it from the naive one at a merged shape
// (Tiling.h), and on targets nvcc compiles for check the model's first
// choices with ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_MERGECOMMON_H
#define GPUMERGE_TRANSFORMS_MERGECOMMON_H

#include "Target/Ptxas.h"
#include "Transforms/Passes.h"
#include "Transforms/Search.h"
#include "Transforms/Tiling.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// The shape \p F has now (the naive launch when it has no plan). In the
/// texture variant an unplanned kernel starts from the texture block
/// (§3.5.1), so thread merge picks its factors for the block it will run
/// with; texture-block-shape then keeps them.
TileShape currentShape(const Function &F, const PassContext &Ctx);

/// Does an earlier pass fix the block shape (a write tile sized for
/// coalescing)? Forced factors override it.
bool shapeFixed(const Function &F, const PassContext &Ctx, std::string &Why);

/// \p F regenerated from its naive origin (tilingOrigin) at \p S, as the
/// pass \p Name with merge factors \p Fx x \p Fy (\p Factor where given),
/// chosen by \p Chosen; an error where the block cannot run on the target.
/// Returns the report's parameters.
llvm::Expected<std::optional<AppliedPass>>
applyMerge(Function &F, const PassContext &Ctx, const TileShape &S,
           const std::string &Name, std::int64_t Fx, std::int64_t Fy,
           const std::string &Chosen, const std::string &Factor = "");

/// Does ptxas count \p MD's registers on a stand-in architecture?
bool countsOnStandIn(const MachineDescription &MD);

/// Can ptxas count \p MD's registers (an architecture for it, and nvcc)?
bool ptxasCounts(const MachineDescription &MD);

/// The first of \p Versions that ptxas finds legal (no spills, two blocks
/// per SM with its register and shared-memory use), trying at most three,
/// each with its tile loop unrolled and then, where that needs too many
/// registers, as nvcc unrolls it (mm_paper_dialect's 8x8 tile: 168
/// registers unrolled, 128 not); the model's best when the target's arch
/// is not one nvcc compiles for, or nvcc is missing (\p Note says which).
RankedVersion checkWithPtxas(const Function &Origin,
                             const std::vector<RankedVersion> &Versions,
                             const MachineDescription &MD,
                             const std::vector<const Function *> &Helpers,
                             std::string &Note,
                             std::optional<KernelResources> &Used,
                             size_t MaxVersions = 3);

/// Whether a forced merge (--merge, a --tune candidate) keeps its tile loop
/// unrolled: yes where ptxas compiles it unrolled without spills at two
/// blocks per SM or more (checkWithPtxas's test of the model's choice), or
/// cannot tell; otherwise the loop as nvcc unrolls it is taken where it
/// spills no more and holds more blocks, or spills less and holds no fewer
/// (\p Note says so). Without this, --tune would time such candidates at
/// their worst.
bool forcedUnroll(const Function &Origin, TileShape S,
                  const MachineDescription &MD,
                  const std::vector<const Function *> &Helpers,
                  std::string &Note);

/// Thread merge without staging in the global variant: the copies keep the
/// naive guard each, so they share no control flow, and so no read; a
/// branch where every copy is inside the guard (WholeGroups.h) gives most
/// threads straight code. There nvcc keeps the copies' common reads (vv's
/// a[y_0], b[x_0]) in registers only where the arrays written cannot
/// overlap them: the read-only arrays are printed `__restrict__`, and the
/// launcher checks their address ranges (the naive kernel runs where they
/// overlap). Returns what the report says of it. ptxas is given the kernel
/// as thread-merge leaves it, so checkWithPtxas calls this too.
std::map<std::string, std::string>
shareCopiesReads(Function &F, const std::array<std::int64_t, 2> &Merge);

} // namespace gpumerge

#endif
