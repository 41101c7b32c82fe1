//===- Prefetch.cpp - Load the next tile into registers (§3.6) ------------===//
//
// prefetch: in a loop over tiles staged through shared memory, each thread
// loads its part of the next tile into registers while the block computes
// on the current one (the paper's Fig. 14), so the global latency overlaps
// the arithmetic instead of following a barrier:
//
//   before (hd5870 mm: a's share of the tile loop; b's is alike):
//     for (int i0 = 0; i0 < k - k % 16; i0 += 16) {
//       for (int l = tidy * 16 + tidx; l < 2048; l += 256)
//         a_s[l / 16][l % 16] = a[(bidy * 128 + l / 16) * k + (i0 + l % 16)];
//       __syncthreads();
//       ... compute on a_s ...
//       __syncthreads();
//     }
//
//   after:
//     int l_0 = tidy * 16 + tidx;
//     float a_pf_0;
//     int l_1 = l_0 + 256;
//     float a_pf_1;
//     ...                                        // up to l_7, a_pf_7
//     if (0 < k - k % 16) {
//       a_pf_0 = a[(bidy * 128 + l_0 / 16) * k + l_0 % 16];
//       ...
//     }
//     for (int i0 = 0; i0 < k - k % 16; i0 += 16) {
//       a_s[l_0 / 16][l_0 % 16] = a_pf_0;
//       ...
//       __syncthreads();
//       if (i0 + 16 < k - k % 16) {
//         a_pf_0 = a[(bidy * 128 + l_0 / 16) * k + (i0 + 16 + l_0 % 16)];
//         ...
//       }
//       ... compute on a_s ...
//       __syncthreads();
//     }
//
// The cooperative load loops are unrolled into their per-thread slots: a
// loop `for (l = t; l < N; l += P)` with 0 <= t < P runs ceil(N / P) times,
// the slots past N / P guarded by `l_r < N`. One register per slot.
//
// Skipped, with the reason in the report, when the tile loop has another
// shape, when it would take more than 16 registers, or when they would not
// fit: ptxas (targets with an nvcc architecture) or the KIR estimate must
// show no spills, at least two blocks per SM and no fewer blocks per SM than
// without prefetching (the paper: merges often use the registers up, and
// then the gain is small).
//
//===----------------------------------------------------------------------===//
#include "IR/Substitute.h"
#include "Target/MachineDescription.h"
#include "Transforms/LaunchFit.h"
#include "Transforms/Passes.h"
#include "Transforms/StagedLoop.h"
#include "Transforms/Tiling.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

class Prefetcher {
public:
  Prefetcher(Function &F) : F(F), Taken(declaredNames(F)) {}

  /// Rewrites the first tile loop that has the shape; false (with Why)
  /// when there is none.
  bool run(std::string &Why) {
    auto S = findStagedLoop(F, Why);
    if (!S)
      return false;
    rewrite(*S);
    return true;
  }

  unsigned Slots = 0;
  std::vector<std::string> Arrays;
  std::string Loop;

private:
  Function &F;
  std::set<std::string> Taken;

  void rewrite(const StagedLoop &S) {
    ForStmt &Tile = *S.Tile;
    BlockStmt *Body = S.Body;
    const std::vector<CoopLoad> &Loads = S.Loads;
    size_t FirstSync = S.FirstSync;
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
    S.Outer->Body.insert(S.Outer->Body.begin() + S.At,
                         std::make_move_iterator(Before.begin()),
                         std::make_move_iterator(Before.end()));
    Loop = Tile.Iter;
  }
};

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
            if (hasAsyncCopies(F)) {
              Why = "async-prefetch copies the next tile already";
              return std::nullopt;
            }
            auto Before = launchFit(F, Ctx.Target, 0, Ctx.Helpers);
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
            auto After = launchFit(*Copy, Ctx.Target, P.Slots, Ctx.Helpers);
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
            if (After->fromPtxas()) {
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
