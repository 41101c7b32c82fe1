//===- Frontend.cpp - Naive kernels from source to KIR --------------------===//
#include "Frontend/Frontend.h"
#include "Frontend/CallSites.h"
#include "Frontend/ContainErrors.h"
#include "Frontend/HostCode.h"
#include "Frontend/Inlining.h"
#include "Frontend/LaunchSizes.h"
#include "Frontend/Lower.h"
#include "Frontend/ParsedSource.h"
#include "Frontend/Pragmas.h"
#include "Frontend/Templates.h"

#include "clang/AST/Attr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace clang;
using namespace clang::ast_matchers;

namespace gpumerge {

Language languageOfFile(llvm::StringRef Path) {
  return llvm::sys::path::extension(Path) == ".cl" ? Language::OpenCL
                                                   : Language::Cuda;
}

/// Has the kernel template \p FD (its pattern) an instantiation with a body?
static bool hasInstantiations(const FunctionDecl &FD) {
  const FunctionTemplateDecl *T = FD.getDescribedFunctionTemplate();
  for (const FunctionDecl *I : T->specializations())
    if (I->isTemplateInstantiation() && I->hasBody())
      return true;
  return false;
}

/// The helpers that could not be lowered, each with what a message about
/// a call of it adds: nothing for the input's own (reported themselves),
/// where and why for an included file's (which the report does not list).
using FailedHelperMap = std::map<std::string, std::string>;

/// Why \p F cannot be kept: it calls a helper in \p Failed, or the
/// instantiation of a helper template defined after \p F (written after
/// that template, CodeGen/ModuleEmitter, so after \p F); empty when neither.
static std::string badCall(const Function &F, const FailedHelperMap &Failed,
                           const Module &M) {
  std::string Why;
  walkExprs(*F.Body, [&](const Expr &E) {
    const auto *C = llvm::dyn_cast<CallExpr>(&E);
    if (!C || !Why.empty())
      return;
    if (auto It = Failed.find(C->Callee); It != Failed.end()) {
      Why = "call of helper '" + C->Callee + "' that could not be lowered" +
            It->second;
      return;
    }
    const Function *H = M.find(C->Callee);
    if (H && !H->IsKernel && !H->TemplateCall.empty() &&
        H->Span.Begin > F.Span.Begin)
      Why = "call of '" + C->Callee +
            "', an instantiation of a helper template defined after this "
            "function";
  });
  return Why;
}

using LoweringResult = std::variant<std::unique_ptr<Function>, LoweringFailure>;

/// lowerFunction, where a crash of ours costs \p FD alone: nullopt then
/// (what it added to \p M, a typedef or a constant, stays). \p Crash: crash
/// on purpose (--debug-fail=crash-lowering).
static std::optional<LoweringResult> lowerContained(const FunctionDecl &FD,
                                                    ASTContext &Ctx,
                                                    Preprocessor &PP, Module &M,
                                                    bool Crash = false) {
  std::optional<LoweringResult> Attempt;
  if (!llvm::CrashRecoveryContext().RunSafely([&] {
        if (Crash)
          std::abort();
        Attempt.emplace(lowerFunction(FD, Ctx, PP, M));
      }))
    return std::nullopt;
  return Attempt;
}

/// Lowers \p FD, a helper of a header the input includes, into \p M as
/// Function::Included. Where it cannot be, \p Failed says where and why, and
/// a function calling it is passed through, as with the input's own helpers.
/// Its templates are left alone: a call of one stays a call (Lowering checks
/// that what it reaches reads no thread position).
static void lowerIncludedHelper(const FunctionDecl &FD, ASTContext &Ctx,
                                Preprocessor &PP, Module &M,
                                FailedHelperMap &Failed) {
  if (FD.isTemplateInstantiation() || FD.getDescribedFunctionTemplate() ||
      FD.getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Name = FD.getNameAsString();
  std::string File = llvm::sys::path::filename(
                         SM.getFilename(SM.getExpansionLoc(FD.getLocation())))
                         .str();
  auto Fail = [&](const std::string &Why, unsigned Line) {
    Failed.emplace(
        Name, llvm::formatv(" ({0}, line {1}: {2})", File, Line, Why).str());
  };
  std::optional<LoweringResult> Attempt = lowerContained(FD, Ctx, PP, M);
  if (!Attempt) {
    Fail("gpumerge crashed while lowering it (a gpumerge bug)",
         SM.getExpansionLineNumber(FD.getLocation()));
    return;
  }
  if (auto *Failure = std::get_if<LoweringFailure>(&*Attempt)) {
    Fail(Failure->Construct, Failure->Line);
    return;
  }
  auto F = std::move(std::get<std::unique_ptr<Function>>(*Attempt));
  F->Name = Name;
  F->Scope = namespaceQualifier(FD);
  F->Included = true;
  if (std::string Why = badCall(*F, Failed, M); !Why.empty()) {
    Fail(Why, SM.getExpansionLineNumber(FD.getLocation()));
    return;
  }
  M.Functions.push_back(std::move(F));
}

/// Sets each kernel's PositionHelper: the first helper it reaches through
/// calls that reads a thread or block built-in.
static void markPositionHelpers(Module &M) {
  std::map<std::string, std::string> Memo; // helper -> the one that reads
  std::function<std::string(const Function &, std::set<std::string> &)> Reader =
      [&](const Function &F, std::set<std::string> &Seen) {
        std::string Found;
        walkExprs(*F.Body, [&](const Expr &E) {
          if (!Found.empty())
            return;
          if (llvm::isa<BuiltinRef>(E) && !F.IsKernel) {
            Found = F.Name;
            return;
          }
          const auto *C = llvm::dyn_cast<CallExpr>(&E);
          const Function *H = C ? M.find(C->Callee) : nullptr;
          if (!H || H->IsKernel || !Seen.insert(H->Name).second)
            return;
          auto It = Memo.find(H->Name);
          if (It != Memo.end()) {
            Found = It->second;
            return;
          }
          Found = Reader(*H, Seen);
          Memo[H->Name] = Found;
        });
        return Found;
      };
  for (auto &F : M.Functions)
    if (F->IsKernel) {
      std::set<std::string> Seen;
      F->PositionHelper = Reader(*F, Seen);
    }
}

/// The name of \p FD where it is written plainly in the main file.
static std::optional<SourceSpan> nameSpanOf(const FunctionDecl &FD,
                                            const SourceManager &SM) {
  SourceLocation L = FD.getLocation();
  if (!L.isFileID() || !SM.isInMainFile(L))
    return std::nullopt;
  SourceSpan S;
  S.Begin = SM.getFileOffset(L);
  S.End = S.Begin + FD.getDeclName().getAsString().size();
  S.Line = SM.getExpansionLineNumber(L);
  return S;
}

/// The names in \p K's prototypes of the main file.
static std::vector<SourceSpan> prototypeNames(const FunctionDecl &K,
                                              const SourceManager &SM) {
  std::vector<SourceSpan> Out;
  for (const FunctionDecl *D : K.redecls())
    if (!D->doesThisDeclarationHaveABody())
      if (auto S = nameSpanOf(*D, SM))
        Out.push_back(*S);
  std::sort(Out.begin(), Out.end(),
            [](const SourceSpan &A, const SourceSpan &B) {
              return A.Begin < B.Begin;
            });
  return Out;
}

/// "kernels.cuh:2" for a declaration of \p K outside the main file (a header
/// other translation units include); "" when there is none.
static std::string headerDeclaration(const FunctionDecl &K,
                                     const SourceManager &SM) {
  for (const FunctionDecl *D : K.redecls()) {
    SourceLocation L = SM.getExpansionLoc(D->getLocation());
    if (L.isValid() && !SM.isInMainFile(L) && !SM.isWrittenInBuiltinFile(L) &&
        !SM.isInSystemHeader(L))
      if (std::string At = fileAndLine(L, SM); !At.empty())
        return At;
  }
  return "";
}

/// Kernels of an included file are that file's: gpumerge rewrites the file
/// it is given. Never a silent zero: a warning in \p M says where they are
/// and what to do.
static void warnIncludedKernels(const FunctionCollector &Collector,
                                const SourceManager &SM, Module &M) {
  for (const FunctionDecl *K : Collector.IncludedKernels) {
    SourceLocation L = SM.getExpansionLoc(K->getLocation());
    M.Warnings.push_back(llvm::formatv(
        "{0}:{1}: kernel '{2}' is defined in '{3}' (line {4}), which this "
        "file includes: it is left as it is; run gpumerge on that file, and "
        "launch the kernel through the gpumerge_launch_{2} it writes",
        M.FileName,
        SM.getExpansionLineNumber(SM.getIncludeLoc(SM.getFileID(L))),
        K->getNameAsString(), SM.getFilename(L).str(),
        SM.getExpansionLineNumber(L)));
  }
}

/// A kernel of \p Kernels named in a host function of \p BrokenHost may be
/// launched there unseen: a call site in \p M, not rewritable, says so, so
/// that it is never given a launch plan.
static void markUnseenLaunches(
    const std::vector<std::pair<const FunctionDecl *, std::string>> &BrokenHost,
    const std::vector<const FunctionDecl *> &Kernels, const SourceManager &SM,
    Module &M) {
  for (const auto &[FD, Why] : BrokenHost) {
    SourceSpan S = spanOf(*FD, SM);
    FileID In = fileIdOf(*FD, SM);
    llvm::StringRef Body = SM.getBufferData(In).slice(S.Begin, S.End);
    if (In != SM.getMainFileID()) {
      // The call site the messages name: the main file's include of it.
      SourceLocation Include = SM.getIncludeLoc(In);
      while (Include.isValid() && !SM.isInMainFile(Include))
        Include = SM.getIncludeLoc(SM.getFileID(Include));
      S.Begin = Include.isValid() ? SM.getFileOffset(Include) : 0;
      S.End = S.Begin;
      S.Line = Include.isValid() ? SM.getExpansionLineNumber(Include) : 0;
    }
    for (const FunctionDecl *K : Kernels) {
      std::string Name = K->getNameAsString();
      if (!Body.contains(Name))
        continue;
      KernelCallSite C;
      C.Kernel = kernelInstanceName(*K);
      C.Call = S;
      C.Call.End = S.Begin;
      C.NotRewritable = "host function '" + FD->getNameAsString() + "' (" +
                        fileOf(*FD, SM, M.FileName) + ") names kernel '" +
                        Name + "' and does not compile here (" + Why +
                        "), so its launches cannot all be seen";
      M.CallSites.push_back(std::move(C));
    }
  }
}

namespace {
/// Lowers the kernels and helpers of the input into a module one at a
/// time, in the order they are written; what it cannot lower it passes
/// through with the reason, and a helper passed through fails its callers.
class FunctionLowering {
public:
  FunctionLowering(ASTUnit &AST, const ContainedErrors &Errors,
                   const std::set<const FunctionDecl *> &Included,
                   const FrontendOptions &Opts, Module &M)
      : Ctx(AST.getASTContext()), PP(AST.getPreprocessor()),
        SM(Ctx.getSourceManager()), Errors(Errors), Included(Included),
        Opts(Opts), M(M) {}

  void lower(const FunctionDecl &FD);

  /// The helpers that could not be lowered.
  FailedHelperMap FailedHelpers;

private:
  bool nameInstantiation(const FunctionDecl &FD,
                         const std::string &TemplateCall, SourceSpan &Span,
                         std::string &Name);
  bool passedThroughUnlowered(const FunctionDecl &FD,
                              const std::optional<DeviceError> &Broken,
                              const std::string &Name,
                              const std::string &TemplateCall,
                              const SourceSpan &Span);
  void lowerOwn(const FunctionDecl &FD, const std::string &Name,
                const std::string &TemplateCall, const SourceSpan &Span);

  /// Passes \p U through; a helper, \p Name, fails its callers too.
  void passThrough(Unsupported U, const std::string &Name) {
    if (!U.IsKernel)
      FailedHelpers.emplace(Name, "");
    M.PassedThrough.push_back(std::move(U));
  }

  ASTContext &Ctx;
  Preprocessor &PP;
  const SourceManager &SM;
  const ContainedErrors &Errors;
  /// Helpers of the user's headers (Function::Included).
  const std::set<const FunctionDecl *> &Included;
  const FrontendOptions &Opts;
  Module &M;
  std::set<std::string> InstanceNames; ///< of the instantiations lowered
};
} // namespace

void FunctionLowering::lower(const FunctionDecl &FD) {
  bool IsKernel = isKernelDecl(FD);
  // A helper that takes pointers is lowered where it is called
  // (Inlining.h); it stays as written, and a translation needs no copy.
  if (!IsKernel && takesPointers(FD))
    return;
  std::optional<DeviceError> Broken = brokenDeviceReason(FD, Errors, SM);
  if (Included.count(&FD)) {
    if (Broken)
      FailedHelpers.emplace(
          FD.getNameAsString(),
          llvm::formatv(" ({0}, line {1}: {2})",
                        llvm::sys::path::filename(fileOf(FD, SM, M.FileName)),
                        Broken->Line, Broken->Reason)
              .str());
    else
      lowerIncludedHelper(FD, Ctx, PP, M, FailedHelpers);
    return;
  }
  SourceSpan Span = spanOf(FD, SM); // in the input: not an included helper
  // A template's body names its parameters' types (`T`), which no
  // lowering can give a size: a template is lowered per instantiation
  // (Templates.h), kernels and the helpers they call alike.
  std::string Name = FD.getNameAsString();
  std::string TemplateCall = templateCall(FD);
  if (FD.isTemplateInstantiation() && TemplateCall.empty())
    return; // its template is reported
  if (!TemplateCall.empty() && !nameInstantiation(FD, TemplateCall, Span, Name))
    return;
  if (passedThroughUnlowered(FD, Broken, Name, TemplateCall, Span))
    return;
  lowerOwn(FD, Name, TemplateCall, Span);
}

/// Sets \p Span and \p Name of \p FD, an instantiation, to its template's
/// and its own kernelInstanceName; false where it is passed through
/// instead (no such name, or one another instantiation has too).
bool FunctionLowering::nameInstantiation(const FunctionDecl &FD,
                                         const std::string &TemplateCall,
                                         SourceSpan &Span, std::string &Name) {
  bool IsKernel = isKernelDecl(FD);
  Span = templateSpanOf(FD, SM);
  Name = kernelInstanceName(FD);
  if (Name.empty()) {
    M.PassedThrough.push_back(
        {TemplateCall,
         "an instantiation whose template arguments gpumerge cannot "
         "name a kernel after (only types and integers)",
         Span.Line, Span, IsKernel});
    return false;
  }
  // Two instantiations with one name (kernelInstanceName tells types
  // apart, so never seen): neither is optimized, since their launches
  // cannot be told apart either.
  if (InstanceNames.insert(Name).second)
    return true;
  KernelCallSite C;
  C.Kernel = Name;
  C.Call = Span;
  C.Call.End = Span.Begin;
  C.NotRewritable = "two instantiations are named '" + Name + "'";
  passThrough({TemplateCall,
               "another instantiation is named '" + Name + "' too", Span.Line,
               Span, IsKernel},
              Name);
  M.CallSites.push_back(std::move(C));
  return false;
}

/// Passes \p FD through where it is not lowered at all: Clang rejects it
/// (\p Broken), it is a template (its instantiations are lowered instead),
/// or an explicit specialization. True where it is not lowered.
bool FunctionLowering::passedThroughUnlowered(
    const FunctionDecl &FD, const std::optional<DeviceError> &Broken,
    const std::string &Name, const std::string &TemplateCall,
    const SourceSpan &Span) {
  bool IsKernel = isKernelDecl(FD);
  if (Broken && !(FD.getDescribedFunctionTemplate() && hasInstantiations(FD))) {
    passThrough({TemplateCall.empty() ? Name : TemplateCall, Broken->Reason,
                 Broken->Line, Span, IsKernel},
                Name);
    return true;
  }
  if (FD.getDescribedFunctionTemplate()) {
    if (hasInstantiations(FD))
      return true; // they are lowered instead
    passThrough({Name,
                 IsKernel ? "a template that no launch in this file "
                            "instantiates (gpumerge optimizes the "
                            "instantiations that launches name)"
                          : "a template that no kernel in this file "
                            "instantiates",
                 Span.Line, Span, IsKernel},
                Name);
    return true;
  }
  if (FD.getTemplateSpecializationKind() == TSK_ExplicitSpecialization) {
    passThrough({Name, "an explicit specialization of a template", Span.Line,
                 Span, IsKernel},
                Name);
    return true;
  }
  return false;
}

/// Lowers \p FD, a function of the input, into the module as \p Name, or
/// passes it through with why not.
void FunctionLowering::lowerOwn(const FunctionDecl &FD, const std::string &Name,
                                const std::string &TemplateCall,
                                const SourceSpan &Span) {
  bool IsKernel = isKernelDecl(FD);
  const std::string &Shown = TemplateCall.empty() ? Name : TemplateCall;
  std::optional<LoweringResult> Attempt =
      lowerContained(FD, Ctx, PP, M, Opts.CrashLowering == Name);
  if (!Attempt) {
    Unsupported U{Shown, "gpumerge crashed while lowering it (a gpumerge bug)",
                  Span.Line, Span, IsKernel};
    U.InternalError = true;
    passThrough(std::move(U), Name);
    return;
  }
  auto Lowered = std::move(*Attempt);
  if (auto *Failure = std::get_if<LoweringFailure>(&Lowered)) {
    passThrough({Shown, Failure->Construct, Failure->Line, Span, IsKernel},
                Name);
    return;
  }
  auto F = std::move(std::get<std::unique_ptr<Function>>(Lowered));
  F->Name = Name;
  F->TemplateCall = TemplateCall;
  F->Scope = namespaceQualifier(FD);
  F->Span = Span;
  if (TemplateCall.empty())
    F->NameSpan = nameSpanOf(FD, SM);
  if (std::optional<SourceSpan> N = F->NameSpan;
      N && M.Source.compare(N->Begin, N->End - N->Begin, F->Name) != 0)
    F->NameSpan.reset();
  if (IsKernel && TemplateCall.empty())
    if (std::vector<SourceSpan> P = prototypeNames(FD, SM); !P.empty())
      M.PrototypeNames[F->Name] = std::move(P);
  if (IsKernel && TemplateCall.empty() && FD.isExternallyVisible())
    if (std::string H = headerDeclaration(FD, SM); !H.empty())
      M.DeclaredInHeader[F->Name] = H;
  // A function calling a helper we could not lower is passed through too.
  if (std::string Why = badCall(*F, FailedHelpers, M); !Why.empty()) {
    passThrough({Shown, Why, Span.Line, Span, F->IsKernel}, F->Name);
    return;
  }
  M.Functions.push_back(std::move(F));
}

/// What lowering one function at a time could not see yet: helpers defined
/// after their callers (behind a prototype), which may have failed since,
/// or be instantiations of templates defined later. Passes through each
/// function of \p M that calls one, until none does.
static void dropCallersOfFailed(Module &M, FailedHelperMap &FailedHelpers) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = M.Functions.begin(); It != M.Functions.end(); ++It) {
      Function &F = **It;
      std::string Why = badCall(F, FailedHelpers, M);
      if (Why.empty())
        continue;
      if (F.Included)
        FailedHelpers.emplace(F.Name, " (" + Why + ")");
      else
        M.PassedThrough.push_back(
            {F.TemplateCall.empty() ? F.Name : F.TemplateCall, Why, F.Span.Line,
             F.Span, F.IsKernel});
      if (!F.IsKernel)
        FailedHelpers.emplace(F.Name, "");
      M.Functions.erase(It);
      Changed = true;
      break;
    }
  }
}

/// Lowers the kernels and helpers \p Collector found into \p M, in the
/// order they are written, and passes through what cannot be lowered.
static void lowerFunctions(ASTUnit &AST, const FunctionCollector &Collector,
                           const ContainedErrors &Errors,
                           const FrontendOptions &Opts, Module &M) {
  const SourceManager &SM = AST.getSourceManager();
  std::vector<const FunctionDecl *> All = Collector.Helpers;
  All.insert(All.end(), Collector.Kernels.begin(), Collector.Kernels.end());
  // Helpers of the user's headers: lowered like the input's own, so that
  // what merges threads sees which read the thread's position, and a
  // translation can write them; never written back (Function::Included).
  const std::set<const FunctionDecl *> Included(
      Collector.IncludedHelpers.begin(), Collector.IncludedHelpers.end());
  All.insert(All.end(), Included.begin(), Included.end());
  std::sort(All.begin(), All.end(),
            [&](const FunctionDecl *A, const FunctionDecl *B) {
              return SM.isBeforeInTranslationUnit(A->getBeginLoc(),
                                                  B->getBeginLoc());
            });
  FunctionLowering Lowering(AST, Errors, Included, Opts, M);
  for (const FunctionDecl *FD : All)
    Lowering.lower(*FD);
  dropCallersOfFailed(M, Lowering.FailedHelpers);
}

/// Marks the C++ overloads of a helper (Function::Overloaded).
static void markOverloads(Module &M) {
  std::map<std::string, unsigned> HelpersNamed;
  for (const auto &F : M.Functions)
    HelpersNamed[F->Name] += !F->IsKernel;
  for (const auto &F : M.Functions)
    F->Overloaded = !F->IsKernel && HelpersNamed[F->Name] > 1;
}

/// Gives each kernel of \p M the sizes the host code launches it with
/// (\p Launched), where it says them, and the hints of the pragmas between
/// the previous function (lowered or not) and this one; the pragma's sizes
/// where both say one. Hints apply to the next kernel only.
static void attachHints(Module &M, const std::vector<PragmaHints> &Pragmas,
                        const LaunchSizeHints &Launched) {
  std::vector<unsigned> Starts;
  for (const auto &F : M.Functions)
    Starts.push_back(F->Span.Line);
  for (const Unsupported &U : M.PassedThrough)
    Starts.push_back(U.Span.Line);
  for (auto &FP : M.Functions) {
    Function &F = *FP;
    unsigned Prev = 0;
    for (unsigned L : Starts)
      if (L < F.Span.Line)
        Prev = std::max(Prev, L);
    std::map<std::string, std::int64_t> Sizes;
    if (auto It = Launched.find(F.Name); It != Launched.end())
      Sizes = It->second;
    std::vector<std::string> Outputs;
    for (const PragmaHints &H : Pragmas)
      if (H.Line > Prev && H.Line < F.Span.Line) {
        for (auto &[K, V] : H.Sizes)
          Sizes[K] = V;
        if (!H.Outputs.empty())
          Outputs = H.Outputs;
      }
    F.SizeHints = Sizes;
    F.OutputHints = Outputs;
  }
}

llvm::Expected<std::unique_ptr<Module>>
parseSource(const std::string &Source, const std::string &FileName,
            const FrontendOptions &Opts) {
  auto M = std::make_unique<Module>();
  M->FileName = FileName;
  M->Source = Source;
  M->Lang = Opts.Lang ? *Opts.Lang : languageOfFile(FileName);
  bool Cuda = M->Lang == Language::Cuda;

  auto Parsed = parseModuleSource(*M, Opts);
  if (!Parsed)
    return Parsed.takeError();
  ASTUnit &AST = *Parsed->AST;

  auto Pragmas = scanPragmas(Source, FileName);
  if (!Pragmas)
    return Pragmas.takeError();

  FunctionCollector Collector;
  MatchFinder Finder;
  Finder.addMatcher(functionDecl(isDefinition()).bind("fn"), &Collector);
  Finder.matchAST(AST.getASTContext());
  if (!Collector.Host.empty())
    M->HasHostCode = true;

  ASTContext &Ctx = AST.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  if (Cuda)
    M->DeviceCode = deviceCode(Ctx);
  // Errors stop the file unless each is inside a host function of a CUDA
  // file or of a file of the user's it includes (a call of an API the
  // installed toolkit removed, or one nvcc's host compiler takes and Clang's
  // CUDA mode does not): the kernels are then still the user's, and the
  // functions with errors are kept as written. Their launches cannot be
  // trusted to be seen, so a kernel they name is not given a launch plan
  // (CallSites with a reason).
  // An error inside a kernel or a device helper is where Clang 16 and nvcc
  // disagree (a launch from device code, a __shared__ cuda::barrier, an
  // attribute list after the return type, PTX's %laneid in inline asm):
  // where nvcc compiles the file, that function costs itself alone, passed
  // through as written with Clang's message, and so does what calls it.
  auto Errors = containErrors(*Parsed, Collector, Opts, *M);
  if (!Errors)
    return Errors.takeError();
  warnIncludedKernels(Collector, SM, *M);
  LaunchSizeHints Launched;
  if (Cuda) {
    collectKernelCallSites(Ctx, *M);
    Launched = collectLaunchSizes(Ctx);
  }
  markUnseenLaunches(Errors->Host, Collector.Kernels, SM, *M);
  lowerFunctions(AST, Collector, *Errors, Opts, *M);
  markPositionHelpers(*M);
  markOverloads(*M);
  attachHints(*M, *Pragmas, Launched);
  return M;
}

llvm::Expected<std::unique_ptr<Module>> parseFile(const std::string &Path,
                                                  const FrontendOptions &Opts) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s",
                                   Path.c_str(),
                                   Buf.getError().message().c_str());
  return parseSource((*Buf)->getBuffer().str(), Path, Opts);
}

llvm::Expected<std::string> deviceCodeOf(const std::string &Text,
                                         const std::string &FileName,
                                         const FrontendOptions &Opts) {
  FrontendOptions Cuda = Opts;
  Cuda.Lang = Language::Cuda;
  auto M = parseSource(Text, FileName, Cuda);
  if (!M)
    return M.takeError();
  return std::move((*M)->DeviceCode);
}

} // namespace gpumerge
