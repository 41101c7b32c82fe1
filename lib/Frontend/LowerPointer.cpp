//===- LowerPointer.cpp - Pointers as arrays with offsets -----------------===//
//
// Lowering (Lowering.h) of what KIR has no pointers for: a dereference
// becomes an array reference with the pointer's offset in its index
// (`*(p + i)` is p[i]); a local pointer into an array parameter
// (`const float *row = a + i * w;`), whose offset does not change while it
// is in scope, is read as the parameter (`row[j]` is a[i * w + j]); a
// parameter moved once to the thread's row (`p += k;`) likewise. Any other
// pointer assignment is refused with the reason.
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

ExprPtr Lowering::arrayRef(const VarDecl &BV, std::vector<ExprPtr> Indices,
                           QualType Elem, SourceLocation Loc) {
  auto R = std::make_unique<ArrayRef>(nameOf(BV), std::move(Indices),
                                      lowerScalar(Elem, Loc));
  QualType BT = BV.getType();
  if (BT->isPointerType())
    R->Space = lowerSpace(BT->getPointeeType().getAddressSpace());
  else
    R->Space = BV.hasAttr<CUDASharedAttr>() ||
                       BT.getAddressSpace() == LangAS::opencl_local
                   ? AddressSpace::Shared
                   : AddressSpace::Private;
  if (BT->isPointerType() && R->Space == AddressSpace::Private)
    R->Space = AddressSpace::Global;
  return R;
}

ExprPtr Lowering::lowerPointee(const clang::Expr *Pointer, QualType Elem,
                               SourceLocation Loc) {
  std::optional<PointerChain> C = pointerChain(Pointer);
  const VarDecl *V = C ? C->Base : nullptr;
  if (!V || !V->isLocalVarDeclOrParm() || !pointsToElements(*V))
    return failExpr("pointer dereference", Loc);
  ExprPtr Index = sumOffsets(C->Offsets);
  if (auto It = PointsAtVariable.find(V); It != PointsAtVariable.end()) {
    std::vector<ExprPtr> Indices;
    Indices.push_back(Index ? std::move(Index) : intLit(0));
    return variablePointee(*It->second, Indices, Loc);
  }
  if (auto It = Aliases.find(V); It != Aliases.end())
    return arrayRef(
        *It->second.Base,
        aliasIndex(It->second, Index ? std::move(Index) : intLit(0)), Elem,
        Loc);
  std::vector<ExprPtr> Indices;
  Indices.push_back(Index ? std::move(Index) : intLit(0));
  return arrayRef(*V, std::move(Indices), Elem, Loc);
}

ExprPtr Lowering::sumOffsets(
    const std::vector<std::pair<const clang::Expr *, bool>> &Offsets) {
  ExprPtr Sum;
  for (const auto &[Offset, Negated] : Offsets) {
    ExprPtr X = lowerExpr(Offset);
    if (!Sum) {
      Type T = X->getType();
      Sum = Negated ? std::make_unique<UnaryExpr>(UnaryOp::Neg, std::move(X), T)
                    : std::move(X);
      continue;
    }
    Type T = Sum->getType();
    Sum = std::make_unique<BinaryExpr>(Negated ? BinaryOp::Sub : BinaryOp::Add,
                                       std::move(Sum), std::move(X), T);
  }
  return Sum;
}

std::vector<ExprPtr> Lowering::aliasIndex(const Alias &A, ExprPtr Index) {
  std::vector<ExprPtr> Out;
  const auto *Zero = llvm::dyn_cast<IntLit>(Index.get());
  if (!A.Offset)
    Out.push_back(std::move(Index));
  else if (Zero && Zero->Value == 0)
    Out.push_back(llvm::isa<gpumerge::CastExpr>(*A.Offset)
                      ? llvm::cast<gpumerge::CastExpr>(*A.Offset).Sub->clone()
                      : A.Offset->clone());
  else
    Out.push_back(add(A.Offset->clone(), std::move(Index)));
  return Out;
}

ExprPtr Lowering::widenedOffset(ExprPtr More) {
  if (!More->getType().is64BitInteger() && !llvm::isa<IntLit>(*More))
    More = std::make_unique<gpumerge::CastExpr>(Type::scalar(ScalarKind::Long),
                                                std::move(More));
  return More;
}

bool Lowering::lowerPointerAlias(const Decl *D) {
  const auto *V = llvm::dyn_cast<VarDecl>(D);
  if (!V || !V->getType()->isPointerType() || !V->hasInit() ||
      V->hasAttr<CUDASharedAttr>() || !V->isLocalVarDecl())
    return false;
  SourceLocation Loc = V->getBeginLoc();
  std::string Name = "pointer '" + V->getNameAsString() + "'";
  std::optional<PointerChain> C = pointerChain(V->getInit());
  if (!C) {
    fail(Name + " set to what is not an array parameter plus an offset", Loc);
    return true;
  }
  if (Changed.Variables.count(V)) {
    fail(Name + " moved after its declaration", Loc);
    return true;
  }
  const VarDecl *Base = C->Base;
  ExprPtr Offset;
  if (PointsAtVariable.count(Base)) {
    fail(Name + " set to a pointer to a variable", Loc);
    return true;
  }
  if (auto It = Aliases.find(Base); It != Aliases.end()) {
    Base = It->second.Base;
    if (It->second.Offset)
      Offset = It->second.Offset->clone();
  } else if (!llvm::isa<ParmVarDecl>(Base) || !pointsToElements(*Base) ||
             Changed.Variables.count(Base)) {
    fail(Name + " into '" + Base->getNameAsString() +
             "', which is not an array parameter the kernel keeps",
         Loc);
    return true;
  }
  if (!Ctx.hasSameUnqualifiedType(V->getType()->getPointeeType(),
                                  elementOf(Base->getType()))) {
    fail(Name + " to another element type than '" + Base->getNameAsString() +
             "'",
         Loc);
    return true;
  }
  for (const auto &[E, Negated] : C->Offsets)
    if (std::string Why = unstableOffset(*E); !Why.empty()) {
      fail(Name + " offset by " + Why, Loc);
      return true;
    }
  if (ExprPtr More = sumOffsets(C->Offsets)) {
    More = widenedOffset(std::move(More));
    Offset = Offset ? add(std::move(Offset), std::move(More)) : std::move(More);
  }
  Aliases[V] = {Base, std::move(Offset)};
  return true;
}

StmtPtr Lowering::lowerPointerMove(const VarDecl &P, const clang::Expr &E,
                                   SourceLocation Loc) {
  std::string Name = "pointer '" + P.getNameAsString() + "'";
  auto Assigned = [&] {
    return failStmt(Name + " assigned (of pointers, gpumerge follows a "
                           "kernel's array parameter moved by `p += k`)",
                    Loc);
  };
  if (!llvm::isa<ParmVarDecl>(P) || !pointsToElements(P) ||
      PointsAtVariable.count(&P) || !Inlined.empty())
    return Assigned();
  // Moved once, before what follows it: not in a loop, and in a block that
  // runs or not as a whole, read from after the move and not after it.
  auto Block = BlockOf.find(&E);
  if (Block == BlockOf.end() || !LoopKinds.empty())
    return failStmt(Name + " moved in a loop or within another statement "
                           "(gpumerge follows `p += k;` outside loops)",
                    Loc);
  if (Block->second != KernelBody) {
    SourceLocation End = SM.getExpansionLoc(Block->second->getEndLoc());
    bool ReadAfter = false;
    std::function<void(const clang::Stmt *)> Find = [&](const clang::Stmt *S) {
      if (!S || ReadAfter)
        return;
      if (const auto *R = llvm::dyn_cast<DeclRefExpr>(S))
        ReadAfter = R->getDecl() == &P &&
                    SM.isBeforeInTranslationUnit(
                        End, SM.getExpansionLoc(R->getBeginLoc()));
      for (const clang::Stmt *X : S->children())
        Find(X);
    };
    Find(KernelBody);
    if (ReadAfter)
      return failStmt(Name + " moved inside a block and used after it", Loc);
  }
  const clang::Expr *By = nullptr;
  bool Back = false;
  if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(&E)) {
    if (B->getOpcode() != BO_AddAssign && B->getOpcode() != BO_SubAssign)
      return Assigned();
    By = B->getRHS();
    Back = B->getOpcode() == BO_SubAssign;
  } else {
    Back = llvm::cast<clang::UnaryOperator>(E).isDecrementOp();
  }
  ExprPtr More;
  if (By) {
    if (std::string Why = unstableOffset(*By); !Why.empty())
      return failStmt(Name + " moved by " + Why, Loc);
    More = widenedOffset(sumOffsets({{By, Back}}));
  } else {
    More = intLit(Back ? -1 : 1);
  }
  Alias &A = Aliases[&P];
  A.Base = &P;
  A.Offset =
      A.Offset ? add(std::move(A.Offset), std::move(More)) : std::move(More);
  return nullptr; // nothing: the reads after it carry the offset
}

std::string Lowering::unstableOffset(const clang::Expr &E) {
  std::string Why;
  std::function<void(const clang::Stmt *)> Visit = [&](const clang::Stmt *S) {
    if (!S || !Why.empty())
      return;
    if (const auto *R = llvm::dyn_cast<DeclRefExpr>(S))
      if (const auto *X = llvm::dyn_cast<VarDecl>(R->getDecl())) {
        if (Changed.Variables.count(X) && !llvm::is_contained(LoopIters, X))
          Why = "'" + X->getNameAsString() + "', which changes";
        else if (X->getType()->isPointerType() && Changed.Arrays.count(X))
          Why = "an element of '" + X->getNameAsString() +
                "', which the kernel writes";
      }
    if (llvm::isa<clang::CallExpr>(S))
      Why = "a call";
    for (const clang::Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(&E);
  return Why;
}

} // namespace gpumerge
