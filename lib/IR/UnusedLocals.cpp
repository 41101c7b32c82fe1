//===- UnusedLocals.cpp - Declarations nothing uses -----------------------===//

#include "IR/UnusedLocals.h"

#include "llvm/ADT/STLExtras.h"

namespace gpumerge {

/// Does \p S mention \p Name: a variable read or written, an array
/// accessed, a loop iterator? (A declaration of another variable of that
/// name in a nested scope counts too: the answer errs towards yes.)
static bool mentions(Stmt &S, const std::string &Name) {
  bool Found = false;
  walkExprs(S, [&](const Expr &E) {
    if (const auto *V = llvm::dyn_cast<VarRef>(&E))
      Found |= V->Name == Name;
    else if (const auto *A = llvm::dyn_cast<ArrayRef>(&E))
      Found |= A->Array == Name;
  });
  walkStmts(S, [&](Stmt &X) {
    if (const auto *L = llvm::dyn_cast<ForStmt>(&X))
      Found |= L->Iter == Name;
  });
  return Found;
}

static bool callsAnything(Stmt &S) {
  bool Calls = false;
  walkExprs(S, [&](const Expr &E) { Calls |= llvm::isa<CallExpr>(E); });
  return Calls;
}

/// Is the statement at \p I of \p B a local's declaration that B's later
/// statements (its scope) never mention, with no effect to keep?
static bool unusedDecl(BlockStmt &B, size_t I) {
  const auto *D = llvm::dyn_cast<DeclStmt>(B.Body[I].get());
  if (!D || !D->Extents.empty() || D->Ty.Space == AddressSpace::Shared ||
      callsAnything(*B.Body[I]))
    return false;
  for (size_t J = I + 1; J < B.Body.size(); ++J)
    if (mentions(*B.Body[J], D->Name))
      return false;
  return true;
}

unsigned removeUnusedLocals(Function &F) {
  unsigned Removed = 0;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    walkStmts(*F.Body, [&](Stmt &S) {
      auto *B = llvm::dyn_cast<BlockStmt>(&S);
      if (!B)
        return;
      // From the last: a declaration read only by a later unused one goes
      // in the same sweep.
      for (size_t I = B->Body.size(); I-- > 0;)
        if (unusedDecl(*B, I)) {
          B->Body.erase(B->Body.begin() + I);
          ++Removed;
          Changed = true;
        }
    });
  }
  return Removed;
}

} // namespace gpumerge
