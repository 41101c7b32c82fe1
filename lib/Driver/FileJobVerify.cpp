//===- FileJobVerify.cpp - Verify both launch paths of a kernel -----------===//
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

std::vector<const Function *> FileJob::domainKernels(const Function &F) const {
  const PhasedKernel *PK =
      F.PhaseOf.empty() ? nullptr : M->findPhased(F.PhaseOf);
  if (!PK)
    return {&Reading.startOf(F)};
  std::vector<const Function *> Out;
  for (const std::string &P : PK->Phases)
    Out.push_back(M->find(P));
  return Out;
}

std::string FileJob::buildOptions() const {
  std::string Dir(llvm::sys::path::parent_path(Input));
  std::string Options = "-I" + (Dir.empty() ? std::string(".") : Dir);
  for (auto [Flag, Value] : preprocessorFlags(Opts.ClangArgs)) {
    if (Flag == "-include")
      continue;
    if (Flag == "-I" && !Value.empty() && Value.front() != '/') {
      llvm::SmallString<256> Abs(Value);
      llvm::sys::fs::make_absolute(Abs);
      Value = std::string(Abs);
    }
    Options += " " + Flag + Value;
  }
  return Options;
}

bool FileJob::runsOnCuda() const {
  return Opts.CudaDevice && M->Lang == Language::Cuda &&
         outputLang() == Language::Cuda;
}

std::string FileJob::deviceNote() const {
  if (runsOnCuda())
    return Opts.DeviceNote;
  if (Opts.CudaDevice)
    return "opencl (the CUDA device runs CUDA files written as CUDA)";
  return Opts.DeviceNote.empty() ? "opencl" : Opts.DeviceNote;
}

VerifyOptions FileJob::verifyOptions() const {
  VerifyOptions VO;
  VO.Sizes = Opts.Sizes;
  VO.Grid = Opts.Grid;
  VO.BuildOptions = buildOptions();
  if (runsOnCuda()) {
    VO.Device = DeviceKind::Cuda;
    VO.DeviceIndex = *Opts.CudaDevice;
    VO.ParseArgs = Opts.ClangArgs;
    VO.OpenCLWhereCudaCannot = !Opts.CudaDeviceNamed;
  }
  if (!Opts.Reference.empty()) {
    auto Text = llvm::MemoryBuffer::getFile(Opts.Reference);
    if (Text) {
      VO.ReferenceSource = (*Text)->getBuffer().str();
      VO.ReferenceName = Opts.Reference;
    }
  }
  llvm::StringRef Debug(Opts.DebugFail);
  if (Debug.consume_front("verify-candidate="))
    VO.DebugFailCandidate = Debug.str();
  return VO;
}

void FileJob::verifyBothPaths(const std::vector<const Function *> &DomainFrom,
                              const std::vector<VerifyStage> &Stages,
                              const std::string &Name, unsigned Line,
                              MemoryVariant V, bool WholeSplit,
                              std::optional<VerifyResult> &Verified,
                              std::optional<VerifyResult> &Optimized,
                              bool &Mismatch, bool &FallbackOnly) {
  VerifyOptions VO = verifyOptions();
  std::string What =
      llvm::formatv("kernel '{0}' ({1} variant{2})", Name, memoryVariantName(V),
                    WholeSplit ? ", its phases in order" : "");
  // No guard bounds the threads: the launch alone sizes the work, so
  // verify takes a grid of its own rather than skip the kernel.
  std::optional<std::array<std::int64_t, 2>> Assumed;
  if (!VO.Grid && (Assumed = assumedVerifyGrid(DomainFrom)))
    VO.Grid = Assumed;
  for (bool Raised : {false, true}) {
    if (Raised) {
      if (!Verified || Verified->Path != "fallback")
        break;
      auto Sizes =
          sizesForOptimizedStages(DomainFrom, Stages, VO.Sizes, VO.Grid);
      if (!Sizes) {
        FallbackOnly = true;
        Err << llvm::formatv("{0}:{1}: warning: --verify: {2}: no sizes "
                             "were found where the optimized kernel's "
                             "launch conditions hold, so only the fallback "
                             "ran ({3})\n",
                             Input, Line, What, Verified->FailedPrecondition);
        break;
      }
      VO.Sizes = *Sizes;
    }
    auto Ver = verifyStages(*M, DomainFrom, Stages, VO);
    if (!Ver) {
      VerifyResult Skipped;
      Skipped.Outcome = VerifyResult::Status::Skipped;
      Skipped.Detail = llvm::toString(Ver.takeError());
      Skipped.Sizes = chooseSizes(*Stages.front().Naive, VO.Sizes);
      Err << llvm::formatv("{0}:{1}: warning: --verify: cannot verify {2}: "
                           "{3}\n",
                           Input, Line, What, Skipped.Detail);
      (Raised ? Optimized : Verified) = std::move(Skipped);
      break;
    }
    if (Ver->Outcome == VerifyResult::Status::Mismatch) {
      Mismatch = true;
      Err << llvm::formatv("{0}:{1}: error: --verify: kernel '{2}' ({3} "
                           "variant{4}{5}) does not match the input: {6}\n",
                           Input, Line, Name, memoryVariantName(V),
                           WholeSplit ? ", its phases in order" : "",
                           Raised ? ", optimized path" : "", Ver->Detail);
    } else if (Ver->Outcome == VerifyResult::Status::Skipped) {
      Err << llvm::formatv("{0}:{1}: warning: --verify: {2} skipped: {3}\n",
                           Input, Line, What, Ver->Detail);
    }
    Ver->AssumedGrid = Assumed;
    (Raised ? Optimized : Verified) = std::move(*Ver);
  }
}

int FileJob::verifySplit(
    const PhasedKernel &PK, MemoryVariant V,
    std::map<std::string, std::vector<VariantResult>> &Results,
    bool &Mismatch) {
  std::vector<const Function *> Phases;
  std::vector<VerifyStage> Stages;
  for (const std::string &P : PK.Phases) {
    Phases.push_back(M->find(P));
    const VariantResult &R = Results.at(P).back();
    Stages.push_back({M->find(P), R.Kernel.get(), R.Shape});
  }
  SplitVerify SV;
  verifyBothPaths(Phases, Stages, PK.Name, PK.Span.Line, V,
                  /*WholeSplit=*/true, SV.Verified, SV.VerifiedOptimized,
                  Mismatch, SV.FallbackOnly);
  SplitResults[PK.Name].push_back(std::move(SV));
  return 0;
}

std::string FileJob::assumedGridText(const std::array<std::int64_t, 2> &G) {
  return "grid " + std::to_string(G[0]) +
         " assumed (no guard bounds the thread position; --grid sets it)";
}

llvm::json::Array
FileJob::launchesJson(const std::vector<VerifyResult::LaunchRecord> &Launches) {
  auto Sizes = [](const std::array<std::size_t, 3> &S) {
    return llvm::json::Array{S[0], S[1], S[2]};
  };
  llvm::json::Array Out;
  for (const VerifyResult::LaunchRecord &L : Launches) {
    llvm::json::Array Ran;
    for (const VerifyResult::RanKernel &K : L.Ran)
      Ran.push_back(llvm::json::Object{{"kernel", K.Kernel},
                                       {"global", Sizes(K.Global)},
                                       {"local", Sizes(K.Local)}});
    Out.push_back(llvm::json::Object{{"naive", L.Naive},
                                     {"global", Sizes(L.NaiveGlobal)},
                                     {"local", Sizes(L.NaiveLocal)},
                                     {"ran", std::move(Ran)}});
  }
  return Out;
}

void FileJob::reportVerify(llvm::json::Object &O, const std::string &Name,
                           MemoryVariant Variant,
                           const std::optional<VerifyResult> &Verified,
                           const std::optional<VerifyResult> &VerifiedOptimized,
                           bool FallbackOnly) {
  if (!Verified)
    return;
  // The overall outcome: a mismatch on either path is a mismatch.
  const VerifyResult *Bad = VerifiedOptimized && VerifiedOptimized->Outcome !=
                                                     VerifyResult::Status::Ok
                                ? &*VerifiedOptimized
                                : &*Verified;
  // `ok` only where the optimized kernel itself ran.
  O["verify"] = FallbackOnly && Bad->Outcome == VerifyResult::Status::Ok
                    ? "fallback-only"
                    : verifyStatusName(Bad->Outcome);
  if (!Verified->Reference.empty())
    O["verify_reference"] = Verified->Reference;
  O["verify_device"] =
      Verified->DeviceNote.empty() ? deviceNote() : Verified->DeviceNote;
  // The shared-memory race check of the optimized kernel's run.
  const VerifyResult &Checked =
      VerifiedOptimized ? *VerifiedOptimized : *Verified;
  if (!Checked.RaceCheck.empty())
    O["verify_race_check"] = Checked.RaceCheck;
  O["max_rel_error"] =
      std::max(Verified->MaxRelError,
               VerifiedOptimized ? VerifiedOptimized->MaxRelError : 0.0);
  llvm::json::Object Sizes;
  for (auto &[K, V] : Verified->Sizes)
    Sizes[K] = V;
  O["verify_sizes"] = std::move(Sizes);
  if (Verified->AssumedGrid)
    O["verify_grid"] = assumedGridText(*Verified->AssumedGrid);
  if (!Bad->Detail.empty())
    O["verify_detail"] = Bad->Detail;
  llvm::json::Array Runs;
  for (const VerifyResult *VR :
       {&*Verified, VerifiedOptimized ? &*VerifiedOptimized : nullptr}) {
    if (!VR)
      continue;
    llvm::json::Object Sz;
    for (auto &[K, V] : VR->Sizes)
      Sz[K] = V;
    llvm::json::Object Run{
        {"path", VR->Path.empty() ? "as-launched" : VR->Path},
        {"sizes", std::move(Sz)},
        {"verify", verifyStatusName(VR->Outcome)},
        {"max_rel_error", VR->MaxRelError}};
    if (VR->ReassociatedTerms)
      Run["reassociated_terms"] = VR->ReassociatedTerms;
    if (!VR->FailedPrecondition.empty())
      Run["fallback_because"] = VR->FailedPrecondition;
    if (!VR->Launches.empty())
      Run["launches"] = launchesJson(VR->Launches);
    Runs.push_back(std::move(Run));
    if (!Opts.JsonReport) {
      std::string Where = memoryVariantName(Variant);
      if (!VR->Path.empty()) {
        Where += ", " + VR->Path + " path";
        if (!VR->Sizes.empty())
          Where += ", " + sizesText(VR->Sizes);
      }
      if (VR->AssumedGrid)
        Where += ", " + assumedGridText(*VR->AssumedGrid);
      std::string Widened;
      Type Float = Type::scalar(ScalarKind::Float);
      if (verifyTolerance(Float, VR->ReassociatedTerms) >
          verifyTolerance(Float, 0))
        Widened = llvm::formatv(
            " (float tolerance {0:e}: sums of up to {1} terms in another "
            "order)",
            verifyTolerance(Float, VR->ReassociatedTerms),
            VR->ReassociatedTerms);
      // A skipped run compared nothing: no error to give.
      std::string Error = VR->Outcome == VerifyResult::Status::Skipped
                              ? ""
                              : llvm::formatv(", max relative error {0:e}{1}",
                                              VR->MaxRelError, Widened)
                                    .str();
      Out << llvm::formatv("verify {0} ({1}): {2}{3}{4}\n", Name, Where,
                           verifyStatusName(VR->Outcome), Error,
                           VR->Detail.empty() ? "" : " — " + VR->Detail);
    }
  }
  O["verify_runs"] = std::move(Runs);
}

} // namespace gpumerge
