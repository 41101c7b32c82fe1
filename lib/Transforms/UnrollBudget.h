//===- UnrollBudget.h - How far a loop may be unrolled ----------*- C++ -*-===//
//
// The tiled loop over a shared-memory tile (`for (i = i0; i < i0 + 32; i++)`)
// is marked to be unrolled whole: its trip count is a constant and, unrolled,
// every shared-memory read has a constant offset from one base, so ptxas
// drops the loop's counter and address arithmetic and combines a row's
// neighbouring reads into 128-bit loads. nvcc does not do it by itself once
// a thread merge has made the body large: mm's 8x8 register tile on sm_90
// then runs 87 instructions per step of k (64 FFMA, 16 LDS, 7 of loop and
// addresses); unrolled whole, with b's columns grouped (TileStaging.cpp),
// about 68 (64 FFMA, 4 LDS.128).
//
// A body unrolled too far no longer fits the instruction cache, so the
// factor is capped: it is halved until the statements of the unrolled body
// stay within a budget (mm's 8x8 tile of 64 statements, 32 times).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_UNROLLBUDGET_H
#define GPUMERGE_TRANSFORMS_UNROLLBUDGET_H

#include "IR/Stmt.h"

namespace gpumerge {

/// Statements an unrolled loop body may hold, all copies together.
constexpr unsigned UnrollBudget = 2048;

/// Caps every `ForStmt::Unroll` in \p Root to what UnrollBudget allows for
/// its body (halving; 0 when not even two copies fit).
void capUnrolling(Stmt &Root);

} // namespace gpumerge

#endif
