//===- Tiling.cpp - One generator for coalescing, block and thread merge --===//
//
// The merging half of the generator (TileGenerator.h; the staging half is
// TileStaging.cpp): which locals differ between merged copies, the copies
// of each statement, the kernel assembled with its traffic and register
// estimates and its launch plan; and generateTiled, which runs it.
//
//===----------------------------------------------------------------------===//
#include "Transforms/Tiling.h"
#include "Transforms/NaiveShape.h"
#include "Transforms/TileGenerator.h"
#include "Transforms/UnrollBudget.h"

#include "Analysis/Accesses.h"
#include "Analysis/BankConflicts.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Evaluate.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"

#include "llvm/Support/FormatVariadic.h"

#include <numeric>
#include <set>

namespace gpumerge {

std::int64_t staticSharedLimit(const MachineDescription &MD) {
  return std::min<std::int64_t>(MD.SharedMemPerBlock, 48 * 1024);
}

void setLayers(LaunchPlan &P, const Function &Naive) {
  KernelDomain D = findDomain(Naive);
  P.Layered = D.Layered;
  P.LayerExtent.reset();
  if (!D.Layered || D.LayerBounds.size() != 1)
    return;
  const DomainBound &B = D.LayerBounds.front();
  ExprPtr E = inlineSingleAssignmentLocals(*B.Bound, Naive);
  if (B.Offset)
    E = add(std::move(E), intLit(B.Offset));
  P.LayerExtent = std::shared_ptr<const Expr>(simplifyExpr(std::move(E)));
}

const Function &tilingOrigin(const Function &F) {
  return F.Plan && F.Plan->Origin ? *F.Plan->Origin : F;
}

/// The trip count of \p L (unit step, `<`, `<=` or `!=`) when its bounds
/// are constants; \p Literal says they are plain literals (no macro a
/// rebuild with -D could change).
static std::optional<std::int64_t> constantTrip(const ForStmt &L,
                                                bool &Literal) {
  ExprPtr Trip = binary(BinaryOp::Sub, L.Bound->clone(), L.Init->clone());
  if (L.CondOp == BinaryOp::LE)
    Trip = add(std::move(Trip), intLit(1));
  auto N = evaluateInteger(*Trip, {});
  if (!N)
    return std::nullopt;
  Literal = true;
  walkExpr(*Trip, [&](const Expr &X) {
    if (auto *I = llvm::dyn_cast<IntLit>(&X))
      Literal &= I->MacroName.empty();
  });
  return N;
}

std::int64_t loopTile(const ForStmt &L, std::int64_t T, bool &Constant) {
  bool Literal = false;
  auto N = constantTrip(L, Literal);
  Constant = N && Literal;
  if (!N)
    return T;
  if (*N < 2)
    return 0;
  for (std::int64_t D = std::min(T, *N); D >= 2; --D)
    if (*N % D == 0)
      return D;
  return 0;
}

//===----------------------------------------------------------------------===//
// Small expression helpers
//===----------------------------------------------------------------------===//

ExprPtr simplifyExpr(ExprPtr E) {
  return rewriteExpr(std::move(E), [](Expr &X) -> ExprPtr {
    auto *B = llvm::dyn_cast<BinaryExpr>(&X);
    if (!B || B->getType().isFloating())
      return nullptr;
    auto *L = llvm::dyn_cast<IntLit>(B->LHS.get());
    auto *R = llvm::dyn_cast<IntLit>(B->RHS.get());
    if (L && R && L->MacroName.empty() && R->MacroName.empty()) {
      switch (B->Op) {
      case BinaryOp::Add:
        return intLit(L->Value + R->Value);
      case BinaryOp::Sub:
        return intLit(L->Value - R->Value);
      case BinaryOp::Mul:
        return intLit(L->Value * R->Value);
      case BinaryOp::Div: // the same in C for any signedness when >= 0
        return L->Value >= 0 && R->Value > 0 ? intLit(L->Value / R->Value)
                                             : nullptr;
      case BinaryOp::Rem:
        return L->Value >= 0 && R->Value > 0 ? intLit(L->Value % R->Value)
                                             : nullptr;
      default:
        return nullptr;
      }
    }
    auto IsLit = [](IntLit *I, std::int64_t V) {
      return I && I->Value == V && I->MacroName.empty();
    };
    switch (B->Op) {
    case BinaryOp::Add:
      if (IsLit(R, 0))
        return std::move(B->LHS);
      if (IsLit(L, 0))
        return std::move(B->RHS);
      return nullptr;
    case BinaryOp::Sub:
      return IsLit(R, 0) ? std::move(B->LHS) : nullptr;
    case BinaryOp::Div:
      return IsLit(R, 1) ? std::move(B->LHS) : nullptr;
    case BinaryOp::Rem:
      return IsLit(R, 1) ? intLit(0) : nullptr;
    case BinaryOp::Mul:
      if (IsLit(R, 1))
        return std::move(B->LHS);
      if (IsLit(L, 1))
        return std::move(B->RHS);
      if (IsLit(L, 0) || IsLit(R, 0))
        return intLit(0);
      return nullptr;
    default:
      return nullptr;
    }
  });
}

namespace tiling {

void Generator::findVarying(std::vector<StmtPtr> &Stmts) {
  bool Changed = true;
  std::function<void(Stmt &, unsigned)> Walk = [&](Stmt &St, unsigned Ctx) {
    auto Mark = [&](const std::string &N, unsigned M) {
      if (!M)
        return;
      unsigned &Old = Varying[N];
      Changed |= (Old | M) != Old;
      Old |= M;
    };
    if (auto *D = llvm::dyn_cast<DeclStmt>(&St)) {
      Mark(D->Name, Ctx | (D->Init ? maskOf(*D->Init) : 0));
    } else if (auto *A = llvm::dyn_cast<AssignStmt>(&St)) {
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Mark(V->Name, Ctx | maskOf(*A->RHS));
      // An element of a thread's own array: the array varies as its
      // elements do (each merged copy has its own).
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get());
          R && R->Space == AddressSpace::Private)
        Mark(R->Array, Ctx | maskOf(*A->RHS) | maskOf(*A->LHS));
    } else if (auto *If = llvm::dyn_cast<IfStmt>(&St)) {
      unsigned C = Ctx | maskOf(*If->Cond);
      Walk(*If->Then, C);
      if (If->Else)
        Walk(*If->Else, C);
    } else if (auto *L = llvm::dyn_cast<ForStmt>(&St)) {
      unsigned C = Ctx | maskOf(*L->Init) | maskOf(*L->Bound) |
                   (L->StepExpr ? maskOf(*L->StepExpr) : 0);
      Mark(L->Iter, C);
      Walk(*L->Body, C);
    } else if (auto *B = llvm::dyn_cast<BlockStmt>(&St)) {
      for (StmtPtr &X : B->Body)
        Walk(*X, Ctx);
    }
  };
  while (Changed) {
    Changed = false;
    for (StmtPtr &St : Stmts)
      Walk(*St, 0);
  }
  for (auto It = Varying.begin(); It != Varying.end();)
    It = It->second ? std::next(It) : Varying.erase(It);
}

StmtPtr Generator::copyFor(const Stmt &St, std::int64_t Kx, std::int64_t Ky) {
  StmtPtr C = St.clone();
  if (S.Merge[0] > 1 && S.AdjacentX)
    substituteBuiltin(
        *C, Builtin::Idx,
        *add(mul(builtin(Builtin::Idx), intLit(S.Merge[0])), intLit(Kx)));
  else if (S.Merge[0] > 1)
    substituteBuiltin(
        *C, Builtin::Idx,
        *add(mul(add(mul(builtin(Builtin::Bidx), intLit(S.Merge[0])),
                     intLit(Kx)),
                 builtin(Builtin::Bdimx)),
             builtin(Builtin::Tidx)));
  if (S.Merge[1] > 1)
    substituteBuiltin(
        *C, Builtin::Idy,
        *add(mul(builtin(Builtin::Idy), intLit(S.Merge[1])), intLit(Ky)));
  substituteVar(*C, KxName, *intLit(Kx));
  substituteVar(*C, KyName, *intLit(Ky));
  auto Renamed = [&](const std::string &N) -> std::optional<std::string> {
    auto It = Varying.find(N);
    if (It == Varying.end())
      return std::nullopt;
    return N + suffix(It->second, Kx, Ky);
  };
  rewriteExprs(*C, [&](Expr &X) -> ExprPtr {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      if (auto N = Renamed(V->Name))
        return var(*N, V->getType());
    // A local array of each copy's own (`unsigned char state[8]`).
    if (auto *A = llvm::dyn_cast<ArrayRef>(&X))
      if (auto N = Renamed(A->Array))
        A->Array = *N;
    return nullptr;
  });
  walkStmts(*C, [&](Stmt &X) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
      if (auto N = Renamed(D->Name))
        D->Name = *N;
    if (auto *L = llvm::dyn_cast<ForStmt>(&X))
      if (auto N = Renamed(L->Iter))
        L->Iter = *N;
  });
  rewriteExprs(*C, [](Expr &X) -> ExprPtr {
    return llvm::isa<BinaryExpr>(&X) ? simplifyExpr(X.clone()) : nullptr;
  });
  return C;
}

std::vector<StmtPtr> Generator::merge(std::vector<StmtPtr> Stmts) {
  std::vector<StmtPtr> Out;
  for (StmtPtr &St : Stmts) {
    if (!varies(*St)) {
      Out.push_back(copyFor(*St, 0, 0));
      continue;
    }
    if (auto *L = llvm::dyn_cast<ForStmt>(St.get());
        L && !varies(*L->Init) && !varies(*L->Bound) &&
        !(L->StepExpr && varies(*L->StepExpr)) && !Varying.count(L->Iter)) {
      L->Init = once(std::move(L->Init));
      L->Bound = once(std::move(L->Bound));
      if (L->StepExpr)
        L->StepExpr = once(std::move(L->StepExpr));
      L->Body = block(merge(unwrap(std::move(L->Body))));
      Out.push_back(std::move(St));
      continue;
    }
    if (auto *If = llvm::dyn_cast<IfStmt>(St.get()); If && !varies(*If->Cond)) {
      If->Cond = once(std::move(If->Cond));
      If->Then = block(merge(unwrap(std::move(If->Then))));
      if (If->Else)
        If->Else = block(merge(unwrap(std::move(If->Else))));
      Out.push_back(std::move(St));
      continue;
    }
    if (llvm::isa<BlockStmt>(St.get())) {
      Out.push_back(block(merge(unwrap(std::move(St)))));
      continue;
    }
    // Replicated over the dimensions it varies in only: `int x = idx`
    // gives x_0, x_1 for two copies in X, whatever the copies in Y.
    unsigned M = maskOf(*St);
    for (std::int64_t Ky = 0; Ky < (M & 2 ? S.Merge[1] : 1); ++Ky)
      for (std::int64_t Kx = 0; Kx < (M & 1 ? S.Merge[0] : 1); ++Kx)
        Out.push_back(copyFor(*St, Kx, Ky));
  }
  return Out;
}

llvm::Error Generator::checkOrigin() const {
  for (unsigned D = 0; D < 2; ++D)
    if (S.Block[D] < 1 || S.Merge[D] < 1)
      return cannot("block and merge factors must be positive");
  if (S.AdjacentX && S.LoopTile > 0)
    return cannot("neighbouring threads merge in X only without staging");
  if (hasGlobalSync(Origin))
    return cannot("the kernel has a global barrier");
  // A generated kernel is launched over whole tiles of the naive domain,
  // which the launcher takes from the naive launch where no guard bounds it.
  // Where only the first thread works (`if (t == 0)`), the domain is that
  // thread at any size: a tile of several threads would need a launch of
  // threads that do nothing, which verify (launching the one thread) never
  // makes, so only the fallback would ever be tested; and there is no
  // neighbour to merge with or to shape a block for.
  if (onlyFirstThreadRuns(Origin))
    return cannot("only the first thread does any work (`if (idx == 0)`): "
                  "its domain is one thread at any size, no whole tile of "
                  "threads");
  bool OnlyPositions = true, HasSync = false, Vectorized = false;
  walkExprs(*Origin.Body, [&](const Expr &E) {
    if (auto *B = llvm::dyn_cast<BuiltinRef>(&E))
      OnlyPositions &= B->Which == Builtin::Idx || B->Which == Builtin::Idy ||
                       B->Which == Builtin::Idz;
    if (auto *A = llvm::dyn_cast<ArrayRef>(&E))
      Vectorized |= A->VectorWidth > 1;
  });
  if (Vectorized)
    return cannot("the kernel is already vectorized (vectorize runs after "
                  "the passes that tile)");
  walkStmts(*Origin.Body, [&](Stmt &X) { HasSync |= llvm::isa<SyncStmt>(&X); });
  if (!OnlyPositions)
    return cannot("the kernel reads threadIdx/blockIdx/blockDim directly, so "
                  "its meaning depends on the block shape");
  if (HasSync)
    return cannot("the kernel already synchronizes its block");
  if (Origin.Plan && !Origin.Plan->SameLaunch)
    return cannot("internal: the origin kernel is already tiled");
  return llvm::Error::success();
}

llvm::Error Generator::checkMergedExits(NaiveShape &NS) const {
  if (S.Merge[0] * S.Merge[1] <= 1)
    return llvm::Error::success();
  for (StmtPtr &St : NS.Guarded) {
    const Stmt *Exit = nullptr;
    walkStmts(*St, [&](Stmt &X) {
      if (!Exit && (llvm::isa<ReturnStmt>(&X) || llvm::isa<JumpStmt>(&X)))
        Exit = &X;
    });
    if (Exit && llvm::isa<ReturnStmt>(Exit))
      return cannot(llvm::formatv("the return at line {0}, after the bounds "
                                  "guard, would end a merged thread's "
                                  "other copies",
                                  St->getLine()));
    if (Exit)
      return cannot(llvm::formatv(
          "the {0} at line {1} ends or skips an iteration of one thread "
          "only: its loop is kept as written, unmerged",
          llvm::cast<JumpStmt>(Exit)->IsBreak ? "break" : "continue",
          Exit->getLine()));
  }
  return llvm::Error::success();
}

LaunchPlan Generator::initialPlan(const NaiveShape &NS) const {
  LaunchPlan Plan;
  if (Origin.Plan) { // scalar replacement's aliasing requirements carry over
    Plan.Preconditions = Origin.Plan->Preconditions;
    Plan.Disjoint = Origin.Plan->Disjoint;
    Plan.Elements = Origin.Plan->Elements;
  }
  Plan.Dims = NS.Dims;
  Plan.Block = S.Block;
  Plan.Coverage = S.Merge;
  Plan.Extent = NS.Extent;
  Plan.LoopTile = S.LoopTile;
  Plan.WholeTiles = S.WholeTiles;
  Plan.AdjacentX = S.AdjacentX;
  Plan.UnrollTile = S.UnrollTile;
  return Plan;
}

llvm::Error Generator::coverDomain(NaiveShape &NS, LaunchPlan &Plan,
                                   bool Tiled) {
  if (!Tiled && !S.WholeTiles) {
    Plan.GuardsDomain = NS.Guard != nullptr;
    if (NS.Guard) {
      auto If = std::make_unique<IfStmt>(std::move(NS.Guard),
                                         block(std::move(NS.Guarded)));
      NS.Guarded.clear();
      NS.Guarded.push_back(std::move(If));
    }
    return llvm::Error::success();
  }
  // Every launched thread is inside the domain (the launch runs whole
  // tiles only), and all of them must reach the barriers.
  std::set<std::string> StagedArrays;
  for (const StagedAccess &SA : Result.Staged)
    if (!SA.IsWrite)
      StagedArrays.insert(SA.Array);
  for (const std::string &R : StagedArrays)
    for (const std::string &W : Written) {
      if (auto E = requireElements(Plan, R))
        return E;
      if (auto E = requireElements(Plan, W))
        return E;
      Plan.requireDisjoint(R, W, {});
    }
  return llvm::Error::success();
}

void Generator::estimateTraffic(Function &K, bool Tiled) {
  std::int64_t NT = S.Block[0] * S.Block[1];
  double Outputs = double(NT * S.Merge[0] * S.Merge[1]);
  double Loads = 0;
  for (const StagedAccess &SA : Result.Staged)
    Loads += double(SA.Loaded);
  // Distinct global reads one thread makes per iteration of the loop
  // (the tiled loop when there is one, else the whole kernel).
  std::set<std::string> Reads, SharedReads;
  Stmt *Scope = K.Body.get();
  if (Tiled) // the first: the tile's loop (a remainder loop follows)
    walkStmts(*K.Body, [&](Stmt &X) {
      if (auto *L = llvm::dyn_cast<ForStmt>(&X))
        if (L->Iter == Result.TiledLoop && Scope == K.Body.get())
          Scope = L->Body.get();
    });
  walkStmts(*Scope, [&](Stmt &X) {
    auto Note = [&](const Expr &E) {
      walkExpr(E, [&](const Expr &Y) {
        if (auto *R = llvm::dyn_cast<ArrayRef>(&Y)) {
          if (R->Space == AddressSpace::Global)
            Reads.insert(printExprDebug(*R));
          else if (R->Space == AddressSpace::Shared)
            SharedReads.insert(printExprDebug(*R));
        }
      });
    };
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X)) {
      Note(*A->RHS);
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
        for (const ExprPtr &I : R->Indices)
          Note(*I);
    } else if (auto *D = llvm::dyn_cast<DeclStmt>(&X)) {
      if (D->Init)
        Note(*D->Init);
    }
  });
  double PerStep =
      Tiled ? double(Result.TiledBy > 0 ? Result.TiledBy : S.LoopTile) : 1.0;
  Loads += double(Reads.size()) * double(NT) * PerStep;
  Result.LoadsPerOutput = Loads / (Outputs * PerStep);
  // Each distinct shared read once per iteration of the loop over the
  // tile (the tiled loop's body holds one iteration's reads).
  Result.SharedLoadsPerOutput =
      double(SharedReads.size()) * double(NT) / Outputs;
}

unsigned Generator::estimateRegisters() const {
  unsigned Copies = 0;
  for (const auto &[N, M] : Varying)
    if (N.rfind("__merge", 0) != 0)
      Copies += unsigned(M == 1   ? 2 * S.Merge[0]
                         : M == 2 ? 2 * S.Merge[1]
                                  : S.Merge[0] * S.Merge[1]);
  return 16 + Copies;
}

llvm::Expected<TiledKernel> Generator::run() {
  if (auto E = checkOrigin())
    return E;

  auto NSOr = analyzeShape(Origin);
  if (!NSOr)
    return NSOr.takeError();
  NaiveShape &NS = *NSOr;
  if (NS.Dims == 1 && (S.Block[1] != 1 || S.Merge[1] != 1))
    return cannot("a 1-D kernel takes no Y factors");
  if (auto E = checkMergedExits(NS))
    return E;
  collectNames(*Origin.Body, Names);
  Accesses = collectAccesses(Origin);
  for (const Access &A : Accesses)
    (A.IsWrite ? Written : Read).insert(A.Array);
  Defs = singleAssignmentLocals(Origin);
  for (const Param &P : Origin.Params)
    Names.insert(P.Name);

  LaunchPlan Plan = initialPlan(NS);
  auto Choice = chooseLoop(NS);
  if (!Choice)
    return Choice.takeError();
  if (*Choice)
    if (auto E = stage(NS, **Choice, Plan))
      return E;
  if (S.LoopTile > 0) {
    if (auto E = stageSegments(NS, Plan))
      return E;
    if (auto E = stageWrites(NS, Plan))
      return E;
  }
  bool Tiled = !Result.Staged.empty();
  if ((Tiled || S.WholeTiles) && NS.GuardKeepsMore)
    return cannot("the bounds guard tests more than the thread positions");
  if (auto E = coverDomain(NS, Plan, Tiled))
    return E;
  MergedDims = (S.Merge[0] > 1 ? 1 : 0) | (S.Merge[1] > 1 ? 2 : 0);
  if (S.Merge[0] > 1)
    Varying[KxName] = 1;
  if (S.Merge[1] > 1)
    Varying[KyName] = 2;

  std::vector<StmtPtr> All = std::move(NS.Prologue);
  for (StmtPtr &St : NS.Guarded)
    All.push_back(std::move(St));
  findVarying(All);

  auto K = Origin.withBody(std::make_unique<BlockStmt>());
  K->Body->Body = merge(std::move(All));
  capUnrolling(*K->Body);
  estimateTraffic(*K, Tiled);
  Result.EstimatedRegisters = estimateRegisters();

  Plan.EstimatedRegisters = Result.EstimatedRegisters;
  Plan.Origin = std::shared_ptr<const Function>(Origin.clone());
  setLayers(Plan, Origin);
  K->Plan = std::move(Plan);
  Result.Kernel = std::move(K);
  return std::move(Result);
}

} // namespace tiling

using tiling::cannot;
using tiling::Generator;

std::unique_ptr<Function> interchanged(const Function &F) {
  std::unique_ptr<Function> G = F.clone();
  const char *Hold = "__interchange_x";
  substituteBuiltin(*G->Body, Builtin::Idx, *var(Hold));
  substituteBuiltin(*G->Body, Builtin::Idy, *builtin(Builtin::Idx));
  substituteVar(*G->Body, Hold, *builtin(Builtin::Idy));
  return G;
}

bool canInterchange(const Function &F) {
  KernelDomain D = findDomain(F);
  bool Unguarded = D.Bounds[0].empty() && D.Bounds[1].empty() &&
                   D.Lower[0].empty() && D.Lower[1].empty();
  return D.Dims == 2 &&
         (Unguarded || (D.Bounds[0].size() == 1 && D.Bounds[1].size() == 1));
}

TileShape generatedShape(const LaunchPlan &P) {
  TileShape S;
  S.Block = P.Block;
  S.Merge = P.Coverage;
  S.LoopTile = P.LoopTile;
  S.Interchange = P.Interchanged;
  S.WholeTiles = P.WholeTiles;
  S.AdjacentX = P.AdjacentX;
  S.UnrollTile = P.UnrollTile;
  return S;
}

llvm::Expected<TiledKernel> generateTiled(const Function &Origin,
                                          const TileShape &S,
                                          const MachineDescription &MD) {
  if (!S.Interchange)
    return Generator(Origin, S, MD).run();
  if (!canInterchange(Origin))
    return cannot("exchanging idx and idy needs a 2-D kernel with a bound "
                  "on each position or none");
  std::unique_ptr<Function> Swapped = interchanged(Origin);
  TileShape Plain = S;
  Plain.Interchange = false;
  auto K = Generator(*Swapped, Plain, MD).run();
  if (!K)
    return K.takeError();
  K->Kernel->Plan->Interchanged = true;
  K->Kernel->Plan->Origin = std::shared_ptr<const Function>(Origin.clone());
  return K;
}

} // namespace gpumerge
