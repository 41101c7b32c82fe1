//===- Verify.h - Run naive and emitted kernels, compare --------*- C++ -*-===//
//
// --verify: the input kernel and the emitted one run on the same
// pseudo-random, non-symmetric inputs through OpenCL (PoCL on a CPU), or, for
// a CUDA file on a GPU (--device=cuda), through NVRTC and the CUDA driver;
// every array parameter is compared afterwards. On OpenCL a CUDA input is
// run as its OpenCL translation (no GPU is needed); on CUDA the input's
// kernels run as written and the output's as emitted (VerifyCuda.h). Sizes
// come from --size, else defaults that are non-square and not multiples of
// 16 (scaled from the kernel's `#pragma gpumerge size` when it has one); the
// launch domain from the bounds guards, else --grid; buffer sizes from the
// index ranges.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_VERIFY_H
#define GPUMERGE_RUNTIME_VERIFY_H

#include "Analysis/Domain.h"
#include "Analysis/LaunchConditions.h"
#include "IR/Kernel.h"
#include "Runtime/Device.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

struct VerifyOptions {
  SizeBindings Sizes; ///< --size
  /// --grid: the naive launch's threads; the domain in dimensions no guard
  /// bounds (where one does, the launchers take the guard's extent).
  std::optional<std::array<std::int64_t, 2>> Grid;
  std::uint64_t Seed = 20121;
  /// Options for building the programs: the -I/-D/-U of the parse.
  std::string BuildOptions;
  /// Where the kernels run: OpenCL's first device, or CUDA device
  /// DeviceIndex (CUDA inputs written as CUDA only).
  DeviceKind Device = DeviceKind::OpenCL;
  unsigned DeviceIndex = 0;
  /// --device=auto: where the CUDA device cannot build the input as
  /// written (NVRTC), the run goes to OpenCL instead (not for --tune's
  /// timed runs, which must stay on one device).
  bool OpenCLWhereCudaCannot = false;
  /// The arguments the input was parsed with (after `--`): a CUDA device
  /// parses the emitted file with them to leave its host code out.
  std::vector<std::string> ParseArgs;
  /// Seconds the kernels may run; 0: verifyTimeoutSeconds().
  unsigned TimeoutSeconds = 0;
  /// An OpenCL source to run as the reference instead of the input (its
  /// kernels named and declared as the input's), and how to name it.
  std::string ReferenceSource, ReferenceName;
  /// For tests: "crash" or "hang" in place of the emitted kernel's run.
  std::string DebugFailCandidate;
  /// --tune: when the emitted kernel matched on its optimized path, it runs
  /// this many times more, each timed on the device (VerifyResult::TimesMs).
  /// Where the launcher would take the fallback, nothing runs (`skipped`,
  /// Path "fallback").
  unsigned TimedRuns = 0;
};

struct VerifyResult {
  enum class Status { Ok, Mismatch, Skipped } Outcome = Status::Skipped;
  double MaxRelError = 0;
  std::string Detail; ///< the first mismatch, or why skipped
  SizeBindings Sizes; ///< the sizes used
  std::array<std::int64_t, 2> Domain = {1, 1};
  /// Which kernel of the output ran: "optimized" when the emitted kernel's
  /// launch preconditions hold at these sizes, "fallback" (the original
  /// kept as <name>_naive) when they do not.
  /// Empty for a kernel launched like the naive one.
  std::string Path;
  std::string FailedPrecondition; ///< why the fallback ran
  /// What the output was compared against ("the OpenCL input as written").
  std::string Reference;
  /// Set where the run left the device asked for, and why.
  std::string DeviceNote;
  /// On OpenCL, where the emitted kernel has shared arrays: "checked" when
  /// every work-group ran checking them for races, "checked in N of M
  /// work-groups ..." when some did (RaceCheckRun.h), else why not.
  std::string RaceCheck;
  /// With VerifyOptions::TimedRuns: the device time of each timed run of
  /// the emitted kernel's launches (its edges included), in milliseconds.
  std::vector<double> TimesMs;
  /// The most terms a sum of the candidate adds in another order than the
  /// naive kernel (split-reduction); 0 where the order is the naive one.
  std::int64_t ReassociatedTerms = 0;
  /// The grid verify chose where no guard bounds the thread position and
  /// no --grid was given (assumedVerifyGrid).
  std::optional<std::array<std::int64_t, 2>> AssumedGrid;
  /// The output's launches, in order, as the launchers must make them: for
  /// each launch of an input kernel (Naive, over NaiveGlobal threads in
  /// blocks of NaiveLocal), the kernels run in its place with theirs (the
  /// optimized kernel and its edges, or the fallback). test/e2e runs the
  /// launchers gpumerge writes on the naive launches and compares.
  struct RanKernel {
    std::string Kernel;
    std::array<std::size_t, 3> Global, Local;
  };
  struct LaunchRecord {
    std::string Naive;
    std::array<std::size_t, 3> NaiveGlobal, NaiveLocal;
    std::vector<RanKernel> Ran;
  };
  std::vector<LaunchRecord> Launches;
  /// Where the run's wall-clock time went, in order, in seconds: "inputs"
  /// (made in this process), then the child's "device" (opening the
  /// session), "reference build", "reference run" (uploads, launches and
  /// reading every buffer back), "candidate build", "candidate run",
  /// "compare", "timed runs", and "isolation" (the child process's own
  /// start, end and messages: the wall time the others leave).
  std::vector<std::pair<std::string, double>> PhaseSeconds;
};
const char *verifyStatusName(VerifyResult::Status S);

/// The largest relative difference verify accepts between the naive and
/// the optimized results of type \p T, where sums of up to \p Terms terms
/// are added in another order (0: none).
double verifyTolerance(const Type &T, std::int64_t Terms);

/// The device verify runs on: its name and its driver's version (the
/// tuning cache's key), asked in a child process like a verify run.
struct VerifyDevice {
  std::string Name, Driver;
};
llvm::Expected<VerifyDevice> verifyDevice(DeviceKind Kind = DeviceKind::OpenCL,
                                          unsigned Index = 0);

/// Runs \p Naive (the input kernel of \p M) and \p Emitted (standing in for it
/// in the output, launched with \p Shape) and compares every array.
llvm::Expected<VerifyResult>
verifyKernel(const Module &M, const Function &Naive, const Function &Emitted,
             const LaunchShape &Shape, const VerifyOptions &Opts);

/// verifyKernel for a sequence of launches on the same buffers over the
/// domain of \p DomainFrom (Opts.Grid when given): the reference runs every
/// stage's naive kernel in order, the candidate every stage's output kernel
/// on the path its launcher would take. Path is "fallback" when any planned
/// stage falls back, "optimized" when all planned stages run optimized.
llvm::Expected<VerifyResult>
verifyStages(const Module &M, const std::vector<const Function *> &DomainFrom,
             const std::vector<VerifyStage> &Stages, const VerifyOptions &Opts);

/// verifyStages for each of \p Candidates (--tune's versions of one kernel,
/// each standing for the same input kernels): the runs that agree on the
/// input's (the same sizes, launches and inputs) share one device session
/// and one run of the input's kernels, which a run of each alone would
/// repeat. \p Done receives each candidate's result by its index, in order,
/// as it comes. A candidate that crashes or hangs costs itself: the rest go
/// on in a new child process. No --device=auto fallback: timed runs stay on
/// the device asked for.
void verifyCandidates(
    const Module &M, const std::vector<const Function *> &DomainFrom,
    const std::vector<std::vector<VerifyStage>> &Candidates,
    const VerifyOptions &Opts,
    llvm::function_ref<void(size_t, llvm::Expected<VerifyResult>)> Done);

} // namespace gpumerge

#endif
