//===- Reruns.cpp - Does running a thread twice change what it leaves? ---===//

#include "Analysis/Reruns.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <vector>

namespace gpumerge {

namespace {

/// Definite writes over KIR, as Uninitialized.cpp follows definite
/// assignment: Set holds the elements this thread has written on every path
/// to the current statement.
class Walker {
public:
  Walker(const std::set<std::string> &Written,
         const std::set<std::string> &Stable)
      : Written(Written), Stable(Stable) {}

  std::string Found;

  /// Walks \p S with \p Set; false when its path ends there.
  bool walk(const Stmt &S, std::vector<const ArrayRef *> &Set) {
    if (!Found.empty())
      return false;
    switch (S.getKind()) {
    case Stmt::Kind::Block:
      for (const StmtPtr &C : llvm::cast<BlockStmt>(S).Body)
        if (!walk(*C, Set))
          return false;
      return true;
    case Stmt::Kind::Decl: {
      const auto &D = llvm::cast<DeclStmt>(S);
      if (D.Ty.Space == AddressSpace::Shared)
        Found = llvm::formatv("line {0} declares shared memory, which the "
                              "copies of a thread in one block share",
                              S.getLine());
      else if (D.Init)
        reads(*D.Init, Set, S);
      return true;
    }
    case Stmt::Kind::Assign: {
      const auto &A = llvm::cast<AssignStmt>(S);
      reads(*A.RHS, Set, S);
      const auto *R = llvm::dyn_cast<ArrayRef>(A.LHS.get());
      if (!R) {
        reads(*A.LHS, Set, S);
        return true;
      }
      for (const ExprPtr &I : R->Indices)
        reads(*I, Set, S);
      if (A.Op != AssignOp::Set)
        read(*R, Set, S);
      if (R->Space == AddressSpace::Global && stableIndex(*R))
        Set.push_back(R);
      return true;
    }
    case Stmt::Kind::If: {
      const auto &If = llvm::cast<IfStmt>(S);
      reads(*If.Cond, Set, S);
      std::vector<const ArrayRef *> Then = Set, Else = Set;
      bool ThenGoesOn = walk(*If.Then, Then);
      bool ElseGoesOn = If.Else ? walk(*If.Else, Else) : true;
      // What both sides that go on wrote; a side that ends adds nothing.
      if (ThenGoesOn && ElseGoesOn) {
        for (const ArrayRef *T : Then)
          if (contains(Else, *T) && !contains(Set, *T))
            Set.push_back(T);
      } else if (ThenGoesOn) {
        Set = Then;
      } else if (ElseGoesOn) {
        Set = Else;
      }
      return ThenGoesOn || ElseGoesOn;
    }
    case Stmt::Kind::For: {
      const auto &L = llvm::cast<ForStmt>(S);
      reads(*L.Init, Set, S);
      reads(*L.Bound, Set, S);
      if (L.StepExpr)
        reads(*L.StepExpr, Set, S);
      // Each iteration starts from what was written before the loop; what
      // the body writes may not be written at all.
      std::vector<const ArrayRef *> Body = Set;
      walk(*L.Body, Body);
      return Found.empty();
    }
    case Stmt::Kind::Return: {
      const auto &R = llvm::cast<ReturnStmt>(S);
      if (R.Value)
        reads(*R.Value, Set, S);
      return false;
    }
    case Stmt::Kind::Jump:
      return false;
    case Stmt::Kind::ExprStmt:
      Found = llvm::formatv("line {0} is a statement run for its effect",
                            S.getLine());
      return false;
    case Stmt::Kind::Sync:
    case Stmt::Kind::GlobalSync:
    case Stmt::Kind::Pipeline:
      Found = llvm::formatv("line {0} waits for other threads", S.getLine());
      return false;
    }
    return true;
  }

private:
  const std::set<std::string> &Written;
  const std::set<std::string> &Stable;

  static bool contains(const std::vector<const ArrayRef *> &Set,
                       const ArrayRef &R) {
    // exprEquals of two ArrayRefs: the same array, vector width and indices.
    for (const ArrayRef *W : Set)
      if (exprEquals(*W, R))
        return true;
    return false;
  }

  /// Does each index of \p R name one place all through the thread?
  bool stableIndex(const ArrayRef &R) const {
    bool Ok = true;
    for (const ExprPtr &I : R.Indices)
      walkExpr(*I, [&](const Expr &X) {
        if (const auto *V = llvm::dyn_cast<VarRef>(&X))
          Ok = Ok && Stable.count(V->Name);
        else if (llvm::isa<ArrayRef>(X) || llvm::isa<CallExpr>(X))
          Ok = false;
      });
    return Ok;
  }

  void read(const ArrayRef &R, const std::vector<const ArrayRef *> &Set,
            const Stmt &At) {
    if (!Found.empty() || !Written.count(R.Array) || contains(Set, R))
      return;
    Found = llvm::formatv("'{0}' at line {1} is read before this thread "
                          "writes it",
                          R.Array, At.getLine());
  }

  void reads(const Expr &E, const std::vector<const ArrayRef *> &Set,
             const Stmt &At) {
    walkExpr(E, [&](const Expr &X) {
      if (!Found.empty())
        return;
      if (const auto *R = llvm::dyn_cast<ArrayRef>(&X)) {
        if (R->Space == AddressSpace::Shared)
          Found = llvm::formatv("line {0} reads shared memory", At.getLine());
        else
          read(*R, Set, At);
      } else if (const auto *C = llvm::dyn_cast<CallExpr>(&X);
                 C && llvm::StringRef(C->Callee).starts_with("atomic")) {
        Found = llvm::formatv("line {0} calls {1}", At.getLine(), C->Callee);
      }
    });
  }
};

/// Names whose value does not change once set: parameters, and locals set
/// by their declaration alone. Loop iterators and assigned locals are not.
std::set<std::string> stableNames(const Function &F) {
  std::set<std::string> Stable;
  for (const Param &P : F.Params)
    if (!P.isArray())
      Stable.insert(P.Name);
  std::map<std::string, unsigned> Sets;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S)) {
      Sets[D->Name] += D->Init ? 1 : 2;
    } else if (auto *A = llvm::dyn_cast<AssignStmt>(&S)) {
      const Expr *L = A->LHS.get();
      while (const auto *M = llvm::dyn_cast<MemberExpr>(L))
        L = M->Base.get();
      if (const auto *V = llvm::dyn_cast<VarRef>(L))
        Sets[V->Name] += 2;
    } else if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
      Sets[L->Iter] += 2;
    }
  });
  for (const auto &[Name, Count] : Sets) {
    if (Count == 1)
      Stable.insert(Name);
    else
      Stable.erase(Name);
  }
  return Stable;
}

} // namespace

std::set<std::string> writtenArrays(const Function &F) {
  std::set<std::string> Written;
  if (!F.Body)
    return Written;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get());
          R && R->Space == AddressSpace::Global)
        Written.insert(R->Array);
  });
  return Written;
}

std::string whyCopiesDiffer(const Function &F, unsigned Dim) {
  if (!F.Body)
    return "the kernel has no body";
  std::string Found;
  walkStmts(*F.Body, [&](Stmt &S) {
    S.forEachExpr([&](ExprPtr &E) {
      walkExpr(*E, [&](const Expr &X) {
        if (const auto *B = llvm::dyn_cast<BuiltinRef>(&X);
            B && Found.empty() && builtinDimension(B->Which) == Dim)
          Found = llvm::formatv("line {0} reads {1}", S.getLine(),
                                builtinName(B->Which));
      });
    });
  });
  if (!Found.empty())
    return Found;
  std::set<std::string> Written = writtenArrays(F);
  std::set<std::string> Stable = stableNames(F);
  Walker W(Written, Stable);
  std::vector<const ArrayRef *> Set;
  W.walk(*F.Body, Set);
  return W.Found;
}

void allowHarmlessCopies(LaunchPlan &P, const Function &Naive) {
  std::set<std::string> Written = writtenArrays(Naive);
  std::set<std::string> Accessed;
  walkExprs(*Naive.Body, [&](const Expr &E) {
    if (const auto *R = llvm::dyn_cast<ArrayRef>(&E);
        R && R->Space == AddressSpace::Global)
      Accessed.insert(R->Array);
  });
  auto Disjoint = [&](const std::string &A, const std::string &B) {
    for (const auto &[X, Y] : P.Disjoint)
      if ((X == A && Y == B) || (X == B && Y == A))
        return true;
    return false;
  };
  for (const std::string &W : Written)
    for (const std::string &A : Accessed)
      if (A != W && !Disjoint(W, A))
        return;
  for (unsigned D = 1; D <= 2; ++D)
    if (D >= P.Dims && !(D == 2 && P.Layered))
      P.CopiesAllowed[D - 1] = whyCopiesDiffer(Naive, D).empty();
}

} // namespace gpumerge
