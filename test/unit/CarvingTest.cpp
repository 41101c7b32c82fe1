//===- CarvingTest.cpp - The carving metrics and their Pareto front -------===//
#include "Driver/Carving.h"

#include "TestKernels.h"

#include <gtest/gtest.h>

using namespace gpumerge;

namespace {

// docs/design.md, the carving oracle: 256 threads (8 warps) per block, 2 blocks
// per SM, 15150 instructions per thread in 769 regions, 2^24 threads.
TEST(Carving, PaperOracle) {
  EXPECT_NEAR(carvingEfficiency(15150, 16777216.0), 3.93e-12, 0.01e-12);
  EXPECT_NEAR(carvingUtilization(15150, 769, 8, 2), 226.6, 0.1);
  // A block that cannot run has no utilization.
  EXPECT_EQ(carvingUtilization(15150, 769, 8, 0), 0);
}

CarvingMetrics metrics(double E, double U) {
  CarvingMetrics M;
  M.Efficiency = E;
  M.Utilization = U;
  return M;
}

TEST(Carving, ParetoFrontKeepsWhatNothingBeatsOnBoth) {
  std::vector<CarvingMetrics> Ms = {
      metrics(1, 5), // front: the most utilization
      metrics(3, 3), // front
      metrics(2, 2), // dominated by (3, 3)
      metrics(4, 1), // front: the most efficiency
      metrics(3, 3), // equal to the second: collapses into it
      metrics(1, 4), // dominated by (1, 5)
  };
  std::vector<bool> Want = {true, true, false, true, false, false};
  EXPECT_EQ(paretoFront(Ms), Want);
}

// The counts behind the metrics: a loop's trips at the tuned sizes multiply
// its body; a barrier and each global load end a region.
TEST(Carving, CountsFollowTheLoopAtTheSizes) {
  auto M = parseText(R"(
__global__ void k(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++)
      s += a[j];
    b[i] = s;
  }
})");
  ASSERT_TRUE(M);
  Function *K = M->find("k");
  ASSERT_TRUE(K);
  LaunchPlan P;
  P.Block = {128, 1};
  P.Coverage = {1, 1};
  P.Extent[0] = std::shared_ptr<const Expr>(var("n"));
  P.EstimatedRegisters = 16;
  K->Plan = P;
  MachineDescription MD = shippedTarget("h100");
  CarvingMetrics Small = carvingMetrics(*K, MD, {{"n", 100}});
  CarvingMetrics Large = carvingMetrics(*K, MD, {{"n", 1000}});
  // 100 and 1000 trips: one global load each, plus b's store (no wait).
  EXPECT_EQ(Small.Regions, 101);
  EXPECT_EQ(Large.Regions, 1001);
  EXPECT_GT(Large.Instr, 9 * Small.Instr);
  EXPECT_EQ(Small.Threads, 128); // one block covers n = 100
  EXPECT_EQ(Large.Threads, 1024);
  EXPECT_EQ(Small.WarpsPerBlock, 4u);
  EXPECT_GT(Small.BlocksPerSM, 0u);
  EXPECT_GT(Small.Efficiency, Large.Efficiency);
}

} // namespace
