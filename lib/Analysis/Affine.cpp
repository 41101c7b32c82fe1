//===- Affine.cpp - Index expressions as polynomials ----------------------===//
#include "Analysis/Affine.h"

namespace gpumerge {

AffineForm AffineForm::constant(std::int64_t C) {
  AffineForm F;
  if (C)
    F.Terms[{}] = C;
  return F;
}

AffineForm AffineForm::variable(AffineVar V) {
  AffineForm F;
  F.Terms[{std::move(V)}] = 1;
  return F;
}

AffineForm AffineForm::operator+(const AffineForm &O) const {
  AffineForm R = *this;
  for (const auto &[M, C] : O.Terms) {
    std::int64_t &Slot = R.Terms[M];
    Slot += C;
    if (!Slot)
      R.Terms.erase(M);
  }
  return R;
}

AffineForm AffineForm::scaled(std::int64_t K) const {
  AffineForm R;
  if (K)
    for (const auto &[M, C] : Terms)
      R.Terms[M] = C * K;
  return R;
}

AffineForm AffineForm::operator-(const AffineForm &O) const {
  return *this + O.scaled(-1);
}

AffineForm AffineForm::operator*(const AffineForm &O) const {
  AffineForm R;
  for (const auto &[MA, CA] : Terms)
    for (const auto &[MB, CB] : O.Terms) {
      Monomial M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      std::sort(M.begin(), M.end());
      R = R + [&] {
        AffineForm T;
        T.Terms[M] = CA * CB;
        return T;
      }();
    }
  return R;
}

std::int64_t AffineForm::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}

bool AffineForm::isConstant() const {
  return Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty());
}

std::optional<std::int64_t> AffineForm::asConstant() const {
  if (!isConstant())
    return std::nullopt;
  return constantTerm();
}

AffineForm AffineForm::coefficientOf(const AffineVar &V) const {
  AffineForm R;
  for (const auto &[M, C] : Terms) {
    auto It = std::find(M.begin(), M.end(), V);
    if (It == M.end())
      continue;
    Monomial Rest = M;
    Rest.erase(Rest.begin() + (It - M.begin()));
    R = R + [&] {
      AffineForm T;
      T.Terms[Rest] = C;
      return T;
    }();
  }
  return R;
}

AffineForm AffineForm::without(const AffineVar &V) const {
  AffineForm R;
  for (const auto &[M, C] : Terms)
    if (std::find(M.begin(), M.end(), V) == M.end())
      R.Terms[M] = C;
  return R;
}

bool AffineForm::isAffine() const {
  for (const auto &[M, C] : Terms) {
    unsigned N = 0;
    for (const AffineVar &V : M)
      N += V.VarKind != AffineVar::Kind::Symbol;
    if (N > 1)
      return false;
  }
  return true;
}

bool AffineForm::mentions(AffineVar::Kind K) const {
  return !variables(K).empty();
}

std::vector<AffineVar> AffineForm::variables(AffineVar::Kind K) const {
  std::set<AffineVar> S;
  for (const auto &[M, C] : Terms)
    for (const AffineVar &V : M)
      if (V.VarKind == K)
        S.insert(V);
  return {S.begin(), S.end()};
}

std::string AffineForm::str() const {
  if (Terms.empty())
    return "0";
  // Thread variables first, then loop iterators, then the rest, constant last.
  std::vector<std::pair<Monomial, std::int64_t>> Order(Terms.begin(),
                                                       Terms.end());
  auto Rank = [](const Monomial &M) {
    if (M.empty())
      return 3;
    int R = 2;
    for (const AffineVar &V : M)
      R = std::min(R, V.VarKind == AffineVar::Kind::Thread ? 0
                      : V.VarKind == AffineVar::Kind::Loop ? 1
                                                           : 2);
    return R;
  };
  std::stable_sort(Order.begin(), Order.end(), [&](auto &A, auto &B) {
    return Rank(A.first) < Rank(B.first);
  });
  std::string S;
  for (const auto &[M, C] : Order) {
    std::int64_t Abs = C < 0 ? -C : C;
    if (S.empty())
      S += C < 0 ? "-" : "";
    else
      S += C < 0 ? " - " : " + ";
    std::string Factors;
    // Thread/loop variable first within a monomial: idy*w.
    Monomial Sorted = M;
    std::stable_sort(Sorted.begin(), Sorted.end(),
                     [](const AffineVar &A, const AffineVar &B) {
                       return A.VarKind < B.VarKind;
                     });
    for (const AffineVar &V : Sorted)
      Factors += (Factors.empty() ? "" : "*") + V.Name;
    if (Factors.empty())
      S += std::to_string(Abs);
    else if (Abs == 1)
      S += Factors;
    else
      S += Factors + "*" + std::to_string(Abs);
  }
  return S;
}

static std::optional<AffineForm>
toAffineImpl(const Expr &E, const AffineContext &Ctx, unsigned Depth) {
  if (Depth > 64)
    return std::nullopt;
  switch (E.getKind()) {
  case Expr::Kind::IntLit:
    return AffineForm::constant(llvm::cast<IntLit>(E).Value);
  case Expr::Kind::BuiltinRef: {
    Builtin B = llvm::cast<BuiltinRef>(E).Which;
    bool Extent = B == Builtin::Bdimx || B == Builtin::Bdimy ||
                  B == Builtin::Gdimx || B == Builtin::Gdimy ||
                  B == Builtin::Gsizex || B == Builtin::Gsizey;
    return AffineForm::variable(
        {Extent ? AffineVar::Kind::Symbol : AffineVar::Kind::Thread,
         builtinName(B)});
  }
  case Expr::Kind::VarRef: {
    const std::string &N = llvm::cast<VarRef>(E).Name;
    if (Ctx.LoopIterators.count(N))
      return AffineForm::variable({AffineVar::Kind::Loop, N});
    if (auto It = Ctx.Definitions.find(N); It != Ctx.Definitions.end())
      return toAffineImpl(*It->second, Ctx, Depth + 1);
    if (Ctx.Symbols.count(N))
      return AffineForm::variable({AffineVar::Kind::Symbol, N});
    return std::nullopt;
  }
  case Expr::Kind::Unary: {
    const auto &U = llvm::cast<UnaryExpr>(E);
    auto S = toAffineImpl(*U.Sub, Ctx, Depth + 1);
    if (!S)
      return std::nullopt;
    if (U.Op == UnaryOp::Neg)
      return S->scaled(-1);
    if (U.Op == UnaryOp::Plus)
      return S;
    return std::nullopt;
  }
  case Expr::Kind::Cast: {
    const auto &C = llvm::cast<CastExpr>(E);
    if (!C.getType().isInteger())
      return std::nullopt;
    return toAffineImpl(*C.Sub, Ctx, Depth + 1);
  }
  case Expr::Kind::Binary: {
    const auto &B = llvm::cast<BinaryExpr>(E);
    auto L = toAffineImpl(*B.LHS, Ctx, Depth + 1);
    auto R = toAffineImpl(*B.RHS, Ctx, Depth + 1);
    if (!L || !R)
      return std::nullopt;
    switch (B.Op) {
    case BinaryOp::Add:
      return *L + *R;
    case BinaryOp::Sub:
      return *L - *R;
    case BinaryOp::Mul:
      return *L * *R;
    case BinaryOp::Shl:
      if (auto K = R->asConstant(); K && *K >= 0 && *K < 31)
        return L->scaled(std::int64_t(1) << *K);
      return std::nullopt;
    default:
      return std::nullopt;
    }
  }
  default:
    return std::nullopt;
  }
}

std::optional<AffineForm> toAffine(const Expr &E, const AffineContext &Ctx) {
  return toAffineImpl(E, Ctx, 0);
}

AffineContext kernelAffineContext(const Function &F) {
  AffineContext Ctx;
  Ctx.Definitions = singleAssignmentLocals(F);
  for (const Param &P : F.Params)
    if (!P.Ty.IsPointer)
      Ctx.Symbols.insert(P.Name);
  for (const char *B : {"bdimx", "bdimy", "gdimx", "gdimy", "gsizex", "gsizey"})
    Ctx.Symbols.insert(B);
  return Ctx;
}

ExprPtr inlineSingleAssignmentLocals(const Expr &E, const Function &F) {
  std::map<std::string, const Expr *> Defs = singleAssignmentLocals(F);
  std::function<ExprPtr(const Expr &, unsigned)> Inline =
      [&](const Expr &X, unsigned Depth) -> ExprPtr {
    return rewriteExpr(X.clone(), [&](Expr &Y) -> ExprPtr {
      const auto *V = llvm::dyn_cast<VarRef>(&Y);
      auto It = V ? Defs.find(V->Name) : Defs.end();
      if (It == Defs.end() || Depth > 16)
        return nullptr;
      return Inline(*It->second, Depth + 1);
    });
  };
  return Inline(E, 0);
}

std::map<std::string, const Expr *> singleAssignmentLocals(const Function &F) {
  std::map<std::string, const Expr *> Defs;
  std::map<std::string, unsigned> Writes;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S)) {
      ++Writes[D->Name];
      if (D->Init && D->Extents.empty())
        Defs[D->Name] = D->Init.get();
    } else if (auto *A = llvm::dyn_cast<AssignStmt>(&S)) {
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Writes[V->Name] += 2; // any assignment makes it not single
    } else if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
      Writes[L->Iter] += 2;
    }
  });
  // C89 style: `int x; ... x = e;` at the top of the body, x unread
  // before its one assignment, is x defined as e.
  std::set<std::string> Declared, Read;
  std::map<std::string, const Expr *> Late;
  for (const StmtPtr &S : F.Body->Body) {
    auto *A = llvm::dyn_cast<AssignStmt>(S.get());
    auto *V = A ? llvm::dyn_cast<VarRef>(A->LHS.get()) : nullptr;
    if (V && A->Op == AssignOp::Set && Declared.count(V->Name) &&
        !Read.count(V->Name) && !Late.count(V->Name))
      Late[V->Name] = A->RHS.get();
    if (auto *D = llvm::dyn_cast<DeclStmt>(S.get());
        D && !D->Init && D->Extents.empty())
      Declared.insert(D->Name);
    walkExprs(*S, [&](const Expr &E) {
      walkExpr(E, [&](const Expr &X) {
        if (auto *R = llvm::dyn_cast<VarRef>(&X); R && R != V)
          Read.insert(R->Name);
      });
    });
  }
  for (auto It = Defs.begin(); It != Defs.end();)
    It = Writes[It->first] == 1 ? std::next(It) : Defs.erase(It);
  for (const auto &[Name, Def] : Late)
    if (Writes[Name] == 3) // the declaration and this assignment
      Defs[Name] = Def;
  return Defs;
}

} // namespace gpumerge
