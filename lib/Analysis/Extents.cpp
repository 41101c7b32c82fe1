//===- Extents.cpp - Symbolic array extents of a kernel -------------------===//
#include "Analysis/Extents.h"

#include "Analysis/Accesses.h"
#include "Analysis/Domain.h"
#include "IR/LaunchThreads.h"

namespace gpumerge {

namespace {

/// The values a thread position or loop iterator takes: [Lo, Hi], both
/// polynomials over scalar parameters.
struct SymbolicRange {
  AffineForm Lo, Hi;
};
using RangeMap = std::map<AffineVar, SymbolicRange>;

/// The largest (\p Upper) or smallest value of \p A when each thread and loop
/// variable ranges over \p Ranges, term by term as bufferExtents does with
/// numbers. Symbols stand for themselves. A monomial c·s1·…·sk·v grows with v
/// when c > 0: the scalar parameters it holds are sizes, taken non-negative
/// (a row stride w, a filter width fw). That is an assumption, not a proof;
/// a kernel indexing with a negative size argument breaks it, as it breaks
/// the naive kernel's own bounds reasoning. Negative integer coefficients
/// (`n - 1 - idx`) take the other end of the range.
std::optional<AffineForm> extreme(const AffineForm &A, const RangeMap &Ranges,
                                  bool Upper) {
  AffineForm Result;
  for (const auto &[M, C] : A.Terms) {
    AffineForm Factor = AffineForm::constant(C);
    const AffineVar *Var = nullptr;
    for (const AffineVar &V : M) {
      if (V.VarKind == AffineVar::Kind::Symbol) {
        Factor = Factor * AffineForm::variable(V);
        continue;
      }
      if (Var)
        return std::nullopt; // idx*i: not affine
      Var = &V;
    }
    if (!Var) {
      Result = Result + Factor;
      continue;
    }
    auto It = Ranges.find(*Var);
    if (It == Ranges.end())
      return std::nullopt;
    bool TakeHi = (C > 0) == Upper;
    Result = Result + Factor * (TakeHi ? It->second.Hi : It->second.Lo);
  }
  return Result;
}

bool nonNegative(const AffineForm &A) {
  for (const auto &[M, C] : A.Terms)
    if (C < 0)
      return false;
  return true;
}

/// Is \p A ≥ \p B wherever an access happens? Sufficient, not necessary:
/// A - B has no negative coefficient (sizes are non-negative), possibly
/// after taking away one of \p Facts, forms known non-negative whenever the
/// kernel touches memory at all (each guarded dimension is non-empty:
/// x < w - 1 gives w - 2 ≥ 0, so a[(y+1)*w + x] dominates a[y*w + x + 1]).
bool dominates(const AffineForm &A, const AffineForm &B,
               const std::vector<AffineForm> &Facts) {
  AffineForm D = A - B;
  if (nonNegative(D))
    return true;
  for (const AffineForm &F : Facts)
    if (nonNegative(D - F))
      return true;
  return false;
}

/// Thread positions: idx and idy over [0, guard bound + offset - 1], when
/// exactly one guard bounds the dimension (the domain is the minimum of
/// several, which a polynomial cannot say); over what the naive launch
/// covers where no guard does (IR/LaunchThreads.h).
RangeMap threadRanges(const Function &F, const AffineContext &Ctx) {
  RangeMap R;
  KernelDomain D = findDomain(F);
  for (unsigned Dim = 0; Dim < 2; ++Dim) {
    AffineVar Position{AffineVar::Kind::Thread, Dim == 0 ? "idx" : "idy"};
    if (D.Bounds[Dim].empty()) {
      AffineVar Launch{AffineVar::Kind::Symbol, launchThreadsName(Dim)};
      R[Position] = {AffineForm::constant(0),
                     AffineForm::variable(Launch) - AffineForm::constant(1)};
      continue;
    }
    if (D.Bounds[Dim].size() != 1)
      continue;
    const DomainBound &B = D.Bounds[Dim].front();
    auto Bound = toAffine(*B.Bound, Ctx);
    if (!Bound || Bound->mentions(AffineVar::Kind::Thread) ||
        Bound->mentions(AffineVar::Kind::Loop))
      continue;
    R[Position] = {AffineForm::constant(0),
                   *Bound + AffineForm::constant(B.Offset - 1)};
  }
  // The layers of a 3-D grid: what its z guard lets run.
  if (D.LayerBounds.size() == 1) {
    const DomainBound &B = D.LayerBounds.front();
    auto Bound = toAffine(*B.Bound, Ctx);
    if (Bound && !Bound->mentions(AffineVar::Kind::Thread) &&
        !Bound->mentions(AffineVar::Kind::Loop))
      R[{AffineVar::Kind::Thread, "idz"}] = {
          AffineForm::constant(0), *Bound + AffineForm::constant(B.Offset - 1)};
  }
  return R;
}

/// Adds the range of each loop around \p A to \p Ranges, outermost first, as
/// bufferExtents does: [Init, Bound - 1] for a rising loop (`<=`: Bound), the
/// mirror image for a falling one; with a thread-dependent start the index
/// holds the distance travelled (see LoopInfo::ThreadStart).
bool addLoopRanges(const Access &A, AffineContext Ctx, RangeMap &Ranges) {
  for (const LoopInfo &L : A.Loops) {
    auto Init = toAffine(*L.Loop->Init, Ctx);
    auto Bound = toAffine(*L.Loop->Bound, Ctx);
    if (!Init || !Bound)
      return false;
    BinaryOp Op = L.Loop->CondOp;
    SymbolicRange R;
    if (L.Step > 0) {
      auto Lo = extreme(*Init, Ranges, false);
      auto Hi = extreme(*Bound, Ranges, true);
      if (!Lo || !Hi)
        return false;
      R.Lo = *Lo;
      R.Hi = *Hi - AffineForm::constant(Op == BinaryOp::LE ? 0 : 1);
      if (L.ThreadStart)
        R = {AffineForm::constant(0), R.Hi - R.Lo};
    } else {
      auto Hi = extreme(*Init, Ranges, true);
      auto Lo = extreme(*Bound, Ranges, false);
      if (!Lo || !Hi)
        return false;
      R.Hi = *Hi;
      R.Lo = *Lo + AffineForm::constant(Op == BinaryOp::GE ? 0 : 1);
      if (L.ThreadStart)
        R = {R.Lo - R.Hi, AffineForm::constant(0)};
    }
    Ranges[{AffineVar::Kind::Loop, L.Iter}] = R;
    Ctx.LoopIterators.insert(L.Iter);
  }
  return true;
}

} // namespace

std::optional<std::vector<AffineForm>>
symbolicElementForms(const Function &F, const std::string &Array) {
  const Param *P = F.findParam(Array);
  if (!P || !P->isArray())
    return std::nullopt;
  AffineContext Ctx = kernelAffineContext(F);
  RangeMap Threads = threadRanges(F, Ctx);
  std::vector<AffineForm> Facts;
  for (const auto &[V, R] : Threads)
    Facts.push_back(R.Hi - R.Lo);
  std::vector<AffineForm> Maxima;
  for (const Access &A : collectAccesses(F)) {
    if (A.Array != Array)
      continue;
    if (!A.Index)
      return std::nullopt;
    RangeMap Ranges = Threads;
    if (!addLoopRanges(A, Ctx, Ranges))
      return std::nullopt;
    auto Hi = extreme(*A.Index, Ranges, true);
    if (!Hi)
      return std::nullopt;
    AffineForm Elements = *Hi + AffineForm::constant(1);
    // Only scalar parameters and the launch's threads may remain (not
    // bdimx, gsizex, ...).
    for (const AffineVar &V : Elements.variables(AffineVar::Kind::Symbol)) {
      if (launchThreadsDim(V.Name))
        continue;
      const Param *S = F.findParam(V.Name);
      if (!S || S->isArray())
        return std::nullopt;
    }
    bool Dominated = false;
    for (const AffineForm &K : Maxima)
      Dominated |= dominates(K, Elements, Facts);
    if (Dominated)
      continue;
    Maxima.erase(std::remove_if(Maxima.begin(), Maxima.end(),
                                [&](const AffineForm &K) {
                                  return dominates(Elements, K, Facts);
                                }),
                 Maxima.end());
    Maxima.push_back(std::move(Elements));
  }
  return Maxima;
}

ExprPtr affineToExpr(const AffineForm &A, const Function &F) {
  // Positive terms first, higher degree first, the constant last:
  // `h * w + h - fh * w - fh + 1`.
  std::vector<std::pair<Monomial, std::int64_t>> Terms;
  std::optional<std::int64_t> Constant;
  for (const auto &[M, C] : A.Terms) {
    if (M.empty())
      Constant = C;
    else
      Terms.emplace_back(M, C);
  }
  std::stable_sort(Terms.begin(), Terms.end(), [](auto &X, auto &Y) {
    return std::make_pair(X.second < 0, -std::int64_t(X.first.size())) <
           std::make_pair(Y.second < 0, -std::int64_t(Y.first.size()));
  });
  if (Constant)
    Terms.emplace_back(Monomial{}, *Constant);

  ExprPtr Result;
  for (const auto &[M, C] : Terms) {
    std::int64_t Abs = C < 0 ? -C : C;
    ExprPtr Term;
    for (const AffineVar &V : M) {
      const Param *P = F.findParam(V.Name);
      ExprPtr Factor = var(V.Name, P ? P->Ty : Type::scalar(ScalarKind::Int));
      Term = Term ? mul(std::move(Term), std::move(Factor)) : std::move(Factor);
    }
    if (!Term)
      Term = intLit(Abs);
    else if (Abs != 1)
      Term = mul(intLit(Abs), std::move(Term));
    if (!Result && C < 0) {
      Type T = Term->getType();
      Result = std::make_unique<UnaryExpr>(UnaryOp::Neg, std::move(Term), T);
    } else if (!Result)
      Result = std::move(Term);
    else
      Result = binary(C < 0 ? BinaryOp::Sub : BinaryOp::Add, std::move(Result),
                      std::move(Term));
  }
  return Result ? std::move(Result) : intLit(0);
}

ExprPtr symbolicElements(const Function &F, const std::string &Array) {
  // `float a[M][N]`: the declaration bounds it.
  if (const Param *P = F.findParam(Array); P && P->DeclaredRows > 0) {
    std::int64_t N = P->DeclaredRows;
    for (std::int64_t E : P->Ty.InnerExtents)
      N *= E;
    return intLit(N);
  }
  auto Forms = symbolicElementForms(F, Array);
  if (!Forms)
    return nullptr;
  if (Forms->empty())
    return intLit(0);
  // max(a, b, c) = (a > (b > c ? b : c) ? a : (b > c ? b : c)): rare, since
  // most arrays have one index form that dominates the others.
  ExprPtr Max = affineToExpr(Forms->back(), F);
  for (size_t I = Forms->size() - 1; I-- > 0;) {
    ExprPtr A = affineToExpr((*Forms)[I], F);
    Type T = A->getType();
    ExprPtr Cond = binary(BinaryOp::GT, A->clone(), Max->clone());
    Max = std::make_unique<SelectExpr>(std::move(Cond), std::move(A),
                                       std::move(Max), T);
  }
  return Max;
}

} // namespace gpumerge
