//===- UnusedLocals.h - Declarations nothing uses ---------------*- C++ -*-===//
//
// A merge gives each copy its own position (`int i_1 = idx * 4 + 1;`); when
// vectors then take over the copies' accesses, or a pass moves a read
// elsewhere, some of those locals are left declared and never used. nvcc
// warns about each (#177-D), and a reader wonders what they are for. The
// passes' output goes through this last.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_UNUSEDLOCALS_H
#define GPUMERGE_IR_UNUSEDLOCALS_H

#include "IR/Kernel.h"

namespace gpumerge {

/// Removes from \p F the declarations of scalar and vector locals that
/// nothing in their scope (the statements after them in their block)
/// mentions, when their initializer, if any, has no effect (it calls
/// nothing; a read of memory it does is dropped with it), until none is
/// left; returns how many it removed. Arrays (local or shared) stay.
unsigned removeUnusedLocals(Function &F);

} // namespace gpumerge

#endif
