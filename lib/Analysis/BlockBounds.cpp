//===- BlockBounds.cpp - Block sizes a kernel's shared arrays admit -------===//
#include "Analysis/BlockBounds.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace gpumerge {

/// Locals set once to tidx or tidy plus a constant (`int l = threadIdx.x;`):
/// the dimension and the constant.
using ThreadLocals = std::map<std::string, std::pair<unsigned, std::int64_t>>;

/// \p E as tidx or tidy (Dim 0 or 1) plus a constant, directly or through
/// \p Locals; false for anything else.
static bool threadInBlockPlus(const Expr &E, const ThreadLocals &Locals,
                              unsigned &Dim, std::int64_t &Plus) {
  if (const auto *V = llvm::dyn_cast<VarRef>(&E)) {
    auto It = Locals.find(V->Name);
    if (It == Locals.end())
      return false;
    std::tie(Dim, Plus) = It->second;
    return true;
  }
  if (const auto *B = llvm::dyn_cast<BuiltinRef>(&E)) {
    if (B->Which != Builtin::Tidx && B->Which != Builtin::Tidy)
      return false;
    Dim = B->Which == Builtin::Tidx ? 0 : 1;
    Plus = 0;
    return true;
  }
  const auto *Sum = llvm::dyn_cast<BinaryExpr>(&E);
  if (!Sum || (Sum->Op != BinaryOp::Add && Sum->Op != BinaryOp::Sub))
    return false;
  const auto *L = llvm::dyn_cast<IntLit>(Sum->RHS.get());
  const Expr *Thread = Sum->LHS.get();
  if (!L && Sum->Op == BinaryOp::Add) {
    L = llvm::dyn_cast<IntLit>(Sum->LHS.get());
    Thread = Sum->RHS.get();
  }
  if (!L || !threadInBlockPlus(*Thread, Locals, Dim, Plus))
    return false;
  Plus += Sum->Op == BinaryOp::Add ? L->Value : -L->Value;
  return true;
}

std::array<std::int64_t, 2> sharedArrayBlockBound(const Function &F) {
  std::map<std::string, std::vector<std::int64_t>> Extents;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S);
        D && D->Ty.Space == AddressSpace::Shared && !D->Extents.empty())
      Extents[D->Name] = D->Extents;
  });
  std::array<std::int64_t, 2> Bound = {0, 0};
  if (Extents.empty())
    return Bound;
  ThreadLocals Locals;
  // Names assigned, or declared twice (two scopes' locals), stand for no
  // one value.
  std::set<std::string> Assigned, Declared;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Assigned.insert(V->Name);
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S);
        D && !Declared.insert(D->Name).second)
      Assigned.insert(D->Name);
  });
  walkStmts(*F.Body, [&](Stmt &S) {
    unsigned Dim;
    std::int64_t Plus;
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S);
        D && D->Init && D->Extents.empty() && !Assigned.count(D->Name) &&
        threadInBlockPlus(*D->Init, Locals, Dim, Plus))
      Locals[D->Name] = {Dim, Plus};
  });
  walkExprs(*F.Body, [&](const Expr &E) {
    const auto *A = llvm::dyn_cast<ArrayRef>(&E);
    auto It = A ? Extents.find(A->Array) : Extents.end();
    if (It == Extents.end() || It->second.size() != A->Indices.size())
      return;
    for (size_t K = 0; K < A->Indices.size(); ++K) {
      unsigned Dim;
      std::int64_t Plus;
      if (!threadInBlockPlus(*A->Indices[K], Locals, Dim, Plus) || Plus < 0)
        continue;
      std::int64_t Fits = std::max<std::int64_t>(1, It->second[K] - Plus);
      Bound[Dim] = Bound[Dim] ? std::min(Bound[Dim], Fits) : Fits;
    }
  });
  return Bound;
}

} // namespace gpumerge
