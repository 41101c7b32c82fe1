//===- Templates.cpp - Kernel templates and their instantiations ----------===//
#include "Frontend/Templates.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/TemplateBase.h"

#include "llvm/Support/raw_ostream.h"

#include <cctype>

using namespace clang;

namespace gpumerge {

/// `unsigned int` as `unsigned_int`: letters, digits and single '_'.
static std::string identifierPart(llvm::StringRef Text) {
  std::string S;
  for (char C : Text) {
    bool Word = std::isalnum(static_cast<unsigned char>(C)) || C == '_';
    if (Word)
      S += C;
    else if (!S.empty() && S.back() != '_')
      S += '_';
  }
  while (!S.empty() && S.back() == '_')
    S.pop_back();
  return S;
}

static bool isInstantiation(const FunctionDecl &FD) {
  return FD.isTemplateInstantiation() && FD.getPrimaryTemplate() &&
         FD.getTemplateSpecializationArgs();
}

std::string kernelInstanceName(const FunctionDecl &FD) {
  std::string Name = FD.getNameAsString();
  if (!isInstantiation(FD))
    return Name;
  PrintingPolicy Policy(FD.getASTContext().getLangOpts());
  for (const TemplateArgument &A :
       FD.getTemplateSpecializationArgs()->asArray()) {
    std::string Part;
    switch (A.getKind()) {
    case TemplateArgument::Type:
      if (A.getAsType()->isPointerType() || A.getAsType()->isReferenceType())
        return "";
      Part = identifierPart(A.getAsType().getAsString(Policy));
      break;
    case TemplateArgument::Integral: {
      llvm::APSInt V = A.getAsIntegral();
      if ((V.isSigned() ? V.getSignificantBits() : V.getActiveBits()) > 63)
        return "";
      std::int64_t X = V.getExtValue();
      Part = (X < 0 ? "m" : "") + std::to_string(X < 0 ? -X : X);
      // k<1> and k<1u> are two instantiations: k_1, k_1_unsigned_int.
      QualType T = A.getIntegralType().getCanonicalType();
      if (!T->isSpecificBuiltinType(BuiltinType::Int))
        Part += "_" + identifierPart(T.getAsString(Policy));
      break;
    }
    default:
      return "";
    }
    if (Part.empty())
      return "";
    Name += "_" + Part;
  }
  return Name;
}

std::string templateCall(const FunctionDecl &FD) {
  if (!isInstantiation(FD))
    return "";
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << FD.getName();
  printTemplateArgumentList(OS, FD.getTemplateSpecializationArgs()->asArray(),
                            PrintingPolicy(FD.getASTContext().getLangOpts()));
  return OS.str();
}

} // namespace gpumerge
