//===- Uninitialized.cpp - Locals read before anything sets them ----------===//

#include "Analysis/Uninitialized.h"
#include "IR/VectorComponents.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

namespace gpumerge {

namespace {

/// Definite assignment over KIR: Unset holds the locals some path reaches
/// the current statement without setting.
class Walker {
public:
  std::string Found;

  /// Walks \p S with \p Unset; false when its path ends (a return, break
  /// or continue): what follows in its block is not reached from it.
  bool walk(const Stmt &S, std::set<std::string> &Unset) {
    if (!Found.empty())
      return false;
    switch (S.getKind()) {
    case Stmt::Kind::Block:
      for (const StmtPtr &C : llvm::cast<BlockStmt>(S).Body)
        if (!walk(*C, Unset))
          return false;
      return true;
    case Stmt::Kind::Decl: {
      const auto &D = llvm::cast<DeclStmt>(S);
      if (D.Init) {
        reads(*D.Init, Unset, S);
        Unset.erase(D.Name);
      } else if (D.Extents.empty() && D.Ty.Space != AddressSpace::Shared) {
        Unset.insert(D.Name);
      } else {
        Unset.erase(D.Name); // an array: its elements are not followed
      }
      return true;
    }
    case Stmt::Kind::Assign: {
      const auto &A = llvm::cast<AssignStmt>(S);
      // `v.y = e` (VectorComponents.h) reads e only, not v's other
      // components that KIR's whole-vector store reads back.
      if (auto C = storedComponent(A); C && C->Op == AssignOp::Set) {
        reads(*C->Value, Unset, S);
        if (std::string N = setName(*A.LHS); !N.empty())
          Unset.erase(N);
        return true;
      }
      reads(*A.RHS, Unset, S);
      // A compound store reads its target; an element store its indices.
      if (A.Op != AssignOp::Set)
        reads(*A.LHS, Unset, S);
      else if (const auto *R = llvm::dyn_cast<ArrayRef>(A.LHS.get()))
        for (const ExprPtr &I : R->Indices)
          reads(*I, Unset, S);
      if (std::string N = setName(*A.LHS); !N.empty())
        Unset.erase(N);
      return true;
    }
    case Stmt::Kind::If: {
      const auto &If = llvm::cast<IfStmt>(S);
      reads(*If.Cond, Unset, S);
      std::set<std::string> Then = Unset, Else = Unset;
      bool ThenGoesOn = walk(*If.Then, Then);
      bool ElseGoesOn = If.Else ? walk(*If.Else, Else) : true;
      Unset.clear();
      if (ThenGoesOn)
        Unset.insert(Then.begin(), Then.end());
      if (ElseGoesOn)
        Unset.insert(Else.begin(), Else.end());
      return ThenGoesOn || ElseGoesOn;
    }
    case Stmt::Kind::For: {
      const auto &L = llvm::cast<ForStmt>(S);
      reads(*L.Init, Unset, S);
      std::set<std::string> Body = Unset;
      Body.erase(L.Iter);
      reads(*L.Bound, Body, S);
      if (L.StepExpr)
        reads(*L.StepExpr, Body, S);
      walk(*L.Body, Body);
      if (!Found.empty())
        return false;
      if (runsOnce(L)) {
        Unset = Body;
      } else {
        // The body may not run: Unset stays. What it sets is remembered
        // for the reason given at a later read.
        for (const std::string &N : Unset)
          if (!Body.count(N) && !MaySkip.count(N))
            MaySkip[N] = L.getLine();
      }
      if (!L.DeclaresIter)
        Unset.erase(L.Iter);
      return true;
    }
    case Stmt::Kind::Return: {
      const auto &R = llvm::cast<ReturnStmt>(S);
      if (R.Value)
        reads(*R.Value, Unset, S);
      return false;
    }
    case Stmt::Kind::Jump:
      return false;
    default: {
      // Expression statements, barriers: their expressions are reads.
      auto &Mutable = const_cast<Stmt &>(S);
      Mutable.forEachExpr([&](ExprPtr &E) { reads(*E, Unset, S); });
      return true;
    }
    }
  }

private:
  /// Locals a loop that may not run sets: the loop's line.
  std::map<std::string, unsigned> MaySkip;

  /// The local a store sets: `v`, `v.x`, `a[i]` of a local array.
  static std::string setName(const Expr &LHS) {
    if (const auto *V = llvm::dyn_cast<VarRef>(&LHS))
      return V->Name;
    if (const auto *M = llvm::dyn_cast<MemberExpr>(&LHS))
      return setName(*M->Base);
    return "";
  }

  /// Does \p L's body run at least once: constant bounds that say so?
  static bool runsOnce(const ForStmt &L) {
    const auto *I = llvm::dyn_cast<IntLit>(L.Init.get());
    const auto *B = llvm::dyn_cast<IntLit>(L.Bound.get());
    if (!I || !B || !L.hasConstantStep())
      return false;
    switch (L.CondOp) {
    case BinaryOp::LT:
      return I->Value < B->Value;
    case BinaryOp::LE:
      return I->Value <= B->Value;
    case BinaryOp::GT:
      return I->Value > B->Value;
    case BinaryOp::GE:
      return I->Value >= B->Value;
    case BinaryOp::NE:
      return I->Value != B->Value;
    default:
      return false;
    }
  }

  void reads(const Expr &E, const std::set<std::string> &Unset,
             const Stmt &At) {
    if (!Found.empty() || Unset.empty())
      return;
    walkExpr(E, [&](const Expr &X) {
      const auto *V = llvm::dyn_cast<VarRef>(&X);
      if (!Found.empty() || !V || !Unset.count(V->Name))
        return;
      auto Skip = MaySkip.find(V->Name);
      Found = Skip != MaySkip.end()
                  ? llvm::formatv("'{0}' at line {1}: the loop at line {2}, "
                                  "which sets it, may not run",
                                  V->Name, At.getLine(), Skip->second)
                        .str()
                  : llvm::formatv("'{0}' at line {1}: no statement before "
                                  "sets it on every path",
                                  V->Name, At.getLine())
                        .str();
    });
  }
};

} // namespace

std::string findUninitializedRead(const Function &F) {
  if (!F.Body)
    return "";
  Walker W;
  std::set<std::string> Unset;
  W.walk(*F.Body, Unset);
  return W.Found;
}

} // namespace gpumerge
