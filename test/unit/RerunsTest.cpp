//===- RerunsTest.cpp - Does running a thread twice change what it leaves? ===//
#include "Analysis/Reruns.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

/// whyCopiesDiffer in Y of kernel k, whose body is \p Body.
std::string copiesDiffer(const std::string &Body, unsigned Dim = 1) {
  auto M = parseText("__global__ void k(const float *a, const float *x, "
                     "float *y, int n) {\n  int i = blockIdx.x * blockDim.x "
                     "+ threadIdx.x;\n" +
                     Body + "\n}\n");
  EXPECT_TRUE(M);
  return M ? whyCopiesDiffer(*M->kernels()[0], Dim) : "?";
}

TEST(Reruns, CopiesThatReadOnlyWhatTheyWroteLeaveWhatOneLeaves) {
  for (const char *Body : {
           // atax: set, then accumulated in place.
           "if (i < n) {\n  y[i] = 0;\n  for (int j = 0; j < n; j++)\n"
           "    y[i] += a[i * n + j] * x[j];\n}",
           // A plain map: nothing written is read.
           "if (i < n) y[i] = 2.0f * x[i];",
           // Written on both sides of a branch, then read.
           "if (i < n) {\n  if (x[i] > 0.0f) y[i] = 1.0f; else y[i] = "
           "x[i];\n  y[i] *= 2.0f;\n}",
           // The side that does not write returns.
           "if (i >= n) return;\ny[i] = x[i];\ny[i] += 1.0f;",
       })
    EXPECT_EQ(copiesDiffer(Body), "") << Body;
  // A position in Y, asked about Z.
  EXPECT_EQ(copiesDiffer("int r = blockIdx.y;\nif (i < n) y[i] = x[r];", 2),
            "");
}

TEST(Reruns, CopiesThatReadWhatTheyMayNotHaveWritten) {
  // mvt: accumulates into what the host set; a second copy adds again.
  EXPECT_EQ(copiesDiffer("if (i < n)\n  for (int j = 0; j < n; j++)\n"
                         "    y[i] += a[i * n + j] * x[j];"),
            "'y' at line 5 is read before this thread writes it");
  // Written only in a loop that may not run.
  EXPECT_EQ(copiesDiffer("for (int j = 0; j < n; j++)\n  y[i] = x[j];\n"
                         "y[i] += 1.0f;"),
            "'y' at line 5 is read before this thread writes it");
  // Written on one side of a branch.
  EXPECT_EQ(copiesDiffer("if (x[i] > 0.0f) y[i] = 1.0f;\ny[i] += 1.0f;"),
            "'y' at line 4 is read before this thread writes it");
  // Another thread's element.
  EXPECT_EQ(copiesDiffer("y[i] = x[i];\ny[i] += y[i + 1];"),
            "'y' at line 4 is read before this thread writes it");
  // An index whose variable changes between the write and the read.
  EXPECT_EQ(copiesDiffer("int j = i;\ny[j] = 0.0f;\nj = j + 1;\n"
                         "y[j] += 1.0f;"),
            "'y' at line 6 is read before this thread writes it");
  // The copies are told apart by their position in Y.
  EXPECT_EQ(copiesDiffer("if (threadIdx.y == 0) y[i] = x[i];"),
            "line 3 reads tidy");
  // They meet at a barrier.
  EXPECT_EQ(copiesDiffer("y[i] = x[i];\n__syncthreads();"),
            "line 4 waits for other threads");
}

} // namespace
