//===- TilingTest.cpp - The generator behind coalesce and the merges ------===//
//
// Oracles from docs/design.md (bank-conflict degrees and padding; the
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
#include "Transforms/UnrollBudget.h"

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
  // docs/design.md: NB = 16, degree = gcd(stride, 16); stride 0 is a broadcast.
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
  // docs/design.md: an N x N multiply with a ti x tj tile loads
  // N^3 (1/ti + 1/tj) elements; per output and per step of k that is
  // 1/32 + 1/32.
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

/// The factor of the loop over a shared tile (`for (i = i0; i < i0 + T;`).
unsigned tileLoopUnroll(Function &F, const std::string &Iter) {
  unsigned U = 0;
  bool Found = false;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&S))
      if (!Found && L->Iter == Iter) {
        Found = true;
        U = L->Unroll;
      }
  });
  EXPECT_TRUE(Found) << "no loop over " << Iter;
  return U;
}

TEST(Tiling, TileLoopIsUnrolledWithinTheBudget) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("h100");
  // mm's 8x8 register tile: 64 statements a step, 32 steps: unrolled whole
  // (ptxas then reads a row of the A tile with 128-bit loads).
  auto K = generateTiled(*M->find("mm"), {{16, 16}, {8, 8}, 32}, MD);
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  ASSERT_EQ(K->TiledLoop, "i");
  EXPECT_EQ(tileLoopUnroll(*K->Kernel, "i"), 32u);
  EXPECT_NE(printFunctionDebug(*K->Kernel).find("#pragma unroll 32\n"),
            std::string::npos);
  // The remainder past the last whole tile keeps the loop as written.
  unsigned Loops = 0, Marked = 0;
  walkStmts(*K->Kernel->Body, [&](Stmt &S) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&S); L && L->Iter == "i") {
      ++Loops;
      Marked += L->Unroll > 0;
    }
  });
  EXPECT_EQ(Loops, 2u);
  EXPECT_EQ(Marked, 1u);

  // A 16x8 tile is 128 statements a step: 16 copies fit UnrollBudget.
  auto Big = generateTiled(*M->find("mm"), {{8, 16}, {16, 8}, 32}, MD);
  ASSERT_TRUE(bool(Big)) << llvm::toString(Big.takeError());
  EXPECT_EQ(tileLoopUnroll(*Big->Kernel, "i"), UnrollBudget / 128);
}

TEST(Tiling, MergedColumnsAreStoredSideBySideForWideSharedReads) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  // sm_90: copy k of thread t reads column 16k + t of b's tile, stored at
  // (k / 4) * 64 + k % 4 + 4t, so its copies 0-3 and 4-7 are two float4s.
  auto K = generateTiled(*M->find("mm"), {{16, 16}, {8, 8}, 32},
                         shippedTarget("h100"));
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  ASSERT_EQ(K->Staged.size(), 2u);
  EXPECT_EQ(K->Staged[0].Grouped, 1); // a: a row per thread row
  EXPECT_EQ(K->Staged[1].Grouped, 4);
  std::string Text = printFunctionDebug(*K->Kernel);
  for (const char *Read :
       {"b_s[i - i0][tidx * 4]", "b_s[i - i0][3 + tidx * 4]",
        "b_s[i - i0][64 + tidx * 4]", "b_s[i - i0][67 + tidx * 4]"})
    EXPECT_NE(Text.find(Read), std::string::npos) << Read << "\n" << Text;
  // The load still reads b along its rows; only where it stores moves.
  EXPECT_NE(Text.find("l2 % 128 / 64 * 64 + l2 % 128 / 16 % 4 + "
                      "l2 % 128 % 16 * 4] = b[(i0 + l2 / 128) * w + "
                      "(bidx * 128 + l2 % 128)]"),
            std::string::npos)
      << Text;

  // A paper target keeps the columns in memory order (no nvcc to combine
  // the reads), and so does a merge of fewer than 4 columns.
  auto Paper = generateTiled(*M->find("mm"), {{16, 16}, {8, 8}, 32},
                             shippedTarget("gtx480"));
  ASSERT_TRUE(bool(Paper)) << llvm::toString(Paper.takeError());
  EXPECT_EQ(Paper->Staged[1].Grouped, 1);
  auto Narrow = generateTiled(*M->find("mm"), {{32, 8}, {2, 4}, 32},
                              shippedTarget("h100"));
  ASSERT_TRUE(bool(Narrow)) << llvm::toString(Narrow.takeError());
  for (const StagedAccess &SA : Narrow->Staged)
    EXPECT_EQ(SA.Grouped, 1) << SA.Shared;
}

TEST(UnrollBudget, HalvesUntilTheCopiesFitAndDropsBelowTwo) {
  auto Loop = [](unsigned Statements, unsigned Unroll) {
    auto L = std::make_unique<ForStmt>();
    L->Iter = "i";
    L->Init = intLit(0);
    L->Bound = intLit(64);
    auto B = std::make_unique<BlockStmt>();
    for (unsigned I = 0; I < Statements; ++I)
      B->Body.push_back(
          std::make_unique<AssignStmt>(var("s"), AssignOp::Add, intLit(1)));
    L->Body = std::move(B);
    L->Unroll = Unroll;
    return L;
  };
  auto Small = Loop(2, 8);
  capUnrolling(*Small);
  EXPECT_EQ(Small->Unroll, 8u);
  auto Wide = Loop(100, 64);
  capUnrolling(*Wide);
  EXPECT_EQ(Wide->Unroll, 16u); // 1600 <= 2048 < 3200
  auto Huge = Loop(UnrollBudget, 32);
  capUnrolling(*Huge);
  EXPECT_EQ(Huge->Unroll, 0u);
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

// At size hints a version's grid is weighed against the SMs: gemm at 128^2
// on a GTX 480 (PolyBench's MINI size). Every ranked version's cost carries
// its grid factor, no merged version leaves an SM without a block, and the
// version the model takes at 4096^2 costs more at 128^2, where its few
// blocks leave SMs idle or hide little latency.
TEST(Search, SmallGridsCostWhatTheyLeaveIdle) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  MachineDescription MD = shippedTarget("gtx480");
  auto Small = M->find("mm")->clone();
  Small->SizeHints = {{"w", 128}, {"h", 128}, {"k", 128}};
  auto Large = M->find("mm")->clone();
  Large->SizeHints = {{"w", 4096}, {"h", 4096}, {"k", 4096}};
  auto AtSmall = rankVersions(*Small, MD.CoalescedThread, MD);
  auto AtLarge = rankVersions(*Large, MD.CoalescedThread, MD);
  ASSERT_FALSE(AtSmall.empty());
  ASSERT_FALSE(AtLarge.empty());
  for (const RankedVersion &V : AtSmall) {
    std::int64_t Blocks = ((128 + V.Shape.Block[0] * V.Shape.Merge[0] - 1) /
                           (V.Shape.Block[0] * V.Shape.Merge[0])) *
                          ((128 + V.Shape.Block[1] * V.Shape.Merge[1] - 1) /
                           (V.Shape.Block[1] * V.Shape.Merge[1]));
    EXPECT_EQ(V.Blocks, Blocks);
    EXPECT_GE(V.GridFactor, 1.0);
    if (V.Shape.Merge[0] * V.Shape.Merge[1] > 1) {
      EXPECT_GE(V.Blocks, std::int64_t(MD.SMCount));
    }
  }
  // Thousands of blocks: no factor worth a percent.
  for (const RankedVersion &V : AtLarge)
    EXPECT_LT(V.GridFactor, 1.01);
  const RankedVersion &Big = AtLarge.front();
  auto Same =
      std::find_if(AtSmall.begin(), AtSmall.end(), [&](const RankedVersion &V) {
        return V.Shape.Block == Big.Shape.Block &&
               V.Shape.Merge == Big.Shape.Merge;
      });
  // The 4096^2 choice is dropped at 128^2 (its grid leaves SMs without a
  // block) or costs more there.
  std::int64_t BigTileX = Big.Shape.Block[0] * Big.Shape.Merge[0],
               BigTileY = Big.Shape.Block[1] * Big.Shape.Merge[1];
  if (Same != AtSmall.end()) {
    EXPECT_GT(Same->Cost, Big.Cost * 1.2);
  } else {
    EXPECT_LT(((128 + BigTileX - 1) / BigTileX) *
                  ((128 + BigTileY - 1) / BigTileY),
              std::int64_t(MD.SMCount));
  }
  EXPECT_LE(AtSmall.front().Shape.Merge[0] * AtSmall.front().Shape.Merge[1],
            Big.Shape.Merge[0] * Big.Shape.Merge[1]);
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
