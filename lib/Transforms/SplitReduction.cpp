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
#include "Transforms/Tiling.h"

#include "IR/Substitute.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

/// A sum the loop accumulates, declared before it.
struct Sum {
  std::string Name;
  Type Ty;
  unsigned Line = 0;  ///< of its declaration
  std::string Shared; ///< the partials' tile
};

/// The naive thread's guarded code around its loop.
struct Split {
  std::vector<StmtPtr> Before, After;
  std::unique_ptr<ForStmt> Loop;
  std::vector<Sum> Sums; ///< in the order of their declarations
  std::set<std::string> SumNames;
};

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

class Splitter {
public:
  Splitter(const Function &F, const PassContext &Ctx) : F(F), Ctx(Ctx) {}

  std::optional<AppliedPass> run(std::unique_ptr<Function> &Out,
                                 std::string &Why);

private:
  const Function &F;
  const PassContext &Ctx;
  std::set<std::string> Taken;
  /// The block: one output (Single), or a warp per output (ByLanes), or a
  /// coalescing group of outputs; Outputs x Lanes threads.
  bool Single = false, ByLanes = false;
  std::int64_t Outputs = 0, Lanes = 0;
  std::string Lane; ///< the thread's lane, a local

  /// Why the kernel is not one to split (already tiled, a tile asked for,
  /// not 1-D, a fixed block, barriers, built-ins other than idx); its
  /// domain in \p D. Empty where it is one.
  std::string unsupported(KernelDomain &D) const;
  /// Outputs and Lanes. Lanes-fast: a warp per output. Outputs-fast: a
  /// coalescing group of outputs, and as many lanes as it takes to fill the
  /// GPU (256 to 1024 threads per block). One output: a block of 256
  /// lanes, fewer for a short loop.
  void chooseBlock(const KernelDomain &D, const ForStmt &L);
  /// The thread's output in the block.
  ExprPtr row() const;
  /// The thread's lane.
  ExprPtr laneRef() const { return var(Lane); }
  /// The element of \p Su's partials of lane \p LaneIdx of the thread's
  /// output.
  ExprPtr part(const Sum &Su, ExprPtr LaneIdx) const;
  /// The partials' tiles and the sums, declared at the top.
  void declareSums(const Split &S, LaunchPlan &Plan,
                   std::vector<StmtPtr> &Top) const;
  /// Each lane's share of the loop, under \p Guard: the declarations before
  /// it, and the loop from the lane's start, Lanes steps at a time.
  StmtPtr laneShare(Split &S, ExprPtr Guard) const;
  /// Each lane's partial into the tiles, then added in a tree.
  void addPartials(const Split &S, std::vector<StmtPtr> &Top) const;
  /// Lane 0 goes on as the naive thread, under \p Guard: what came before
  /// the loop, the sums set to their initial values plus the total, and
  /// what follows.
  StmtPtr laneZeroRest(Split &S, ExprPtr Guard) const;
  AppliedPass report(const Split &S, const std::string &LoopText) const;

  std::string fresh(const std::string &Base) {
    std::string N = Base;
    for (unsigned I = 2; Taken.count(N); ++I)
      N = Base + std::to_string(I);
    Taken.insert(N);
    return N;
  }

  std::optional<std::int64_t> tripCount(const ForStmt &L) const;
  bool whenWorthIt(const KernelDomain &D, const ForStmt &L, std::int64_t Lanes,
                   bool Single, std::string &Why) const;
  bool splitGuarded(NaiveShape &NS, Split &S, std::string &Why) const;
  bool checkLoopBody(Stmt &St, const std::set<std::string> &Sums,
                     std::set<std::string> &Local, std::string &Why) const;
  bool lanesFast(const ForStmt &L) const;
  /// \p E with the kernel's single-assignment locals inlined (`int n =
  /// w * h;`): an expression over the parameters, where it is one.
  ExprPtr inlined(const Expr &E) const {
    return simplifyExpr(inlineSingleAssignmentLocals(E, F));
  }
  /// The loop's step: its constant, or its expression over the parameters.
  ExprPtr stepOf(const ForStmt &L) const {
    return L.StepExpr ? inlined(*L.StepExpr) : intLit(L.Step);
  }
  bool risesByPositiveStep(const ForStmt &L, const NaiveShape &NS) const;
  std::shared_ptr<const Expr>
  termsBound(const ForStmt &L, const std::set<std::string> &Sums) const;
  ExprPtr termsIn(const Stmt &St, const std::set<std::string> &Sums,
                  std::vector<const ForStmt *> &Enclosing) const;
  ExprPtr tripBound(const ForStmt &L,
                    const std::vector<const ForStmt *> &Enclosing) const;
  bool overParameters(const Expr &E,
                      const std::set<std::string> &Iters = {}) const;
  std::optional<Precondition> iteratorFits(const ForStmt &L, std::int64_t Lanes,
                                           std::string &Why) const;
};

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

/// `assert(...)`: a check that reads values and writes nothing. Before the
/// loop, every lane makes it ahead of its share, as the naive thread did
/// ahead of the whole loop.
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
/// iterations.
bool Splitter::whenWorthIt(const KernelDomain &D, const ForStmt &L,
                           std::int64_t Lanes, bool Single,
                           std::string &Why) const {
  const MachineDescription &MD = Ctx.Target;
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

ExprPtr zeroOf(const Type &T) {
  if (T.Scalar == ScalarKind::Float)
    return std::make_unique<FloatLit>(0.0, "0.0f", T);
  if (T.Scalar == ScalarKind::Double)
    return std::make_unique<FloatLit>(0.0, "0.0", T);
  return intLit(0);
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

void Splitter::chooseBlock(const KernelDomain &D, const ForStmt &L) {
  const MachineDescription &MD = Ctx.Target;
  if (Single) {
    Outputs = 1;
    Lanes = std::min<std::int64_t>(256, MD.ThreadInBlock);
    auto Trip = tripCount(L);
    while (Trip && Lanes > MD.ThreadInWarp && *Trip < 4 * Lanes)
      Lanes /= 2;
  } else if (ByLanes) {
    Lanes = MD.ThreadInWarp;
    Outputs = std::max<std::int64_t>(1, 256 / Lanes);
  } else {
    Outputs = MD.CoalescedThread;
    Lanes = std::max<std::int64_t>(2, 256 / Outputs);
    if (!F.SizeHints.empty()) {
      auto Dom = evaluateDomain(F, D, F.SizeHints);
      std::int64_t Fill = std::int64_t(MD.SMCount) * MD.ThreadInMP;
      if (!Dom)
        llvm::consumeError(Dom.takeError());
      else
        while ((*Dom)[0] > 0 && Lanes * 2 * Outputs <= MD.ThreadInBlock &&
               (*Dom)[0] * Lanes < Fill)
          Lanes *= 2;
    }
  }
}

ExprPtr Splitter::row() const {
  if (Single) // the block is the output's lanes
    return intLit(0);
  return binary(ByLanes ? BinaryOp::Div : BinaryOp::Rem, builtin(Builtin::Tidx),
                intLit(ByLanes ? Lanes : Outputs));
}

ExprPtr Splitter::part(const Sum &Su, ExprPtr LaneIdx) const {
  std::vector<ExprPtr> Idx;
  if (ByLanes) {
    Idx.push_back(row());
    Idx.push_back(std::move(LaneIdx));
  } else {
    Idx.push_back(std::move(LaneIdx));
    Idx.push_back(row());
  }
  auto R = std::make_unique<ArrayRef>(Su.Shared, std::move(Idx), Su.Ty);
  R->Space = AddressSpace::Shared;
  return R;
}

void Splitter::declareSums(const Split &S, LaunchPlan &Plan,
                           std::vector<StmtPtr> &Top) const {
  for (const Sum &Su : S.Sums) {
    Type T = Su.Ty;
    T.Space = AddressSpace::Shared;
    T.IsConst = false;
    auto Tile = std::make_unique<DeclStmt>(Su.Shared, T);
    Tile->Extents = ByLanes ? std::vector<std::int64_t>{Outputs, Lanes}
                            : std::vector<std::int64_t>{Lanes, Outputs};
    Plan.SharedBytes += Outputs * Lanes * Su.Ty.elementBytes();
    Top.push_back(std::move(Tile));
  }
  for (const Sum &Su : S.Sums) {
    Type T = Su.Ty;
    T.IsConst = false;
    auto Dcl = std::make_unique<DeclStmt>(Su.Name, T, zeroOf(Su.Ty));
    Dcl->setLine(Su.Line);
    Top.push_back(std::move(Dcl));
  }
}

StmtPtr Splitter::laneShare(Split &S, ExprPtr Guard) const {
  ForStmt &L = *S.Loop;
  const std::set<std::string> &SumNames = S.SumNames;
  std::vector<StmtPtr> Share;
  for (StmtPtr &St : S.Before)
    if (auto *Dcl = llvm::dyn_cast<DeclStmt>(St.get());
        (Dcl && !SumNames.count(Dcl->Name)) || isAssert(*St))
      Share.push_back(St->clone());
  ExprPtr Stride = L.StepExpr ? L.StepExpr->clone() : intLit(L.Step);
  L.Init =
      simplifyExpr(add(std::move(L.Init), mul(laneRef(), std::move(Stride))));
  if (L.StepExpr)
    L.StepExpr = simplifyExpr(mul(intLit(Lanes), std::move(L.StepExpr)));
  else
    L.Step *= Lanes;
  if (L.CondOp == BinaryOp::NE)
    L.CondOp = BinaryOp::LT; // the loop ends: Init <= Bound
  // More loads in flight: a grid of one 1024-thread block per SM (rd's
  // 4096 outputs of 32 lanes) kept 4 per thread as nvcc unrolls by itself,
  // 16 KB an SM, where an H200 needs about 25 KB to stream at its
  // bandwidth (rd measured 63% of copy). A short body only: unrolling
  // copies it.
  unsigned BodyStmts = 0;
  walkStmts(*L.Body, [&](Stmt &X) { BodyStmts += !llvm::isa<BlockStmt>(X); });
  if (BodyStmts <= 2)
    L.Unroll = 8;
  Share.push_back(std::move(S.Loop));
  return std::make_unique<IfStmt>(std::move(Guard), block(std::move(Share)));
}

void Splitter::addPartials(const Split &S, std::vector<StmtPtr> &Top) const {
  for (const Sum &Su : S.Sums)
    Top.push_back(std::make_unique<AssignStmt>(
        part(Su, laneRef()), AssignOp::Set, var(Su.Name, Su.Ty)));
  Top.push_back(std::make_unique<SyncStmt>());
  for (std::int64_t K = Lanes / 2; K >= 1; K /= 2) {
    std::vector<StmtPtr> Step;
    for (const Sum &Su : S.Sums)
      Step.push_back(
          std::make_unique<AssignStmt>(part(Su, laneRef()), AssignOp::Add,
                                       part(Su, add(laneRef(), intLit(K)))));
    Top.push_back(std::make_unique<IfStmt>(
        binary(BinaryOp::LT, laneRef(), intLit(K)), block(std::move(Step))));
    Top.push_back(std::make_unique<SyncStmt>());
  }
}

StmtPtr Splitter::laneZeroRest(Split &S, ExprPtr Guard) const {
  std::vector<StmtPtr> Rest;
  for (StmtPtr &St : S.Before) {
    if (isAssert(*St))
      continue; // made by every lane, lane 0 among them
    auto *Dcl = llvm::dyn_cast<DeclStmt>(St.get());
    if (!Dcl || !S.SumNames.count(Dcl->Name)) {
      Rest.push_back(std::move(St));
      continue;
    }
    ExprPtr Total =
        part(*std::find_if(S.Sums.begin(), S.Sums.end(),
                           [&](const Sum &Su) { return Su.Name == Dcl->Name; }),
             intLit(0));
    ExprPtr Value =
        !Dcl->Init || isZero(*Dcl->Init)
            ? std::move(Total)
            : binary(BinaryOp::Add, std::move(Dcl->Init), std::move(Total));
    auto Set = std::make_unique<AssignStmt>(var(Dcl->Name, Dcl->Ty),
                                            AssignOp::Set, std::move(Value));
    Set->setLine(Dcl->getLine());
    Rest.push_back(std::move(Set));
  }
  for (StmtPtr &St : S.After)
    Rest.push_back(std::move(St));
  return std::make_unique<IfStmt>(
      binary(BinaryOp::LAnd, std::move(Guard),
             binary(BinaryOp::EQ, laneRef(), intLit(0))),
      block(std::move(Rest)));
}

AppliedPass Splitter::report(const Split &S,
                             const std::string &LoopText) const {
  AppliedPass P{"split-reduction", {}};
  std::vector<std::string> Names;
  for (const Sum &Su : S.Sums)
    Names.push_back(Su.Name);
  P.Parameters["sums"] = llvm::join(Names, ", ");
  P.Parameters["loop"] = LoopText;
  P.Parameters["threads-per-output"] = std::to_string(Lanes);
  P.Parameters["block"] =
      llvm::formatv("{0} (outputs) x {1} (lanes), {2}", Outputs, Lanes,
                    ByLanes ? "lanes-fast: a warp walks "
                              "one output's loop"
                            : "outputs-fast: a warp "
                              "reads across outputs")
          .str();
  P.Parameters["order"] = "the partial sums are added in a tree (floating "
                          "point reassociated)";
  return P;
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

} // namespace

PassInfo splitReductionPass() {
  return {"split-reduction",
          "a 1-D kernel's summing loop shared by several threads per output "
          "and their partial sums added in shared memory, where the naive "
          "launch leaves the GPU mostly idle (not in the paper)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            std::unique_ptr<Function> Out;
            auto P = Splitter(F, Ctx).run(Out, Why);
            if (P)
              F = std::move(*Out);
            return P;
          }};
}

} // namespace gpumerge
