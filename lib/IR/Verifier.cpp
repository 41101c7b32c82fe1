//===- Verifier.cpp - Structural checks of KIR ----------------------------===//
#include "IR/Verifier.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {
namespace {

class Verifier {
public:
  explicit Verifier(const Function &F) : F(F) {}

  llvm::Error run() {
    Scopes.emplace_back();
    for (const Param &P : F.Params)
      declare(P.Name, P.Ty.IsPointer ? P.Ty.InnerExtents.size() + 1 : 0);
    for (const Param &P : F.ConstantArrays)
      declare(P.Name, P.Ty.InnerExtents.size() + 1);
    checkStmt(*F.Body);
    if (Problem.empty())
      return llvm::Error::success();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("KIR of '{0}' is malformed at line {1}: {2}", F.Name,
                      ProblemLine, Problem)
            .str());
  }

private:
  const Function &F;
  struct Local {
    unsigned Dims = 0; ///< 0 for scalars
    /// A const local (not a pointer to const): it takes no stores, which
    /// would print as code no compiler takes.
    bool Const = false;
  };
  /// Per scope, the names declared there.
  std::vector<std::map<std::string, Local>> Scopes;
  unsigned Loops = 0; ///< loops around the statement checked
  std::string Problem;
  unsigned ProblemLine = 0;

  void fail(const std::string &What, unsigned Line) {
    if (Problem.empty()) {
      Problem = What;
      ProblemLine = Line;
    }
  }
  void declare(const std::string &N, unsigned Dims, bool Const = false) {
    Scopes.back()[N] = {Dims, Const};
  }
  /// The local a store to \p LHS writes (`v`, `t[2]`), or null.
  static const std::string *storedLocal(const Expr &LHS) {
    if (const auto *V = llvm::dyn_cast<VarRef>(&LHS))
      return &V->Name;
    if (const auto *A = llvm::dyn_cast<ArrayRef>(&LHS);
        A && A->Space == AddressSpace::Private)
      return &A->Array;
    return nullptr;
  }
  const Local *lookup(const std::string &N) const {
    for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
      auto F = It->find(N);
      if (F != It->end())
        return &F->second;
    }
    return nullptr;
  }

  void checkExpr(const Expr &E, unsigned Line) {
    walkExpr(E, [&](const Expr &X) {
      if (const auto *V = llvm::dyn_cast<VarRef>(&X)) {
        if (!lookup(V->Name))
          fail("use of undeclared '" + V->Name + "'", Line);
      } else if (const auto *A = llvm::dyn_cast<ArrayRef>(&X)) {
        const Local *Found = lookup(A->Array);
        // A file-scope constant array with an initializer is declared
        // outside every function.
        if (!Found && A->Space == AddressSpace::Constant)
          return;
        if (!Found)
          fail("access to undeclared array '" + A->Array + "'", Line);
        else if (Found->Dims != A->Indices.size())
          fail(llvm::formatv("array '{0}' has {1} dimension(s), indexed with "
                             "{2}",
                             A->Array, Found->Dims, A->Indices.size())
                   .str(),
               Line);
      }
    });
  }

  void checkStmt(Stmt &S) {
    unsigned Line = S.getLine();
    switch (S.getKind()) {
    case Stmt::Kind::Block:
      Scopes.emplace_back();
      S.forEachStmt([&](StmtPtr &C) { check(C, Line); });
      Scopes.pop_back();
      return;
    case Stmt::Kind::Decl: {
      auto &D = llvm::cast<DeclStmt>(S);
      if (D.Init)
        checkExpr(*D.Init, Line);
      declare(D.Name, D.Extents.size(),
              D.Ty.IsConst && !D.Ty.IsPointer &&
                  D.Ty.Space != AddressSpace::Shared);
      return;
    }
    case Stmt::Kind::Assign: {
      auto &A = llvm::cast<AssignStmt>(S);
      if (!A.LHS || !A.RHS)
        return fail("assignment with a missing side", Line);
      auto K = A.LHS->getKind();
      if (K != Expr::Kind::VarRef && K != Expr::Kind::ArrayRef &&
          K != Expr::Kind::Member)
        fail("assignment to something not assignable", Line);
      checkExpr(*A.LHS, Line);
      checkExpr(*A.RHS, Line);
      if (const std::string *N = storedLocal(*A.LHS)) {
        const Local *Found = lookup(*N);
        if (Found && Found->Const)
          fail("assignment to const local '" + *N + "'", Line);
      }
      return;
    }
    case Stmt::Kind::If: {
      auto &I = llvm::cast<IfStmt>(S);
      if (!I.Cond || !I.Then)
        return fail("if without condition or body", Line);
      checkExpr(*I.Cond, Line);
      scoped(I.Then, Line);
      if (I.Else)
        scoped(I.Else, Line);
      return;
    }
    case Stmt::Kind::For: {
      auto &L = llvm::cast<ForStmt>(S);
      if (!L.Init || !L.Bound || !L.Body)
        return fail("loop with a missing part", Line);
      if (L.Step == 0)
        fail("loop over '" + L.Iter + "' with step 0", Line);
      if (L.StepExpr && L.Step != 1 && L.Step != -1)
        fail("loop over '" + L.Iter +
                 "' with a step expression and a "
                 "constant step",
             Line);
      checkExpr(*L.Init, Line);
      Scopes.emplace_back();
      if (L.DeclaresIter)
        declare(L.Iter, 0);
      else if (!lookup(L.Iter))
        fail("loop iterator '" + L.Iter + "' undeclared", Line);
      checkExpr(*L.Bound, Line);
      if (L.StepExpr)
        checkExpr(*L.StepExpr, Line);
      ++Loops;
      check(L.Body, Line);
      --Loops;
      Scopes.pop_back();
      return;
    }
    case Stmt::Kind::Jump:
      if (!Loops)
        fail(std::string(llvm::cast<JumpStmt>(S).IsBreak ? "break"
                                                         : "continue") +
                 " outside a loop",
             Line);
      return;
    default:
      S.forEachExpr([&](ExprPtr &E) {
        if (!E)
          fail("missing expression", Line);
        else
          checkExpr(*E, Line);
      });
      return;
    }
  }

  void check(StmtPtr &S, unsigned ParentLine) {
    if (!S)
      return fail("missing statement", ParentLine);
    checkStmt(*S);
  }
  void scoped(StmtPtr &S, unsigned ParentLine) {
    Scopes.emplace_back();
    check(S, ParentLine);
    Scopes.pop_back();
  }
};

} // namespace

llvm::Error verifyFunction(const Function &F) {
  if (!F.Body)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "function '%s' has no body", F.Name.c_str());
  return Verifier(F).run();
}

} // namespace gpumerge
