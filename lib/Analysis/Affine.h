//===- Affine.h - Index expressions as polynomials --------------*- C++ -*-===//
//
// Every array index is turned into c0 + Σ ci·v over thread/block ids, loop
// iterators and symbolic scalars (w, n) — or "unresolved". Coefficients may
// themselves be symbolic (the row stride w in a[idy*w + i]), so a form is a
// polynomial whose monomials hold at most one thread or loop variable.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_AFFINE_H
#define GPUMERGE_ANALYSIS_AFFINE_H

#include "IR/Kernel.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace gpumerge {

struct AffineVar {
  enum class Kind { Thread, Loop, Symbol } VarKind = Kind::Symbol;
  std::string Name; ///< "idx", "i", "w"
  bool operator<(const AffineVar &O) const {
    return std::tie(VarKind, Name) < std::tie(O.VarKind, O.Name);
  }
  bool operator==(const AffineVar &O) const {
    return VarKind == O.VarKind && Name == O.Name;
  }
};

/// A sorted product of variables; empty for the constant term.
using Monomial = std::vector<AffineVar>;

class AffineForm {
public:
  std::map<Monomial, std::int64_t> Terms; ///< no zero coefficients

  static AffineForm constant(std::int64_t C);
  static AffineForm variable(AffineVar V);

  AffineForm operator+(const AffineForm &O) const;
  AffineForm operator-(const AffineForm &O) const;
  AffineForm operator*(const AffineForm &O) const;
  AffineForm scaled(std::int64_t K) const;

  std::int64_t constantTerm() const;
  bool isConstant() const;
  std::optional<std::int64_t> asConstant() const;
  /// The coefficient of \p V: the sum of the monomials holding V with V
  /// removed (a constant or a polynomial in symbols).
  AffineForm coefficientOf(const AffineVar &V) const;
  /// The form with every monomial holding \p V removed.
  AffineForm without(const AffineVar &V) const;
  /// Affine in the sense of §3.2: no monomial holds two thread/loop variables.
  bool isAffine() const;
  bool mentions(AffineVar::Kind K) const;
  std::vector<AffineVar> variables(AffineVar::Kind K) const;
  /// "idy*w + i + 3", thread variables first.
  std::string str() const;
  bool operator==(const AffineForm &O) const { return Terms == O.Terms; }
};

/// What the analysis knows of the scalars in scope where an index is used:
/// a local assigned once is replaced by its definition; a loop iterator and
/// a scalar parameter stand for themselves; anything else is unresolved.
struct AffineContext {
  std::map<std::string, const Expr *> Definitions;
  std::set<std::string> LoopIterators;
  std::set<std::string> Symbols;
};

/// The form of \p E, or nullopt when some part cannot be expressed
/// (a division, a reassigned variable, an array element).
std::optional<AffineForm> toAffine(const Expr &E, const AffineContext &Ctx);

/// The context at the top of kernel \p F: its single-assignment locals, its
/// scalar parameters and the block/grid extents as symbols.
AffineContext kernelAffineContext(const Function &F);

/// The definitions of \p F's locals that are assigned exactly once (their
/// initializer), for AffineContext::Definitions.
std::map<std::string, const Expr *> singleAssignmentLocals(const Function &F);

/// \p E with the locals of singleAssignmentLocals replaced by their
/// definitions, transitively (`int ow = w - f + 1; if (x < ow)`: the
/// launcher sees w - f + 1).
ExprPtr inlineSingleAssignmentLocals(const Expr &E, const Function &F);

} // namespace gpumerge

#endif
