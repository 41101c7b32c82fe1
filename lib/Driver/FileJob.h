//===- FileJob.h - One input file through gpumerge --------------*- C++ -*-===//
//
// What gpumerge does with one input file (runFile): parse it; read its
// grid-stride loops and split its global barriers; then, per kernel and
// memory variant, run the pipeline (Pipeline.h), keep what can run, verify
// both launch paths (FileJobVerify.cpp), tune (FileJobTune.cpp), check the
// output with nvcc, and write the outputs and the report (FileJobReport.cpp).
// Driver.cpp sequences the files; Batch.cpp runs them in parallel.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_FILEJOB_H
#define GPUMERGE_DRIVER_FILEJOB_H

#include "Analysis/LaunchConditions.h"
#include "CodeGen/Emitter.h"
#include "Driver/Driver.h"
#include "Driver/Tune.h"
#include "IR/Kernel.h"
#include "Pipeline/InputRewrites.h"
#include "Pipeline/Pipeline.h"
#include "Runtime/Verify.h"
#include "Target/MachineDescription.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpumerge {

/// One kernel in one variant: what the pipeline made of it (Pipeline.h),
/// and what the driver adds: its launch, verify's runs and --tune's choice.
struct VariantResult : PipelineResult {
  LaunchShape Shape;
  llvm::json::Object Launch;
  std::optional<VerifyResult> Verified;
  /// When Verified ran the fallback: a second run where the optimized
  /// kernel's preconditions hold, so both paths are checked.
  std::optional<VerifyResult> VerifiedOptimized;
  /// Verify found no sizes where the optimized path runs.
  bool FallbackOnly = false;
  /// --tune: the candidates and the choice (Tune.h), and its text lines.
  std::optional<llvm::json::Object> Tune;
  std::vector<std::string> TuneLines;
};

/// The parse's flags (after `--`) that change what the source means: -I,
/// -D, -U and -include, each with its value, attached (-DN=4) or the next
/// argument (-D N=4).
std::vector<std::pair<std::string, std::string>>
preprocessorFlags(const std::vector<std::string> &Args);

/// "h=133,k=135,w=131".
std::string sizesText(const SizeBindings &Sizes);

class FileJob {
public:
  FileJob(const DriverOptions &Opts, const MachineDescription &MD,
          const std::string &Input, llvm::raw_ostream &Out,
          llvm::raw_ostream &Err)
      : Opts(Opts), MD(MD), Input(Input), Out(Out), Err(Err) {}

  int run(llvm::json::Array &ReportFiles);

private:
  const DriverOptions &Opts;
  const MachineDescription &MD;
  const std::string &Input;
  llvm::raw_ostream &Out;
  llvm::raw_ostream &Err;
  std::unique_ptr<Module> M;
  /// What the input rewrites made of M (InputRewrites.h).
  InputReading Reading;

  /// --size is a size hint too, below the kernel's own (`#pragma gpumerge
  /// size`, then its launches' values): the model weighs the grid against
  /// the SMs at the sizes the user runs at, where the file does not say.
  void hintGivenSizes();

  /// A --size name no kernel of the file takes is ignored: say so, or a
  /// typo would verify (and tune) silently at other sizes than asked.
  void warnUnknownSizes();

  /// After a crash of our own on the whole file (\p What): every output is
  /// the input as written, with a warning (a gpumerge bug). Translating
  /// needs the parse, so then nothing is written.
  int passThroughFile(const std::string &What);

  int analyze(llvm::json::Array &ReportFiles);

  std::vector<MemoryVariant> variants() const;

  Language outputLang() const { return Opts.OutputLang.value_or(M->Lang); }

  std::string stepPath(const Function &F, unsigned Step,
                       const std::string &Name, MemoryVariant V) const;

  llvm::Error writeStep(const Function &F, unsigned Step,
                        const std::string &Name, MemoryVariant V);

  /// The domain extent of dimension \p Dim as the report spells it.
  std::string extentText(const KernelDomain &D, unsigned Dim) const;

  /// The launch configuration, preconditions and resources of \p K.
  llvm::json::Object launchReport(const Function &K, LaunchShape &Shape);

  /// The context of the passes over kernel \p Naive in variant \p V: the
  /// options, or \p Forced's merge factors and texture form; \p Space
  /// receives the versions the merge passes ranked.
  llvm::Expected<PassContext> passContext(const Function &Naive,
                                          MemoryVariant V,
                                          const TuneCandidate *Forced,
                                          SearchSpace *Space) const;

  /// The pipeline over one kernel in one variant (Pipeline.h), then what
  /// the file decides: whether its launch can run, and its report;
  /// \p Forced: a --tune candidate's merge factors and texture form;
  /// \p Space receives the versions the merge passes ranked.
  llvm::Expected<VariantResult>
  runPipeline(const Function &Naive, MemoryVariant V,
              const TuneCandidate *Forced = nullptr,
              SearchSpace *Space = nullptr);

  /// Where the optimized kernel of \p R cannot run as the file is written,
  /// the output keeps \p Naive, and R says why: its launch conditions can
  /// never hold together, or its launches cannot all go through the
  /// generated launcher.
  void keepWhatCanRun(const Function &Naive, VariantResult &R);

  std::string outputPath(MemoryVariant V) const;
  std::string outputPath(MemoryVariant V, Language L) const;

  /// A kernel split at its global barriers, verified as a whole in one
  /// variant: its phases run in order.
  struct SplitVerify {
    std::optional<VerifyResult> Verified, VerifiedOptimized;
    bool FallbackOnly = false;
  };
  /// kernel name → one per variant, in variant order.
  std::map<std::string, std::vector<SplitVerify>> SplitResults;

  /// The kernels whose guards give \p F's launch domain: all phases of its
  /// split kernel for a phase, else \p F.
  std::vector<const Function *> domainKernels(const Function &F) const;

  /// Options for verify's OpenCL builds: the parse's -I, -D and -U (an
  /// include of the input's directory first, as the parse had it).
  std::string buildOptions() const;

  /// Do this file's kernels run on the CUDA device? A CUDA file written as
  /// CUDA does where there is one; everything else runs on OpenCL.
  bool runsOnCuda() const;

  /// Where this file's kernels run, for the report.
  std::string deviceNote() const;

  /// The options of verify runs: sizes, grid, build flags, reference.
  VerifyOptions verifyOptions() const;

  /// How a --tune candidate is named: its launch shape (and texture form).
  std::string versionLabel(const VariantResult &R) const;

  /// How --tune runs: where, how many candidates, the cache.
  TuneOptions tuneOptions() const;

  /// Kernel \p Naive in variant \p V as the tuning cache keys it;
  /// \p SpaceSize: the versions --tune=all would time.
  TuneSubject tuneSubject(const Function &Naive, MemoryVariant V,
                          size_t SpaceSize) const;

  /// --tune over the whole space (--tune=all, --tune=pareto): every
  /// candidate of \p All generated first into \p Pre (\p Generate; its
  /// kernel: \p KernelOf), with its carving metrics (Carving.h). With
  /// --tune=pareto, \p Order keeps only the model's choice, the other
  /// texture form and the versions on the Pareto front.
  void carve(const Function &Naive, const std::vector<TuneCandidate> &All,
             llvm::function_ref<TuneTrial(size_t)> Generate,
             llvm::function_ref<const Function &(size_t)> KernelOf,
             std::vector<std::optional<TuneTrial>> &Pre,
             std::vector<size_t> &Order) const;

  /// --tune's outcome \p O for kernel \p Naive in variant \p V: its
  /// warnings and the versions that did not match to Err (\p Mismatch set
  /// where the output keeps one); \p Chosen, the fastest version where it
  /// is not the model's choice, replaces \p R; R takes the report.
  void takeTuneOutcome(const Function &Naive, MemoryVariant V, TuneOutcome &O,
                       std::optional<VariantResult> *Chosen, VariantResult &R,
                       bool &Mismatch);

  /// --tune (or a --tune-cache to read): the candidates of \p Space,
  /// generated, verified and timed (or looked up); the fastest replaces
  /// \p R, the model's choice. \p Mismatch is set where the output keeps
  /// a version that did not match.
  void tune(const Function &Naive, MemoryVariant V, VariantResult &R,
            const SearchSpace &Space, bool &Mismatch);

  /// Verifies \p Stages (one kernel, or a split kernel's phases in order
  /// when \p WholeSplit) at the given sizes into \p Verified and, when the
  /// launchers took a fallback there, again where every plan holds into
  /// \p Optimized. A mismatch is reported and sets \p Mismatch. A kernel
  /// verify cannot run is `skipped` with the reason and a warning; when no
  /// sizes make the optimized path run, \p FallbackOnly is set.
  void verifyBothPaths(const std::vector<const Function *> &DomainFrom,
                       const std::vector<VerifyStage> &Stages,
                       const std::string &Name, unsigned Line, MemoryVariant V,
                       bool WholeSplit, std::optional<VerifyResult> &Verified,
                       std::optional<VerifyResult> &Optimized, bool &Mismatch,
                       bool &FallbackOnly);

  /// Runs the phases of \p PK in order, naive and as written in variant
  /// \p V (each on the path its launcher takes), at the sizes given and,
  /// when a phase fell back, where every phase's plan holds. 0, or the
  /// exit code of an error.
  int verifySplit(const PhasedKernel &PK, MemoryVariant V,
                  std::map<std::string, std::vector<VariantResult>> &Results,
                  bool &Mismatch);

  /// The report of a kernel split at its global barriers.
  llvm::json::Object splitReport(const PhasedKernel &PK,
                                 const std::vector<MemoryVariant> &Vs);

  /// How the report and the verify lines name a grid verify assumed (1-D:
  /// assumedVerifyGrid).
  static std::string assumedGridText(const std::array<std::int64_t, 2> &G);

  /// A verify run's launches (VerifyResult::Launches): per launch of an
  /// input kernel, its naive global and local sizes and what ran instead.
  static llvm::json::Array
  launchesJson(const std::vector<VerifyResult::LaunchRecord> &Launches);

  /// The verify fields of a variant's report, and the text lines.
  void reportVerify(llvm::json::Object &O, const std::string &Name,
                    MemoryVariant Variant,
                    const std::optional<VerifyResult> &Verified,
                    const std::optional<VerifyResult> &VerifiedOptimized,
                    bool FallbackOnly);

  /// Writes as the input's each kernel of variant \p I whose optimized form
  /// keeps \p E, the CUDA file about to be written, from compiling with
  /// nvcc (NvccCheck.h), with a warning, and emits \p E again without
  /// them. True when any was: a gpumerge bug.
  bool revertWhatNvccRejects(
      size_t I, std::map<std::string, std::vector<VariantResult>> &Results,
      std::map<std::string, const Function *> &Replacements, EmittedModule &E);

  /// Kernel \p F in variant \p V: the pipeline, then --tune and --verify
  /// as asked. \p Mismatch is set where verify or the tuner found the
  /// output does not match the input. An error is the user's (a --passes
  /// or --merge the kernel cannot take).
  llvm::Expected<VariantResult> optimizeKernel(const Function &F,
                                               MemoryVariant V, bool &Mismatch);

  /// Writes the file of variant \p I of \p Vs (and, for OpenCL, its launch
  /// header) from \p Results, whole or not at all, and adds each path to
  /// \p Outputs. \p Warned: the emitters' warnings already given (variants
  /// share most). \p Internal is set where gpumerge hit a bug of its own.
  /// 0, or the exit code of an error.
  int writeVariant(size_t I, const std::vector<MemoryVariant> &Vs,
                   std::map<std::string, std::vector<VariantResult>> &Results,
                   llvm::json::Array &Outputs, std::vector<std::string> &Warned,
                   bool &Internal);

  /// The report of kernel \p Kernel in one variant, \p R (its --tune and
  /// verify lines go to Out as text). Takes R's launch and tune objects.
  llvm::json::Object variantReport(const std::string &Kernel, VariantResult &R);

  /// What the frontend could not lower, for the report: kernels (one
  /// passed-through variant each of \p Vs) into \p Kernels, helpers apart
  /// into \p Helpers (the kernels calling them say so in their own
  /// reasons).
  void passedThroughReport(const std::vector<MemoryVariant> &Vs,
                           llvm::json::Array &Kernels,
                           llvm::json::Array &Helpers) const;

  /// Every kernel in every variant: optimized (optimizeKernel), each
  /// variant's file written (writeVariant), then the file's report.
  int optimize(llvm::json::Array &ReportFiles);
};

} // namespace gpumerge

#endif // GPUMERGE_DRIVER_FILEJOB_H
