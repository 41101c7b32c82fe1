//===- NaiveShape.cpp - A naive kernel as prologue, guard and body -------===//
#include "Transforms/NaiveShape.h"

#include "Analysis/Affine.h"
#include "Analysis/Domain.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

namespace {

llvm::Error cannot(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why.str());
}

/// `if (c) return;` (no else).
bool isEarlyReturn(const IfStmt &If) {
  if (If.Else)
    return false;
  if (auto *R = llvm::dyn_cast<ReturnStmt>(If.Then.get()))
    return !R->Value;
  auto *B = llvm::dyn_cast<BlockStmt>(If.Then.get());
  return B && B->Body.size() == 1 && llvm::isa<ReturnStmt>(B->Body[0].get());
}

} // namespace

bool isPrologue(const Stmt &St) {
  if (llvm::isa<DeclStmt>(&St))
    return true;
  auto *A = llvm::dyn_cast<AssignStmt>(&St);
  if (!A || !llvm::isa<VarRef>(A->LHS.get()))
    return false;
  bool ReadsMemory = false;
  walkExpr(*A->RHS, [&](const Expr &X) {
    ReadsMemory |= llvm::isa<ArrayRef>(&X) || llvm::isa<CallExpr>(&X);
  });
  return !ReadsMemory;
}

namespace {

void splitConjuncts(const Expr &E, BinaryOp Op, unsigned &N) {
  if (auto *B = llvm::dyn_cast<BinaryExpr>(&E); B && B->Op == Op) {
    splitConjuncts(*B->LHS, Op, N);
    splitConjuncts(*B->RHS, Op, N);
    return;
  }
  ++N;
}

} // namespace

llvm::Expected<NaiveShape> analyzeShape(const Function &F) {
  NaiveShape S;
  KernelDomain D = findDomain(F);
  S.Dims = D.Dims;
  unsigned Bounds = 0;
  for (unsigned Dim = 0; Dim < 2; ++Dim) {
    if (D.Bounds[Dim].size() > 1)
      return cannot(llvm::formatv("dimension {0} has {1} bounds guards",
                                  Dim == 0 ? "X" : "Y", D.Bounds[Dim].size()));
    if (D.Bounds[Dim].empty())
      continue;
    ++Bounds;
    const DomainBound &B = D.Bounds[Dim].front();
    ExprPtr E = inlineSingleAssignmentLocals(*B.Bound, F);
    if (B.Offset)
      E = add(std::move(E), intLit(B.Offset));
    S.Extent[Dim] = std::shared_ptr<const Expr>(simplifyExpr(std::move(E)));
  }
  // A 3-D grid's layers: its z bound is one of the guard's bounds (the
  // launch gives exactly that many layers, Launcher.cpp).
  if (D.LayerBounds.size() > 1)
    return cannot(llvm::formatv("dimension Z has {0} bounds guards",
                                D.LayerBounds.size()));
  Bounds += D.LayerBounds.size();

  std::vector<StmtPtr> Top;
  for (const StmtPtr &St : F.Body->Body)
    Top.push_back(St->clone());
  size_t I = 0;
  while (I < Top.size() && isPrologue(*Top[I]))
    S.Prologue.push_back(std::move(Top[I++]));
  if (Bounds == 0) {
    for (; I < Top.size(); ++I)
      S.Guarded.push_back(std::move(Top[I]));
    return S;
  }
  auto *If = I < Top.size() ? llvm::dyn_cast<IfStmt>(Top[I].get()) : nullptr;
  if (!If || If->Else)
    return cannot("the bounds guard is not one `if` after the declarations");
  bool EarlyReturn = isEarlyReturn(*If);
  unsigned Atoms = 0;
  splitConjuncts(*If->Cond, EarlyReturn ? BinaryOp::LOr : BinaryOp::LAnd,
                 Atoms);
  if (EarlyReturn) {
    // One early return per dimension (Rodinia's `if (x >= n) return;
    // if (y >= m) return;`) is one guard: !(a) && !(b). Every return
    // left after it would leave the merged copies that follow undone.
    auto Not = [](ExprPtr E) -> ExprPtr {
      return std::make_unique<UnaryExpr>(UnaryOp::Not, std::move(E),
                                         Type::scalar(ScalarKind::Int));
    };
    S.Guard = Not(std::move(If->Cond));
    for (++I; I < Top.size(); ++I) {
      auto *Next = llvm::dyn_cast<IfStmt>(Top[I].get());
      if (!Next || !isEarlyReturn(*Next))
        break;
      splitConjuncts(*Next->Cond, BinaryOp::LOr, Atoms);
      S.Guard = binary(BinaryOp::LAnd, std::move(S.Guard),
                       Not(std::move(Next->Cond)));
    }
    for (; I < Top.size(); ++I)
      S.Guarded.push_back(std::move(Top[I]));
  } else {
    if (I + 1 != Top.size())
      return cannot("statements follow the bounds guard");
    S.Guard = std::move(If->Cond);
    S.Guarded = unwrap(std::move(If->Then));
  }
  S.GuardKeepsMore = Atoms != Bounds;
  S.GuardAtoms = Atoms;
  return S;
}

} // namespace gpumerge
