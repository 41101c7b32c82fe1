//===- EdgeKernelTest.cpp - What an optimized kernel's tiles leave --------===//
//
// The edge ranges past whole tiles, in naive coordinates (also after idx and
// idy were exchanged), and NAME_edge: the input's kernel with its positions
// offset and bounded, in CUDA and OpenCL.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "Frontend/Frontend.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

LaunchPlan plan2D(std::int64_t TileX, std::int64_t TileY) {
  LaunchPlan P;
  P.Dims = 2;
  P.Block = {TileX, TileY / 4};
  P.Coverage = {1, 4};
  return P;
}

TEST(EdgeKernel, RangesCoverWhatTheTilesLeaveOnce) {
  LaunchPlan P = plan2D(128, 64);
  // Whole tiles: nothing left.
  EXPECT_TRUE(edgeRanges(P, {256, 128}).empty());
  // 1000 x 1003: columns [896, 1000) of every row, then rows [960, 1003) of
  // the columns before.
  auto R = edgeRanges(P, {1000, 1003});
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0].Begin, (std::array<std::int64_t, 2>{896, 0}));
  EXPECT_EQ(R[0].End, (std::array<std::int64_t, 2>{1000, 1003}));
  EXPECT_EQ(R[1].Begin, (std::array<std::int64_t, 2>{0, 960}));
  EXPECT_EQ(R[1].End, (std::array<std::int64_t, 2>{896, 1003}));
  // Every naive position is in the tiles or in exactly one range.
  for (std::int64_t X : {0, 895, 896, 999})
    for (std::int64_t Y : {0, 959, 960, 1002}) {
      int In = X < 896 && Y < 960;
      for (const EdgeRange &E : R)
        In +=
            X >= E.Begin[0] && X < E.End[0] && Y >= E.Begin[1] && Y < E.End[1];
      EXPECT_EQ(In, 1) << X << ", " << Y;
    }
  // Only Y past whole tiles.
  R = edgeRanges(P, {256, 70});
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].Begin, (std::array<std::int64_t, 2>{0, 64}));
  EXPECT_EQ(R[0].End, (std::array<std::int64_t, 2>{256, 70}));
}

TEST(EdgeKernel, InterchangedPlansTileTheNaiveYAlongTheKernelX) {
  // The kernel's X walks the naive Y: a 128 x 64 tile of the kernel is 64
  // naive columns by 128 naive rows.
  LaunchPlan P = plan2D(128, 64);
  P.Interchanged = true;
  auto R = edgeRanges(P, {100, 300});
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0].Begin, (std::array<std::int64_t, 2>{64, 0}));
  EXPECT_EQ(R[0].End, (std::array<std::int64_t, 2>{100, 300}));
  EXPECT_EQ(R[1].Begin, (std::array<std::int64_t, 2>{0, 256}));
  EXPECT_EQ(R[1].End, (std::array<std::int64_t, 2>{64, 300}));
}

TEST(EdgeKernel, OneDimension) {
  LaunchPlan P;
  P.Dims = 1;
  P.Block = {256, 1};
  P.Coverage = {2, 1};
  auto R = edgeRanges(P, {1003, 1});
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].Begin[0], 512);
  EXPECT_EQ(R[0].End[0], 1003);
  EXPECT_EQ(edgeBlock(1), (std::array<std::int64_t, 2>{256, 1}));
  EXPECT_EQ(edgeBlock(2), (std::array<std::int64_t, 2>{32, 8}));
}

TEST(EdgeKernel, TheInputKernelOffsetAndBounded) {
  auto M = parseSource(R"(
__global__ void scale(const float *in, float *out, int n, int edge_x0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * edge_x0;
}
)",
                       "scale.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const Function &Naive = *(*M)->kernels()[0];
  auto Opt = Naive.clone();
  Opt->Plan.emplace();
  Opt->Plan->Dims = 1;
  Opt->Plan->Block = {256, 1};
  Opt->Plan->Origin = std::shared_ptr<const Function>(Naive.clone());
  auto E = edgeKernel(*Opt);
  EXPECT_EQ(E->Name, "scale_edge");
  EXPECT_FALSE(E->Plan);
  // Fresh names beside the input's (it has a parameter edge_x0).
  ASSERT_EQ(E->Params.size(), 6u);
  EXPECT_EQ(E->Params[4].Name, "edge_x01");
  EXPECT_EQ(E->Params[5].Name, "edge_x1");
  EXPECT_EQ(emitFunction(*E, Language::Cuda),
            "__global__ void scale_edge(const float *in, float *out, int n, "
            "int edge_x0, int edge_x01, int edge_x1) {\n"
            "  if (blockIdx.x * blockDim.x + threadIdx.x + edge_x01 >= "
            "edge_x1)\n"
            "    return;\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x + edge_x01;\n"
            "  if (i < n)\n"
            "    out[i] = in[i] * edge_x0;\n"
            "}\n");
  std::string CL = emitFunction(*E, Language::OpenCL);
  EXPECT_NE(CL.find("if (get_global_id(0) + edge_x01 >= edge_x1)"),
            std::string::npos)
      << CL;
}

} // namespace
