//===- LowerType.cpp - Types, their spellings, vectors and initial values -===//
//
// Lowering (Lowering.h) of Clang types to KIR types: scalars, address
// spaces, arrays and CUDA/OpenCL vectors; the spellings the output keeps
// (typedefs, a type written with a macro, a texture's template
// arguments); vector literals and component stores; constant arrays and
// the zero value of a variable without an initializer.
//
//===----------------------------------------------------------------------===//
#include "Frontend/FileConstants.h"
#include "Frontend/Lowering.h"
#include "Frontend/Prelude.h"
#include "Frontend/Templates.h"
#include "IR/Printer.h"
#include "IR/VectorComponents.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace clang;

namespace gpumerge {

void Lowering::noteTypedef(const TypedefNameDecl *TD) {
  std::string Name = TD->getNameAsString();
  for (auto &[N, _] : M.Typedefs)
    if (N == Name)
      return;
  if (!isUserCode(TD->getLocation()))
    return; // a system header or the prelude (float4, size_t)
  QualType Under = TD->getUnderlyingType().getCanonicalType();
  const RecordDecl *Vec = cudaVectorRecord(Under);
  M.Typedefs.emplace_back(
      Name, "typedef " + (Vec ? Vec->getNameAsString() : Under.getAsString()) +
                " " + Name + ";");
}

std::optional<std::string>
Lowering::textureTemplateArgs(const clang::CallExpr &C,
                              const FunctionDecl &Callee) const {
  llvm::StringRef Name = Callee.getName();
  const auto *R =
      llvm::dyn_cast<DeclRefExpr>(C.getCallee()->IgnoreParenImpCasts());
  if (!R || !R->hasExplicitTemplateArgs() || isUserCode(Callee.getLocation()) ||
      !(Name.startswith("tex") || Name.startswith("surf")))
    return std::nullopt;
  std::string Written =
      Lexer::getSourceText(
          CharSourceRange::getTokenRange(SM.getSpellingLoc(R->getLAngleLoc()),
                                         SM.getSpellingLoc(R->getRAngleLoc())),
          SM, Ctx.getLangOpts())
          .str();
  if (Written.empty() || Written.front() != '<' || Written.back() != '>')
    return "";
  return Written;
}

void Lowering::spellTypeMacro(TypeLoc TL, Type &T) {
  // The CUDA launcher checks the type the kernel was optimized for
  // (Launcher.h); an OpenCL host's helper cannot.
  if (!T.TypedefName.empty() || T.VectorWidth != 1 || M.Lang != Language::Cuda)
    return;
  // The scalar under qualifiers and one pointer, as lowerType reads it.
  TL = TL.getUnqualifiedLoc();
  if (auto P = TL.getAs<PointerTypeLoc>())
    TL = P.getPointeeLoc().getUnqualifiedLoc();
  auto B = TL.getAs<BuiltinTypeLoc>();
  if (!B)
    return;
  SourceLocation Begin = B.getBeginLoc(), End = B.getEndLoc();
  if (!Begin.isMacroID() ||
      !Lexer::isAtStartOfMacroExpansion(Begin, SM, Ctx.getLangOpts()) ||
      !Lexer::isAtEndOfMacroExpansion(End, SM, Ctx.getLangOpts()))
    return;
  llvm::StringRef Name =
      Lexer::getImmediateMacroName(Begin, SM, Ctx.getLangOpts());
  const IdentifierInfo *II =
      Name.empty() ? nullptr : PP.getIdentifierInfo(Name);
  const MacroInfo *MI = II ? PP.getMacroInfo(II) : nullptr;
  if (!MI || !MI->isObjectLike() || MI->getNumTokens() == 0 ||
      !isUserCode(MI->getDefinitionLoc()))
    return;
  std::string Text;
  for (const Token &Tok : MI->tokens()) {
    if (!Tok.isOneOf(tok::kw_float, tok::kw_double, tok::kw_int,
                     tok::kw_unsigned, tok::kw_signed, tok::kw_long,
                     tok::kw_short, tok::kw_char))
      return;
    Text += (Text.empty() ? "" : " ") + PP.getSpelling(Tok);
  }
  T.TypedefName = Name.str();
  for (auto &[N, _] : M.Macros)
    if (N == T.TypedefName)
      return;
  M.Macros.emplace_back(T.TypedefName, "#define " + T.TypedefName + " " + Text);
}

const RecordDecl *Lowering::cudaVectorRecord(QualType Q) const {
  const RecordDecl *RD = Q->getAsRecordDecl();
  if (!RD || !RD->isStruct() || !RD->getDefinition() ||
      isUserCode(RD->getLocation()))
    return nullptr;
  QualType Field;
  unsigned N = 0;
  for (const FieldDecl *F : RD->fields()) {
    QualType FT = F->getType().getCanonicalType();
    if (N >= 4 || F->getName() != vectorComponentName(N, 4) ||
        !FT->isArithmeticType() || (N && FT != Field))
      return nullptr;
    Field = FT;
    ++N;
  }
  if (N < 2)
    return nullptr;
  return RD;
}

Type Lowering::cudaVectorType(const RecordDecl &RD, QualType Q,
                              SourceLocation Loc) {
  unsigned N = std::distance(RD.field_begin(), RD.field_end());
  Type T = lowerScalar(RD.field_begin()->getType(), Loc);
  T.IsConst = false;
  T.VectorWidth = N;
  T.Packed = N == 3;
  if (scalarName(T.Scalar, N) != RD.getName())
    fail("type '" + Q.getAsString() + "'", Loc); // longlong2, dim3 ...
  return T;
}

ExprPtr Lowering::vectorLiteral(QualType Q,
                                llvm::ArrayRef<const clang::Expr *> Parts,
                                SourceLocation Loc) {
  Type Vec = lowerType(Q, Loc);
  Vec.IsConst = false;
  if (Vec.VectorWidth < 2 || Parts.size() > Vec.VectorWidth)
    return failExpr("vector of " + std::to_string(Parts.size()) +
                        " values for type '" + Q.getAsString() + "'",
                    Loc);
  std::vector<ExprPtr> Args;
  for (const clang::Expr *P : Parts) {
    if (P->getType()->isVectorType() || isCudaVector(P->getType()))
      return failExpr("vector built from vectors", Loc);
    if (llvm::isa<ImplicitValueInitExpr>(strip(P))) // float2 c = {e};
      Args.push_back(std::make_unique<IntLit>(0));
    else
      Args.push_back(lowerExpr(P));
  }
  while (Args.size() < Vec.VectorWidth)
    Args.push_back(std::make_unique<IntLit>(0));
  return std::make_unique<gpumerge::CallExpr>(VectorLiteralCallee,
                                              std::move(Args), Vec);
}

StmtPtr Lowering::lowerComponentStore(const clang::Expr *LHS, AssignOp Op,
                                      const clang::Expr *RHS,
                                      SourceLocation Loc) {
  const clang::Expr *Base = nullptr;
  std::string Name;
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(LHS);
      M && isCudaVector(M->getBase()->getType())) {
    if (M->isArrow())
      return failStmt("a store to a vector component through a pointer", Loc);
    Base = M->getBase();
    Name = M->getMemberDecl()->getNameAsString();
  } else if (const auto *V = llvm::dyn_cast<ExtVectorElementExpr>(LHS)) {
    if (V->isArrow() || V->getNumElements() != 1)
      return failStmt("a store to several vector components '" +
                          sourceText(V->getSourceRange()) + "'",
                      Loc);
    Base = V->getBase();
    Name = V->getAccessor().getName().str();
  } else {
    return nullptr;
  }
  ExprPtr Target = lowerExpr(Base);
  ExprPtr Value = RHS ? lowerExpr(RHS) : intLit(1);
  std::optional<unsigned> K =
      vectorComponentIndex(Name, Target->getType().VectorWidth);
  if (!K || !(llvm::isa<VarRef>(*Target) || llvm::isa<ArrayRef>(*Target)))
    return failStmt("a store to the vector component '" +
                        sourceText(LHS->getSourceRange()) + "'",
                    Loc);
  return withLine(componentStore(std::move(Target), *K, Op, std::move(Value)),
                  Loc);
}

Type Lowering::lowerScalar(QualType Q, SourceLocation Loc) {
  Type T;
  std::string TypedefName;
  // A typedef of the user's is written again in a translation only where
  // its type lowers: `typedef struct {...} Float3` printed as `typedef
  // Float3 Float3;`, and a program of another kernel did not build.
  const TypedefNameDecl *Named = nullptr;
  if (const auto *TT = Q->getAs<TypedefType>()) {
    const TypedefNameDecl *TD = TT->getDecl();
    if (isUserCode(TD->getLocation())) {
      Named = TD;
      TypedefName = TD->getNameAsString();
    } else if (llvm::StringRef N = TD->getName();
               N == "cudaTextureObject_t" || N == "cudaSurfaceObject_t") {
      // The CUDA runtime's handles keep their names: tex2D<float> takes a
      // cudaTextureObject_t, and no unsigned long long converts to one
      // where the call deduces its template. No translation declares them:
      // OpenCL has no such handle.
      TypedefName = N.str();
    }
  }
  auto Keep = [&] {
    if (Named)
      noteTypedef(Named);
  };
  QualType C = Q.getCanonicalType();
  if (const auto *V = C->getAs<clang::VectorType>()) {
    T = lowerScalar(V->getElementType(), Loc);
    T.VectorWidth = V->getNumElements();
    T.TypedefName = TypedefName;
    Keep();
    return T;
  }
  if (const RecordDecl *RD = cudaVectorRecord(C)) {
    T = cudaVectorType(*RD, Q, Loc);
    T.TypedefName = TypedefName;
    Keep();
    return T;
  }
  // A typedef of one (`typedef half fp16;`) is not declared again: OpenCL
  // spells the type float whatever its name (OpenCLEmitter.h).
  if (std::optional<ScalarKind> K = halfPrecisionKind(C)) {
    T.Scalar = *K;
    T.TypedefName = TypedefName;
    return T;
  }
  const auto *B = C->getAs<BuiltinType>();
  if (!B) {
    fail("type '" + Q.getAsString() + "'", Loc);
    return T;
  }
  switch (B->getKind()) {
  case BuiltinType::Void:
    T.Scalar = ScalarKind::Void;
    break;
  case BuiltinType::Bool:
    T.Scalar = ScalarKind::Bool;
    break;
  case BuiltinType::Char_S:
  case BuiltinType::SChar:
    T.Scalar = ScalarKind::Char;
    T.SpelledSigned = B->getKind() == BuiltinType::SChar;
    break;
  case BuiltinType::Char_U:
  case BuiltinType::UChar:
    T.Scalar = ScalarKind::UChar;
    break;
  case BuiltinType::Short:
    T.Scalar = ScalarKind::Short;
    break;
  case BuiltinType::UShort:
    T.Scalar = ScalarKind::UShort;
    break;
  case BuiltinType::Int:
    T.Scalar = ScalarKind::Int;
    break;
  case BuiltinType::UInt:
    T.Scalar = ScalarKind::UInt;
    break;
  case BuiltinType::Long:
  case BuiltinType::LongLong:
    T.Scalar = ScalarKind::Long;
    T.SpelledLong = B->getKind() == BuiltinType::Long;
    break;
  case BuiltinType::ULong:
  case BuiltinType::ULongLong:
    T.Scalar = ScalarKind::ULong;
    T.SpelledLong = B->getKind() == BuiltinType::ULong;
    break;
  case BuiltinType::Float:
    T.Scalar = ScalarKind::Float;
    break;
  case BuiltinType::Double:
    T.Scalar = ScalarKind::Double;
    break;
  default:
    fail("type '" + Q.getAsString() + "'", Loc);
    return T;
  }
  T.TypedefName = TypedefName;
  Keep();
  return T;
}

AddressSpace Lowering::lowerSpace(LangAS AS) {
  switch (AS) {
  case LangAS::opencl_global:
  case LangAS::cuda_device:
    return AddressSpace::Global;
  case LangAS::opencl_local:
  case LangAS::cuda_shared:
    return AddressSpace::Shared;
  case LangAS::opencl_constant:
  case LangAS::cuda_constant:
    return AddressSpace::Constant;
  default:
    return AddressSpace::Private;
  }
}

Type Lowering::lowerType(QualType Q, SourceLocation Loc) {
  if (const auto *P = Q->getAs<PointerType>()) {
    QualType Pointee = P->getPointeeType();
    std::vector<std::int64_t> Inner;
    QualType Elem = Pointee;
    while (const auto *A = Ctx.getAsConstantArrayType(Elem)) {
      Inner.push_back(A->getSize().getSExtValue());
      Elem = A->getElementType();
    }
    if (Elem->isPointerType()) {
      fail("pointer to pointer '" + Q.getAsString() + "'", Loc);
      return Type();
    }
    Type T = lowerScalar(Elem, Loc);
    T.IsVolatile = Pointee.isVolatileQualified() || Elem.isVolatileQualified();
    T.IsPointer = true;
    T.Space = lowerSpace(Pointee.getAddressSpace());
    T.IsConst = Pointee.isConstQualified() || Elem.isConstQualified();
    T.InnerExtents = Inner;
    return T;
  }
  if (Q->isArrayType() || Q->isReferenceType() ||
      (Q->isRecordType() && !isCudaVector(Q) && !halfPrecisionKind(Q))) {
    fail("type '" + Q.getAsString() + "'", Loc);
    return Type();
  }
  Type T = lowerScalar(Q, Loc);
  T.IsConst = Q.isConstQualified();
  return T;
}

ExprPtr Lowering::lowerConstantArray(const VarDecl &V,
                                     std::vector<ExprPtr> Indices,
                                     const ArraySubscriptExpr &A,
                                     SourceLocation Loc) {
  std::string Name = V.getNameAsString();
  std::vector<std::int64_t> Extents;
  QualType Elem = V.getType();
  while (const auto *CA = Ctx.getAsConstantArrayType(Elem)) {
    Extents.push_back(CA->getSize().getSExtValue());
    Elem = CA->getElementType();
  }
  if (Extents.empty())
    return failExpr(
        "a read through the file-scope constant pointer '" + Name + "'", Loc);
  if (Indices.size() != Extents.size())
    return failExpr(
        "a row of the constant array '" + Name + "' taken as a pointer", Loc);
  Type T = lowerScalar(Elem.getUnqualifiedType(), Loc);
  bool Initialized = hasWrittenInit(V);
  // Its initializer is CUDA's text (`__half_raw{0x3800}`), which a
  // translation computing halves as floats cannot declare again.
  if (Initialized && T.isHalfPrecision())
    return failExpr("a read of the constant array '" + Name +
                        "' of 16-bit floats, which its initializer fills",
                    Loc);
  if (!Initialized) {
    if (!CurrentIsKernel)
      return failExpr("a read of the __constant__ array '" + Name +
                          "' in a helper function (only kernels may read "
                          "those the host fills)",
                      Loc);
    bool Known = false;
    for (const Param &P : ConstantArrays)
      Known |= P.Name == Name;
    if (!Known) {
      Param P;
      P.Name = Name;
      P.Ty = T;
      P.Ty.IsPointer = true;
      P.Ty.IsConst = true;
      P.Ty.Space = AddressSpace::Constant;
      P.Ty.InnerExtents.assign(Extents.begin() + 1, Extents.end());
      P.DeclaredRows = Extents.front();
      ConstantArrays.push_back(std::move(P));
    }
  } else {
    bool Known = false;
    for (const Module::ConstantDefinition &D : M.ConstantDefinitions)
      Known |= D.Name == Name;
    if (!Known)
      M.ConstantDefinitions.push_back(
          {Name, T, Extents,
           Lexer::getSourceText(
               CharSourceRange::getTokenRange(V.getInit()->getSourceRange()),
               SM, Ctx.getLangOpts())
               .str()});
  }
  auto R = std::make_unique<ArrayRef>(Name, std::move(Indices),
                                      lowerScalar(A.getType(), Loc));
  R->Space = AddressSpace::Constant;
  return R;
}

ExprPtr Lowering::zeroOf(const gpumerge::Type &T) {
  if (T.isFloating())
    return std::make_unique<FloatLit>(
        0.0, T.Scalar == ScalarKind::Float ? "0.0f" : "0.0", T);
  return std::make_unique<IntLit>(0, T);
}

bool Lowering::hasWrittenInit(const VarDecl &V) {
  if (!V.hasInit())
    return false;
  const auto *C = llvm::dyn_cast<CXXConstructExpr>(strip(V.getInit()));
  return !C || C->getNumArgs() != 0 || C->requiresZeroInitialization() ||
         !C->getConstructor()->isTrivial();
}

} // namespace gpumerge
