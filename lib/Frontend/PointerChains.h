//===- PointerChains.h - Pointers into array parameters ---------*- C++ -*-===//
//
// Internal to lib/Frontend. Naive kernels name rows through pointers into
// their array parameters,
//
//   const float *row = a + i * w;       // row[j] is a[i * w + j]
//   float *out = y + i;  *out = s;      // y[i]
//
// and the lowering reads them as the elements they reach (Lower.cpp). Here:
// a pointer expression as its variable and the offsets written on it, and
// what a function's body assigns (a pointer moved, or an offset that changes
// after the pointer was set, would make that reading wrong).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_POINTERCHAINS_H
#define GPUMERGE_FRONTEND_POINTERCHAINS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace gpumerge {

/// `p + i - 1`, `i + p`, `&p[i]`, `p`: the pointer variable and the integer
/// offsets added to it (or subtracted: true), in the order written.
struct PointerChain {
  const clang::VarDecl *Base = nullptr;
  std::vector<std::pair<const clang::Expr *, bool>> Offsets;
};

/// \p E as a PointerChain; nullopt for anything else (a cast to another
/// element type, a call, a conditional). With \p ArrayBases, the variable
/// may be an array too (`s + i`, `&s[i]` of `__shared__ float s[64]`).
std::optional<PointerChain> pointerChain(const clang::Expr *E,
                                         bool ArrayBases = false);

/// What \p Body changes: the variables it assigns or steps (`x = ...`,
/// `x += ...`, `x++`, a loop's increment) or whose address it takes, and the
/// arrays whose elements it writes (`a[i] = ...`, through a pointer into
/// them as well: that pointer's variable; through a helper's pointer or
/// reference parameter too: the argument's, Inlining.h).
struct Assigned {
  std::set<const clang::VarDecl *> Variables, Arrays;
};
Assigned assignedIn(const clang::Stmt &Body);

} // namespace gpumerge

#endif
