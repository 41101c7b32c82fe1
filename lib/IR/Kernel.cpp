//===- Kernel.cpp - KIR functions and modules -----------------------------===//
#include "IR/Kernel.h"

#include "llvm/ADT/STLExtras.h"

#include <cctype>

namespace gpumerge {

const char *languageName(Language L) {
  return L == Language::Cuda ? "cuda" : "opencl";
}

std::string fallbackName(const std::string &Kernel) {
  return Kernel + "_naive";
}

std::string edgeName(const std::string &Kernel) { return Kernel + "_edge"; }

std::string fallbackCall(const Function &F) {
  return F.TemplateCall.empty() ? fallbackName(F.Name) : F.TemplateCall;
}

std::string launchedName(const Function &F, const std::string &Kernel) {
  std::string Base = Kernel.substr(0, Kernel.find('<'));
  for (const Param &P : F.Params)
    if (P.Name == Base)
      return "::" + F.Scope + Kernel;
  return Kernel;
}

const char *textureFormName(TextureForm F) {
  return F == TextureForm::Object ? "object"
         : F == TextureForm::Ldg  ? "ldg"
                                  : "restrict";
}

bool LaunchPlan::readsThroughTexture(const std::string &Array) const {
  for (const std::string &A : TextureArrays)
    if (A == Array)
      return true;
  return false;
}

bool LaunchPlan::readsAsImage(const std::string &Array,
                              const Type &Element) const {
  return Texture != TextureForm::Restrict && readsThroughTexture(Array) &&
         readAsImage(Element) && !llvm::is_contained(TextureBuffers, Array);
}

bool LaunchPlan::restricts(const std::string &Array) const {
  return llvm::is_contained(RestrictArrays, Array);
}

void LaunchPlan::requireDisjoint(
    const std::string &A, const std::string &B,
    const std::map<std::string, std::shared_ptr<const Expr>> &Counts) {
  bool Known = false;
  for (const auto &[X, Y] : Disjoint)
    Known |= (X == A && Y == B) || (X == B && Y == A);
  if (!Known)
    Disjoint.emplace_back(A, B);
  for (const std::string &N : {A, B}) {
    auto It = Counts.find(N);
    if (!Elements.count(N) && It != Counts.end())
      Elements[N] = It->second;
  }
}

bool readAsImage(const Type &Element) {
  return Element.VectorWidth == 1 && (Element.Scalar == ScalarKind::Float ||
                                      Element.Scalar == ScalarKind::Int ||
                                      Element.Scalar == ScalarKind::UInt);
}

std::string textureParamName(const Function &F, const std::string &Array,
                             Language L) {
  return nameBesideParams(F, Array + (L == Language::Cuda ? "_tex" : "_img"));
}

bool Module::mentions(const std::string &Name) const {
  auto IsIdent = [](char C) {
    return std::isalnum((unsigned char)C) || C == '_';
  };
  for (size_t Pos = Source.find(Name); Pos != std::string::npos;
       Pos = Source.find(Name, Pos + 1)) {
    size_t End = Pos + Name.size();
    if ((Pos == 0 || !IsIdent(Source[Pos - 1])) &&
        (End == Source.size() || !IsIdent(Source[End])))
      return true;
  }
  return false;
}

std::string nameBesideParams(const Function &F, std::string Name) {
  while (F.findParam(Name))
    Name += "_";
  return Name;
}

std::set<std::string> declaredNames(const Function &F) {
  std::set<std::string> Names;
  for (const Param &P : F.Params)
    Names.insert(P.Name);
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
      Names.insert(D->Name);
    else if (auto *L = llvm::dyn_cast<ForStmt>(&S))
      Names.insert(L->Iter);
  });
  return Names;
}

std::string uniqueName(std::set<std::string> &Taken, const std::string &Base,
                       const std::string &Sep, unsigned First) {
  std::string N = Base;
  for (unsigned I = First; Taken.count(N); ++I)
    N = Base + Sep + std::to_string(I);
  Taken.insert(N);
  return N;
}

const Param *Function::findParam(const std::string &N) const {
  for (const Param &P : Params)
    if (P.Name == N)
      return &P;
  return nullptr;
}

std::unique_ptr<Function> Function::clone() const {
  auto F = withBody(std::unique_ptr<BlockStmt>(
      static_cast<BlockStmt *>(Body->clone().release())));
  F->Plan = Plan;
  return F;
}

std::unique_ptr<Function>
Function::withBody(std::unique_ptr<BlockStmt> NewBody) const {
  auto F = std::make_unique<Function>();
  F->Name = Name;
  F->IsKernel = IsKernel;
  F->ReturnType = ReturnType;
  F->Params = Params;
  F->ConstantArrays = ConstantArrays;
  F->Body = std::move(NewBody);
  F->Span = Span;
  F->SizeHints = SizeHints;
  F->OutputHints = OutputHints;
  F->PaperDialect = PaperDialect;
  F->TemplateCall = TemplateCall;
  F->Scope = Scope;
  F->FixedBlock = FixedBlock;
  F->GridStrideLine = GridStrideLine;
  F->PhaseOf = PhaseOf;
  F->PhaseIndex = PhaseIndex;
  F->Overloaded = Overloaded;
  return F;
}

void forEachType(const Function &F,
                 const std::function<void(const Type &)> &Visit) {
  for (const Param &P : F.Params)
    Visit(P.Ty);
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
      Visit(D->Ty);
  });
  walkExprs(*F.Body, [&](const Expr &E) { Visit(E.getType()); });
}

bool hasGlobalSync(const Function &F) {
  bool Found = false;
  walkStmts(*F.Body, [&](Stmt &S) { Found |= llvm::isa<GlobalSyncStmt>(S); });
  return Found;
}

bool hasAsyncCopies(const Function &F) {
  bool Found = false;
  walkStmts(*F.Body, [&](Stmt &S) { Found |= llvm::isa<PipelineStmt>(S); });
  return Found;
}

std::vector<Function *> Module::kernels() const {
  std::vector<Function *> K;
  for (const auto &F : Functions)
    if (F->IsKernel)
      K.push_back(F.get());
  return K;
}

const PhasedKernel *Module::findPhased(const std::string &Name) const {
  for (const PhasedKernel &P : Phased)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

const KernelTemplate *Module::findTemplate(const std::string &Name) const {
  for (const KernelTemplate &T : KernelTemplates)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

Function *Module::find(const std::string &Name) const {
  for (const auto &F : Functions)
    if (F->Name == Name)
      return F.get();
  return nullptr;
}

std::vector<const Function *> Module::overloads(const std::string &Name) const {
  std::vector<const Function *> Named;
  for (const auto &F : Functions)
    if (F->Name == Name)
      Named.push_back(F.get());
  return Named;
}

std::set<std::string>
Module::callClosure(const std::vector<const Function *> &Roots) const {
  std::set<std::string> Names;
  std::vector<const Function *> Work(Roots.begin(), Roots.end());
  for (const Function *F : Roots)
    Names.insert(F->Name);
  while (!Work.empty()) {
    const Function *F = Work.back();
    Work.pop_back();
    if (!F->Body)
      continue;
    walkExprs(*F->Body, [&](const Expr &E) {
      const auto *C = llvm::dyn_cast<CallExpr>(&E);
      if (!C || Names.count(C->Callee))
        return;
      std::vector<const Function *> Called = overloads(C->Callee);
      if (!Called.empty())
        Names.insert(C->Callee);
      Work.insert(Work.end(), Called.begin(), Called.end());
    });
  }
  return Names;
}

std::vector<const Function *> Module::helpersCalled(const Function &F) const {
  std::set<std::string> Names = callClosure({&F});
  std::vector<const Function *> Helpers;
  for (const auto &H : Functions)
    if (!H->IsKernel && H.get() != &F && Names.count(H->Name))
      Helpers.push_back(H.get());
  return Helpers;
}

} // namespace gpumerge
