//===- FileJobTune.cpp - --tune for one kernel ----------------------------===//
#include "CodeGen/Emitter.h"
#include "Driver/Carving.h"
#include "Driver/FileJob.h"
#include "Driver/Tune.h"
#include "Pipeline/Pipeline.h"
#include "Runtime/TuneCache.h"
#include "Runtime/Verify.h"
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

std::string FileJob::versionLabel(const VariantResult &R) const {
  const LaunchPlan &P = *R.Kernel->Plan;
  std::string Label =
      llvm::formatv("block {0}x{1}, {2}x{3} outputs per thread", P.Block[0],
                    P.Block[1], P.Coverage[0], P.Coverage[1]);
  if (P.Lanes > 1)
    Label += llvm::formatv(", {0} threads per output", P.Lanes).str();
  if (R.Variant == MemoryVariant::Texture && outputLang() == Language::Cuda)
    Label += std::string(", texture ") + textureFormName(P.Texture);
  return Label;
}

TuneOptions FileJob::tuneOptions() const {
  TuneOptions TO;
  if (runsOnCuda()) {
    TO.Device = DeviceKind::Cuda;
    TO.DeviceIndex = *Opts.CudaDevice;
  }
  TO.Measure = Opts.Tune.has_value();
  TO.Top = Opts.Tune.value_or(0);
  TO.CachePath =
      Opts.TuneCache.empty() ? TuneCache::defaultPath() : Opts.TuneCache;
  llvm::StringRef Debug(Opts.DebugFail);
  if (Debug.consume_front("tune-kill-after="))
    Debug.getAsInteger(10, TO.DebugKillAfter);
  return TO;
}

TuneSubject FileJob::tuneSubject(const Function &Naive, MemoryVariant V,
                                 size_t SpaceSize) const {
  TuneSubject Subject;
  Subject.Kernel = Naive.Name;
  Subject.Variant = V;
  // The macros the parse was given change what the source means; other
  // flags (paths, the language standard, gpumerge-nvcc's) do not.
  Subject.Source = M->Source;
  for (const auto &[Flag, Value] : preprocessorFlags(Opts.ClangArgs))
    if (Flag != "-I")
      Subject.Source += '\0' + Flag + ' ' + Value;
  Subject.Target = MD.Name;
  Subject.Sizes = sizesText(chooseSizes(Naive, Opts.Sizes));
  if (Opts.Grid)
    Subject.Sizes +=
        llvm::formatv(";grid={0},{1}", (*Opts.Grid)[0], (*Opts.Grid)[1]);
  Subject.SizesGiven = !Opts.Sizes.empty();
  Subject.SpaceSize = SpaceSize;
  return Subject;
}

void FileJob::carve(const Function &Naive,
                    const std::vector<TuneCandidate> &All,
                    llvm::function_ref<TuneTrial(size_t)> Generate,
                    llvm::function_ref<const Function &(size_t)> KernelOf,
                    std::vector<std::optional<TuneTrial>> &Pre,
                    std::vector<size_t> &Order) const {
  SizeBindings Sizes = chooseSizes(Naive, Opts.Sizes);
  std::vector<CarvingMetrics> Metrics;
  std::vector<size_t> Of;
  for (size_t I = 0; I < All.size(); ++I) {
    Pre[I] = Generate(I);
    if (!Pre[I]->Generated)
      continue;
    Metrics.push_back(carvingMetrics(KernelOf(I), MD, Sizes));
    Of.push_back(I);
  }
  std::vector<bool> Front = paretoFront(Metrics);
  for (size_t J = 0; J < Of.size(); ++J) {
    TuneTrial &T = *Pre[Of[J]];
    T.Efficiency = Metrics[J].Efficiency;
    T.Utilization = Metrics[J].Utilization;
    T.OnParetoFront = Front[J];
  }
  if (Opts.TunePareto) {
    Order.clear();
    for (size_t I = 0; I < All.size(); ++I)
      if (All[I].modelChoice() || All[I].Form ||
          (Pre[I]->Generated && Pre[I]->OnParetoFront))
        Order.push_back(I);
  }
}

void FileJob::takeTuneOutcome(const Function &Naive, MemoryVariant V,
                              TuneOutcome &O,
                              std::optional<VariantResult> *Chosen,
                              VariantResult &R, bool &Mismatch) {
  for (const std::string &W : O.Warnings)
    Err << Input << ": warning: " << W << "\n";
  for (const std::string &Bad : O.Mismatches)
    Err << llvm::formatv("{0}:{1}: {2}: --tune: a version of kernel '{3}' "
                         "({4} variant) does not match the input (a "
                         "gpumerge bug; not chosen): {5}\n",
                         Input, Naive.Span.Line,
                         O.KeptMismatch ? "error" : "warning", Naive.Name,
                         memoryVariantName(V), Bad);
  Mismatch |= O.KeptMismatch;
  if (Chosen && *Chosen) {
    R = std::move(**Chosen);
    for (AppliedPass &P : R.Passes)
      if (P.Parameters.count("chosen-by"))
        P.Parameters["chosen-by"] = "--tune (the fastest candidate)";
  }
  R.Tune = std::move(O.Report);
  R.TuneLines = std::move(O.Lines);
}

void FileJob::tune(const Function &Naive, MemoryVariant V, VariantResult &R,
                   const SearchSpace &Space, bool &Mismatch) {
  std::optional<TextureForm> Other;
  if (V == MemoryVariant::Texture && outputLang() == Language::Cuda)
    Other = R.Kernel->Plan->Texture == TextureForm::Object
                ? TextureForm::Ldg
                : TextureForm::Object;
  TuneOptions TO = tuneOptions();
  const LaunchPlan &Model = *R.Kernel->Plan;
  std::vector<TuneCandidate> All =
      tuneCandidates(Space, Other, TO.Top, Model.Block, Model.Coverage);
  for (size_t I = 0; I < All.size(); ++I)
    All[I].Rank = unsigned(I + 1);
  std::vector<std::optional<VariantResult>> Trials(All.size());
  auto Made = [&](size_t I) -> VariantResult & {
    return Trials[I] ? *Trials[I] : R;
  };
  auto GenerateAll = [&](size_t I) {
    TuneTrial T;
    if (!All[I].modelChoice()) {
      auto C = runPipeline(Naive, V, &All[I]);
      if (!C) {
        T.Why = llvm::toString(C.takeError());
        return T;
      }
      Trials[I] = std::move(*C);
    }
    const VariantResult &C = Made(I);
    if (C.Status != "optimized" || !C.Kernel->Plan) {
      T.Why = C.Reason.empty() ? "the kernel is not optimized" : C.Reason;
      return T;
    }
    T.Generated = true;
    T.Label = versionLabel(C);
    T.Code = emitFunction(*C.Kernel, outputLang());
    return T;
  };
  std::vector<size_t> Order(All.size());
  for (size_t I = 0; I < All.size(); ++I)
    Order[I] = I;
  std::vector<std::optional<TuneTrial>> Pre(All.size());
  auto KernelOf = [&](size_t I) -> const Function & { return *Made(I).Kernel; };
  if (TO.Measure && TO.Top == 0)
    carve(Naive, All, GenerateAll, KernelOf, Pre, Order);
  std::vector<TuneCandidate> Candidates;
  for (size_t I : Order)
    Candidates.push_back(All[I]);
  auto Generate = [&](size_t J) {
    return Pre[Order[J]] ? *Pre[Order[J]] : GenerateAll(Order[J]);
  };
  auto Measure = [&](llvm::ArrayRef<size_t> Js, MeasuredFn Done) {
    VerifyOptions VO = verifyOptions();
    VO.TimedRuns = TO.Runs;
    std::vector<std::vector<VerifyStage>> Stages;
    for (size_t J : Js) {
      const VariantResult &C = Made(Order[J]);
      Stages.push_back({{&Reading.startOf(Naive), C.Kernel.get(), C.Shape}});
    }
    verifyCandidates(*M, domainKernels(Naive), Stages, VO,
                     [&](size_t K, llvm::Expected<VerifyResult> R) {
                       Done(Js[K], std::move(R));
                     });
  };
  // The versions --tune=all would time: the model's choice, which need
  // not be one the search ranked (split-reduction's mv), the other
  // texture form, and every other ranked version.
  TuneSubject Subject = tuneSubject(
      Naive, V,
      tuneCandidates(Space, Other, 0, Model.Block, Model.Coverage).size());
  TuneOutcome O = tuneKernel(TO, Subject, Candidates, Generate, Measure, Err,
                             Err.is_displayed());
  takeTuneOutcome(Naive, V, O,
                  O.Chosen >= 0 ? &Trials[Order[O.Chosen]] : nullptr, R,
                  Mismatch);
}

} // namespace gpumerge
