//===- SplitReduction.cpp - A thread's sum shared by the lanes of a block -===//
//
// split-reduction (not in the paper; docs/passes.md). A 1-D kernel whose thread
// sums a long loop (mv, tmv, atax, cmv) has one thread per output: at 4096
// outputs an H100 runs 4096 threads where 270,000 fit, and each thread
// walks its loop alone, one load in flight at a time. Tiling cannot help;
// the loop itself must be shared. Each output gets Lanes threads; lane l
// runs the iterations l, l + Lanes, ... into its own partial sums, the
// block adds the partials in a tree through shared memory, and lane 0 goes
// on with the rest of the naive thread's code:
//
//   Before (mv):
//     int i = idx;
//     if (i < h) {
//       float sum = 0.0f;
//       for (int j = 0; j < w; j++)
//         sum += a[i * w + j] * x[j];
//       y[i] = sum;
//     }
//   After (lanes-fast: a warp walks one row of a, 8 rows per block):
//     int i = blockIdx.x * 8 + threadIdx.x / 32;
//     int lane = threadIdx.x % 32;
//     __shared__ float sum_lanes[8][32];
//     float sum = 0.0f;
//     if (i < h) {
//       for (int j = lane; j < w; j += 32)
//         sum += a[i * w + j] * x[j];
//     }
//     sum_lanes[threadIdx.x / 32][lane] = sum;
//     __syncthreads();
//     if (lane < 16) { sum_lanes[..][lane] += sum_lanes[..][lane + 16]; }
//     __syncthreads();  ... 8, 4, 2, 1
//     if (i < h && lane == 0) {
//       sum = sum_lanes[threadIdx.x / 32][0];
//       y[i] = sum;
//     }
//   Plan: Block (8), Lanes 32, GuardsDomain: 256 threads per block.
//
// The order: lanes-fast (consecutive threads are the lanes of one output)
// where the loop reads along its iterator (a[i * w + j]), so a warp reads
// consecutive elements; outputs-fast (consecutive threads are consecutive
// outputs, lane = threadIdx.x / 32) where a read is already coalesced
// across outputs (tmv's a[j * w + i]).
//
// Legality (else the kernel is left to the other passes, with why):
//   - 1-D, positions only through idx, a bounds guard with an upper bound,
//     no barrier; the guarded code is: declarations and element stores,
//     one loop, then anything;
//   - every scalar the loop assigns is declared in it, or is a sum: declared
//     before the loop, only updated in it as `s += e`, `s -= e`,
//     `s = s + e`, `s = e + s` or `s = s - e`, with e reading no sum, and
//     read nowhere else before the loop ends (floating point, or an
//     integer sum of integer terms);
//   - the loop writes no memory and passes no array to a function, has a
//     unit step (`<`, `<=` or `!=`, which is `<` for a loop that ends), and
//     its iterator is not read after it.
// The partial sums start at 0; lane 0 adds the sum's initial value to
// their total, after the element stores that came before the loop (which it
// makes, once), in the order the naive thread made them. Floating-point
// sums are reassociated, as any parallel reduction (cuBLAS's SGEMV
// included) does: the result differs from the naive kernel's in rounding
// only, within verify's tolerance; `--passes` without split-reduction keeps
// the naive order.
//
// When: the naive domain at the `#pragma gpumerge size` sizes fills less
// than half of the target's threads (SMCount * ThreadInMP), or is one
// thread (with or without the hints), and the loop runs at least 4
// iterations per lane there, where its length is known.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Domain.h"
#include "Transforms/NaiveShape.h"
#include "Transforms/Passes.h"
#include "Transforms/SplitReductionLanes.h"
#include "Transforms/Tiling.h"

#include "IR/Substitute.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {
namespace splitreduction {

namespace {

bool isNamed(const Expr &X, const std::set<std::string> &Names) {
  auto *V = llvm::dyn_cast<VarRef>(&X);
  return V && Names.count(V->Name);
}

bool namesAny(const Expr &E, const std::set<std::string> &Names) {
  bool Found = false;
  walkExpr(E, [&](const Expr &X) { Found |= isNamed(X, Names); });
  return Found;
}

bool namesAny(Stmt &S, const std::set<std::string> &Names) {
  bool Found = false;
  walkExprs(S, [&](const Expr &X) { Found |= isNamed(X, Names); });
  return Found;
}

/// The term \p A adds to the sum it updates (`s += e`, `s = s + e`, ...),
/// or null when it is not such an update.
const Expr *sumTerm(const AssignStmt &A, std::string &Name) {
  auto *V = llvm::dyn_cast<VarRef>(A.LHS.get());
  if (!V)
    return nullptr;
  Name = V->Name;
  if (A.Op == AssignOp::Add || A.Op == AssignOp::Sub)
    return A.RHS.get();
  auto *B = llvm::dyn_cast<BinaryExpr>(A.RHS.get());
  if (A.Op != AssignOp::Set || !B ||
      (B->Op != BinaryOp::Add && B->Op != BinaryOp::Sub))
    return nullptr;
  auto IsSelf = [&](const Expr &E) {
    auto *S = llvm::dyn_cast<VarRef>(&E);
    return S && S->Name == Name;
  };
  if (IsSelf(*B->LHS))
    return B->RHS.get();
  if (B->Op == BinaryOp::Add && IsSelf(*B->RHS))
    return B->LHS.get();
  return nullptr;
}

} // namespace

bool isAssert(const Stmt &S) {
  const auto *E = llvm::dyn_cast<ExprStmt>(&S);
  const auto *C = E ? llvm::dyn_cast<CallExpr>(E->E.get()) : nullptr;
  return C && C->Callee == "assert";
}

bool isZero(const Expr &E) {
  if (auto *I = llvm::dyn_cast<IntLit>(&E))
    return I->Value == 0;
  if (auto *L = llvm::dyn_cast<FloatLit>(&E))
    return L->Value == 0.0;
  return false;
}

/// Lane l runs the iterations l, l + Lanes, ...: the loop must rise by a
/// step known to be positive, so that each lane's first iteration is one
/// the naive loop runs whenever the lane's condition holds. A constant step
/// (`j++`, `j += 4`; `!=` only for a unit step, which cannot skip the
/// bound), or a loop-invariant one equal to the guard's bound (rd's
/// `for (j = i; j < n; j += nt)` inside `if (i < nt)`: 0 <= i < nt there).
bool Splitter::risesByPositiveStep(const ForStmt &L,
                                   const NaiveShape &NS) const {
  if (L.CondOp == BinaryOp::NE)
    return !L.StepExpr && L.Step == 1;
  if (L.CondOp != BinaryOp::LT && L.CondOp != BinaryOp::LE)
    return false;
  if (!L.StepExpr)
    return L.Step >= 1;
  if (L.Step != 1 || !NS.Extent[0])
    return false;
  return exprEquals(*stepOf(L), *NS.Extent[0]);
}

/// A lane's iterator goes up to Lanes steps past the naive loop's last
/// value: where the bound and the step are over the scalar parameters, the
/// launcher checks that this stays within the iterator's type (else the
/// naive kernel runs). 64-bit iterators need no check; a narrower one than
/// int, or a non-constant step with a bound the host cannot evaluate, is
/// refused (Why set). A constant step with such a bound (`j < rowEnd`) is
/// taken unchecked: it would have to come within Lanes * step of 2^31.
std::optional<Precondition> Splitter::iteratorFits(const ForStmt &L,
                                                   std::int64_t Lanes,
                                                   std::string &Why) const {
  Why.clear();
  std::int64_t Max;
  switch (L.IterType.Scalar) {
  case ScalarKind::Long:
  case ScalarKind::ULong:
    return std::nullopt;
  case ScalarKind::Int:
    Max = 2147483647;
    break;
  case ScalarKind::UInt:
    Max = 4294967295;
    break;
  default:
    Why = "the loop's iterator is narrower than int";
    return std::nullopt;
  }
  ExprPtr Bound = inlined(*L.Bound);
  ExprPtr Step = stepOf(L);
  if (!overParameters(*Bound) || !overParameters(*Step)) {
    if (L.StepExpr)
      Why = llvm::formatv("the bounds of the loop at line {0} are not over "
                          "the scalar parameters, so the launcher cannot "
                          "check that its lanes' iterators stay within int",
                          L.getLine());
    return std::nullopt;
  }
  // The first iteration of the last lane is below the bound plus a step
  // (Init is below the bound, or below the step where it is the thread's
  // position), and every lane stops within Lanes steps past the bound.
  Type Wide = Type::scalar(ScalarKind::Long);
  auto Long = [&](ExprPtr E) {
    return std::make_unique<CastExpr>(Wide, std::move(E));
  };
  ExprPtr Reach = binary(
      BinaryOp::Add, Long(Bound->clone()),
      binary(BinaryOp::Mul, Long(intLit(Lanes + 1)), Long(std::move(Step))));
  ExprPtr Cond =
      binary(BinaryOp::LAnd, binary(BinaryOp::GE, std::move(Bound), intLit(0)),
             binary(BinaryOp::LE, std::move(Reach), Long(intLit(Max))));
  return Precondition{std::shared_ptr<const Expr>(std::move(Cond)),
                      llvm::formatv("the lanes' iterators ({0}, {1} lanes) "
                                    "stay within their type",
                                    L.Iter, Lanes)
                          .str()};
}

/// At most Bound / Step + 1 terms per sum (bound and step over the
/// parameters, as iteratorFits checked): the loop starts at a constant
/// or at the thread's position, neither below 0 where the loop reads
/// memory. The constant start is subtracted where there is one.
/// At most how many terms the loop \p L adds into \p Sums: one for each
/// update of a sum, added up over a block and both branches of an if, a
/// loop's times its trip count ((bound - start) / step + 1, at least 0).
/// A trip count over an enclosing iterator is taken at both ends of that
/// iterator's range and the two added (an affine count is largest at one
/// of them). Null where a count is not an expression over the parameters.
/// verify widens its tolerance by it: seed 830033's nest of 133 x 135
/// terms rounds 6e-4 apart in float, three times what the outer loop's
/// 133 alone allowed.
std::shared_ptr<const Expr>
Splitter::termsBound(const ForStmt &L,
                     const std::set<std::string> &Sums) const {
  std::vector<const ForStmt *> Enclosing;
  ExprPtr N = termsIn(L, Sums, Enclosing);
  if (!N)
    return nullptr;
  return std::shared_ptr<const Expr>(simplifyExpr(std::move(N)));
}

ExprPtr Splitter::termsIn(const Stmt &St, const std::set<std::string> &Sums,
                          std::vector<const ForStmt *> &Enclosing) const {
  switch (St.getKind()) {
  case Stmt::Kind::Block: {
    ExprPtr N = intLit(0);
    for (const StmtPtr &X : llvm::cast<BlockStmt>(St).Body) {
      ExprPtr M = termsIn(*X, Sums, Enclosing);
      if (!M)
        return nullptr;
      N = add(std::move(N), std::move(M));
    }
    return N;
  }
  case Stmt::Kind::If: {
    auto &If = llvm::cast<IfStmt>(St);
    ExprPtr N = termsIn(*If.Then, Sums, Enclosing);
    ExprPtr M = If.Else ? termsIn(*If.Else, Sums, Enclosing) : intLit(0);
    return N && M ? add(std::move(N), std::move(M)) : nullptr;
  }
  case Stmt::Kind::Assign: {
    auto *V = llvm::dyn_cast<VarRef>(llvm::cast<AssignStmt>(St).LHS.get());
    return intLit(V && Sums.count(V->Name) ? 1 : 0);
  }
  case Stmt::Kind::For: {
    auto &Inner = llvm::cast<ForStmt>(St);
    ExprPtr Trip = tripBound(Inner, Enclosing);
    Enclosing.push_back(&Inner);
    ExprPtr Body = termsIn(*Inner.Body, Sums, Enclosing);
    Enclosing.pop_back();
    return Trip && Body ? mul(std::move(Trip), std::move(Body)) : nullptr;
  }
  default:
    return intLit(0);
  }
}

/// Whether \p E is an integer expression over the scalar parameters and
/// the iterators \p Iters only.
bool Splitter::overParameters(const Expr &E,
                              const std::set<std::string> &Iters) const {
  bool Ok = true;
  walkExpr(E, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
      const Param *P = F.findParam(V->Name);
      Ok &= Iters.count(V->Name) || (P && !P->isArray());
    } else {
      Ok &= llvm::isa<IntLit, BinaryExpr, UnaryExpr, CastExpr>(X);
    }
  });
  return Ok;
}

/// \p L's trip count, at least 0, over the parameters only: each iterator
/// of \p Enclosing (innermost last) it mentions taken at its loop's start
/// and at its bound, and the two counts added. A start over the thread
/// (rd's `j = i`) counts from 0. Null where a bound or step is over
/// something else.
ExprPtr
Splitter::tripBound(const ForStmt &L,
                    const std::vector<const ForStmt *> &Enclosing) const {
  std::set<std::string> Iters;
  for (const ForStmt *E : Enclosing)
    Iters.insert(E->Iter);
  ExprPtr Span = inlined(*L.Bound), Step = stepOf(L);
  if (!overParameters(*Span, Iters) || !overParameters(*Step, Iters))
    return nullptr;
  if (ExprPtr Start = inlined(*L.Init); overParameters(*Start, Iters))
    Span = binary(BinaryOp::Sub, std::move(Span), std::move(Start));
  ExprPtr Trip =
      add(binary(BinaryOp::Div, std::move(Span), std::move(Step)), intLit(1));
  Trip = std::make_unique<SelectExpr>(
      binary(BinaryOp::GT, Trip->clone(), intLit(0)), Trip->clone(), intLit(0),
      Type::scalar(ScalarKind::Int));
  // Innermost first: what replaces an iterator is over the ones outside it.
  for (auto It = Enclosing.rbegin(); It != Enclosing.rend(); ++It) {
    const ForStmt &E = **It;
    Iters.erase(E.Iter);
    if (!namesAny(*Trip, {E.Iter}))
      continue;
    ExprPtr From = inlined(*E.Init), To = inlined(*E.Bound);
    if (!overParameters(*From, Iters) || !overParameters(*To, Iters))
      return nullptr;
    ExprPtr AtStart = substituteVar(Trip->clone(), E.Iter, *From);
    Trip = add(std::move(AtStart), substituteVar(std::move(Trip), E.Iter, *To));
  }
  return Trip;
}

/// `if (i == 0) { ... }` around the whole kernel, i the thread's position:
/// one output (rd's final sum), whose thread a block of lanes can help. It
/// becomes the guard, with an extent of 1.
bool takeSingleOutput(NaiveShape &NS, const Function &F) {
  if (NS.Guard || NS.Guarded.size() != 1)
    return false;
  auto *If = llvm::dyn_cast<IfStmt>(NS.Guarded[0].get());
  if (!If || If->Else)
    return false;
  if (!isFirstThreadTest(*If->Cond, F))
    return false;
  NS.Guard = std::move(If->Cond);
  NS.Guarded = unwrap(std::move(If->Then));
  NS.Extent[0] = std::shared_ptr<const Expr>(intLit(1));
  NS.GuardAtoms = 1;
  return true;
}

/// Splits the guarded code into what comes before the loop, the loop and
/// what follows, and finds the loop's sums.
bool Splitter::splitGuarded(NaiveShape &NS, Split &S, std::string &Why) const {
  size_t At = NS.Guarded.size();
  for (size_t I = 0; I < NS.Guarded.size(); ++I)
    if (llvm::isa<ForStmt>(NS.Guarded[I].get())) {
      At = I;
      break;
    }
  if (At == NS.Guarded.size()) {
    Why = "no loop in the guarded code";
    return false;
  }
  for (size_t I = 0; I < At; ++I) {
    Stmt &St = *NS.Guarded[I];
    auto *D = llvm::dyn_cast<DeclStmt>(&St);
    auto *A = llvm::dyn_cast<AssignStmt>(&St);
    bool Store = A && A->Op == AssignOp::Set && llvm::isa<ArrayRef>(*A->LHS);
    if (!(D && D->Extents.empty() && !D->Ty.IsPointer) && !Store &&
        !isAssert(St)) {
      Why = llvm::formatv("line {0}, before the loop, is neither a scalar "
                          "declaration, an element store nor an assert",
                          St.getLine());
      return false;
    }
  }
  for (size_t I = 0; I < NS.Guarded.size(); ++I) {
    if (I < At)
      S.Before.push_back(std::move(NS.Guarded[I]));
    else if (I == At)
      S.Loop.reset(llvm::cast<ForStmt>(NS.Guarded[I].release()));
    else
      S.After.push_back(std::move(NS.Guarded[I]));
  }
  ForStmt &L = *S.Loop;
  if (!risesByPositiveStep(L, NS)) {
    Why = llvm::formatv("the loop at line {0} does not count up by a step "
                        "known to be positive",
                        L.getLine());
    return false;
  }
  // The sums: scalars declared before the loop that it assigns.
  std::map<std::string, const DeclStmt *> Declared;
  for (StmtPtr &St : S.Before)
    if (auto *D = llvm::dyn_cast<DeclStmt>(St.get()))
      Declared[D->Name] = D;
  std::set<std::string> &Sums = S.SumNames;
  walkStmts(*L.Body, [&](Stmt &X) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        if (Declared.count(V->Name))
          Sums.insert(V->Name);
  });
  if (Sums.empty()) {
    Why = llvm::formatv("the loop at line {0} sums nothing declared before it",
                        L.getLine());
    return false;
  }
  for (const std::string &N : Sums) {
    const DeclStmt *D = Declared.at(N);
    if (D->Ty.VectorWidth != 1 || D->Ty.Scalar == ScalarKind::Bool) {
      Why = "'" + N + "' is not a number the loop can sum";
      return false;
    }
    // Each partial sum would round to 11 (or 8) bits where the whole one
    // did: far from the input's result, not an ulp.
    if (D->Ty.isHalfPrecision()) {
      Why = "'" + N + "' is a 16-bit float, whose sum in another order " +
            "rounds otherwise";
      return false;
    }
  }
  for (StmtPtr &St : S.Before)
    if (auto *D = llvm::dyn_cast<DeclStmt>(St.get()); D && Sums.count(D->Name))
      S.Sums.push_back({D->Name, D->Ty, D->getLine(), ""});
  std::set<std::string> Local;
  if (!checkLoopBody(*L.Body, Sums, Local, Why))
    return false;
  if (namesAny(*L.Init, Sums) || namesAny(*L.Bound, Sums)) {
    Why = "the loop's bounds read a sum";
    return false;
  }
  // Nothing before the loop reads a sum: lane 0 sets it later.
  for (StmtPtr &St : S.Before) {
    auto *D = llvm::dyn_cast<DeclStmt>(St.get());
    bool Reads = D ? D->Init && namesAny(*D->Init, Sums) : namesAny(*St, Sums);
    if (Reads) {
      Why =
          llvm::formatv("line {0} reads a sum before the loop", St->getLine());
      return false;
    }
  }
  // The element stores before the loop are made by lane 0 after it: the
  // loop, and the declarations it needs, must not read those arrays.
  std::set<std::string> Stored;
  for (StmtPtr &St : S.Before)
    if (auto *A = llvm::dyn_cast<AssignStmt>(St.get()))
      Stored.insert(llvm::cast<ArrayRef>(*A->LHS).Array);
  bool ReadsStored = false;
  auto Note = [&](const Expr &X) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(&X))
      ReadsStored |= Stored.count(R->Array) > 0;
  };
  walkExprs(L, Note); // header and body
  for (StmtPtr &St : S.Before)
    if (auto *D = llvm::dyn_cast<DeclStmt>(St.get());
        (D && !Sums.count(D->Name)) || isAssert(*St))
      walkExprs(*St, Note);
  if (ReadsStored) {
    Why = "the loop, or a declaration it needs, reads an array stored before "
          "it";
    return false;
  }
  if (!L.DeclaresIter) {
    bool ReadAfter = false;
    for (StmtPtr &St : S.After)
      ReadAfter |= namesAny(*St, {L.Iter});
    if (ReadAfter) {
      Why = "'" + L.Iter + "' is read after the loop";
      return false;
    }
  }
  return true;
}

/// The loop body: only its own locals and the sums' updates assigned, no
/// memory written, no barrier or exit.
bool Splitter::checkLoopBody(Stmt &St, const std::set<std::string> &Sums,
                             std::set<std::string> &Local,
                             std::string &Why) const {
  auto Fail = [&](const llvm::Twine &What) {
    Why = llvm::formatv("line {0}: {1}", St.getLine(), What.str());
    return false;
  };
  // No array passed on: a helper could write through it.
  bool PassesArray = false;
  St.forEachExpr([&](ExprPtr &E) {
    walkExpr(*E, [&](const Expr &X) {
      if (auto *C = llvm::dyn_cast<CallExpr>(&X))
        for (const ExprPtr &A : C->Args)
          PassesArray |= A->getType().IsPointer;
    });
  });
  if (PassesArray)
    return Fail("the loop passes an array to a function");
  switch (St.getKind()) {
  case Stmt::Kind::Block:
    for (StmtPtr &X : llvm::cast<BlockStmt>(St).Body)
      if (!checkLoopBody(*X, Sums, Local, Why))
        return false;
    return true;
  case Stmt::Kind::Decl: {
    auto &D = llvm::cast<DeclStmt>(St);
    if (D.Init && namesAny(*D.Init, Sums))
      return Fail("a sum is read inside the loop");
    Local.insert(D.Name);
    return true;
  }
  case Stmt::Kind::If: {
    auto &If = llvm::cast<IfStmt>(St);
    if (namesAny(*If.Cond, Sums))
      return Fail("a sum is read inside the loop");
    return checkLoopBody(*If.Then, Sums, Local, Why) &&
           (!If.Else || checkLoopBody(*If.Else, Sums, Local, Why));
  }
  case Stmt::Kind::For: {
    auto &L = llvm::cast<ForStmt>(St);
    bool Reads = false; // in its header; the body is checked below
    L.forEachExpr([&](ExprPtr &E) { Reads |= namesAny(*E, Sums); });
    if (Reads)
      return Fail("a sum is read inside the loop");
    Local.insert(L.Iter);
    return checkLoopBody(*L.Body, Sums, Local, Why);
  }
  case Stmt::Kind::Assign: {
    auto &A = llvm::cast<AssignStmt>(St);
    auto *V = llvm::dyn_cast<VarRef>(A.LHS.get());
    if (!V)
      return Fail("the loop writes memory");
    if (Local.count(V->Name)) {
      if (namesAny(*A.RHS, Sums))
        return Fail("a sum is read inside the loop");
      return true;
    }
    if (!Sums.count(V->Name))
      return Fail("'" + V->Name +
                  "' is assigned in the loop but declared outside it "
                  "without being a sum");
    std::string Name;
    const Expr *Term = sumTerm(A, Name);
    if (!Term)
      return Fail("'" + V->Name + "' is updated otherwise than by adding");
    if (namesAny(*Term, Sums))
      return Fail("a sum is read inside the loop");
    // An integer sum of non-integer terms rounds at each step: not a sum
    // that can be taken in another order.
    if (V->getType().isInteger() && Term->getType().isFloating())
      return Fail("'" + V->Name + "' adds floating-point terms to an integer");
    return true;
  }
  default:
    return Fail("the loop holds a statement other than declarations, "
                "assignments, ifs and loops");
  }
}

/// Does a read of the loop walk along the iterator (lanes-fast) rather than
/// across outputs (outputs-fast)?
bool Splitter::lanesFast(const ForStmt &L) const {
  unsigned AlongLoop = 0, AcrossOutputs = 0;
  for (const Access &A : collectAccesses(F)) {
    if (A.IsWrite || !A.Index)
      continue;
    // L is the naive shape's copy of the loop: matched by its iterator.
    bool InLoop = false;
    for (const LoopInfo &LI : A.Loops)
      InLoop |= LI.Iter == L.Iter;
    if (!InLoop)
      continue;
    auto Coef = [&](AffineVar::Kind K, const std::string &N) {
      return A.Index->coefficientOf({K, N}).asConstant();
    };
    auto ByOutput = Coef(AffineVar::Kind::Thread, "idx");
    auto ByIter = Coef(AffineVar::Kind::Loop, L.Iter);
    // Consecutive iterations' distance in memory: the coefficient times
    // a constant step (a step like nt is far apart).
    std::optional<std::int64_t> AlongStride;
    if (ByIter && !L.StepExpr)
      AlongStride = std::abs(*ByIter * L.Step);
    if (ByOutput && std::abs(*ByOutput) == 1)
      ++AcrossOutputs;
    else if (ByOutput && *ByOutput == 0)
      continue; // the same element for every output: either order
    else if (AlongStride && *AlongStride <= 2)
      ++AlongLoop;
    else if (ByOutput && std::abs(*ByOutput) == 2)
      ++AcrossOutputs; // crd's interleaved pairs, a float2 per output
  }
  return AlongLoop > AcrossOutputs || AcrossOutputs == 0;
}

/// The loop's iterations at the size hints, where its bound and step
/// evaluate there; a start that does not (the thread's position, rd's
/// `j = i`) counts as 0, which gives the most iterations any thread runs.
std::optional<std::int64_t> Splitter::tripCount(const ForStmt &L) const {
  auto Init = evaluateScalar(*L.Init, F, F.SizeHints);
  if (!Init)
    Init = 0;
  auto Bound = evaluateScalar(*L.Bound, F, F.SizeHints);
  auto Step = L.StepExpr ? evaluateScalar(*L.StepExpr, F, F.SizeHints)
                         : std::optional<std::int64_t>(L.Step);
  if (!Init || !Bound || !Step || *Step <= 0)
    return std::nullopt;
  std::int64_t Span = *Bound - *Init + (L.CondOp == BinaryOp::LE);
  return Span <= 0 ? 0 : (Span + *Step - 1) / *Step;
}

/// The model: split only where the naive launch leaves the GPU mostly
/// idle (one output always does) and each lane still gets a few
/// iterations; or where each thread's loop runs between bounds read from
/// memory along reads of neighbouring elements (CSR's val[j] for j from
/// rowDelimiters[row] to rowDelimiters[row + 1]): no tiling coalesces
/// those, a warp per output does (lane l reads element start + l), at any
/// size.
bool Splitter::whenWorthIt(const KernelDomain &D, const ForStmt &L,
                           std::int64_t Lanes, bool Single,
                           std::string &Why) const {
  const MachineDescription &MD = Ctx.Target;
  auto ReadsMemory = [&](const Expr &E) {
    bool Found = false;
    walkExpr(*inlined(E),
             [&](const Expr &X) { Found |= llvm::isa<ArrayRef>(X); });
    return Found;
  };
  if (!Single && ByLanes && (ReadsMemory(*L.Init) || ReadsMemory(*L.Bound)))
    return true;
  // One output (`if (tid == 0)`) is one thread at any size, the GPU all
  // but idle: its loop is split without the hints too, as where they do
  // not give its length (PolyBench's gramschmidt_kernel1, one thread
  // summing a column of `ni` rows, has none).
  if (F.SizeHints.empty() && !Single) {
    Why = "no `#pragma gpumerge size` to say how many threads run";
    return false;
  }
  if (!Single) {
    auto Domain = evaluateDomain(F, D, F.SizeHints);
    if (!Domain) {
      Why = llvm::toString(Domain.takeError());
      return false;
    }
    std::int64_t Fill = std::int64_t(MD.SMCount) * MD.ThreadInMP;
    if ((*Domain)[0] * 2 >= Fill) {
      Why = llvm::formatv("{0} threads already fill half of {1}'s {2}",
                          (*Domain)[0], MD.Name, Fill);
      return false;
    }
  }
  if (auto Trip = tripCount(L); Trip) {
    if (*Trip < 4 * Lanes) {
      Why = llvm::formatv("the loop at line {0} runs {1} times, fewer than 4 "
                          "per lane of {2}",
                          L.getLine(), *Trip, Lanes);
      return false;
    }
  }
  return true;
}

std::string Splitter::unsupported(KernelDomain &D) const {
  if (F.Plan && (F.Plan->Origin || !F.Plan->SameLaunch))
    return "the kernel is already tiled";
  if (!Ctx.SplitLoops || Ctx.Merge.any())
    return "a tiled version was asked for (--merge, or a --tune candidate)";
  D = findDomain(F);
  if (D.Dims != 1 || D.Layered)
    return "the kernel is not 1-D";
  if (F.FixedBlock[0] || F.FixedBlock[1])
    return "the kernel's positions assume a block size";
  bool OnlyIdx = true, Syncs = false;
  walkExprs(*F.Body, [&](const Expr &E) {
    if (auto *B = llvm::dyn_cast<BuiltinRef>(&E))
      OnlyIdx &= B->Which == Builtin::Idx;
  });
  walkStmts(*F.Body, [&](Stmt &X) {
    Syncs |= llvm::isa<SyncStmt>(&X) || llvm::isa<GlobalSyncStmt>(&X);
  });
  if (Syncs)
    return "the kernel synchronizes";
  if (!OnlyIdx)
    return "the kernel reads thread or block built-ins directly";
  return "";
}

std::optional<AppliedPass> Splitter::run(std::unique_ptr<Function> &Out,
                                         std::string &Why) {
  KernelDomain D;
  if (std::string Bad = unsupported(D); !Bad.empty()) {
    Why = Bad;
    return std::nullopt;
  }
  auto NSOr = analyzeShape(F);
  if (!NSOr) {
    Why = llvm::toString(NSOr.takeError());
    return std::nullopt;
  }
  NaiveShape &NS = *NSOr;
  Single = takeSingleOutput(NS, F);
  if (!NS.Guard || !NS.Extent[0]) {
    Why = "no bounds guard with an upper bound";
    return std::nullopt;
  }
  Split S;
  if (!splitGuarded(NS, S, Why))
    return std::nullopt;
  ForStmt &L = *S.Loop;

  const MachineDescription &MD = Ctx.Target;
  ByLanes = Single || lanesFast(L);
  chooseBlock(D, L);
  if (!whenWorthIt(D, L, Lanes, Single, Why))
    return std::nullopt;
  for (const Sum &Su : S.Sums)
    if (Su.Ty.elementBytes() * Outputs * Lanes * S.Sums.size() >
        std::uint64_t(staticSharedLimit(MD))) {
      Why = "the partial sums do not fit in shared memory";
      return std::nullopt;
    }

  Taken = declaredNames(F);
  for (const Param &P : F.Params)
    Taken.insert(P.Name);
  for (const StmtPtr &St : NS.Prologue)
    if (auto *Dcl = llvm::dyn_cast<DeclStmt>(St.get()))
      for (const Sum &Su : S.Sums)
        if (Dcl->Name == Su.Name) {
          Why = "'" + Su.Name + "' is also declared before the guard";
          return std::nullopt;
        }
  Lane = fresh("lane");
  for (Sum &Su : S.Sums)
    Su.Shared = fresh(Su.Name + "_lanes");

  std::vector<StmtPtr> Top = std::move(NS.Prologue);
  Top.push_back(std::make_unique<DeclStmt>(
      Lane, Type::scalar(ScalarKind::Int),
      binary(ByLanes ? BinaryOp::Rem : BinaryOp::Div, builtin(Builtin::Tidx),
             intLit(ByLanes ? Lanes : Outputs))));
  LaunchPlan Plan;
  if (F.Plan) { // scalar replacement's conditions carry over
    Plan.Preconditions = F.Plan->Preconditions;
    Plan.Disjoint = F.Plan->Disjoint;
    Plan.Elements = F.Plan->Elements;
  }
  if (auto Fits = iteratorFits(L, Lanes, Why))
    Plan.Preconditions.push_back(std::move(*Fits));
  else if (!Why.empty())
    return std::nullopt;
  Plan.ReassociatedTerms = termsBound(L, S.SumNames);
  declareSums(S, Plan, Top);
  std::string LoopText = L.Iter;
  // Each lane's share of the loop, under the guard.
  Top.push_back(laneShare(S, NS.Guard->clone()));
  // The partials, added in a tree.
  addPartials(S, Top);
  // Lane 0 goes on as the naive thread: what came before the loop, the
  // sums set to their initial values plus the total, and what follows.
  Top.push_back(laneZeroRest(S, std::move(NS.Guard)));

  // The block's outputs: idx is the block's first plus the thread's row.
  auto K = F.withBody(std::make_unique<BlockStmt>());
  K->Body->Body = std::move(Top);
  substituteBuiltin(
      *K->Body, Builtin::Idx,
      *simplifyExpr(add(mul(builtin(Builtin::Bidx), intLit(Outputs)), row())));
  Plan.Dims = 1;
  Plan.Block = {Outputs, 1};
  Plan.Lanes = Lanes;
  Plan.Extent = NS.Extent;
  Plan.GuardsDomain = true;
  Plan.EstimatedRegisters = 24;
  Plan.ShapeFixedBy = llvm::formatv("split-reduction sets the block: {0} "
                                    "outputs of {1} threads each",
                                    Outputs, Lanes);
  Plan.Origin = std::shared_ptr<const Function>(F.clone());
  setLayers(Plan, F);
  K->Plan = std::move(Plan);
  Out = std::move(K);
  return report(S, LoopText);
}

} // namespace splitreduction

PassInfo splitReductionPass() {
  return {"split-reduction",
          "a 1-D kernel's summing loop shared by several threads per output "
          "and their partial sums added in shared memory, where the naive "
          "launch leaves the GPU mostly idle (not in the paper)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            std::unique_ptr<Function> Out;
            auto P = splitreduction::Splitter(F, Ctx).run(Out, Why);
            if (P)
              F = std::move(*Out);
            return P;
          }};
}

} // namespace gpumerge
