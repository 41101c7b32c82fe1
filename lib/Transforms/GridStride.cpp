//===- GridStride.cpp - A grid-stride loop read as a bounds guard --------===//
#include "Transforms/GridStride.h"

#include "Analysis/Affine.h"
#include "Analysis/Domain.h"
#include "Transforms/NaiveShape.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

namespace {

bool isVariable(const std::optional<AffineForm> &A, AffineVar V) {
  return A && *A == AffineForm::variable(std::move(V));
}

/// blockIdx.x * blockDim.x + threadIdx.x, get_global_id(0), or a local
/// assigned once from it; also with the product widened
/// (`(size_t)blockIdx.x * blockDim.x + threadIdx.x`), which the positions
/// then read as idx (the launcher keeps the domain below 2^31).
bool isThreadPosition(const Expr &E, const AffineContext &Ctx) {
  auto A = toAffine(E, Ctx);
  AffineForm Widened =
      AffineForm::variable({AffineVar::Kind::Thread, "bidx"}) *
          AffineForm::variable({AffineVar::Kind::Symbol, "bdimx"}) +
      AffineForm::variable({AffineVar::Kind::Thread, "tidx"});
  return isVariable(A, {AffineVar::Kind::Thread, "idx"}) ||
         (A && *A == Widened);
}

/// blockDim.x * gridDim.x (either order), get_global_size(0), or a local
/// assigned once from it.
bool isGridSize(const Expr &E, const AffineContext &Ctx) {
  auto A = toAffine(E, Ctx);
  AffineForm Threads =
      AffineForm::variable({AffineVar::Kind::Symbol, "bdimx"}) *
      AffineForm::variable({AffineVar::Kind::Symbol, "gdimx"});
  return isVariable(A, {AffineVar::Kind::Symbol, "gsizex"}) ||
         (A && *A == Threads);
}

/// Does \p E read a thread or block built-in, directly or through one of
/// the \p Positional locals?
bool readsPosition(const Expr &E, const std::set<std::string> &Positional) {
  bool Found = false;
  walkExpr(E, [&](const Expr &X) { Found |= llvm::isa<BuiltinRef>(&X); });
  return Found || mentionsVar(E, Positional);
}

/// The variable or array an assignment writes: `v`, `a[i]`, `v.x`.
std::string writtenName(const Expr &Target) {
  if (const auto *V = llvm::dyn_cast<VarRef>(&Target))
    return V->Name;
  if (const auto *R = llvm::dyn_cast<ArrayRef>(&Target))
    return R->Array;
  if (const auto *M = llvm::dyn_cast<MemberExpr>(&Target))
    return writtenName(*M->Base);
  return "";
}

/// Set-up before the loop (NaiveShape.h's isPrologue) that every thread
/// may run once, whatever the grid: no shared array.
bool isSetUp(const Stmt &St) {
  const auto *D = llvm::dyn_cast<DeclStmt>(&St);
  return isPrologue(St) && !(D && D->Ty.Space == AddressSpace::Shared);
}

/// The local a set-up statement declares or assigns, and its value (null
/// for `int i;`).
std::string setUpName(const Stmt &St) {
  if (const auto *D = llvm::dyn_cast<DeclStmt>(&St))
    return D->Name;
  return writtenName(*llvm::cast<AssignStmt>(St).LHS);
}
const Expr *setUpValue(const Stmt &St) {
  if (const auto *D = llvm::dyn_cast<DeclStmt>(&St))
    return D->Init.get();
  return llvm::cast<AssignStmt>(St).RHS.get();
}

/// The locals of \p Candidates that \p Body sets (`v = e;`, e not reading
/// v) at its top level before any statement mentions them: each iteration's
/// value is its own (`float dvelx; for (...) { dvelx = acc.x * dt; ... }`).
std::set<std::string>
setFirstEachIteration(Stmt &Body, const std::set<std::string> &Candidates) {
  std::set<std::string> Fresh, Mentioned;
  auto *B = llvm::dyn_cast<BlockStmt>(&Body);
  if (!B)
    return Fresh;
  for (StmtPtr &S : B->Body) {
    if (const auto *A = llvm::dyn_cast<AssignStmt>(S.get());
        A && A->Op == AssignOp::Set && llvm::isa<VarRef>(*A->LHS)) {
      const std::string &W = llvm::cast<VarRef>(*A->LHS).Name;
      if (Candidates.count(W) && !Mentioned.count(W) &&
          !mentionsVar(*A->RHS, {W}))
        Fresh.insert(W);
    }
    walkExprs(*S, [&](const Expr &E) {
      if (const auto *V = llvm::dyn_cast<VarRef>(&E))
        Mentioned.insert(V->Name);
    });
  }
  return Fresh;
}

/// Why the iterations of \p Body (the loop over \p Iter) do not each stand
/// alone, as one thread's work; empty when they do. \p Before: the locals
/// declared before the loop; \p Positional: those holding a thread
/// position or the grid's extent.
std::string dependsAcrossIterations(Stmt &Body, const std::string &Iter,
                                    const std::set<std::string> &Before,
                                    const std::set<std::string> &Positional) {
  std::string Why;
  std::function<void(Stmt &, unsigned)> Visit = [&](Stmt &S, unsigned Loops) {
    if (!Why.empty())
      return;
    switch (S.getKind()) {
    case Stmt::Kind::Sync:
    case Stmt::Kind::GlobalSync:
    case Stmt::Kind::Pipeline:
      Why = "its body synchronizes";
      return;
    case Stmt::Kind::Return:
      Why = "its body returns";
      return;
    case Stmt::Kind::Jump:
      if (Loops == 0)
        Why = llvm::cast<JumpStmt>(S).IsBreak ? "its body breaks out of it"
                                              : "its body continues it";
      return;
    case Stmt::Kind::Decl:
      if (llvm::cast<DeclStmt>(S).Ty.Space == AddressSpace::Shared)
        Why = "its body declares shared memory";
      break;
    case Stmt::Kind::Assign: {
      std::string W = writtenName(*llvm::cast<AssignStmt>(S).LHS);
      if (W == Iter)
        Why = "its body changes '" + Iter + "'";
      else if (Before.count(W))
        Why = "its body writes '" + W +
              "', declared before it, which carries from one iteration to "
              "the next";
      break;
    }
    default:
      break;
    }
    if (!Why.empty())
      return;
    S.forEachExpr([&](ExprPtr &E) {
      if (!Why.empty())
        return;
      walkExpr(*E, [&](const Expr &X) {
        if (const auto *R = llvm::dyn_cast<ArrayRef>(&X);
            R && R->Space == AddressSpace::Shared)
          Why = "its body uses shared memory";
      });
      if (Why.empty() && readsPosition(*E, Positional))
        Why = "its body reads a thread or block built-in other than through "
              "'" +
              Iter + "'";
    });
    unsigned Inner = Loops + (S.getKind() == Stmt::Kind::For);
    S.forEachStmt([&](StmtPtr &C) {
      if (C)
        Visit(*C, Inner);
    });
  };
  Visit(Body, 0);
  return Why;
}

} // namespace

std::unique_ptr<Function> guardGridStride(const Function &F,
                                          std::string &WhyNot) {
  WhyNot.clear();
  if (!F.IsKernel || !F.PhaseOf.empty() || !F.Body)
    return nullptr;
  AffineContext Ctx = kernelAffineContext(F);
  // The loop: the last statement but a bare return, after set-up only.
  std::vector<StmtPtr> &Top = F.Body->Body;
  size_t End = Top.size();
  if (End && llvm::isa<ReturnStmt>(Top[End - 1].get()) &&
      !llvm::cast<ReturnStmt>(*Top[End - 1]).Value)
    --End;
  size_t At = Top.size();
  for (size_t I = 0; I < End; ++I)
    if (const auto *L = llvm::dyn_cast<ForStmt>(Top[I].get());
        L && L->StepExpr && L->Step == 1 && isGridSize(*L->StepExpr, Ctx) &&
        isThreadPosition(*L->Init, Ctx))
      At = I;
  if (At == Top.size())
    return nullptr;
  const auto &Loop = llvm::cast<ForStmt>(*Top[At]);
  auto Refuse = [&](const llvm::Twine &Why) {
    WhyNot = llvm::formatv("the grid-stride loop at line {0} is not read as "
                           "one thread per element: {1}",
                           Loop.getLine(), Why.str())
                 .str();
    return nullptr;
  };
  if (At + 1 != End)
    return Refuse("statements follow it");
  if (!F.PositionHelper.empty())
    return Refuse("the helper '" + F.PositionHelper +
                  "' reads thread or block built-ins");
  if (F.FixedBlock[0] || F.FixedBlock[1])
    return Refuse("its start assumes a block size");
  if (Loop.CondOp != BinaryOp::LT && Loop.CondOp != BinaryOp::LE)
    return Refuse("its condition is not '" + Loop.Iter + " < bound'");

  // The set-up before it: which locals it declares, which of them hold a
  // thread position or the grid's extent (the loop's start and stride).
  std::set<std::string> Before, Positional;
  for (size_t I = 0; I < At; ++I) {
    const Stmt &S = *Top[I];
    if (!isSetUp(S))
      return Refuse(llvm::formatv("line {0} before it is not set-up (a "
                                  "declaration or a scalar computed without "
                                  "memory)",
                                  S.getLine()));
    if (llvm::isa<DeclStmt>(&S))
      Before.insert(setUpName(S));
    if (const Expr *V = setUpValue(S); V && readsPosition(*V, Positional))
      Positional.insert(setUpName(S));
  }
  if (readsPosition(*Loop.Bound, Positional))
    return Refuse("its bound depends on the thread");
  // A local declared before (C89 style) that each iteration sets before
  // anything reads it carries nothing from one to the next.
  for (const std::string &N : setFirstEachIteration(*Loop.Body, Before))
    Before.erase(N);
  if (std::string Why =
          dependsAcrossIterations(*Loop.Body, Loop.Iter, Before, Positional);
      !Why.empty())
    return Refuse(Why);
  // `int i; ... for (i = start; ...)`: the declaration becomes the guard's.
  if (!Loop.DeclaresIter) {
    Positional.insert(Loop.Iter);
    for (size_t I = 0; I < At; ++I) {
      Stmt &S = *Top[I];
      const auto *D = llvm::dyn_cast<DeclStmt>(&S);
      if (D && D->Name == Loop.Iter && !D->Init)
        continue;
      bool Reads = false;
      S.forEachExpr([&](ExprPtr &E) { Reads |= mentionsVar(*E, {Loop.Iter}); });
      if (Reads || setUpName(S) == Loop.Iter)
        return Refuse("'" + Loop.Iter + "' is used before it");
    }
  }

  // Set-up but the positional locals (used by the loop's header only),
  // then `T i = idx; if (i < bound) body`.
  auto Body = std::make_unique<BlockStmt>();
  for (size_t I = 0; I < At; ++I)
    if (!Positional.count(setUpName(*Top[I])))
      Body->Body.push_back(Top[I]->clone());
  auto Start = std::make_unique<DeclStmt>(Loop.Iter, Loop.IterType,
                                          builtin(Builtin::Idx));
  Start->setLine(Loop.getLine());
  Body->Body.push_back(std::move(Start));
  auto Guard = std::make_unique<IfStmt>(
      binary(Loop.CondOp, var(Loop.Iter, Loop.IterType), Loop.Bound->clone()),
      Loop.Body->clone());
  Guard->setLine(Loop.getLine());
  Body->Body.push_back(std::move(Guard));
  std::unique_ptr<Function> G = F.withBody(std::move(Body));
  G->GridStrideLine = Loop.getLine();

  KernelDomain D = findDomain(*G);
  if (D.Dims != 1 || D.Layered)
    return Refuse("the kernel has more than one dimension");
  auto Shape = analyzeShape(*G);
  if (!Shape)
    return Refuse(llvm::toString(Shape.takeError()));
  if (!Shape->Extent[0])
    return Refuse("its bound is not over the kernel's scalar parameters");
  return G;
}

bool launchOverGuard(Function &K, const Function &Guarded) {
  if (!K.Plan || K.Plan->SameLaunch) {
    auto Shape = analyzeShape(Guarded);
    if (!Shape) {
      llvm::consumeError(Shape.takeError());
      return false;
    }
    if (!Shape->Extent[0])
      return false;
    LaunchPlan &P = K.Plan ? *K.Plan : K.Plan.emplace();
    P.SameLaunch = false;
    P.GuardsDomain = true;
    P.Dims = 1;
    // The kernel reads no block built-in but its position, so any block
    // shape computes the same; the user's was sized for a grid-stride loop.
    P.Block = {256, 1};
    P.Coverage = {1, 1};
    P.Extent[0] = Shape->Extent[0];
  }
  // The optimized kernel's positions are ints where the input's iterator
  // may be wider: the launcher's check that the last tile's positions stay
  // below 2^31 sends a larger domain to the input's kernel.
  return K.Plan->Extent[0] != nullptr;
}

} // namespace gpumerge
