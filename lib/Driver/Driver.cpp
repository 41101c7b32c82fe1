//===- Driver.cpp - What the gpumerge command does ------------------------===//
#include "Driver/Driver.h"
#include "Analysis/BlockBounds.h"
#include "Analysis/Coalescing.h"
#include "CodeGen/CudaSpelling.h"
#include "CodeGen/Emitter.h"
#include "Driver/Carving.h"
#include "Driver/NvccCheck.h"
#include "Driver/Tune.h"
#include "Frontend/Frontend.h"
#include "IR/Printer.h"
#include "IR/Verifier.h"
#include "Pipeline/Pipeline.h"
#include "Analysis/LaunchConditions.h"
#include "Runtime/TuneCache.h"
#include "Runtime/Verify.h"
#include "Target/MachineDescription.h"
#include "Target/Occupancy.h"
#include "Target/Ptxas.h"
#include "Transforms/GridStride.h"
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

bool parseSizes(llvm::StringRef Spec, SizeBindings &Sizes, std::string &Bad) {
  llvm::SmallVector<llvm::StringRef, 8> Items;
  Spec.split(Items, ',', -1, false);
  for (llvm::StringRef Item : Items) {
    auto [Name, Value] = Item.split('=');
    std::int64_t V;
    if (Name.trim().empty() || Value.trim().getAsInteger(10, V) || V <= 0) {
      Bad = Item.str();
      return false;
    }
    Sizes[Name.trim().str()] = V;
  }
  return true;
}

int worseExit(int A, int B) {
  auto Rank = [](int C) {
    switch (C) {
    case ExitOk:
      return 0;
    case ExitInternal:
      return 1;
    case ExitBadInput:
      return 2;
    case ExitUsage:
      return 3;
    case ExitMismatch:
      return 5;
    default:
      return 4; // a code of someone else's (a signal, a tool)
    }
  };
  return Rank(A) >= Rank(B) ? A : B;
}

bool parseGrid(llvm::StringRef Spec, std::array<std::int64_t, 2> &Grid) {
  auto [X, Y] = Spec.split(',');
  Grid = {1, 1};
  if (X.trim().getAsInteger(10, Grid[0]) || Grid[0] <= 0)
    return false;
  if (!Y.empty() && (Y.trim().getAsInteger(10, Grid[1]) || Grid[1] <= 0))
    return false;
  return true;
}

llvm::Error writeFileAtomically(const std::string &Path,
                                const std::string &Text) {
  // A device or pipe (-o /dev/null, /dev/stdout) is written as it is: a
  // rename would replace it with a file.
  llvm::sys::fs::file_status Status;
  if (!llvm::sys::fs::status(Path, Status) && llvm::sys::fs::exists(Status) &&
      Status.type() != llvm::sys::fs::file_type::regular_file &&
      Status.type() != llvm::sys::fs::file_type::directory_file) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (!EC)
      OS << Text;
    if (EC || OS.has_error())
      return llvm::createStringError(EC ? EC : OS.error(), "cannot write '%s'",
                                     Path.c_str());
    return llvm::Error::success();
  }
  llvm::SmallString<256> Temp;
  int FD;
  std::string Model = Path + ".tmp-%%%%%%";
  if (auto EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp))
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      llvm::sys::fs::remove(Temp);
      return llvm::createStringError(OS.error(), "cannot write '%s'",
                                     Path.c_str());
    }
  }
  if (auto EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  }
  return llvm::Error::success();
}

namespace {

const char *extensionOf(Language L) {
  return L == Language::Cuda ? ".cu" : ".cl";
}

/// The parse's flags (after `--`) that change what the source means: -I,
/// -D, -U and -include, each with its value, attached (-DN=4) or the next
/// argument (-D N=4).
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

/// "h=133,k=135,w=131".
std::string sizesText(const SizeBindings &Sizes) {
  std::string Text;
  for (const auto &[Name, Value] : Sizes)
    Text += (Text.empty() ? "" : ",") + Name + "=" + std::to_string(Value);
  return Text;
}

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

class FileJob {
public:
  FileJob(const DriverOptions &Opts, const MachineDescription &MD,
          const std::string &Input, llvm::raw_ostream &Out,
          llvm::raw_ostream &Err)
      : Opts(Opts), MD(MD), Input(Input), Out(Out), Err(Err) {}

  int run(llvm::json::Array &ReportFiles) {
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
    // Kernels with global barriers become phase kernels (or are refused).
    splitGlobalBarriers(*M);
    // Grid-stride loops read as one thread per element, for the passes (a
    // crash there, a gpumerge bug, leaves that kernel as it is).
    for (Function *F : M->kernels()) {
      std::string WhyNot;
      std::unique_ptr<Function> G;
      if (!llvm::CrashRecoveryContext().RunSafely([&] {
            if (Opts.DebugFail == "grid-stride-crash=" + F->Name)
              std::abort();
            G = guardGridStride(*F, WhyNot);
          })) {
        G.reset();
        WhyNot = "gpumerge crashed reading its grid-stride loop (a gpumerge "
                 "bug)";
        GridStrideCrashed.insert(F->Name);
        Err << llvm::formatv("{0}:{1}: warning: reading the grid-stride loop "
                             "of kernel '{2}' crashed, a gpumerge bug; the "
                             "kernel goes on as written\n",
                             Input, F->Span.Line, F->Name);
      }
      if (G)
        Guarded[F->Name] = std::move(G);
      else if (!WhyNot.empty())
        GridStrideNotes[F->Name] = WhyNot;
    }
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

private:
  const DriverOptions &Opts;
  const MachineDescription &MD;
  const std::string &Input;
  llvm::raw_ostream &Out;
  llvm::raw_ostream &Err;
  std::unique_ptr<Module> M;
  /// Kernels of M whose grid-stride loop reads as a bounds guard
  /// (GridStride.h), in that form: the passes start there, and verify sizes
  /// the launch by its guard. M keeps them as written.
  std::map<std::string, std::unique_ptr<Function>> Guarded;
  /// Why a kernel's grid-stride loop was not read so, for the report; the
  /// kernels whose reading crashed (an internal error).
  std::map<std::string, std::string> GridStrideNotes;
  std::set<std::string> GridStrideCrashed;

  /// What the passes start from for kernel \p F: its guarded form, or F.
  const Function &startOf(const Function &F) const {
    auto It = Guarded.find(F.Name);
    return It == Guarded.end() ? F : *It->second;
  }

  /// --size is a size hint too, below the kernel's own (`#pragma gpumerge
  /// size`, then its launches' values): the model weighs the grid against
  /// the SMs at the sizes the user runs at, where the file does not say.
  void hintGivenSizes() {
    for (Function *F : M->kernels())
      for (const Param &P : F->Params)
        if (!P.Ty.IsPointer && P.Ty.isInteger())
          if (auto It = Opts.Sizes.find(P.Name); It != Opts.Sizes.end())
            F->SizeHints.try_emplace(P.Name, It->second);
  }

  /// A --size name no kernel of the file takes is ignored: say so, or a
  /// typo would verify (and tune) silently at other sizes than asked.
  void warnUnknownSizes() {
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

  /// After a crash of our own on the whole file (\p What): every output is
  /// the input as written, with a warning (a gpumerge bug). Translating
  /// needs the parse, so then nothing is written.
  int passThroughFile(const std::string &What) {
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

  int analyze(llvm::json::Array &ReportFiles) {
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

  std::vector<MemoryVariant> variants() const {
    if (Opts.Memory == "global")
      return {MemoryVariant::Global};
    if (Opts.Memory == "texture")
      return {MemoryVariant::Texture};
    return {MemoryVariant::Global, MemoryVariant::Texture};
  }

  Language outputLang() const { return Opts.OutputLang.value_or(M->Lang); }

  std::string stepPath(const Function &F, unsigned Step,
                       const std::string &Name, MemoryVariant V) const {
    llvm::SmallString<256> P(Opts.EmitSteps);
    llvm::sys::path::append(P, llvm::formatv("{0}.{1}.{2:d2}-{3}{4}", F.Name,
                                             memoryVariantName(V), Step, Name,
                                             extensionOf(outputLang()))
                                   .str());
    return std::string(P);
  }

  llvm::Error writeStep(const Function &F, unsigned Step,
                        const std::string &Name, MemoryVariant V) {
    if (Opts.EmitSteps.empty())
      return llvm::Error::success();
    if (auto EC = llvm::sys::fs::create_directories(Opts.EmitSteps))
      return llvm::createStringError(EC, "cannot create '%s'",
                                     Opts.EmitSteps.c_str());
    return writeFileAtomically(stepPath(F, Step, Name, V),
                               emitFunction(F, outputLang()));
  }

  /// The domain extent of dimension \p Dim as the report spells it.
  std::string extentText(const KernelDomain &D, unsigned Dim) const {
    if (Opts.Grid)
      return std::to_string((*Opts.Grid)[Dim]);
    if (D.Bounds[Dim].empty())
      return "<from the launch>";
    const DomainBound &B = D.Bounds[Dim].front();
    std::string Text = printExprDebug(*B.Bound);
    if (B.Offset)
      Text += llvm::formatv(" {0} {1}", B.Offset < 0 ? "-" : "+",
                            std::abs(B.Offset));
    return Text;
  }

  /// The launch configuration, preconditions and resources of \p K.
  llvm::json::Object launchReport(const Function &K, LaunchShape &Shape) {
    KernelDomain D = findDomain(tilingOrigin(K));
    Shape = naiveLaunch(D.Dims, K.FixedBlock,
                        sharedArrayBlockBound(tilingOrigin(K)));
    const LaunchPlan *P = K.Plan && !K.Plan->SameLaunch ? &*K.Plan : nullptr;
    if (P) {
      Shape.Block = P->Block;
      Shape.Coverage = P->Coverage;
    }
    // In the kernel's dimension order (the plan's, after an interchange).
    auto Extent = [&](unsigned Dim) {
      return P && P->Extent[Dim] ? printExprDebug(*P->Extent[Dim])
                                 : extentText(D, Dim);
    };
    llvm::json::Array Block, Grid;
    for (unsigned Dim = 0; Dim < D.Dims; ++Dim) {
      Block.push_back(P ? P->threads(Dim) : Shape.Block[Dim]);
      std::int64_t Tile = Shape.Block[Dim] * Shape.Coverage[Dim];
      Grid.push_back(
          P && !P->GuardsDomain
              ? llvm::formatv("({0}) / {1}", Extent(Dim), Tile).str()
              : llvm::formatv("ceil(({0}) / {1})", Extent(Dim), Tile).str());
    }
    llvm::json::Object L{{"block", std::move(Block)},
                         {"grid", std::move(Grid)}};
    // The input's grid-stride loop, read as a guard (GridStride.h).
    if (P && K.GridStrideLine)
      L["grid_stride_loop"] =
          llvm::formatv("line {0}, read as one thread per element: the "
                        "optimized kernel runs on a grid of its own, over "
                        "the loop's bound",
                        K.GridStrideLine)
              .str();
    // A 3-D grid: the optimized launch runs its layers one per block in Z.
    if (P && P->Layered && P->LayerExtent)
      L["layers"] = printExprDebug(*P->LayerExtent);
    // split-reduction: Lanes threads per output, each a share of its loop.
    if (P && P->Lanes > 1)
      L["threads_per_output"] = P->Lanes;
    if (!K.Plan)
      return L;
    llvm::json::Array Coverage, Pre;
    for (unsigned Dim = 0; Dim < D.Dims; ++Dim)
      Coverage.push_back(Shape.Coverage[Dim]);
    L["outputs_per_thread"] = std::move(Coverage);
    if (P && P->hasEdges()) {
      for (unsigned Dim = 0; Dim < D.Dims; ++Dim)
        Pre.push_back(llvm::formatv("({0}) >= {1} (the domain holds a whole "
                                    "tile)",
                                    Extent(Dim), P->tile(Dim))
                          .str());
      L["edge_kernel"] = edgeName(K.Name);
    }
    for (const Precondition &C : K.Plan->Preconditions)
      Pre.push_back(printExprDebug(*C.Cond) + " (" + C.Why + ")");
    for (const auto &[A, B] : K.Plan->Disjoint)
      Pre.push_back(A + " and " + B + " do not overlap");
    for (const auto &[A, Bytes] : K.Plan->AlignedBytes)
      Pre.push_back(
          llvm::formatv("{0} is {1}-byte aligned (vector accesses)", A, Bytes)
              .str());
    L["preconditions"] = std::move(Pre);
    L["fallback"] = fallbackName(K.Name);
    if (K.Plan->Interchanged)
      L["interchanged"] = "the kernel's X walks the naive Y positions";
    if (P) {
      bool Ptxas = !P->PtxasSource.empty();
      unsigned Regs = Ptxas ? P->PtxasRegisters : P->EstimatedRegisters;
      BlockResources Res{unsigned(P->Block[0] * P->Block[1]), Regs,
                         unsigned(P->SharedBytes)};
      Occupancy Occ = computeOccupancy(MD, Res);
      L["resources"] = llvm::json::Object{
          {"registers", Regs},
          {"registers_source", Ptxas ? P->PtxasSource : "estimate from KIR"},
          {"spilled_bytes", P->PtxasSpillBytes},
          {"shared_bytes", P->SharedBytes},
          {"blocks_per_sm", Occ.BlocksPerSM},
          {"limited_by", occupancyLimitName(Occ.Limit)}};
    }
    return L;
  }

  /// The context of the passes over kernel \p Naive in variant \p V: the
  /// options, or \p Forced's merge factors and texture form; \p Space
  /// receives the versions the merge passes ranked.
  llvm::Expected<PassContext> passContext(const Function &Naive,
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

  /// The pipeline over one kernel in one variant (Pipeline.h), then what
  /// the file decides: whether its launch can run, and its report;
  /// \p Forced: a --tune candidate's merge factors and texture form;
  /// \p Space receives the versions the merge passes ranked.
  llvm::Expected<VariantResult>
  runPipeline(const Function &Naive, MemoryVariant V,
              const TuneCandidate *Forced = nullptr,
              SearchSpace *Space = nullptr) {
    auto Names = pipelinePasses(Opts.Passes, Opts.DisabledPasses, V, MD);
    if (!Names)
      return Names.takeError();
    auto Ctx = passContext(Naive, V, Forced, Space);
    if (!Ctx)
      return Ctx.takeError();
    Ctx->PaperTextureAsked = llvm::is_contained(*Names, "texture-block-shape");
    PipelineRequest Req(Naive, std::move(*Ctx), Err);
    Req.Start = &startOf(Naive);
    Req.Passes = std::move(*Names);
    if (auto It = GridStrideNotes.find(Naive.Name); It != GridStrideNotes.end())
      Req.SkippedBefore.push_back({"grid-stride", It->second});
    Req.InternalErrorBefore = GridStrideCrashed.count(Naive.Name) > 0;
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

  /// Where the optimized kernel of \p R cannot run as the file is written,
  /// the output keeps \p Naive, and R says why: its launch conditions can
  /// never hold together, or its launches cannot all go through the
  /// generated launcher.
  void keepWhatCanRun(const Function &Naive, VariantResult &R) {
    MemoryVariant V = R.Variant;
    const Function &Start = startOf(Naive);
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

  std::string outputPath(MemoryVariant V) const {
    return outputPath(V, outputLang());
  }
  std::string outputPath(MemoryVariant V, Language L) const {
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
  std::vector<const Function *> domainKernels(const Function &F) const {
    const PhasedKernel *PK =
        F.PhaseOf.empty() ? nullptr : M->findPhased(F.PhaseOf);
    if (!PK)
      return {&startOf(F)};
    std::vector<const Function *> Out;
    for (const std::string &P : PK->Phases)
      Out.push_back(M->find(P));
    return Out;
  }

  /// Options for verify's OpenCL builds: the parse's -I, -D and -U (an
  /// include of the input's directory first, as the parse had it).
  std::string buildOptions() const {
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

  /// Do this file's kernels run on the CUDA device? A CUDA file written as
  /// CUDA does where there is one; everything else runs on OpenCL.
  bool runsOnCuda() const {
    return Opts.CudaDevice && M->Lang == Language::Cuda &&
           outputLang() == Language::Cuda;
  }

  /// Where this file's kernels run, for the report.
  std::string deviceNote() const {
    if (runsOnCuda())
      return Opts.DeviceNote;
    if (Opts.CudaDevice)
      return "opencl (the CUDA device runs CUDA files written as CUDA)";
    return Opts.DeviceNote.empty() ? "opencl" : Opts.DeviceNote;
  }

  /// The options of verify runs: sizes, grid, build flags, reference.
  VerifyOptions verifyOptions() const {
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

  /// How a --tune candidate is named: its launch shape (and texture form).
  std::string versionLabel(const VariantResult &R) const {
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

  /// How --tune runs: where, how many candidates, the cache.
  TuneOptions tuneOptions() const {
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

  /// Kernel \p Naive in variant \p V as the tuning cache keys it;
  /// \p SpaceSize: the versions --tune=all would time.
  TuneSubject tuneSubject(const Function &Naive, MemoryVariant V,
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

  /// --tune over the whole space (--tune=all, --tune=pareto): every
  /// candidate of \p All generated first into \p Pre (\p Generate; its
  /// kernel: \p KernelOf), with its carving metrics (Carving.h). With
  /// --tune=pareto, \p Order keeps only the model's choice, the other
  /// texture form and the versions on the Pareto front.
  void carve(const Function &Naive, const std::vector<TuneCandidate> &All,
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

  /// --tune's outcome \p O for kernel \p Naive in variant \p V: its
  /// warnings and the versions that did not match to Err (\p Mismatch set
  /// where the output keeps one); \p Chosen, the fastest version where it
  /// is not the model's choice, replaces \p R; R takes the report.
  void takeTuneOutcome(const Function &Naive, MemoryVariant V, TuneOutcome &O,
                       std::optional<VariantResult> *Chosen, VariantResult &R,
                       bool &Mismatch) {
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

  /// --tune (or a --tune-cache to read): the candidates of \p Space,
  /// generated, verified and timed (or looked up); the fastest replaces
  /// \p R, the model's choice. \p Mismatch is set where the output keeps
  /// a version that did not match.
  void tune(const Function &Naive, MemoryVariant V, VariantResult &R,
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
    auto KernelOf = [&](size_t I) -> const Function & {
      return *Made(I).Kernel;
    };
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
        Stages.push_back({{&startOf(Naive), C.Kernel.get(), C.Shape}});
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
                       bool &FallbackOnly) {
    VerifyOptions VO = verifyOptions();
    std::string What = llvm::formatv("kernel '{0}' ({1} variant{2})", Name,
                                     memoryVariantName(V),
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

  /// Runs the phases of \p PK in order, naive and as written in variant
  /// \p V (each on the path its launcher takes), at the sizes given and,
  /// when a phase fell back, where every phase's plan holds. 0, or the
  /// exit code of an error.
  int verifySplit(const PhasedKernel &PK, MemoryVariant V,
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

  /// The report of a kernel split at its global barriers.
  llvm::json::Object splitReport(const PhasedKernel &PK,
                                 const std::vector<MemoryVariant> &Vs) {
    llvm::json::Array Phases, Lines, Recomputed;
    for (const std::string &P : PK.Phases)
      Phases.push_back(P);
    for (unsigned L : PK.BarrierLines)
      Lines.push_back(L);
    for (const std::string &N : PK.Recomputed)
      Recomputed.push_back(N);
    std::string Barrier =
        PK.PaperDialect ? "__syncthreads() (the original compiler's dialect)"
                        : "gpumerge_global_sync()";
    llvm::json::Object Split{
        {"phases", std::move(Phases)},
        {"barrier_lines", std::move(Lines)},
        {"recomputed_locals", std::move(Recomputed)},
        {"reason",
         llvm::formatv("global barrier {0}: no launch can wait for the whole "
                       "grid, so the kernel runs as {1} kernels launched in "
                       "order over the same grid",
                       Barrier, PK.Phases.size())
             .str()}};
    if (outputLang() == Language::Cuda)
      Split["launcher"] = launcherName(PK.Name);
    llvm::json::Array Variants;
    auto &SVs = SplitResults[PK.Name];
    for (size_t I = 0; I < Vs.size(); ++I) {
      llvm::json::Object O{{"memory", memoryVariantName(Vs[I])},
                           {"status", "split"},
                           {"passes", llvm::json::Array{}}};
      if (I < SVs.size())
        reportVerify(O, PK.Name, Vs[I], SVs[I].Verified,
                     SVs[I].VerifiedOptimized, SVs[I].FallbackOnly);
      Variants.push_back(std::move(O));
    }
    return llvm::json::Object{{"name", PK.Name},
                              {"line", PK.Span.Line},
                              {"split", std::move(Split)},
                              {"variants", std::move(Variants)}};
  }

  /// How the report and the verify lines name a grid verify assumed (1-D:
  /// assumedVerifyGrid).
  static std::string assumedGridText(const std::array<std::int64_t, 2> &G) {
    return "grid " + std::to_string(G[0]) +
           " assumed (no guard bounds the thread position; --grid sets it)";
  }

  /// A verify run's launches (VerifyResult::Launches): per launch of an
  /// input kernel, its naive global and local sizes and what ran instead.
  static llvm::json::Array
  launchesJson(const std::vector<VerifyResult::LaunchRecord> &Launches) {
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

  /// The verify fields of a variant's report, and the text lines.
  void reportVerify(llvm::json::Object &O, const std::string &Name,
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

  /// Writes as the input's each kernel of variant \p I whose optimized form
  /// keeps \p E, the CUDA file about to be written, from compiling with
  /// nvcc (NvccCheck.h), with a warning, and emits \p E again without
  /// them. True when any was: a gpumerge bug.
  bool revertWhatNvccRejects(
      size_t I, std::map<std::string, std::vector<VariantResult>> &Results,
      std::map<std::string, const Function *> &Replacements, EmittedModule &E) {
    std::string Arch =
        MD.SmArch.empty() ? firstCompiledArch(MD.PtxasStandIn) : MD.SmArch;
    std::optional<NvccCheck> Check = NvccCheck::forInput(
        Input, Opts.ClangArgs, Arch.empty() ? "sm_75" : Arch);
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

  /// Kernel \p F in variant \p V: the pipeline, then --tune and --verify
  /// as asked. \p Mismatch is set where verify or the tuner found the
  /// output does not match the input. An error is the user's (a --passes
  /// or --merge the kernel cannot take).
  llvm::Expected<VariantResult>
  optimizeKernel(const Function &F, MemoryVariant V, bool &Mismatch) {
    SearchSpace Space;
    auto R = runPipeline(F, V, nullptr, &Space);
    if (!R)
      return R.takeError();
    bool Tuned = (Opts.Tune || !Opts.TuneCache.empty()) &&
                 R->Status == "optimized" && R->Kernel->Plan &&
                 F.PhaseOf.empty();
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
          {&startOf(F), R->Kernel.get(), R->Shape}};
      verifyBothPaths(domainKernels(F), Stage, F.Name, F.Span.Line, V,
                      /*WholeSplit=*/false, R->Verified, R->VerifiedOptimized,
                      Mismatch, R->FallbackOnly);
    }
    return R;
  }

  /// Writes the file of variant \p I of \p Vs (and, for OpenCL, its launch
  /// header) from \p Results, whole or not at all, and adds each path to
  /// \p Outputs. \p Warned: the emitters' warnings already given (variants
  /// share most). \p Internal is set where gpumerge hit a bug of its own.
  /// 0, or the exit code of an error.
  int writeVariant(size_t I, const std::vector<MemoryVariant> &Vs,
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
    Outputs.push_back(llvm::json::Object{{"memory", memoryVariantName(Vs[I])},
                                         {"path", Path}});
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

  /// The report of kernel \p Kernel in one variant, \p R (its --tune and
  /// verify lines go to Out as text). Takes R's launch and tune objects.
  llvm::json::Object variantReport(const std::string &Kernel,
                                   VariantResult &R) {
    llvm::json::Array Passes;
    for (const AppliedPass &P : R.Passes) {
      llvm::json::Object Params;
      for (auto &[K, V] : P.Parameters)
        Params[K] = V;
      Passes.push_back(llvm::json::Object{{"name", P.Name},
                                          {"parameters", std::move(Params)}});
    }
    llvm::json::Object O{{"memory", memoryVariantName(R.Variant)},
                         {"status", R.Status},
                         {"passes", std::move(Passes)},
                         {"launch", std::move(R.Launch)}};
    llvm::json::Array Skipped;
    for (const auto &[Name, Why] : R.Skipped)
      Skipped.push_back(llvm::json::Object{{"name", Name}, {"reason", Why}});
    O["not_applied"] = std::move(Skipped);
    if (!R.Reason.empty())
      O["reason"] = R.Reason;
    if (R.Tune)
      O["tune"] = std::move(*R.Tune);
    if (!Opts.JsonReport)
      for (const std::string &Line : R.TuneLines)
        Out << Line << "\n";
    reportVerify(O, Kernel, R.Variant, R.Verified, R.VerifiedOptimized,
                 R.FallbackOnly);
    return O;
  }

  /// What the frontend could not lower, for the report: kernels (one
  /// passed-through variant each of \p Vs) into \p Kernels, helpers apart
  /// into \p Helpers (the kernels calling them say so in their own
  /// reasons).
  void passedThroughReport(const std::vector<MemoryVariant> &Vs,
                           llvm::json::Array &Kernels,
                           llvm::json::Array &Helpers) const {
    for (const Unsupported &U : M->PassedThrough) {
      std::string Reason =
          llvm::formatv("{0} at line {1}", U.Construct, U.Line);
      if (!U.IsKernel) {
        Helpers.push_back(llvm::json::Object{{"name", U.Kernel},
                                             {"line", U.Line},
                                             {"status", "passed-through"},
                                             {"reason", Reason}});
        continue;
      }
      llvm::json::Array Variants;
      for (MemoryVariant V : Vs)
        Variants.push_back(llvm::json::Object{{"memory", memoryVariantName(V)},
                                              {"status", "passed-through"},
                                              {"reason", Reason},
                                              {"passes", llvm::json::Array{}}});
      Kernels.push_back(llvm::json::Object{{"name", U.Kernel},
                                           {"line", U.Line},
                                           {"variants", std::move(Variants)}});
    }
  }

  /// Every kernel in every variant: optimized (optimizeKernel), each
  /// variant's file written (writeVariant), then the file's report.
  int optimize(llvm::json::Array &ReportFiles) {
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
};

} // namespace

int runFile(const DriverOptions &Opts, const MachineDescription &MD,
            const std::string &Input, llvm::json::Array &ReportFiles,
            llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  return FileJob(Opts, MD, Input, Out, Err).run(ReportFiles);
}

} // namespace gpumerge
