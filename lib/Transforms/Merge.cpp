//===- Merge.cpp - Thread-block merge and thread merge --------------------===//
//
// §3.5. block-merge puts several neighbouring blocks into one, so the data
// they share (G2S) is loaded into shared memory once per merged block:
// after coalescing the block is T x 1; merging by 8 in Y gives T x 8, and
// the a tile of mm then serves 8 rows of threads. thread-merge makes one
// thread compute several naive threads' outputs, so what those share (G2R)
// is loaded once into a register: in Y, idy → idy*N + k for copy k (Fig. 10);
// in X the copies are cyclic, blockDim.x apart, so a warp still reads
// consecutive elements. Control flow and statements that do not depend on
// the merged position are kept once, the rest replicated with their locals
// renamed (sum_0, sum_1, ...).
//
// Factors come from the ranked Fig. 12 space (Search.h) or from --merge.
// In the texture variant there is no shared memory: thread merge shares
// what merged copies read in registers (G2R) within the texture block, and
// the kernel is generated without staging (loop tile 0).
// Both passes regenerate the kernel from the naive one (Tiling.h).
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "CodeGen/Emitter.h"
#include "Target/Ptxas.h"
#include "Transforms/Passes.h"
#include "Transforms/Search.h"
#include "Transforms/TextureBlockShape.h"
#include "Transforms/WholeGroups.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace gpumerge {

namespace {

/// The shape \p F has now (the naive launch when it has no plan). In the
/// texture variant an unplanned kernel starts from the texture block
/// (§3.5.1), so thread merge picks its factors for the block it will run
/// with; texture-block-shape then keeps them.
TileShape currentShape(const Function &F, const PassContext &Ctx) {
  if (F.Plan && F.Plan->Origin)
    return {F.Plan->Block, F.Plan->Coverage, F.Plan->LoopTile,
            F.Plan->Interchanged};
  if (Ctx.Variant == MemoryVariant::Texture) {
    TextureBlock TB = textureBlockShape(F, Ctx.Target);
    return {TB.Block, {1, 1}, 0, TB.Interchange};
  }
  // The naive launch of Verify's naiveLaunch: 16x16, or 256 in 1-D.
  if (findDomain(F).Dims == 2)
    return {{16, 16}, {1, 1}, 0};
  return {{256, 1}, {1, 1}, 0};
}

/// What \p F may print `__restrict__`: its read-only arrays (parameter
/// order), the arrays it writes (by name), and the element counts of both
/// for the launcher's overlap checks.
struct Restrictable {
  std::vector<std::string> ReadOnly, Written;
  std::map<std::string, std::shared_ptr<const Expr>> Counts;
};

/// None where F reads no array or writes none, an array is used as a
/// pointer (a helper could write it, and no check would cover it), an array
/// written is not a parameter, or an extent cannot be bounded.
std::optional<Restrictable> restrictable(const Function &F) {
  const Function &Origin = tilingOrigin(F);
  if (!arraysUsedAsPointers(Origin).empty())
    return std::nullopt;
  std::set<std::string> Read, Written;
  for (const Access &A : collectAccesses(Origin))
    (A.IsWrite ? Written : Read).insert(A.Array);
  // An array written that is no parameter (a __device__ array) has no
  // extent the launcher could compare.
  for (const std::string &W : Written)
    if (const Param *P = Origin.findParam(W); !P || !P->isArray())
      return std::nullopt;
  Restrictable R;
  R.Written.assign(Written.begin(), Written.end());
  for (const Param &P : Origin.Params) {
    // Written in KIR only as indexed stores (no address is taken, an
    // atomic is not lowered): an array no store names is read only, const
    // or not.
    bool ReadOnly = P.isArray() && P.Ty.Space == AddressSpace::Global &&
                    Read.count(P.Name) && !Written.count(P.Name);
    if (ReadOnly || Written.count(P.Name)) {
      ExprPtr N = symbolicElements(Origin, P.Name);
      if (!N)
        return std::nullopt;
      R.Counts[P.Name] = std::shared_ptr<const Expr>(std::move(N));
    }
    if (ReadOnly)
      R.ReadOnly.push_back(P.Name);
  }
  if (R.ReadOnly.empty() || R.Written.empty())
    return std::nullopt;
  return R;
}

/// Thread merge without staging in the global variant: the copies keep the
/// naive guard each, so they share no control flow, and so no read; a
/// branch where every copy is inside the guard (WholeGroups.h) gives most
/// threads straight code. There nvcc keeps the copies' common reads (vv's
/// a[y_0], b[x_0]) in registers only where the arrays written cannot
/// overlap them: the read-only arrays are printed `__restrict__`, and the
/// launcher checks their address ranges (the naive kernel runs where they
/// overlap). Returns what the report says of it.
std::map<std::string, std::string>
shareCopiesReads(Function &F, const std::array<std::int64_t, 2> &Merge) {
  std::map<std::string, std::string> Said;
  LaunchPlan &Plan = *F.Plan;
  if (Plan.SharedBytes != 0 || Merge[0] * Merge[1] < 2)
    return Said;
  if (Plan.GuardsDomain) {
    if (!branchOnWholeGroups(F, Merge))
      return Said;
    Said["whole-groups"] =
        llvm::formatv("one branch where all {0} copies are inside the guard; "
                      "the edges keep a guard per copy",
                      Merge[0] * Merge[1]);
  }
  std::optional<Restrictable> R = restrictable(F);
  if (!R)
    return Said;
  for (const std::string &A : R->ReadOnly)
    for (const std::string &W : R->Written)
      Plan.requireDisjoint(A, W, R->Counts);
  Plan.RestrictArrays = R->ReadOnly;
  Said["restrict"] = llvm::join(R->ReadOnly, ", ") +
                     " (the launcher checks that they do not overlap " +
                     llvm::join(R->Written, ", ") + ")";
  return Said;
}

std::string direction(std::int64_t X, std::int64_t Y) {
  if (X > 1 && Y > 1)
    return "X and Y";
  return X > 1 ? "X" : Y > 1 ? "Y" : "none";
}

llvm::Expected<std::optional<AppliedPass>>
apply(Function &F, const PassContext &Ctx, const TileShape &S,
      const std::string &Name, std::int64_t Fx, std::int64_t Fy,
      const std::string &Chosen, const std::string &Factor = "") {
  auto K = generateTiled(tilingOrigin(F), S, Ctx.Target);
  if (!K)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   Name.c_str(),
                                   llvm::toString(K.takeError()).c_str());
  const LaunchPlan &Plan = *K->Kernel->Plan;
  BlockResources Res{unsigned(S.Block[0] * S.Block[1]), Plan.EstimatedRegisters,
                     unsigned(Plan.SharedBytes)};
  Occupancy Occ = computeOccupancy(Ctx.Target, Res);
  if (Occ.BlocksPerSM == 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s %lldx%lld gives a block of %u threads, about %u registers each "
        "and %u bytes of shared memory, which cannot run on %s (%s)",
        Name.c_str(), (long long)Fx, (long long)Fy, Res.ThreadsPerBlock,
        Res.RegistersPerThread, Res.SharedBytesPerBlock,
        Ctx.Target.Name.c_str(), occupancyLimitName(Occ.Limit));
  AppliedPass P{Name, {}};
  P.Parameters["direction"] = direction(Fx, Fy);
  P.Parameters["factor"] =
      Factor.empty() ? llvm::formatv("{0}x{1}", Fx, Fy).str() : Factor;
  P.Parameters["block"] =
      llvm::formatv("{0}x{1}", S.Block[0], S.Block[1]).str();
  P.Parameters["chosen-by"] = Chosen;
  std::vector<std::string> Grouped;
  for (const StagedAccess &SA : K->Staged)
    if (SA.Grouped > 1)
      Grouped.push_back(llvm::formatv("{0}: a thread's columns {1} side by "
                                      "side, read {1} at a time",
                                      SA.Shared, SA.Grouped));
  if (!Grouped.empty())
    P.Parameters["shared-layout"] = llvm::join(Grouped, "; ");
  F = std::move(*K->Kernel);
  return P;
}

/// The architecture ptxas compiles \p MD's kernels for: its own, or the
/// stand-in its description names for a target nvcc no longer compiles
/// for, which counts registers capped at the target's per-thread limit, so
/// what does not fit spills. The estimate from KIR it replaces had
/// PolyBench's gemm at 52 registers on a GTX 480 where ptxas for sm_35 used
/// 72, over Fermi's 63.
std::string ptxasArch(const MachineDescription &MD) {
  return MD.SmArch.empty() ? MD.PtxasStandIn : MD.SmArch;
}

/// Does ptxas count \p MD's registers on a stand-in architecture?
bool countsOnStandIn(const MachineDescription &MD) {
  return ptxasArch(MD) != MD.SmArch;
}

/// Why ptxas cannot count \p MD's resources: no nvcc architecture, or no
/// nvcc; nullopt when it can.
std::optional<std::string> noPtxas(const MachineDescription &MD) {
  if (ptxasArch(MD).empty())
    return "no nvcc architecture for " + MD.Name;
  if (auto N = findNvcc(); !N)
    return llvm::toString(N.takeError());
  return std::nullopt;
}

/// What ptxas makes of one version: its resources and the blocks per SM
/// they allow.
struct PtxasFit {
  KernelResources Res;
  unsigned Blocks = 0;
  unsigned spilled() const { return Res.SpillStoreBytes + Res.SpillLoadBytes; }
  /// The test of a version: no spills, two blocks per SM or more.
  bool legal() const { return spilled() == 0 && Blocks >= 2; }
};

/// ptxas's view of \p S's kernel; nullopt where it cannot be generated
/// (\p Why empty) or ptxas cannot compile it alone (\p Why says so).
std::optional<PtxasFit> ptxasFit(const Function &Origin, const TileShape &S,
                                 const MachineDescription &MD,
                                 const std::vector<const Function *> &Helpers,
                                 std::string &Why) {
  Why.clear();
  auto K = generateTiled(Origin, S, MD);
  if (!K) {
    llvm::consumeError(K.takeError());
    return std::nullopt;
  }
  // The kernel as thread-merge leaves it in the global variant: the branch
  // for whole groups and __restrict__ change what ptxas allocates.
  if (!S.WholeTiles)
    shareCopiesReads(*K->Kernel, S.Merge);
  bool StandIn = countsOnStandIn(MD);
  auto R =
      ptxasResources(emitStandaloneCuda(*K->Kernel, Helpers), ptxasArch(MD),
                     StandIn ? MD.MaxRegistersPerThread : 0);
  if (!R || !R->count(Origin.Name)) {
    Why = R ? "not reported" : llvm::toString(R.takeError());
    return std::nullopt;
  }
  KernelResources Res = R->at(Origin.Name);
  if (StandIn)
    Res.Source += llvm::formatv(" with {0}'s {1} registers a thread", MD.Name,
                                MD.MaxRegistersPerThread)
                      .str();
  BlockResources B{unsigned(S.Block[0] * S.Block[1]), Res.Registers,
                   Res.SharedBytes};
  return PtxasFit{Res, computeOccupancy(MD, B).BlocksPerSM};
}

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
                             size_t MaxVersions = 3) {
  if (auto Why = noPtxas(MD)) {
    Note = "resources estimated from KIR (" + *Why + ")";
    return Versions.front();
  }
  // The first versions, each unrolled and then, where it has a tile loop,
  // as nvcc unrolls it.
  std::vector<RankedVersion> Tries;
  for (size_t I = 0; I < Versions.size() && I < MaxVersions; ++I)
    for (bool Unroll : {true, false})
      if (Unroll || Versions[I].Shape.LoopTile > 0) {
        Tries.push_back(Versions[I]);
        Tries.back().Shape.UnrollTile = Unroll;
      }
  std::vector<std::string> Rejected;
  for (const RankedVersion &V : Tries) {
    std::string Why;
    auto Fit = ptxasFit(Origin, V.Shape, MD, Helpers, Why);
    if (!Fit && Why.empty())
      continue;
    if (!Fit) {
      Note = "resources estimated from KIR (ptxas could not compile the "
             "kernel alone: " +
             Why.substr(0, 200) + ")";
      return Versions.front();
    }
    if (Fit->legal()) {
      Used = Fit->Res;
      Note = "legal by " + Fit->Res.Source;
      if (!V.Shape.UnrollTile)
        Note += " with its tile loop as nvcc unrolls it";
      if (!Rejected.empty())
        Note += "; rejected " + llvm::join(Rejected, ", ");
      return V;
    }
    Rejected.push_back(
        llvm::formatv("{0}x{1} merge{5} ({2} registers, {3} "
                      "spilled bytes, {4} blocks/SM)",
                      V.Shape.Merge[0], V.Shape.Merge[1], Fit->Res.Registers,
                      Fit->spilled(), Fit->Blocks,
                      V.Shape.LoopTile == 0 ? ""
                      : V.Shape.UnrollTile  ? " with its tile loop unrolled"
                                           : " with its tile loop not unrolled")
            .str());
  }
  Note = "ptxas rejected the model's first choices (" +
         llvm::join(Rejected, ", ") + "); unmerged";
  for (const RankedVersion &V : Versions)
    if (V.Shape.Merge == std::array<std::int64_t, 2>{1, 1})
      return V;
  return Versions.back();
}

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
                  std::string &Note) {
  if (S.LoopTile == 0 || noPtxas(MD))
    return true;
  std::string Why;
  S.UnrollTile = true;
  auto Unrolled = ptxasFit(Origin, S, MD, Helpers, Why);
  if (!Unrolled || Unrolled->legal())
    return true;
  S.UnrollTile = false;
  auto Rolled = ptxasFit(Origin, S, MD, Helpers, Why);
  if (!Rolled || Rolled->spilled() > Unrolled->spilled() ||
      Rolled->Blocks < Unrolled->Blocks ||
      (Rolled->spilled() == Unrolled->spilled() &&
       Rolled->Blocks == Unrolled->Blocks))
    return true;
  Note = llvm::formatv("its tile loop as nvcc unrolls it (unrolled: {0} "
                       "registers, {1} spilled bytes, {2} blocks/SM)",
                       Unrolled->Res.Registers, Unrolled->spilled(),
                       Unrolled->Blocks)
             .str();
  return false;
}

/// Does an earlier pass fix the block shape (a write tile sized for
/// coalescing)? Forced factors override it.
bool shapeFixed(const Function &F, const PassContext &Ctx, std::string &Why) {
  if (!F.Plan || F.Plan->ShapeFixedBy.empty() || Ctx.Merge.any())
    return false;
  Why = F.Plan->ShapeFixedBy;
  return true;
}

/// The first few ranked versions, for the report (the seam of a timed
/// search: these are the versions it would run).
std::string topVersions(const std::vector<RankedVersion> &Vs) {
  std::vector<std::string> Items;
  for (size_t I = 0; I < Vs.size() && I < 5; ++I)
    Items.push_back(llvm::formatv("block {0}x{1} merge {2}x{3}: cost {4:f4}, "
                                  "{5} regs, {6} B shared, {7} blocks/SM",
                                  Vs[I].Shape.Block[0], Vs[I].Shape.Block[1],
                                  Vs[I].Shape.Merge[0], Vs[I].Shape.Merge[1],
                                  Vs[I].Cost, Vs[I].Registers,
                                  Vs[I].SharedBytes, Vs[I].Occ.BlocksPerSM)
                        .str());
  return llvm::join(Items, "; ");
}

} // namespace

PassInfo blockMergePass() {
  return {"block-merge",
          "neighbouring blocks merged so shared tiles serve more threads "
          "(§3.5, G2S)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            if (shapeFixed(F, Ctx, Why))
              return std::nullopt;
            TileShape Cur = currentShape(F, Ctx);
            const Function &Origin = tilingOrigin(F);
            std::string Chosen = "--merge", Ranked, Bound;
            TileShape S = Cur;
            if (Ctx.Merge.BlockX || Ctx.Merge.BlockY) {
              S.Block = {Cur.Block[0] * Ctx.Merge.BlockX.value_or(1),
                         Cur.Block[1] * Ctx.Merge.BlockY.value_or(1)};
            } else {
              if (Cur.LoopTile == 0) {
                Why = "no data is shared between neighbouring blocks "
                      "(nothing is read through shared memory)";
                return std::nullopt;
              }
              auto Versions = rankVersions(Origin, Cur.LoopTile, Ctx.Target,
                                           std::nullopt, Cur.Interchange);
              if (Versions.empty()) {
                Why = "no legal merged version";
                return std::nullopt;
              }
              if (Ctx.Searched)
                *Ctx.Searched = {Cur.Block, Versions};
              // On a stand-in architecture (PtxasStandIn) the block of the
              // best version ptxas finds legal: the estimate from KIR takes
              // blocks whose capped registers leave room for one block a SM
              // (gemm's 32x16 on a GTX 480: 59 registers by ptxas, 19
              // estimated), and thread merge then finds nothing legal.
              RankedVersion Best = Versions.front();
              std::string Note;
              if (countsOnStandIn(Ctx.Target)) {
                std::optional<KernelResources> Used;
                Best = checkWithPtxas(Origin, Versions, Ctx.Target, Ctx.Helpers,
                                      Note, Used,
                                      /*MaxVersions=*/6);
              }
              Ranked = topVersions(Versions);
              S.Block = Best.Shape.Block;
              Chosen = llvm::formatv("static model (cost {0:f4}, best of {1})",
                                     Best.Cost, Versions.size());
              if (Best.Shape.Block != Versions.front().Shape.Block)
                Chosen += "; " + Note;
              Bound = versionBound(Best, Ctx.Target);
            }
            if (S.Block == Cur.Block) {
              Why = "the model keeps the block as it is";
              return std::nullopt;
            }
            // A block half as wide (Search.cpp: thread merge widens the
            // tile again) is a factor of 1/2 in X.
            std::int64_t Fx = S.Block[0] / Cur.Block[0],
                         Fy = S.Block[1] / Cur.Block[1];
            std::string Factor =
                S.Block[0] < Cur.Block[0]
                    ? llvm::formatv("1/{0}x{1}", Cur.Block[0] / S.Block[0], Fy)
                          .str()
                    : "";
            S.Merge = {1, 1};
            auto R = apply(F, Ctx, S, "block-merge",
                           std::max<std::int64_t>(Fx, 1), Fy, Chosen, Factor);
            if (R && *R && !Ranked.empty())
              (**R).Parameters["ranked"] = Ranked;
            if (R && *R && !Bound.empty())
              (**R).Parameters["bound"] = Bound;
            return R;
          }};
}

PassInfo threadMergePass() {
  return {
      "thread-merge",
      "neighbouring threads merged so one thread keeps shared data in "
      "registers (§3.5, G2R, Fig. 10)",
      [](Function &F, const PassContext &Ctx,
         std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
        if (shapeFixed(F, Ctx, Why))
          return std::nullopt;
        TileShape S = currentShape(F, Ctx);
        std::string Chosen = "--merge", Bound;
        std::optional<KernelResources> Used;
        if (Ctx.Merge.ThreadX || Ctx.Merge.ThreadY) {
          S.Merge = {Ctx.Merge.ThreadX.value_or(1),
                     Ctx.Merge.ThreadY.value_or(1)};
          std::string Note;
          S.UnrollTile =
              forcedUnroll(tilingOrigin(F), S, Ctx.Target, Ctx.Helpers, Note);
          if (!Note.empty())
            Chosen += "; " + Note;
        } else {
          auto Versions = rankVersions(tilingOrigin(F), S.LoopTile, Ctx.Target,
                                       S.Block, S.Interchange,
                                       Ctx.Variant == MemoryVariant::Texture);
          if (Versions.empty()) {
            Why = "no legal merged version for this block";
            return std::nullopt;
          }
          // Block merge's space holds this one, and more.
          if (Ctx.Searched && Ctx.Searched->Versions.empty())
            *Ctx.Searched = {S.Block, Versions};
          if (Versions.front().Shape.Merge ==
              std::array<std::int64_t, 2>{1, 1}) {
            Why = "merged threads would share no data, or leave SMs "
                  "without a block at the size hints (the model finds no "
                  "gain)";
            return std::nullopt;
          }
          std::string Note;
          RankedVersion Best = checkWithPtxas(
              tilingOrigin(F), Versions, Ctx.Target, Ctx.Helpers, Note, Used);
          S.Merge = Best.Shape.Merge;
          S.UnrollTile = Best.Shape.UnrollTile;
          Chosen = llvm::formatv("static model (cost {0:f4}, best of {1}); "
                                 "{2}",
                                 Best.Cost, Versions.size(), Note);
          Bound = versionBound(Best, Ctx.Target);
          if (S.Merge == std::array<std::int64_t, 2>{1, 1}) {
            Why = Note;
            return std::nullopt;
          }
        }
        if (S.Merge == std::array<std::int64_t, 2>{1, 1}) {
          Why = "merged threads would share no data (the model finds no "
                "gain)";
          return std::nullopt;
        }
        // Texture variant: no staging, so the copies share control flow
        // (and their common reads) only without per-copy guards. The
        // global variant keeps them, with a branch for whole groups.
        S.WholeTiles = Ctx.Variant == MemoryVariant::Texture;
        auto R =
            apply(F, Ctx, S, "thread-merge", S.Merge[0], S.Merge[1], Chosen);
        if (R && *R && Used) {
          F.Plan->PtxasSource = Used->Source;
          F.Plan->PtxasRegisters = Used->Registers;
          F.Plan->PtxasSpillBytes =
              Used->SpillStoreBytes + Used->SpillLoadBytes;
        }
        if (R && *R && !Bound.empty())
          (**R).Parameters["bound"] = Bound;
        if (R && *R && Ctx.Variant == MemoryVariant::Global)
          (**R).Parameters.merge(shareCopiesReads(F, S.Merge));
        return R;
      }};
}

} // namespace gpumerge
