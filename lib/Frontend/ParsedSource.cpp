//===- ParsedSource.cpp - One parse of a source by Clang ------------------===//
#include "Frontend/ParsedSource.h"
#include "Frontend/Lower.h"
#include "Frontend/Prelude.h"
#include "Frontend/Toolkit.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Tooling/Tooling.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace gpumerge {

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

void ErrorRecorder::BeginSourceFile(const LangOptions &LO,
                                    const Preprocessor *PP) {
  Printer.BeginSourceFile(LO, PP);
}

void ErrorRecorder::EndSourceFile() { Printer.EndSourceFile(); }

void ErrorRecorder::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                     const Diagnostic &Info) {
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

void FunctionCollector::run(const MatchFinder::MatchResult &R) {
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

FileID fileIdOf(const FunctionDecl &FD, const SourceManager &SM) {
  return SM.getFileID(SM.getExpansionLoc(FD.getBeginLoc()));
}

std::string fileOf(const FunctionDecl &FD, const SourceManager &SM,
                   const std::string &MainName) {
  SourceLocation L = SM.getExpansionLoc(FD.getBeginLoc());
  return SM.isInMainFile(L) ? MainName : SM.getFilename(L).str();
}

SourceSpan spanOf(const FunctionDecl &FD, const SourceManager &SM) {
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

SourceSpan templateSpanOf(const FunctionDecl &FD, const SourceManager &SM) {
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

llvm::Error parseError(const std::string &Text, const std::string &FileName) {
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

llvm::Expected<ParsedSource> parseModuleSource(Module &M,
                                               const FrontendOptions &Opts) {
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

} // namespace gpumerge
