//===- SplitReductionLanes.h - The split-reduction kernel -------*- C++ -*-===//
//
// The split-reduction pass in two parts: Splitter finds the naive thread's
// summing loop and checks that lanes may share it (SplitReduction.cpp); it
// then writes the kernel where they do (SplitReductionLanes.cpp): the
// block's shape, each lane's share of the loop, the partial sums in shared
// memory added in a tree, and lane 0 going on as the naive thread.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_SPLITREDUCTIONLANES_H
#define GPUMERGE_TRANSFORMS_SPLITREDUCTIONLANES_H

#include "Analysis/Domain.h"
#include "IR/Kernel.h"
#include "Transforms/NaiveShape.h"
#include "Transforms/PassRegistry.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpumerge {
namespace splitreduction {

/// A sum the loop accumulates, declared before it.
struct Sum {
  std::string Name;
  Type Ty;
  unsigned Line = 0;  ///< of its declaration
  std::string Shared; ///< the partials' tile
};

/// The naive thread's guarded code around its loop.
struct Split {
  std::vector<StmtPtr> Before, After;
  std::unique_ptr<ForStmt> Loop;
  std::vector<Sum> Sums; ///< in the order of their declarations
  std::set<std::string> SumNames;
};

/// `assert(...)`: a check that reads values and writes nothing. Before the
/// loop, every lane makes it ahead of its share, as the naive thread did
/// ahead of the whole loop.
bool isAssert(const Stmt &S);
/// A literal zero.
bool isZero(const Expr &E);

class Splitter {
public:
  Splitter(const Function &F, const PassContext &Ctx) : F(F), Ctx(Ctx) {}

  std::optional<AppliedPass> run(std::unique_ptr<Function> &Out,
                                 std::string &Why);

private:
  const Function &F;
  const PassContext &Ctx;
  std::set<std::string> Taken;
  /// The block: one output (Single), or a warp per output (ByLanes), or a
  /// coalescing group of outputs; Outputs x Lanes threads.
  bool Single = false, ByLanes = false;
  std::int64_t Outputs = 0, Lanes = 0;
  std::string Lane; ///< the thread's lane, a local

  /// Why the kernel is not one to split (already tiled, a tile asked for,
  /// not 1-D, a fixed block, barriers, built-ins other than idx); its
  /// domain in \p D. Empty where it is one.
  std::string unsupported(KernelDomain &D) const;
  /// Outputs and Lanes. Lanes-fast: a warp per output. Outputs-fast: a
  /// coalescing group of outputs, and as many lanes as it takes to fill the
  /// GPU (256 to 1024 threads per block). One output: a block of 256
  /// lanes, fewer for a short loop.
  void chooseBlock(const KernelDomain &D, const ForStmt &L);
  /// The thread's output in the block.
  ExprPtr row() const;
  /// The thread's lane.
  ExprPtr laneRef() const { return var(Lane); }
  /// The element of \p Su's partials of lane \p LaneIdx of the thread's
  /// output.
  ExprPtr part(const Sum &Su, ExprPtr LaneIdx) const;
  /// The partials' tiles and the sums, declared at the top.
  void declareSums(const Split &S, LaunchPlan &Plan,
                   std::vector<StmtPtr> &Top) const;
  /// Each lane's share of the loop, under \p Guard: the declarations before
  /// it, and the loop from the lane's start, Lanes steps at a time.
  StmtPtr laneShare(Split &S, ExprPtr Guard) const;
  /// Each lane's partial into the tiles, then added in a tree.
  void addPartials(const Split &S, std::vector<StmtPtr> &Top) const;
  /// Lane 0 goes on as the naive thread, under \p Guard: what came before
  /// the loop, the sums set to their initial values plus the total, and
  /// what follows.
  StmtPtr laneZeroRest(Split &S, ExprPtr Guard) const;
  AppliedPass report(const Split &S, const std::string &LoopText) const;

  std::string fresh(const std::string &Base) {
    std::string N = Base;
    for (unsigned I = 2; Taken.count(N); ++I)
      N = Base + std::to_string(I);
    Taken.insert(N);
    return N;
  }

  std::optional<std::int64_t> tripCount(const ForStmt &L) const;
  bool whenWorthIt(const KernelDomain &D, const ForStmt &L, std::int64_t Lanes,
                   bool Single, std::string &Why) const;
  bool splitGuarded(NaiveShape &NS, Split &S, std::string &Why) const;
  bool checkLoopBody(Stmt &St, const std::set<std::string> &Sums,
                     std::set<std::string> &Local, std::string &Why) const;
  bool lanesFast(const ForStmt &L) const;
  /// \p E with the kernel's single-assignment locals inlined (`int n =
  /// w * h;`): an expression over the parameters, where it is one.
  ExprPtr inlined(const Expr &E) const {
    return simplifyExpr(inlineSingleAssignmentLocals(E, F));
  }
  /// The loop's step: its constant, or its expression over the parameters.
  ExprPtr stepOf(const ForStmt &L) const {
    return L.StepExpr ? inlined(*L.StepExpr) : intLit(L.Step);
  }
  bool risesByPositiveStep(const ForStmt &L, const NaiveShape &NS) const;
  std::shared_ptr<const Expr>
  termsBound(const ForStmt &L, const std::set<std::string> &Sums) const;
  ExprPtr termsIn(const Stmt &St, const std::set<std::string> &Sums,
                  std::vector<const ForStmt *> &Enclosing) const;
  ExprPtr tripBound(const ForStmt &L,
                    const std::vector<const ForStmt *> &Enclosing) const;
  bool overParameters(const Expr &E,
                      const std::set<std::string> &Iters = {}) const;
  std::optional<Precondition> iteratorFits(const ForStmt &L, std::int64_t Lanes,
                                           std::string &Why) const;
};

} // namespace splitreduction
} // namespace gpumerge

#endif
