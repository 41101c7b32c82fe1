//===- WholeGroupsTest.cpp - A fast branch where every copy is inside -----===//
//
// Transforms/WholeGroups.h on kernels the generator merges without staging:
// which conditions the branch tests (the grid's corners for a convex guard,
// every distinct comparison otherwise), and that a body of another shape is
// left as it was.
//
//===----------------------------------------------------------------------===//

#include "Transforms/WholeGroups.h"
#include "IR/Printer.h"
#include "Transforms/Tiling.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

const char *Outer = R"(
__global__ void outer(const float *a, const float *b, float *c, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h GUARD)
    c[y * w + x] = a[y] * b[x];
}
)";

/// outer with \p Guard appended to its guard, merged Mx x My without
/// staging (each copy keeping the guard), and the branch made.
std::string branched(const std::string &Guard, std::int64_t Mx, std::int64_t My,
                     std::array<std::int64_t, 2> Claimed, bool &Made) {
  std::string Source = Outer;
  Source.replace(Source.find("GUARD"), 5, Guard);
  auto M = parseText(Source);
  if (!M)
    return "";
  auto K = generateTiled(*M->find("outer"), {{16, 16}, {Mx, My}, 0},
                         shippedTarget("h100"));
  if (!K) {
    ADD_FAILURE() << llvm::toString(K.takeError());
    return "";
  }
  EXPECT_TRUE(K->Kernel->Plan->GuardsDomain);
  Made = branchOnWholeGroups(*K->Kernel, Claimed);
  return printFunctionDebug(*K->Kernel);
}

TEST(WholeGroups, ConvexGuardTestsTheCornerCopies) {
  bool Made = false;
  std::string Code = branched("", 4, 2, {4, 2}, Made);
  ASSERT_TRUE(Made) << Code;
  // Copies (x_0, y_0) ... (x_3, y_1): the corners' comparisons, each once,
  // stand for the inner copies' (x_1, x_2).
  EXPECT_NE(Code.find("if (x_0 < w && y_0 < h && x_3 < w && y_1 < h) {"),
            std::string::npos)
      << Code;
  // The edges keep every copy with its own guard.
  EXPECT_NE(Code.find("} else {"), std::string::npos) << Code;
  EXPECT_NE(Code.find("if (x_2 < w && y_1 < h) {"), std::string::npos) << Code;
}

TEST(WholeGroups, OtherGuardTestsEveryComparisonOnce) {
  bool Made = false;
  std::string Code = branched("&& x != y", 2, 2, {2, 2}, Made);
  ASSERT_TRUE(Made) << Code;
  EXPECT_NE(Code.find("if (x_0 < w && y_0 < h && x_0 != y_0 && x_1 < w && "
                      "x_1 != y_0 && y_1 < h && x_0 != y_1 && x_1 != y_1) {"),
            std::string::npos)
      << Code;
}

TEST(WholeGroups, BodyOfAnotherShapeIsLeftAsItWas) {
  bool Made = true;
  std::string Plain = branched("", 2, 2, {2, 2}, Made);
  ASSERT_TRUE(Made);
  // Told of 8 copies where the body ends in 4: no branch, no change.
  std::string Code = branched("", 2, 2, {4, 2}, Made);
  EXPECT_FALSE(Made);
  EXPECT_EQ(Code.find("} else {"), std::string::npos) << Code;
  EXPECT_EQ(Code.find("if (x_0 < w && y_0 < h && x_1 < w"), std::string::npos)
      << Code;
}

} // namespace
