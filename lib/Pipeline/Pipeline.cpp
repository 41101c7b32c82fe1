//===- Pipeline.cpp - One kernel through a list of passes -----------------===//
#include "Pipeline/Pipeline.h"

#include "Analysis/Reruns.h"
#include "IR/UnusedLocals.h"
#include "IR/Verifier.h"
#include "Transforms/GridStride.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>

namespace gpumerge {

llvm::Expected<std::vector<std::string>>
pipelinePasses(const std::optional<std::string> &Spec,
               llvm::ArrayRef<std::string> Disabled, MemoryVariant V,
               const MachineDescription &MD) {
  if (Spec)
    return parsePipeline(*Spec);
  std::vector<std::string> Names = defaultPipeline(V, MD);
  llvm::erase_if(Names, [&](const std::string &N) {
    return llvm::is_contained(Disabled, N);
  });
  return Names;
}

namespace {

/// One pass run on a copy of the kernel.
struct PassOutcome {
  /// The copy, as the pass left it.
  std::unique_ptr<Function> Work;
  /// What the pass applied; nullopt when it did not apply (Why says why).
  std::optional<AppliedPass> Applied;
  std::string Why;
  /// Why the pass is dropped, a gpumerge bug (it crashed, failed or left
  /// malformed KIR); empty when it was not.
  std::string Bug;
};

/// Runs pass \p Name on a copy of \p K under crash recovery, with the
/// --debug-fail hooks of \p Req. The error returned is one the user must
/// fix (a forced merge the target cannot run); a bug of the pass is
/// PassOutcome::Bug.
llvm::Expected<PassOutcome> runContained(const std::string &Name,
                                         const PassInfo &Pass,
                                         const Function &K,
                                         const PipelineRequest &Req) {
  PassOutcome O;
  O.Work = K.clone();
  std::optional<llvm::Expected<std::optional<AppliedPass>>> Applied;
  llvm::CrashRecoveryContext CRC;
  bool Survived = CRC.RunSafely([&] {
    if (Req.DebugFail == "pass-crash=" + Name)
      std::abort();
    Applied.emplace(Pass.Run(*O.Work, Req.Ctx, O.Why));
    if (Req.DebugFail == "pass-error=" + Name) {
      llvm::consumeError(Applied->takeError());
      Applied.emplace(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                              "failure asked by --debug-fail"));
    }
    if (Req.DebugFail == "pass-malformed=" + Name)
      O.Work->Body->Body.push_back(
          std::make_unique<ExprStmt>(var("gpumerge_debug_undeclared")));
  });
  if (!Survived) {
    Applied.reset(); // half-built: not read
    O.Bug = "it crashed";
  } else if (!*Applied) {
    llvm::Error E = Applied->takeError();
    // A forced --merge the target cannot run is the user's to fix.
    if (Req.Ctx.Merge.any() &&
        (Name == "block-merge" || Name == "thread-merge"))
      return E;
    O.Bug = llvm::toString(std::move(E));
  } else if (auto E = verifyFunction(*O.Work)) {
    O.Bug = "it produced malformed KIR: " + llvm::toString(std::move(E));
  } else {
    O.Applied = std::move(**Applied);
  }
  return O;
}

/// Status and Reason of \p R once the passes ran: the paper's texture
/// variant whose arrays cannot be read through textures is not one, and a
/// kernel no pass changed says why.
void settleStatus(const PipelineRequest &Req, PipelineResult &R) {
  MemoryVariant V = Req.Ctx.Variant;
  // The paper's texture variant whose arrays cannot be read through
  // textures is not one: the kernel is written as it came in, with why.
  // One that follows the global variant stays it, and its report says
  // why no array is read through textures (not_applied).
  auto Skip =
      std::find_if(R.Skipped.begin(), R.Skipped.end(),
                   [](const auto &S) { return S.first == "texture-memory"; });
  if (Req.Ctx.paperTexture() && !R.Passes.empty() && Skip != R.Skipped.end()) {
    R.Kernel = Req.Naive.clone();
    R.Passes.clear();
    R.Reason = "texture-memory: " + Skip->second +
               "; the texture variant is written unchanged";
  } else if (!R.Passes.empty()) {
    R.Status = "optimized";
    // What the passes left declared and unused (a merged copy's position
    // that vectors replaced) would be nvcc warnings.
    removeUnusedLocals(*R.Kernel);
  } else if (Req.Ctx.PipelineGiven && Req.Passes.empty()) {
    R.Reason = "no passes requested (--passes=none): the kernel went "
               "through KIR unchanged";
  } else if (Req.Passes.empty()) {
    R.Reason = std::string("the ") + memoryVariantName(V) +
               " pipeline has no optimization pass implemented yet; the "
               "kernel is written back unchanged";
  } else {
    std::vector<std::string> Skipped;
    for (const auto &[Name, Why] : R.Skipped)
      Skipped.push_back(Name + ": " + Why);
    R.Reason = "no pass applied (" + llvm::join(Skipped, "; ") + ")";
  }
}

/// The launch of an optimized \p R: a plan where its thread positions
/// assume a block size, the input's grid-stride loop again or a grid of
/// its own, and the copies of its threads it can run with.
void settleLaunch(const PipelineRequest &Req, PipelineResult &R) {
  const Function &Naive = Req.Naive;
  const Function &Start = Req.Start ? *Req.Start : Naive;
  // A changed kernel whose thread positions assume a block size runs
  // only through the launcher, which checks that size.
  if (!R.Passes.empty() && !R.Kernel->Plan &&
      (R.Kernel->FixedBlock[0] || R.Kernel->FixedBlock[1]))
    sameLaunchPlan(*R.Kernel);
  // A grid-stride loop read as a guard: unchanged, the kernel is the
  // input's loop again; changed, it runs over the loop's bound on a grid
  // of its own, never on the user's (which need not cover the domain).
  if (&Start != &Naive) {
    if (R.Passes.empty())
      R.Kernel = Naive.clone();
    else if (launchOverGuard(*R.Kernel, Start))
      // The reading is part of what made the kernel (InputRewrites.h).
      R.Passes.insert(R.Passes.begin(),
                      {"grid-stride",
                       {{"loop_line", std::to_string(Start.GridStrideLine)}}});
    else {
      R.Kernel = Naive.clone();
      R.Passes.clear();
      R.Status = "passed-through";
      R.Reason = llvm::formatv("the optimized kernel's launch does not say "
                               "the domain of the grid-stride loop at line "
                               "{0}, so it could not run apart from the "
                               "input's grid; the kernel is written "
                               "unchanged",
                               Start.GridStrideLine);
    }
  }
  // A 1-D kernel launched with rows of copies of each thread (PolyBench's
  // 32 x 8 blocks) runs optimized where the copies leave what one leaves.
  if (R.Kernel->Plan && !R.Passes.empty())
    allowHarmlessCopies(*R.Kernel->Plan, Naive);
}

} // namespace

llvm::Expected<PipelineResult> runPipeline(const PipelineRequest &Req) {
  const Function &Naive = Req.Naive;
  MemoryVariant V = Req.Ctx.Variant;
  PipelineResult R;
  R.Variant = V;
  R.Kernel = (Req.Start ? *Req.Start : Naive).clone();
  R.Skipped = Req.SkippedBefore;
  R.InternalError = Req.InternalErrorBefore;
  auto WriteStep = [&](unsigned Step, const std::string &Name) {
    return Req.WriteStep ? Req.WriteStep(*R.Kernel, Step, Name)
                         : llvm::Error::success();
  };
  if (auto E = WriteStep(0, "input"))
    return E;
  unsigned Step = 1;
  for (const std::string &Name : Req.Passes) {
    const PassInfo &Pass = Req.Registry->at(Name);
    // A helper that reads threadIdx or blockIdx sees other values once a
    // pass changes the launch (block shape, merged threads, block order):
    // only the passes that keep every thread's built-ins run.
    if (!Naive.PositionHelper.empty() && !Pass.KeepsThreadBuiltins) {
      R.Skipped.push_back(
          {Name, "the helper '" + Naive.PositionHelper +
                     "' reads thread or block built-ins (threadIdx, "
                     "blockIdx, ...), whose values this pass would change"});
      if (auto E = WriteStep(Step++, Name))
        return E;
      continue;
    }
    // The pass works on a copy: when it fails, crashes or leaves malformed
    // KIR (a gpumerge bug), it is dropped for this kernel and the pipeline
    // goes on from the kernel as it was before it.
    auto O = runContained(Name, Pass, *R.Kernel, Req);
    if (!O)
      return O.takeError();
    if (!O->Bug.empty()) {
      R.InternalError = true;
      R.Skipped.push_back({Name, "internal error (a gpumerge bug; the pass "
                                 "was skipped): " +
                                     O->Bug});
      Req.Diagnostics << llvm::formatv(
          "{0}:{1}: warning: pass '{2}' failed on kernel '{3}' ({4} "
          "variant), a gpumerge bug: {5}; the pass is skipped for this "
          "kernel\n",
          Req.File, Naive.Span.Line, Name, Naive.Name, memoryVariantName(V),
          O->Bug);
      continue;
    }
    // A pass that did not apply leaves the kernel as it was, whatever it
    // tried on its copy (vectorize normalised `if (c) s;` to a block, and
    // a kernel no pass changed was then re-printed).
    if (O->Applied) {
      R.Kernel = std::move(O->Work);
      R.Passes.push_back(std::move(*O->Applied));
    } else {
      R.Skipped.push_back({Name, O->Why});
    }
    if (auto E = WriteStep(Step++, Name))
      return E;
  }
  settleStatus(Req, R);
  settleLaunch(Req, R);
  return R;
}

} // namespace gpumerge
