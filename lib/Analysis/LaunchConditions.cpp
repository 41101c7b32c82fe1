//===- LaunchConditions.cpp - When the optimized path runs ----------------===//
#include "Analysis/LaunchConditions.h"
#include "Analysis/Accesses.h"
#include "Analysis/Affine.h"
#include "Analysis/BlockBounds.h"
#include "Analysis/Races.h"
#include "IR/Evaluate.h"
#include "IR/Printer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace gpumerge {

LaunchShape naiveLaunch(unsigned Dims, std::array<std::int64_t, 2> Fixed,
                        std::array<std::int64_t, 2> AtMost) {
  LaunchShape S;
  S.Block = Dims == 2 ? std::array<std::int64_t, 2>{16, 16}
                      : std::array<std::int64_t, 2>{256, 1};
  for (unsigned D = 0; D < 2; ++D)
    if (Fixed[D])
      S.Block[D] = Fixed[D];
    else if (AtMost[D] && S.Block[D] > AtMost[D])
      S.Block[D] = AtMost[D];
  // A fixed size in one dimension leaves the other what fits in 1024.
  for (unsigned D = 0; D < 2; ++D)
    if (!Fixed[D])
      S.Block[D] = std::max<std::int64_t>(
          1, std::min(S.Block[D], 1024 / S.Block[1 - D]));
  return S;
}

LaunchShape naiveLaunchOf(const Function &F, unsigned Dims) {
  return naiveLaunch(Dims, F.FixedBlock, sharedArrayBlockBound(F));
}

SizeBindings chooseSizes(const Function &F, const SizeBindings &Given) {
  static const std::int64_t Defaults[] = {67, 45, 53, 39, 71, 29, 61, 37};
  static const std::int64_t Offsets[] = {3, 5, 7, 9, 11, 13};
  SizeBindings S;
  unsigned NextDefault = 0, NextOffset = 0;
  for (const Param &P : F.Params) {
    if (P.Ty.IsPointer || !P.Ty.isInteger())
      continue;
    if (auto It = Given.find(P.Name); It != Given.end()) {
      S[P.Name] = It->second;
    } else if (auto H = F.SizeHints.find(P.Name); H != F.SizeHints.end()) {
      std::int64_t V = H->second;
      S[P.Name] = V >= 256 ? V / 32 + Offsets[NextOffset++ % 6] : V;
    } else {
      S[P.Name] = Defaults[NextDefault++ % 8];
    }
  }
  return S;
}

/// The launch conditions of \p Plan for a naive domain of \p NaiveDomain
/// threads at \p Sizes: how many hold, out of \p Total; \p Failed (when
/// given) says why the first that does not hold fails.
static unsigned conditionsHeld(const LaunchPlan &Plan,
                               const std::array<std::int64_t, 2> &NaiveDomain,
                               const SizeBindings &Sizes, unsigned &Total,
                               std::string *Failed = nullptr) {
  std::array<std::int64_t, 2> Domain = NaiveDomain;
  if (Plan.Interchanged)
    std::swap(Domain[0], Domain[1]);
  unsigned Held = 0;
  Total = 0;
  auto Note = [&](bool Holds, const std::function<std::string()> &Why) {
    ++Total;
    Held += Holds;
    if (!Holds && Failed && Failed->empty())
      *Failed = Why();
  };
  if (Plan.hasEdges())
    for (unsigned D = 0; D < Plan.Dims; ++D)
      Note(Domain[D] >= Plan.tile(D), [&] {
        return llvm::formatv("the domain ({0} threads in {1}) is smaller "
                             "than one tile ({2})",
                             Domain[D], D == 0 ? "X" : "Y", Plan.tile(D))
            .str();
      });
  for (const Precondition &P : Plan.Preconditions) {
    auto V = evaluateInteger(*P.Cond, Sizes);
    Note(V && *V, [&] {
      return printExprDebug(*P.Cond) + " does not hold (" + P.Why + ")";
    });
  }
  return Held;
}

bool planApplies(const LaunchPlan &Plan,
                 const std::array<std::int64_t, 2> &NaiveDomain,
                 const SizeBindings &Sizes, std::string &Failed) {
  unsigned Total;
  Failed.clear();
  return conditionsHeld(Plan, NaiveDomain, Sizes, Total, &Failed) == Total;
}

namespace {
/// What the guards of a sequence of kernels give at some sizes.
struct GuardedExtents {
  /// Per dimension, the largest domain a guard gives (0 where none does or
  /// where it is empty).
  std::array<std::int64_t, 2> Extent = {0, 0};
  std::array<bool, 2> Guarded = {false, false};
  unsigned Dims = 1;
  /// The first guard bound that could not be evaluated, if any.
  std::string Unevaluable;

  /// How many of the guarded dimensions are empty.
  unsigned emptyDims() const {
    unsigned N = 0;
    for (unsigned D = 0; D < Dims; ++D)
      N += Guarded[D] && Extent[D] <= 0;
    return N;
  }
};
} // namespace

/// Per dimension, the largest domain a guard of \p DomainFrom gives at
/// \p Sizes: the grid covers every phase's threads, and a phase without a
/// guard there runs over it too.
static GuardedExtents
guardedExtents(const std::vector<const Function *> &DomainFrom,
               const SizeBindings &Sizes) {
  GuardedExtents G;
  for (const Function *F : DomainFrom) {
    KernelDomain KD = findDomain(*F);
    G.Dims = std::max(G.Dims, KD.Dims);
    for (unsigned D = 0; D < KD.Dims; ++D) {
      if (KD.Bounds[D].empty())
        continue;
      G.Guarded[D] = true;
      // This dimension's guards: the smallest bound holds.
      std::optional<std::int64_t> Min;
      bool Ok = true;
      for (const DomainBound &B : KD.Bounds[D]) {
        auto V = evaluateScalar(*B.Bound, *F, Sizes);
        if (!V) {
          Ok = false;
          if (G.Unevaluable.empty())
            G.Unevaluable =
                llvm::formatv("cannot evaluate the bounds guard of kernel "
                              "'{0}' at line {1}: give every size it uses "
                              "with --size",
                              F->Name, B.Line)
                    .str();
          break;
        }
        Min = Min ? std::min(*Min, *V + B.Offset) : *V + B.Offset;
      }
      if (Ok && Min)
        G.Extent[D] = std::max(G.Extent[D], *Min);
    }
  }
  return G;
}

/// Whether the work of \p F is the launch's threads alone, one element
/// each, whatever the grid: the thread position read only as idx (no raw
/// threadIdx/blockIdx/blockDim, no barrier: a kernel of one block, like
/// `d[t] = s[len - t - 1]`, races with itself over a larger grid), no array
/// passed on as a pointer, and every array written touched at one index only,
/// `c * idx + k` with a constant c (a thread's own element: babelstream's
/// `a[i] = b[i] + s * c[i]`; Floyd-Warshall's pass, which reads other
/// threads' elements of the array it writes, is not).
static bool ownElementPerThread(const Function &F) {
  bool Ok = true;
  walkExprs(*F.Body, [&](const Expr &E) {
    if (const auto *B = llvm::dyn_cast<BuiltinRef>(&E))
      Ok &= B->Which == Builtin::Idx;
  });
  walkStmts(*F.Body, [&](Stmt &S) { Ok &= !llvm::isa<SyncStmt>(&S); });
  if (!Ok || !arraysUsedAsPointers(F).empty())
    return false;
  std::vector<Access> Accesses = collectAccesses(F);
  const AffineVar Idx{AffineVar::Kind::Thread, "idx"};
  for (const Access &W : Accesses) {
    if (!W.IsWrite)
      continue;
    if (!W.Index || W.Index->mentions(AffineVar::Kind::Loop))
      return false;
    std::optional<std::int64_t> C = W.Index->coefficientOf(Idx).asConstant();
    if (!C || *C == 0)
      return false;
    for (const Access &A : Accesses)
      if (A.Array == W.Array && (!A.Index || !(*A.Index == *W.Index)))
        return false;
  }
  return true;
}

std::optional<std::array<std::int64_t, 2>>
assumedVerifyGrid(const std::vector<const Function *> &DomainFrom) {
  bool Any = false;
  for (const Function *F : DomainFrom) {
    if (onlyFirstThreadRuns(*F)) // a phase `if (idx == 0)`: any grid
      continue;
    KernelDomain D = findDomain(*F);
    if (D.Layered || D.Dims != 1 || !D.Bounds[0].empty() ||
        !ownElementPerThread(*F))
      return std::nullopt;
    Any = true;
  }
  if (!Any)
    return std::nullopt;
  return std::array<std::int64_t, 2>{8192, 1};
}

llvm::Expected<std::array<std::int64_t, 2>>
sequenceDomain(const std::vector<const Function *> &DomainFrom,
               const SizeBindings &Sizes,
               const std::optional<std::array<std::int64_t, 2>> &Grid,
               std::array<bool, 2> *Guarded) {
  // --grid tells only the dimensions no guard bounds: where a guard does,
  // the launcher takes its extent from the guard, and so does verify.
  GuardedExtents G = guardedExtents(DomainFrom, Sizes);
  std::array<std::int64_t, 2> Result = G.Extent;
  unsigned Dims = G.Dims;
  const Function &Head = *DomainFrom.front();
  std::string Name = Head.PhaseOf.empty() ? Head.Name : Head.PhaseOf;
  if (Grid && (*Grid)[1] > 1)
    Dims = 2;
  for (unsigned D = 0; D < 2; ++D) {
    if (Guarded)
      (*Guarded)[D] = G.Guarded[D];
    if (D >= Dims) {
      Result[D] = 1;
      continue;
    }
    if (!G.Guarded[D] && Grid) {
      Result[D] = (*Grid)[D];
      continue;
    }
    if (Result[D] > 0)
      continue;
    if (!G.Unevaluable.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     G.Unevaluable);
    if (G.Guarded[D])
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("kernel '{0}' has an empty domain in {1} for these "
                        "sizes",
                        Name, D == 0 ? "X" : "Y")
              .str());
    // `if (tid == 0) { ... }`: one thread, whatever the grid.
    if (D == 0 && std::all_of(DomainFrom.begin(), DomainFrom.end(),
                              [](const Function *F) {
                                return onlyFirstThreadRuns(*F);
                              })) {
      Result[D] = 1;
      continue;
    }
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot infer the launch domain of kernel '{0}' in {1}: "
                      "no bounds guard compares the thread position with a "
                      "size; give --grid",
                      Name, D == 0 ? "X" : "Y")
            .str());
  }
  return Result;
}

/// The plans of \p Stages' emitted kernels.
static std::vector<const LaunchPlan *>
stagePlans(const std::vector<VerifyStage> &Stages) {
  std::vector<const LaunchPlan *> Plans;
  for (const VerifyStage &St : Stages)
    if (St.Emitted->Plan)
      Plans.push_back(&*St.Emitted->Plan);
  return Plans;
}

/// How many of the launch conditions of \p Plans hold at \p X (the domain
/// from the guards, --grid where none); -1 when the domain is empty or
/// cannot be evaluated. \p Total receives the number of conditions.
static int conditionsHeldAt(
    const std::vector<const Function *> &DomainFrom,
    const std::vector<const LaunchPlan *> &Plans, const SizeBindings &X,
    const std::optional<std::array<std::int64_t, 2>> &Grid, unsigned &Total) {
  Total = 0;
  auto D = sequenceDomain(DomainFrom, X, Grid);
  if (!D) {
    llvm::consumeError(D.takeError());
    return -1;
  }
  int Held = 0;
  for (const LaunchPlan *P : Plans) {
    unsigned T;
    Held += int(conditionsHeld(*P, *D, X, T));
    Total += T;
  }
  return Held;
}

std::string sizeProblem(const std::vector<const Function *> &DomainFrom,
                        const std::vector<VerifyStage> &Stages,
                        const SizeBindings &Sizes,
                        const std::optional<std::array<std::int64_t, 2>> &Grid,
                        bool *Race) {
  if (Race)
    *Race = false;
  auto D = sequenceDomain(DomainFrom, Sizes, Grid);
  if (!D)
    return llvm::toString(D.takeError());
  for (const VerifyStage &St : Stages) {
    // Every access inside the array: an index below 0 at these sizes
    // ((n - 3 - i1) * n + i2 with i1 > n) reads before the buffer.
    std::map<std::string, std::int64_t> Lowest;
    KernelDomain KD = findDomain(*St.Naive);
    auto Layers = evaluateLayers(*St.Naive, KD, Sizes);
    if (!Layers)
      return llvm::toString(Layers.takeError());
    auto E = bufferExtents(*St.Naive, Sizes, *D,
                           naiveLaunchOf(*St.Naive, KD.Dims).Block, &Lowest,
                           *Layers);
    if (!E)
      return llvm::toString(E.takeError());
    for (const auto &[Array, Lo] : Lowest)
      if (Lo < 0)
        return "at these sizes the input kernel '" + St.Naive->Name +
               "' reaches '" + Array + "' at index " + std::to_string(Lo) +
               ", before the array";
    std::string R = findWriteRace(*St.Naive, Sizes, *D);
    if (!R.empty()) {
      if (Race)
        *Race = true;
      return "at these sizes two threads of the input kernel '" +
             St.Naive->Name +
             "' write one element, so its result is not defined: " + R;
    }
    R = findReadWriteRace(*St.Naive, Sizes, *D);
    if (R.empty())
      continue;
    if (Race)
      *Race = true;
    return "at these sizes a thread of the input kernel '" + St.Naive->Name +
           "' reads an element another writes, so its result depends on the "
           "order they run: " +
           R;
  }
  return "";
}

/// The values repairSizes tries in place of a size \p V: a little larger,
/// then a few times larger.
static std::vector<std::int64_t> largerSizes(std::int64_t V) {
  std::vector<std::int64_t> Trials;
  for (std::int64_t Step = 1; Step <= 64; ++Step)
    Trials.push_back(V + Step);
  for (std::int64_t K : {2, 3, 4, 8, 16})
    Trials.push_back(V * K);
  return Trials;
}

/// The first sizes that differ from \p Sizes in one raised size of \p Naive
/// the user did not give (\p Given) and satisfy \p Wanted, if some do.
static std::optional<SizeBindings>
raiseOneSize(const Function &Naive, const SizeBindings &Sizes,
             const SizeBindings &Given,
             llvm::function_ref<bool(const SizeBindings &)> Wanted) {
  for (const Param &P : Naive.Params) {
    if (!Sizes.count(P.Name) || Given.count(P.Name))
      continue;
    for (std::int64_t T : largerSizes(Sizes.at(P.Name))) {
      SizeBindings X = Sizes;
      X[P.Name] = T;
      if (Wanted(X))
        return X;
    }
  }
  return std::nullopt;
}

SizeBindings
repairSizes(const std::vector<const Function *> &DomainFrom,
            const std::vector<VerifyStage> &Stages, SizeBindings Sizes,
            const SizeBindings &Given,
            const std::optional<std::array<std::int64_t, 2>> &Grid) {
  const Function &Naive = *Stages.front().Naive;
  auto Sound = [&](const SizeBindings &X) {
    return sizeProblem(DomainFrom, Stages, X, Grid).empty();
  };
  if (Sound(Sizes))
    return Sizes;
  if (auto X = raiseOneSize(Naive, Sizes, Given, Sound))
    return *X;
  // A domain empty in X and in Y at once (a conv's `w - 99` and `h - fh +
  // 1` at the default sizes) needs a raise for each, and no single raise
  // clears the problem: fill the guarded dimensions one raise at a time,
  // then repair what is left.
  auto EmptyDims = [&](const SizeBindings &X) {
    return guardedExtents(DomainFrom, X).emptyDims();
  };
  SizeBindings Filled = Sizes;
  for (unsigned Empty = EmptyDims(Filled); Empty > 0;
       Empty = EmptyDims(Filled)) {
    auto X = raiseOneSize(Naive, Filled, Given, [&](const SizeBindings &Y) {
      return EmptyDims(Y) < Empty;
    });
    if (!X)
      break;
    Filled = std::move(*X);
  }
  if (Filled == Sizes)
    return Sizes;
  if (Sound(Filled))
    return Filled;
  return raiseOneSize(Naive, Filled, Given, Sound).value_or(Sizes);
}

/// Whether \p X is free of a sizeProblem, but for one \p Before (the
/// problem of the sizes it derives from) already had: the same problem
/// whatever index values it names ("reaches 'hz' at index -53" or "-64"),
/// never a race.
static bool usableSizes(const std::vector<const Function *> &DomainFrom,
                        const std::vector<VerifyStage> &Stages,
                        const SizeBindings &X,
                        const std::optional<std::array<std::int64_t, 2>> &Grid,
                        llvm::StringRef Before) {
  bool Race;
  std::string P = sizeProblem(DomainFrom, Stages, X, Grid, &Race);
  auto Shape = [](llvm::StringRef S) {
    std::string R;
    for (char C : S)
      if (!llvm::isDigit(C) && C != '-')
        R += C;
    return R;
  };
  return P.empty() || (!Race && Shape(P) == Shape(Before));
}

SizeBindings
widenDomain(const std::vector<const Function *> &DomainFrom,
            const std::vector<VerifyStage> &Stages, SizeBindings Sizes,
            const SizeBindings &Given,
            const std::optional<std::array<std::int64_t, 2>> &Grid) {
  constexpr std::int64_t Enough = 16;
  auto Score = [&](const SizeBindings &X) -> std::int64_t {
    std::array<bool, 2> Guarded;
    auto D = sequenceDomain(DomainFrom, X, Grid, &Guarded);
    if (!D) {
      llvm::consumeError(D.takeError());
      return -1;
    }
    std::int64_t Least = Enough;
    for (unsigned Dim = 0; Dim < 2; ++Dim)
      if (Guarded[Dim])
        Least = std::min(Least, (*D)[Dim]);
    return Least;
  };
  // A read the analysis places before an array at every size (in a branch
  // that never runs there) is no reason to keep a tiny domain.
  std::string Before = sizeProblem(DomainFrom, Stages, Sizes, Grid);
  auto Usable = [&](const SizeBindings &X) {
    return usableSizes(DomainFrom, Stages, X, Grid, Before);
  };
  std::int64_t Best = Score(Sizes);
  for (unsigned Round = 0; Round < 4 && Best >= 0 && Best < Enough; ++Round) {
    std::optional<SizeBindings> Pick;
    for (const auto &[Name, V] : Sizes) {
      if (Given.count(Name))
        continue;
      for (std::int64_t T : {V / 8, V / 4, V / 2, V - 16, V + 16, V + 64, V * 2,
                             std::int64_t(1), std::int64_t(3)}) {
        if (T < 1 || T == V)
          continue;
        SizeBindings X = Sizes;
        X[Name] = T;
        std::int64_t N = Score(X);
        if (N > Best && Usable(X)) {
          Best = N;
          Pick = X;
        }
      }
    }
    if (!Pick)
      break;
    Sizes = *Pick;
  }
  return Sizes;
}

static PlanSatisfiability
solveConditions(const std::vector<const Function *> &DomainFrom,
                const std::vector<VerifyStage> &Stages,
                const std::optional<std::array<std::int64_t, 2>> &Grid,
                const SizeBindings &Base, SizeBindings *Witness);

std::optional<SizeBindings> sizesForOptimizedPath(const Function &Naive,
                                                  const Function &Emitted,
                                                  const SizeBindings &Sizes) {
  return sizesForOptimizedStages({&Naive}, {{&Naive, &Emitted, {}}}, Sizes);
}

namespace {

/// One launch condition of a plan, as a test over the sizes it reads.
struct Condition {
  std::set<std::string> Sizes;
  std::function<bool(const SizeBindings &)> Holds;
};

/// \p F's value under \p Sizes when every variable is a size there.
std::optional<std::int64_t> evaluateForm(const AffineForm &F,
                                         const SizeBindings &Sizes) {
  std::int64_t Sum = 0;
  for (const auto &[Mono, Coef] : F.Terms) {
    std::int64_t Term = Coef;
    for (const AffineVar &V : Mono) {
      auto It = Sizes.find(V.Name);
      if (V.VarKind != AffineVar::Kind::Symbol || It == Sizes.end())
        return std::nullopt;
      Term *= It->second;
    }
    Sum += Term;
  }
  return Sum;
}

/// The launch conditions of \p Plans as the launchers test them: the naive
/// domain (the smallest guard bound of each dimension, the largest over
/// the phases) a multiple of each tile, and each precondition. Nullopt when
/// a guard cannot be read as a polynomial in sizes.
std::optional<std::vector<Condition>>
launchConditions(const std::vector<const Function *> &DomainFrom,
                 const std::vector<const LaunchPlan *> &Plans,
                 const std::optional<std::array<std::int64_t, 2>> &Grid) {
  // Per dimension, per phase, the guard bounds (form + offset).
  using Bounds = std::vector<std::vector<std::pair<AffineForm, std::int64_t>>>;
  std::array<Bounds, 2> Guards;
  std::array<std::set<std::string>, 2> GuardSizes;
  for (const Function *F : DomainFrom) {
    KernelDomain KD = findDomain(*F);
    AffineContext Ctx = kernelAffineContext(*F);
    for (unsigned D = 0; D < 2; ++D) {
      if (KD.Bounds[D].empty())
        continue;
      Guards[D].emplace_back();
      for (const DomainBound &B : KD.Bounds[D]) {
        auto A = toAffine(*B.Bound, Ctx);
        if (!A)
          return std::nullopt;
        for (const AffineVar &V : A->variables(AffineVar::Kind::Symbol))
          GuardSizes[D].insert(V.Name);
        Guards[D].back().emplace_back(*A, B.Offset);
      }
    }
  }
  auto DomainAt = [Guards,
                   Grid](unsigned D,
                         const SizeBindings &X) -> std::optional<std::int64_t> {
    if (Guards[D].empty())
      return Grid ? std::optional<std::int64_t>((*Grid)[D]) : std::nullopt;
    std::int64_t Max = 0;
    for (const auto &Phase : Guards[D]) {
      std::optional<std::int64_t> Min;
      for (const auto &[Form, Offset] : Phase) {
        auto V = evaluateForm(Form, X);
        if (!V)
          return std::nullopt;
        Min = Min ? std::min(*Min, *V + Offset) : *V + Offset;
      }
      Max = std::max(Max, *Min);
    }
    return Max;
  };
  std::vector<Condition> Out;
  for (const LaunchPlan *P : Plans) {
    if (P->hasEdges())
      for (unsigned D = 0; D < P->Dims; ++D) {
        unsigned Naive = P->naiveDim(D);
        std::int64_t Tile = P->tile(D);
        // No guard and no --grid: the launch alone sets the domain there,
        // and a launch of a whole tile makes the condition hold.
        if (Guards[Naive].empty() && !Grid)
          continue;
        Out.push_back(
            {GuardSizes[Naive], [DomainAt, Naive, Tile](const SizeBindings &X) {
               auto V = DomainAt(Naive, X);
               return V && *V >= Tile;
             }});
      }
    for (const Precondition &C : P->Preconditions) {
      Condition K;
      walkExpr(*C.Cond, [&](const Expr &E) {
        if (const auto *V = llvm::dyn_cast<VarRef>(&E))
          K.Sizes.insert(V->Name);
      });
      const Expr *Cond = C.Cond.get();
      K.Holds = [Cond](const SizeBindings &X) {
        auto V = evaluateInteger(*Cond, X);
        return V && *V;
      };
      Out.push_back(std::move(K));
    }
  }
  return Out;
}

/// Values to try for a size in a joint search: small ones, multiples of
/// the usual tiles and one past them.
std::vector<std::int64_t> trialValues() {
  std::set<std::int64_t> V;
  for (std::int64_t I = 1; I <= 64; ++I)
    V.insert(I);
  for (std::int64_t M : {16, 32, 48, 64, 96, 128, 192, 256, 512})
    for (std::int64_t K = 1; K * M <= 4096; ++K)
      for (std::int64_t D : {-1, 0, 1})
        if (K * M + D > 0)
          V.insert(K * M + D);
  return {V.begin(), V.end()};
}

} // namespace

std::optional<SizeBindings> sizesForOptimizedStages(
    const std::vector<const Function *> &DomainFrom,
    const std::vector<VerifyStage> &Stages, const SizeBindings &Sizes,
    const std::optional<std::array<std::int64_t, 2>> &Grid) {
  std::vector<const LaunchPlan *> Plans = stagePlans(Stages);
  if (Plans.empty())
    return Sizes;
  const Function &Naive = *Stages.front().Naive;
  // From sizes where the input kernel is sound (ADI's (n - 3 - i1) * n
  // needs n > i1 + 2): raising one size for a condition from unsound ones
  // may leave the repair nothing that keeps the condition.
  SizeBindings S =
      repairSizes(DomainFrom, Stages, chooseSizes(Naive, Sizes), Sizes, Grid);
  unsigned Total = 0;
  auto Score = [&](const SizeBindings &X) {
    return conditionsHeldAt(DomainFrom, Plans, X, Grid, Total);
  };
  auto Holds = [&](const SizeBindings &X) {
    int N = Score(X);
    return N >= 0 && unsigned(N) == Total;
  };
  // A size that conditions of its own constrain (f % 4 == 0) is raised to
  // meet them first: raised later, it would break what the others were
  // raised for (w - f + 1 >= 256), and no single step would gain.
  if (auto Conditions = launchConditions(DomainFrom, Plans, Grid))
    for (const Param &P : Naive.Params) {
      std::vector<const Condition *> Own;
      for (const Condition &C : *Conditions)
        if (C.Sizes == std::set<std::string>{P.Name})
          Own.push_back(&C);
      if (Own.empty() || !S.count(P.Name))
        continue;
      SizeBindings X = S;
      for (std::int64_t Step = 0; Step <= 4096; ++Step) {
        X[P.Name] = S.at(P.Name) + Step;
        if (llvm::all_of(Own,
                         [&](const Condition *C) { return C->Holds(X); })) {
          S = X;
          break;
        }
      }
    }
  // Raise one size at a time, in parameter order, by the smallest step
  // that makes more of the conditions hold; a few rounds settle it.
  for (unsigned Round = 0; Round < 4 && !Holds(S); ++Round)
    for (const Param &P : Naive.Params) {
      if (!S.count(P.Name) || Holds(S))
        continue;
      int Base = Score(S);
      for (std::int64_t Step = 1; Step <= 4096; ++Step) {
        SizeBindings T = S;
        T[P.Name] += Step;
        if (Score(T) > Base) {
          S = T;
          break;
        }
      }
    }
  // Coupled conditions ((w - fw + 1) % 16 == 0 and fw % 16 == 0) defeat
  // raising one size at a time: solve them group by group.
  SizeBindings Solved;
  if (!Holds(S) && solveConditions(DomainFrom, Stages, Grid, S, &Solved) ==
                       PlanSatisfiability::Holds)
    S = Solved;
  if (!Holds(S))
    return std::nullopt;
  // Sizes where the input kernel races, or reaches before an array where
  // the given sizes did not, are no use: repair them, keeping the
  // conditions. (A read the analysis places before an array at every size,
  // in a branch that never runs there, `i == 0 ? ... : hz[(i-1)*NY + j]`,
  // does not count: verify runs the given sizes with it too.)
  std::string Before =
      sizeProblem(DomainFrom, Stages, chooseSizes(Naive, Sizes), Grid);
  auto Usable = [&](const SizeBindings &X) {
    return usableSizes(DomainFrom, Stages, X, Grid, Before);
  };
  if (!Usable(S)) {
    S = repairSizes(DomainFrom, Stages, S, Sizes, Grid);
    if (!Holds(S) || !Usable(S))
      return std::nullopt;
  }
  return S;
}

/// Decides the launch conditions of \p Stages' plans group by group
/// (conditions sharing sizes together): constants at once, one size by a
/// scan over its periods, two by a joint search; the sizes in no condition
/// keep their values in \p Base. Unknown where a group has more sizes or
/// the joint search finds nothing.
static PlanSatisfiability
solveConditions(const std::vector<const Function *> &DomainFrom,
                const std::vector<VerifyStage> &Stages,
                const std::optional<std::array<std::int64_t, 2>> &Grid,
                const SizeBindings &Base, SizeBindings *Witness) {
  std::vector<const LaunchPlan *> Plans = stagePlans(Stages);
  if (Plans.empty())
    return PlanSatisfiability::Holds;
  auto Conditions = launchConditions(DomainFrom, Plans, Grid);
  if (!Conditions)
    return PlanSatisfiability::Unknown;
  // Sizes that are not integer parameters (a #define'd constant) stay put.
  for (Condition &C : *Conditions)
    for (auto It = C.Sizes.begin(); It != C.Sizes.end();)
      It = Base.count(*It) ? std::next(It) : C.Sizes.erase(It);
  // Conditions that share sizes are decided together: group them.
  std::vector<std::vector<const Condition *>> Groups;
  std::vector<std::set<std::string>> GroupSizes;
  for (const Condition &C : *Conditions) {
    std::vector<const Condition *> Merged = {&C};
    std::set<std::string> Sizes = C.Sizes;
    for (size_t G = Groups.size(); G-- > 0;) {
      bool Shares = false;
      for (const std::string &N : GroupSizes[G])
        Shares |= Sizes.count(N) > 0;
      if (!Shares)
        continue;
      Merged.insert(Merged.end(), Groups[G].begin(), Groups[G].end());
      Sizes.insert(GroupSizes[G].begin(), GroupSizes[G].end());
      Groups.erase(Groups.begin() + G);
      GroupSizes.erase(GroupSizes.begin() + G);
    }
    Groups.push_back(std::move(Merged));
    GroupSizes.push_back(std::move(Sizes));
  }
  SizeBindings Found = Base;
  bool Undecided = false;
  for (size_t G = 0; G < Groups.size(); ++G) {
    std::vector<std::string> Free(GroupSizes[G].begin(), GroupSizes[G].end());
    auto AllHold = [&](const SizeBindings &X) {
      for (const Condition *C : Groups[G])
        if (!C->Holds(X))
          return false;
      return true;
    };
    bool Solved = false;
    if (Free.empty()) {
      // Constants (`5 % 32 == 0`): decided at once.
      if (!AllHold(Found))
        return PlanSatisfiability::Never;
      continue;
    }
    if (Free.size() == 1) {
      // Divisibility conditions in one size repeat with the lcm of their
      // moduli: a scan over a few periods decides them.
      SizeBindings X = Found;
      for (std::int64_t V = 1; V <= (1 << 16) && !Solved; ++V) {
        X[Free[0]] = V;
        Solved = AllHold(X);
      }
      if (!Solved)
        return PlanSatisfiability::Never;
      Found = X;
      continue;
    }
    if (Free.size() == 2) {
      std::vector<std::int64_t> Values = trialValues();
      SizeBindings X = Found;
      for (std::int64_t A : Values) {
        X[Free[0]] = A;
        for (std::int64_t B : Values) {
          X[Free[1]] = B;
          if ((Solved = AllHold(X)))
            break;
        }
        if (Solved)
          break;
      }
      if (Solved) {
        Found = X;
        continue;
      }
    }
    Undecided = true;
  }
  if (Undecided)
    return PlanSatisfiability::Unknown;
  if (Witness)
    *Witness = Found;
  return PlanSatisfiability::Holds;
}

PlanSatisfiability
planSatisfiability(const std::vector<const Function *> &DomainFrom,
                   const std::vector<VerifyStage> &Stages,
                   const std::optional<std::array<std::int64_t, 2>> &Grid,
                   SizeBindings *Witness) {
  SizeBindings Base = chooseSizes(*Stages.front().Naive, {});
  PlanSatisfiability R =
      solveConditions(DomainFrom, Stages, Grid, Base, Witness);
  if (R != PlanSatisfiability::Unknown)
    return R;
  if (auto S = sizesForOptimizedStages(DomainFrom, Stages, {}, Grid)) {
    if (Witness)
      *Witness = *S;
    return PlanSatisfiability::Holds;
  }
  return PlanSatisfiability::Unknown;
}

} // namespace gpumerge
