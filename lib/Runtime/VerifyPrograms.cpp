//===- VerifyPrograms.cpp - The programs a verify run builds --------------===//
#include "Runtime/VerifyPrograms.h"
#include "Analysis/Races.h"
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/MathSpellings.h"
#include "CodeGen/RaceCheck.h"
#include "CodeGen/WriteCollisions.h"
#include "Runtime/VerifyCuda.h"

#include <cstring>

namespace gpumerge {

/// \p F without the last barrier it has (--debug-fail's drop-barrier).
static std::unique_ptr<Function> withoutLastBarrier(const Function &F) {
  std::unique_ptr<Function> Out = F.clone();
  std::vector<StmtPtr> *Body = nullptr;
  size_t At = 0;
  walkStmts(*Out->Body, [&](Stmt &S) {
    if (auto *B = llvm::dyn_cast<BlockStmt>(&S))
      for (size_t I = 0; I < B->Body.size(); ++I)
        if (llvm::isa<SyncStmt>(*B->Body[I])) {
          Body = &B->Body;
          At = I;
        }
  });
  if (Body)
    Body->erase(Body->begin() + std::ptrdiff_t(At));
  return Out;
}

/// \p F with each __pipeline_wait_prior(N) waiting for one batch fewer
/// (N + 1): the copies of the tile about to be read may still be in flight
/// (--debug-fail=verify-candidate=weaken-wait, for the tests).
static std::unique_ptr<Function> withWeakerWaits(const Function &F) {
  std::unique_ptr<Function> Out = F.clone();
  walkStmts(*Out->Body, [](Stmt &S) {
    if (auto *P = llvm::dyn_cast<PipelineStmt>(&S))
      if (P->Operation == PipelineStmt::Op::WaitPrior)
        ++P->Prior;
  });
  return Out;
}

std::string untranslatedCall(const Module &M,
                             const std::set<std::string> &Reached,
                             llvm::StringRef Log) {
  std::set<std::string> Called;
  for (const std::string &Name : Reached)
    for (const Function *F : M.overloads(Name))
      walkExprs(*F->Body, [&](const Expr &E) {
        if (const auto *C = llvm::dyn_cast<CallExpr>(&E))
          Called.insert(C->Callee);
      });
  for (const char *Marker :
       {"undeclared identifier '", "implicit declaration of function '"})
    for (size_t At = Log.find(Marker); At != llvm::StringRef::npos;
         At = Log.find(Marker, At + 1)) {
      llvm::StringRef Name =
          Log.drop_front(At + std::strlen(Marker)).take_until([](char C) {
            return C == '\'';
          });
      if (Called.count(Name.str()) && !M.find(Name.str()))
        return Name.str();
    }
  return "";
}

std::string translatedKernelName(const Module &M, const std::string &Kernel) {
  return M.Lang == Language::Cuda && isOpenCLBuiltinFunction(Kernel)
             ? "gpumerge_" + Kernel
             : Kernel;
}

void renameKernel(std::string &Text, const std::string &From,
                  const std::string &To) {
  if (From == To)
    return;
  const std::string Old = "__kernel void " + From + "(";
  const std::string New = "__kernel void " + To + "(";
  for (size_t At = Text.find(Old); At != std::string::npos;
       At = Text.find(Old, At + New.size()))
    Text.replace(At, Old.size(), New);
}

llvm::Error setCudaPrograms(const Module &M,
                            const std::vector<VerifyStage> &Stages,
                            const std::vector<Launch> &Launches,
                            const VerifyOptions &Opts, DeviceRun &Run,
                            VerifyResult &Result) {
  if (!Opts.ReferenceSource.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--reference is an OpenCL kernel, which runs with --device=opencl");
  std::map<std::string, const Function *> Replacements;
  for (const VerifyStage &St : Stages)
    Replacements[St.Naive->Name] = St.Emitted;
  auto Programs = cudaVerifyPrograms(M, Replacements, Opts.ParseArgs);
  if (!Programs)
    return Programs.takeError();
  Run.Reference = std::move(Programs->Reference);
  Run.ReferencePrinted = !M.Phased.empty();
  Run.Candidate = std::move(Programs->Candidate);
  Result.Reference = Programs->ReferenceNote;
  // The kernels each program launches, by the names NVRTC finds them by:
  // as written, an instantiation of a template by its template's
  // (axpy<float>), which stays the launcher's fallback, qualified with the
  // namespaces the input declares them in (blas::axpy<float>), where the
  // output keeps them too; the edges and the fallback where a plan has
  // them (a texture too large falls back on the device).
  for (const VerifyStage &St : Stages) {
    std::string Written = cudaKernelName(*St.Naive);
    Run.ReferenceNames[St.Naive->Name] = Written;
    Run.ReferenceKernels.push_back(Written);
  }
  for (const Launch &L : Launches) {
    const VerifyStage &St = Stages[size_t(&L - Launches.data())];
    // Unplanned, the input's kernel runs by its name as written.
    auto Launched = [&](const std::string &Name) {
      std::string Found = cudaKernelName(
          *St.Naive, !St.Emitted->Plan && Name == St.Naive->Name ? "" : Name);
      Run.CandidateNames[Name] = Found;
      Run.CandidateKernels.push_back(std::move(Found));
    };
    Launched(L.Candidate);
    if (St.Emitted->Plan && L.Candidate != L.Fallback)
      Launched(L.Fallback);
    if (!L.Edges.empty())
      Launched(edgeName(L.Naive));
  }
  return llvm::Error::success();
}

/// Sets \p Run's CheckedCandidate: its Candidate with the optimized kernels
/// that run among \p Launches checking their shared-memory accesses for
/// races, which PoCL's order of work-items hides (a --tune candidate on
/// some of its work-groups, beside the runs it is timed by).
static void addRaceChecks(const Module &M,
                          const std::vector<VerifyStage> &Stages,
                          const std::vector<Launch> &Launches,
                          const VerifyOptions &Opts, DeviceRun &Run,
                          const std::set<std::string> &Reached) {
  std::string Checking = Run.Candidate;
  for (size_t I = 0; I < Stages.size(); ++I) {
    const Function &E = *Stages[I].Emitted;
    if (!E.Plan || Launches[I].Candidate != E.Name)
      continue;
    // --debug-fail=verify-candidate=drop-barrier (tests): the kernel run
    // lacks its last barrier, a race the check must report.
    std::unique_ptr<Function> Broken;
    if (Opts.DebugFailCandidate == "drop-barrier")
      Broken = withoutLastBarrier(E);
    if (Opts.DebugFailCandidate == "weaken-wait")
      Broken = withWeakerWaits(E);
    auto Checked = emitRaceChecked(Broken ? *Broken : E);
    std::string Plain = emitFunction(E, Language::OpenCL);
    size_t At = Checking.find(Plain);
    if (!Checked || At == std::string::npos)
      continue;
    Checking.replace(At, Plain.size(), Checked->Text);
    Run.RaceChecked[E.Name] = Checked->Arrays;
  }
  if (!Run.RaceChecked.empty())
    Run.CheckedCandidate = raceCheckHelpers() + Checking;
  for (const auto &F : M.Functions)
    if (!F->IsKernel && Reached.count(F->Name) && readsGridPlace(*F))
      Run.NotSampled = "'" + F->Name +
                       "' reads the grid position, which a launch of some "
                       "of the work-groups changes";
}

/// Sets \p Run's CollisionCheck: its Reference (the input's kernels in
/// OpenCL) with those of \p Unproven that assign global elements claiming
/// them (WriteCollisions.h), printed from KIR in place of the kernel as the
/// reference holds it (printed, or an OpenCL input's definition as
/// written).
static void
addCollisionChecks(const Module &M,
                   const std::map<std::string, const Function *> &Unproven,
                   DeviceRun &Run) {
  std::string Checking = Run.Reference;
  for (const auto &[Name, F] : Unproven) {
    auto Checked = emitCollisionChecked(*F);
    std::string Plain = emitFunction(*F, Language::OpenCL);
    size_t At = Checking.find(Plain);
    if (At == std::string::npos && M.Lang == Language::OpenCL) {
      Plain = M.text(F->Span);
      At = Plain.empty() ? std::string::npos : Checking.find(Plain);
    }
    if (!Checked || At == std::string::npos)
      continue;
    Checking.replace(At, Plain.size(), Checked->Text);
    Run.CollisionChecked[Name] = Checked->Arrays;
  }
  if (!Run.CollisionChecked.empty())
    Run.CollisionCheck = std::move(Checking);
}

/// Renames, in \p Run's programs, each CUDA kernel named like an OpenCL
/// built-in function (`step`, `dot`) as the translation does.
static void renameBuiltinNamedKernels(const Module &M,
                                      const VerifyOptions &Opts,
                                      DeviceRun &Run) {
  for (const Function *F : M.kernels()) {
    std::string New = translatedKernelName(M, F->Name);
    if (New == F->Name)
      continue;
    renameKernel(Run.Candidate, F->Name, New);
    renameKernel(Run.CheckedCandidate, F->Name, New);
    Run.CandidateNames[F->Name] = New;
    if (Opts.ReferenceSource.empty()) {
      renameKernel(Run.Reference, F->Name, New);
      renameKernel(Run.CollisionCheck, F->Name, New);
      Run.ReferenceNames[F->Name] = New;
    }
  }
}

bool setOpenCLPrograms(const Module &M, const std::vector<VerifyStage> &Stages,
                       const std::vector<Launch> &Launches,
                       const VerifyOptions &Opts, DeviceRun &Run,
                       VerifyResult &Result, std::set<std::string> &Reached) {
  // The input as written, unless it is CUDA or had kernels split at
  // global barriers: then the naive kernels (phases) written as OpenCL.
  bool AsWritten = M.Lang == Language::OpenCL && M.Phased.empty();
  Result.Reference =
      AsWritten ? "the OpenCL input as written"
      : M.Lang == Language::OpenCL
          ? "the OpenCL input with its split kernels' phases printed from KIR"
          : "the CUDA input translated to OpenCL by gpumerge";
  // A translation holds only the kernels this run launches and the helpers
  // they call: another kernel that OpenCL cannot build (it calls an
  // intrinsic OpenCL lacks) costs that kernel alone.
  std::vector<const Function *> Roots;
  for (const VerifyStage &St : Stages)
    Roots.insert(Roots.end(), {St.Naive, St.Emitted});
  Reached = M.callClosure(Roots);
  auto Translated = [&](const std::map<std::string, const Function *> &R)
      -> llvm::Expected<std::string> {
    if (M.Lang == Language::Cuda)
      return emitTranslatedPart(M, Language::OpenCL, Reached, R).Text;
    auto E = emitModule(M, Language::OpenCL, R);
    if (!E)
      return E.takeError();
    return std::move(E->Text);
  };
  if (AsWritten) {
    Run.Reference = M.Source;
  } else if (auto T = Translated({})) {
    Run.Reference = std::move(*T);
  } else {
    Result.Detail = llvm::toString(T.takeError());
    return false;
  }
  Run.ReferencePrinted = !AsWritten;
  // The input's writes checked where they may collide (not with
  // --reference, whose kernel is not the input).
  std::map<std::string, const Function *> Unproven;
  for (const VerifyStage &St : Stages)
    if (Opts.ReferenceSource.empty() &&
        !unprovenWrite(*St.Naive, Result.Sizes, Result.Domain).empty())
      Unproven[St.Naive->Name] = St.Naive;
  if (!Unproven.empty())
    addCollisionChecks(M, Unproven, Run);
  if (!Opts.ReferenceSource.empty()) {
    // The reference runs kernel by kernel: a kernel split at its global
    // barriers has no counterpart there to run phase by phase.
    if (!M.Phased.empty()) {
      Result.Detail = "--reference cannot stand for kernels split at global "
                      "barriers (they run as their phases)";
      return false;
    }
    Result.Reference = Opts.ReferenceName + " (--reference)";
    Run.Reference = Opts.ReferenceSource;
    Run.ReferencePrinted = false;
  }
  std::map<std::string, const Function *> Replacements;
  for (const VerifyStage &St : Stages)
    Replacements[St.Naive->Name] = St.Emitted;
  if (auto T = Translated(Replacements)) {
    Run.Candidate = std::move(*T);
  } else {
    Result.Detail = llvm::toString(T.takeError());
    return false;
  }
  addRaceChecks(M, Stages, Launches, Opts, Run, Reached);
  renameBuiltinNamedKernels(M, Opts, Run);
  return true;
}

} // namespace gpumerge
