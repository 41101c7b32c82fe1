//===- Vectorizer.h - Vector accesses in one kernel -------------*- C++ -*-===//
//
// The rewriting of the vectorize pass (Vectorize.cpp, which decides where
// it runs): in straight-line regions of one kernel, reads of neighbouring
// elements of a global array become one vector read, and writes of
// neighbouring elements by consecutive statements one vector write; with
// the loop-based policy, a unit-step loop is first unrolled by the vector
// width so that its copies' reads become neighbours. It records what the
// launch must check: alignment, the conditions over size parameters, and
// the arrays that must not overlap once accesses move.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_VECTORIZER_H
#define GPUMERGE_TRANSFORMS_VECTORIZER_H

#include "Analysis/Affine.h"
#include "IR/Kernel.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpumerge {

/// Which kinds the target's policy allows, and the vector width.
struct VectorPolicy {
  unsigned Width = 2;
  bool LoopBased = false;
  bool InterThread = false;
  /// The width when threads are merged for vectors (inter-thread).
  unsigned MergedWidth = 2;
};

class Vectorizer {
public:
  /// \p Naive: the kernel whose accesses bound the arrays' element counts
  /// (the naive one; F itself may be tiled and unguarded).
  Vectorizer(Function &F, VectorPolicy Policy,
             std::set<std::string> ScalarTextures, const Function &Naive);

  void run() { visitBlock(*F.Body); }

  Function &F;
  VectorPolicy Policy;
  /// Texture arrays that keep scalar fetches (some read would stay scalar).
  std::set<std::string> ScalarTextures;
  AffineContext Ctx;
  std::set<std::string> Written;
  /// Names in use, so that new locals take others.
  std::set<std::string> Names;
  /// The loops of each iterator name, whose start and step tell which
  /// multiples the iterator takes.
  std::map<std::string, std::vector<ForStmt *>> Loops;
  /// The arrays of each vector access made, in order (nonempty: applied).
  std::vector<std::string> Done;
  std::vector<std::string> UnrolledLoops;
  /// Conditions over size parameters, by their text (no duplicates).
  std::map<std::string, Precondition> Conditions;
  std::map<std::string, unsigned> Aligned;
  std::map<std::string, std::shared_ptr<const Expr>> Elements;
  /// Arrays whose accesses now happen in another order: they must not
  /// overlap (the launcher compares their address ranges).
  std::set<std::pair<std::string, std::string>> Disjoint;
  /// Why accesses kept their order, when an unknown extent kept them.
  std::string Unordered;

private:
  void visitBlock(BlockStmt &B);

  void visitNested(StmtPtr &S);

  void visitChild(StmtPtr &S);

  void combineRegions(BlockStmt &B);

  // --- divisibility ---------------------------------------------------------

  /// Is \p Form a multiple of \p W for all values of its thread and loop
  /// variables? Conditions on size parameters that make it so go to \p Need.
  bool multipleOf(const AffineForm &Form, unsigned W,
                  std::map<std::string, Precondition> &Need,
                  const std::string &Why) const;

  /// Is Coef * Mono a multiple of \p W because Mono's one loop iterator
  /// starts at a multiple and steps by one (`j` of `for (j = 0; j < w; j +=
  /// 2)`, times any size parameters in Mono)?
  bool iteratorTermMultiple(const Monomial &Mono, std::int64_t Coef, unsigned W,
                            std::map<std::string, Precondition> &Need,
                            const std::string &Why) const;
  mutable unsigned Depth = 0;

  /// \p E / \p W without a division where the factor is visible.
  static ExprPtr divided(const Expr &E, unsigned W);

  // --- intra-thread combining ------------------------------------------------

  struct Read {
    ArrayRef *Ref;
    size_t Stmt;
    AffineForm Form;
  };

  /// Combines reads and writes in the straight statements [Begin, End) of
  /// \p Body; returns how many statements it inserted.
  size_t combineRegion(std::vector<StmtPtr> &Body, size_t Begin, size_t End);

  void collectReads(Stmt &S, size_t Index,
                    std::map<std::string, std::vector<Read>> &Reads);

  bool candidate(const ArrayRef &A) const;

  bool textureArray(const std::string &A) const;

  Type vectorType(const Type &Elem, unsigned W) const;

  /// Groups \p List into vectors of \p W; true when any group formed.
  bool combineReads(std::vector<StmtPtr> &Body, const std::string &Array,
                    std::vector<Read> &List, unsigned W,
                    std::multimap<size_t, StmtPtr> &Inserts,
                    std::map<const ArrayRef *, ExprPtr> &Replace);

  /// Consecutive `a[e] = v0; a[e + 1] = v1; ...` become one vector store.
  size_t combineWrites(std::vector<StmtPtr> &Body, size_t Begin, size_t End);

  /// The write `a[e] = v` of statement \p S, when it may be vectorized.
  const ArrayRef *plainWrite(const Stmt &S) const;

  /// Whether a vector read of written \p Array may replace reads of it in
  /// statement \p S alone: S writes the array only through its left side
  /// (it does not pass it whole), so its reads all happen before that.
  static bool readsBeforeOwnWrite(const Stmt &S, const std::string &Array);

  bool combineWriteGroup(std::vector<StmtPtr> &Body, size_t S, unsigned W);

  static std::set<std::string> arraysWritten(const Stmt &S);

  /// May accesses of \p Array move across those of \p Others? Yes when
  /// the launch can check each pair's address ranges (recorded in
  /// Disjoint); no when an element count is unknown.
  bool mayReorder(const std::string &Array,
                  const std::set<std::string> &Others);

  /// Did the input declare both arrays `__restrict__`? Then what one reaches
  /// the other does not, and their accesses may take any order.
  bool declaredApart(const std::string &A, const std::string &B) const;

  /// Counts a vector access for the report ("a: 8 float4 loads (32
  /// reads)").
  void note(const std::string &Array, const char *What, const Type &VT,
            size_t Elements);

public:
  /// "a: float4 loads" → (vector accesses, scalar accesses they replace).
  std::map<std::string, std::pair<unsigned, size_t>> Counts;

  /// The report's line: "a: 8 float4 loads (32 reads); y: 1 float2 store".
  std::string summary() const;

private:
  void noteAligned(const std::string &Array, const Type &VT);

  // --- loop-based ------------------------------------------------------------

  /// Unrolls \p L by the vector width when that lets its body's reads
  /// combine: `for (j = s; j < e; j++) B(j)` → `for (j = s; j < e; j += W)
  /// { B(j); B'(j + 1); ... }`, copies' locals renamed, then combined.
  void unrollForVectors(ForStmt &L);

  static void retypeLocals(std::vector<StmtPtr> &Stmts);
};

} // namespace gpumerge

#endif
