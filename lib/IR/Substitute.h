//===- Substitute.h - Replace built-ins and variables in KIR ----*- C++ -*-===//
//
// The merges rewrite thread positions: thread merge in Y replaces idy by
// idy*N + k in copy k (§3.5, Fig. 10). These helpers do that on a statement
// tree, cloning the replacement at every use.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_SUBSTITUTE_H
#define GPUMERGE_IR_SUBSTITUTE_H

#include "IR/Stmt.h"

namespace gpumerge {

/// Replaces every use of built-in \p B under \p S by a copy of \p With.
void substituteBuiltin(Stmt &S, Builtin B, const Expr &With);
/// Replaces every VarRef named \p Name under \p S by a copy of \p With.
void substituteVar(Stmt &S, const std::string &Name, const Expr &With);
/// Expression forms of the two, returning the new root.
ExprPtr substituteBuiltin(ExprPtr E, Builtin B, const Expr &With);
ExprPtr substituteVar(ExprPtr E, const std::string &Name, const Expr &With);

} // namespace gpumerge

#endif
