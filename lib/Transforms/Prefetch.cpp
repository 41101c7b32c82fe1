//===- Prefetch.cpp - Load the next tile into registers (§3.6) ------------===//
//
// prefetch: in a loop over tiles staged through shared memory, each thread
// loads its part of the next tile into registers while the block computes
// on the current one (the paper's Fig. 14), so the global latency overlaps
// the arithmetic instead of following a barrier:
//
//   for (i0 = 0; i0 < k; i0 += 32) {        int l_0 = tidy * 32 + tidx, ...;
//     for (l = tidy * 32 + tidx;            float a_pf_0, ...;
//          l < 2048; l += 512)              if (0 < k) { a_pf_0 =
//          a[..l_0..0..]; ... }
//       a_s[l / 32][l % 32] = a[..l..i0..]; for (i0 = 0; i0 < k; i0 += 32) {
//     __syncthreads();              →         a_s[l_0 / 32][l_0 % 32] = a_pf_0;
//     ... compute on a_s;                         __syncthreads();
//     __syncthreads();                        if (i0 + 32 < k) { a_pf_0 =
//     a[..l_0..i0 + 32..]; ... }
//   }                                         compute on a_s;
//                                             __syncthreads();
//                                           }
//
// The cooperative load loops are unrolled into their per-thread slots: a
// loop `for (l = t; l < N; l += P)` with 0 <= t < P runs ceil(N / P) times,
// the slots past N / P guarded by `l_r < N`. One register per slot.
//
// Skipped, with the reason in the report, when the tile loop has another
// shape, when it would take more than 16 registers, or when they would not
// fit: ptxas (targets with an nvcc
// architecture) or the KIR estimate must show no spills, at least two
// blocks per SM and no fewer blocks per SM than without prefetching (the
// paper: merges often use the registers up, and then the gain is small).
//
//===----------------------------------------------------------------------===//
#include "Analysis/Affine.h"
#include "CodeGen/Emitter.h"
#include "IR/Evaluate.h"
#include "IR/Substitute.h"
#include "Target/MachineDescription.h"
#include "Target/Occupancy.h"
#include "Target/Ptxas.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

/// One cooperative load loop `for (l = t; l < N; l += P) s[..l..] = g[..l..]`.
struct CoopLoad {
  const ForStmt *Loop;
  const AssignStmt *Copy;
  std::int64_t Bound = 0, Step = 0;
};

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

class Prefetcher {
public:
  Prefetcher(Function &F) : F(F), Taken(declaredNames(F)) {}

  /// Rewrites the first tile loop that has the shape; false (with Why)
  /// when there is none.
  bool run(std::string &Why) {
    Why = "no loop over tiles staged through shared memory";
    return visit(*F.Body, Why);
  }

  unsigned Slots = 0;
  std::vector<std::string> Arrays;
  std::string Loop;

private:
  Function &F;
  std::set<std::string> Taken;

  bool visit(BlockStmt &B, std::string &Why) {
    for (size_t I = 0; I < B.Body.size(); ++I) {
      auto *L = llvm::dyn_cast<ForStmt>(B.Body[I].get());
      if (L && rewrite(B, I, *L, Why))
        return true;
      bool Done = false;
      B.Body[I]->forEachStmt([&](StmtPtr &S) {
        if (!Done)
          if (auto *Inner = llvm::dyn_cast<BlockStmt>(S.get()))
            Done = visit(*Inner, Why);
      });
      if (Done)
        return true;
    }
    return false;
  }

  /// The cooperative load loop \p S, when it has the shape.
  std::optional<CoopLoad> coopLoad(const Stmt &S, const ForStmt &Tile) {
    auto *L = llvm::dyn_cast<ForStmt>(&S);
    if (!L || !L->hasConstantStep() || L->CondOp != BinaryOp::LT ||
        L->Step <= 0)
      return std::nullopt;
    auto *N = llvm::dyn_cast<IntLit>(L->Bound.get());
    auto *Blk = llvm::dyn_cast<BlockStmt>(L->Body.get());
    const Stmt *Only = Blk && Blk->Body.size() == 1 ? Blk->Body[0].get()
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

  bool rewrite(BlockStmt &Outer, size_t At, ForStmt &Tile, std::string &Why) {
    auto *Body = llvm::dyn_cast<BlockStmt>(Tile.Body.get());
    if (!Body || !Tile.hasConstantStep() || Tile.Step <= 0)
      return false;
    // A constant trip count of one tile (a short loop tiled whole) has no
    // next tile to overlap with.
    if (auto Trip = evaluateInteger(
            *binary(BinaryOp::Sub, Tile.Bound->clone(), Tile.Init->clone()),
            {});
        Trip && Tile.CondOp == BinaryOp::LT && *Trip <= Tile.Step) {
      Why = "the loop over " + Tile.Iter +
            " is a single tile: there is no next tile to load";
      return false;
    }
    // Cooperative loads, then the barrier after them.
    std::vector<CoopLoad> Loads;
    size_t I = 0;
    for (; I < Body->Body.size(); ++I) {
      auto C = coopLoad(*Body->Body[I], Tile);
      if (!C)
        break;
      Loads.push_back(*C);
    }
    if (Loads.empty())
      return false;
    if (I == Body->Body.size() || !llvm::isa<SyncStmt>(*Body->Body[I])) {
      Why = "the loop over " + Tile.Iter +
            " does more than load its tiles before the first barrier";
      return false;
    }
    size_t FirstSync = I;

    std::vector<StmtPtr> Before, Prologue, Stores, NextLoads;
    auto Cond = [&](ExprPtr Pos) {
      return binary(Tile.CondOp, std::move(Pos), Tile.Bound->clone());
    };
    for (const CoopLoad &C : Loads) {
      auto *From = llvm::cast<ArrayRef>(C.Copy->RHS.get());
      std::int64_t Slots = (C.Bound + C.Step - 1) / C.Step;
      std::string Base = C.Loop->Iter;
      std::string First;
      for (std::int64_t R = 0; R < Slots; ++R) {
        std::string Slot =
            uniqueName(Taken, Base + "_" + std::to_string(R), "_");
        ExprPtr Pos =
            R == 0 ? C.Loop->Init->clone()
                   : add(var(First, C.Loop->IterType), intLit(R * C.Step));
        if (R == 0)
          First = Slot;
        Before.push_back(
            std::make_unique<DeclStmt>(Slot, C.Loop->IterType, std::move(Pos)));
        std::string Reg =
            uniqueName(Taken, From->Array + "_pf_" + std::to_string(R), "_");
        Type RegTy = From->getType().element();
        Before.push_back(std::make_unique<DeclStmt>(Reg, RegTy));
        auto SlotVar = var(Slot, C.Loop->IterType);
        // Slots past N / P exist in some threads only.
        bool Guard = (R + 1) * C.Step > C.Bound;
        auto Guarded = [&](StmtPtr S) -> StmtPtr {
          if (!Guard)
            return S;
          auto Then = std::make_unique<BlockStmt>();
          Then->Body.push_back(std::move(S));
          return std::make_unique<IfStmt>(
              binary(BinaryOp::LT, SlotVar->clone(), intLit(C.Bound)),
              std::move(Then), nullptr);
        };
        auto LoadAt = [&](const Expr &TilePos) {
          ExprPtr E = substituteVar(From->clone(), C.Loop->Iter, *SlotVar);
          E = substituteVar(std::move(E), Tile.Iter, TilePos);
          return Guarded(std::make_unique<AssignStmt>(
              var(Reg, RegTy), AssignOp::Set, simplifyExpr(std::move(E))));
        };
        Prologue.push_back(LoadAt(*Tile.Init));
        NextLoads.push_back(
            LoadAt(*add(var(Tile.Iter, Tile.IterType), intLit(Tile.Step))));
        Stores.push_back(Guarded(std::make_unique<AssignStmt>(
            substituteVar(C.Copy->LHS->clone(), C.Loop->Iter, *SlotVar),
            AssignOp::Set, var(Reg, RegTy))));
        ++this->Slots;
      }
      Arrays.push_back(From->Array + " (" + std::to_string(Slots) +
                       (Slots == 1 ? " register)" : " registers)"));
    }

    // The tile loop: stores from the registers, barrier, next loads, rest.
    std::vector<StmtPtr> NewBody = std::move(Stores);
    NewBody.push_back(std::move(Body->Body[FirstSync]));
    auto Next = std::make_unique<BlockStmt>();
    Next->Body = std::move(NextLoads);
    NewBody.push_back(std::make_unique<IfStmt>(
        Cond(add(var(Tile.Iter, Tile.IterType), intLit(Tile.Step))),
        std::move(Next), nullptr));
    for (size_t J = FirstSync + 1; J < Body->Body.size(); ++J)
      NewBody.push_back(std::move(Body->Body[J]));
    Body->Body = std::move(NewBody);

    auto First = std::make_unique<BlockStmt>();
    First->Body = std::move(Prologue);
    Before.push_back(std::make_unique<IfStmt>(Cond(Tile.Init->clone()),
                                              std::move(First), nullptr));
    Outer.Body.insert(Outer.Body.begin() + At,
                      std::make_move_iterator(Before.begin()),
                      std::make_move_iterator(Before.end()));
    Loop = Tile.Iter;
    return true;
  }
};

/// Registers, spills and blocks per SM of \p F's launch: ptxas where the
/// target has an nvcc architecture, else the KIR estimate plus \p Extra.
struct Fit {
  unsigned Registers = 0, SpillBytes = 0, BlocksPerSM = 0;
  std::string Source;
};

std::optional<Fit> measure(const Function &F, const MachineDescription &MD,
                           unsigned Extra) {
  const LaunchPlan &P = *F.Plan;
  Fit R;
  R.Registers = P.EstimatedRegisters + Extra;
  R.Source = "estimate from KIR";
  bool HaveNvcc = false;
  if (!MD.SmArch.empty()) {
    auto N = findNvcc();
    HaveNvcc = bool(N);
    if (!N)
      llvm::consumeError(N.takeError());
  }
  if (HaveNvcc) {
    auto Res = ptxasResources(emitStandaloneCuda(F), MD.SmArch);
    if (!Res || !Res->count(F.Name)) {
      if (!Res)
        llvm::consumeError(Res.takeError());
      return std::nullopt;
    }
    const KernelResources &K = Res->at(F.Name);
    R.Registers = K.Registers;
    R.SpillBytes = K.SpillStoreBytes + K.SpillLoadBytes;
    R.Source = K.Source;
  }
  BlockResources B{unsigned(P.Block[0] * P.Block[1]), R.Registers,
                   unsigned(P.SharedBytes)};
  R.BlocksPerSM = computeOccupancy(MD, B).BlocksPerSM;
  return R;
}

/// Registers one thread may spend on the next tile: beyond this the merges'
/// accumulators lose theirs, whatever the occupancy estimate says.
constexpr unsigned MaxSlots = 16;

} // namespace

PassInfo prefetchPass() {
  return {"prefetch",
          "load the next shared-memory tile into registers while the block "
          "computes on the current one, when the registers allow",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            if (!F.Plan || F.Plan->SameLaunch) {
              Why = "no loop over tiles staged through shared memory";
              return std::nullopt;
            }
            auto Before = measure(F, Ctx.Target, 0);
            auto Copy = F.clone();
            Prefetcher P(*Copy);
            if (!P.run(Why))
              return std::nullopt;
            if (P.Slots > MaxSlots) {
              Why = llvm::formatv("prefetching the {0} loop would take {1} "
                                  "registers per thread (at most {2})",
                                  P.Loop, P.Slots, MaxSlots);
              return std::nullopt;
            }
            auto After = measure(*Copy, Ctx.Target, P.Slots);
            if (!Before || !After) {
              Why = "ptxas could not compile the kernel alone to count its "
                    "registers";
              return std::nullopt;
            }
            std::string Fits = llvm::formatv(
                "{0} registers ({1}), {2} blocks/SM; {3} without prefetching",
                After->Registers, After->Source, After->BlocksPerSM,
                Before->BlocksPerSM);
            if (After->SpillBytes > 0 || After->BlocksPerSM < 2 ||
                After->BlocksPerSM < Before->BlocksPerSM) {
              Why = "registers are used up: " + Fits +
                    (After->SpillBytes ? llvm::formatv(", {0} bytes spilled",
                                                       After->SpillBytes)
                                             .str()
                                       : std::string());
              return std::nullopt;
            }
            Copy->Plan->EstimatedRegisters += P.Slots;
            if (After->Source != "estimate from KIR") {
              Copy->Plan->PtxasSource = After->Source;
              Copy->Plan->PtxasRegisters = After->Registers;
              Copy->Plan->PtxasSpillBytes = After->SpillBytes;
            }
            F = std::move(*Copy);
            return AppliedPass{"prefetch",
                               {{"loop", P.Loop},
                                {"registers", llvm::join(P.Arrays, ", ")},
                                {"fits", Fits}}};
          }};
}

} // namespace gpumerge
