//===- Occupancy.cpp - Resident blocks per SM -----------------------------===//
//
// docs/design.md, "Occupancy" (Ryoo et al. 2008; Al-Mouhamed & Khan):
//   B_SM = min(floor(RegsSM / alloc(r*T)), floor(SmemSM / alloc(s)),
//              floor(ThreadsSM / T), BlocksSM)
// with alloc() as in NVIDIA's CUDA Occupancy Calculator. Every division is a
// floor: one of the papers writes a ceiling and gets its example wrong.
//
//===----------------------------------------------------------------------===//

#include "Target/Occupancy.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>

using namespace gpumerge;

namespace {
uint64_t roundUp(uint64_t Value, uint64_t Unit) {
  return llvm::alignTo(Value, std::max<uint64_t>(Unit, 1));
}

/// Blocks allowed by the register file, or 0 when the block uses no
/// registers (then registers do not limit).
unsigned blocksByRegisters(const MachineDescription &MD, unsigned Regs,
                           unsigned WarpsPerBlock) {
  if (MD.RegisterAllocation == RegisterGranularity::Warp) {
    // Fermi and later: each warp gets r*32 registers rounded up to the unit
    // (64 on sm_20, 256 since sm_30); the calculator then fits whole warps
    // and whole blocks: floor(floor(RegsSM / perWarp) / warpsPerBlock).
    // (The calculator also rounds the warp count down to a "warp allocation
    // granularity" of 2 or 4; that refinement is not modelled.)
    uint64_t PerWarp =
        roundUp(uint64_t(Regs) * MD.ThreadInWarp, MD.RegisterAllocUnit);
    return unsigned(MD.RegisterInMP / PerWarp / WarpsPerBlock);
  }
  // GT200 and earlier: the whole block's registers are rounded up to the unit
  // (512 on sm_12/sm_13). A partial warp still occupies a full warp's
  // registers, so r is multiplied by the warp-rounded thread count; equal to
  // r*T in the paper's examples, which use whole warps.
  uint64_t PerBlock = roundUp(uint64_t(Regs) * WarpsPerBlock * MD.ThreadInWarp,
                              MD.RegisterAllocUnit);
  return unsigned(MD.RegisterInMP / PerBlock);
}
} // namespace

Occupancy gpumerge::computeOccupancy(const MachineDescription &MD,
                                     const BlockResources &R) {
  Occupancy O;
  const unsigned T = R.ThreadsPerBlock;
  if (T == 0 || T > MD.ThreadInBlock || MD.ThreadInWarp == 0 ||
      R.RegistersPerThread > MD.MaxRegistersPerThread ||
      R.SharedBytesPerBlock > MD.SharedMemPerBlock)
    return O; // Invalid: the launch itself would fail.

  const unsigned WarpsPerBlock = (T + MD.ThreadInWarp - 1) / MD.ThreadInWarp;

  // A resource the block does not use reports ThreadBlockInMP, like the CUDA
  // calculator, and cannot be the Limit.
  const bool UsesRegisters = R.RegistersPerThread > 0;
  O.ByRegisters =
      UsesRegisters ? blocksByRegisters(MD, R.RegistersPerThread, WarpsPerBlock)
                    : MD.ThreadBlockInMP;

  // Shared memory is allocated in granules, and sm_80+ reserve 1 KB per
  // block for the system even when the kernel declares none (CUDA C
  // Programming Guide, "Shared Memory" for compute capabilities 8.x and 9.0).
  const uint64_t SharedNeed =
      uint64_t(R.SharedBytesPerBlock) + MD.SharedMemReservedPerBlock;
  const bool UsesShared = SharedNeed > 0;
  O.BySharedMemory = UsesShared
                         ? unsigned(MD.ShareMemoryInMP /
                                    roundUp(SharedNeed, MD.SharedMemAllocUnit))
                         : MD.ThreadBlockInMP;

  // Counted in warps rather than threads: a partial warp occupies a warp
  // slot. Equal to floor(ThreadInMP / T) for whole-warp blocks (G80: 768
  // threads = 24 warps, T = 256 -> 3).
  O.ByThreads = MD.WarpInMP / WarpsPerBlock;
  O.ByBlocks = MD.ThreadBlockInMP;

  O.BlocksPerSM =
      std::min({O.ByRegisters, O.BySharedMemory, O.ByThreads, O.ByBlocks});
  if (UsesRegisters && O.ByRegisters == O.BlocksPerSM)
    O.Limit = OccupancyLimit::Registers;
  else if (UsesShared && O.BySharedMemory == O.BlocksPerSM)
    O.Limit = OccupancyLimit::SharedMemory;
  else if (O.ByThreads == O.BlocksPerSM)
    O.Limit = OccupancyLimit::Threads;
  else
    O.Limit = OccupancyLimit::Blocks;

  O.WarpOccupancy = MD.WarpInMP == 0 ? 0.0
                                     : double(O.BlocksPerSM) * WarpsPerBlock /
                                           double(MD.WarpInMP);
  return O;
}

const char *gpumerge::occupancyLimitName(OccupancyLimit L) {
  switch (L) {
  case OccupancyLimit::Registers:
    return "registers";
  case OccupancyLimit::SharedMemory:
    return "shared-memory";
  case OccupancyLimit::Threads:
    return "threads";
  case OccupancyLimit::Blocks:
    return "blocks";
  case OccupancyLimit::Invalid:
    return "invalid";
  }
  return "invalid";
}
