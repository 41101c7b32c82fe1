//===- StagedLoop.cpp - A loop over tiles staged through shared memory ----===//
#include "Transforms/StagedLoop.h"

#include "Analysis/Affine.h"
#include "IR/Evaluate.h"

namespace gpumerge {

std::set<std::string> namesDefinedIn(Stmt &S) {
  std::set<std::string> R;
  walkStmts(S, [&](Stmt &X) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
      R.insert(D->Name);
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        R.insert(V->Name);
    if (auto *L = llvm::dyn_cast<ForStmt>(&X))
      R.insert(L->Iter);
  });
  return R;
}

namespace {

class Finder {
public:
  explicit Finder(Function &F) : F(F) {}

  std::optional<StagedLoop> visit(BlockStmt &B, std::string &Why) {
    for (size_t I = 0; I < B.Body.size(); ++I) {
      auto *L = llvm::dyn_cast<ForStmt>(B.Body[I].get());
      if (L)
        if (auto Found = match(B, I, *L, Why))
          return Found;
      std::optional<StagedLoop> Found;
      B.Body[I]->forEachStmt([&](StmtPtr &S) {
        if (!Found)
          if (auto *Inner = llvm::dyn_cast<BlockStmt>(S.get()))
            Found = visit(*Inner, Why);
      });
      if (Found)
        return Found;
    }
    return std::nullopt;
  }

private:
  Function &F;

  /// The cooperative load loop \p S, when it has the shape.
  std::optional<CoopLoad> coopLoad(Stmt &S, ForStmt &Tile) {
    auto *L = llvm::dyn_cast<ForStmt>(&S);
    if (!L || !L->hasConstantStep() || L->CondOp != BinaryOp::LT ||
        L->Step <= 0)
      return std::nullopt;
    auto *N = llvm::dyn_cast<IntLit>(L->Bound.get());
    auto *Blk = llvm::dyn_cast<BlockStmt>(L->Body.get());
    Stmt *Only = Blk && Blk->Body.size() == 1 ? Blk->Body[0].get()
                 : Blk                        ? nullptr
                                              : L->Body.get();
    auto *A = Only ? llvm::dyn_cast<AssignStmt>(Only) : nullptr;
    if (!N || !A || A->Op != AssignOp::Set)
      return std::nullopt;
    auto *To = llvm::dyn_cast<ArrayRef>(A->LHS.get());
    auto *From = llvm::dyn_cast<ArrayRef>(A->RHS.get());
    if (!To || !From || To->Space != AddressSpace::Shared ||
        From->Space != AddressSpace::Global)
      return std::nullopt;
    // The start is this thread's slot: 0 <= t < P for every thread.
    AffineContext Ctx;
    auto T = toAffine(*L->Init, Ctx);
    if (!T || !F.Plan)
      return std::nullopt;
    std::int64_t Max = 0;
    for (const auto &[Mono, Coef] : T->Terms) {
      if (Mono.empty()) {
        Max += Coef;
        continue;
      }
      if (Mono.size() != 1 || Coef < 0 ||
          Mono[0].VarKind != AffineVar::Kind::Thread)
        return std::nullopt;
      unsigned D = Mono[0].Name == "tidx" ? 0 : Mono[0].Name == "tidy" ? 1 : 2;
      if (D == 2)
        return std::nullopt;
      Max += Coef * (F.Plan->Block[D] - 1);
    }
    if (T->constantTerm() < 0 || Max >= L->Step)
      return std::nullopt;
    // The load reads only the slot, the tile position and what the tile
    // loop does not change.
    std::set<std::string> Changing = namesDefinedIn(*Tile.Body);
    bool Invariant = true;
    walkExpr(*From, [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Invariant &= V->Name == L->Iter || V->Name == Tile.Iter ||
                     !Changing.count(V->Name);
      if (auto *R = llvm::dyn_cast<ArrayRef>(&X); R && R != From)
        Invariant = false;
    });
    if (!Invariant)
      return std::nullopt;
    return CoopLoad{L, A, N->Value, L->Step};
  }

  std::optional<StagedLoop> match(BlockStmt &Outer, size_t At, ForStmt &Tile,
                                  std::string &Why) {
    auto *Body = llvm::dyn_cast<BlockStmt>(Tile.Body.get());
    if (!Body || !Tile.hasConstantStep() || Tile.Step <= 0)
      return std::nullopt;
    // A constant trip count of one tile (a short loop tiled whole) has no
    // next tile to overlap with.
    if (auto Trip = evaluateInteger(
            *binary(BinaryOp::Sub, Tile.Bound->clone(), Tile.Init->clone()),
            {});
        Trip && Tile.CondOp == BinaryOp::LT && *Trip <= Tile.Step) {
      Why = "the loop over " + Tile.Iter +
            " is a single tile: there is no next tile to load";
      return std::nullopt;
    }
    StagedLoop S{&Outer, At, &Tile, Body, {}, 0};
    size_t I = 0;
    for (; I < Body->Body.size(); ++I) {
      auto C = coopLoad(*Body->Body[I], Tile);
      if (!C)
        break;
      S.Loads.push_back(*C);
    }
    if (S.Loads.empty())
      return std::nullopt;
    if (I == Body->Body.size() || !llvm::isa<SyncStmt>(*Body->Body[I])) {
      Why = "the loop over " + Tile.Iter +
            " does more than load its tiles before the first barrier";
      return std::nullopt;
    }
    S.FirstSync = I;
    return S;
  }
};

} // namespace

std::optional<StagedLoop> findStagedLoop(Function &F, std::string &Why) {
  Why = "no loop over tiles staged through shared memory";
  return Finder(F).visit(*F.Body, Why);
}

} // namespace gpumerge
