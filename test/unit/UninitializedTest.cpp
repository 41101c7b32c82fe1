//===- UninitializedTest.cpp - Locals read before anything sets them ------===//
#include "Analysis/Uninitialized.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

/// findUninitializedRead on kernel k, whose body is \p Body.
std::string uninitialized(const std::string &Body) {
  auto M =
      parseText("__global__ void k(const float *x, float *y, int n, int "
                "m) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n" +
                Body + "\n}\n");
  EXPECT_TRUE(M);
  return M ? findUninitializedRead(*M->kernels()[0]) : "?";
}

TEST(Uninitialized, ReadsOnAPathWhereNothingSetTheLocal) {
  // The loop may not run (m may be 0).
  EXPECT_EQ(uninitialized("float v;\nfor (int j = 0; j < m; j++)\n  v = "
                          "x[j];\ny[i] = v;"),
            "'v' at line 6: the loop at line 4, which sets it, may not run");
  // Set on one side of a branch.
  EXPECT_EQ(uninitialized("float v;\nif (x[i] > 0.0f)\n  v = 1.0f;\ny[i] = v;"),
            "'v' at line 6: no statement before sets it on every path");
  // Read before it is set.
  EXPECT_EQ(uninitialized("float s;\ns = s + x[i];\ny[i] = s;"),
            "'s' at line 4: no statement before sets it on every path");
}

TEST(Uninitialized, LocalsSetOnEveryPath) {
  for (const char *Body : {
           // C89 declarations, then set.
           "float v;\nint j;\nv = 0.0f;\nfor (j = 0; j < m; j++)\n  v += "
           "x[j];\ny[i] = v + j;",
           // Both sides of a branch.
           "float v;\nif (x[i] > 0.0f) v = 1.0f; else v = 2.0f;\ny[i] = v;",
           // The side that does not set it returns.
           "float v;\nif (i >= n) return;\nelse v = x[i];\ny[i] = v;",
           // A loop whose constant bounds run it.
           "float v;\nfor (int j = 0; j < 4; j++)\n  v = x[j];\ny[i] = v;",
           // A vector filled a component at a time.
           "float2 p;\np.x = x[i];\np.y = 1.0f;\ny[i] = p.x + p.y;",
       })
    EXPECT_EQ(uninitialized(Body), "") << Body;
}

} // namespace
