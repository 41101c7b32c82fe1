//===- MergeCommon.cpp - What block-merge and thread-merge share ----------===//
//
// See MergeCommon.h.
//
//===----------------------------------------------------------------------===//
#include "Transforms/MergeCommon.h"
#include "Analysis/Accesses.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "CodeGen/Emitter.h"
#include "Target/Ptxas.h"
#include "Transforms/TextureBlockShape.h"
#include "Transforms/WholeGroups.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

TileShape currentShape(const Function &F, const PassContext &Ctx) {
  if (F.Plan && F.Plan->Origin)
    return {F.Plan->Block, F.Plan->Coverage, F.Plan->LoopTile,
            F.Plan->Interchanged};
  if (Ctx.paperTexture()) {
    TextureBlock TB = textureBlockShape(F, Ctx.Target);
    return {TB.Block, {1, 1}, 0, TB.Interchange};
  }
  // The naive launch of naiveLaunch (Analysis/LaunchConditions.h): 16x16, or
  // 256 in 1-D.
  if (findDomain(F).Dims == 2)
    return {{16, 16}, {1, 1}, 0};
  return {{256, 1}, {1, 1}, 0};
}

namespace {

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

} // namespace

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

namespace {

std::string direction(std::int64_t X, std::int64_t Y) {
  if (X > 1 && Y > 1)
    return "X and Y";
  return X > 1 ? "X" : Y > 1 ? "Y" : "none";
}

} // namespace

llvm::Expected<std::optional<AppliedPass>>
applyMerge(Function &F, const PassContext &Ctx, const TileShape &S,
           const std::string &Name, std::int64_t Fx, std::int64_t Fy,
           const std::string &Chosen, const std::string &Factor) {
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

namespace {

/// The architecture ptxas compiles \p MD's kernels for: its own, or the
/// first stand-in its description names that this nvcc compiles for, for a
/// target nvcc no longer compiles for (ptxasFit checks the count against
/// the target's per-thread limit). The estimate from KIR it replaces had
/// PolyBench's gemm at 52 registers on a GTX 480 where ptxas for sm_35 used
/// 72, over Fermi's 63.
std::string ptxasArch(const MachineDescription &MD) {
  return MD.SmArch.empty() ? firstCompiledArch(MD.PtxasStandIn) : MD.SmArch;
}

} // namespace

bool countsOnStandIn(const MachineDescription &MD) {
  return ptxasArch(MD) != MD.SmArch;
}

namespace {

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
  std::string Source = emitStandaloneCuda(*K->Kernel, Helpers);
  // On a stand-in, the count as its ptxas allocates freely where that is
  // within the target's limit, else capped at the limit, so what does not
  // fit spills. A cap changes the allocation, not only the ceiling: sm_35
  // gives gemm's 32 x 4 block merged 1x2 61 registers at -maxrregcount=63
  // and 47 without, which GPGPU-Sim's GTX 480 counts (5 blocks an SM, not 4).
  auto R = ptxasResources(Source, ptxasArch(MD));
  bool Capped = StandIn && R && R->count(Origin.Name) &&
                R->at(Origin.Name).Registers > MD.MaxRegistersPerThread;
  if (Capped)
    R = ptxasResources(Source, ptxasArch(MD), MD.MaxRegistersPerThread);
  if (!R || !R->count(Origin.Name)) {
    Why = R ? "not reported" : llvm::toString(R.takeError());
    return std::nullopt;
  }
  KernelResources Res = R->at(Origin.Name);
  if (StandIn)
    Res.Source += llvm::formatv(" {0} {1}'s {2} registers a thread",
                                Capped ? "with" : "within", MD.Name,
                                MD.MaxRegistersPerThread)
                      .str();
  BlockResources B{unsigned(S.Block[0] * S.Block[1]), Res.Registers,
                   Res.SharedBytes};
  return PtxasFit{Res, computeOccupancy(MD, B).BlocksPerSM};
}

/// What the report says where ptxas cannot compile the kernel alone (\p
/// Why) and the resources come from the KIR estimate.
std::string kirEstimateNote(const std::string &Why) {
  return "resources estimated from KIR (ptxas could not compile the kernel "
         "alone: " +
         Why.substr(0, 200) + ")";
}

/// "1x2 merge with its tile loop unrolled (61 registers, 0 spilled bytes, 4
/// blocks/SM)", for the report's list of rejected versions.
std::string describeFit(const RankedVersion &V, const PtxasFit &Fit) {
  return llvm::formatv("{0}x{1} merge{5} ({2} registers, {3} "
                       "spilled bytes, {4} blocks/SM)",
                       V.Shape.Merge[0], V.Shape.Merge[1], Fit.Res.Registers,
                       Fit.spilled(), Fit.Blocks,
                       V.Shape.LoopTile == 0 ? ""
                       : V.Shape.UnrollTile
                           ? " with its tile loop unrolled"
                           : " with its tile loop not unrolled")
      .str();
}

/// Most ptxas compiles for one small problem's search: about half a
/// second each.
constexpr size_t MaxChainTries = 48;

/// On a small problem (Search.h), the legal version with the shortest
/// latency chain at ptxas's registers. Versions come ranked by their chain
/// at the estimated registers, which ptxas's are seldom under (gemm's
/// tiles: 24 estimated, 47 by ptxas for sm_35), so the search stops at the
/// first version whose estimate is no shorter than the best found. The
/// rounds hang on the count: 32 x 8 threads merged 1x1 are one round at the
/// estimate's 6 blocks an SM and three at the 2 that ptxas's 48 registers
/// leave.
RankedVersion shortestChainByPtxas(const Function &Origin,
                                   const std::vector<RankedVersion> &Versions,
                                   const MachineDescription &MD,
                                   const std::vector<const Function *> &Helpers,
                                   std::string &Note,
                                   std::optional<KernelResources> &Used) {
  std::optional<RankedVersion> Best;
  size_t Tried = 0, Compiles = 0;
  std::vector<std::string> Rejected;
  for (const RankedVersion &Ranked : Versions) {
    if (Best && Ranked.Chain >= Best->Chain * 0.99)
      break;
    if (Compiles >= MaxChainTries)
      break;
    ++Tried;
    for (bool Unroll : {true, false}) {
      if (!Unroll && Ranked.Shape.LoopTile == 0)
        break;
      RankedVersion V = Ranked;
      V.Shape.UnrollTile = Unroll;
      std::string Why;
      ++Compiles;
      auto Fit = ptxasFit(Origin, V.Shape, MD, Helpers, Why);
      if (!Fit && Why.empty())
        break;
      if (!Fit) {
        Note = kirEstimateNote(Why);
        return Versions.front();
      }
      if (!Fit->legal()) {
        if (Rejected.size() < 4)
          Rejected.push_back(describeFit(V, *Fit));
        continue;
      }
      V.Occ.BlocksPerSM = Fit->Blocks;
      V.Chain = latencyChain(V, Fit->Blocks, MD);
      if (!Best || V.Chain < Best->Chain * 0.99) {
        Best = V;
        Used = Fit->Res;
      }
      break;
    }
  }
  if (!Best) {
    Note = "ptxas rejected the model's first choices (" +
           llvm::join(Rejected, ", ") + "); unmerged";
    for (const RankedVersion &V : Versions)
      if (V.Shape.Merge == std::array<std::int64_t, 2>{1, 1})
        return V;
    return Versions.back();
  }
  Note = llvm::formatv("legal by {0}{1}; the shortest latency chain at its "
                       "registers ({2} blocks/SM) of the first {3} versions",
                       Used->Source,
                       Best->Shape.UnrollTile
                           ? ""
                           : " with its tile loop as nvcc unrolls it",
                       Best->Occ.BlocksPerSM, Tried)
             .str();
  return *Best;
}

} // namespace

bool ptxasCounts(const MachineDescription &MD) { return !noPtxas(MD); }

RankedVersion checkWithPtxas(const Function &Origin,
                             const std::vector<RankedVersion> &Versions,
                             const MachineDescription &MD,
                             const std::vector<const Function *> &Helpers,
                             std::string &Note,
                             std::optional<KernelResources> &Used,
                             size_t MaxVersions) {
  if (auto Why = noPtxas(MD)) {
    Note = "resources estimated from KIR (" + *Why + ")";
    return Versions.front();
  }
  if (Versions.front().Chain > 0)
    return shortestChainByPtxas(Origin, Versions, MD, Helpers, Note, Used);
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
      Note = kirEstimateNote(Why);
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

bool shapeFixed(const Function &F, const PassContext &Ctx, std::string &Why) {
  if (!F.Plan || F.Plan->ShapeFixedBy.empty() || Ctx.Merge.any())
    return false;
  Why = F.Plan->ShapeFixedBy;
  return true;
}

} // namespace gpumerge
