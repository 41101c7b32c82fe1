//===- FileJobReport.cpp - The report of one kernel -----------------------===//
#include "Analysis/BlockBounds.h"
#include "Driver/Carving.h"
#include "Driver/FileJob.h"
#include "Driver/Tune.h"
#include "IR/Printer.h"
#include "Pipeline/Pipeline.h"
#include "Runtime/TuneCache.h"
#include "Target/Occupancy.h"
#include "Target/Ptxas.h"
#include "Transforms/PassRegistry.h"
#include "Transforms/SplitPhases.h"
#include "Transforms/Tiling.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace gpumerge {

std::string FileJob::extentText(const KernelDomain &D, unsigned Dim) const {
  if (Opts.Grid)
    return std::to_string((*Opts.Grid)[Dim]);
  if (D.Bounds[Dim].empty())
    return "<from the launch>";
  const DomainBound &B = D.Bounds[Dim].front();
  std::string Text = printExprDebug(*B.Bound);
  if (B.Offset)
    Text +=
        llvm::formatv(" {0} {1}", B.Offset < 0 ? "-" : "+", std::abs(B.Offset));
  return Text;
}

llvm::json::Object FileJob::launchReport(const Function &K,
                                         LaunchShape &Shape) {
  KernelDomain D = findDomain(tilingOrigin(K));
  Shape =
      naiveLaunch(D.Dims, K.FixedBlock, sharedArrayBlockBound(tilingOrigin(K)));
  const LaunchPlan *P = K.Plan && !K.Plan->SameLaunch ? &*K.Plan : nullptr;
  if (P) {
    Shape.Block = P->Block;
    Shape.Coverage = P->Coverage;
  }
  // In the kernel's dimension order (the plan's, after an interchange).
  auto Extent = [&](unsigned Dim) {
    return P && P->Extent[Dim] ? printExprDebug(*P->Extent[Dim])
                               : extentText(D, Dim);
  };
  llvm::json::Array Block, Grid;
  for (unsigned Dim = 0; Dim < D.Dims; ++Dim) {
    Block.push_back(P ? P->threads(Dim) : Shape.Block[Dim]);
    std::int64_t Tile = Shape.Block[Dim] * Shape.Coverage[Dim];
    Grid.push_back(
        P && !P->GuardsDomain
            ? llvm::formatv("({0}) / {1}", Extent(Dim), Tile).str()
            : llvm::formatv("ceil(({0}) / {1})", Extent(Dim), Tile).str());
  }
  llvm::json::Object L{{"block", std::move(Block)}, {"grid", std::move(Grid)}};
  // The input's grid-stride loop, read as a guard (GridStride.h).
  if (P && K.GridStrideLine)
    L["grid_stride_loop"] =
        llvm::formatv("line {0}, read as one thread per element: the "
                      "optimized kernel runs on a grid of its own, over "
                      "the loop's bound",
                      K.GridStrideLine)
            .str();
  // A 3-D grid: the optimized launch runs its layers one per block in Z.
  if (P && P->Layered && P->LayerExtent)
    L["layers"] = printExprDebug(*P->LayerExtent);
  // split-reduction: Lanes threads per output, each a share of its loop.
  if (P && P->Lanes > 1)
    L["threads_per_output"] = P->Lanes;
  if (!K.Plan)
    return L;
  llvm::json::Array Coverage, Pre;
  for (unsigned Dim = 0; Dim < D.Dims; ++Dim)
    Coverage.push_back(Shape.Coverage[Dim]);
  L["outputs_per_thread"] = std::move(Coverage);
  if (P && P->hasEdges()) {
    for (unsigned Dim = 0; Dim < D.Dims; ++Dim)
      Pre.push_back(llvm::formatv("({0}) >= {1} (the domain holds a whole "
                                  "tile)",
                                  Extent(Dim), P->tile(Dim))
                        .str());
    L["edge_kernel"] = edgeName(K.Name);
  }
  for (const Precondition &C : K.Plan->Preconditions)
    Pre.push_back(printExprDebug(*C.Cond) + " (" + C.Why + ")");
  for (const auto &[A, B] : K.Plan->Disjoint)
    Pre.push_back(A + " and " + B + " do not overlap");
  for (const auto &[A, Bytes] : K.Plan->AlignedBytes)
    Pre.push_back(
        llvm::formatv("{0} is {1}-byte aligned (vector accesses)", A, Bytes)
            .str());
  L["preconditions"] = std::move(Pre);
  L["fallback"] = fallbackName(K.Name);
  if (K.Plan->Interchanged)
    L["interchanged"] = "the kernel's X walks the naive Y positions";
  if (P) {
    bool Ptxas = !P->PtxasSource.empty();
    unsigned Regs = Ptxas ? P->PtxasRegisters : P->EstimatedRegisters;
    BlockResources Res{unsigned(P->Block[0] * P->Block[1]), Regs,
                       unsigned(P->SharedBytes)};
    Occupancy Occ = computeOccupancy(MD, Res);
    L["resources"] = llvm::json::Object{
        {"registers", Regs},
        {"registers_source", Ptxas ? P->PtxasSource : "estimate from KIR"},
        {"spilled_bytes", P->PtxasSpillBytes},
        {"shared_bytes", P->SharedBytes},
        {"blocks_per_sm", Occ.BlocksPerSM},
        {"limited_by", occupancyLimitName(Occ.Limit)}};
  }
  return L;
}

llvm::json::Object FileJob::splitReport(const PhasedKernel &PK,
                                        const std::vector<MemoryVariant> &Vs) {
  llvm::json::Array Phases, Lines, Recomputed;
  for (const std::string &P : PK.Phases)
    Phases.push_back(P);
  for (unsigned L : PK.BarrierLines)
    Lines.push_back(L);
  for (const std::string &N : PK.Recomputed)
    Recomputed.push_back(N);
  std::string Barrier =
      PK.PaperDialect ? "__syncthreads() (the original compiler's dialect)"
                      : "gpumerge_global_sync()";
  llvm::json::Object Split{
      {"phases", std::move(Phases)},
      {"barrier_lines", std::move(Lines)},
      {"recomputed_locals", std::move(Recomputed)},
      {"reason",
       llvm::formatv("global barrier {0}: no launch can wait for the whole "
                     "grid, so the kernel runs as {1} kernels launched in "
                     "order over the same grid",
                     Barrier, PK.Phases.size())
           .str()}};
  if (outputLang() == Language::Cuda)
    Split["launcher"] = launcherName(PK.Name);
  llvm::json::Array Variants;
  auto &SVs = SplitResults[PK.Name];
  for (size_t I = 0; I < Vs.size(); ++I) {
    llvm::json::Object O{{"memory", memoryVariantName(Vs[I])},
                         {"status", "split"},
                         {"passes", llvm::json::Array{}}};
    if (I < SVs.size())
      reportVerify(O, PK.Name, Vs[I], SVs[I].Verified, SVs[I].VerifiedOptimized,
                   SVs[I].FallbackOnly);
    Variants.push_back(std::move(O));
  }
  return llvm::json::Object{{"name", PK.Name},
                            {"line", PK.Span.Line},
                            {"split", std::move(Split)},
                            {"variants", std::move(Variants)}};
}

llvm::json::Object FileJob::variantReport(const std::string &Kernel,
                                          VariantResult &R) {
  llvm::json::Array Passes;
  for (const AppliedPass &P : R.Passes) {
    llvm::json::Object Params;
    for (auto &[K, V] : P.Parameters)
      Params[K] = V;
    Passes.push_back(llvm::json::Object{{"name", P.Name},
                                        {"parameters", std::move(Params)}});
  }
  llvm::json::Object O{{"memory", memoryVariantName(R.Variant)},
                       {"status", R.Status},
                       {"passes", std::move(Passes)},
                       {"launch", std::move(R.Launch)}};
  llvm::json::Array Skipped;
  for (const auto &[Name, Why] : R.Skipped)
    Skipped.push_back(llvm::json::Object{{"name", Name}, {"reason", Why}});
  O["not_applied"] = std::move(Skipped);
  if (!R.Reason.empty())
    O["reason"] = R.Reason;
  if (R.Tune)
    O["tune"] = std::move(*R.Tune);
  if (!Opts.JsonReport)
    for (const std::string &Line : R.TuneLines)
      Out << Line << "\n";
  reportVerify(O, Kernel, R.Variant, R.Verified, R.VerifiedOptimized,
               R.FallbackOnly);
  return O;
}

void FileJob::passedThroughReport(const std::vector<MemoryVariant> &Vs,
                                  llvm::json::Array &Kernels,
                                  llvm::json::Array &Helpers) const {
  for (const Unsupported &U : M->PassedThrough) {
    std::string Reason = llvm::formatv("{0} at line {1}", U.Construct, U.Line);
    if (!U.IsKernel) {
      Helpers.push_back(llvm::json::Object{{"name", U.Kernel},
                                           {"line", U.Line},
                                           {"status", "passed-through"},
                                           {"reason", Reason}});
      continue;
    }
    llvm::json::Array Variants;
    for (MemoryVariant V : Vs)
      Variants.push_back(llvm::json::Object{{"memory", memoryVariantName(V)},
                                            {"status", "passed-through"},
                                            {"reason", Reason},
                                            {"passes", llvm::json::Array{}}});
    Kernels.push_back(llvm::json::Object{{"name", U.Kernel},
                                         {"line", U.Line},
                                         {"variants", std::move(Variants)}});
  }
}

} // namespace gpumerge
