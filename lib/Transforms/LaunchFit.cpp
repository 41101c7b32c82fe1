//===- LaunchFit.cpp - Registers, spills and blocks per SM of a kernel ----===//
#include "Transforms/LaunchFit.h"

#include "CodeGen/Emitter.h"
#include "Target/Occupancy.h"
#include "Target/Ptxas.h"

namespace gpumerge {

std::optional<LaunchFit>
launchFit(const Function &F, const MachineDescription &MD, unsigned Extra,
          const std::vector<const Function *> &Helpers) {
  const LaunchPlan &P = *F.Plan;
  LaunchFit R;
  R.Registers = P.EstimatedRegisters + Extra;
  R.Source = "estimate from KIR";
  bool HaveNvcc = false;
  if (!MD.SmArch.empty()) {
    auto N = findNvcc();
    HaveNvcc = bool(N);
    if (!N)
      llvm::consumeError(N.takeError());
  }
  if (HaveNvcc) {
    auto Res = ptxasResources(emitStandaloneCuda(F, Helpers), MD.SmArch);
    if (!Res || !Res->count(F.Name)) {
      if (!Res)
        llvm::consumeError(Res.takeError());
      return std::nullopt;
    }
    const KernelResources &K = Res->at(F.Name);
    R.Registers = K.Registers;
    R.SpillBytes = K.SpillStoreBytes + K.SpillLoadBytes;
    R.Source = K.Source;
  }
  BlockResources B{unsigned(P.Block[0] * P.Block[1]), R.Registers,
                   unsigned(P.SharedBytes)};
  R.BlocksPerSM = computeOccupancy(MD, B).BlocksPerSM;
  return R;
}

} // namespace gpumerge
