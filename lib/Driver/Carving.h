//===- Carving.h - Pareto pruning of the tuner's candidates -----*- C++ -*-===//
//
// Optimization carving (Ryoo et al., JPDC 2008; docs/design.md): two
// metrics per version, computed from its code and launch without running
// it, and only the versions no other beats on both are timed.
//
//   Efficiency  = 1 / (Instr · Threads)     less work in all
//   Utilization = Instr / Regions · [(W_TB − 1)/2 + (B_SM − 1) · W_TB]
//                                           more independent work to hide
//                                           each stall behind
//
// Instr: dynamic instructions per thread, estimated from KIR at the tuned
// sizes (operations and memory accesses of each statement, times the trips
// of the loops around it; a branch counts its `then` side, the path of the
// threads inside the domain). Regions: the intervals between blocking
// points, counted as barriers and global loads executed per thread, plus
// one. W_TB: warps per block; B_SM: resident blocks per SM (Occupancy.h).
// Threshold carving (uncoalesced versions first) has nothing to drop: every
// version of the space accesses memory as the coalesced kernel does.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_CARVING_H
#define GPUMERGE_DRIVER_CARVING_H

#include "Analysis/Domain.h"
#include "IR/Kernel.h"
#include "Target/MachineDescription.h"

#include <vector>

namespace gpumerge {

struct CarvingMetrics {
  double Instr = 0;   ///< dynamic instructions per thread
  double Regions = 1; ///< blocking points per thread + 1
  double Threads = 0; ///< launched
  unsigned WarpsPerBlock = 0;
  unsigned BlocksPerSM = 0;
  double Efficiency = 0;
  double Utilization = 0;
};

/// The carving formulas themselves (tested against the paper's oracle).
double carvingEfficiency(double Instr, double Threads);
double carvingUtilization(double Instr, double Regions, unsigned WarpsPerBlock,
                          unsigned BlocksPerSM);

/// The metrics of \p K, a kernel with a launch plan, at \p Sizes on \p MD.
CarvingMetrics carvingMetrics(const Function &K, const MachineDescription &MD,
                              const SizeBindings &Sizes);

/// Which of \p Ms are on the Pareto front of (Efficiency, Utilization): none
/// other is at least as good in both and better in one. Of versions with
/// equal metrics, the first stays.
std::vector<bool> paretoFront(const std::vector<CarvingMetrics> &Ms);

} // namespace gpumerge

#endif
