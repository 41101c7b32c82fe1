//===- Domain.cpp - Launch domain and buffer extents of a kernel ----------===//
#include "Analysis/Domain.h"
#include "Analysis/Affine.h"
#include "Analysis/Extents.h"
#include "Analysis/IndexBounds.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace gpumerge {

static llvm::Error error(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg.str());
}

namespace {

using Interval = IndexRange;

Interval product(const Interval &A, const Interval &B) {
  std::int64_t C[4] = {A.Lo * B.Lo, A.Lo * B.Hi, A.Hi * B.Lo, A.Hi * B.Hi};
  return {*std::min_element(C, C + 4), *std::max_element(C, C + 4)};
}

/// The interval of \p A when each variable ranges over \p Ranges, term by
/// term: an over-approximation (y * w - y * fw reaches -y * fw at the
/// largest y), the one symbolicElements matches for buffer sizes.
std::optional<Interval>
intervalOf(const AffineForm &A, const std::map<std::string, Interval> &Ranges) {
  Interval Sum{0, 0};
  for (const auto &[M, C] : A.Terms) {
    Interval T{C, C};
    for (const AffineVar &V : M) {
      auto It = Ranges.find(V.Name);
      if (It == Ranges.end())
        return std::nullopt;
      T = product(T, It->second);
    }
    Sum.Lo += T.Lo;
    Sum.Hi += T.Hi;
  }
  return Sum;
}

/// intervalOf, tighter: the variables fixed to one value (the sizes) are
/// folded into the coefficients first, so y * w - y * fw + y is bounded as
/// y * (w - fw + 1), which never goes below zero.
std::optional<Interval>
foldedIntervalOf(const AffineForm &A,
                 const std::map<std::string, Interval> &Ranges) {
  std::map<std::vector<std::string>, std::int64_t> Folded;
  for (const auto &[M, C] : A.Terms) {
    std::int64_t Coeff = C;
    std::vector<std::string> Free;
    for (const AffineVar &V : M) {
      auto It = Ranges.find(V.Name);
      if (It == Ranges.end())
        return std::nullopt;
      if (It->second.Lo == It->second.Hi)
        Coeff *= It->second.Lo;
      else
        Free.push_back(V.Name);
    }
    std::sort(Free.begin(), Free.end());
    Folded[Free] += Coeff;
  }
  Interval Sum{0, 0};
  for (const auto &[Free, C] : Folded) {
    Interval T{C, C};
    for (const std::string &Name : Free)
      T = product(T, Ranges.find(Name)->second);
    Sum.Lo += T.Lo;
    Sum.Hi += T.Hi;
  }
  return Sum;
}

/// Is \p E the thread position of dimension \p Dim plus a constant, and
/// (where \p Symbolic is given) plus a polynomial over scalar parameters,
/// returned there without its constant term?
std::optional<std::int64_t> positionOffset(const Expr &E,
                                           const AffineContext &Ctx,
                                           unsigned &Dim,
                                           AffineForm *Symbolic = nullptr) {
  auto A = toAffine(E, Ctx);
  if (!A)
    return std::nullopt;
  for (unsigned D = 0; D < 3; ++D) {
    AffineVar V{AffineVar::Kind::Thread, D == 0   ? "idx"
                                         : D == 1 ? "idy"
                                                  : "idz"};
    auto Coeff = A->coefficientOf(V).asConstant();
    AffineForm Rest = A->without(V);
    if (!Coeff || *Coeff != 1)
      continue;
    if (Rest.isConstant()) {
      Dim = D;
      return Rest.constantTerm();
    }
    if (Symbolic && !Rest.mentions(AffineVar::Kind::Thread) &&
        !Rest.mentions(AffineVar::Kind::Loop)) {
      Dim = D;
      std::int64_t C = Rest.constantTerm();
      *Symbolic = Rest - AffineForm::constant(C);
      return C;
    }
  }
  return std::nullopt;
}

void splitOn(const Expr &E, BinaryOp Op, std::vector<const Expr *> &Out) {
  const auto *B = llvm::dyn_cast<BinaryExpr>(&E);
  if (B && B->Op == Op) {
    splitOn(*B->LHS, Op, Out);
    splitOn(*B->RHS, Op, Out);
    return;
  }
  Out.push_back(&E);
}

/// Assignments to global memory under \p S.
unsigned globalWrites(Stmt &S) {
  unsigned N = 0;
  walkStmts(S, [&](Stmt &X) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
        N += R->Space == AddressSpace::Global;
  });
  return N;
}

class GuardFinder {
public:
  GuardFinder(const Function &F, KernelDomain &D)
      : F(F), Ctx(kernelAffineContext(F)), D(D) {}

  /// Upper bounds from `pos < b` style atoms. \p Negated: the atoms come from
  /// an early-return condition, so `pos >= b` is what bounds the domain.
  void addAtoms(const Expr &Cond, bool Negated, unsigned Line) {
    std::vector<const Expr *> Atoms;
    splitOn(Cond, Negated ? BinaryOp::LOr : BinaryOp::LAnd, Atoms);
    for (const Expr *A : Atoms) {
      const auto *B = llvm::dyn_cast<BinaryExpr>(A);
      if (!B || !isComparison(B->Op))
        continue;
      BinaryOp Op = B->Op;
      const Expr *Pos = B->LHS.get(), *Bound = B->RHS.get();
      unsigned Dim = 0;
      AffineForm Symbolic;
      auto Off = positionOffset(*Pos, Ctx, Dim, &Symbolic);
      if (!Off) {
        std::swap(Pos, Bound);
        Off = positionOffset(*Pos, Ctx, Dim, &Symbolic);
        Op = swapComparison(Op);
      }
      if (!Off)
        continue;
      auto BoundForm = toAffine(*Bound, Ctx);
      if (!BoundForm || BoundForm->mentions(AffineVar::Kind::Thread) ||
          BoundForm->mentions(AffineVar::Kind::Loop))
        continue;
      // pos + s + c < b  ⇔  pos + c < b - s: the bound less the symbolic
      // part of the offset, built here.
      std::shared_ptr<const Expr> Owned;
      if (!Symbolic.Terms.empty()) {
        Owned =
            binary(BinaryOp::Sub, Bound->clone(), affineToExpr(Symbolic, F));
        Bound = Owned.get();
      }
      // pos + off < b  ⇔  pos < b - off.
      std::optional<std::int64_t> Extra;
      if (!Negated && Op == BinaryOp::LT)
        Extra = 0;
      else if (!Negated && Op == BinaryOp::LE)
        Extra = 1;
      else if (Negated && Op == BinaryOp::GE)
        Extra = 0;
      else if (Negated && Op == BinaryOp::GT)
        Extra = 1;
      if (Extra) {
        (Dim == 2 ? D.LayerBounds : D.Bounds[Dim])
            .push_back({Bound, *Extra - *Off, Line, Owned});
        continue;
      }
      // pos + off > b  ⇔  pos >= b + 1 - off: a lower bound.
      std::optional<std::int64_t> Low;
      if (!Negated && Op == BinaryOp::GT)
        Low = 1;
      else if (!Negated && Op == BinaryOp::GE)
        Low = 0;
      else if (Negated && Op == BinaryOp::LE)
        Low = 1;
      else if (Negated && Op == BinaryOp::LT)
        Low = 0;
      if (Low)
        (Dim == 2 ? D.LayerLower : D.Lower[Dim])
            .push_back({Bound, *Low - *Off, Line, Owned});
    }
  }

  /// Guards that enclose every global write of the kernel: ifs (at the top
  /// level or nested in such a guard) holding all the writes, and early
  /// returns before them. A condition around only some writes (x < w - 1
  /// before a neighbour read) says nothing about the domain.
  void scan(const BlockStmt &B, unsigned TotalWrites) {
    for (const StmtPtr &S : B.Body) {
      const auto *I = llvm::dyn_cast<IfStmt>(S.get());
      if (!I)
        continue;
      if (isReturn(*I->Then)) {
        addAtoms(*I->Cond, true, I->getLine());
        continue;
      }
      if (!I->Else && TotalWrites && globalWrites(*I->Then) == TotalWrites) {
        addAtoms(*I->Cond, false, I->getLine());
        if (const auto *Inner = llvm::dyn_cast<BlockStmt>(I->Then.get()))
          scan(*Inner, TotalWrites);
      }
    }
  }

private:
  const Function &F;
  AffineContext Ctx;
  KernelDomain &D;

  static bool isReturn(const Stmt &S) {
    if (llvm::isa<ReturnStmt>(S))
      return true;
    const auto *B = llvm::dyn_cast<BlockStmt>(&S);
    return B && B->Body.size() == 1 && llvm::isa<ReturnStmt>(*B->Body[0]);
  }
};

} // namespace

bool isFirstThreadTest(const Expr &Cond, const Function &F) {
  ExprPtr C = inlineSingleAssignmentLocals(Cond, F);
  auto *B = llvm::dyn_cast<BinaryExpr>(C.get());
  auto IsIdx = [](const Expr &E) {
    auto *R = llvm::dyn_cast<BuiltinRef>(&E);
    return R && R->Which == Builtin::Idx;
  };
  auto IsZero = [](const Expr &E) {
    auto *I = llvm::dyn_cast<IntLit>(&E);
    return I && I->Value == 0;
  };
  return B && B->Op == BinaryOp::EQ &&
         ((IsIdx(*B->LHS) && IsZero(*B->RHS)) ||
          (IsZero(*B->LHS) && IsIdx(*B->RHS)));
}

bool onlyFirstThreadRuns(const Function &F) {
  if (!F.Body || findDomain(F).Dims != 1)
    return false;
  unsigned Tests = 0;
  for (const StmtPtr &S : F.Body->Body) {
    // A declaration every thread makes, calling nothing (an atomicAdd in an
    // initializer would be work the other threads do).
    if (llvm::isa<DeclStmt>(S.get())) {
      bool Calls = false;
      walkExprs(*S, [&](const Expr &E) { Calls |= llvm::isa<CallExpr>(E); });
      if (Calls)
        return false;
      continue;
    }
    auto *If = llvm::dyn_cast<IfStmt>(S.get());
    if (!If || If->Else || !isFirstThreadTest(*If->Cond, F))
      return false;
    ++Tests;
  }
  return Tests == 1;
}

KernelDomain findDomain(const Function &F) {
  KernelDomain D;
  AffineContext Ctx = kernelAffineContext(F);
  walkExprs(*F.Body, [&](const Expr &E) {
    if (const auto *B = llvm::dyn_cast<BuiltinRef>(&E)) {
      if (builtinDimension(B->Which) == 1)
        D.Dims = 2;
      D.Layered |= B->Which == Builtin::Idz;
    }
  });
  GuardFinder(F, D).scan(*F.Body, globalWrites(*F.Body));
  return D;
}

std::optional<std::int64_t> evaluateScalar(const Expr &E, const Function &F,
                                           const SizeBindings &Sizes) {
  auto A = toAffine(E, kernelAffineContext(F));
  if (!A)
    return std::nullopt;
  std::map<std::string, Interval> Ranges;
  for (const auto &[N, V] : Sizes)
    Ranges[N] = {V, V};
  auto I = intervalOf(*A, Ranges);
  if (!I || I->Lo != I->Hi)
    return std::nullopt;
  return I->Lo;
}

llvm::Expected<std::array<std::int64_t, 2>>
evaluateDomain(const Function &F, const KernelDomain &D,
               const SizeBindings &Sizes) {
  std::array<std::int64_t, 2> Result = {1, 1};
  for (unsigned Dim = 0; Dim < D.Dims; ++Dim) {
    const char *Name = Dim == 0 ? "X" : "Y";
    if (D.Bounds[Dim].empty())
      return error(llvm::formatv(
          "cannot infer the launch domain of kernel '{0}' in {1}: no bounds "
          "guard compares the thread position with a size; give --grid",
          F.Name, Name));
    std::optional<std::int64_t> Min;
    for (const DomainBound &B : D.Bounds[Dim]) {
      auto V = evaluateScalar(*B.Bound, F, Sizes);
      if (!V)
        return error(llvm::formatv(
            "cannot evaluate the bounds guard of kernel '{0}' at line {1}: "
            "give every size it uses with --size",
            F.Name, B.Line));
      std::int64_t X = *V + B.Offset;
      Min = Min ? std::min(*Min, X) : X;
    }
    if (*Min <= 0)
      return error(llvm::formatv("kernel '{0}' has an empty domain in {1} "
                                 "for these sizes",
                                 F.Name, Name));
    Result[Dim] = *Min;
  }
  return Result;
}

llvm::Expected<std::int64_t> evaluateLayers(const Function &F,
                                            const KernelDomain &D,
                                            const SizeBindings &Sizes) {
  if (!D.Layered)
    return 1;
  if (D.LayerBounds.empty())
    return error(llvm::formatv(
        "kernel '{0}' runs on a 3-D grid, but no guard bounds its z position "
        "(get_global_id(2) or blockIdx.z * blockDim.z + threadIdx.z)",
        F.Name));
  std::optional<std::int64_t> Min;
  for (const DomainBound &B : D.LayerBounds) {
    auto V = evaluateScalar(*B.Bound, F, Sizes);
    if (!V)
      return error(llvm::formatv(
          "cannot evaluate the bounds guard of kernel '{0}' at line {1}: "
          "give every size it uses with --size",
          F.Name, B.Line));
    Min = Min ? std::min(*Min, *V + B.Offset) : *V + B.Offset;
  }
  if (*Min <= 0)
    return error(llvm::formatv("kernel '{0}' has an empty domain in Z for "
                               "these sizes",
                               F.Name));
  return *Min;
}

llvm::Expected<std::map<std::string, std::int64_t>>
bufferExtents(const Function &F, const SizeBindings &Sizes,
              std::array<std::int64_t, 2> Domain,
              std::array<std::int64_t, 2> Block,
              std::map<std::string, std::int64_t> *Lowest, std::int64_t Layers,
              std::set<std::string> *Unbounded) {
  std::map<std::string, Interval> Base;
  for (const auto &[N, V] : Sizes)
    Base[N] = {V, V};
  std::int64_t Grid[2] = {(Domain[0] + Block[0] - 1) / Block[0],
                          (Domain[1] + Block[1] - 1) / Block[1]};
  Base["idx"] = {0, Domain[0] - 1};
  Base["idy"] = {0, Domain[1] - 1};
  Base["tidx"] = {0, Block[0] - 1};
  Base["tidy"] = {0, Block[1] - 1};
  Base["bidx"] = {0, Grid[0] - 1};
  Base["bidy"] = {0, Grid[1] - 1};
  Base["bdimx"] = {Block[0], Block[0]};
  Base["bdimy"] = {Block[1], Block[1]};
  Base["gdimx"] = {Grid[0], Grid[0]};
  Base["gdimy"] = {Grid[1], Grid[1]};
  Base["gsizex"] = {Grid[0] * Block[0], Grid[0] * Block[0]};
  Base["gsizey"] = {Grid[1] * Block[1], Grid[1] * Block[1]};
  Base["idz"] = {0, Layers - 1};

  std::map<std::string, std::int64_t> Extents;
  for (const Param &P : F.Params)
    if (P.Ty.IsPointer) {
      std::int64_t Inner = 1;
      for (std::int64_t X : P.Ty.InnerExtents)
        Inner *= X;
      Extents[P.Name] = Inner;
    }
  AffineContext Ctx = kernelAffineContext(F);
  KernelDomain KD = Lowest ? findDomain(F) : KernelDomain();
  for (const Access &A : collectAccesses(F)) {
    if (!Extents.count(A.Array))
      continue;
    // An index the affine forms cannot read may still be bounded by its
    // types (IndexBounds.h): a single index, once the loops' ranges are in.
    auto NotAffine = [&] {
      return error(llvm::formatv("cannot bound the size of array '{0}': its "
                                 "index at line {1} is not affine, and its "
                                 "types do not keep it within 0 .. 2^26",
                                 A.Array, A.Line));
    };
    // The caller measures what cannot be bounded here (ExtentProbe.h).
    auto Unknown = [&](llvm::Error E) -> llvm::Error {
      if (!Unbounded)
        return E;
      llvm::consumeError(std::move(E));
      Unbounded->insert(A.Array);
      return llvm::Error::success();
    };
    const Param *P = F.findParam(A.Array);
    if (!A.Index && !(A.Ref && A.Ref->Indices.size() == 1 && P &&
                      P->Ty.InnerExtents.empty())) {
      if (auto E = Unknown(NotAffine()))
        return E;
      continue;
    }
    std::map<std::string, Interval> Ranges = Base;
    bool Runs = true;
    AffineContext LoopCtx = Ctx;
    for (const LoopInfo &L : A.Loops) {
      auto Init = toAffine(*L.Loop->Init, LoopCtx);
      auto Bound = toAffine(*L.Loop->Bound, LoopCtx);
      auto IInit = Init ? intervalOf(*Init, Ranges) : std::nullopt;
      auto IBound = Bound ? intervalOf(*Bound, Ranges) : std::nullopt;
      if (!IInit || !IBound) {
        if (auto E = Unknown(error(llvm::formatv(
                "cannot bound the loop over '{0}' at line {1} (needed for "
                "the size of '{2}')",
                L.Iter, L.Loop->getLine(), A.Array))))
          return E;
        Runs = false;
        break;
      }
      // Copies: GCC cannot see through the optionals checked above.
      const Interval Start = *IInit, Bnd = *IBound;
      Interval R;
      BinaryOp Op = L.Loop->CondOp;
      if (L.Step > 0) {
        R.Lo = Start.Lo;
        R.Hi = Op == BinaryOp::LE ? Bnd.Hi : Bnd.Hi - 1;
      } else {
        R.Hi = Start.Hi;
        R.Lo = Op == BinaryOp::GE ? Bnd.Lo : Bnd.Lo + 1;
      }
      // With a thread-dependent start the index holds start + j: j is the
      // distance travelled, at most the span from the lowest start.
      if (L.ThreadStart)
        R = L.Step > 0 ? Interval{0, R.Hi - Start.Lo}
                       : Interval{R.Lo - Start.Hi, 0};
      if (R.Hi < R.Lo) {
        Runs = false;
        break;
      }
      Ranges[L.Iter] = R;
      LoopCtx.LoopIterators.insert(L.Iter);
    }
    if (!Runs)
      continue;
    if (!A.Index) {
      auto B = indexBounds(*A.Ref->Indices[0], LoopCtx, Ranges);
      // Past 2^26 elements it bounds nothing useful (an int read: 2^31);
      // below 0 (a signed char) no size keeps it inside the array.
      if (!B || B->Lo < 0 || B->Hi >= (std::int64_t(1) << 26)) {
        if (auto E = Unknown(NotAffine()))
          return E;
        continue;
      }
      Extents[A.Array] = std::max(Extents[A.Array], B->Hi + 1);
      continue;
    }
    auto I = intervalOf(*A.Index, Ranges);
    if (!I)
      return error(llvm::formatv("cannot bound the index of '{0}' at line {1}: "
                                 "give every size it uses with --size",
                                 A.Array, A.Line));
    Extents[A.Array] = std::max(Extents[A.Array], I->Hi + 1);
    if (Lowest) {
      // The guards' lower bounds narrow the positions (a stencil's a[i - 1]
      // under i > 0 starts at 0): the kernel's, and the access's own.
      KernelDomain Around;
      GuardFinder Finder(F, Around);
      for (const AccessGuard &G : A.Guards)
        Finder.addAtoms(*G.Cond, G.Negated, A.Line);
      std::map<std::string, Interval> Low = Ranges;
      for (unsigned D = 0; D < 3; ++D)
        for (const auto *Bounds :
             D == 2 ? std::vector{&KD.LayerLower, &Around.LayerLower}
                    : std::vector{&KD.Lower[D], &Around.Lower[D]})
          for (const DomainBound &B : *Bounds)
            if (auto V = evaluateScalar(*B.Bound, F, Sizes)) {
              Interval &P = Low[D == 0 ? "idx" : D == 1 ? "idy" : "idz"];
              P.Lo = std::max(P.Lo, *V + B.Offset);
            }
      auto L = foldedIntervalOf(*A.Index, Low);
      std::int64_t Lo = L && L->Lo <= L->Hi ? L->Lo : 0;
      auto It = Lowest->find(A.Array);
      if (It == Lowest->end() || Lo < It->second)
        (*Lowest)[A.Array] = Lo;
    }
  }
  return Extents;
}

} // namespace gpumerge
