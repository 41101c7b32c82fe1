//===- PointerChains.cpp - Pointers into array parameters -----------------===//
#include "Frontend/PointerChains.h"
#include "Frontend/Inlining.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <map>

namespace gpumerge {

using namespace clang;

std::optional<PointerChain> pointerChain(const clang::Expr *E,
                                         bool ArrayBases) {
  PointerChain C;
  E = E->IgnoreParenImpCasts();
  // `&p[i]`: p + i.
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf) {
    const auto *S =
        dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParenImpCasts());
    if (!S || !S->getIdx()->getType()->isIntegerType())
      return std::nullopt;
    auto Inner = pointerChain(S->getBase(), ArrayBases);
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
    auto Inner = pointerChain(LeftPtr ? B->getLHS() : B->getRHS(), ArrayBases);
    if (!Inner)
      return std::nullopt;
    Inner->Offsets.push_back({Offset, B->getOpcode() == BO_Sub});
    return Inner;
  }
  const auto *D = dyn_cast<DeclRefExpr>(E);
  C.Base = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!C.Base || !(C.Base->getType()->isPointerType() ||
                   (ArrayBases && C.Base->getType()->isConstantArrayType())))
    return std::nullopt;
  return C;
}

static Assigned assignedIn(const clang::Stmt &Body,
                           std::set<const FunctionDecl *> &Visiting);

namespace {

class AssignedVisitor : public RecursiveASTVisitor<AssignedVisitor> {
public:
  explicit AssignedVisitor(std::set<const FunctionDecl *> &Visiting)
      : Visiting(Visiting) {}

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
  /// A helper the lowering inlines (Inlining.h) writes what its pointer
  /// and reference parameters reach: the arguments' arrays and variables.
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    if (!FD || !FD->hasBody(Def) || !Def || !takesPointers(*Def) ||
        !Visiting.insert(Def).second)
      return true;
    Assigned Inner = assignedIn(*Def->getBody(), Visiting);
    Visiting.erase(Def);
    for (unsigned I = 0; I < C->getNumArgs() && I < Def->getNumParams(); ++I) {
      const ParmVarDecl *P = Def->getParamDecl(I);
      if (P->getType()->isPointerType() && Inner.Arrays.count(P))
        array(C->getArg(I));
      else if (P->getType()->isReferenceType() && Inner.Variables.count(P))
        target(C->getArg(I));
    }
    return true;
  }

  /// Pointer variables set into another's array (`row = a + i * w`).
  std::map<const VarDecl *, const VarDecl *> PointsInto;

private:
  std::set<const FunctionDecl *> &Visiting; ///< the helpers entered
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
    if (auto C = pointerChain(E, /*ArrayBases=*/true))
      Out.Arrays.insert(C->Base);
    else if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        Out.Arrays.insert(V);
  }
};

} // namespace

static Assigned assignedIn(const clang::Stmt &Body,
                           std::set<const FunctionDecl *> &Visiting) {
  AssignedVisitor V(Visiting);
  V.TraverseStmt(const_cast<clang::Stmt *>(&Body));
  // A write through a pointer into an array writes that array.
  std::vector<const VarDecl *> Through(V.Out.Arrays.begin(),
                                       V.Out.Arrays.end());
  for (const VarDecl *A : Through)
    for (unsigned Depth = 0; Depth < 16 && V.PointsInto.count(A); ++Depth)
      V.Out.Arrays.insert(A = V.PointsInto[A]);
  return V.Out;
}

Assigned assignedIn(const clang::Stmt &Body) {
  std::set<const FunctionDecl *> Visiting;
  return assignedIn(Body, Visiting);
}

} // namespace gpumerge
