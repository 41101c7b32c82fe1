//===- WholeGroups.cpp - A fast branch where every merged copy is inside --===//
//
// See WholeGroups.h.
//
//===----------------------------------------------------------------------===//
#include "Transforms/WholeGroups.h"

#include "Analysis/Affine.h"
#include "IR/Printer.h"

#include <set>

namespace gpumerge {

namespace {

bool signedInteger(const Type &T) {
  return !T.IsPointer && T.VectorWidth == 1 &&
         (T.Scalar == ScalarKind::Char || T.Scalar == ScalarKind::Short ||
          T.Scalar == ScalarKind::Int || T.Scalar == ScalarKind::Long);
}

/// Whether condition \p E (negated when \p Negated) holds on a whole run of
/// positions whenever it holds at the run's two ends: a conjunction of
/// linear comparisons (a bound is a half-space; an equality, a plane) over
/// signed integers, which cannot wrap between the ends as unsigned ones can.
bool convexInPositions(const Expr &E, bool Negated, const AffineContext &Ctx) {
  if (auto *U = llvm::dyn_cast<UnaryExpr>(&E); U && U->Op == UnaryOp::Not)
    return convexInPositions(*U->Sub, !Negated, Ctx);
  auto *B = llvm::dyn_cast<BinaryExpr>(&E);
  if (!B)
    return false;
  if (B->Op == (Negated ? BinaryOp::LOr : BinaryOp::LAnd))
    return convexInPositions(*B->LHS, Negated, Ctx) &&
           convexInPositions(*B->RHS, Negated, Ctx);
  if (!isComparison(B->Op) || B->Op == (Negated ? BinaryOp::EQ : BinaryOp::NE))
    return false;
  bool Signed = true;
  for (const Expr *Side : {B->LHS.get(), B->RHS.get()})
    walkExpr(*Side,
             [&](const Expr &X) { Signed &= signedInteger(X.getType()); });
  auto L = toAffine(*B->LHS, Ctx), R = toAffine(*B->RHS, Ctx);
  return Signed && L && R && (*L - *R).isAffine();
}

/// The statements of \p S: a block's, or S alone.
std::vector<const Stmt *> statementsOf(const Stmt &S) {
  std::vector<const Stmt *> R;
  if (auto *B = llvm::dyn_cast<BlockStmt>(&S))
    for (const StmtPtr &X : B->Body)
      R.push_back(X.get());
  else
    R.push_back(&S);
  return R;
}

void conjuncts(ExprPtr E, std::vector<ExprPtr> &Out) {
  if (auto *B = llvm::dyn_cast<BinaryExpr>(E.get());
      B && B->Op == BinaryOp::LAnd) {
    conjuncts(std::move(B->LHS), Out);
    conjuncts(std::move(B->RHS), Out);
    return;
  }
  Out.push_back(std::move(E));
}

} // namespace

/// if (G_0 && G_{W-1}) { B_0; ...; B_{W-1}; }
/// else { if (G_0) B_0; ...; if (G_{W-1}) B_{W-1}; }
bool branchOnWholeGroups(Function &K, std::array<std::int64_t, 2> Grid) {
  const std::int64_t W = Grid[0] * Grid[1];
  std::vector<StmtPtr> &Top = K.Body->Body;
  std::size_t First = 0;
  while (First < Top.size() && !llvm::isa<IfStmt>(Top[First].get()))
    ++First;
  if (Top.size() - First != std::size_t(W))
    return false;
  std::vector<IfStmt *> Copies;
  std::set<std::string> Declared;
  for (std::size_t I = First; I < Top.size(); ++I) {
    auto *If = llvm::dyn_cast<IfStmt>(Top[I].get());
    if (!If || If->Else)
      return false;
    for (const Stmt *S : statementsOf(*If->Then))
      if (auto *D = llvm::dyn_cast<DeclStmt>(S))
        if (!Declared.insert(D->Name).second)
          return false; // copies declare one name: one block cannot hold both
    Copies.push_back(If);
  }
  // The corners of the grid of copies (Y-major): both ends of a run.
  std::set<std::size_t> Corners = {0, std::size_t(Grid[0] - 1),
                                   std::size_t((Grid[1] - 1) * Grid[0]),
                                   std::size_t(W - 1)};
  AffineContext Ctx = kernelAffineContext(K);
  bool Convex = llvm::all_of(Corners, [&](std::size_t I) {
    return convexInPositions(*Copies[I]->Cond, false, Ctx);
  });
  std::vector<ExprPtr> Atoms;
  std::set<std::string> Seen;
  for (std::size_t I = 0; I < Copies.size(); ++I) {
    if (Convex && !Corners.count(I))
      continue;
    std::vector<ExprPtr> Parts;
    conjuncts(Copies[I]->Cond->clone(), Parts);
    for (ExprPtr &P : Parts)
      if (Seen.insert(printExprDebug(*P)).second)
        Atoms.push_back(std::move(P));
  }
  ExprPtr Whole = std::move(Atoms.front());
  for (std::size_t I = 1; I < Atoms.size(); ++I)
    Whole = binary(BinaryOp::LAnd, std::move(Whole), std::move(Atoms[I]));
  auto Fast = std::make_unique<BlockStmt>();
  auto Edge = std::make_unique<BlockStmt>();
  for (std::size_t I = First; I < Top.size(); ++I) {
    for (const Stmt *S : statementsOf(*llvm::cast<IfStmt>(Top[I].get())->Then))
      Fast->Body.push_back(S->clone());
    Edge->Body.push_back(std::move(Top[I]));
  }
  Top.resize(First);
  Top.push_back(std::make_unique<IfStmt>(std::move(Whole), std::move(Fast),
                                         std::move(Edge)));
  return true;
}

} // namespace gpumerge
