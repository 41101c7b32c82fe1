//===- BlockBoundsTest.cpp - Block sizes a kernel's shared arrays admit ---===//
#include "Analysis/BlockBounds.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

/// sharedArrayBlockBound of kernel k, whose body is \p Body.
std::array<std::int64_t, 2> bound(const std::string &Body) {
  auto M = parseText("__global__ void k(const float *x, float *y, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n" +
                     Body + "\n}\n");
  EXPECT_TRUE(M);
  return M ? sharedArrayBlockBound(*M->kernels()[0])
           : std::array<std::int64_t, 2>{-1, -1};
}

using Bound = std::array<std::int64_t, 2>;

TEST(BlockBounds, SharedArraysIndexedByTheThreadsPosition) {
  // Directly, and through a local set once.
  EXPECT_EQ(bound("__shared__ float t[64];\nt[threadIdx.x] = x[i];"),
            (Bound{64, 0}));
  EXPECT_EQ(bound("__shared__ float t[64];\nint l = threadIdx.x;\nt[l] = "
                  "x[i];\n__syncthreads();\ny[i] = t[l];"),
            (Bound{64, 0}));
  // Plus a constant: a halo of one.
  EXPECT_EQ(bound("__shared__ float t[130];\nt[threadIdx.x + 2] = x[i];"),
            (Bound{128, 0}));
  // Two dimensions; the smallest of two arrays.
  EXPECT_EQ(bound("__shared__ float t[8][33];\n__shared__ float u[16];\n"
                  "t[threadIdx.y][threadIdx.x + 1] = x[i];\nu[threadIdx.x] = "
                  "x[i];"),
            (Bound{16, 8}));
}

TEST(BlockBounds, NoBoundWhereTheIndexIsNotThePosition) {
  for (const char *Body : {
           // No shared array.
           "float t[4];\nt[threadIdx.x % 4] = x[i];",
           // Another index.
           "__shared__ float t[64];\nt[threadIdx.x % 64] = x[i];",
           // A local that changes.
           "__shared__ float t[64];\nint l = threadIdx.x;\nl = l % 64;\nt[l] "
           "= x[i];",
       })
    EXPECT_EQ(bound(Body), (Bound{0, 0})) << Body;
}

} // namespace
