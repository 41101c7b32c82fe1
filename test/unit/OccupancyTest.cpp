//===- OccupancyTest.cpp - Resident blocks per SM -------------------------===//
//
// The oracles of docs/design.md, "Occupancy", exactly; one case per
// limiting resource; the allocation granularities of the shipped targets.
//
//===----------------------------------------------------------------------===//

#include "Target/Occupancy.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

/// G80 as docs/design.md states it: 8192 registers, 16 KB shared memory, 768
/// threads (24 warps), 8 blocks per SM, and no allocation granularity.
MachineDescription g80() {
  MachineDescription MD;
  MD.Name = "g80";
  MD.ThreadInWarp = 32;
  MD.WarpInMP = 24;
  MD.ThreadInMP = 768;
  MD.ThreadBlockInMP = 8;
  MD.RegisterInMP = 8192;
  MD.ThreadInBlock = 512;
  MD.ShareMemoryInMP = 16384;
  MD.MaxRegistersPerThread = 124;
  MD.RegisterAllocation = RegisterGranularity::Block;
  MD.RegisterAllocUnit = 1;
  MD.SharedMemPerBlock = 16384;
  MD.SharedMemAllocUnit = 1;
  MD.SharedMemReservedPerBlock = 0;
  return MD;
}

/// The Fermi C2070 of docs/design.md with 16 KB of shared memory per SM,
/// 512-byte shared granules plus 32 bytes per block (2080 B -> 2560 B), on a
/// 32-warp SM, with registers to spare.
MachineDescription c2070() {
  MachineDescription MD;
  MD.Name = "c2070";
  MD.ThreadInWarp = 32;
  MD.WarpInMP = 32;
  MD.ThreadInMP = 1024;
  MD.ThreadBlockInMP = 8;
  MD.RegisterInMP = 32768;
  MD.ThreadInBlock = 1024;
  MD.ShareMemoryInMP = 16384;
  MD.MaxRegistersPerThread = 63;
  MD.RegisterAllocation = RegisterGranularity::Warp;
  MD.RegisterAllocUnit = 64;
  MD.SharedMemPerBlock = 16384;
  MD.SharedMemAllocUnit = 512;
  MD.SharedMemReservedPerBlock = 32;
  return MD;
}

MachineDescription shipped(const char *Name) {
  llvm::Expected<MachineDescription> MD = loadTarget(Name, defaultTargetsDir());
  if (!MD) {
    ADD_FAILURE() << llvm::toString(MD.takeError());
    return MachineDescription();
  }
  return *MD;
}

Occupancy occupancy(const MachineDescription &MD, unsigned Threads,
                    unsigned Registers, unsigned SharedBytes) {
  BlockResources R;
  R.ThreadsPerBlock = Threads;
  R.RegistersPerThread = Registers;
  R.SharedBytesPerBlock = SharedBytes;
  return computeOccupancy(MD, R);
}

// --- docs/design.md oracles -----------------------------------------------

TEST(OccupancyTest, G80Oracles) {
  const MachineDescription G80 = g80();
  // T=256, r=10, s=4 KB -> 3 blocks.
  Occupancy O = occupancy(G80, 256, 10, 4096);
  EXPECT_EQ(O.BlocksPerSM, 3u);
  EXPECT_EQ(O.ByRegisters, 3u); // 8192 / 2560
  EXPECT_EQ(O.BySharedMemory, 4u);
  EXPECT_EQ(O.ByThreads, 3u);
  EXPECT_DOUBLE_EQ(O.WarpOccupancy, 1.0);

  // r=11 -> 2 blocks (11 * 256 * 3 = 8448 > 8192).
  O = occupancy(G80, 256, 11, 4096);
  EXPECT_EQ(O.BlocksPerSM, 2u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);

  // s=5 KB, r=10 -> 3 blocks.
  EXPECT_EQ(occupancy(G80, 256, 10, 5 * 1024).BlocksPerSM, 3u);

  // T=256, r=13, s=2088 B -> 2 blocks (8192 / 3328 = 2.46).
  O = occupancy(G80, 256, 13, 2088);
  EXPECT_EQ(O.BlocksPerSM, 2u);
  EXPECT_EQ(O.ByRegisters, 2u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);
}

TEST(OccupancyTest, C2070Oracle) {
  const MachineDescription C2070 = c2070();
  // 2080 B + 32 B rounded to 512 B granules = 2560 B: 6 blocks in 16 KB;
  // 256 threads (8 warps) on a 32-warp SM -> 4 blocks overall.
  Occupancy O = occupancy(C2070, 256, 16, 2080);
  EXPECT_EQ(O.BySharedMemory, 6u);
  EXPECT_EQ(O.ByThreads, 4u);
  EXPECT_EQ(O.BlocksPerSM, 4u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Threads);

  // 8224 B -> 8704 B: one block by shared memory.
  O = occupancy(C2070, 256, 16, 8224);
  EXPECT_EQ(O.BySharedMemory, 1u);
  EXPECT_EQ(O.BlocksPerSM, 1u);
  EXPECT_EQ(O.Limit, OccupancyLimit::SharedMemory);
}

// --- One case per limit ---------------------------------------------------

TEST(OccupancyTest, LimitedByRegisters) {
  Occupancy O = occupancy(g80(), 128, 20, 0); // 8192 / 2560 = 3.2
  EXPECT_EQ(O.BlocksPerSM, 3u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);
  EXPECT_STREQ(occupancyLimitName(O.Limit), "registers");
}

TEST(OccupancyTest, LimitedBySharedMemory) {
  Occupancy O = occupancy(g80(), 64, 8, 6000); // 16384 / 6000 = 2.7
  EXPECT_EQ(O.BlocksPerSM, 2u);
  EXPECT_EQ(O.Limit, OccupancyLimit::SharedMemory);
  EXPECT_STREQ(occupancyLimitName(O.Limit), "shared-memory");
}

TEST(OccupancyTest, LimitedByThreads) {
  Occupancy O = occupancy(g80(), 256, 8, 0); // 24 warps / 8
  EXPECT_EQ(O.ByRegisters, 4u);
  EXPECT_EQ(O.BlocksPerSM, 3u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Threads);
  EXPECT_STREQ(occupancyLimitName(O.Limit), "threads");
}

TEST(OccupancyTest, LimitedByBlocks) {
  Occupancy O = occupancy(g80(), 32, 8, 0);
  EXPECT_EQ(O.ByRegisters, 32u);
  EXPECT_EQ(O.ByThreads, 24u);
  EXPECT_EQ(O.BlocksPerSM, 8u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Blocks);
  EXPECT_STREQ(occupancyLimitName(O.Limit), "blocks");
  EXPECT_DOUBLE_EQ(O.WarpOccupancy, 8.0 / 24.0);
}

TEST(OccupancyTest, UnusedResourcesDoNotLimit) {
  // No registers and no shared memory: both report ThreadBlockInMP and the
  // limit is the block count, not a tie with an unused resource.
  Occupancy O = occupancy(g80(), 64, 0, 0);
  EXPECT_EQ(O.ByRegisters, 8u);
  EXPECT_EQ(O.BySharedMemory, 8u);
  EXPECT_EQ(O.BlocksPerSM, 8u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Blocks);
}

TEST(OccupancyTest, InvalidBlocks) {
  const MachineDescription G80 = g80();
  for (Occupancy O :
       {occupancy(G80, 1024, 10, 0),       // T > ThreadInBlock
        occupancy(G80, 0, 10, 0),          // no threads
        occupancy(G80, 256, 200, 0),       // r > MaxRegisters
        occupancy(G80, 256, 10, 20000)}) { // s > SharedMemPerBlock
    EXPECT_EQ(O.BlocksPerSM, 0u);
    EXPECT_EQ(O.Limit, OccupancyLimit::Invalid);
    EXPECT_DOUBLE_EQ(O.WarpOccupancy, 0.0);
  }
  EXPECT_STREQ(occupancyLimitName(OccupancyLimit::Invalid), "invalid");
}

TEST(OccupancyTest, LaunchableButNoBlockFits) {
  // Each limit alone is respected, but 512 x 20 registers exceed the SM.
  Occupancy O = occupancy(g80(), 512, 20, 0);
  EXPECT_EQ(O.BlocksPerSM, 0u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);
}

TEST(OccupancyTest, PartialWarpsCountAsWarps) {
  // 100 threads occupy 4 warp slots: 24 / 4 = 6 blocks, not 768 / 100 = 7.
  Occupancy O = occupancy(g80(), 100, 0, 0);
  EXPECT_EQ(O.ByThreads, 6u);
}

// --- The shipped targets' granularities -----------------------------------

TEST(OccupancyTest, H100) {
  const MachineDescription H100 = shipped("h100");
  // T=256, r=32: 1024 registers per warp, 64 warps fit = 8 blocks, as many
  // as 2048 threads allow. A tie, reported as Registers (the tie order).
  Occupancy O = occupancy(H100, 256, 32, 0);
  EXPECT_EQ(O.BlocksPerSM, 8u);
  EXPECT_EQ(O.ByThreads, 8u);
  EXPECT_EQ(O.ByRegisters, 8u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);
  EXPECT_DOUBLE_EQ(O.WarpOccupancy, 1.0);
  // s=0 still costs the 1 KB system reservation: 228 blocks' worth.
  EXPECT_EQ(O.BySharedMemory, 228u);

  // r=24: registers to spare, the thread limit alone binds.
  O = occupancy(H100, 256, 24, 0);
  EXPECT_EQ(O.BlocksPerSM, 8u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Threads);

  // r=64 -> 4 blocks by registers.
  O = occupancy(H100, 256, 64, 0);
  EXPECT_EQ(O.BlocksPerSM, 4u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);
  EXPECT_DOUBLE_EQ(O.WarpOccupancy, 0.5);

  // 56.5 KB per block: with the 1 KB reservation 57.5 KB, 3 fit in 228 KB
  // (without it 4 would).
  O = occupancy(H100, 256, 32, 57856);
  EXPECT_EQ(O.BySharedMemory, 3u);
  EXPECT_EQ(O.Limit, OccupancyLimit::SharedMemory);

  // The largest block: 227 KB, one per SM.
  EXPECT_EQ(occupancy(H100, 256, 32, 227 * 1024).BlocksPerSM, 1u);
  EXPECT_EQ(occupancy(H100, 256, 32, 227 * 1024 + 1).Limit,
            OccupancyLimit::Invalid);
}

TEST(OccupancyTest, FermiRoundsRegistersPerWarp) {
  // r=21: 672 registers per warp rounded to 704 (unit 64); 32768 / 704 = 46
  // warps = 5 blocks of 8 warps. Without the rounding it would be 6.
  Occupancy O = occupancy(shipped("gtx480"), 256, 21, 0);
  EXPECT_EQ(O.ByRegisters, 5u);
  EXPECT_EQ(O.ByThreads, 6u);
  EXPECT_EQ(O.BlocksPerSM, 5u);
}

TEST(OccupancyTest, GT200RoundsRegistersPerBlock) {
  // r=17, T=128: 2176 registers rounded to 2560 (unit 512); 16384 / 2560 =
  // 6 blocks. Without the rounding it would be 7.
  Occupancy O = occupancy(shipped("gtx285"), 128, 17, 0);
  EXPECT_EQ(O.ByRegisters, 6u);
  EXPECT_EQ(O.BlocksPerSM, 6u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Registers);
}

TEST(OccupancyTest, AmdWavefronts) {
  // HD 5870: 64-wide wavefronts, 24 per SIMD; a 256-item work-group is 4
  // wavefronts -> 6 work-groups by wavefronts; r=8 needs 512 registers per
  // wavefront -> 128 wavefronts' worth, not limiting.
  Occupancy O = occupancy(shipped("hd5870"), 256, 8, 0);
  EXPECT_EQ(O.ByThreads, 6u);
  EXPECT_EQ(O.BlocksPerSM, 6u);
  EXPECT_EQ(O.Limit, OccupancyLimit::Threads);
}

} // namespace
