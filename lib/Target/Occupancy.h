//===- Occupancy.h - Resident blocks per SM -------------------*- C++ -*-===//
//
// docs/design.md, "Occupancy": B_SM = min(floor(RegsSM / alloc(r*T)),
// floor(SmemSM / alloc(s)), floor(ThreadsSM / T), BlocksSM), with alloc()
// rounding to the target's allocation granularity. The rounding follows
// NVIDIA's CUDA Occupancy Calculator: registers per warp (Fermi and later) or
// per block (GT200), shared memory in granules plus a per-block reservation
// (1 KB on sm_80 and later).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TARGET_OCCUPANCY_H
#define GPUMERGE_TARGET_OCCUPANCY_H

#include "Target/MachineDescription.h"

namespace gpumerge {

struct BlockResources {
  unsigned ThreadsPerBlock = 0;
  unsigned RegistersPerThread = 0;
  unsigned SharedBytesPerBlock = 0;
};

/// Which resource bounds BlocksPerSM. Invalid: the block exceeds a per-block
/// limit (ThreadInBlock, MaxRegistersPerThread, SharedMemPerBlock) or has no
/// threads, so it cannot be launched at all.
enum class OccupancyLimit { Registers, SharedMemory, Threads, Blocks, Invalid };

struct Occupancy {
  unsigned BlocksPerSM = 0; ///< 0: the block cannot run at all
  /// Blocks per SM allowed by each resource alone. A resource the block does
  /// not use (no registers, no shared memory and no reservation) reports
  /// ThreadBlockInMP, as the CUDA Occupancy Calculator does, and is never
  /// named as the Limit. All zero when Limit is Invalid.
  unsigned ByRegisters = 0, BySharedMemory = 0, ByThreads = 0, ByBlocks = 0;
  /// The resource giving the minimum; ties go to the first of Registers,
  /// SharedMemory, Threads, Blocks (the ones a transformation can change come
  /// first, so a tie tells the tuner that using more of them costs blocks).
  OccupancyLimit Limit = OccupancyLimit::Invalid;
  double WarpOccupancy = 0; ///< resident warps / WarpInMP
};

/// Resident blocks per SM for a block of \p R on \p MD. Pure; never fails:
/// an impossible block gives BlocksPerSM 0 with Limit Invalid (per-block limit
/// exceeded) or with the exhausted resource (e.g. r*T above RegisterInMP).
Occupancy computeOccupancy(const MachineDescription &MD,
                           const BlockResources &R);

/// "registers", "shared-memory", "threads", "blocks" or "invalid": stable
/// spellings for reports and JSON.
const char *occupancyLimitName(OccupancyLimit L);

} // namespace gpumerge

#endif
