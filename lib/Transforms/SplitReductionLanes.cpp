//===- SplitReductionLanes.cpp - The split-reduction kernel ---------------===//
#include "Transforms/SplitReductionLanes.h"
#include "IR/Substitute.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {
namespace splitreduction {

namespace {

ExprPtr zeroOf(const Type &T) {
  if (T.Scalar == ScalarKind::Float)
    return std::make_unique<FloatLit>(0.0, "0.0f", T);
  if (T.Scalar == ScalarKind::Double)
    return std::make_unique<FloatLit>(0.0, "0.0", T);
  return intLit(0);
}

} // namespace

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

} // namespace splitreduction
} // namespace gpumerge
