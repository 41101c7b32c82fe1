//===- Stmt.cpp - KIR statements ------------------------------------------===//
#include "IR/Stmt.h"

namespace gpumerge {

const char *assignOpSpelling(AssignOp Op) {
  switch (Op) {
  case AssignOp::Set:
    return "=";
  case AssignOp::Add:
    return "+=";
  case AssignOp::Sub:
    return "-=";
  case AssignOp::Mul:
    return "*=";
  case AssignOp::Div:
    return "/=";
  }
  return "?";
}

std::optional<BinaryOp> assignBinaryOp(AssignOp Op) {
  switch (Op) {
  case AssignOp::Set:
    return std::nullopt;
  case AssignOp::Add:
    return BinaryOp::Add;
  case AssignOp::Sub:
    return BinaryOp::Sub;
  case AssignOp::Mul:
    return BinaryOp::Mul;
  case AssignOp::Div:
    return BinaryOp::Div;
  }
  return std::nullopt;
}

StmtPtr BlockStmt::clone() const {
  auto B = withCommon(std::make_unique<BlockStmt>());
  for (const StmtPtr &S : Body)
    B->Body.push_back(S->clone());
  return B;
}

StmtPtr DeclStmt::clone() const {
  auto D = withCommon(
      std::make_unique<DeclStmt>(Name, Ty, Init ? Init->clone() : nullptr));
  D->Extents = Extents;
  return D;
}

StmtPtr ForStmt::clone() const {
  auto F = withCommon(std::make_unique<ForStmt>());
  F->Iter = Iter;
  F->IterType = IterType;
  F->DeclaresIter = DeclaresIter;
  F->Init = Init->clone();
  F->CondOp = CondOp;
  F->Bound = Bound->clone();
  F->Step = Step;
  F->StepExpr = StepExpr ? StepExpr->clone() : nullptr;
  F->Body = Body->clone();
  F->Unroll = Unroll;
  F->UnrollFull = UnrollFull;
  return F;
}

void walkStmts(Stmt &S, const std::function<void(Stmt &)> &F) {
  F(S);
  S.forEachStmt([&](StmtPtr &C) { walkStmts(*C, F); });
}

void walkExprs(Stmt &S, const std::function<void(const Expr &)> &F) {
  walkStmts(
      S, [&](Stmt &T) { T.forEachExpr([&](ExprPtr &E) { walkExpr(*E, F); }); });
}

void rewriteExprs(Stmt &S, const std::function<ExprPtr(Expr &)> &F) {
  walkStmts(S, [&](Stmt &T) {
    T.forEachExpr([&](ExprPtr &E) { E = rewriteExpr(std::move(E), F); });
  });
}

StmtPtr block(std::vector<StmtPtr> Stmts) {
  auto B = std::make_unique<BlockStmt>();
  B->Body = std::move(Stmts);
  return B;
}

std::vector<StmtPtr> unwrap(StmtPtr S) {
  if (auto *B = llvm::dyn_cast<BlockStmt>(S.get()))
    return std::move(B->Body);
  std::vector<StmtPtr> Out;
  Out.push_back(std::move(S));
  return Out;
}

} // namespace gpumerge
