//===- TilingTest.cpp - The generator behind coalesce and the merges ------===//
//
// Oracles from reference/models.md (bank-conflict degrees and padding; the
// footprint of a matrix-multiply tile), the launch plan the generator
// derives (block, coverage, preconditions, disjoint arrays), which accesses
// go through shared memory for a given shape, what it refuses, and the
// ranking of the Fig. 12 space.
//
//===----------------------------------------------------------------------===//

#include "Transforms/Tiling.h"
#include "Analysis/BankConflicts.h"
#include "IR/Evaluate.h"
#include "IR/Printer.h"
#include "Target/MachineDescription.h"
#include "Transforms/Search.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

#include <numeric>

using namespace gpumerge;

namespace {

std::vector<std::int64_t> strided(std::int64_t Stride, unsigned N) {
  std::vector<std::int64_t> W;
  for (unsigned T = 0; T < N; ++T)
    W.push_back(T * Stride);
  return W;
}

TEST(BankConflicts, DegreeIsTheGcdOfStrideAndBanks) {
  // models.md: NB = 16, degree = gcd(stride, 16); stride 0 is a broadcast.
  for (std::int64_t Stride : {1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 17})
    EXPECT_EQ(conflictDegree(strided(Stride, 16), 16),
              unsigned(std::gcd(Stride, std::int64_t(16))))
        << "stride " << Stride;
  EXPECT_EQ(conflictDegree(strided(0, 16), 16), 1u);
}

TEST(BankConflicts, ColumnReadOfA16x16TileGetsPitch17) {
  auto Column = [](std::int64_t Pitch) {
    return std::vector<std::vector<std::int64_t>>{strided(Pitch, 16)};
  };
  EXPECT_EQ(16 + choosePadding(16, 16, Column), 17);
  // Row and column reads together still need an odd pitch.
  auto Both = [](std::int64_t Pitch) {
    return std::vector<std::vector<std::int64_t>>{strided(1, 16),
                                                  strided(Pitch, 16)};
  };
  EXPECT_EQ((16 + choosePadding(16, 16, Both)) % 2, 1);
  // Rows only: no padding.
  auto Rows = [](std::int64_t) {
    return std::vector<std::vector<std::int64_t>>{strided(1, 16)};
  };
  EXPECT_EQ(choosePadding(16, 16, Rows), 0);
}

TEST(Tiling, MatrixMultiplyTileMatchesTheFootprintModel) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("h100");
  // 32 x 8 threads, 1 x 4 outputs each: a 32 x 32 tile of C, k tiled by 32.
  auto K = generateTiled(*M->find("mm"), {{32, 8}, {1, 4}, 32}, MD);
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  // models.md: an N x N multiply with a ti x tj tile loads N^3 (1/ti + 1/tj)
  // elements; per output and per step of k that is 1/32 + 1/32.
  EXPECT_DOUBLE_EQ(K->LoadsPerOutput, 1.0 / 32 + 1.0 / 32);
  ASSERT_EQ(K->Staged.size(), 2u);
  EXPECT_EQ(K->Staged[0].Array, "a");
  EXPECT_EQ(K->Staged[1].Array, "b");
  EXPECT_EQ(K->TiledLoop, "i");

  const LaunchPlan &P = *K->Kernel->Plan;
  EXPECT_EQ(P.Block, (std::array<std::int64_t, 2>{32, 8}));
  EXPECT_EQ(P.Coverage, (std::array<std::int64_t, 2>{1, 4}));
  EXPECT_FALSE(P.GuardsDomain);
  ASSERT_TRUE(P.Extent[0] && P.Extent[1]);
  EXPECT_EQ(printExprDebug(*P.Extent[0]), "w");
  EXPECT_EQ(printExprDebug(*P.Extent[1]), "h");
  // Neither the domain nor k need be whole tiles: mm_edge computes what the
  // tiles leave, a remainder loop the iterations past whole tiles of k.
  EXPECT_TRUE(P.hasEdges());
  EXPECT_TRUE(P.Preconditions.empty());
  // a and b are kept on chip while c is written.
  EXPECT_EQ(P.Disjoint.size(), 2u);
  EXPECT_TRUE(P.Elements.count("a") && P.Elements.count("c"));
  EXPECT_EQ(P.SharedBytes, 2 * 32 * 32 * 4);
  EXPECT_TRUE(P.Origin);

  std::string Text = printFunctionDebug(*K->Kernel);
  EXPECT_NE(Text.find("sum_3"), std::string::npos) << Text;
  EXPECT_EQ(Text.find("sum_4"), std::string::npos) << Text;
  EXPECT_EQ(Text.find("if ("), std::string::npos)
      << "the guard is dropped: the kernel runs on whole tiles only\n"
      << Text;
  // The tiles of k end where whole tiles do; the loop as written runs on.
  EXPECT_NE(Text.find("i0 < k - k % 32"), std::string::npos) << Text;
  EXPECT_NE(Text.find("i = k - k % 32"), std::string::npos) << Text;
}

TEST(Tiling, WhatGoesThroughSharedMemoryDependsOnTheBlock) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("h100");
  // One row of threads: b[i*w + x] is coalesced and shared by no other
  // thread, so only a (read by the whole row) is staged.
  auto Row = generateTiled(*M->find("mm"), {{32, 1}, {1, 1}, 32}, MD);
  ASSERT_TRUE(bool(Row)) << llvm::toString(Row.takeError());
  ASSERT_EQ(Row->Staged.size(), 1u);
  EXPECT_EQ(Row->Staged[0].Array, "a");
  // No loop tile: nothing staged, the guard kept for each merged copy.
  auto Plain = generateTiled(*M->find("mm"), {{16, 16}, {1, 2}, 0}, MD);
  ASSERT_TRUE(bool(Plain)) << llvm::toString(Plain.takeError());
  EXPECT_TRUE(Plain->Staged.empty());
  EXPECT_TRUE(Plain->Kernel->Plan->GuardsDomain);
}

TEST(Tiling, UncoalescedRowsArePaddedOnHalfWarpTargets) {
  auto M = parseKernelFile("mv.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("gtx285");
  auto K = generateTiled(*M->find("mv"), {{16, 1}, {1, 1}, 16}, MD);
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  ASSERT_EQ(K->Staged.size(), 2u);
  EXPECT_TRUE(K->Staged[0].Uncoalesced);
  EXPECT_EQ(K->Staged[0].Extents, (std::vector<std::int64_t>{16, 17}));
  EXPECT_EQ(K->Staged[1].Extents, (std::vector<std::int64_t>{16}));
}

TEST(Tiling, TransposeWritesGoThroughATile) {
  auto M = parseKernelFile("tp.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("gtx285");
  auto K = generateTiled(*M->find("tp"), {{16, 16}, {1, 1}, 16}, MD);
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  ASSERT_EQ(K->Staged.size(), 1u);
  EXPECT_TRUE(K->Staged[0].IsWrite);
  EXPECT_EQ(K->Staged[0].Extents, (std::vector<std::int64_t>{16, 17}));
}

TEST(Tiling, InterchangeSwapsTheDomain) {
  auto M = parseKernelFile("madd_rowx.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("gtx480");
  TileShape S{{32, 8}, {1, 1}, 32, /*Interchange=*/true};
  auto K = generateTiled(*M->find("madd_rowx"), S, MD);
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  const LaunchPlan &P = *K->Kernel->Plan;
  EXPECT_TRUE(P.Interchanged);
  EXPECT_TRUE(P.GuardsDomain);
  // The kernel's X walks the columns (w), its Y the rows (h).
  EXPECT_EQ(printExprDebug(*P.Extent[0]), "w");
  EXPECT_EQ(printExprDebug(*P.Extent[1]), "h");
  // The plan keeps the input kernel (not the exchanged one) as its origin.
  EXPECT_NE(printFunctionDebug(*P.Origin).find("int row = idx"),
            std::string::npos)
      << printFunctionDebug(*P.Origin);
  EXPECT_NE(printFunctionDebug(*K->Kernel).find("int row = idy"),
            std::string::npos)
      << printFunctionDebug(*K->Kernel);
}

TEST(Tiling, Refusals) {
  MachineDescription MD = shippedTarget("h100");
  auto M = parseSource("__global__ void k(float *a, int n) {\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "  if (i < n) a[i] = threadIdx.x;\n"
                       "}\n",
                       "k.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  auto K = generateTiled(*(*M)->find("k"), {{64, 1}, {2, 1}, 0}, MD);
  ASSERT_FALSE(bool(K));
  EXPECT_NE(llvm::toString(K.takeError()).find("threadIdx"), std::string::npos);

  // strsm's inner loop runs to the outer iterator: no tile can divide it.
  auto S = parseKernelFile("strsm.cu");
  ASSERT_TRUE(S);
  auto T = generateTiled(*S->find("strsm"), {{32, 1}, {1, 1}, 32}, MD);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_TRUE(T->Staged.empty());
}

TEST(Search, RankingPrefersLessTrafficWithinTheLimits) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  for (const char *Name : {"gtx285", "gtx480", "h100"}) {
    MachineDescription MD = shippedTarget(Name);
    auto Vs = rankVersions(*M->find("mm"), MD.CoalescedThread, MD);
    ASSERT_FALSE(Vs.empty()) << Name;
    for (size_t I = 1; I < Vs.size(); ++I)
      EXPECT_LE(Vs[I - 1].Cost, Vs[I].Cost * 1.01) << Name;
    for (const RankedVersion &V : Vs) {
      EXPECT_GE(V.Occ.BlocksPerSM, 2u) << Name;
      EXPECT_LE(V.Shape.Block[0] * V.Shape.Block[1],
                std::int64_t(MD.ThreadInBlock));
      EXPECT_LE(V.SharedBytes, staticSharedLimit(MD));
    }
    // Merging must beat the coalesced block alone.
    EXPECT_LT(Vs.front().LoadsPerOutput, 1.0) << Name;
    // 8x8 register tiles only where a thread may hold 255 registers.
    for (const RankedVersion &V : Vs)
      EXPECT_LE(V.Shape.Merge[0] * V.Shape.Merge[1],
                MD.MaxRegistersPerThread >= 255 ? 64 : 16)
          << Name;
  }
}

TEST(Search, SharedMemoryBandwidthPicksTheEightByEightTile) {
  // H100: 3350 GB/s over 132 SMs at 1.98 GHz is 12.8 B a clock per SM,
  // against 128 B of shared memory.
  MachineDescription H100 = shippedTarget("h100");
  EXPECT_NEAR(dramToSharedBandwidth(H100), 0.1, 0.002);
  // The paper's GPUs keep the paper's model: global traffic only.
  EXPECT_EQ(dramToSharedBandwidth(shippedTarget("gtx480")), 0.0);

  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  auto Vs = rankVersions(*M->find("mm"), H100.CoalescedThread, H100);
  ASSERT_FALSE(Vs.empty());
  // A 4x4 tile reads (4 + 4) / 16 shared words per output step, 8x8 half
  // that: once staging has made global traffic small, shared memory
  // decides. Of the 8x8 tiles, all bound by shared memory alike, the
  // 128 x 128 one (16 x 16 threads) moves the least global data.
  const RankedVersion &Best = Vs.front();
  EXPECT_TRUE(Best.SharedBound);
  EXPECT_EQ(Best.Shape.Merge, (std::array<std::int64_t, 2>{8, 8}));
  EXPECT_EQ(Best.Shape.Block, (std::array<std::int64_t, 2>{16, 16}));
  for (const RankedVersion &V : Vs) {
    if (V.Shape.Merge == std::array<std::int64_t, 2>{4, 4}) {
      EXPECT_GT(V.Cost, Best.Cost * 1.5);
    }
  }
  // A block narrower than the coalescing width only with thread merge in X
  // making the tile at least that wide.
  for (const RankedVersion &V : Vs) {
    if (V.Shape.Block[0] < std::int64_t(H100.CoalescedThread)) {
      EXPECT_GE(V.Shape.Block[0] * V.Shape.Merge[0],
                std::int64_t(H100.CoalescedThread));
    }
  }
}

} // namespace
