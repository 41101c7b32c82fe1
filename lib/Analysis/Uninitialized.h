//===- Uninitialized.h - Locals read before anything sets them --*- C++ -*-===//
//
// A naive kernel that reads a local on a path where nothing set it has no
// defined result:
//
//   Real_t e_new;
//   for (j = 0; j < rep; j++) { ... e_new = ...; }   // rep may be 0
//   e[i] = e_new;
//
// PoCL then reads whatever its registers or stack held, and two runs of
// the kernel, or the kernel and its optimized form, give two results:
// --verify would report a mismatch that is the input's (HeCBench's lulesh,
// 1 run in 4). Verify skips such a kernel with this reason.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_UNINITIALIZED_H
#define GPUMERGE_ANALYSIS_UNINITIALIZED_H

#include "IR/Kernel.h"

#include <string>

namespace gpumerge {

/// The first read of a scalar or vector local of \p F that some path
/// reaches with nothing set in it ("'e_new' at line 9: the loop at line 5
/// may not run"), or empty. A loop's body may not run (unless its constant
/// bounds say it does), a branch sets only on its side, a return or break
/// ends its path; an element or component store sets the whole local (a
/// vector filled one component at a time is not flagged).
std::string findUninitializedRead(const Function &F);

} // namespace gpumerge

#endif
