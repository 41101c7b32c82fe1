//===- Inlining.h - Helpers inlined where they are called -------*- C++ -*-===//
//
// Internal to lib/Frontend. Naive kernels read their arrays through helpers
// of their own as often as directly,
//
//   __device__ double gradX(double phi[][NY][NZ], double dx, int x, int y,
//                           int z) { return (phi[x+1][y][z] - ...) / dx; }
//   __device__ void store(float *out, int i, float v) { out[i] = v; }
//
// and the passes must see those accesses as the kernel's own. KIR keeps
// helpers as calls of scalars, so a helper that takes a pointer or a
// reference is lowered where it is called (Lower.cpp): its parameters read
// as the arguments (a pointer as the array it points into, at an offset),
// its locals under names of their own, and its returns as stores to a
// result. Here: which helpers, and what the lowering needs to know of their
// bodies.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_INLINING_H
#define GPUMERGE_FRONTEND_INLINING_H

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpumerge {

/// Does \p Def (a definition) take a pointer or a reference to what it may
/// write (not a const one), so that a call of it is lowered as its body?
bool takesPointers(const clang::FunctionDecl &Def);

/// A body of returns only, read as one expression where the helper is
/// called (`c1 ? a1 : c2 ? a2 : b`):
///
///   { if (c1) return a1; if (c2) return a2; return b; }
///
/// an if's branch a return or a block of one, an else (returning too) on
/// the last if only. `{ return b; }` is one with no Cases.
struct ReturnChain {
  std::vector<std::pair<const clang::Expr *, const clang::Expr *>> Cases;
  const clang::Expr *Last = nullptr;
};
std::optional<ReturnChain> returnChain(const clang::FunctionDecl &Def);

/// Does \p S contain a return statement?
bool containsReturn(const clang::Stmt *S);

/// Does every path through \p S end in a return (the statements after it,
/// in the same list, never run)?
bool alwaysReturns(const clang::Stmt *S);

/// Is the last statement of \p Body a return, and its only one (no early
/// one)?
bool returnsOnlyAtEnd(const clang::CompoundStmt &Body);

/// How many times \p Body names \p V.
unsigned usesOf(const clang::Stmt &Body, const clang::VarDecl &V);

/// The statements of \p S as a list: a block's, or \p S alone; none for
/// null.
std::vector<const clang::Stmt *> statementsOf(const clang::Stmt *S);

/// The names \p FD's body refers to that it does not declare: file-scope
/// constants and variables, functions, enumerators.
std::set<std::string> fileScopeNamesIn(const clang::FunctionDecl &FD);

/// The names \p FD's parameters and body declare (\p Declared) and, with
/// those, every name its body refers to (\p All).
void namesOf(const clang::FunctionDecl &FD, std::set<std::string> &Declared,
             std::set<std::string> &All);

} // namespace gpumerge

#endif
