//===- LaunchSizes.cpp - Sizes the host code launches kernels with --------===//
#include "Frontend/LaunchSizes.h"

#include "Frontend/Templates.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <optional>
#include <set>
#include <vector>

using namespace clang;

namespace gpumerge {
namespace {

/// What the file's code does with its variables and functions: enough to
/// tell a variable that keeps its initial value, and every call of a
/// function whose parameters are followed.
class Uses : public RecursiveASTVisitor<Uses> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_LValueToRValue)
      if (auto *R = dyn_cast<DeclRefExpr>(E->getSubExpr()->IgnoreParens()))
        Read.insert(R);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *V = dyn_cast<VarDecl>(E->getDecl()))
      Refs[V->getCanonicalDecl()].push_back(E);
    else if (auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
      FunctionRefs[F->getCanonicalDecl()].push_back(E);
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (const FunctionDecl *F = E->getDirectCallee()) {
      Calls[F->getCanonicalDecl()].push_back(E);
      if (auto *R =
              dyn_cast<DeclRefExpr>(E->getCallee()->IgnoreParenImpCasts()))
        CalleeRefs.insert(R);
    }
    if (auto *K = dyn_cast<CUDAKernelCallExpr>(E))
      Launches.push_back(K);
    return true;
  }

  /// Every reference to \p V only reads it.
  bool readOnly(const VarDecl &V) const {
    auto It = Refs.find(V.getCanonicalDecl());
    if (It == Refs.end())
      return true;
    for (const DeclRefExpr *R : It->second)
      if (!Read.count(R))
        return false;
    return true;
  }

  /// The calls of \p F, or none where its address is taken (calls through
  /// a pointer would not be seen).
  std::optional<std::vector<const CallExpr *>>
  allCalls(const FunctionDecl &F) const {
    const FunctionDecl *C = F.getCanonicalDecl();
    if (auto It = FunctionRefs.find(C); It != FunctionRefs.end())
      for (const DeclRefExpr *R : It->second)
        if (!CalleeRefs.count(R))
          return std::nullopt;
    auto It = Calls.find(C);
    if (It == Calls.end())
      return std::nullopt;
    return It->second;
  }

  std::vector<const CUDAKernelCallExpr *> Launches;

private:
  std::set<const DeclRefExpr *> Read, CalleeRefs;
  std::map<const VarDecl *, std::vector<const DeclRefExpr *>> Refs;
  std::map<const FunctionDecl *, std::vector<const DeclRefExpr *>> FunctionRefs;
  std::map<const FunctionDecl *, std::vector<const CallExpr *>> Calls;
};

class Evaluator {
public:
  Evaluator(ASTContext &Ctx, const Uses &U) : Ctx(Ctx), U(U) {}

  std::optional<std::int64_t> value(const Expr *E) const {
    if (!E)
      return std::nullopt;
    E = E->IgnoreParens();
    if (E->isValueDependent() || E->isTypeDependent() ||
        !E->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx) && R.Val.getInt().getMinSignedBits() <= 64)
      return R.Val.getInt().getExtValue();
    if (auto *C = dyn_cast<CastExpr>(E)) {
      const Expr *Sub = C->getSubExpr();
      if (!Sub->getType()->isIntegralOrEnumerationType())
        return std::nullopt;
      auto V = value(Sub);
      // A narrowing cast keeps the value only where it fits.
      if (V && Ctx.getIntWidth(E->getType()) < 64 &&
          (*V < -(std::int64_t(1) << (Ctx.getIntWidth(E->getType()) - 1)) ||
           *V >= (std::int64_t(1) << (Ctx.getIntWidth(E->getType()) - 1))))
        return std::nullopt;
      return V;
    }
    if (auto *B = dyn_cast<BinaryOperator>(E))
      return arithmetic(*B);
    if (auto *R = dyn_cast<DeclRefExpr>(E))
      if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
        return variable(*V);
    return std::nullopt;
  }

private:
  ASTContext &Ctx;
  const Uses &U;

  std::optional<std::int64_t> arithmetic(const BinaryOperator &B) const {
    auto L = value(B.getLHS());
    auto R = L ? value(B.getRHS()) : std::nullopt;
    if (!L || !R)
      return std::nullopt;
    std::int64_t Out = 0;
    switch (B.getOpcode()) {
    case BO_Add:
      if (__builtin_add_overflow(*L, *R, &Out))
        return std::nullopt;
      return Out;
    case BO_Sub:
      if (__builtin_sub_overflow(*L, *R, &Out))
        return std::nullopt;
      return Out;
    case BO_Mul:
      if (__builtin_mul_overflow(*L, *R, &Out))
        return std::nullopt;
      return Out;
    case BO_Div:
      if (*R == 0 || (*L == INT64_MIN && *R == -1))
        return std::nullopt;
      return *L / *R;
    case BO_Rem:
      if (*R == 0 || (*L == INT64_MIN && *R == -1))
        return std::nullopt;
      return *L % *R;
    default:
      return std::nullopt;
    }
  }

  /// A variable that keeps its first value: a local's initializer, or a
  /// parameter's argument in every call of its function. Each variable is
  /// followed once (a helper called from many places stays linear); one
  /// reached again while it is followed (a recursive call) is unknown.
  std::optional<std::int64_t> variable(const VarDecl &V) const {
    const VarDecl *Key = V.getCanonicalDecl();
    if (auto It = Memo.find(Key); It != Memo.end())
      return It->second;
    Memo[Key] = std::nullopt; // while it is followed
    std::optional<std::int64_t> Value = follow(V);
    Memo[Key] = Value;
    return Value;
  }

  std::optional<std::int64_t> follow(const VarDecl &V) const {
    if (V.getType()->isReferenceType() || !U.readOnly(V))
      return std::nullopt;
    if (auto *P = dyn_cast<ParmVarDecl>(&V)) {
      auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
      if (!F)
        return std::nullopt;
      auto Calls = U.allCalls(*F);
      if (!Calls)
        return std::nullopt;
      unsigned I = P->getFunctionScopeIndex();
      std::optional<std::int64_t> Agreed;
      for (const CallExpr *C : *Calls) {
        if (I >= C->getNumArgs())
          return std::nullopt;
        auto A = value(C->getArg(I));
        if (!A || (Agreed && *Agreed != *A))
          return std::nullopt;
        Agreed = A;
      }
      return Agreed;
    }
    if (V.hasLocalStorage() && V.getInit())
      return value(V.getInit());
    return std::nullopt;
  }

  mutable std::map<const VarDecl *, std::optional<std::int64_t>> Memo;
};

} // namespace

LaunchSizeHints collectLaunchSizes(ASTContext &Ctx) {
  Uses U;
  U.TraverseDecl(Ctx.getTranslationUnitDecl());
  Evaluator Eval(Ctx, U);
  LaunchSizeHints Hints;
  // Parameters two launches disagree on, or one leaves unknown.
  std::map<std::string, std::set<std::string>> Unknown;
  for (const CUDAKernelCallExpr *L : U.Launches) {
    const FunctionDecl *K = L->getDirectCallee();
    if (!K || L->isInstantiationDependent())
      continue;
    if (const FunctionDecl *Def = K->getDefinition())
      K = Def;
    std::string Name = kernelInstanceName(*K);
    for (unsigned I = 0; I < K->getNumParams() && I < L->getNumArgs(); ++I) {
      const ParmVarDecl *P = K->getParamDecl(I);
      if (!P->getType()->isIntegerType() || P->getName().empty())
        continue;
      std::string Param = P->getName().str();
      if (Unknown[Name].count(Param))
        continue;
      auto V = Eval.value(L->getArg(I));
      auto &Known = Hints[Name];
      auto It = Known.find(Param);
      if (!V || (It != Known.end() && It->second != *V)) {
        Unknown[Name].insert(Param);
        Known.erase(Param);
        continue;
      }
      Known[Param] = *V;
    }
  }
  for (auto It = Hints.begin(); It != Hints.end();)
    It = It->second.empty() ? Hints.erase(It) : std::next(It);
  return Hints;
}

} // namespace gpumerge
