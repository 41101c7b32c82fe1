//===- Occupancy.h - Resident blocks per SM -------------------*- C++ -*-===//
//
// reference/models.md, "Occupancy": B_SM = min(floor(RegsSM / alloc(r*T)),
// floor(SmemSM / alloc(s)), floor(ThreadsSM / T), BlocksSM), with alloc()
// rounding to the target's allocation granularity.
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

enum class OccupancyLimit { Registers, SharedMemory, Threads, Blocks, Invalid };

struct Occupancy {
  unsigned BlocksPerSM = 0; ///< 0: the block cannot run at all
  unsigned ByRegisters = 0, BySharedMemory = 0, ByThreads = 0, ByBlocks = 0;
  OccupancyLimit Limit = OccupancyLimit::Invalid;
  double WarpOccupancy = 0; ///< resident warps / WarpInMP
};

Occupancy computeOccupancy(const MachineDescription &MD,
                           const BlockResources &R);

const char *occupancyLimitName(OccupancyLimit L);

} // namespace gpumerge

#endif
