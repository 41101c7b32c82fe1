//===- Search.cpp - The Fig. 12 search space, ranked without a GPU --------===//
#include "Transforms/Search.h"

#include "Analysis/Domain.h"

#include <algorithm>

namespace gpumerge {

double versionCost(const TiledKernel &K, const TileShape &S,
                   const MachineDescription &MD, Occupancy &Occ) {
  BlockResources R;
  R.ThreadsPerBlock = unsigned(S.Block[0] * S.Block[1]);
  R.RegistersPerThread = K.EstimatedRegisters;
  R.SharedBytesPerBlock = unsigned(K.Kernel->Plan->SharedBytes);
  Occ = computeOccupancy(MD, R);
  double Resident = double(Occ.BlocksPerSM) * double(R.ThreadsPerBlock) /
                    double(MD.ThreadInWarp);
  double Wanted = double(MD.WarpInMP) / 4;
  double Hiding = std::min(1.0, Resident / Wanted);
  return K.LoadsPerOutput / std::max(Hiding, 1e-6);
}

std::vector<RankedVersion>
rankVersions(const Function &Origin, std::int64_t LoopTile,
             const MachineDescription &MD,
             std::optional<std::array<std::int64_t, 2>> FixedBlock,
             bool Interchange, bool WholeTiles) {
  unsigned Dims = findDomain(Origin).Dims;
  std::int64_t T = LoopTile > 0 ? LoopTile : MD.CoalescedThread;
  bool BothWays = MD.CoalescedThread >= MD.ThreadInWarp; // Fermi and later
  std::vector<std::array<std::int64_t, 2>> Blocks;
  if (FixedBlock) {
    Blocks.push_back(*FixedBlock);
  } else if (Dims == 1) {
    for (std::int64_t Bx : {1, 2, 4, 8, 16})
      Blocks.push_back({T * Bx, 1});
  } else {
    for (std::int64_t Bx : {1, 2, 4})
      for (std::int64_t By : {1, 2, 4, 8, 16})
        if (BothWays || Bx == 1)
          Blocks.push_back({T * Bx, By});
  }
  std::vector<RankedVersion> Out;
  for (const auto &B : Blocks) {
    for (std::int64_t Mx : {1, 2, 4, 8})
      for (std::int64_t My : {1, 2, 4, 8}) {
        if (Dims == 1 && My > 1)
          continue;
        // A GT200-class target merges in one direction (Y when 2-D).
        if (!BothWays && Dims == 2 && Mx > 1)
          continue;
        if (Mx * My > 16)
          continue;
        TileShape S{
            B, {Mx, My}, LoopTile, Interchange, WholeTiles && Mx * My > 1};
        // The paper's heuristic is about 256 threads per block; past 512,
        // two resident blocks leave under 32 registers a thread.
        if (B[0] * B[1] > std::min<std::int64_t>(MD.ThreadInBlock, 512))
          continue;
        auto K = generateTiled(Origin, S, MD);
        if (!K) {
          llvm::consumeError(K.takeError());
          continue;
        }
        if (K->EstimatedRegisters > MD.MaxRegistersPerThread ||
            K->Kernel->Plan->SharedBytes > staticSharedLimit(MD))
          continue;
        RankedVersion V;
        V.Shape = S;
        V.Cost = versionCost(*K, S, MD, V.Occ);
        if (V.Occ.BlocksPerSM < 2)
          continue;
        V.LoadsPerOutput = K->LoadsPerOutput;
        V.Registers = K->EstimatedRegisters;
        V.SharedBytes = K->Kernel->Plan->SharedBytes;
        Out.push_back(V);
      }
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [](const RankedVersion &A, const RankedVersion &B) {
                     // Costs within 1% are ties.
                     if (std::abs(A.Cost - B.Cost) >
                         0.01 * std::min(A.Cost, B.Cost))
                       return A.Cost < B.Cost;
                     std::int64_t CA = A.Shape.Merge[0] * A.Shape.Merge[1];
                     std::int64_t CB = B.Shape.Merge[0] * B.Shape.Merge[1];
                     if (CA != CB)
                       return CA < CB;
                     return A.Shape.Block[0] * A.Shape.Block[1] >
                            B.Shape.Block[0] * B.Shape.Block[1];
                   });
  return Out;
}

} // namespace gpumerge
