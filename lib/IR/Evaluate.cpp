//===- Evaluate.cpp - Integer expressions over known scalars --------------===//
#include "IR/Evaluate.h"

namespace gpumerge {

std::optional<std::int64_t>
evaluateInteger(const Expr &E,
                const std::map<std::string, std::int64_t> &Values) {
  if (auto *L = llvm::dyn_cast<IntLit>(&E))
    return L->Value;
  if (auto *V = llvm::dyn_cast<VarRef>(&E)) {
    auto It = Values.find(V->Name);
    return It == Values.end() ? std::nullopt
                              : std::optional<std::int64_t>(It->second);
  }
  if (auto *C = llvm::dyn_cast<CastExpr>(&E))
    return C->getType().isInteger() ? evaluateInteger(*C->Sub, Values)
                                    : std::nullopt;
  if (auto *U = llvm::dyn_cast<UnaryExpr>(&E)) {
    auto X = evaluateInteger(*U->Sub, Values);
    if (!X)
      return std::nullopt;
    switch (U->Op) {
    case UnaryOp::Neg:
      return -*X;
    case UnaryOp::Plus:
      return *X;
    case UnaryOp::Not:
      return std::int64_t(!*X);
    case UnaryOp::BitNot:
      return ~*X;
    }
  }
  if (auto *S = llvm::dyn_cast<SelectExpr>(&E)) {
    auto C = evaluateInteger(*S->Cond, Values);
    if (!C)
      return std::nullopt;
    return evaluateInteger(*C ? *S->TrueVal : *S->FalseVal, Values);
  }
  auto *B = llvm::dyn_cast<BinaryExpr>(&E);
  if (!B)
    return std::nullopt;
  auto L = evaluateInteger(*B->LHS, Values);
  if (!L)
    return std::nullopt;
  if (B->Op == BinaryOp::LAnd && !*L)
    return 0;
  if (B->Op == BinaryOp::LOr && *L)
    return 1;
  auto R = evaluateInteger(*B->RHS, Values);
  if (!R)
    return std::nullopt;
  switch (B->Op) {
  case BinaryOp::Mul:
    return *L * *R;
  case BinaryOp::Div:
    return *R ? std::optional<std::int64_t>(*L / *R) : std::nullopt;
  case BinaryOp::Rem:
    return *R ? std::optional<std::int64_t>(*L % *R) : std::nullopt;
  case BinaryOp::Add:
    return *L + *R;
  case BinaryOp::Sub:
    return *L - *R;
  case BinaryOp::LT:
    return std::int64_t(*L < *R);
  case BinaryOp::LE:
    return std::int64_t(*L <= *R);
  case BinaryOp::GT:
    return std::int64_t(*L > *R);
  case BinaryOp::GE:
    return std::int64_t(*L >= *R);
  case BinaryOp::EQ:
    return std::int64_t(*L == *R);
  case BinaryOp::NE:
    return std::int64_t(*L != *R);
  case BinaryOp::LAnd:
    return std::int64_t(*R != 0);
  case BinaryOp::LOr:
    return std::int64_t(*R != 0);
  default:
    return std::nullopt;
  }
}

} // namespace gpumerge
