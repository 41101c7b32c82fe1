//===- FileConstants.cpp - File-scope constants as literals ---------------===//

#include "Frontend/FileConstants.h"

#include "clang/AST/APValue.h"
#include "clang/AST/DeclCXX.h"

#include <cmath>

using namespace clang;

namespace gpumerge {

/// Does \p V's plain name name it in every function of the file: declared
/// at file scope, in `extern "C"` or in anonymous namespaces only?
static bool namedPlainly(const VarDecl &V) {
  const DeclContext *DC = V.getDeclContext()->getRedeclContext();
  while (const auto *NS = llvm::dyn_cast<NamespaceDecl>(DC)) {
    if (!NS->isAnonymousNamespace())
      return false;
    DC = NS->getParent()->getRedeclContext();
  }
  return DC->isTranslationUnit();
}

std::variant<ConstantValue, std::string> fileConstantValue(const VarDecl &V,
                                                           bool Qualified) {
  std::string Name = "'" + V.getNameAsString() + "'";
  QualType Q = V.getType();
  bool Constant = Q.isConstQualified() || V.isConstexpr() ||
                  Q.getAddressSpace() == LangAS::opencl_constant;
  if (!Constant || Q.isVolatileQualified())
    return "global variable " + Name +
           " (of file-scope scalars, gpumerge reads the constant ones only)";
  if (Qualified && !namedPlainly(V))
    return "the constant " + Name + " of a namespace or class, named with it";
  if (!(Q->isIntegerType() && !Q->isBooleanType() && !Q->isEnumeralType()) &&
      !Q->isRealFloatingType())
    return "the file-scope constant " + Name + " of type '" + Q.getAsString() +
           "'";
  const VarDecl *Def = nullptr;
  if (!V.getAnyInitializer(Def) || !Def)
    return "the file-scope constant " + Name + ", defined in another file";
  const APValue *Value = Def->evaluateValue();
  if (!Value)
    return "the file-scope constant " + Name +
           ", whose value is not known at compile time";
  if (Value->isInt()) {
    const llvm::APSInt &I = Value->getInt();
    if (I.isUnsigned() ? I.getActiveBits() > 63 : I.getSignificantBits() > 64)
      return "the file-scope constant " + Name + ", too large for 64 bits";
    return ConstantValue(I.getExtValue());
  }
  if (Value->isFloat()) {
    const llvm::APFloat &F = Value->getFloat();
    bool Exact = &F.getSemantics() == &llvm::APFloat::IEEEsingle() ||
                 &F.getSemantics() == &llvm::APFloat::IEEEdouble();
    if (!Exact || !F.isFinite())
      return "the file-scope constant " + Name +
             ", not a finite float or double";
    double D = &F.getSemantics() == &llvm::APFloat::IEEEsingle()
                   ? double(F.convertToFloat())
                   : F.convertToDouble();
    return ConstantValue(D);
  }
  return "the file-scope constant " + Name + " of this kind of value";
}

} // namespace gpumerge
