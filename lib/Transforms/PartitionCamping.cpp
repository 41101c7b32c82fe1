//===- PartitionCamping.cpp - Diagonal block order against camping --------===//
//
// §3.7. Global memory is split into partitions of PartitionWidth bytes
// interleaved over MemoryPartitions controllers. When the blocks that run
// together (neighbours in X) start their accesses a multiple of
// PartitionWidth x MemoryPartitions bytes apart, they all hit one partition
// ("camping"). Only accesses that move with bidx are examined; the stride
// between bidx and bidx + 1 is the index's coefficient of idx times the
// tile width, evaluated at the kernel's `#pragma gpumerge size` hints.
//
// 2-D grids get the diagonal block order of Ruetsch and Micikevicius (the
// paper's newbidy = bidx, newbidx = (bidx + bidy) % gridDim.x, generalised
// so any grid shape stays a bijection):
//
//   before: x = blockIdx.x * blockDim.x + threadIdx.x; ...
//   after:  int gm_bid = blockIdx.x + gridDim.x * blockIdx.y;
//           int gm_bidy = gm_bid % gridDim.y;
//           int gm_bidx = (gm_bid / gridDim.y + gm_bidy) % gridDim.x;
//           x = gm_bidx * blockDim.x + threadIdx.x; ...
//
// 1-D grids get the offset rotation of Fig. 15(c) on the tiled loop, when
// its iterations only accumulate (the sums are reassociated, as in the
// paper).
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Domain.h"
#include "IR/Evaluate.h"
#include "IR/Substitute.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

/// The accesses whose neighbouring blocks in X land in one partition, at
/// the size hints; empty when none or when the sizes are unknown.
std::vector<std::string> campingAccesses(const Function &F,
                                         const MachineDescription &MD,
                                         std::int64_t TileX, std::string &Why) {
  // The accesses as the kernel makes them: after an interchange its X is
  // the naive Y.
  std::unique_ptr<Function> Swapped;
  if (F.Plan && F.Plan->Interchanged)
    Swapped = interchanged(tilingOrigin(F));
  const Function &Origin = Swapped ? *Swapped : tilingOrigin(F);
  std::vector<std::string> Found;
  std::map<std::string, std::int64_t> Sizes(Origin.SizeHints.begin(),
                                            Origin.SizeHints.end());
  std::int64_t Period = std::int64_t(MD.PartitionWidth) * MD.MemoryPartitions;
  bool Unknown = false;
  for (const Access &A : collectAccesses(Origin)) {
    if (!A.Index)
      continue;
    AffineForm C = A.Index->coefficientOf({AffineVar::Kind::Thread, "idx"});
    if (C.Terms.empty())
      continue;
    std::optional<std::int64_t> Coeff = C.asConstant();
    if (!Coeff) {
      // A symbolic stride (the row length h of out[x*h + y]): its value at
      // the hints.
      std::int64_t V = 0;
      bool Ok = true;
      for (const auto &[M, K] : C.Terms) {
        std::int64_t T = K;
        for (const AffineVar &Var : M) {
          auto It = Sizes.find(Var.Name);
          Ok &= It != Sizes.end();
          T *= Ok ? It->second : 0;
        }
        V += T;
      }
      if (!Ok) {
        Unknown = true;
        continue;
      }
      Coeff = V;
    }
    std::int64_t Stride = *Coeff * TileX * A.ElementBytes;
    if (Stride != 0 && Stride % Period == 0)
      Found.push_back(llvm::formatv("{0}[{1}] ({2} bytes between blocks)",
                                    A.Array, A.IndexText, Stride)
                          .str());
  }
  if (Found.empty())
    Why = Unknown
              ? "no size hints to evaluate the strides between blocks"
              : llvm::formatv("no access has blocks a multiple of {0} "
                              "bytes apart ({1} partitions of {2} bytes)",
                              Period, MD.MemoryPartitions, MD.PartitionWidth)
                    .str();
  return Found;
}

/// Is the body of \p L free of order: every scalar it carries across
/// iterations only accumulated with += or -= (reassociated, as the paper's
/// rotation does), nothing written to global memory?
bool orderFree(ForStmt &L, std::string &Why) {
  std::set<std::string> Inner, Accumulated;
  walkStmts(*L.Body, [&](Stmt &X) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
      Inner.insert(D->Name);
    if (auto *F = llvm::dyn_cast<ForStmt>(&X))
      Inner.insert(F->Iter);
  });
  bool Ok = true;
  walkStmts(*L.Body, [&](Stmt &X) {
    auto *A = llvm::dyn_cast<AssignStmt>(&X);
    if (!A)
      return;
    if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get())) {
      if (R->Space == AddressSpace::Global) {
        Ok = false;
        Why = "the loop writes global memory";
      }
      return;
    }
    auto *V = llvm::dyn_cast<VarRef>(A->LHS.get());
    if (!V || Inner.count(V->Name))
      return;
    if (A->Op != AssignOp::Add && A->Op != AssignOp::Sub) {
      Ok = false;
      Why = "'" + V->Name + "' carries a value across iterations";
    }
    Accumulated.insert(V->Name);
  });
  walkStmts(*L.Body, [&](Stmt &X) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
      walkExpr(*A->RHS, [&](const Expr &E) {
        if (auto *V = llvm::dyn_cast<VarRef>(&E))
          if (Accumulated.count(V->Name)) {
            Ok = false;
            Why = "'" + V->Name + "' is read while it accumulates";
          }
      });
  });
  return Ok;
}

/// 1-D grids, Fig. 15(c): each block starts the tiled loop at its own
/// offset (bidx tiles in) and wraps around, so neighbouring blocks read
/// different partitions at the same time.
///
///   for (int j0 = 0; j0 < w; j0 += 16) { ... }
/// becomes
///   for (int j0_r = 0; j0_r < w; j0_r += 16) {
///     int j0 = (j0_r + blockIdx.x * 16) % w;
///     ...
///   }
llvm::Expected<std::optional<AppliedPass>>
rotateTiledLoop(Function &F, const PassContext &Ctx, std::string &Why) {
  if (!F.Plan || F.Plan->SameLaunch || F.Plan->LoopTile <= 0) {
    Why = "1-D grid without a tiled loop: the offset rotation (Fig. 15c) "
          "needs one";
    return std::nullopt;
  }
  auto Found = campingAccesses(F, Ctx.Target, F.Plan->tile(0), Why);
  if (Found.empty())
    return std::nullopt;
  // The loop over tiles: its step is the plan's tile, or less when a
  // constant trip count was tiled by a divisor of it (loopTile); it holds
  // the barriers (the naive kernel has none of its own).
  ForStmt *L = nullptr;
  for (StmtPtr &S : F.Body->Body) {
    auto *X = llvm::dyn_cast<ForStmt>(S.get());
    if (!X || L || !X->hasConstantStep() || X->Step < 2 ||
        X->Step > F.Plan->LoopTile)
      continue;
    bool Barrier = false;
    walkStmts(*X->Body, [&](Stmt &Y) { Barrier |= llvm::isa<SyncStmt>(&Y); });
    if (Barrier)
      L = X;
  }
  if (!L || L->CondOp != BinaryOp::LT) {
    Why = "no tiled loop at the top of the kernel to rotate";
    return std::nullopt;
  }
  if (!orderFree(*L, Why))
    return std::nullopt;
  const std::int64_t T = L->Step;
  std::string Tile = L->Iter, Rotated = L->Iter + "_r";
  ExprPtr Trip = binary(BinaryOp::Sub, L->Bound->clone(), L->Init->clone());
  if (auto N = evaluateInteger(*Trip, {}); N && *N <= T) {
    Why = "the loop over " + Tile + " is a single tile: nothing to rotate";
    return std::nullopt;
  }
  ExprPtr Start =
      add(L->Init->clone(),
          binary(BinaryOp::Rem,
                 add(var(Rotated), mul(builtin(Builtin::Bidx), intLit(T))),
                 Trip->clone()));
  auto Decl = std::make_unique<DeclStmt>(Tile, L->IterType,
                                         simplifyExpr(std::move(Start)));
  auto *Body = llvm::cast<BlockStmt>(L->Body.get());
  Body->Body.insert(Body->Body.begin(), std::move(Decl));
  L->Iter = Rotated;
  L->Init = intLit(0);
  L->Bound = simplifyExpr(std::move(Trip));
  AppliedPass P{"partition-camping", {}};
  P.Parameters["order"] = "rotated loop (Fig. 15c)";
  P.Parameters["loop"] = Tile;
  P.Parameters["accesses"] = llvm::join(Found, "; ");
  return P;
}

} // namespace

PassInfo partitionCampingPass() {
  return {"partition-camping",
          "diagonal block order when neighbouring blocks hit one memory "
          "partition (§3.7)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            unsigned Dims = findDomain(tilingOrigin(F)).Dims;
            if (Dims != 2)
              return rotateTiledLoop(F, Ctx, Why);
            bool Planned = F.Plan && !F.Plan->SameLaunch;
            std::int64_t TileX = Planned ? F.Plan->tile(0) : 16;
            auto Found = campingAccesses(F, Ctx.Target, TileX, Why);
            if (Found.empty())
              return std::nullopt;
            bool Uses = false;
            walkExprs(*F.Body, [&](const Expr &E) {
              if (auto *B = llvm::dyn_cast<BuiltinRef>(&E))
                Uses |=
                    B->Which == Builtin::Gsizex || B->Which == Builtin::Gsizey;
            });
            if (Uses) {
              Why = "the kernel reads the grid size";
              return std::nullopt;
            }
            // The kernel now walks blocks in another order: it carries a plan
            // (launched as the naive one) so that verify and the launcher
            // know it derives from the naive kernel.
            sameLaunchPlan(F);
            // Positions in terms of block indices, then the new order.
            for (Builtin B : {Builtin::Idx, Builtin::Idy}) {
              bool X = B == Builtin::Idx;
              substituteBuiltin(
                  *F.Body, B,
                  *add(mul(builtin(X ? Builtin::Bidx : Builtin::Bidy),
                           builtin(X ? Builtin::Bdimx : Builtin::Bdimy)),
                       builtin(X ? Builtin::Tidx : Builtin::Tidy)));
            }
            substituteBuiltin(*F.Body, Builtin::Bidx, *var("gm_bidx"));
            substituteBuiltin(*F.Body, Builtin::Bidy, *var("gm_bidy"));
            std::vector<StmtPtr> Prologue;
            Prologue.push_back(std::make_unique<DeclStmt>(
                "gm_bid", Type::scalar(ScalarKind::Int),
                add(builtin(Builtin::Bidx),
                    mul(builtin(Builtin::Gdimx), builtin(Builtin::Bidy)))));
            Prologue.push_back(std::make_unique<DeclStmt>(
                "gm_bidy", Type::scalar(ScalarKind::Int),
                binary(BinaryOp::Rem, var("gm_bid"), builtin(Builtin::Gdimy))));
            Prologue.push_back(std::make_unique<DeclStmt>(
                "gm_bidx", Type::scalar(ScalarKind::Int),
                binary(BinaryOp::Rem,
                       add(binary(BinaryOp::Div, var("gm_bid"),
                                  builtin(Builtin::Gdimy)),
                           var("gm_bidy")),
                       builtin(Builtin::Gdimx))));
            for (StmtPtr &S : F.Body->Body)
              Prologue.push_back(std::move(S));
            F.Body->Body = std::move(Prologue);
            AppliedPass P{"partition-camping", {}};
            P.Parameters["order"] = "diagonal";
            P.Parameters["accesses"] = llvm::join(Found, "; ");
            return P;
          }};
}

} // namespace gpumerge
