//===- Frontend.cpp - Naive kernels from source to KIR --------------------===//
#include "Frontend/Frontend.h"
#include "Frontend/CallSites.h"
#include "Frontend/HostCode.h"
#include "Frontend/Inlining.h"
#include "Frontend/LaunchSizes.h"
#include "Frontend/Lower.h"
#include "Frontend/Pragmas.h"
#include "Frontend/Prelude.h"
#include "Frontend/Templates.h"
#include "Frontend/Toolkit.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
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

llvm::Expected<std::string> findClangResourceDir() {
  // GPUMERGE_CLANG_RESOURCE_DIR, then beside an installed or bundled
  // gpumerge (P/bin/gpumerge, P/lib/clang/16: scripts/gpu-bundle), then
  // where the build found it and where Debian puts it.
  std::vector<std::string> Candidates;
  if (const char *Dir = std::getenv("GPUMERGE_CLANG_RESOURCE_DIR"); Dir && *Dir)
    Candidates.push_back(Dir);
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (!Exe.empty()) {
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(Dir, "..", "lib", "clang", "16");
    Candidates.push_back(std::string(Dir));
  }
  Candidates.insert(Candidates.end(),
                    {GPUMERGE_CLANG_RESOURCE_DIR,
                     "/usr/lib/llvm-16/lib/clang/16", "/usr/lib/clang/16"});
  for (const std::string &C : Candidates)
    if (llvm::sys::fs::exists(C + "/include/__clang_cuda_builtin_vars.h"))
      return C;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "cannot find Clang's resource directory (builtin headers); install "
      "libclang-common-16-dev");
}

/// Host code needs the CUDA headers: launches, runtime calls, includes.
/// (A kernel-only file that does not parse with the prelude is parsed again
/// with them: the prelude is the fast path, not a limit.)
static bool needsCudaSdk(llvm::StringRef Source) {
  for (llvm::StringRef Mark :
       {"<<<", "cuda_runtime", "cudaMalloc", "#include <cuda",
        "#include \"cuda", "cuda.h", "cuda_fp16", "cooperative_groups"})
    if (Source.contains(Mark))
      return true;
  return false;
}

namespace {
/// Prints the diagnostics and remembers where the errors are, so errors in
/// host code alone (an API the installed toolkit removed) need not stop
/// the kernels.
class ErrorRecorder : public DiagnosticConsumer {
public:
  ErrorRecorder(llvm::raw_ostream &OS, DiagnosticOptions *Opts)
      : Printer(OS, Opts) {}
  void BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) override {
    Printer.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Printer.EndSourceFile(); }
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Printer.HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error)
      return;
    Fatal |= Level == DiagnosticsEngine::Fatal;
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    SourceLocation L = Info.getLocation();
    Error E{0, Text.str().str(), FileID(), 0, Info.getID(), nullptr};
    // `child<<<...>>>` in a kernel: the kernel launched from device code.
    if (Info.getID() == diag::err_ref_bad_target && Info.getNumArgs() > 2 &&
        Info.getArgKind(2) == DiagnosticsEngine::ak_nameddecl)
      E.Referenced = llvm::dyn_cast_or_null<FunctionDecl>(
          reinterpret_cast<const NamedDecl *>(Info.getRawArg(2)));
    if (L.isValid() && Info.hasSourceManager()) {
      const SourceManager &SM = Info.getSourceManager();
      SourceLocation X = SM.getExpansionLoc(L);
      std::tie(E.File, E.FileOffset) = SM.getDecomposedLoc(X);
      E.Line = SM.getExpansionLineNumber(X);
    }
    Errors.push_back(std::move(E));
  }
  struct Error {
    unsigned Line; ///< in File
    std::string Message;
    FileID File; ///< where it is (expanded), any file
    unsigned FileOffset;
    unsigned ID; ///< Clang's diagnostic
    /// For err_ref_bad_target: the function referenced.
    const FunctionDecl *Referenced;
  };
  std::vector<Error> Errors;
  bool Fatal = false;

private:
  TextDiagnosticPrinter Printer;
};
} // namespace

namespace {
/// Collects function definitions of the main file: kernels and helpers.
class FunctionCollector : public MatchFinder::MatchCallback {
public:
  std::vector<const FunctionDecl *> Kernels, Helpers, Host;
  /// Kernels defined in a header or source file of the user's that the main
  /// file includes (main.cu including kernel.cu).
  std::vector<const FunctionDecl *> IncludedKernels;
  /// Host functions defined there (a test harness's common.h).
  std::vector<const FunctionDecl *> IncludedHost;
  /// Device functions defined there (Function::Included).
  std::vector<const FunctionDecl *> IncludedHelpers;
  void run(const MatchFinder::MatchResult &R) override {
    const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!FD || !FD->doesThisDeclarationHaveABody())
      return;
    const SourceManager &SM = *R.SourceManager;
    SourceLocation L = SM.getExpansionLoc(FD->getLocation());
    // Lambdas and member functions are host code to us, even where Clang
    // makes them implicitly __host__ __device__ (a lambda in main()).
    const auto *Device = FD->getAttr<CUDADeviceAttr>();
    bool Written =
        Device && !Device->isImplicit() && !llvm::isa<CXXMethodDecl>(FD);
    if (!SM.isInMainFile(L)) {
      if (SM.isInSystemHeader(L) || SM.getFilename(L) == PreludePath)
        return;
      if (isKernelDecl(*FD))
        IncludedKernels.push_back(FD);
      else if (Written || R.Context->getLangOpts().OpenCL)
        IncludedHelpers.push_back(FD);
      else
        IncludedHost.push_back(FD);
      return;
    }
    if (isKernelDecl(*FD))
      Kernels.push_back(FD);
    else if (Written || R.Context->getLangOpts().OpenCL)
      Helpers.push_back(FD);
    else
      Host.push_back(FD);
  }
};
} // namespace

/// The file \p FD is defined in.
static FileID fileIdOf(const FunctionDecl &FD, const SourceManager &SM) {
  return SM.getFileID(SM.getExpansionLoc(FD.getBeginLoc()));
}

/// The file \p FD is defined in, as messages name it: \p MainName for the
/// main file.
static std::string fileOf(const FunctionDecl &FD, const SourceManager &SM,
                          const std::string &MainName) {
  SourceLocation L = SM.getExpansionLoc(FD.getBeginLoc());
  return SM.isInMainFile(L) ? MainName : SM.getFilename(L).str();
}

static SourceSpan spanOf(const FunctionDecl &FD, const SourceManager &SM) {
  SourceLocation Begin = SM.getExpansionLoc(FD.getOuterLocStart());
  for (const Attr *A : FD.attrs()) {
    SourceLocation L = SM.getExpansionLoc(A->getLocation());
    if (L.isValid() && SM.isInMainFile(L) &&
        SM.getFileOffset(L) < SM.getFileOffset(Begin))
      Begin = L;
  }
  SourceLocation End = SM.getExpansionLoc(FD.getEndLoc());
  SourceSpan S;
  S.Begin = SM.getFileOffset(Begin);
  S.End = SM.getFileOffset(End) + 1; // the closing brace
  S.Line = SM.getExpansionLineNumber(Begin);
  return S;
}

/// The definition of the template that \p FD instantiates, from its
/// `template <...>` to the closing brace: where the optimized kernels of its
/// instantiations follow it.
static SourceSpan templateSpanOf(const FunctionDecl &FD,
                                 const SourceManager &SM) {
  const FunctionDecl *Pattern = FD.getTemplateInstantiationPattern();
  SourceSpan S = spanOf(Pattern ? *Pattern : FD, SM);
  // The definition's `template <...>`, not an earlier declaration's.
  if (const FunctionTemplateDecl *T =
          Pattern ? Pattern->getDescribedFunctionTemplate() : nullptr) {
    SourceLocation Begin = SM.getExpansionLoc(T->getBeginLoc());
    if (SM.getFileOffset(Begin) < S.Begin) {
      S.Begin = SM.getFileOffset(Begin);
      S.Line = SM.getExpansionLineNumber(Begin);
    }
  }
  return S;
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

/// A kernel or helper Clang rejects where nvcc does not, and why.
struct DeviceError {
  unsigned Line;
  std::string Reason;
};

/// One function for all its instantiations and declarations: the errors
/// Clang reports in a template's body are the template's.
static const FunctionDecl *deviceKey(const FunctionDecl &FD) {
  const FunctionDecl *Pattern = FD.getTemplateInstantiationPattern();
  return (Pattern ? Pattern : &FD)->getCanonicalDecl();
}

/// The innermost of \p Functions whose definition holds \p Offset of
/// \p File.
static const FunctionDecl *
innermostAt(FileID File, unsigned Offset,
            const std::vector<const FunctionDecl *> &Functions,
            const SourceManager &SM) {
  const FunctionDecl *In = nullptr;
  unsigned Size = 0;
  if (File.isInvalid())
    return nullptr;
  for (const FunctionDecl *FD : Functions) {
    if (fileIdOf(*FD, SM) != File)
      continue;
    SourceSpan S = FD->isTemplated() || FD->isTemplateInstantiation()
                       ? templateSpanOf(*FD, SM)
                       : spanOf(*FD, SM);
    if (S.Begin <= Offset && Offset < S.End && (!In || S.End - S.Begin < Size))
      std::tie(In, Size) = std::make_pair(FD, S.End - S.Begin);
  }
  return In;
}

/// The device functions and file-scope device variables Clang rejects
/// where nvcc does not: functions by deviceKey, variables by their
/// canonical declaration.
using BrokenDeviceMap = std::map<const Decl *, DeviceError>;

namespace {
/// Finds the first function or variable in Broken that a body names,
/// through the helpers it calls (lowered or inlined where they are called
/// alike).
class BrokenCalls : public RecursiveASTVisitor<BrokenCalls> {
public:
  BrokenCalls(const BrokenDeviceMap &Broken) : Broken(Broken) {}
  const NamedDecl *Found = nullptr;
  const DeviceError *Why = nullptr;
  void search(const FunctionDecl &FD) {
    const FunctionDecl *Def = nullptr;
    if (Found || !FD.hasBody(Def) || !Seen.insert(Def).second)
      return;
    TraverseStmt(Def->getBody());
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const Decl *Key = nullptr;
    const auto *Callee = llvm::dyn_cast<FunctionDecl>(E->getDecl());
    if (Callee && !isKernelDecl(*Callee))
      Key = deviceKey(*Callee);
    else if (const auto *V = llvm::dyn_cast<VarDecl>(E->getDecl()))
      Key = V->getCanonicalDecl();
    if (!Key)
      return !Found;
    if (auto It = Broken.find(Key); It != Broken.end()) {
      Found = E->getDecl();
      Why = &It->second;
    } else if (Callee) {
      search(*Callee);
    }
    return !Found;
  }

private:
  const BrokenDeviceMap &Broken;
  std::set<const FunctionDecl *> Seen;
};

/// Collects the main file's variables of device memory at namespace scope
/// (`__device__ int [[maybe_unused]] g;`, `__constant__ float w[9];`).
class DeviceVariables : public MatchFinder::MatchCallback {
public:
  std::vector<const VarDecl *> Variables;
  void run(const MatchFinder::MatchResult &R) override {
    const auto *V = R.Nodes.getNodeAs<VarDecl>("var");
    if (V && V->isFileVarDecl() &&
        (V->hasAttr<CUDADeviceAttr>() || V->hasAttr<CUDAConstantAttr>()) &&
        R.SourceManager->isInMainFile(
            R.SourceManager->getExpansionLoc(V->getLocation())))
      Variables.push_back(V);
  }
};
} // namespace

/// The variable of \p Variables whose declaration holds \p Offset of the
/// main file, from its attributes to its end.
static const VarDecl *variableAt(FileID File, unsigned Offset,
                                 const std::vector<const VarDecl *> &Variables,
                                 const SourceManager &SM) {
  if (File != SM.getMainFileID())
    return nullptr;
  for (const VarDecl *V : Variables) {
    unsigned Begin =
        SM.getFileOffset(SM.getExpansionLoc(V->getOuterLocStart()));
    for (const Attr *A : V->attrs())
      if (SourceLocation L = SM.getExpansionLoc(A->getLocation());
          L.isValid() && SM.isInMainFile(L))
        Begin = std::min(Begin, SM.getFileOffset(L));
    unsigned End = SM.getFileOffset(SM.getExpansionLoc(V->getEndLoc()));
    if (Begin <= Offset && Offset <= End)
      return V;
  }
  return nullptr;
}

/// Why a device function with an error Clang reports (and nvcc does not)
/// is passed through: what gpumerge does not model, and Clang's words.
static std::string deviceErrorReason(const ErrorRecorder::Error &E) {
  llvm::StringRef Message(E.Message);
  std::string What = "code Clang rejects";
  if (E.Referenced && isKernelDecl(*E.Referenced))
    What = "launch of kernel '" + E.Referenced->getNameAsString() +
           "' from device code (dynamic parallelism, nvcc -rdc=true), which "
           "Clang does not compile";
  else if (E.ID == diag::err_shared_var_init)
    What = "a __shared__ object with a constructor (a cuda::barrier or a "
           "cuda::pipeline's shared state), which gpumerge does not model";
  else if (Message.contains("inline asm") ||
           Message.contains("inline assembly"))
    What = "inline asm that Clang's checker rejects";
  else if (Message.contains("attribute"))
    What = "an attribute where Clang does not take one";
  return What + " (Clang: \"" + E.Message + "\"; nvcc compiles the file)";
}

/// The arguments Clang parses \p M's source with, and in \p Virtual the
/// files they name that gpumerge provides (preludes, fallback headers).
/// \p WithSdk: with the CUDA toolkit's headers (\p M has host code then);
/// the kernel-only prelude otherwise. \p Dialect: declare the paper
/// dialect's bare built-ins (CudaDialectPrelude) there too.
static llvm::Expected<std::vector<std::string>>
clangArgs(Module &M, const FrontendOptions &Opts,
          const std::string &ResourceDir, bool WithSdk, bool Dialect,
          tooling::FileContentMappings &Virtual) {
  std::vector<std::string> Args;
  if (M.Lang == Language::OpenCL) {
    Args = {"-x",
            "cl",
            "-cl-std=CL1.2",
            "-Xclang",
            "-finclude-default-header",
            "-include",
            PreludePath};
    Virtual.emplace_back(PreludePath, OpenCLPrelude);
  } else {
    // What nvcc takes with a warning, clang refuses by default in C++17:
    // `register` (SHOC's S3D and MaxFlops), a narrowing conversion in
    // braces (SHOC's NeuralNet: `int n[] = {1.5 * x}`), a macro right
    // after a string literal (`"%"PRIu64`, in Parboil's file.h too, which
    // C++11 reads as a literal suffix).
    Args = {"-x",
            "cuda",
            "--cuda-device-only",
            "--cuda-gpu-arch=sm_80",
            "-std=c++17",
            "-Wno-register",
            "-Wno-c++11-narrowing",
            "-Wno-reserved-user-defined-literal"};
    if (WithSdk) {
      std::string Cuda = findCudaPath();
      if (Cuda.empty())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "%s: the file has host code (or device code beyond the "
            "built-in prelude), which needs the CUDA toolkit's headers, and "
            "none was found (nvcc on PATH or /usr/local/cuda)",
            M.FileName.c_str());
      M.HasHostCode = true;
      Args.insert(Args.end(),
                  {"--cuda-path=" + Cuda, "-I" + std::string(CudaCompatDir),
                   "-Wno-unknown-cuda-version", "-include", PreludePath});
      const std::vector<std::string> &Nvcc = nvccParseArgs(Cuda);
      Args.insert(Args.end(), Nvcc.begin(), Nvcc.end());
      Virtual.emplace_back(PreludePath,
                           std::string(CudaWithSdkPrelude) +
                               (Dialect ? CudaDialectPrelude : ""));
      Virtual.emplace_back(
          std::string(CudaCompatDir) + "/texture_fetch_functions.h", "");
      Args.insert(Args.end(), {"-idirafter", HostFallbackDir});
      Virtual.emplace_back(std::string(HostFallbackDir) + "/omp.h",
                           OmpFallbackHeader);
    } else {
      Args.insert(Args.end(),
                  {"-nocudainc", "-nocudalib", "-include", PreludePath});
      Virtual.emplace_back(PreludePath, std::string(CudaKernelOnlyPrelude) +
                                            CudaDialectPrelude);
    }
  }
  // -fstrict-flex-arrays=1: Clang 16 crashes in its array-bounds check
  // (Expr::isFlexibleArrayMemberLike) on an array member whose element
  // type did not parse (`typedef real_t tab_t[6][6];` without real_t, as
  // HeCBench's prna has it unless built with -DFLOAT), at the default
  // level 0 only. The level decides what warnings and object sizes take
  // for a flexible array member; the AST gpumerge reads is the same.
  Args.insert(Args.end(),
              {"-resource-dir", ResourceDir, "-w", "-fstrict-flex-arrays=1"});
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  return Args;
}

namespace {
/// One parse of the source: the AST with the diagnostics Clang printed and
/// where its errors are. The recorder is declared first so that it outlives
/// the AST whose diagnostics it consumes.
struct ParsedSource {
  std::unique_ptr<ErrorRecorder> Recorder;
  std::string DiagText;
  std::unique_ptr<ASTUnit> AST;
};
} // namespace

/// \p Text, or "cannot parse FILE" where Clang printed nothing, as an error.
static llvm::Error parseError(const std::string &Text,
                              const std::string &FileName) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(), "%s",
      Text.empty() ? ("cannot parse " + FileName).c_str() : Text.c_str());
}

/// Parses \p Source, \p M's, as clangArgs says; an error only where Clang
/// builds no AST at all (errors in it are the caller's to weigh).
static llvm::Expected<ParsedSource>
parseWith(const std::string &Source, Module &M, const FrontendOptions &Opts,
          const std::string &ResourceDir, bool WithSdk, bool Dialect) {
  tooling::FileContentMappings Virtual;
  auto Args = clangArgs(M, Opts, ResourceDir, WithSdk, Dialect, Virtual);
  if (!Args)
    return Args.takeError();
  ParsedSource P;
  llvm::raw_string_ostream DiagOS(P.DiagText);
  P.Recorder = std::make_unique<ErrorRecorder>(DiagOS, new DiagnosticOptions());
  P.AST = tooling::buildASTFromCodeWithArgs(
      Source, *Args, M.FileName, "gpumerge",
      std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), Virtual,
      P.Recorder.get());
  DiagOS.flush();
  if (!P.AST)
    return parseError(P.DiagText, M.FileName);
  return P;
}

/// Parses \p M's source with the kernel-only prelude or, for host code (or
/// when that fails), with the CUDA toolkit's headers.
static llvm::Expected<ParsedSource>
parseModuleSource(Module &M, const FrontendOptions &Opts) {
  auto ResourceDir = findClangResourceDir();
  if (!ResourceDir)
    return ResourceDir.takeError();
  bool Cuda = M.Lang == Language::Cuda;
  bool WithSdk = Cuda && needsCudaSdk(M.Source);
  auto Parsed = parseWith(M.Source, M, Opts, *ResourceDir, WithSdk, !WithSdk);
  if (Parsed && Parsed->AST->getDiagnostics().hasErrorOccurred() && Cuda &&
      !WithSdk && !findCudaPath().empty())
    // Beyond the prelude (float4, __fdividef, a header of the toolkit):
    // what nvcc accepts in device code parses with the toolkit's headers.
    // A kernel-only file keeps the dialect's bare built-ins.
    Parsed = parseWith(M.Source, M, Opts, *ResourceDir, true, true);
  return Parsed;
}

namespace {
/// The errors of a parse that cost only the functions and variables they
/// are in (parseSource says which).
struct ContainedErrors {
  /// Host functions with errors, each with its first error.
  std::vector<std::pair<const FunctionDecl *, std::string>> Host;
  /// Device functions and variables Clang rejects where nvcc does not.
  BrokenDeviceMap Device;
  /// Kernels launched from device code, by deviceKey, and the line of the
  /// first such launch.
  std::map<const FunctionDecl *, unsigned> LaunchedFromDevice;
  /// The device variables in Device, in the order their errors came.
  std::vector<const VarDecl *> Variables;
};
} // namespace

/// Sorts each error \p Recorder saw into \p Out by what holds it: a device
/// function, a host function, a device variable. False when one is in none
/// of them: then the file cannot be kept.
static bool classifyErrors(const ErrorRecorder &Recorder,
                           const FunctionCollector &Collector, ASTContext &Ctx,
                           ContainedErrors &Out) {
  const SourceManager &SM = Ctx.getSourceManager();
  DeviceVariables Variables;
  bool SearchedVariables = false;
  MatchFinder VariableFinder;
  VariableFinder.addMatcher(varDecl().bind("var"), &Variables);
  std::vector<const FunctionDecl *> AllHost = Collector.Host;
  AllHost.insert(AllHost.end(), Collector.IncludedHost.begin(),
                 Collector.IncludedHost.end());
  std::vector<const FunctionDecl *> AllDevice = Collector.Kernels;
  AllDevice.insert(AllDevice.end(), Collector.Helpers.begin(),
                   Collector.Helpers.end());
  AllDevice.insert(AllDevice.end(), Collector.IncludedHelpers.begin(),
                   Collector.IncludedHelpers.end());
  for (const ErrorRecorder::Error &E : Recorder.Errors) {
    if (const FunctionDecl *In =
            innermostAt(E.File, E.FileOffset, AllDevice, SM)) {
      Out.Device.try_emplace(deviceKey(*In),
                             DeviceError{E.Line, deviceErrorReason(E)});
      if (E.Referenced && isKernelDecl(*E.Referenced))
        Out.LaunchedFromDevice.try_emplace(deviceKey(*E.Referenced), E.Line);
      continue;
    }
    const FunctionDecl *In = innermostAt(E.File, E.FileOffset, AllHost, SM);
    if (!In) {
      if (!SearchedVariables) {
        VariableFinder.matchAST(Ctx);
        SearchedVariables = true;
      }
      const VarDecl *V =
          variableAt(E.File, E.FileOffset, Variables.Variables, SM);
      if (!V)
        return false;
      if (Out.Device
              .try_emplace(V->getCanonicalDecl(),
                           DeviceError{E.Line, deviceErrorReason(E)})
              .second)
        Out.Variables.push_back(V);
      continue;
    }
    if (std::none_of(Out.Host.begin(), Out.Host.end(),
                     [&](auto &B) { return B.first == In; }))
      Out.Host.push_back(
          {In, llvm::formatv("line {0}: {1}", E.Line, E.Message).str()});
  }
  return true;
}

/// The errors of \p P, where each costs only what it is in (parseSource
/// says when), with a warning in \p M for each variable and host function
/// kept as written; an error where they stop the file.
static llvm::Expected<ContainedErrors>
containErrors(const ParsedSource &P, const FunctionCollector &Collector,
              const FrontendOptions &Opts, Module &M) {
  ContainedErrors Out;
  if (!P.AST->getDiagnostics().hasErrorOccurred())
    return Out;
  ASTContext &Ctx = P.AST->getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  bool Contained = M.Lang == Language::Cuda && !P.Recorder->Fatal &&
                   !P.Recorder->Errors.empty();
  if (!classifyErrors(*P.Recorder, Collector, Ctx, Out))
    Contained = false;
  // Clang's verdict on device code stands where nvcc's agrees, or where
  // there is no nvcc to ask.
  if (Contained && !Out.Device.empty() &&
      !nvccCompiles(findCudaPath(), M.Source, M.FileName, Opts.ExtraArgs))
    Contained = false;
  if (!Contained)
    return parseError(P.DiagText, M.FileName);
  for (const VarDecl *V : Out.Variables)
    M.Warnings.push_back(llvm::formatv(
        "{0}:{1}: device variable '{2}' is kept as written, and what uses "
        "it passed through: {3}",
        M.FileName, Out.Device.at(V->getCanonicalDecl()).Line,
        V->getNameAsString(), Out.Device.at(V->getCanonicalDecl()).Reason));
  for (const auto &[FD, Why] : Out.Host)
    M.Warnings.push_back(llvm::formatv(
        "{0}:{1}: host function '{2}' does not compile with the CUDA "
        "toolkit found here ({3}); it is kept as written",
        fileOf(*FD, SM, M.FileName),
        SM.getExpansionLineNumber(FD->getBeginLoc()), FD->getNameAsString(),
        Why));
  return Out;
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
  std::optional<DeviceError> brokenReason(const FunctionDecl &FD) const;
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

/// Why \p FD is passed through as Clang rejects it, or what it calls, where
/// nvcc does not; nullopt where it is not.
std::optional<DeviceError>
FunctionLowering::brokenReason(const FunctionDecl &FD) const {
  if (auto It = Errors.Device.find(deviceKey(FD)); It != Errors.Device.end())
    return It->second;
  if (auto It = Errors.LaunchedFromDevice.find(deviceKey(FD));
      It != Errors.LaunchedFromDevice.end())
    return DeviceError{
        It->second,
        llvm::formatv("launched from device code at line {0} (dynamic "
                      "parallelism): that launch keeps the grid of the "
                      "kernel as written",
                      It->second)};
  if (Errors.Device.empty())
    return std::nullopt;
  BrokenCalls Calls(Errors.Device);
  Calls.search(FD);
  if (!Calls.Found)
    return std::nullopt;
  return DeviceError{
      SM.getExpansionLineNumber(FD.getLocation()),
      llvm::formatv("{0} of '{1}', which Clang rejects at line {2} "
                    "where nvcc does not: {3}",
                    llvm::isa<VarDecl>(Calls.Found) ? "use" : "call",
                    Calls.Found->getNameAsString(), Calls.Why->Line,
                    Calls.Why->Reason)};
}

void FunctionLowering::lower(const FunctionDecl &FD) {
  bool IsKernel = isKernelDecl(FD);
  // A helper that takes pointers is lowered where it is called
  // (Inlining.h); it stays as written, and a translation needs no copy.
  if (!IsKernel && takesPointers(FD))
    return;
  std::optional<DeviceError> Broken = brokenReason(FD);
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
