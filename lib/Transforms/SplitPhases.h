//===- SplitPhases.h - Split kernels at their global barriers ---*- C++ -*-===//
//
// The paper's input model (§3) lets a naive kernel synchronize the whole
// grid: gpumerge_global_sync(), or __syncthreads() in the original
// compiler's dialect. No GPU can wait for all threads of a grid inside one
// launch, so the compiler splits the kernel there into consecutive kernels,
// NAME_phase0, NAME_phase1, ..., with the parameters of NAME, launched one
// after the other on one stream (queue) over the same grid. Each phase is an
// ordinary kernel: it goes through the pipeline and gets its own plan and
// launcher.
//
// Before (rd):                          After:
//   int i = idx;                          rd_phase0:  int i = idx;
//   if (i < nt) { ... partial[i] = s; }               if (i < nt) { ... }
//   gpumerge_global_sync();               rd_phase1:  int i = idx;
//   if (i == 0) { ... out[0] = t; }                   if (i == 0) { ... }
//
// A local declared before a barrier and used after it is declared again in
// the later phase when its value can be recomputed there: it is set once,
// from thread positions, scalar parameters nobody assigns and other such
// locals. Anything else would be a value in a register that does not
// survive the barrier, and the kernel is refused (passed through unchanged,
// with the reason). So is a barrier inside an if or a loop (not every thread
// would reach it, or it would need a launch per iteration), a return before
// a barrier (the thread would still run the later phases), and a kernel whose
// host launches cannot all be rewritten into the generated launcher.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_SPLITPHASES_H
#define GPUMERGE_TRANSFORMS_SPLITPHASES_H

#include "IR/Kernel.h"

namespace gpumerge {

/// "NAME_phaseK".
std::string phaseName(const std::string &Kernel, unsigned K);

/// The phases of one kernel, or why it cannot be split.
struct PhaseSplit {
  std::vector<std::unique_ptr<Function>> Phases; ///< empty when refused
  std::vector<unsigned> BarrierLines;
  std::vector<std::string> Recomputed; ///< locals re-declared in later phases
  std::string Why;                     ///< when refused
  unsigned Line = 0;                   ///< where the problem is
};

/// Splits \p F (which has a global barrier) at its barriers.
PhaseSplit splitKernel(const Function &F);

/// Replaces each kernel of \p M that has a global barrier by its phases
/// (recorded in M.Phased), or moves it to M.PassedThrough with the reason
/// when it cannot be split (see above; also when a name the split needs is
/// already used by the input, or a host launch of it cannot be rewritten).
void splitGlobalBarriers(Module &M);

} // namespace gpumerge

#endif
