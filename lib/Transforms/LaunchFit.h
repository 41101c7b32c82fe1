//===- LaunchFit.h - Registers, spills and blocks per SM --------*- C++ -*-===//
//
// What a pass that adds registers or shared memory to a planned kernel
// checks before keeping the change: ptxas's count where the target has an
// nvcc architecture and nvcc is here, else the KIR estimate.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_LAUNCHFIT_H
#define GPUMERGE_TRANSFORMS_LAUNCHFIT_H

#include "IR/Kernel.h"
#include "Target/MachineDescription.h"

#include <optional>
#include <string>

namespace gpumerge {

struct LaunchFit {
  unsigned Registers = 0, SpillBytes = 0, BlocksPerSM = 0;
  std::string Source; ///< "ptxas sm_90" or "estimate from KIR"
  bool fromPtxas() const { return Source != "estimate from KIR"; }
};

/// Registers, spills and blocks per SM of \p F's launch (its plan's block
/// and shared memory): ptxas where the target has an nvcc architecture,
/// else the KIR estimate plus \p Extra registers; nullopt where ptxas
/// cannot compile the kernel alone (with \p Helpers, what it calls).
std::optional<LaunchFit>
launchFit(const Function &F, const MachineDescription &MD, unsigned Extra,
          const std::vector<const Function *> &Helpers);

} // namespace gpumerge

#endif
