//===- VectorComponents.cpp - Stores to one component of a vector ---------===//
#include "IR/VectorComponents.h"

#include "llvm/Support/Casting.h"

namespace gpumerge {

std::string vectorComponentName(unsigned K, unsigned Width) {
  if (Width <= 4)
    return std::string(1, "xyzw"[K]);
  return std::string("s") + "0123456789abcdef"[K];
}

std::optional<unsigned> vectorComponentIndex(const std::string &Name,
                                             unsigned Width) {
  if (Name.size() == 1) {
    size_t K = std::string("xyzw").find(Name[0]);
    if (K != std::string::npos && K < Width)
      return unsigned(K);
    return std::nullopt;
  }
  if (Name.size() == 2 && (Name[0] == 's' || Name[0] == 'S')) {
    size_t K = std::string("0123456789abcdef").find(std::tolower(Name[1]));
    if (K != std::string::npos && K < Width)
      return unsigned(K);
  }
  return std::nullopt;
}

static ExprPtr component(const Expr &Target, unsigned K) {
  Type Vec = Target.getType();
  return std::make_unique<MemberExpr>(
      Target.clone(), vectorComponentName(K, Vec.VectorWidth), Vec.lane());
}

StmtPtr componentStore(ExprPtr Target, unsigned K, AssignOp Op, ExprPtr Value) {
  Type Vec = Target->getType();
  Vec.IsConst = false;
  Type Elem = Vec.lane();
  if (std::optional<BinaryOp> B = assignBinaryOp(Op))
    Value = std::make_unique<BinaryExpr>(*B, component(*Target, K),
                                         std::move(Value), Elem);
  else if (Value->getType().Scalar != Elem.Scalar ||
           Value->getType().VectorWidth != 1)
    Value = std::make_unique<CastExpr>(Elem, std::move(Value));
  std::vector<ExprPtr> Parts;
  for (unsigned I = 0; I < Vec.VectorWidth; ++I)
    Parts.push_back(I == K ? std::move(Value) : component(*Target, I));
  auto Whole = std::make_unique<CallExpr>(VectorLiteralCallee, std::move(Parts),
                                          Vec.element());
  return std::make_unique<AssignStmt>(std::move(Target), AssignOp::Set,
                                      std::move(Whole));
}

/// Is \p E component \p K of \p Target (`Target.y` for K = 1)?
static bool isComponentOf(const Expr &E, const Expr &Target, unsigned K) {
  const auto *M = llvm::dyn_cast<MemberExpr>(&E);
  return M &&
         M->Member == vectorComponentName(K, Target.getType().VectorWidth) &&
         exprEquals(*M->Base, Target);
}

std::optional<StoredComponent> storedComponent(const AssignStmt &A) {
  const auto *Whole = llvm::dyn_cast<CallExpr>(A.RHS.get());
  if (A.Op != AssignOp::Set || A.Async || !Whole ||
      Whole->Callee != VectorLiteralCallee ||
      Whole->Args.size() != A.LHS->getType().VectorWidth ||
      !(llvm::isa<VarRef>(*A.LHS) || llvm::isa<ArrayRef>(*A.LHS)))
    return std::nullopt;
  std::optional<unsigned> Stored;
  for (unsigned K = 0; K < Whole->Args.size(); ++K) {
    if (isComponentOf(*Whole->Args[K], *A.LHS, K))
      continue;
    if (Stored)
      return std::nullopt; // two components change: a vector literal
    Stored = K;
  }
  if (!Stored)
    return std::nullopt;
  // The conversion to the element type is the assignment's own.
  const Expr *Value = Whole->Args[*Stored].get();
  if (const auto *C = llvm::dyn_cast<CastExpr>(Value);
      C && C->getType().Scalar == A.LHS->getType().Scalar &&
      C->getType().VectorWidth == 1)
    Value = C->Sub.get();
  if (const auto *B = llvm::dyn_cast<BinaryExpr>(Value);
      B && isComponentOf(*B->LHS, *A.LHS, *Stored))
    for (AssignOp Op :
         {AssignOp::Add, AssignOp::Sub, AssignOp::Mul, AssignOp::Div})
      if (assignBinaryOp(Op) == B->Op)
        return StoredComponent{*Stored, Op, B->RHS.get()};
  return StoredComponent{*Stored, AssignOp::Set, Value};
}

} // namespace gpumerge
