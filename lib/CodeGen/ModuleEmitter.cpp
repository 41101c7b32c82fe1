//===- ModuleEmitter.cpp - Whole files from KIR ---------------------------===//
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/Launcher.h"
#include "CodeGen/MathSpellings.h"
#include "CodeGen/OpenCLEmitter.h"
#include "CodeGen/PhasedLaunch.h"
#include "CodeGen/SimdIntrinsics.h"
#include "CodeGen/TemplateLaunch.h"
#include "IR/HalfPrecision.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cassert>
#include <regex>
#include <set>
#include <variant>

namespace gpumerge {

std::unique_ptr<Printer> makeCudaEmitter(llvm::raw_ostream &OS);
std::unique_ptr<Printer> makeOpenCLEmitter(llvm::raw_ostream &OS);

std::unique_ptr<Printer> makeEmitter(Language L, llvm::raw_ostream &OS) {
  return L == Language::Cuda ? makeCudaEmitter(OS) : makeOpenCLEmitter(OS);
}

std::string emitFunction(const Function &F, Language L) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  makeEmitter(L, OS)->printFunction(F);
  return OS.str();
}

std::string emitExpr(const Expr &E, Language L) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  makeEmitter(L, OS)->printExpr(E);
  return OS.str();
}

std::string asyncCopyInclude(const Function &F) {
  return hasAsyncCopies(F)
             ? "#include <cuda_pipeline_primitives.h> // cp.async\n"
             : "";
}

/// The #include that \p Replacements' asynchronous copies need in \p L.
static std::string
asyncCopyInclude(const std::map<std::string, const Function *> &Replacements,
                 Language L) {
  if (L == Language::Cuda)
    for (const auto &[Name, F] : Replacements)
      if (std::string I = asyncCopyInclude(*F); !I.empty())
        return I;
  return "";
}

/// The input's kernel \p Naive as <name>_naive in \p L: in the input's
/// language its definition as written (comments, macros and literals kept)
/// with the name renamed; translated (to the other language, or from the
/// original compiler's dialect), printed from KIR.
static std::string fallbackText(const Module &M, const Function &Naive,
                                Language L) {
  // The original compiler's dialect (bare idx, ...) is another language:
  // its kernels are translated, like CUDA to OpenCL.
  if (L == M.Lang && Naive.NameSpan && !Naive.PaperDialect) {
    const SourceSpan &N = *Naive.NameSpan;
    std::string Text = M.text(Naive.Span);
    Text.replace(N.Begin - Naive.Span.Begin, N.End - N.Begin,
                 fallbackName(Naive.Name));
    return Text + "\n";
  }
  std::unique_ptr<Function> Fallback = Naive.clone();
  Fallback->Name = fallbackName(Naive.Name);
  return emitFunction(*Fallback, L);
}

/// \p Optimized, which has a usable plan, then <name>_edge where the plan
/// has edges and, in CUDA, its launcher, separated by blank lines.
static std::string emitOptimized(const Function &Optimized, Language L) {
  std::string S = emitFunction(Optimized, L);
  if (Optimized.Plan->hasEdges())
    S += "\n" + emitFunction(*edgeKernel(Optimized), L);
  if (L == Language::Cuda)
    S += "\n" + emitCudaLauncher(Optimized);
  return S;
}

/// What stands for \p Naive when its replacement \p Optimized has a usable
/// plan: the input's kernel renamed <name>_naive, then emitOptimized (the
/// optimized kernel under the input's name).
static std::string emitWithFallback(const Module &M, const Function &Naive,
                                    const Function &Optimized, Language L) {
  return fallbackText(M, Naive, L) + "\n" + emitOptimized(Optimized, L);
}

/// Is \p R, standing for \p F in the output, \p F itself: no plan and the
/// same text? Then the output keeps \p F as written.
static bool unchanged(const Function &F, const Function &R, Language L) {
  return &F == &R || (!R.Plan && R.PhaseOf == F.PhaseOf &&
                      emitFunction(F, L) == emitFunction(R, L));
}

/// The function that stands for \p F in \p L: its replacement, or \p F
/// itself. A replacement whose plan cannot be used is dropped with a warning
/// (the optimized kernel is only correct when launched by its plan).
static const Function &
outputFunction(const Module &M, const Function &F, Language L,
               const std::map<std::string, const Function *> &Replacements,
               bool &UsesPlan, std::vector<std::string> &Warnings) {
  UsesPlan = false;
  auto It = Replacements.find(F.Name);
  if (It == Replacements.end() || unchanged(F, *It->second, L))
    return F;
  const Function &Out = *It->second;
  if (!Out.Plan || !F.IsKernel)
    return Out;
  std::string Why = launchPlanProblem(M, Out, L);
  if (Why.empty()) {
    UsesPlan = true;
    return Out;
  }
  Warnings.push_back(llvm::formatv("{0}:{1}: kernel '{2}' written "
                                   "unoptimized: {3}",
                                   M.FileName, F.Span.Line, F.Name, Why));
  return F;
}

/// `gpumerge_launch_k(grid, block, smem, stream, args)` for the launch
/// \p C, from the texts of its configuration and arguments (a launch
/// without smem or stream passes 0, as <<<>>> does).
static std::string launcherCall(const Module &M, const KernelCallSite &C) {
  auto Text = [&](const SourceSpan &S) {
    return M.Source.substr(S.Begin, S.End - S.Begin);
  };
  std::string Callee = Text(C.Callee); // k, ::k or ns::k
  // A launch left to a template's instantiations calls the dispatcher, with
  // the template arguments it writes.
  Callee.replace(Callee.size() - C.Written.size(), C.Written.size(),
                 launcherName(C.Template.empty() ? C.Kernel : C.Template));
  if (C.TemplateArgs)
    Callee += Text(*C.TemplateArgs);
  std::vector<std::string> Args;
  for (const SourceSpan &S : C.Config)
    Args.push_back(Text(S));
  while (Args.size() < 4)
    Args.push_back("0");
  for (const SourceSpan &S : C.Args)
    Args.push_back(Text(S));
  return Callee + "(" + llvm::join(Args, ", ") + ")";
}

/// The launcher of the split kernel whose last phase is \p F, when \p F is
/// one (in CUDA): after the phases, which precede it in \p M.Functions.
static std::string
phasedLauncherAfter(const Module &M, const Function &F,
                    const std::map<std::string, const Function *> &Planned) {
  const PhasedKernel *PK =
      F.PhaseOf.empty() ? nullptr : M.findPhased(F.PhaseOf);
  if (!PK || PK->Phases.back() != F.Name)
    return "";
  std::vector<bool> UsesPlan;
  for (const std::string &P : PK->Phases)
    UsesPlan.push_back(Planned.count(P) > 0);
  return emitCudaPhasedLauncher(*PK, *M.find(PK->Phases.front()), UsesPlan);
}

namespace {
/// One edit of the input text: [Begin, End) becomes Text.
struct Edit {
  unsigned Begin, End;
  std::string Text;
  /// The kernels whose replacements made the edit; none where it is made
  /// whatever the replacements (a split kernel's phases, a helper
  /// template's instantiation).
  std::set<std::string> Kernels = {};
};

/// The input text with \p Edits applied, last to first so that offsets stay
/// valid; or, where two of them overlap (a gpumerge bug), the two.
std::variant<std::string, std::pair<const Edit *, const Edit *>>
applyEdits(const std::string &Source, std::vector<Edit> &Edits) {
  std::stable_sort(
      Edits.begin(), Edits.end(),
      [](const Edit &A, const Edit &B) { return A.Begin > B.Begin; });
  const Edit *Previous = nullptr;
  for (const Edit &E : Edits) {
    if (E.End > (Previous ? Previous->Begin : Source.size()) || E.Begin > E.End)
      return std::make_pair(&E, Previous);
    Previous = &E;
  }
  std::string Text = Source;
  for (const Edit &E : Edits)
    Text.replace(E.Begin, E.End - E.Begin, E.Text);
  return Text;
}

std::string describe(const Edit *E) {
  return E ? llvm::formatv("[{0}, {1})", E->Begin, E->End).str()
           : std::string("the end of the input");
}
} // namespace

namespace {
/// The edits of the input text that emitInPlace applies, gathered function
/// by function, then launch by launch.
class InPlaceEditor {
public:
  InPlaceEditor(const Module &M,
                const std::map<std::string, const Function *> &Replacements,
                std::vector<std::string> &Warnings)
      : M(M), Replacements(Replacements), Warnings(Warnings) {}

  void editFunctions();
  void editNeededInstantiations();
  void editLaunches();

  std::vector<Edit> Edits;

private:
  size_t afterTemplateOf(const Function &F, const std::string &Body);
  void editInstantiation(const Function &F, const Function &Out, bool UsesPlan);
  void editFunction(const Function &F, const Function &Out, bool UsesPlan);
  void editPhasedLaunch(const KernelCallSite &C, const PhasedKernel &PK);
  void editPlannedLaunch(const KernelCallSite &C, const Function &Out);
  void editDispatchers();

  const Module &M;
  const std::map<std::string, const Function *> &Replacements;
  std::vector<std::string> &Warnings;
  std::map<std::string, const Function *> Planned; // name → optimized
  std::map<unsigned, size_t> AfterTemplate;        // template end → its edit
  std::vector<const Function *> Printed;           // from KIR: what they call
  std::set<std::string> Declared; ///< kernels whose launcher is declared
  /// kernel template → its instantiations that its dispatcher launches
  /// through their launchers.
  std::map<std::string, std::vector<const Function *>> Dispatched;
  std::set<unsigned> DispatchSites;
};
} // namespace

/// Appends \p Body to the edit after the template \p F instantiates (made
/// on first use); returns that edit's index.
size_t InPlaceEditor::afterTemplateOf(const Function &F,
                                      const std::string &Body) {
  auto [It, New] = AfterTemplate.try_emplace(F.Span.End, Edits.size());
  if (New)
    Edits.push_back({F.Span.End, F.Span.End, ""});
  Edits[It->second].Text += "\n\n" + Body;
  return It->second;
}

/// The edits of each lowered function's definition.
void InPlaceEditor::editFunctions() {
  for (const auto &FP : M.Functions) {
    const Function &F = *FP;
    // A helper's instantiation is written only where a kernel written from
    // KIR calls it (below); a helper of an included header stays there.
    if (!F.IsKernel && (!F.TemplateCall.empty() || F.Included))
      continue;
    bool UsesPlan;
    const Function &Out =
        outputFunction(M, F, M.Lang, Replacements, UsesPlan, Warnings);
    if (!F.TemplateCall.empty())
      editInstantiation(F, Out, UsesPlan);
    else
      editFunction(F, Out, UsesPlan);
  }
}

/// An instantiation \p F of a template, written as \p Out: the template
/// stays as written (it is the fallback), the optimized kernels of its
/// instantiations follow it.
void InPlaceEditor::editInstantiation(const Function &F, const Function &Out,
                                      bool UsesPlan) {
  if (!UsesPlan) {
    if (&Out != &F)
      Warnings.push_back(llvm::formatv(
          "{0}:{1}: kernel '{2}' written unoptimized: an instantiation "
          "of a template is optimized only with a launch plan",
          M.FileName, F.Span.Line, F.TemplateCall));
    return;
  }
  Planned[F.Name] = &Out;
  Printed.push_back(&Out);
  std::string Body = emitOptimized(Out, M.Lang);
  if (!Body.empty() && Body.back() == '\n')
    Body.pop_back();
  Edits[afterTemplateOf(F, Body)].Kernels.insert(F.Name);
}

/// \p F, not an instantiation, written as \p Out where it stood (with its
/// fallback where \p UsesPlan).
void InPlaceEditor::editFunction(const Function &F, const Function &Out,
                                 bool UsesPlan) {
  if (&Out != &F || !F.PhaseOf.empty() || F.PaperDialect)
    Printed.push_back(&Out);
  // What no pass changed stays as the user wrote it (a phase of a split
  // kernel is new text).
  if (&Out == &F && F.PhaseOf.empty() && !F.PaperDialect)
    return;
  std::string Body = UsesPlan ? emitWithFallback(M, F, Out, M.Lang)
                              : emitFunction(Out, M.Lang);
  if (UsesPlan) {
    Planned[F.Name] = &Out;
    // Its prototypes declare the input's signature, which only the
    // fallback keeps (the optimized kernel may take other parameters).
    auto P = M.PrototypeNames.find(F.Name);
    if (P != M.PrototypeNames.end())
      for (const SourceSpan &N : P->second)
        if (M.text(N) == F.Name)
          Edits.push_back({N.Begin, N.End, fallbackName(F.Name), {F.Name}});
  }
  if (M.Lang == Language::Cuda)
    if (std::string L = phasedLauncherAfter(M, F, Planned); !L.empty())
      Body += "\n" + L;
  if (!Body.empty() && Body.back() == '\n')
    Body.pop_back();
  std::set<std::string> Made;
  if (&Out != &F)
    Made.insert(F.Name);
  // The phases of a split kernel stand in order where it stood.
  if (F.PhaseIndex > 0 && !Edits.empty() &&
      Edits.back().Begin == F.Span.Begin) {
    Edits.back().Text += "\n\n" + Body;
    Edits.back().Kernels.insert(Made.begin(), Made.end());
    return;
  }
  Edits.push_back({F.Span.Begin, F.Span.End, Body, Made});
}

/// The instantiations of helper templates that the functions written from
/// KIR call (sq_float for sq<float>), and those they call, each after its
/// template; the functions kept as written call the templates themselves.
void InPlaceEditor::editNeededInstantiations() {
  std::set<std::string> Needed;
  while (!Printed.empty()) {
    const Function *P = Printed.back();
    Printed.pop_back();
    walkExprs(*P->Body, [&](const Expr &E) {
      const auto *C = llvm::dyn_cast<CallExpr>(&E);
      const Function *H = C ? M.find(C->Callee) : nullptr;
      if (H && !H->IsKernel && !H->TemplateCall.empty() &&
          Needed.insert(H->Name).second)
        Printed.push_back(H);
    });
  }
  for (const auto &FP : M.Functions)
    if (Needed.count(FP->Name)) {
      std::string Body = emitFunction(*FP, M.Lang);
      if (!Body.empty() && Body.back() == '\n')
        Body.pop_back();
      afterTemplateOf(*FP, Body);
    }
}

/// The launches in host code of kernels written with their plan, and of
/// split kernels, as calls of their launchers.
void InPlaceEditor::editLaunches() {
  for (const KernelCallSite &C : M.CallSites) {
    if (const PhasedKernel *PK = M.findPhased(C.Kernel);
        PK && M.Lang == Language::Cuda) {
      editPhasedLaunch(C, *PK);
      continue;
    }
    auto It = Planned.find(C.Kernel);
    if (It == Planned.end() || M.Lang != Language::Cuda)
      continue;
    editPlannedLaunch(C, *It->second);
  }
  editDispatchers();
}

/// A split kernel is gone: its launches all call the phases' launcher
/// (splitGlobalBarriers made sure they can be rewritten).
void InPlaceEditor::editPhasedLaunch(const KernelCallSite &C,
                                     const PhasedKernel &PK) {
  Edits.push_back({C.Call.Begin, C.Call.End, launcherCall(M, C)});
  if (C.Call.Begin < PK.Span.Begin && C.PrototypeBegin &&
      Declared.insert(C.Kernel).second) {
    size_t Line = M.Source.rfind('\n', *C.PrototypeBegin);
    unsigned At = Line == std::string::npos ? 0 : Line + 1;
    Edits.push_back(
        {At, At,
         emitCudaPhasedLauncherDeclaration(PK, *M.find(PK.Phases.front()))});
  }
}

/// Launch \p C of a kernel written as \p Out with its plan.
void InPlaceEditor::editPlannedLaunch(const KernelCallSite &C,
                                      const Function &Out) {
  // A launch left to a template's instantiations has a site per kernel
  // it launches: rewritten once, into a call of the dispatcher, which
  // launches each optimized instantiation through its launcher.
  if (!C.Template.empty()) {
    std::vector<const Function *> &Instances = Dispatched[C.Template];
    if (std::find(Instances.begin(), Instances.end(), &Out) == Instances.end())
      Instances.push_back(&Out);
    if (DispatchSites.insert(C.Call.Begin).second)
      Edits.push_back(
          {C.Call.Begin, C.Call.End, launcherCall(M, C), {C.Kernel}});
    return;
  }
  // launchPlanProblem made sure every launch of a planned kernel can be
  // rewritten and has a prototype to follow where it precedes the kernel.
  Edits.push_back({C.Call.Begin, C.Call.End, launcherCall(M, C), {C.Kernel}});
  if (C.Call.Begin < M.find(C.Kernel)->Span.Begin &&
      Declared.insert(C.Kernel).second) {
    size_t Line = M.Source.rfind('\n', *C.PrototypeBegin);
    unsigned At = Line == std::string::npos ? 0 : Line + 1;
    Edits.push_back({At, At, emitCudaLauncherDeclaration(Out), {C.Kernel}});
  }
}

/// Each kernel template's dispatcher, after the template.
void InPlaceEditor::editDispatchers() {
  for (const auto &[Name, Instances] : Dispatched) {
    std::string Body =
        emitCudaTemplateDispatcher(*M.findTemplate(Name), Instances);
    Body.pop_back();
    Edit &E = Edits[afterTemplateOf(*M.find(Instances.front()->Name), Body)];
    for (const Function *I : Instances)
      E.Kernels.insert(I->Name);
  }
}

static llvm::Expected<EmittedModule>
emitInPlace(const Module &M,
            std::map<std::string, const Function *> Replacements,
            const std::string &Extra);

/// emitInPlace again where two of its edits overlap (\p Overlap, a gpumerge
/// bug): the kernels that made them are kept as written, with a warning;
/// an error where no kernel made them.
static llvm::Expected<EmittedModule> emitWithoutOverlap(
    const Module &M, std::map<std::string, const Function *> Replacements,
    const std::string &Extra, std::pair<const Edit *, const Edit *> Overlap) {
  // Kept as written, the kernels that made the two edits make neither.
  std::set<std::string> Dropped;
  for (const Edit *E : {Overlap.first, Overlap.second})
    if (E)
      for (const std::string &K : E->Kernels)
        if (Replacements.erase(K))
          Dropped.insert(K);
  std::string Where =
      describe(Overlap.first) + " and " + describe(Overlap.second);
  if (Dropped.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: internal error: two edits of the input overlap (%s), and no "
        "kernel made them (a gpumerge bug)",
        M.FileName.c_str(), Where.c_str());
  auto Retried = emitInPlace(M, Replacements, Extra);
  if (!Retried)
    return Retried.takeError();
  std::vector<std::string> Warnings;
  for (const std::string &K : Dropped)
    Warnings.push_back(llvm::formatv(
        "{0}:{1}: kernel '{2}' written unoptimized: internal error: its "
        "edits of the input overlap another's ({3}; a gpumerge bug)",
        M.FileName, M.find(K) ? M.find(K)->Span.Line : 0, K, Where));
  Retried->Warnings.insert(Retried->Warnings.begin(), Warnings.begin(),
                           Warnings.end());
  Retried->InternalError = true;
  return Retried;
}

/// Same language: the input text with each lowered function's definition
/// replaced and, for a kernel written with its plan, every launch in host
/// code replaced by a call of its launcher (declared before the first
/// launch where that precedes the kernel: at the kernel's prototype). The
/// edited ranges must not overlap: where two do (a gpumerge bug), the
/// kernels that made them are written unoptimized, with a warning, and
/// where no kernel made them the file is an error.
static llvm::Expected<EmittedModule>
emitInPlace(const Module &M,
            std::map<std::string, const Function *> Replacements,
            const std::string &Extra) {
  EmittedModule Result;
  InPlaceEditor Editor(M, Replacements, Result.Warnings);
  Editor.editFunctions();
  Editor.editNeededInstantiations();
  Editor.editLaunches();
  auto Applied = applyEdits(M.Source, Editor.Edits);
  if (auto *Overlap = std::get_if<1>(&Applied))
    return emitWithoutOverlap(M, std::move(Replacements), Extra, *Overlap);
  std::string &Text = std::get<0>(Applied);
  if (!Extra.empty()) {
    if (!Text.empty() && Text.back() != '\n')
      Text += "\n";
    Text += "\n" + Extra;
  }
  Result.Text = asyncCopyInclude(Replacements, M.Lang) + Text;
  return Result;
}

/// A typedef of the input (`typedef unsigned long long u64Int;`, Clang's
/// spelling of the canonical type) as OpenCL C reads it: `long long` is a
/// reserved 128-bit type there, and PoCL took it as one, so the kernel wrote
/// 16-byte elements into 8-byte ones (HeCBench's randomAccess: the verify
/// run's heap corrupted). OpenCL's long is 64 bits.
/// CUDA's 3-vectors (a typedef of float3) are OpenCL's gpumerge_float3
/// (openclPackedVectorName).
static std::string openclTypedef(llvm::StringRef Def) {
  std::string Out = Def.str();
  for (size_t At = Out.find("long long"); At != std::string::npos;
       At = Out.find("long long", At))
    Out.replace(At, 9, "long");
  static const std::regex Vector3(
      "\\b((u?char|u?short|u?int|u?long|float|double)3)\\b");
  return std::regex_replace(Out, Vector3, "gpumerge_$1");
}

/// Does a function of \p M call assert (CUDA's device-side check)?
static bool callsAssert(const Module &M) {
  bool Found = false;
  for (const auto &F : M.Functions)
    walkExprs(*F->Body, [&](const Expr &E) {
      if (const auto *C = llvm::dyn_cast<CallExpr>(&E))
        Found |= C->Callee == "assert";
    });
  return Found;
}

/// The struct definitions of the CUDA 3-vectors \p M uses, for OpenCL.
static std::set<std::string> packedVectorTypedefs(const Module &M) {
  std::set<std::string> Defs;
  for (const auto &F : M.Functions)
    forEachType(*F, [&](const Type &T) {
      if (T.Packed)
        Defs.insert(openclPackedVectorTypedef(T));
    });
  return Defs;
}

/// The OpenCL definitions of the CUDA SIMD intrinsics \p M calls.
static std::set<std::string> simdIntrinsicDefinitions(const Module &M) {
  std::set<std::string> Defs;
  for (const auto &F : M.Functions)
    walkExprs(*F->Body, [&](const Expr &E) {
      if (const auto *C = llvm::dyn_cast<CallExpr>(&E))
        if (std::string D = openclSimdIntrinsicDefinition(C->Callee);
            !D.empty())
          Defs.insert(D);
    });
  return Defs;
}

/// The scalar types \p M's functions compute with: double needs an OpenCL
/// extension, 16-bit floats the translation's rounding (and bfloat16's
/// conversions).
static std::set<ScalarKind> scalarKinds(const Module &M) {
  std::set<ScalarKind> Kinds;
  for (const auto &F : M.Functions)
    forEachType(*F, [&](const Type &T) { Kinds.insert(T.Scalar); });
  return Kinds;
}

/// The other language: a new file of typedefs, macros, helpers and kernels.
static EmittedModule
emitTranslated(const Module &M, Language L,
               const std::map<std::string, const Function *> &Replacements,
               const std::string &Extra,
               const std::set<std::string> *Only = nullptr) {
  EmittedModule Out;
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "// Generated by gpumerge from "
     << llvm::sys::path::filename(M.FileName) << " (" << languageName(M.Lang)
     << " to " << languageName(L) << ").\n";
  std::set<ScalarKind> Kinds = scalarKinds(M);
  bool GlobalSync = false;
  for (const auto &F : M.Functions)
    GlobalSync |= hasGlobalSync(*F);
  if (L == Language::OpenCL && Kinds.count(ScalarKind::Double))
    OS << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  OS << asyncCopyInclude(Replacements, L);
  if (GlobalSync)
    OS << (L == Language::Cuda ? "__device__ void gpumerge_global_sync();\n"
                               : "void gpumerge_global_sync(void);\n");
  for (const auto &[Name, Def] : M.Macros)
    OS << Def << "\n";
  if (L == Language::OpenCL)
    for (const std::string &Def : packedVectorTypedefs(M))
      OS << Def << "\n";
  if (L == Language::OpenCL && callsAssert(M))
    OS << "// OpenCL C has no assert: the CUDA input's checks are left out.\n"
          "#define assert(c) ((void)0)\n";
  for (const auto &[Name, Def] : M.Typedefs)
    OS << (L == Language::OpenCL ? openclTypedef(Def) : Def) << "\n";
  if (L == Language::OpenCL) {
    for (const std::string &Def : simdIntrinsicDefinitions(M))
      OS << Def << "\n";
    for (ScalarKind K : {ScalarKind::Half, ScalarKind::BFloat16})
      if (Kinds.count(K))
        OS << openclHalfPrecisionDefinitions(K);
  }
  std::unique_ptr<Printer> P = makeEmitter(L, OS);
  for (const Module::ConstantDefinition &C : M.ConstantDefinitions) {
    // A CUDA scalar stays a compile-time constant, as in the input.
    if (L == Language::OpenCL)
      OS << "__constant ";
    else
      OS << (C.Extents.empty() ? "const " : "__constant__ ");
    OS << P->typeSpelling(C.Element) << " " << C.Name;
    for (std::int64_t X : C.Extents)
      OS << "[" << X << "]";
    OS << " = " << C.Initializer << ";\n";
  }
  for (const Unsupported &U : M.PassedThrough) {
    std::string W =
        llvm::formatv("{0}:{1}: {2} '{3}' not translated to {4}: {5}",
                      M.FileName, U.Line,
                      U.IsKernel ? "kernel" : "helper function", U.Kernel,
                      languageName(L), U.Construct)
            .str();
    OS << "\n// gpumerge: " << W << "\n";
    Out.Warnings.push_back(W);
  }
  // What an OpenCL program of these kernels needs from its host code, or
  // cannot do.
  if (L == Language::OpenCL)
    for (const Function *K : M.kernels()) {
      for (const Param &C : K->ConstantArrays)
        Out.Warnings.push_back(
            llvm::formatv("{0}:{1}: kernel '{2}' reads the __constant__ array "
                          "'{3}', which OpenCL passes as an argument: the "
                          "OpenCL kernel takes it after its own parameters",
                          M.FileName, K->Span.Line, K->Name, C.Name)
                .str());
      if (isOpenCLBuiltinFunction(K->Name))
        Out.Warnings.push_back(
            llvm::formatv("{0}:{1}: kernel '{2}' has the name of an OpenCL "
                          "built-in function, which an OpenCL program cannot "
                          "define as a kernel: rename it for the OpenCL "
                          "output",
                          M.FileName, K->Span.Line, K->Name)
                .str());
    }
  auto Written = [&](const Function &F) {
    return !Only || Only->count(F.Name);
  };
  // Helpers called above their definition were declared there by the
  // input's prototypes, which a translation does not keep.
  std::set<std::string> Defined;
  std::vector<const Function *> Prototyped;
  for (const auto &F : M.Functions) {
    if (!Written(*F))
      continue;
    Defined.insert(F->Name);
    walkExprs(*F->Body, [&](const Expr &E) {
      const auto *C = llvm::dyn_cast<CallExpr>(&E);
      if (!C || Defined.count(C->Callee))
        return;
      for (const Function *H : M.overloads(C->Callee))
        if (!H->IsKernel && !llvm::is_contained(Prototyped, H))
          Prototyped.push_back(H);
    });
  }
  if (!Prototyped.empty())
    OS << "\n";
  for (const Function *H : Prototyped)
    P->printPrototype(*H);
  std::map<std::string, const Function *> Planned;
  for (const auto &F : M.Functions) {
    if (!Written(*F))
      continue;
    bool UsesPlan;
    const Function &Fn =
        outputFunction(M, *F, L, Replacements, UsesPlan, Out.Warnings);
    OS << "\n";
    if (UsesPlan) {
      OS << emitWithFallback(M, *F, Fn, L);
      Planned[F->Name] = &Fn;
    } else {
      P->printFunction(Fn);
    }
    if (L == Language::Cuda)
      if (std::string Launcher = phasedLauncherAfter(M, *F, Planned);
          !Launcher.empty())
        OS << "\n" << Launcher;
  }
  if (!Extra.empty())
    OS << "\n" << Extra;
  Out.Text = OS.str();
  return Out;
}

llvm::Expected<EmittedModule>
emitModule(const Module &M, Language L,
           const std::map<std::string, const Function *> &Replacements,
           const std::string &Extra) {
  if (L == M.Lang)
    return emitInPlace(M, Replacements, Extra);
  return emitTranslated(M, L, Replacements, Extra);
}

EmittedModule emitTranslatedPart(
    const Module &M, Language L, const std::set<std::string> &Only,
    const std::map<std::string, const Function *> &Replacements) {
  assert(L != M.Lang && "only a translation leaves functions out");
  return emitTranslated(M, L, Replacements, "", &Only);
}

} // namespace gpumerge
