//===- Pipeline.h - One kernel through a list of passes ---------*- C++ -*-===//
//
// The per-kernel pipeline: one kernel, in one memory variant, through a list
// of registered passes (PassRegistry.h), and what that made of it, settled
// the way the output writes it.
//
// Each pass runs on a copy of the kernel under crash recovery. A pass that
// returns an error, crashes or leaves malformed KIR (a gpumerge bug) is
// dropped for this kernel with an "internal error" note and a warning, and
// the pipeline goes on from the kernel as it was before it: one bad pass
// costs that pass on that kernel, not the kernel, the file or the run. A
// pass that does not apply leaves the kernel as it was, whatever it tried
// on its copy, and says why.
//
// The driver (Driver.cpp) turns options into a PipelineRequest, calls
// runPipeline, and then checks what depends on the whole file: whether
// the optimized kernel's launch conditions can ever hold, and whether the
// module's launches can go through its launcher.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_PIPELINE_PIPELINE_H
#define GPUMERGE_PIPELINE_PIPELINE_H

#include "IR/Kernel.h"
#include "Transforms/PassRegistry.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpumerge {

/// A pass of the pipeline that did not apply (or was dropped), and why:
/// the report's "not_applied".
using SkippedPass = std::pair<std::string, std::string>;

/// The passes variant \p V runs on \p MD: \p Spec (--passes=a,b; "none" is
/// no pass) when given, else the variant's default pipeline (Fig. 1) less
/// \p Disabled (--disable-passes). Errors name an unknown pass.
llvm::Expected<std::vector<std::string>>
pipelinePasses(const std::optional<std::string> &Spec,
               llvm::ArrayRef<std::string> Disabled, MemoryVariant V,
               const MachineDescription &MD);

/// Writes the kernel \p K as it stands after step \p Step named \p Pass
/// (0 "input", then one per pass of the pipeline, applied or not):
/// --emit-steps. An error stops the pipeline.
using StepWriter = std::function<llvm::Error(const Function &K, unsigned Step,
                                             const std::string &Pass)>;

/// What runPipeline is asked: one kernel, its passes and their context,
/// and where its messages go.
struct PipelineRequest {
  PipelineRequest(const Function &Naive, PassContext Ctx,
                  llvm::raw_ostream &Diagnostics)
      : Naive(Naive), Ctx(std::move(Ctx)), Diagnostics(Diagnostics) {}

  /// The kernel as written: what the output keeps when no pass changed it.
  const Function &Naive;
  /// What the passes start from where it is not Naive: its grid-stride
  /// loop read as a bounds guard (GridStride.h). An optimized kernel then
  /// gets a launch of its own over the loop's bound; an unchanged one is
  /// Naive again.
  const Function *Start = nullptr;
  /// Names of registered passes, in order (pipelinePasses).
  std::vector<std::string> Passes;
  /// The target, the variant and the choices the user forced. Its
  /// PipelineGiven (--passes) also picks the reason an empty pipeline
  /// gives.
  PassContext Ctx;
  /// Notes from before the pipeline (why the grid-stride loop was not read
  /// as a guard), listed first among the result's Skipped; whether that
  /// reading hit a gpumerge bug.
  std::vector<SkippedPass> SkippedBefore;
  bool InternalErrorBefore = false;
  /// --debug-fail, for the tests of gpumerge's own failures:
  /// pass-crash=NAME (the pass aborts), pass-error=NAME (it returns an
  /// error), pass-malformed=NAME (it leaves malformed KIR). Others are
  /// ignored here.
  std::string DebugFail;
  /// The input file, as the warnings name it ("FILE:LINE: warning: ...").
  std::string File;
  /// Where the warning of a dropped pass goes: nothing else is printed.
  llvm::raw_ostream &Diagnostics;
  /// Called after each step; empty: no step is written.
  StepWriter WriteStep;
  /// The passes Passes names are looked up in (the tests give passes of
  /// their own); never null.
  const std::map<std::string, PassInfo> *Registry = &passRegistry();
};

/// What the pipeline made of one kernel in one variant.
struct PipelineResult {
  MemoryVariant Variant = MemoryVariant::Global;
  /// "optimized" when a pass changed the kernel and the output keeps it;
  /// "passed-through" otherwise, with why in Reason.
  std::string Status = "passed-through";
  std::string Reason;
  /// The passes that applied, in order, with their parameters.
  std::vector<AppliedPass> Passes;
  /// Passes of the pipeline that did not apply, with why.
  std::vector<SkippedPass> Skipped;
  /// The kernel the output holds: optimized, or a copy of Naive.
  std::unique_ptr<Function> Kernel;
  /// A pass failed on this kernel (a gpumerge bug) and was skipped.
  bool InternalError = false;
};

/// Runs \p Req's passes over its kernel and settles the result: a texture
/// variant whose arrays cannot be read through textures is written as it
/// came in; an optimized kernel loses the locals the passes left unused,
/// gets a plan where its thread positions assume a block size, a launch of
/// its own where its loop was a grid-stride loop, and leave to run with
/// harmless copies of its threads (Reruns.h).
///
/// Errors: a --merge forced on block-merge or thread-merge that the target
/// cannot run (the user's to fix), and the step writer's. A pass's own
/// failure is no error: it is skipped (see the file comment). Containing a
/// crash needs llvm::CrashRecoveryContext::Enable() in the process.
llvm::Expected<PipelineResult> runPipeline(const PipelineRequest &Req);

} // namespace gpumerge

#endif
