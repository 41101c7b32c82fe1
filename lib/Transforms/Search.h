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
};

/// Every legal version of \p Origin with loop tile \p LoopTile, best first.
/// \p FixedBlock: only versions with this block (thread merge after block
/// merge). Illegal or ungeneratable versions are left out, and so are
/// merged ones whose grid, at the kernel's size hints, has fewer blocks
/// than the target has SMs. \p WholeTiles:
/// merged versions drop the bounds guard (TileShape::WholeTiles).
std::vector<RankedVersion>
rankVersions(const Function &Origin, std::int64_t LoopTile,
             const MachineDescription &MD,
             std::optional<std::array<std::int64_t, 2>> FixedBlock = {},
             bool Interchange = false, bool WholeTiles = false);

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
