//===- Kernel.cpp - KIR functions and modules -----------------------------===//
#include "IR/Kernel.h"

namespace gpumerge {

const char *languageName(Language L) {
  return L == Language::Cuda ? "cuda" : "opencl";
}

std::string fallbackName(const std::string &Kernel) {
  return Kernel + "_naive";
}

const char *textureFormName(TextureForm F) {
  return F == TextureForm::Object ? "object" : "ldg";
}

bool LaunchPlan::readsThroughTexture(const std::string &Array) const {
  for (const std::string &A : TextureArrays)
    if (A == Array)
      return true;
  return false;
}

bool readAsImage(const Type &Element) {
  return Element.VectorWidth == 1 && (Element.Scalar == ScalarKind::Float ||
                                      Element.Scalar == ScalarKind::Int ||
                                      Element.Scalar == ScalarKind::UInt);
}

std::string textureParamName(const Function &F, const std::string &Array,
                             Language L) {
  std::string N = Array + (L == Language::Cuda ? "_tex" : "_img");
  while (F.findParam(N))
    N += "_";
  return N;
}

const Param *Function::findParam(const std::string &N) const {
  for (const Param &P : Params)
    if (P.Name == N)
      return &P;
  return nullptr;
}

std::unique_ptr<Function> Function::clone() const {
  auto F = std::make_unique<Function>();
  F->Name = Name;
  F->IsKernel = IsKernel;
  F->ReturnType = ReturnType;
  F->Params = Params;
  F->Body.reset(static_cast<BlockStmt *>(Body->clone().release()));
  F->Span = Span;
  F->SizeHints = SizeHints;
  F->OutputHints = OutputHints;
  F->PaperDialect = PaperDialect;
  F->PhaseOf = PhaseOf;
  F->PhaseIndex = PhaseIndex;
  F->Plan = Plan;
  return F;
}

bool hasGlobalSync(const Function &F) {
  bool Found = false;
  walkStmts(*F.Body, [&](Stmt &S) { Found |= llvm::isa<GlobalSyncStmt>(S); });
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

Function *Module::find(const std::string &Name) const {
  for (const auto &F : Functions)
    if (F->Name == Name)
      return F.get();
  return nullptr;
}

} // namespace gpumerge
