//===- FileJob.cpp - One input file through gpumerge ----------------------===//
#include "Driver/FileJob.h"
#include "Analysis/Coalescing.h"
#include "CodeGen/CudaSpelling.h"
#include "CodeGen/Emitter.h"
#include "Driver/NvccCheck.h"
#include "Driver/Tune.h"
#include "Frontend/Frontend.h"
#include "IR/Verifier.h"
#include "Pipeline/Pipeline.h"
#include "Runtime/TuneCache.h"
#include "Runtime/Verify.h"
#include "Target/Ptxas.h"
#include "Transforms/PassRegistry.h"
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

namespace {

const char *extensionOf(Language L) {
  return L == Language::Cuda ? ".cu" : ".cl";
}

} // namespace

std::vector<std::pair<std::string, std::string>>
preprocessorFlags(const std::vector<std::string> &Args) {
  std::vector<std::pair<std::string, std::string>> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    for (llvm::StringRef Flag : {"-include", "-I", "-D", "-U"}) {
      if (!A.startswith(Flag))
        continue;
      std::string Value = A.size() > Flag.size()
                              ? A.drop_front(Flag.size()).str()
                          : I + 1 < Args.size() ? Args[++I]
                                                : "";
      Out.emplace_back(Flag.str(), Value);
      break;
    }
  }
  return Out;
}

std::string sizesText(const SizeBindings &Sizes) {
  std::string Text;
  for (const auto &[Name, Value] : Sizes)
    Text += (Text.empty() ? "" : ",") + Name + "=" + std::to_string(Value);
  return Text;
}

int FileJob::run(llvm::json::Array &ReportFiles) {
  FrontendOptions FO;
  FO.ExtraArgs = Opts.ClangArgs;
  if (llvm::StringRef Debug(Opts.DebugFail);
      Debug.consume_front("lower-crash="))
    FO.CrashLowering = Debug.str();
  std::optional<llvm::Expected<std::unique_ptr<Module>>> Parsed;
  llvm::CrashRecoveryContext CRC;
  if (!CRC.RunSafely([&] { Parsed.emplace(parseFile(Input, FO)); })) {
    Parsed.reset(); // half-built: not read
    return passThroughFile("gpumerge crashed while parsing it");
  }
  if (!*Parsed) {
    std::string Msg = llvm::toString(Parsed->takeError());
    Err << Msg << (llvm::StringRef(Msg).endswith("\n") ? "" : "\n");
    return ExitBadInput;
  }
  M = std::move(**Parsed);
  hintGivenSizes();
  // Global barriers split, grid-stride loops read as one thread per
  // element (InputRewrites.h).
  Reading = rewriteInput(*M, Opts.DisabledPasses, Input, Opts.DebugFail, Err);
  // OpenCL's vector arithmetic and the like, which CUDA lacks.
  if (M->Lang == Language::OpenCL && outputLang() == Language::Cuda)
    passThroughWhatCudaCannotSpell(*M);
  for (const std::string &W : M->Warnings)
    Err << "warning: " << W << "\n";
  for (const Unsupported &U : M->PassedThrough)
    Err << llvm::formatv("{0}:{1}: warning: {2} '{3}' passed through "
                         "unchanged: {4}\n",
                         Input, U.Line,
                         U.IsKernel ? "kernel" : "helper function", U.Kernel,
                         U.Construct);
  for (Function *F : M->kernels())
    if (auto E = verifyFunction(*F)) {
      Err << Input << ": error: " << llvm::toString(std::move(E)) << "\n";
      return ExitBadInput;
    }
  warnUnknownSizes();
  if (Opts.Analyze)
    return analyze(ReportFiles);
  return optimize(ReportFiles);
}

void FileJob::hintGivenSizes() {
  for (Function *F : M->kernels())
    for (const Param &P : F->Params)
      if (!P.Ty.IsPointer && P.Ty.isInteger())
        if (auto It = Opts.Sizes.find(P.Name); It != Opts.Sizes.end())
          F->SizeHints.try_emplace(P.Name, It->second);
}

void FileJob::warnUnknownSizes() {
  std::set<std::string> Names;
  for (const Function *F : M->kernels())
    for (const Param &P : F->Params)
      if (!P.Ty.IsPointer && P.Ty.isInteger())
        Names.insert(P.Name);
  std::vector<std::string> Unknown;
  for (const auto &[Name, Value] : Opts.Sizes)
    if (!Names.count(Name))
      Unknown.push_back(Name);
  if (!Unknown.empty())
    Err << llvm::formatv("{0}: warning: --size: no kernel here has an "
                         "integer parameter {1}; ignored (their sizes: "
                         "{2})\n",
                         Input, llvm::join(Unknown, ", "),
                         Names.empty() ? std::string("none")
                                       : llvm::join(Names, ", "));
}

int FileJob::passThroughFile(const std::string &What) {
  Language In = languageOfFile(Input);
  if (Opts.OutputLang && *Opts.OutputLang != In) {
    Err << Input << ": error: " << What
        << " (a gpumerge bug), and translating needs the parse: nothing "
           "written\n";
    return ExitInternal;
  }
  auto Text = llvm::MemoryBuffer::getFile(Input);
  if (!Text) {
    Err << Input << ": error: cannot read it again\n";
    return ExitBadInput;
  }
  for (MemoryVariant V : variants()) {
    std::string Path = outputPath(V, In);
    if (llvm::sys::fs::equivalent(Path, Input))
      continue;
    if (!Opts.OutDir.empty())
      llvm::sys::fs::create_directories(Opts.OutDir);
    if (auto E = writeFileAtomically(Path, (*Text)->getBuffer().str())) {
      Err << "error: " << llvm::toString(std::move(E)) << "\n";
      return ExitBadInput;
    }
  }
  Err << Input << ": warning: " << What
      << " (a gpumerge bug); the file is written unchanged\n";
  return ExitInternal;
}

int FileJob::analyze(llvm::json::Array &ReportFiles) {
  llvm::json::Array Kernels;
  for (Function *F : M->kernels()) {
    llvm::json::Array Accesses;
    if (!Opts.JsonReport)
      Out << "kernel " << F->Name << " (line " << F->Span.Line << ")\n";
    for (const Access &A : collectAccesses(*F)) {
      CoalescingResult C = checkCoalescing(A, MD);
      std::string Index = A.Index ? A.Index->str() : A.IndexText;
      if (Opts.JsonReport) {
        llvm::json::Object O{{"array", A.Array},
                             {"index", Index},
                             {"source_index", A.IndexText},
                             {"kind", indexKindName(A.Kind)},
                             {"coalesced", tristateName(C.Coalesced)},
                             {"access", A.IsWrite ? "write" : "read"},
                             {"line", A.Line}};
        if (C.Transactions)
          O["transactions"] = llvm::json::Object{
              {"worst", C.Transactions}, {"minimum", C.MinTransactions}};
        if (!C.Reason.empty())
          O["reason"] = C.Reason;
        Accesses.push_back(std::move(O));
      } else {
        Out << llvm::formatv("  line {0,-4} {1,-5} {2}[{3}]  kind={4} "
                             "coalesced={5}",
                             A.Line, A.IsWrite ? "write" : "read", A.Array,
                             Index, indexKindName(A.Kind),
                             tristateName(C.Coalesced));
        if (!C.Reason.empty())
          Out << "  (" << C.Reason << ")";
        Out << "\n";
      }
    }
    Kernels.push_back(llvm::json::Object{{"name", F->Name},
                                         {"line", F->Span.Line},
                                         {"accesses", std::move(Accesses)}});
  }
  for (const Unsupported &U : M->PassedThrough)
    if (U.IsKernel)
      Kernels.push_back(llvm::json::Object{
          {"name", U.Kernel},
          {"line", U.Line},
          {"status", "passed-through"},
          {"reason", llvm::formatv("{0} at line {1}", U.Construct, U.Line)}});
  ReportFiles.push_back(llvm::json::Object{
      {"file", Input}, {"target", MD.Name}, {"kernels", std::move(Kernels)}});
  return ExitOk;
}

std::vector<MemoryVariant> FileJob::variants() const {
  if (Opts.Memory == "global")
    return {MemoryVariant::Global};
  if (Opts.Memory == "texture")
    return {MemoryVariant::Texture};
  return {MemoryVariant::Global, MemoryVariant::Texture};
}

std::string FileJob::stepPath(const Function &F, unsigned Step,
                              const std::string &Name, MemoryVariant V) const {
  llvm::SmallString<256> P(Opts.EmitSteps);
  llvm::sys::path::append(P, llvm::formatv("{0}.{1}.{2:d2}-{3}{4}", F.Name,
                                           memoryVariantName(V), Step, Name,
                                           extensionOf(outputLang()))
                                 .str());
  return std::string(P);
}

llvm::Error FileJob::writeStep(const Function &F, unsigned Step,
                               const std::string &Name, MemoryVariant V) {
  if (Opts.EmitSteps.empty())
    return llvm::Error::success();
  if (auto EC = llvm::sys::fs::create_directories(Opts.EmitSteps))
    return llvm::createStringError(EC, "cannot create '%s'",
                                   Opts.EmitSteps.c_str());
  return writeFileAtomically(stepPath(F, Step, Name, V),
                             emitFunction(F, outputLang()));
}

llvm::Expected<PassContext> FileJob::passContext(const Function &Naive,
                                                 MemoryVariant V,
                                                 const TuneCandidate *Forced,
                                                 SearchSpace *Space) const {
  PassContext Ctx{MD, V};
  Ctx.PipelineGiven = Opts.Passes.has_value();
  Ctx.Output = outputLang();
  Ctx.Helpers = M->helpersCalled(Naive);
  if (!Opts.Texture.empty())
    Ctx.Texture = Opts.Texture == "ldg"        ? TextureForm::Ldg
                  : Opts.Texture == "restrict" ? TextureForm::Restrict
                                               : TextureForm::Object;
  if (!Opts.Merge.empty()) {
    auto Req = parseMergeRequest(Opts.Merge);
    if (!Req)
      return Req.takeError();
    Ctx.Merge = *Req;
  }
  if (Forced) { // a --tune candidate: a version of the tiled space
    Ctx.Merge = Forced->Merge;
    if (Forced->Form)
      Ctx.Texture = Forced->Form;
    Ctx.SplitLoops = false;
  }
  Ctx.Searched = Space;
  return Ctx;
}

llvm::Expected<VariantResult> FileJob::runPipeline(const Function &Naive,
                                                   MemoryVariant V,
                                                   const TuneCandidate *Forced,
                                                   SearchSpace *Space) {
  auto Names = pipelinePasses(Opts.Passes, Opts.DisabledPasses, V, MD);
  if (!Names)
    return Names.takeError();
  auto Ctx = passContext(Naive, V, Forced, Space);
  if (!Ctx)
    return Ctx.takeError();
  Ctx->PaperTextureAsked = llvm::is_contained(*Names, "texture-block-shape");
  PipelineRequest Req(Naive, std::move(*Ctx), Err);
  Req.Start = &Reading.startOf(Naive);
  Req.Passes = std::move(*Names);
  if (auto It = Reading.Notes.find(Naive.Name); It != Reading.Notes.end())
    Req.SkippedBefore.push_back({"grid-stride", It->second});
  Req.InternalErrorBefore = Reading.Crashed.count(Naive.Name) > 0;
  Req.DebugFail = Opts.DebugFail;
  Req.File = Input;
  Req.WriteStep = [&](const Function &K, unsigned Step,
                      const std::string &Pass) {
    return writeStep(K, Step, Pass, V);
  };
  auto P = gpumerge::runPipeline(Req);
  if (!P)
    return P.takeError();
  VariantResult R;
  static_cast<PipelineResult &>(R) = std::move(*P);
  keepWhatCanRun(Naive, R);
  R.Launch = launchReport(*R.Kernel, R.Shape);
  return R;
}

void FileJob::keepWhatCanRun(const Function &Naive, VariantResult &R) {
  MemoryVariant V = R.Variant;
  const Function &Start = Reading.startOf(Naive);
  // An optimized kernel whose launch conditions can never hold together
  // would never run: the output keeps the input's kernel, and says so.
  if (R.Kernel->Plan && !R.Passes.empty()) {
    std::vector<VerifyStage> Stage = {{&Start, R.Kernel.get(), {}}};
    if (planSatisfiability(domainKernels(Naive), Stage, Opts.Grid) ==
        PlanSatisfiability::Never) {
      LaunchShape Unused;
      llvm::json::Object L = launchReport(*R.Kernel, Unused);
      std::string Conditions;
      if (const llvm::json::Array *Pre = L.getArray("preconditions"))
        for (const llvm::json::Value &C : *Pre)
          if (auto T = C.getAsString())
            Conditions += (Conditions.empty() ? "" : "; ") + T->str();
      R.Kernel = Naive.clone();
      R.Status = "passed-through";
      R.Reason = "the optimized kernel's launch conditions can never hold "
                 "together (" +
                 Conditions +
                 "): it would never run, so the kernel is written unchanged";
      R.Passes.clear();
    }
  }
  // The emitters write the optimized kernel only where its launches can
  // all go through the generated launcher; otherwise the input's kernel
  // is what the output holds, and the report says so.
  if (R.Kernel->Plan) {
    std::string Problem = launchPlanProblem(*M, *R.Kernel, outputLang());
    // The NDRange helper sees the naive global size, not the work-group
    // size the thread positions assume.
    for (unsigned D = 0; D < 2 && Problem.empty(); ++D)
      if (outputLang() == Language::OpenCL && R.Kernel->FixedBlock[D])
        Problem = llvm::formatv(
            "the thread position assumes blocks of {0} threads in {1} "
            "(blockIdx.{2} * {0} + threadIdx.{2}), which the OpenCL "
            "launch helper cannot check",
            R.Kernel->FixedBlock[D], D == 0 ? "X" : "Y", D == 0 ? "x" : "y");
    if (!Problem.empty()) {
      R.Kernel = Naive.clone();
      R.Status = "passed-through";
      R.Reason = "optimized, but written unoptimized: " + Problem;
      Err << llvm::formatv("{0}:{1}: warning: kernel '{2}' ({3} variant) "
                           "written unoptimized: {4}\n",
                           Input, Naive.Span.Line, Naive.Name,
                           memoryVariantName(V), Problem);
    }
  }
}

std::string FileJob::outputPath(MemoryVariant V) const {
  return outputPath(V, outputLang());
}

std::string FileJob::outputPath(MemoryVariant V, Language L) const {
  if (!Opts.Output.empty())
    return Opts.Output;
  llvm::SmallString<256> P;
  if (!Opts.OutDir.empty())
    P = Opts.OutDir;
  else
    P = llvm::sys::path::parent_path(Input);
  llvm::sys::path::append(P, llvm::sys::path::stem(Input) + "." +
                                 memoryVariantName(V) + extensionOf(L));
  return std::string(P);
}

bool FileJob::revertWhatNvccRejects(
    size_t I, std::map<std::string, std::vector<VariantResult>> &Results,
    std::map<std::string, const Function *> &Replacements, EmittedModule &E) {
  std::string Arch =
      MD.SmArch.empty() ? firstCompiledArch(MD.PtxasStandIn) : MD.SmArch;
  std::optional<NvccCheck> Check =
      NvccCheck::forInput(Input, Opts.ClangArgs, Arch.empty() ? "sm_75" : Arch);
  if (!Check)
    return false;
  std::vector<std::string> Changed;
  for (auto &[Name, Rs] : Results)
    if (Rs[I].Status == "optimized")
      Changed.push_back(Name);
  auto Emit = [&](llvm::ArrayRef<std::string> Kept) {
    std::map<std::string, const Function *> Chosen;
    bool Reject = false;
    for (const std::string &K : Kept) {
      Chosen[K] = Replacements.at(K);
      Reject |= Opts.DebugFail == "nvcc-reject=" + K;
    }
    auto Part = emitModule(*M, Language::Cuda, Chosen);
    if (!Part) { // overlapping edits: not a file to judge, nor to keep
      llvm::consumeError(Part.takeError());
      return std::string("#error gpumerge could not write this file\n");
    }
    return Part->Text +
           (Reject ? "static_assert(false, \"--debug-fail\");\n" : "");
  };
  bool InputFails = false;
  std::map<std::string, std::string> Broken =
      kernelsBreakingTheBuild(*Check, Changed, Emit, InputFails);
  for (const Function *Naive : M->kernels()) {
    auto It = Broken.find(Naive->Name);
    if (It == Broken.end())
      continue;
    VariantResult &R = Results[Naive->Name][I];
    R.Kernel = Naive->clone();
    R.Passes.clear();
    R.Status = "passed-through";
    R.InternalError = true;
    R.Reason = llvm::formatv("gpumerge bug: the optimized kernel did not "
                             "compile with {0} ({1}); the kernel is written "
                             "as the input's",
                             Check->command(), It->second);
    R.Launch = launchReport(*R.Kernel, R.Shape);
    Replacements[Naive->Name] = R.Kernel.get();
    Err << llvm::formatv("{0}:{1}: warning: kernel '{2}' ({3} variant): "
                         "{4}\n",
                         Input, Naive->Span.Line, Naive->Name,
                         memoryVariantName(R.Variant), R.Reason);
  }
  if (Broken.empty())
    return false;
  // Fewer edits than the file nvcc rejected: this emission cannot fail
  // where that one did not.
  if (auto Again = emitModule(*M, Language::Cuda, Replacements))
    E = std::move(*Again);
  else
    llvm::consumeError(Again.takeError());
  return true;
}

llvm::Expected<VariantResult>
FileJob::optimizeKernel(const Function &F, MemoryVariant V, bool &Mismatch) {
  SearchSpace Space;
  auto R = runPipeline(F, V, nullptr, &Space);
  if (!R)
    return R.takeError();
  bool Tuned = (Opts.Tune || !Opts.TuneCache.empty()) &&
               R->Status == "optimized" && R->Kernel->Plan && F.PhaseOf.empty();
  // A split loop leaves the merges nothing to rank: the space the
  // tiled versions would come from is ranked without it.
  if (Tuned && R->Kernel->Plan->Lanes > 1) {
    TuneCandidate Tiled;
    auto T = runPipeline(F, V, &Tiled, &Space);
    if (!T)
      llvm::consumeError(T.takeError());
  }
  if (Tuned)
    tune(F, V, *R, Space, Mismatch);
  if (Opts.Verify) {
    // A phase runs over the grid of its split kernel.
    std::vector<VerifyStage> Stage = {
        {&Reading.startOf(F), R->Kernel.get(), R->Shape}};
    verifyBothPaths(domainKernels(F), Stage, F.Name, F.Span.Line, V,
                    /*WholeSplit=*/false, R->Verified, R->VerifiedOptimized,
                    Mismatch, R->FallbackOnly);
  }
  return R;
}

int FileJob::writeVariant(
    size_t I, const std::vector<MemoryVariant> &Vs,
    std::map<std::string, std::vector<VariantResult>> &Results,
    llvm::json::Array &Outputs, std::vector<std::string> &Warned,
    bool &Internal) {
  std::map<std::string, const Function *> Replacements;
  for (auto &[Name, Rs] : Results)
    Replacements[Name] = Rs[I].Kernel.get();
  auto Emitted = emitModule(*M, outputLang(), Replacements);
  if (!Emitted) {
    Err << "error: " << llvm::toString(Emitted.takeError()) << "; "
        << outputPath(Vs[I]) << " not written\n";
    return ExitInternal;
  }
  EmittedModule &E = *Emitted;
  Internal |= E.InternalError;
  if (outputLang() == Language::Cuda)
    Internal |= revertWhatNvccRejects(I, Results, Replacements, E);
  for (const std::string &W : E.Warnings)
    if (!llvm::is_contained(Warned, W)) {
      Warned.push_back(W);
      Err << "warning: " << W << "\n";
    }
  std::string Path = outputPath(Vs[I]);
  if (llvm::sys::fs::equivalent(Path, Input)) {
    Err << "error: refusing to overwrite the input '" << Input
        << "'; choose another -o\n";
    return ExitUsage;
  }
  if (!Opts.OutDir.empty())
    llvm::sys::fs::create_directories(Opts.OutDir);
  if (auto Error = writeFileAtomically(Path, E.Text)) {
    Err << "error: " << llvm::toString(std::move(Error)) << "\n";
    return ExitBadInput;
  }
  Outputs.push_back(
      llvm::json::Object{{"memory", memoryVariantName(Vs[I])}, {"path", Path}});
  if (!Opts.JsonReport)
    Out << "wrote " << Path << "\n";
  // An OpenCL host learns the NDRange of kernels launched differently
  // (and when to enqueue <name>_naive instead) from a header beside the
  // kernels: NAME.global.cl → NAME.global.h.
  std::string Header = outputLang() == Language::OpenCL
                           ? emitOpenCLLaunchHeader(*M, Replacements)
                           : "";
  if (Header.empty())
    return 0;
  llvm::SmallString<256> HeaderPath(Path);
  llvm::sys::path::replace_extension(HeaderPath, ".h");
  if (HeaderPath == Path)
    HeaderPath += ".h";
  if (llvm::sys::fs::equivalent(HeaderPath, Input)) {
    Err << "error: refusing to overwrite the input '" << Input
        << "' with the launch header; choose another -o\n";
    return ExitUsage;
  }
  if (auto Error = writeFileAtomically(std::string(HeaderPath), Header)) {
    Err << "error: " << llvm::toString(std::move(Error)) << "\n";
    return ExitBadInput;
  }
  Outputs.push_back(llvm::json::Object{{"memory", memoryVariantName(Vs[I])},
                                       {"path", HeaderPath},
                                       {"kind", "launch-header"}});
  if (!Opts.JsonReport)
    Out << "wrote " << HeaderPath << "\n";
  return 0;
}

int FileJob::optimize(llvm::json::Array &ReportFiles) {
  std::vector<MemoryVariant> Vs = variants();
  // kernel name → one result per variant
  std::map<std::string, std::vector<VariantResult>> Results;
  bool Mismatch = false;
  bool Internal = llvm::any_of(
      M->PassedThrough, [](const Unsupported &U) { return U.InternalError; });
  for (MemoryVariant V : Vs) {
    for (Function *F : M->kernels()) {
      auto R = optimizeKernel(*F, V, Mismatch);
      if (!R) {
        Err << Input << ": error: " << llvm::toString(R.takeError()) << "\n";
        return ExitUsage;
      }
      Internal |= R->InternalError;
      Results[F->Name].push_back(std::move(*R));
    }
    if (Opts.Verify)
      for (const PhasedKernel &PK : M->Phased)
        if (int Code = verifySplit(PK, V, Results, Mismatch))
          return Code;
  }

  // Write every variant's file: whole or not at all.
  llvm::json::Array Outputs;
  std::vector<std::string> Warned; // variants share most warnings
  for (size_t I = 0; I < Vs.size(); ++I)
    if (int Code = writeVariant(I, Vs, Results, Outputs, Warned, Internal))
      return Code;

  llvm::json::Array Kernels;
  for (Function *F : M->kernels()) {
    llvm::json::Array Variants;
    for (VariantResult &R : Results[F->Name])
      Variants.push_back(variantReport(F->Name, R));
    llvm::json::Object K{{"name", F->Name},
                         {"line", F->Span.Line},
                         {"variants", std::move(Variants)}};
    if (!F->PhaseOf.empty()) {
      K["phase_of"] = F->PhaseOf;
      K["phase"] = F->PhaseIndex;
    }
    Kernels.push_back(std::move(K));
  }
  for (const PhasedKernel &PK : M->Phased)
    Kernels.push_back(splitReport(PK, Vs));
  llvm::json::Array Helpers;
  passedThroughReport(Vs, Kernels, Helpers);
  ReportFiles.push_back(
      llvm::json::Object{{"file", Input},
                         {"target", MD.Name},
                         {"language", languageName(outputLang())},
                         {"outputs", std::move(Outputs)},
                         {"kernels", std::move(Kernels)},
                         {"helpers", std::move(Helpers)}});
  return Mismatch ? ExitMismatch : Internal ? ExitInternal : ExitOk;
}

} // namespace gpumerge
