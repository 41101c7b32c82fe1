//===- TileGenerator.h - The generator behind Tiling.h ----------*- C++ -*-===//
//
// Private to lib/Transforms: the generator generateTiled runs, shared by
// its two halves. TileStaging.cpp chooses the loop to tile and reads the
// chosen accesses through shared tiles (loads, padding, the tile loop);
// Tiling.cpp merges threads (the copies of each statement, their names)
// and assembles the kernel and its launch plan.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_TILEGENERATOR_H
#define GPUMERGE_TRANSFORMS_TILEGENERATOR_H

#include "Transforms/NaiveShape.h"
#include "Transforms/Tiling.h"

#include "Analysis/Accesses.h"
#include "Analysis/Extents.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

namespace gpumerge {
namespace tiling {

inline llvm::Error cannot(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why.str());
}

/// Adds the locals declared in \p S and its loops' iterators to \p Names.
void collectNames(Stmt &S, std::set<std::string> &Names);

//===----------------------------------------------------------------------===//
// Staging: the loop tiled and the accesses read through shared memory
//===----------------------------------------------------------------------===//

enum class ThreadClass { None, X, Y, Both };

struct Candidate {
  Access A;
  ThreadClass Class = ThreadClass::None;
  bool Uncoalesced = false;
  /// The iterator strides rows and the position runs along them (b[i*w +
  /// x] in mm): the tile is [T][threads], loaded along the position.
  bool IterRows = false;
};

struct LoopChoice {
  ForStmt *Loop = nullptr;       ///< in NaiveShape::Guarded
  std::int64_t Tile = 0;         ///< iterations per tile step
  bool ConstantTrip = false;     ///< the tile divides a literal trip count
  std::set<std::string> Uniform; ///< iterators of the loops around it
  std::vector<Candidate> Staged;
};

/// Placeholders for a copy's number in X and in Y, in statements built
/// before merging (a staged read's row); copyFor gives them their values.
inline constexpr const char *KxName = "__merge_kx";
inline constexpr const char *KyName = "__merge_ky";

/// Staged accesses A[f + m*i + n] with the same f and m: they share one
/// tile, whose columns start at the smallest n.
struct StageGroup {
  std::vector<const Candidate *> Members;
  std::int64_t M = 1, N0 = 0;
};

/// What staging a loop's reads gathers: the loads of its tiles, and the
/// replacement of each staged read, by access (array and index text).
struct StagedReads {
  std::vector<StmtPtr> Loads;
  std::vector<std::pair<std::string, ExprPtr>> Replace;
  std::set<std::string> Redirected; ///< accesses already staged
};

/// How a tile of a staged group is laid out: Rows of the block's threads
/// by Width columns (the loop's iterations), a row alone where Flat, the
/// iterations as rows where IterRows (columnGroup side by side).
struct TileLayout {
  std::string Iter; ///< the tiled loop's iterator
  std::int64_t Rows, Width, Group;
  bool Flat, IterRows;
};

class Generator {
public:
  Generator(const Function &Origin, const TileShape &S,
            const MachineDescription &MD)
      : Origin(Origin), S(S), MD(MD) {}

  llvm::Expected<TiledKernel> run();

private:
  const Function &Origin;
  const TileShape &S;
  const MachineDescription &MD;
  std::set<std::string> Names; ///< locals in use, for fresh names
  /// Locals that differ between merged copies, with the dimensions they
  /// vary in (bit 0: X, bit 1: Y); the merge placeholders are among them.
  std::map<std::string, unsigned> Varying;
  unsigned MergedDims = 0; ///< bit 0: Merge[0] > 1, bit 1: Merge[1] > 1
  TiledKernel Result;
  /// The naive kernel's global accesses, the arrays it writes and reads,
  /// and its single-assignment locals (for inlining into staged indices).
  std::vector<Access> Accesses;
  std::set<std::string> Written, Read;
  std::map<std::string, const Expr *> Defs;

  /// A shared tile for elements of an array accessed as \p Ref, declared
  /// at the top of the kernel and counted in the plan.
  struct SharedTile {
    std::string Name;
    Type ElemTy;
  };
  SharedTile declareTile(NaiveShape &NS, LaunchPlan &Plan,
                         const std::string &Array, const Type &RefTy,
                         unsigned ElementBytes,
                         const std::vector<std::int64_t> &Dims) {
    SharedTile T{fresh(Array + "_s"), RefTy};
    T.ElemTy.IsConst = false;
    Type SharedTy = T.ElemTy;
    SharedTy.Space = AddressSpace::Shared;
    auto Decl = std::make_unique<DeclStmt>(T.Name, SharedTy);
    Decl->Extents = Dims;
    std::int64_t Words = 1;
    for (std::int64_t D : Dims)
      Words *= D;
    Plan.SharedBytes += Words * ElementBytes;
    NS.Prologue.push_back(std::move(Decl));
    return T;
  }
  static ExprPtr tileRef(const SharedTile &T, std::vector<ExprPtr> Indices) {
    auto R = std::make_unique<ArrayRef>(T.Name, std::move(Indices), T.ElemTy);
    R->Space = AddressSpace::Shared;
    return R;
  }
  /// The thread's linear id in the block.
  ExprPtr threadInBlock() const {
    return S.Block[1] > 1 ? add(mul(builtin(Builtin::Tidy), intLit(S.Block[0])),
                                builtin(Builtin::Tidx))
                          : builtin(Builtin::Tidx);
  }
  /// for (Iter = thread id; Iter < Count; Iter += threads) Body: the
  /// block's threads share \p Count copies, consecutive threads consecutive
  /// elements.
  StmtPtr cooperativeLoop(const std::string &Iter, std::int64_t Count,
                          StmtPtr Body) const {
    auto L = std::make_unique<ForStmt>();
    L->Iter = Iter;
    L->Init = threadInBlock();
    L->Bound = intLit(Count);
    L->Step = S.Block[0] * S.Block[1];
    L->Body = block({});
    llvm::cast<BlockStmt>(L->Body.get())->Body.push_back(std::move(Body));
    return L;
  }
  /// Columns a thread's merged copies in X read from an [iterations]
  /// [threads] tile that are stored side by side (TileStaging.cpp), where
  /// column \p Col is stored, and the column copy KxName of this thread
  /// reads there.
  std::int64_t columnGroup(const Candidate &C, bool IterRows,
                           unsigned ElementBytes) const;
  ExprPtr groupColumns(ExprPtr Col, std::int64_t G) const;
  ExprPtr groupedRead(std::int64_t G) const;
  llvm::Error checkSharedLimit(const LaunchPlan &Plan) const {
    if (Plan.SharedBytes <= staticSharedLimit(MD))
      return llvm::Error::success();
    return cannot(llvm::formatv("the shared tiles need {0} bytes, more than "
                                "the {1} a block may declare",
                                Plan.SharedBytes, staticSharedLimit(MD)));
  }
  /// Records how many elements \p Array has, for the launcher's aliasing
  /// check.
  llvm::Error requireElements(LaunchPlan &Plan, const std::string &Array) {
    ExprPtr N = symbolicElements(Origin, Array);
    if (!N)
      return cannot("cannot bound the extent of '" + Array +
                    "' for the run-time aliasing check");
    Plan.Elements[Array] = std::shared_ptr<const Expr>(std::move(N));
    return llvm::Error::success();
  }
  /// Does \p Index name a variable other than a scalar parameter and
  /// \p Iterators? (The naive kernel has no built-ins but idx and idy.)
  bool opaque(const Expr &Index, const std::set<std::string> &Iterators) const {
    bool Opaque = false;
    walkExpr(Index, [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Opaque |= !Origin.findParam(V->Name) && !Iterators.count(V->Name);
    });
    return Opaque;
  }

  std::string fresh(const std::string &Base) {
    return uniqueName(Names, Base, "", 2);
  }

  /// Refuses what the origin kernel or the shape rules out: factors below
  /// one, a barrier, built-ins other than thread positions, vector accesses,
  /// a plan already tiled.
  llvm::Error checkOrigin() const;
  /// Where threads merge: refuses a return, break or continue after the
  /// bounds guard (\p NS), which would end or skip one copy's work only.
  llvm::Error checkMergedExits(NaiveShape &NS) const;
  /// The plan of the shape \p NS, with the origin's aliasing requirements.
  LaunchPlan initialPlan(const NaiveShape &NS) const;
  /// Whole tiles (\p Tiled or WholeTiles): every launched thread is inside
  /// the domain, and the staged arrays must not alias the written ones;
  /// otherwise the bounds guard wraps the guarded statements.
  llvm::Error coverDomain(NaiveShape &NS, LaunchPlan &Plan, bool Tiled);
  /// Traffic: global elements loaded per naive output per tile step, and
  /// shared ones, of the merged kernel \p K, into Result.
  void estimateTraffic(Function &K, bool Tiled);
  /// Registers: a base, plus each replicated scalar once per copy: two for
  /// what varies in one direction (positions, which feed 64-bit addresses),
  /// one for what varies in both (the accumulators of a register tile:
  /// ptxas gives mm's 4x4 tile 56 registers and its 8x8 tile 128).
  unsigned estimateRegisters() const;
  llvm::Expected<std::optional<LoopChoice>> chooseLoop(NaiveShape &NS);
  llvm::Error stage(NaiveShape &NS, LoopChoice &C, LaunchPlan &Plan);
  /// Stages group \p G of \p C's accesses through a shared tile, where its
  /// indices can be written at the block's level: the tile's declaration,
  /// its load into \p Out's loads, and the group's reads redirected to it.
  /// \p Tile: the tile loop's counter.
  void stageGroup(NaiveShape &NS, const LoopChoice &C, const StageGroup &G,
                  const std::string &Tile,
                  const std::set<std::string> &LoopLocals, LaunchPlan &Plan,
                  StagedReads &Out);
  /// The block's load of the tile \p Shared of \p Cand's group, whose
  /// index expressions (locals inlined) are \p Indices.
  StmtPtr loadTile(const Candidate &Cand, const StageGroup &G,
                   const TileLayout &T, const SharedTile &Shared,
                   const std::string &Tile, std::vector<ExprPtr> Indices);
  /// The reads of \p Served, members of \p Cand's group, from \p Shared:
  /// into \p Out's replacements.
  void redirectServed(const Candidate &Cand, const StageGroup &G,
                      const TileLayout &T, const SharedTile &Shared,
                      const std::string &Tile,
                      const std::vector<const Candidate *> &Served,
                      StagedReads &Out);
  /// \p C's loop as a loop over tiles of it, each loaded by \p Loads, and
  /// the iterations past the last whole tile in \p Rest after it.
  llvm::Error tileLoop(NaiveShape &NS, LoopChoice &C, const std::string &Tile,
                       ExprPtr Bound, std::unique_ptr<ForStmt> Rest,
                       std::vector<StmtPtr> Loads, LaunchPlan &Plan);
  llvm::Error stageWrites(NaiveShape &NS, LaunchPlan &Plan);
  llvm::Error stageSegments(NaiveShape &NS, LaunchPlan &Plan);
  void findVarying(std::vector<StmtPtr> &Stmts);
  unsigned maskOf(const Expr &E) const {
    unsigned M = 0;
    walkExpr(E, [&](const Expr &X) {
      // A local, or an element of a local array, that varies.
      const std::string *Local = nullptr;
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Local = &V->Name;
      else if (auto *A = llvm::dyn_cast<ArrayRef>(&X))
        Local = &A->Array;
      if (Local)
        if (auto It = Varying.find(*Local); It != Varying.end())
          M |= It->second;
      if (auto *B = llvm::dyn_cast<BuiltinRef>(&X)) {
        if (B->Which == Builtin::Idx)
          M |= MergedDims & 1;
        if (B->Which == Builtin::Idy)
          M |= MergedDims & 2;
      }
    });
    return M;
  }
  bool varies(const Expr &E) const { return maskOf(E) != 0; }
  unsigned maskOf(Stmt &St) {
    unsigned M = 0;
    auto Local = [&](const std::string &N) {
      auto It = Varying.find(N);
      if (It != Varying.end())
        M |= It->second;
    };
    walkStmts(St, [&](Stmt &X) {
      if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
        Local(D->Name);
      if (auto *L = llvm::dyn_cast<ForStmt>(&X))
        Local(L->Iter);
    });
    walkExprs(St, [&](const Expr &E) { M |= maskOf(E); });
    return M;
  }
  bool varies(Stmt &St) { return maskOf(St) != 0; }
  std::vector<StmtPtr> merge(std::vector<StmtPtr> Stmts);
  /// A condition or loop bound kept once because it does not vary: a
  /// placeholder left in it (a staged read in an `if` in the tiled loop)
  /// belongs to a dimension that is not merged, whose one copy is 0.
  static ExprPtr once(ExprPtr E) {
    E = substituteVar(std::move(E), KxName, *intLit(0));
    E = substituteVar(std::move(E), KyName, *intLit(0));
    return simplifyExpr(std::move(E));
  }
  StmtPtr copyFor(const Stmt &St, std::int64_t Kx, std::int64_t Ky);
  std::string suffix(unsigned Mask, std::int64_t Kx, std::int64_t Ky) const {
    if (Mask == 1)
      return "_" + std::to_string(Kx);
    if (Mask == 2)
      return "_" + std::to_string(Ky);
    return "_" + std::to_string(Ky * S.Merge[0] + Kx);
  }
};

} // namespace tiling
} // namespace gpumerge

#endif
