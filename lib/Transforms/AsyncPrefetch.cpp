//===- AsyncPrefetch.cpp - The next tile into a second shared buffer ------===//
//
// async-prefetch: §3.6's prefetch without registers, on GPUs that copy
// global to shared memory asynchronously (cp.async, sm_80 and later). Each
// staged tile gets two buffers; while the block computes on one, the copies
// of the next tile into the other are in flight:
//
//   for (i0 = 0; i0 < B; i0 += 16) {       int stage = 0;
//     for (l = t; l < N; l += P)           if (0 < B) {
//       a_s[..l..] = a[..l..i0..];           for (l = t; l < N; l += P)
//     __syncthreads();               →         memcpy_async(&a_s[0][..l..],
//     ... compute on a_s ...                                &a[..l..0..]);
//     __syncthreads();                     }
//   }                                      __pipeline_commit();
//                                          for (i0 = 0; i0 < B; i0 += 16) {
//                                            if (i0 + 16 < B) {
//                                              for (l = t; l < N; l += P)
//                                                memcpy_async(
//                                                  &a_s[stage ^ 1][..l..],
//                                                  &a[..l..i0 + 16..]);
//                                            }
//                                            __pipeline_commit();
//                                            __pipeline_wait_prior(1);
//                                            __syncthreads();
//                                            ... compute on a_s[stage] ...
//                                            __syncthreads();
//                                            stage = stage ^ 1;
//                                          }
//
// A commit every iteration, empty in the last, keeps wait_prior(1) meaning
// "this tile's copies are done"; the first barrier makes every thread's
// copies visible to the block, the second keeps the next iteration's copies
// from overwriting the buffer others still read. The kernel is generated
// again with tiles half as deep (TileShape::LoopTile), so the two buffers
// take the shared memory one tile took and occupancy stays: the measured
// form (bench/experiments/mm-pipeline.cu: the h100 mm 4.69 -> 4.13 ms with
// 16-deep tiles in two stages; 3 or 4 stages of 8-deep tiles were slower).
//
// CUDA output only: OpenCL has no cp.async, and there the copies print as
// the assignments they are (so --verify on PoCL runs the two buffers and
// both barriers, with copies that complete at once). Kept only where ptxas
// finds no spills and no fewer blocks per SM than the kernel had.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Affine.h"
#include "CodeGen/Emitter.h"
#include "IR/Substitute.h"
#include "Target/MachineDescription.h"
#include "Transforms/LaunchFit.h"
#include "Transforms/Passes.h"
#include "Transforms/StagedLoop.h"
#include "Transforms/Tiling.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

namespace gpumerge {

namespace {

/// Floating-point operations per copied element below which a tile loop is
/// left alone (see DoubleBuffer::run).
constexpr int MinArithmeticPerCopy = 32;

/// Prepends \p Index to every reference under \p S to an array in \p Tiles.
void addBufferIndex(Stmt &S, const std::set<std::string> &Tiles,
                    const Expr &Index) {
  std::function<void(ExprPtr &)> InExpr = [&](ExprPtr &E) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(E.get());
        R && R->Space == AddressSpace::Shared && Tiles.count(R->Array))
      R->Indices.insert(R->Indices.begin(), Index.clone());
    E->forEachChild(InExpr);
  };
  std::function<void(Stmt &)> InStmt = [&](Stmt &X) {
    X.forEachExpr(InExpr);
    X.forEachStmt([&](StmtPtr &C) { InStmt(*C); });
  };
  InStmt(S);
}

/// The copy `s[..] = g[..]` of a cooperative load loop.
AssignStmt &copyOf(ForStmt &L) {
  if (auto *B = llvm::dyn_cast<BlockStmt>(L.Body.get()))
    return llvm::cast<AssignStmt>(*B->Body.front());
  return llvm::cast<AssignStmt>(*L.Body);
}

/// Floating-point operations under \p S, loops counted by their constant
/// trip counts (the tile's inner loop: i0 to i0 + T).
double arithmetic(Stmt &S) {
  if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
    double Trip = 1;
    ExprPtr Span = binary(BinaryOp::Sub, L->Bound->clone(), L->Init->clone());
    AffineContext Ctx; // the counts cancel: i0 + 16 - i0
    walkExpr(*Span, [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Ctx.Symbols.insert(V->Name);
    });
    if (L->hasConstantStep() && L->Step > 0 && L->CondOp == BinaryOp::LT)
      if (auto N = toAffine(*Span, Ctx); N && N->isConstant())
        Trip = double((N->constantTerm() + L->Step - 1) / L->Step);
    return Trip * arithmetic(*L->Body);
  }
  double Ops = 0;
  S.forEachExpr([&](ExprPtr &E) {
    walkExpr(*E, [&](const Expr &X) {
      if (auto *B = llvm::dyn_cast<BinaryExpr>(&X))
        Ops += B->getType().isFloating() &&
               (B->Op == BinaryOp::Add || B->Op == BinaryOp::Sub ||
                B->Op == BinaryOp::Mul || B->Op == BinaryOp::Div);
    });
  });
  if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
    Ops += A->LHS->getType().isFloating() && A->Op != AssignOp::Set;
  S.forEachStmt([&](StmtPtr &C) { Ops += arithmetic(*C); });
  return Ops;
}

/// \p E in the block's terms where it is `r * X + threadIdx.x` over a row r
/// (threadIdx.y, or one divided or taken modulo a constant) divided by or
/// taken modulo a multiple q * X of the block's width X: r / q, and
/// r % q * X + threadIdx.x (threadIdx.x where q is 1), since r >= 0 and
/// threadIdx.x < X. Null for any other \p E. How a copy loop's counter
/// splits into a tile's row and column (`threadIdx.y / 8`), and how b's
/// tile, stored by groups of columns, divides the column again.
ExprPtr inBlockTerms(const BinaryExpr &E, std::int64_t X) {
  std::function<bool(const Expr &)> IsRow = [&](const Expr &R) {
    if (auto *T = llvm::dyn_cast<BuiltinRef>(&R))
      return T->Which == Builtin::Tidy;
    auto *B = llvm::dyn_cast<BinaryExpr>(&R);
    auto *N = B ? llvm::dyn_cast<IntLit>(B->RHS.get()) : nullptr;
    return B && (B->Op == BinaryOp::Div || B->Op == BinaryOp::Rem) && N &&
           N->Value > 0 && IsRow(*B->LHS);
  };
  auto *D = llvm::dyn_cast<IntLit>(E.RHS.get());
  auto *Sum = llvm::dyn_cast<BinaryExpr>(E.LHS.get());
  if ((E.Op != BinaryOp::Div && E.Op != BinaryOp::Rem) || X <= 0 || !D ||
      D->Value <= 0 || D->Value % X || !Sum || Sum->Op != BinaryOp::Add)
    return nullptr;
  auto *Row = llvm::dyn_cast<BinaryExpr>(Sum->LHS.get());
  auto *Width = Row ? llvm::dyn_cast<IntLit>(Row->RHS.get()) : nullptr;
  auto *Tx = llvm::dyn_cast<BuiltinRef>(Sum->RHS.get());
  if (!Row || Row->Op != BinaryOp::Mul || !Width || Width->Value != X ||
      !IsRow(*Row->LHS) || !Tx || Tx->Which != Builtin::Tidx)
    return nullptr;
  std::int64_t Q = D->Value / X;
  if (E.Op == BinaryOp::Div)
    return Q == 1 ? Row->LHS->clone()
                  : binary(BinaryOp::Div, Row->LHS->clone(), intLit(Q));
  if (Q == 1)
    return builtin(Builtin::Tidx);
  return add(
      mul(binary(BinaryOp::Rem, Row->LHS->clone(), intLit(Q)), intLit(X)),
      builtin(Builtin::Tidx));
}

/// \p C's loop counted by its trips, where its bound is a whole number of
/// steps: `for (m = 0; m < N / P; m++)` unrolled, with l = t + m * P, and
/// where P is a multiple of W, `l / W` as `t / W + m * (P / W)` and `l % W`
/// as `t % W` (exact, since every thread's start t is in [0, P)), in the
/// block's terms where they can be (inBlockTerms). Rolled,
/// `for (l = t; l < N; l += P)` spent a third of the h100 mm's tile step on
/// each copy's division of l and loop control (bench-static: 413 other
/// instructions beside 1024 FFMAs, where ncu measured 68% of issue slots
/// busy); counted, each copy's addresses are the first's plus constants
/// (75), and ptxas keeps the registers under __launch_bounds__. Null where
/// N is not a multiple of P. \p M names the counter; \p BlockX is the
/// block's width (blockDim.x).
StmtPtr countedCopyLoop(const CoopLoad &C, const std::string &M,
                        std::int64_t BlockX) {
  if (C.Step <= 0 || C.Bound % C.Step)
    return nullptr;
  const ForStmt &L = *C.Loop;
  StmtPtr Body = L.Body->clone();
  std::function<void(Stmt &)> Rewrite = [&](Stmt &S) {
    S.forEachExpr([&](ExprPtr &E) {
      E = rewriteExpr(std::move(E), [&](Expr &Node) -> ExprPtr {
        auto *B = llvm::dyn_cast<BinaryExpr>(&Node);
        if (!B)
          return nullptr;
        if (ExprPtr Split = inBlockTerms(*B, BlockX))
          return Split;
        auto *V = llvm::dyn_cast<VarRef>(B->LHS.get());
        auto *W = llvm::dyn_cast<IntLit>(B->RHS.get());
        if ((B->Op != BinaryOp::Div && B->Op != BinaryOp::Rem) || !V ||
            V->Name != L.Iter || !W || W->Value <= 0 || C.Step % W->Value)
          return nullptr;
        ExprPtr Part = binary(B->Op, L.Init->clone(), intLit(W->Value));
        if (ExprPtr Split = inBlockTerms(llvm::cast<BinaryExpr>(*Part), BlockX))
          Part = std::move(Split);
        if (B->Op == BinaryOp::Rem)
          return Part;
        return add(std::move(Part), mul(var(M), intLit(C.Step / W->Value)));
      });
    });
    S.forEachStmt([&](StmtPtr &Child) { Rewrite(*Child); });
  };
  Rewrite(*Body);
  substituteVar(*Body, L.Iter,
                *add(L.Init->clone(), mul(var(M), intLit(C.Step))));
  auto Counted = std::make_unique<ForStmt>();
  Counted->Iter = M;
  Counted->Init = intLit(0);
  Counted->Bound = intLit(C.Bound / C.Step);
  Counted->Body = std::move(Body);
  Counted->UnrollFull = true;
  return Counted;
}

class DoubleBuffer {
public:
  /// \p Count: copy loops of whole steps counted and unrolled
  /// (countedCopyLoop); otherwise every copy loop rolled.
  DoubleBuffer(Function &G, bool Count)
      : G(G), Count(Count), Taken(declaredNames(G)) {}

  /// Rewrites G's staged loop to two buffers; false with \p Why where it
  /// has no loop of the shape or one this cannot rewrite.
  bool run(std::string &Why) {
    auto S = findStagedLoop(G, Why);
    if (!S)
      return false;
    ForStmt &Tile = *S->Tile;
    if (Tile.CondOp != BinaryOp::LT) {
      Why = "the loop over " + Tile.Iter + " is not counted with <";
      return false;
    }
    for (const CoopLoad &C : S->Loads) {
      auto *To = llvm::cast<ArrayRef>(C.Copy->LHS.get());
      unsigned Bytes = To->getType().elementBytes();
      if (Bytes != 4 && Bytes != 8 && Bytes != 16) {
        Why = llvm::formatv("'{0}' has {1}-byte elements: cp.async copies 4, "
                            "8 or 16 bytes",
                            To->Array, Bytes);
        return false;
      }
      if (const auto *From = llvm::dyn_cast<ArrayRef>(C.Copy->RHS.get())) {
        const Param *P = G.findParam(From->Array);
        if (P && P->Ty.IsVolatile) {
          Why = "'" + From->Array + "' is volatile (cp.async reads it " +
                "through a const void *)";
          return false;
        }
      }
      Tiles.insert(To->Array);
    }
    if (!onlyInLoop(*S, Why) || !endsWithBarrier(*S, Why))
      return false;
    // What was measured: the h100 mm's 8x8 outputs per thread, 64 FMAs
    // (128 operations) per element a thread copies. A loop that computes
    // little per copy is bound by memory, where two buffers of tiles half
    // as deep add a barrier per tile for latency the block's other warps
    // already hide: not measured, so left as it is.
    std::int64_t Copies = 0;
    for (const CoopLoad &C : S->Loads)
      Copies += (C.Bound + C.Step - 1) / C.Step;
    double Ops = 0;
    for (size_t J = S->FirstSync + 1; J < S->Body->Body.size(); ++J)
      Ops += arithmetic(*S->Body->Body[J]);
    PerCopy = Copies ? Ops / double(Copies) : 0;
    if (PerCopy < MinArithmeticPerCopy) {
      Why = llvm::formatv("the loop over {0} does {1:F1} floating-point "
                          "operations per element a thread copies, under "
                          "{2}: bound by memory, not by the tiles' latency",
                          Tile.Iter, PerCopy, MinArithmeticPerCopy);
      return false;
    }

    std::string Stage = uniqueName(Taken, "stage", "_");
    auto StageVar = [&] { return var(Stage); };
    // Every tile twice: the computation reads buffer `stage`.
    for (DeclStmt *D : Decls) {
      D->Extents.insert(D->Extents.begin(), 2);
      std::int64_t Words = 1;
      for (std::int64_t X : D->Extents)
        Words *= X;
      G.Plan->SharedBytes += Words / 2 * D->Ty.elementBytes();
    }
    BlockStmt &Body = *S->Body;
    for (size_t J = S->FirstSync + 1; J < Body.Body.size(); ++J)
      addBufferIndex(*Body.Body[J], Tiles, *StageVar());

    // The loads: the first tile's before the loop into buffer 0, the next
    // tile's in the loop into the other buffer, all asynchronous.
    auto Next = add(var(Tile.Iter, Tile.IterType), intLit(Tile.Step));
    // Each tile's copy loop as both batches of copies print it.
    std::string Trip = uniqueName(Taken, "m", "_");
    std::vector<StmtPtr> CopyLoops;
    for (const CoopLoad &C : S->Loads) {
      StmtPtr L =
          Count ? countedCopyLoop(C, Trip, G.Plan->threads(0)) : nullptr;
      Counted += L != nullptr;
      if (!L) {
        // Unrolled with l's divisions, each copy's two addresses would stay
        // in registers across the loop (the h100 mm: 164 registers; 76
        // bytes spilled under __launch_bounds__(256, 2)).
        L = C.Loop->clone();
        llvm::cast<ForStmt>(*L).Unroll = 1;
      }
      CopyLoops.push_back(std::move(L));
    }
    Loops = unsigned(CopyLoops.size());
    auto Loads = [&](const Expr &TilePos, const Expr &Buffer) {
      auto Then = std::make_unique<BlockStmt>();
      for (const StmtPtr &Loop : CopyLoops) {
        StmtPtr L = Loop->clone();
        AssignStmt &Copy = copyOf(llvm::cast<ForStmt>(*L));
        Copy.RHS = simplifyExpr(
            substituteVar(std::move(Copy.RHS), Tile.Iter, TilePos));
        auto *To = llvm::cast<ArrayRef>(Copy.LHS.get());
        To->Indices.insert(To->Indices.begin(), Buffer.clone());
        Copy.Async = true;
        Then->Body.push_back(std::move(L));
      }
      return std::make_unique<IfStmt>(
          binary(BinaryOp::LT, TilePos.clone(), Tile.Bound->clone()),
          std::move(Then), nullptr);
    };
    auto Commit = [] {
      return std::make_unique<PipelineStmt>(PipelineStmt::Op::Commit);
    };

    std::vector<StmtPtr> Before;
    Before.push_back(std::make_unique<DeclStmt>(
        Stage, Type::scalar(ScalarKind::Int), intLit(0)));
    Before.push_back(Loads(*Tile.Init, *intLit(0)));
    Before.push_back(Commit());

    // The loop: the next tile's copies, then this one's wait (the loads as
    // written go).
    std::vector<StmtPtr> NewBody;
    NewBody.push_back(
        Loads(*Next, *binary(BinaryOp::BitXor, StageVar(), intLit(1))));
    NewBody.push_back(Commit());
    NewBody.push_back(
        std::make_unique<PipelineStmt>(PipelineStmt::Op::WaitPrior, 1));
    for (size_t J = S->FirstSync; J < Body.Body.size(); ++J)
      NewBody.push_back(std::move(Body.Body[J]));
    NewBody.push_back(std::make_unique<AssignStmt>(
        StageVar(), AssignOp::Set,
        binary(BinaryOp::BitXor, StageVar(), intLit(1))));
    Body.Body = std::move(NewBody);

    S->Outer->Body.insert(S->Outer->Body.begin() + S->At,
                          std::make_move_iterator(Before.begin()),
                          std::make_move_iterator(Before.end()));
    Loop = Tile.Iter;
    return true;
  }

  std::set<std::string> Tiles;
  std::string Loop;
  double PerCopy = 0;
  unsigned Loops = 0;   ///< copy loops, one per tile
  unsigned Counted = 0; ///< of them, counted and unrolled

private:
  Function &G;
  bool Count;
  std::set<std::string> Taken;
  std::vector<DeclStmt *> Decls;

  /// References to the tiles under \p S.
  unsigned tileRefs(Stmt &S) const {
    unsigned N = 0;
    walkExprs(S, [&](const Expr &X) {
      if (auto *R = llvm::dyn_cast<ArrayRef>(&X))
        N += R->Space == AddressSpace::Shared && Tiles.count(R->Array);
    });
    return N;
  }

  /// The tiles are declared once as shared arrays (Decls) and used in the
  /// tile loop only, where after the loads they are only read.
  bool onlyInLoop(const StagedLoop &S, std::string &Why) {
    walkStmts(*G.Body, [&](Stmt &X) {
      if (auto *D = llvm::dyn_cast<DeclStmt>(&X);
          D && Tiles.count(D->Name) && !D->Extents.empty())
        Decls.push_back(D);
    });
    bool Written = false;
    for (size_t J = S.FirstSync + 1; J < S.Body->Body.size(); ++J)
      walkStmts(*S.Body->Body[J], [&](Stmt &X) {
        if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
          if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
            Written |= Tiles.count(R->Array) > 0;
      });
    if (tileRefs(*G.Body) != tileRefs(*S.Tile) || Written ||
        Decls.size() != Tiles.size()) {
      Why = "the tiles of the loop over " + S.Tile->Iter +
            " are used outside it or written after their loads";
      return false;
    }
    return true;
  }

  /// The loop body ends with the barrier after the computation, and leaves
  /// only through its end.
  bool endsWithBarrier(const StagedLoop &S, std::string &Why) {
    bool Jumps = false;
    walkStmts(*S.Body, [&](Stmt &X) {
      Jumps |= llvm::isa<JumpStmt>(X) || llvm::isa<ReturnStmt>(X) ||
               llvm::isa<PipelineStmt>(X);
    });
    if (Jumps || !llvm::isa<SyncStmt>(*S.Body->Body.back()) ||
        S.Body->Body.size() == S.FirstSync + 1) {
      Why = "the loop over " + S.Tile->Iter +
            " does not end with a barrier after its computation";
      return false;
    }
    return true;
  }
};

/// Why \p F cannot take the rewrite at all, or empty.
std::string unsuitable(const Function &F, const PassContext &Ctx) {
  if (Ctx.Output != Language::Cuda)
    return "OpenCL has no asynchronous copies to shared memory";
  if (!hasAsyncCopy(Ctx.Target))
    return Ctx.Target.Name +
           " has no asynchronous copies to shared memory (cp.async needs "
           "sm_80 or later)";
  if (!F.Plan || F.Plan->SameLaunch || !F.Plan->Origin || F.Plan->LoopTile == 0)
    return "no loop over tiles staged through shared memory";
  if (F.Plan->LoopTile < 8 || F.Plan->LoopTile % 2)
    return llvm::formatv("tiles of {0} iterations are too short to halve",
                         F.Plan->LoopTile);
  return "";
}

/// One try at the rewrite: \p Origin generated again with \p Shape's
/// tiles, in two buffers, the copies counted or not (\p Count, DoubleBuffer),
/// checked against shared memory and, with ptxas, against \p Before's
/// blocks per SM. Not Ok where it failed, with \p Why; Misfit says how it
/// did not fit where that is why.
struct Attempt {
  bool Ok = false;
  std::unique_ptr<Function> Kernel; ///< what Buffers rewrote
  std::unique_ptr<DoubleBuffer> Buffers;
  std::string Fits, Misfit;
};
Attempt doubleBuffered(const Function &Origin, const TileShape &Shape,
                       const MachineDescription &MD,
                       const std::vector<const Function *> &Helpers,
                       const std::optional<LaunchFit> &Before, bool Count,
                       std::string &Why) {
  Attempt A;
  auto Half = generateTiled(Origin, Shape, MD);
  if (!Half) {
    Why = llvm::formatv("tiles of {0}: {1}", Shape.LoopTile,
                        llvm::toString(Half.takeError()));
    return A;
  }
  A.Kernel = std::move(Half->Kernel);
  Function &G = *A.Kernel;
  A.Buffers = std::make_unique<DoubleBuffer>(G, Count);
  if (!A.Buffers->run(Why))
    return A;
  if (G.Plan->SharedBytes > staticSharedLimit(MD)) {
    Why = llvm::formatv("two buffers take {0} bytes of shared memory, more "
                        "than the {1} a block may declare",
                        G.Plan->SharedBytes, staticSharedLimit(MD));
    return A;
  }
  auto After = launchFit(G, MD, 0, Helpers);
  // ptxas may spend registers on the copies' addresses that cost a block
  // per SM: bound them to what the blocks allow (the measured form had
  // __launch_bounds__(256, 2)), if nothing spills then.
  if (Before && After && After->fromPtxas() &&
      After->BlocksPerSM < Before->BlocksPerSM) {
    G.Plan->MinBlocksPerSM = Before->BlocksPerSM;
    After = launchFit(G, MD, 0, Helpers);
  }
  if (!Before || !After) {
    Why = "ptxas could not compile the kernel alone to count its registers";
    return A;
  }
  A.Fits = llvm::formatv(
      "{0} registers ({1}{5}), {2} bytes of shared memory, {3} blocks/SM; "
      "{4} before",
      After->Registers, After->Source, G.Plan->SharedBytes, After->BlocksPerSM,
      Before->BlocksPerSM,
      G.Plan->MinBlocksPerSM
          ? llvm::formatv(", __launch_bounds__ for {0} blocks",
                          G.Plan->MinBlocksPerSM)
                .str()
          : std::string());
  if (After->SpillBytes > 0 || After->BlocksPerSM < Before->BlocksPerSM) {
    A.Misfit =
        A.Fits +
        (After->SpillBytes
             ? llvm::formatv(", {0} bytes spilled", After->SpillBytes).str()
             : std::string());
    Why = "the two buffers do not fit: " + A.Misfit;
    return A;
  }
  if (After->fromPtxas()) {
    G.Plan->PtxasSource = After->Source;
    G.Plan->PtxasRegisters = After->Registers;
    G.Plan->PtxasSpillBytes = After->SpillBytes;
  }
  A.Ok = true;
  return A;
}

} // namespace

PassInfo asyncPrefetchPass() {
  return {"async-prefetch",
          "copy the next shared-memory tile into a second buffer with cp.async "
          "(sm_80 and later) while the block computes on the current one, the "
          "tiles half as deep",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            Why = unsuitable(F, Ctx);
            if (!Why.empty())
              return std::nullopt;
            // Only a kernel generateTiled made as its plan says can be made
            // again with half the tile (not halo-tile's, say).
            const Function &Origin = tilingOrigin(F);
            TileShape Shape = generatedShape(*F.Plan);
            auto Same = generateTiled(Origin, Shape, Ctx.Target);
            if (!Same || emitFunction(*Same->Kernel, Language::Cuda) !=
                             emitFunction(F, Language::Cuda)) {
              if (!Same)
                llvm::consumeError(Same.takeError());
              Why = "the kernel is not the tiled one its plan describes";
              return std::nullopt;
            }
            Shape.LoopTile /= 2;
            auto Before = launchFit(F, Ctx.Target, 0, Ctx.Helpers);
            // The copies counted and unrolled, else (where ptxas then needs
            // registers the blocks do not have) rolled.
            Attempt A = doubleBuffered(Origin, Shape, Ctx.Target, Ctx.Helpers,
                                       Before, true, Why);
            std::string CountedMisfit;
            if (!A.Ok && !A.Misfit.empty() && A.Buffers->Counted) {
              CountedMisfit = A.Misfit;
              A = doubleBuffered(Origin, Shape, Ctx.Target, Ctx.Helpers, Before,
                                 false, Why);
            }
            if (!A.Ok)
              return std::nullopt;
            Function &G = *A.Kernel;
            DoubleBuffer &D = *A.Buffers;
            std::string Copies =
                D.Counted
                    ? llvm::formatv("{0} of {1} counted and unrolled",
                                    D.Counted, D.Loops)
                          .str()
                    : "rolled" + (CountedMisfit.empty()
                                      ? std::string()
                                      : " (counted, two buffers do not fit: " +
                                            CountedMisfit + ")");
            if (G.Plan->ShapeFixedBy.empty())
              G.Plan->ShapeFixedBy = F.Plan->ShapeFixedBy;
            std::int64_t Depth = Shape.LoopTile;
            F = std::move(G);
            return AppliedPass{
                "async-prefetch",
                {{"loop", D.Loop},
                 {"buffers", llvm::join(D.Tiles, ", ") + ": two each"},
                 {"tile", llvm::formatv("{0} iterations ({1} before)", Depth,
                                        Depth * 2)},
                 {"arithmetic",
                  llvm::formatv("{0:F1} floating-point operations per element "
                                "copied",
                                D.PerCopy)},
                 {"copies", Copies},
                 {"fits", A.Fits}}};
          }};
}

} // namespace gpumerge
