//===- Search.h - The Fig. 12 search space, ranked statically ---*- C++ -*-===//
//
// The paper runs every legal version and keeps the fastest. Without a GPU we
// rank them with a static model and emit the best; the ranked list is the
// seam for a timed search later (run the first few, keep the fastest).
//
// Space (Fig. 12, both directions on Fermi and later, one on GT200-class
// targets as the paper did on the GTX 285): after coalescing the block is
// (T, 1) with T the target's CoalescedThread; block merge takes it to
// (T·bx, by), bx ∈ {1, 2, 4}, by ∈ {1, 2, 4, 8, 16} (X only for 1-D
// kernels: bx ∈ {1, ..., 16}); thread merge then takes factors
// mx, my ∈ {1, 2, 4, 8} per thread.
//
// legal(): threads per block ≤ min(ThreadInBlock, 512); shared tiles ≤
// SharedMemPerBlock; estimated registers ≤ MaxRegistersPerThread (no
// spills); at least two resident blocks per SM (computeOccupancy).
//
// Model (docs/design.md, "Traffic" and "Occupancy"): the cost of a
// version is the global elements loaded per naive output per tile step
// (staged tiles count their footprint once per block; other accesses once
// per thread and per merged copy they vary with), divided by
// min(1, resident warps / (WarpInMP / 4)) so that versions keeping under a
// quarter of the SM's warps resident pay for the latency they cannot hide.
// At the kernel's size hints (a pragma, --size, or the sizes the host code
// launches it with) the cost is multiplied by its grid's factor: the
// busiest SM's blocks over the average, and the latency the warps they
// leave resident cannot hide (gridFactor).
// Ties go to markedly fewer load instructions per output (global and
// shared, over 25% apart: merged outputs that share a cached or shared
// value), then to fewer merged copies, then to more threads per block.
//
// A small problem (smallProblem: at the size hints every naive thread is
// resident at once, PolyBench's MINI 128 x 128 on a GTX 480's 15 SMs) is
// latency-bound, not bandwidth-bound: its data sits in L2, and each SM
// holds too few warps to overlap their loads. Its time is the chain of
// dependent loads the busiest SM's threads issue, one round of resident
// blocks after another: rounds x outputs a thread x load instructions per
// output, global ones counting twice (latencyChain). Versions rank by that chain first; the merge
// passes then recount it with ptxas's registers (MergeCommon.h), since the
// rounds hang on the blocks an SM holds.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_SEARCH_H
#define GPUMERGE_TRANSFORMS_SEARCH_H

#include "Target/Occupancy.h"
#include "Transforms/Tiling.h"

namespace gpumerge {

struct RankedVersion {
  TileShape Shape;
  double Cost = 0;
  double LoadsPerOutput = 0;
  /// Global and shared-memory loads per output and step: the load
  /// instructions the version issues, cached or not.
  double LoadInstructions = 0;
  /// Its cost is set by shared-memory reads, not global traffic.
  bool SharedBound = false;
  unsigned Registers = 0; ///< estimated from KIR
  std::int64_t SharedBytes = 0;
  Occupancy Occ;
  /// Its blocks at the kernel's size hints (0 without them), and how much
  /// that grid slows it: an SM with fewer blocks than it can hold hides
  /// less latency, and SMs left idle or a last partial wave lengthen the
  /// run (1 on a grid of many waves). Cost includes it.
  std::int64_t Blocks = 0;
  double GridFactor = 1;
  /// On a small problem (smallProblem), latencyChain at the estimated
  /// registers; it ranks first. 0 otherwise.
  double Chain = 0;
};

/// Is \p Origin at its size hints a problem whose naive threads are all
/// resident at once on \p MD (every SM full)? Then no version is
/// bandwidth-bound (see the file comment).
bool smallProblem(const Function &Origin, const MachineDescription &MD);

/// The latency chain of \p V where an SM holds \p BlocksPerSM of its
/// blocks: the rounds in which the busiest SM runs its share of V.Blocks,
/// times the outputs a thread computes, times the load instructions per
/// output (a global one counting twice). gemm at 128^2 on a GTX 480
/// (simulated): 32 x 8 threads merged 1x4 are 16 blocks, one round of
/// 4 x 1.38 = 5.5, 63,482 cycles; 32 x 4 merged 1x2 are 64 blocks, 5 an SM
/// at 47 registers, one round of 2 x 1.81 = 3.6, 47,232 cycles; 32 x 8
/// merged 1x2 hold 2 blocks an SM at 47 registers, two rounds of 3.4 = 6.8,
/// 77,705 cycles.
double latencyChain(const RankedVersion &V, unsigned BlocksPerSM,
                    const MachineDescription &MD);

/// Every legal version of \p Origin with loop tile \p LoopTile, best first.
/// \p FixedBlock: only versions with this block (thread merge after block
/// merge). Illegal or ungeneratable versions are left out, and so are
/// merged ones whose grid, at the kernel's size hints, has fewer blocks
/// than the target has SMs. \p WholeTiles:
/// merged versions drop the bounds guard (TileShape::WholeTiles).
/// \p ByChain: rank a small problem by its latency chain (Search.h's file
/// comment); callers pass whether ptxas counts the registers, which the
/// chain's rounds hang on (the estimate from KIR has gemm's 32 x 16 block
/// at 19 registers, 3 blocks an SM, where ptxas for sm_35 counts 48, one).
std::vector<RankedVersion> rankVersions(
    const Function &Origin, std::int64_t LoopTile, const MachineDescription &MD,
    std::optional<std::array<std::int64_t, 2>> FixedBlock = {},
    bool Interchange = false, bool WholeTiles = false, bool ByChain = false);

/// What bounds \p V in the model, for the report: the global loads per
/// output and step, or the shared-memory reads (weighed at the ratio of
/// DRAM to shared-memory bandwidth) where they weigh more, and the
/// latency the resident warps leave unhidden where they are under a
/// quarter of the SM's.
std::string versionBound(const RankedVersion &V, const MachineDescription &MD);

/// The cost of one generated version (for tests and the report).
double versionCost(const TiledKernel &K, const TileShape &S,
                   const MachineDescription &MD, Occupancy &Occ);

} // namespace gpumerge

#endif
