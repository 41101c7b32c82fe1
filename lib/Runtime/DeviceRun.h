//===- DeviceRun.h - What a verify run does on the device -------*- C++ -*-===//
//
// Verify.cpp decides everything a verify run needs in gpumerge's process:
// the programs, the launches, the inputs (a DeviceRun). The run itself, in
// a child process (Isolate.h), only builds, launches and compares: it runs
// the input's kernels once, then each candidate's against their results.
// Several candidates share one reference run where their DeviceRuns agree on
// it (sameReference): --tune's candidates of one kernel at one size pay for
// the device session, the input's build and its run once.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_DEVICERUN_H
#define GPUMERGE_RUNTIME_DEVICERUN_H

#include "CodeGen/RaceCheck.h"
#include "IR/Kernel.h"
#include "Runtime/Device.h"
#include "Runtime/Isolate.h"
#include "Runtime/RaceCheckRun.h"
#include "Runtime/Verify.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpumerge {

/// What the generated launchers would run at the verify sizes, stage by
/// stage: the reference runs Naive over NaiveRange, the candidate
/// Candidate over CandidateRange.
struct Launch {
  std::string Naive, Candidate;
  /// What the launcher runs where it falls back (<name>_naive; a CUDA
  /// template's instantiation as written).
  std::string Fallback;
  NDRange NaiveRange, CandidateRange;
  /// After the candidate, <name>_edge over each range with these bounds
  /// appended to the arguments (EdgeKernel.h).
  struct Edge {
    NDRange Range;
    std::vector<std::int64_t> Bounds;
  };
  std::vector<Edge> Edges;
  /// Arrays the candidate reads as texels (texture variant: OpenCL
  /// images, CUDA texture objects).
  std::map<std::string, TexelChannel> Images;
  std::map<std::string, unsigned> Channels; ///< 4: read as 4-vectors
};

/// Everything a verify run does on the device, decided beforehand so the
/// run itself (in a child process) only builds, launches and compares.
struct DeviceRun {
  DeviceKind Device = DeviceKind::OpenCL;
  unsigned DeviceIndex = 0;
  std::string Reference, Candidate, BuildOptions, DebugFail;
  /// Reference is gpumerge's printing of the input (a CUDA input's OpenCL
  /// translation, split kernels' phases), not the input as written.
  bool ReferencePrinted = false;
  /// The kernels each program launches (CUDA resolves their names).
  std::vector<std::string> ReferenceKernels, CandidateKernels;
  unsigned TimedRuns = 0;
  std::vector<Launch> Launches;
  std::vector<Param> Params;
  /// Kernels that run under another name on each side (a CUDA kernel named
  /// like an OpenCL built-in function).
  std::map<std::string, std::string> ReferenceNames, CandidateNames;
  /// The last of Params that stand for __constant__ arrays: on OpenCL
  /// they follow every other argument, <name>_edge's bounds included; on
  /// CUDA they are no arguments, each program's globals are filled.
  std::size_t ConstantArrays = 0;
  /// Of them, the ones passed as arguments.
  std::size_t constantArguments() const {
    return Device == DeviceKind::Cuda ? 0 : ConstantArrays;
  }
  std::map<std::string, std::int64_t> Extents;
  /// Each parameter's contents (empty for scalars): shared by the runs of
  /// one kernel at one size, as they are large.
  std::shared_ptr<const std::vector<std::vector<std::uint8_t>>> Inputs;
  std::vector<double> Scalars;
  /// The candidate kernels that check their shared-memory accesses
  /// (RaceCheck.h), with their shared arrays: each takes a record buffer
  /// after its arguments.
  std::map<std::string, std::vector<CheckedArray>> RaceChecked;
  /// Candidate with those kernels checking (empty where none is): it runs
  /// in place of Candidate where the input was quick enough, else on some
  /// work-groups of each checked launch, beside Candidate.
  std::string CheckedCandidate;
  /// Why the checked kernels cannot run on some of their work-groups alone
  /// (empty where they can).
  std::string NotSampled;
  /// The input's kernels that check their writes for collisions
  /// (CodeGen/WriteCollisions.h), by name, with the arrays each claims: on
  /// OpenCL, where the analysis cannot prove them apart (unprovenWrite).
  /// They run after the reference, on copies of the inputs
  /// (WriteCollisionRun.h); empty where none does.
  std::map<std::string, std::vector<std::string>> CollisionChecked;
  /// The reference, printed, with those kernels checking (empty where none
  /// does); its kernels named as the reference's (ReferenceNames).
  std::string CollisionCheck;
};

/// Whether \p A and \p B run the same reference: the same device, input
/// program and kernels, launches of the input, parameters and inputs, so
/// one run of it serves both.
bool sameReference(const DeviceRun &A, const DeviceRun &B);

/// A scalar argument in the bytes of its parameter's type (OpenCL checks
/// the size: a short parameter takes 2 bytes); a vector's lanes differ. A
/// 16-bit float is rounded to its type: on \p Device CUDA in its 16 bits,
/// in OpenCL a float (the translation's parameter).
KernelArg scalarArg(const Type &T, double Value,
                    DeviceKind Device = DeviceKind::OpenCL);

/// A session on the first OpenCL device, or on CUDA device \p Index.
llvm::Expected<std::unique_ptr<DeviceSession>> openSession(DeviceKind Kind,
                                                           unsigned Index);

/// Runs the reference of \p Runs (which share it, sameReference) once, then
/// each run's candidate, in order, on one device session; \p Results holds
/// what each result already says (the path planned, the tolerance's terms).
/// Sends `reference-ran <seconds>` once the input's kernels ran (or
/// `input-build-failed`, then `error ...`); then for candidate i
/// `candidate <i>`, `candidate-ran` and `result <json>`, or `error <json>`,
/// which ends the run: a failed launch may leave the device unusable (a
/// CUDA context after a fault). An `error` before the first `candidate`
/// line is every candidate's. The device, the input's build and its run are
/// in the first result's phases only.
void executeOnDevice(llvm::ArrayRef<const DeviceRun *> Runs,
                     llvm::ArrayRef<VerifyResult> Results, SendFn Send);

/// The result a candidate's run sent (`result <json>`), read back into
/// \p Into; false where the text is not one.
bool readResult(llvm::StringRef Json, VerifyResult &Into);

} // namespace gpumerge

#endif
