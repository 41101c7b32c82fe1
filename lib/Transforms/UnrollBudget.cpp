//===- UnrollBudget.cpp - How far a marked loop may be unrolled -----------===//
#include "Transforms/UnrollBudget.h"

#include "llvm/Support/Casting.h"

namespace gpumerge {

/// Simple statements in \p S (assignments, declarations, calls), each loop's
/// body counted once: the code a copy of \p S adds.
static unsigned statementCount(Stmt &S) {
  unsigned N = 0;
  walkStmts(S, [&](Stmt &X) {
    N += llvm::isa<AssignStmt>(&X) || llvm::isa<DeclStmt>(&X) ||
         X.getKind() == Stmt::Kind::ExprStmt;
  });
  return N;
}

void capUnrolling(Stmt &Root) {
  walkStmts(Root, [](Stmt &X) {
    auto *L = llvm::dyn_cast<ForStmt>(&X);
    if (!L || L->Unroll < 2)
      return;
    unsigned Cost = std::max(1u, statementCount(*L->Body));
    while (L->Unroll > 1 && L->Unroll * Cost > UnrollBudget)
      L->Unroll /= 2;
    if (L->Unroll < 2)
      L->Unroll = 0;
  });
}

} // namespace gpumerge
