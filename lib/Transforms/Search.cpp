//===- Search.cpp - The Fig. 12 search space, ranked without a GPU --------===//
#include "Transforms/Search.h"

#include "Analysis/Domain.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace gpumerge {

/// Shared reads per output in global-load units: weighted by the ratio of
/// DRAM to shared-memory bandwidth (0 where the description has no lanes).
static double sharedTraffic(const TiledKernel &K,
                            const MachineDescription &MD) {
  return K.SharedLoadsPerOutput * dramToSharedBandwidth(MD);
}

/// The share of memory latency that \p Blocks resident blocks of \p S hide:
/// all of it from a quarter of the SM's warps up.
static double latencyHiding(const TileShape &S, std::int64_t Blocks,
                            const MachineDescription &MD) {
  double Resident = double(Blocks) * double(S.Block[0] * S.Block[1]) /
                    double(MD.ThreadInWarp);
  double Wanted = double(MD.WarpInMP) / 4;
  return std::min(1.0, Resident / Wanted);
}

double versionCost(const TiledKernel &K, const TileShape &S,
                   const MachineDescription &MD, Occupancy &Occ) {
  BlockResources R;
  R.ThreadsPerBlock = unsigned(S.Block[0] * S.Block[1]);
  R.RegistersPerThread = K.EstimatedRegisters;
  R.SharedBytesPerBlock = unsigned(K.Kernel->Plan->SharedBytes);
  Occ = computeOccupancy(MD, R);
  double Hiding = latencyHiding(S, Occ.BlocksPerSM, MD);
  // The slower of the two memories, in global elements per output: shared
  // reads count at the ratio of DRAM to shared-memory bandwidth, so they
  // decide only once tiling has made global traffic small (mm: 4x4 register
  // tiles read 0.5 shared elements per step and output, 8x8 tiles 0.25).
  double Traffic = std::max(K.LoadsPerOutput, sharedTraffic(K, MD));
  return Traffic / std::max(Hiding, 1e-6);
}

/// How much longer than its per-output cost says \p V runs on a grid of
/// \p Blocks: the busiest SM holds ceil(Blocks / SMs) of them, and where
/// those are fewer than it can keep resident, fewer warps hide the latency
/// than the occupancy the cost assumed. 1 on a grid of many waves. gemm's
/// 64 x 64 tiles at 128^2 are 4 blocks on a GTX 480's 15 SMs: 3.75 times
/// the cost, where the simulator ran them 2.2 times slower than the input.
static double gridFactor(const RankedVersion &V, std::int64_t Blocks,
                         const MachineDescription &MD) {
  if (Blocks <= 0 || MD.SMCount == 0 || V.Occ.BlocksPerSM == 0)
    return 1;
  std::int64_t Busiest = llvm::divideCeil(Blocks, std::int64_t(MD.SMCount));
  std::int64_t Resident = std::min<std::int64_t>(Busiest, V.Occ.BlocksPerSM);
  double Spread = double(MD.SMCount) * double(Busiest) / double(Blocks);
  return Spread * latencyHiding(V.Shape, V.Occ.BlocksPerSM, MD) /
         std::max(latencyHiding(V.Shape, Resident, MD), 1e-6);
}

/// The threads of \p Origin's domain at its size hints (X first once
/// interchanged), where they evaluate.
static std::optional<std::array<std::int64_t, 2>>
hintedThreads(const Function &Origin, const KernelDomain &Domain,
              bool Interchange) {
  if (Origin.SizeHints.empty())
    return std::nullopt;
  auto D = evaluateDomain(Origin, Domain, Origin.SizeHints);
  if (!D) {
    llvm::consumeError(D.takeError());
    return std::nullopt;
  }
  // Threads, never negative (a degenerate hint is an empty domain).
  std::array<std::int64_t, 2> T = {std::max<std::int64_t>(0, (*D)[0]),
                                   std::max<std::int64_t>(0, (*D)[1])};
  if (Interchange)
    std::swap(T[0], T[1]);
  return T;
}

bool smallProblem(const Function &Origin, const MachineDescription &MD) {
  auto T = hintedThreads(Origin, findDomain(Origin), false);
  if (!T || MD.SMCount == 0 || MD.ThreadInMP == 0)
    return false;
  std::int64_t Threads = (*T)[0] * (*T)[1];
  return Threads > 0 &&
         Threads <= std::int64_t(MD.SMCount) * std::int64_t(MD.ThreadInMP);
}

double latencyChain(const RankedVersion &V, unsigned BlocksPerSM,
                    const MachineDescription &MD) {
  if (V.Blocks <= 0 || MD.SMCount == 0 || BlocksPerSM == 0)
    return 0;
  std::int64_t Busiest = llvm::divideCeil(V.Blocks, std::int64_t(MD.SMCount));
  std::int64_t Rounds = llvm::divideCeil(Busiest, std::int64_t(BlocksPerSM));
  // A global load weighs twice a shared one: it waits on L1 or L2 where a
  // shared load waits on the SM's own memory. Fitted to the seven versions
  // of gemm at 128^2 simulated on a GTX 480 (10 to 13 thousand cycles per
  // unit of chain); counted alike, 64 x 1 threads merged 2x2 (two global
  // loads a step) came out at 4.0 against 1x4's 5.2, and ran 75,109 cycles
  // against 63,482.
  return double(Rounds) * double(V.Shape.Merge[0] * V.Shape.Merge[1]) *
         (V.LoadInstructions + V.LoadsPerOutput);
}

std::string versionBound(const RankedVersion &V, const MachineDescription &MD) {
  double Shared = V.LoadInstructions - V.LoadsPerOutput;
  std::string Bound =
      V.SharedBound
          ? llvm::formatv(
                "shared-memory reads: {0:f3} elements a step and output, "
                "{1:f4} in global terms, over {2:f4} global loads",
                Shared, Shared * dramToSharedBandwidth(MD), V.LoadsPerOutput)
                .str()
          : llvm::formatv("global loads: {0:f4} elements a step and output",
                          V.LoadsPerOutput)
                .str();
  double Warps = double(V.Occ.BlocksPerSM) *
                 double(V.Shape.Block[0] * V.Shape.Block[1]) /
                 double(MD.ThreadInWarp);
  if (Warps < double(MD.WarpInMP) / 4)
    Bound += llvm::formatv("; latency: {0} resident warps, under the {1} "
                           "that hide it",
                           Warps, MD.WarpInMP / 4)
                 .str();
  if (V.GridFactor >= 1.05)
    Bound += llvm::formatv("; grid: {0} blocks at the size hints on {1} "
                           "SMs, {2:f2}x the cost",
                           V.Blocks, MD.SMCount, V.GridFactor)
                 .str();
  if (V.Chain > 0)
    Bound += llvm::formatv("; latency-bound at the size hints: chain {0:f2} "
                           "({1} outputs a thread)",
                           V.Chain, V.Shape.Merge[0] * V.Shape.Merge[1])
                 .str();
  return Bound;
}

std::vector<RankedVersion>
rankVersions(const Function &Origin, std::int64_t LoopTile,
             const MachineDescription &MD,
             std::optional<std::array<std::int64_t, 2>> FixedBlock,
             bool Interchange, bool WholeTiles, bool ByChain) {
  KernelDomain Domain = findDomain(Origin);
  unsigned Dims = Domain.Dims;
  // The threads at the size hints (the kernel's X first once interchanged),
  // to keep every SM busy.
  std::optional<std::array<std::int64_t, 2>> Hinted =
      hintedThreads(Origin, Domain, Interchange);
  bool Small = ByChain && smallProblem(Origin, MD);
  std::int64_t T = LoopTile > 0 ? LoopTile : MD.CoalescedThread;
  bool BothWays = MD.CoalescedThread >= MD.ThreadInWarp; // Fermi and later
  // 8x8 register tiles where a thread may hold enough registers (255: sm_70
  // and later): a step's shared-memory reads then feed twice the FMAs of a
  // 4x4 tile (towards a cuBLAS-class mm).
  bool BigRegisterTiles = MD.MaxRegistersPerThread >= 255;
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
    // Half as wide where register tiles are 8x8 (below): mm's 8x8 tile on
    // 16x16 threads is 128 x 128, where 32 x 8 threads make it 256 wide and
    // need w >= 256 for a whole tile. A half row of threads still reads
    // whole 32-byte sectors; the tiles themselves are loaded by the whole
    // block, flattened. Kept below only with thread merge in X, which makes
    // the tile T wide or more.
    if (BigRegisterTiles && BothWays && T % 2 == 0 &&
        T / 2 * 4 >= 2 * std::int64_t(MD.SectorBytes))
      for (std::int64_t By : {8, 16})
        Blocks.push_back({T / 2, By});
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
        if (Mx * My > (BigRegisterTiles ? 64 : 16))
          continue;
        if (!FixedBlock && B[0] < T && B[0] * Mx < T)
          continue;
        TileShape S{
            B, {Mx, My}, LoopTile, Interchange, WholeTiles && Mx * My > 1};
        // The paper's heuristic is about 256 threads per block; past 512,
        // two resident blocks leave under 32 registers a thread.
        if (B[0] * B[1] > std::min<std::int64_t>(MD.ThreadInBlock, 512))
          continue;
        // A merge that leaves SMs without a block at the size hints loses
        // more than it saves: strsm's 4096 columns merged 8 in X ran 2
        // blocks on an H200's 132 SMs (texture variant, 0.21x naive).
        if (Hinted && Mx * My > 1 &&
            llvm::divideCeil((*Hinted)[0], B[0] * Mx) *
                    llvm::divideCeil((*Hinted)[1], B[1] * My) <
                MD.SMCount)
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
        if (Hinted) {
          V.Blocks = llvm::divideCeil((*Hinted)[0], B[0] * Mx) *
                     llvm::divideCeil((*Hinted)[1], B[1] * My);
          V.GridFactor = gridFactor(V, V.Blocks, MD);
          V.Cost *= V.GridFactor;
        }
        V.LoadsPerOutput = K->LoadsPerOutput;
        V.LoadInstructions = K->LoadsPerOutput + K->SharedLoadsPerOutput;
        V.SharedBound = sharedTraffic(*K, MD) > K->LoadsPerOutput;
        V.Registers = K->EstimatedRegisters;
        V.SharedBytes = K->Kernel->Plan->SharedBytes;
        if (Small)
          V.Chain = latencyChain(V, V.Occ.BlocksPerSM, MD);
        Out.push_back(V);
      }
  }
  std::stable_sort(
      Out.begin(), Out.end(),
      [](const RankedVersion &A, const RankedVersion &B) {
        // A small problem: the shorter latency chain.
        if (A.Chain > 0 && B.Chain > 0 &&
            std::abs(A.Chain - B.Chain) > 0.01 * std::min(A.Chain, B.Chain))
          return A.Chain < B.Chain;
        // Costs within 1% are ties.
        if (std::abs(A.Cost - B.Cost) > 0.01 * std::min(A.Cost, B.Cost))
          return A.Cost < B.Cost;
        // Bound alike by shared memory: the one that moves
        // less global data (mm's 128 x 128 tile before its
        // 256 x 64 one, which needs w >= 256 to run).
        if (A.SharedBound && B.SharedBound &&
            A.LoadsPerOutput != B.LoadsPerOutput)
          return A.LoadsPerOutput < B.LoadsPerOutput;
        // Alike in traffic: markedly fewer load instructions
        // (over 25%), where merged outputs share a load that
        // hits in a cache or shared memory. conv's filter
        // value, read once for 8 outputs, took it from 3.54
        // to 3.0 ms on an H200 at 4096^2 (fw = fh = 32).
        double LA = A.LoadInstructions, LB = B.LoadInstructions;
        if (std::abs(LA - LB) > 0.25 * std::min(LA, LB))
          return LA < LB;
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
