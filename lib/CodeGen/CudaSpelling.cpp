//===- CudaSpelling.cpp - What CUDA cannot spell of an OpenCL kernel ------===//
#include "CodeGen/CudaSpelling.h"

#include "IR/VectorComponents.h"

#include <set>

namespace gpumerge {

/// Why CUDA has no spelling of \p T, or empty.
static std::string typeProblem(const Type &T) {
  if (T.VectorWidth > 4)
    return "type '" + scalarName(T.Scalar, T.VectorWidth) +
           "' (CUDA's vectors have at most four components)";
  if (T.VectorWidth == 3 && !T.Packed)
    return "type '" + scalarName(T.Scalar, 3) +
           "' (16 bytes in OpenCL, 12 in CUDA)";
  return "";
}

/// Why CUDA has no spelling of \p E itself (its operands aside), or empty.
static std::string exprProblem(const Expr &E) {
  if (std::string T = typeProblem(E.getType()); !T.empty())
    return T;
  bool Vector = E.getType().VectorWidth > 1;
  switch (E.getKind()) {
  case Expr::Kind::Unary:
  case Expr::Kind::Binary:
  case Expr::Kind::Select:
    if (Vector)
      return "vector arithmetic (CUDA's vector types have no operators)";
    break;
  case Expr::Kind::Cast:
    if (Vector)
      return "a conversion to a vector type";
    break;
  case Expr::Kind::Member: {
    const auto &M = llvm::cast<MemberExpr>(E);
    unsigned Width = M.Base->getType().VectorWidth;
    if (M.Member.size() != 1 || !vectorComponentIndex(M.Member, Width))
      return "vector component '." + M.Member +
             "' (CUDA names one component: x, y, z or w)";
    break;
  }
  case Expr::Kind::Call: {
    const auto &C = llvm::cast<CallExpr>(E);
    if (C.Callee == VectorLiteralCallee)
      break;
    bool VectorArg = Vector;
    for (const ExprPtr &A : C.Args)
      VectorArg |= A->getType().VectorWidth > 1;
    if (VectorArg)
      return "'" + C.Callee + "' on vectors";
    break;
  }
  default:
    break;
  }
  return "";
}

std::optional<Unsupported> cudaSpellingProblem(const Function &F) {
  std::optional<Unsupported> First;
  auto Note = [&](const std::string &Why, unsigned Line) {
    if (!First && !Why.empty())
      First = Unsupported{F.Name, Why, Line ? Line : F.Span.Line, F.Span,
                          F.IsKernel};
  };
  for (const Param &P : F.Params)
    Note(typeProblem(P.Ty), F.Span.Line);
  walkStmts(*F.Body, [&](Stmt &S) {
    if (const auto *D = llvm::dyn_cast<DeclStmt>(&S))
      Note(typeProblem(D->Ty), S.getLine());
  });
  walkExprs(*F.Body, [&](const Expr &E) { Note(exprProblem(E), E.getLine()); });
  return First;
}

void passThroughWhatCudaCannotSpell(Module &M) {
  std::set<std::string> Refused;
  auto Refuse = [&](size_t I, Unsupported U) {
    Refused.insert(M.Functions[I]->Name);
    M.PassedThrough.push_back(std::move(U));
    M.Functions.erase(M.Functions.begin() + I);
  };
  for (size_t I = 0; I < M.Functions.size();)
    if (std::optional<Unsupported> U = cudaSpellingProblem(*M.Functions[I]))
      Refuse(I, std::move(*U));
    else
      ++I;
  // Their callers, until none is left.
  for (bool Changed = !Refused.empty(); Changed;) {
    Changed = false;
    for (size_t I = 0; I < M.Functions.size() && !Changed; ++I) {
      const Function &F = *M.Functions[I];
      std::string Callee;
      walkExprs(*F.Body, [&](const Expr &E) {
        if (const auto *C = llvm::dyn_cast<CallExpr>(&E);
            C && Callee.empty() && Refused.count(C->Callee))
          Callee = C->Callee;
      });
      if (!Callee.empty()) {
        Refuse(I, {F.Name, "a call of '" + Callee + "'", F.Span.Line, F.Span,
                   F.IsKernel});
        Changed = true;
      }
    }
  }
}

} // namespace gpumerge
