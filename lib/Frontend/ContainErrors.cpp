//===- ContainErrors.cpp - Errors that cost only what they are in ---------===//
#include "Frontend/ContainErrors.h"
#include "Frontend/Lower.h"
#include "Frontend/Toolkit.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/DiagnosticSema.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace clang;
using namespace clang::ast_matchers;

namespace gpumerge {

const FunctionDecl *deviceKey(const FunctionDecl &FD) {
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

llvm::Expected<ContainedErrors>
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

std::optional<DeviceError> brokenDeviceReason(const FunctionDecl &FD,
                                              const ContainedErrors &Errors,
                                              const SourceManager &SM) {
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

} // namespace gpumerge
