//===- Tune.h - --tune: time the model's first versions, keep the fastest -===//
//
// The paper chooses a version by running them; gpumerge ranks them with a
// static model (Search.h). --tune[=N] runs the model's choice and the next
// versions of the space it ranked (SearchSpace), N in all per kernel and
// memory variant (in the texture variant of CUDA output, the other texture
// form of the model's choice too), on the device --verify uses. Each
// candidate is verified against the input kernel first; the verify run warms
// it up, then it is timed Runs times on the device's clock and the median
// decides. A candidate that does not build, mismatches or fails on the
// device is recorded with why and skipped, and one whose launcher would take
// the fallback at these sizes is recorded without running; the search goes
// on.
//
// Every measurement is a record of the tuning cache (TuneCache.h), appended
// and flushed as soon as it is made. A candidate whose record is there is not
// run again: an interrupted tune resumes where it stopped, and a rerun with a
// warm cache times nothing and writes the same output.
// --tune-cache=FILE without --tune only reads the cache, for a build on a
// machine without the device (gpumerge-nvcc): records of any device (and of
// any sizes, unless --size is given) count, those of the device and sizes
// with the most candidates measured ok are compared, nothing is timed, and
// where no record is found the model's choice stays.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_TUNE_H
#define GPUMERGE_DRIVER_TUNE_H

#include "Runtime/Verify.h"
#include "Transforms/PassRegistry.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// Candidates --tune[=N] takes when N is not given.
constexpr unsigned DefaultTuneCandidates = 6;

struct TuneOptions {
  /// false: read the cache only (--tune-cache without --tune).
  bool Measure = true;
  /// Candidates per kernel and variant (--tune=N; 0, --tune=all: the whole
  /// space).
  unsigned Top = DefaultTuneCandidates;
  std::string CachePath;
  /// Where the candidates run (Verify.h's VerifyOptions::Device).
  DeviceKind Device = DeviceKind::OpenCL;
  unsigned DeviceIndex = 0;
  unsigned Runs = 7; ///< timed runs per candidate
  /// For the tests of resuming (--debug-fail=tune-kill-after=N): the
  /// process kills itself (SIGKILL) once it has recorded N measurements.
  unsigned DebugKillAfter = 0;
};

/// One version to try: merge factors forced as --merge forces them and a
/// texture form; neither set for the model's own choice.
struct TuneCandidate {
  MergeRequest Merge;
  std::optional<TextureForm> Form;
  /// Its place in the model's order (1: the model's choice); 0: its index
  /// in the list plus one.
  unsigned Rank = 0;
  bool modelChoice() const { return !Merge.any() && !Form; }
};

/// The model's choice, then (in the texture variant, when \p OtherForm is
/// set) the model's choice in that texture form, then the versions of
/// \p Space in rank order but the model's choice (block \p ModelBlock,
/// merged \p ModelMerge); at most \p Limit (0: all).
std::vector<TuneCandidate>
tuneCandidates(const SearchSpace &Space, std::optional<TextureForm> OtherForm,
               unsigned Limit, std::array<std::int64_t, 2> ModelBlock = {0, 0},
               std::array<std::int64_t, 2> ModelMerge = {0, 0});

/// What the driver generated for one candidate.
struct TuneTrial {
  bool Generated = false;
  std::string Why;   ///< not generated: why
  std::string Label; ///< "block 64x8, 1x4 outputs per thread"
  std::string Code;  ///< the output it gives: hashed into the cache key
  /// The carving metrics (Carving.h), for the report, where computed.
  std::optional<double> Efficiency, Utilization;
  bool OnParetoFront = false;
};

/// The kernel being tuned, as the cache keys it.
struct TuneSubject {
  std::string Kernel;
  MemoryVariant Variant = MemoryVariant::Global;
  std::string Source; ///< the input's text and parse options
  std::string Target;
  std::string Sizes; ///< "h=133,k=135,w=131[;grid=X,Y]"
  /// --size was given: without the device, only records of these sizes
  /// count (else those of any sizes).
  bool SizesGiven = false;
  /// The versions --tune=all times (tuneCandidates without a limit).
  size_t SpaceSize = 0;
};

struct TuneOutcome {
  /// The candidate whose trial the output takes; -1 where none is better
  /// known than the model's choice (nothing ran, nothing recorded).
  int Chosen = -1;
  llvm::json::Object Report;
  std::vector<std::string> Lines;    ///< the text report
  std::vector<std::string> Warnings; ///< the cache's, the device's
  unsigned Timed = 0;                ///< candidates run on the device
  /// Candidates whose output did not match the input's (gpumerge bugs):
  /// "block 64x8, ...: 'c' differs first at element 7 (...)".
  std::vector<std::string> Mismatches;
  /// The model's choice mismatched and no candidate ran ok: the output
  /// holds a kernel known to be wrong (the caller fails like --verify).
  bool KeptMismatch = false;
};

/// Receives a measured candidate's result, by its index, as it comes.
using MeasuredFn =
    llvm::function_ref<void(size_t, llvm::Expected<VerifyResult>)>;
/// Verifies and times the candidates of the indices given, in order
/// (VerifyOptions::TimedRuns; verifyCandidates runs the input once for
/// all), passing each result on as it comes.
using MeasureFn = llvm::function_ref<void(llvm::ArrayRef<size_t>, MeasuredFn)>;

/// Tunes \p Subject over \p Candidates: \p Generate makes candidate i's
/// trial; every trial is made and looked up in the cache first, then
/// \p Measure runs the ones the cache lacks, all in one call. Progress
/// lines go to \p Progress when \p ShowProgress (a terminal).
TuneOutcome tuneKernel(const TuneOptions &Opts, const TuneSubject &Subject,
                       const std::vector<TuneCandidate> &Candidates,
                       llvm::function_ref<TuneTrial(size_t)> Generate,
                       MeasureFn Measure, llvm::raw_ostream &Progress,
                       bool ShowProgress);

} // namespace gpumerge

#endif
