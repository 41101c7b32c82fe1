//===- Carving.cpp - Pareto pruning of the tuner's candidates -------------===//
#include "Driver/Carving.h"

#include "IR/Evaluate.h"
#include "IR/Substitute.h"
#include "Target/Occupancy.h"

#include <algorithm>
#include <cmath>

namespace gpumerge {

double carvingEfficiency(double Instr, double Threads) {
  return Instr > 0 && Threads > 0 ? 1.0 / (Instr * Threads) : 0;
}

double carvingUtilization(double Instr, double Regions, unsigned WarpsPerBlock,
                          unsigned BlocksPerSM) {
  if (Regions <= 0 || WarpsPerBlock == 0 || BlocksPerSM == 0)
    return 0;
  return Instr / Regions *
         ((double(WarpsPerBlock) - 1) / 2 +
          (double(BlocksPerSM) - 1) * double(WarpsPerBlock));
}

namespace {

/// Instructions and blocking points of one thread's run of a kernel.
class Counter {
public:
  Counter(const Function &K, const SizeBindings &Sizes) : K(K), Sizes(Sizes) {}

  void statement(const Stmt &S, double Trips) {
    if (auto *B = llvm::dyn_cast<BlockStmt>(&S)) {
      for (const StmtPtr &X : B->Body)
        statement(*X, Trips);
      return;
    }
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S)) {
      Instr += Trips;
      if (D->Init)
        expr(*D->Init, Trips);
      return;
    }
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S)) {
      Instr += Trips;
      expr(*A->RHS, Trips);
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
        for (const ExprPtr &I : R->Indices)
          expr(*I, Trips);
      return;
    }
    if (auto *E = llvm::dyn_cast<ExprStmt>(&S)) {
      expr(*E->E, Trips);
      return;
    }
    if (auto *I = llvm::dyn_cast<IfStmt>(&S)) {
      // The path of the threads inside the domain.
      expr(*I->Cond, Trips);
      statement(*I->Then, Trips);
      return;
    }
    if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
      expr(*L->Init, Trips);
      double N = trips(*L);
      Instr += 2 * Trips * N; // the test and the step
      statement(*L->Body, Trips * N);
      return;
    }
    if (llvm::isa<SyncStmt>(&S)) {
      Instr += Trips;
      Blocking += Trips;
    }
  }

  double Instr = 0;
  double Blocking = 0;

private:
  const Function &K;
  const SizeBindings &Sizes;

  void expr(const Expr &E, double Trips) {
    walkExpr(E, [&](const Expr &X) {
      if (llvm::isa<VarRef>(&X) || llvm::isa<IntLit>(&X) ||
          llvm::isa<FloatLit>(&X))
        return;
      Instr += Trips;
      if (auto *R = llvm::dyn_cast<ArrayRef>(&X);
          R && R->Space == AddressSpace::Global)
        Blocking += Trips; // the first use of a global load waits for it
    });
  }

  /// \p E at the tuned sizes, with the thread's own positions, locals and
  /// iterators at 0 (a tile's loop `i0 <= i < i0 + 32` runs 32 times
  /// whatever i0 is).
  std::optional<std::int64_t> value(const Expr &E) const {
    ExprPtr X = E.clone();
    for (Builtin B : {Builtin::Idx, Builtin::Idy, Builtin::Idz, Builtin::Tidx,
                      Builtin::Tidy, Builtin::Bidx, Builtin::Bidy})
      X = substituteBuiltin(std::move(X), B, *intLit(0));
    const LaunchPlan &P = *K.Plan;
    X = substituteBuiltin(std::move(X), Builtin::Bdimx, *intLit(P.threads(0)));
    X = substituteBuiltin(std::move(X), Builtin::Bdimy, *intLit(P.Block[1]));
    SizeBindings Values = Sizes;
    walkExpr(*X, [&](const Expr &Y) {
      if (auto *V = llvm::dyn_cast<VarRef>(&Y))
        Values.emplace(V->Name, 0);
    });
    return evaluateInteger(*X, Values);
  }

  double trips(const ForStmt &L) const {
    auto Init = value(*L.Init), Bound = value(*L.Bound);
    std::optional<std::int64_t> Step = L.Step;
    if (L.StepExpr)
      Step = value(*L.StepExpr);
    if (!Init || !Bound || !Step || *Step == 0)
      return 1;
    std::int64_t S = std::abs(*Step), Span = *Bound - *Init;
    if (*Step < 0)
      Span = -Span;
    if (L.CondOp == BinaryOp::LE || L.CondOp == BinaryOp::GE)
      Span += 1;
    return Span <= 0 ? 0 : double((Span + S - 1) / S);
  }
};

} // namespace

CarvingMetrics carvingMetrics(const Function &K, const MachineDescription &MD,
                              const SizeBindings &Sizes) {
  CarvingMetrics M;
  if (!K.Plan)
    return M;
  const LaunchPlan &P = *K.Plan;
  Counter C(K, Sizes);
  C.statement(*K.Body, 1);
  M.Instr = std::max(1.0, C.Instr);
  M.Regions = C.Blocking + 1;
  std::int64_t PerBlock = P.threads(0) * P.threads(1);
  M.Threads = double(PerBlock);
  for (unsigned D = 0; D < 2; ++D) {
    std::optional<std::int64_t> Extent;
    if (P.Extent[D])
      Extent = evaluateInteger(*P.Extent[D], Sizes);
    std::int64_t Tile = P.tile(D);
    if (Extent && *Extent > 0 && Tile > 0)
      M.Threads *= double((*Extent + Tile - 1) / Tile);
  }
  unsigned Regs =
      P.PtxasSource.empty() ? P.EstimatedRegisters : P.PtxasRegisters;
  Occupancy Occ =
      computeOccupancy(MD, {unsigned(PerBlock), Regs, unsigned(P.SharedBytes)});
  M.WarpsPerBlock =
      unsigned((PerBlock + MD.ThreadInWarp - 1) / MD.ThreadInWarp);
  M.BlocksPerSM = Occ.BlocksPerSM;
  M.Efficiency = carvingEfficiency(M.Instr, M.Threads);
  M.Utilization =
      carvingUtilization(M.Instr, M.Regions, M.WarpsPerBlock, M.BlocksPerSM);
  return M;
}

std::vector<bool> paretoFront(const std::vector<CarvingMetrics> &Ms) {
  std::vector<bool> Front(Ms.size(), true);
  for (size_t I = 0; I < Ms.size(); ++I)
    for (size_t J = 0; J < Ms.size() && Front[I]; ++J) {
      if (I == J)
        continue;
      const CarvingMetrics &A = Ms[J], &B = Ms[I];
      bool AtLeast =
          A.Efficiency >= B.Efficiency && A.Utilization >= B.Utilization;
      bool Better =
          A.Efficiency > B.Efficiency || A.Utilization > B.Utilization;
      // Equal pairs collapse to the first of them.
      if (AtLeast && (Better || J < I))
        Front[I] = false;
    }
  return Front;
}

} // namespace gpumerge
