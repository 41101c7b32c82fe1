//===- PointerChains.cpp - Pointers into array parameters -----------------===//
#include "Frontend/PointerChains.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <map>

namespace gpumerge {

using namespace clang;

std::optional<PointerChain> pointerChain(const clang::Expr *E) {
  PointerChain C;
  E = E->IgnoreParenImpCasts();
  // `&p[i]`: p + i.
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf) {
    const auto *S =
        dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParenImpCasts());
    if (!S || !S->getIdx()->getType()->isIntegerType())
      return std::nullopt;
    auto Inner = pointerChain(S->getBase());
    if (!Inner)
      return std::nullopt;
    Inner->Offsets.push_back({S->getIdx(), false});
    return Inner;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    bool LeftPtr = B->getLHS()->getType()->isPointerType();
    if (B->getOpcode() != BO_Add && !(B->getOpcode() == BO_Sub && LeftPtr))
      return std::nullopt;
    const clang::Expr *Offset = LeftPtr ? B->getRHS() : B->getLHS();
    if (!Offset->getType()->isIntegerType())
      return std::nullopt;
    auto Inner = pointerChain(LeftPtr ? B->getLHS() : B->getRHS());
    if (!Inner)
      return std::nullopt;
    Inner->Offsets.push_back({Offset, B->getOpcode() == BO_Sub});
    return Inner;
  }
  const auto *D = dyn_cast<DeclRefExpr>(E);
  C.Base = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!C.Base || !C.Base->getType()->isPointerType())
    return std::nullopt;
  return C;
}

namespace {

class AssignedVisitor : public RecursiveASTVisitor<AssignedVisitor> {
public:
  Assigned Out;

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      target(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      target(U->getSubExpr());
    else if (U->getOpcode() == UO_AddrOf)
      if (const auto *D =
              dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          Out.Variables.insert(V);
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (V->getType()->isPointerType() && V->hasInit())
      if (auto C = pointerChain(V->getInit()))
        PointsInto[V] = C->Base;
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *O) {
    if (O->isAssignmentOp() && O->getNumArgs() > 0) // a vector's operator=
      target(O->getArg(0));
    return true;
  }

  /// Pointer variables set into another's array (`row = a + i * w`).
  std::map<const VarDecl *, const VarDecl *> PointsInto;

private:
  void target(const clang::Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        Out.Variables.insert(V);
      return;
    }
    if (const auto *M = dyn_cast<MemberExpr>(E)) // v.x = ...
      return target(M->getBase());
    if (const auto *S = dyn_cast<ArraySubscriptExpr>(E))
      return array(S->getBase());
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_Deref)
      return array(U->getSubExpr());
  }
  void array(const clang::Expr *E) {
    while (const auto *S =
               dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts()))
      E = S->getBase();
    if (auto C = pointerChain(E))
      Out.Arrays.insert(C->Base);
    else if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        Out.Arrays.insert(V);
  }
};

} // namespace

Assigned assignedIn(const clang::Stmt &Body) {
  AssignedVisitor V;
  V.TraverseStmt(const_cast<clang::Stmt *>(&Body));
  // A write through a pointer into an array writes that array.
  std::vector<const VarDecl *> Through(V.Out.Arrays.begin(),
                                       V.Out.Arrays.end());
  for (const VarDecl *A : Through)
    for (unsigned Depth = 0; Depth < 16 && V.PointsInto.count(A); ++Depth)
      V.Out.Arrays.insert(A = V.PointsInto[A]);
  return V.Out;
}

} // namespace gpumerge
