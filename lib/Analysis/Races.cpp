//===- Races.cpp - Do threads of a naive kernel write the same element? ---===//
#include "Analysis/Races.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <functional>
#include <set>

namespace gpumerge {

namespace {

/// An index c + a·idx + b·idy + s·k for k in [0, Trips): the form of the
/// usual naive accesses at fixed sizes.
struct LinearIndex {
  std::int64_t C = 0, A = 0, B = 0, S = 0, Trips = 1;
};

/// \p Access's index at \p Sizes as a LinearIndex, or nullopt when it has
/// another shape (then no race is claimed).
std::optional<LinearIndex> linearIndex(const Function &F, const Access &A,
                                       const SizeBindings &Sizes) {
  if (!A.Index)
    return std::nullopt;
  LinearIndex W;
  std::string Loop;
  for (const auto &[Mono, Coef] : A.Index->Terms) {
    std::int64_t C = Coef;
    std::string Var;
    for (const AffineVar &V : Mono) {
      if (V.VarKind == AffineVar::Kind::Symbol) {
        auto It = Sizes.find(V.Name);
        if (It == Sizes.end())
          return std::nullopt;
        C *= It->second;
        continue;
      }
      if (!Var.empty())
        return std::nullopt; // two positions multiplied
      Var = V.VarKind == AffineVar::Kind::Loop ? "loop:" + V.Name : V.Name;
    }
    if (Var.empty()) {
      W.C += C; // the constant term
      continue;
    }
    if (Var == "idx")
      W.A += C;
    else if (Var == "idy")
      W.B += C;
    else if (llvm::StringRef(Var).startswith("loop:") &&
             (Loop.empty() || Loop == Var)) {
      Loop = Var;
      W.S += C;
    } else {
      return std::nullopt; // tidx, bidx, a second loop
    }
  }
  if (Loop.empty())
    return W;
  // The loop's iterations: a constant start and step, a bound over sizes.
  std::string Iter = Loop.substr(5);
  for (const LoopInfo &L : A.Loops) {
    if (L.Iter != Iter)
      continue;
    if (!L.Start || L.ThreadStart || !L.ConstantStep || L.Step == 0)
      return std::nullopt;
    auto Bound = evaluateScalar(*L.Loop->Bound, F, Sizes);
    if (!Bound)
      return std::nullopt;
    std::int64_t Start = *L.Start, Step = L.Step, Span;
    switch (L.Loop->CondOp) {
    case BinaryOp::LT:
      Span = *Bound - Start;
      break;
    case BinaryOp::LE:
      Span = *Bound - Start + 1;
      break;
    case BinaryOp::GT:
      Span = Start - *Bound;
      break;
    case BinaryOp::GE:
      Span = Start - *Bound + 1;
      break;
    default:
      return std::nullopt;
    }
    std::int64_t AbsStep = std::abs(Step);
    W.Trips = Span <= 0 ? 0 : (Span + AbsStep - 1) / AbsStep;
    W.S *= Step; // k counts iterations
    return W;
  }
  return std::nullopt;
}

/// Is \p C a bound on thread positions (`x < w && y >= 1`): comparisons,
/// each of a side with positions against a side without? Writes under any
/// other condition (`i == 0`, `a[i] > 0`) happen for threads the check
/// cannot tell, and are left out.
bool isPositionBound(const Expr &C, const AffineContext &Ctx) {
  if (const auto *B = llvm::dyn_cast<BinaryExpr>(&C)) {
    if (B->Op == BinaryOp::LAnd)
      return isPositionBound(*B->LHS, Ctx) && isPositionBound(*B->RHS, Ctx);
    if (B->Op != BinaryOp::LT && B->Op != BinaryOp::LE &&
        B->Op != BinaryOp::GT && B->Op != BinaryOp::GE)
      return false;
    auto L = toAffine(*B->LHS, Ctx), R = toAffine(*B->RHS, Ctx);
    return L && R &&
           L->mentions(AffineVar::Kind::Thread) !=
               R->mentions(AffineVar::Kind::Thread);
  }
  return false;
}

/// The array accesses of \p F under a condition other than a position
/// bound: which threads make them the checks cannot tell.
std::set<const Expr *> conditionalAccesses(const Function &F) {
  std::set<const Expr *> Out;
  AffineContext Ctx = kernelAffineContext(F);
  std::function<void(Stmt &, bool)> Walk = [&](Stmt &S, bool Uncertain) {
    if (auto *I = llvm::dyn_cast<IfStmt>(&S))
      Uncertain |= !isPositionBound(*I->Cond, Ctx);
    if (Uncertain)
      S.forEachExpr([&](ExprPtr &E) {
        walkExpr(*E, [&](const Expr &X) {
          if (llvm::isa<ArrayRef>(X))
            Out.insert(&X);
        });
      });
    S.forEachStmt([&](StmtPtr &C) {
      if (C)
        Walk(*C, Uncertain);
    });
  };
  Walk(*F.Body, false);
  return Out;
}

/// The lowest position per dimension that \p F's guards let run at
/// \p Sizes (`i > 0`: 1); 0 where there is none or it cannot be evaluated.
std::array<std::int64_t, 2> lowestPositions(const Function &F,
                                            const SizeBindings &Sizes) {
  std::array<std::int64_t, 2> Lo = {0, 0};
  KernelDomain D = findDomain(F);
  for (unsigned Dim = 0; Dim < 2; ++Dim)
    for (const DomainBound &B : D.Lower[Dim])
      if (auto V = evaluateScalar(*B.Bound, F, Sizes))
        Lo[Dim] = std::max(Lo[Dim], *V + B.Offset);
  return Lo;
}

} // namespace

std::string findReadWriteRace(const Function &F, const SizeBindings &Sizes,
                              const std::array<std::int64_t, 2> &Domain) {
  std::array<std::int64_t, 2> Lo = lowestPositions(F, Sizes);
  // Threads run at positions [Lo, Domain) per dimension.
  const std::int64_t X = Domain[0] - Lo[0], Y = Domain[1] - Lo[1];
  if (X <= 0 || Y <= 0 || X * 2 * Y > (std::int64_t(1) << 23))
    return "";
  std::set<const Expr *> Conditional = conditionalAccesses(F);
  std::vector<Access> All = collectAccesses(F);
  for (const Access &Wr : All) {
    if (!Wr.IsWrite || Conditional.count(Wr.Ref))
      continue;
    auto W = linearIndex(F, Wr, Sizes);
    if (!W || W->S != 0)
      continue;
    for (const Access &Rd : All) {
      if (Rd.IsWrite || Rd.Array != Wr.Array || Conditional.count(Rd.Ref))
        continue;
      auto R = linearIndex(F, Rd, Sizes);
      // Reader and writer step through the array alike (a stencil's
      // neighbour, a shifted read): the reader at p reads what the writer
      // at p - d writes where a·dx + b·dy = Wc - Rc, d not 0.
      if (!R || R->S != 0 || R->A != W->A || R->B != W->B)
        continue;
      std::int64_t Gap = W->C - R->C;
      for (std::int64_t Dx = 1 - X; Dx < X; ++Dx)
        for (std::int64_t Dy = 1 - Y; Dy < Y; ++Dy) {
          if ((Dx == 0 && Dy == 0) || W->A * Dx + W->B * Dy != Gap)
            continue;
          std::int64_t Rx = Lo[0] + std::max<std::int64_t>(Dx, 0),
                       Ry = Lo[1] + std::max<std::int64_t>(Dy, 0);
          std::string Lines =
              Rd.Line == Wr.Line
                  ? llvm::formatv("line {0}", Rd.Line).str()
                  : llvm::formatv("lines {0} and {1}", Rd.Line, Wr.Line).str();
          return llvm::formatv("'{0}' ({1}): thread ({2}, {3}) reads the "
                               "element thread ({4}, {5}) writes",
                               Wr.Array, Lines, Rx, Ry, Rx - Dx, Ry - Dy)
              .str();
        }
    }
  }
  return "";
}

namespace {

/// The array elements \p F assigns (`a[i] = v`, `a[i] += v`), not those
/// an atomic function updates.
std::set<const Expr *> assignedElements(const Function &F) {
  std::set<const Expr *> Out;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (const auto *A = llvm::dyn_cast<AssignStmt>(&S))
      if (llvm::isa<ArrayRef>(A->LHS.get()))
        Out.insert(A->LHS.get());
  });
  return Out;
}

/// findWriteRace; with \p Strict (unprovenWrite), also the first
/// assignment the check cannot decide: under any condition, its index not
/// affine in the positions, two writes of one array that step otherwise,
/// or a domain too large to check.
std::string writeRace(const Function &F, const SizeBindings &Sizes,
                      const std::array<std::int64_t, 2> &Domain, bool Strict) {
  const std::int64_t X = Domain[0], Y = Domain[1];
  // Beyond this many thread pairs the check is skipped (it runs at verify's
  // sizes, which are small).
  if (X <= 0 || Y <= 0 || X * 2 * Y > (std::int64_t(1) << 23))
    return Strict ? "the domain is too large to check its writes" : "";
  std::set<const Expr *> Conditional = conditionalAccesses(F);
  std::set<const Expr *> Assigned = assignedElements(F);
  std::vector<std::pair<const Access *, LinearIndex>> Writes;
  std::vector<Access> All = collectAccesses(F);
  for (const Access &A : All) {
    if (!A.IsWrite ||
        (Strict ? !Assigned.count(A.Ref) : Conditional.count(A.Ref) > 0))
      continue;
    auto W = linearIndex(F, A, Sizes);
    if (!W && Strict)
      return llvm::formatv("'{0}' (line {1}): an index the check cannot "
                           "follow",
                           A.Array, A.Line);
    if (!W || W->Trips <= 0)
      continue;
    Writes.push_back({&A, *W});
    // Two threads (x, y) and (x + dx, y + dy) write one element when
    // a·dx + b·dy + s·dk = 0 for some |dk| < Trips. By symmetry dx >= 0,
    // and dy > 0 when dx = 0.
    for (std::int64_t Dx = 0; Dx < X; ++Dx)
      for (std::int64_t Dy = Dx == 0 ? 1 : 1 - Y; Dy < Y; ++Dy) {
        std::int64_t R = W->A * Dx + W->B * Dy;
        bool Same =
            W->S == 0 ? R == 0 : R % W->S == 0 && std::abs(R / W->S) < W->Trips;
        if (!Same)
          continue;
        std::int64_t Y0 = Dy < 0 ? -Dy : 0;
        return llvm::formatv("'{0}' (line {1}): threads ({2}, {3}) and ({4}, "
                             "{5}) write the same element",
                             A.Array, A.Line, 0, Y0, Dx, Y0 + Dy)
            .str();
      }
  }
  // Two writes of one array that step alike with the positions, in no loop
  // (a row's components, `out[3 * i]` and `out[3 * i + stride]`): thread p's
  // first and thread p + d's second write one element where
  // a·dx + b·dy = C1 - C2, d not 0 (one thread writing it twice does so in
  // its program's order).
  std::array<std::int64_t, 2> Lo = lowestPositions(F, Sizes);
  const std::int64_t RunX = X - Lo[0], RunY = Y - Lo[1];
  // Each pair once: (d, C2 - C1) solves it where (-d, C1 - C2) does.
  for (size_t I = 0; I < Writes.size(); ++I)
    for (size_t J = I + 1; J < Writes.size(); ++J) {
      const auto &[A1, W1] = Writes[I];
      const auto &[A2, W2] = Writes[J];
      if (A1->Array != A2->Array)
        continue;
      if (W1.S != 0 || W2.S != 0 || W1.A != W2.A || W1.B != W2.B) {
        if (Strict)
          return llvm::formatv("'{0}' (lines {1} and {2}): two writes the "
                               "check cannot compare",
                               A1->Array, A1->Line, A2->Line);
        continue;
      }
      // The dy that solves it for each dx, where one does.
      const std::int64_t Gap = W1.C - W2.C;
      for (std::int64_t Dx = 1 - RunX; Dx < RunX; ++Dx) {
        std::int64_t Rest = Gap - W1.A * Dx, Dy;
        if (W1.B != 0) {
          if (Rest % W1.B != 0)
            continue;
          Dy = Rest / W1.B;
        } else {
          if (Rest != 0)
            continue;
          Dy = Dx == 0 ? 1 : 0; // any dy: the rows' threads alike
        }
        if (Dy <= -RunY || Dy >= RunY || (Dx == 0 && Dy == 0))
          continue;
        std::int64_t Px = Lo[0] + std::max<std::int64_t>(-Dx, 0),
                     Py = Lo[1] + std::max<std::int64_t>(-Dy, 0);
        return llvm::formatv("'{0}' (lines {1} and {2}): threads ({3}, {4}) "
                             "and ({5}, {6}) write the same element",
                             A1->Array, A1->Line, A2->Line, Px, Py, Px + Dx,
                             Py + Dy)
            .str();
      }
    }
  return "";
}

} // namespace

std::string findWriteRace(const Function &F, const SizeBindings &Sizes,
                          const std::array<std::int64_t, 2> &Domain) {
  return writeRace(F, Sizes, Domain, /*Strict=*/false);
}

std::string unprovenWrite(const Function &F, const SizeBindings &Sizes,
                          const std::array<std::int64_t, 2> &Domain) {
  return writeRace(F, Sizes, Domain, /*Strict=*/true);
}

std::string findReturnBeforeBarrier(const Function &F) {
  const Stmt *Return = nullptr; // the first return met, in program order
  std::string Found;
  std::function<void(Stmt &)> Walk = [&](Stmt &S) {
    if (!Found.empty())
      return;
    if (llvm::isa<ReturnStmt>(S) && !Return)
      Return = &S;
    if (llvm::isa<SyncStmt>(S) && Return)
      Found = llvm::formatv("the return at line {0} comes before the barrier "
                            "at line {1}",
                            Return->getLine(), S.getLine())
                  .str();
    // A loop runs its body again: a return anywhere in it comes before
    // every barrier in it.
    if (llvm::isa<ForStmt>(S) && Found.empty()) {
      const Stmt *LoopReturn = nullptr, *LoopSync = nullptr;
      walkStmts(S, [&](Stmt &X) {
        if (llvm::isa<ReturnStmt>(X) && !LoopReturn)
          LoopReturn = &X;
        if (llvm::isa<SyncStmt>(X) && !LoopSync)
          LoopSync = &X;
      });
      if (LoopReturn && LoopSync)
        Found = llvm::formatv("the return at line {0} and the barrier at line "
                              "{1} are in one loop",
                              LoopReturn->getLine(), LoopSync->getLine())
                    .str();
    }
    S.forEachStmt([&](StmtPtr &C) { Walk(*C); });
  };
  Walk(*F.Body);
  return Found;
}

} // namespace gpumerge
