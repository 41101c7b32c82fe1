//===- LaunchConditionsTest.cpp - When the optimized path runs ------------===//
//
// The launch-condition arithmetic decides, with no device, the sizes verify
// runs at and whether an emitted kernel's optimized path can run at all. A
// wrong answer either drops a good variant (Never where sizes exist) or
// keeps verify on the fallback (no sizes found where they exist), so each
// test pairs a case that holds with one that does not.
//
//===----------------------------------------------------------------------===//
#include "Runtime/LaunchConditions.h"
#include "TestKernels.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

const char *MM = R"(
__global__ void mm(const float *a, const float *b, float *c, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}
)";

/// \p Naive with a launch plan of whole 16 x 16 tiles whose preconditions
/// are \p Conditions.
std::unique_ptr<Function> planned(const Function &Naive,
                                  std::vector<ExprPtr> Conditions) {
  auto F = Naive.clone();
  F->Plan.emplace();
  F->Plan->Dims = 2;
  F->Plan->Block = {16, 16};
  for (ExprPtr &C : Conditions)
    F->Plan->Preconditions.push_back({std::move(C), "test"});
  return F;
}

ExprPtr divisible(ExprPtr E, std::int64_t M) {
  return binary(BinaryOp::EQ, binary(BinaryOp::Rem, std::move(E), intLit(M)),
                intLit(0));
}

TEST(LaunchConditions, DefaultSizesAreAwkward) {
  auto M = parseText(MM);
  ASSERT_TRUE(M);
  SizeBindings S = chooseSizes(*M->kernels()[0], {});
  ASSERT_EQ(S.size(), 3u);
  for (auto &[Name, V] : S)
    EXPECT_NE(V % 16, 0) << Name;
  EXPECT_NE(S["w"], S["h"]);
}

TEST(LaunchConditions, SizeHintsAreScaledDown) {
  auto M = parseText(
      std::string("#pragma gpumerge size(w=4096, h=2048, k=8)\n") + MM);
  ASSERT_TRUE(M);
  SizeBindings S = chooseSizes(*M->kernels()[0], {{"h", 100}});
  EXPECT_EQ(S["h"], 100);           // given
  EXPECT_EQ(S["k"], 8);             // small hints are kept
  EXPECT_EQ(S["w"], 4096 / 32 + 3); // large ones scaled, off the 16-grid
}

TEST(LaunchConditions, PlanSatisfiability) {
  auto M = parseText(MM);
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  auto Check = [&](std::vector<ExprPtr> C, SizeBindings *W = nullptr) {
    auto F = planned(Naive, std::move(C));
    return planSatisfiability({&Naive}, {{&Naive, F.get(), {}}}, {}, W);
  };
  std::vector<ExprPtr> C;
  // Whole tiles alone: w and h multiples of 16.
  SizeBindings W;
  EXPECT_EQ(Check({}, &W), PlanSatisfiability::Holds);
  EXPECT_EQ(W["w"] % 16, 0);
  EXPECT_EQ(W["h"] % 16, 0);
  // A constant that never holds: 5 % 32 == 0.
  C.push_back(divisible(intLit(5), 32));
  EXPECT_EQ(Check(std::move(C)), PlanSatisfiability::Never);
  // One size, two periodic conditions that exclude each other:
  // k % 256 == 0 and (k - 1) % 32 == 0.
  C.clear();
  C.push_back(divisible(var("k"), 256));
  C.push_back(divisible(binary(BinaryOp::Sub, var("k"), intLit(1)), 32));
  EXPECT_EQ(Check(std::move(C)), PlanSatisfiability::Never);
  // One size, compatible: k % 256 == 0 and k % 32 == 0.
  C.clear();
  C.push_back(divisible(var("k"), 256));
  C.push_back(divisible(var("k"), 32));
  W.clear();
  EXPECT_EQ(Check(std::move(C), &W), PlanSatisfiability::Holds);
  EXPECT_EQ(W["k"] % 256, 0);
  // Several sizes and no solution: undecided, never `Holds`.
  C.clear();
  C.push_back(divisible(add(var("w"), var("k")), 2));
  C.push_back(divisible(add(add(var("w"), var("k")), intLit(1)), 2));
  EXPECT_EQ(Check(std::move(C)), PlanSatisfiability::Unknown);
}

TEST(LaunchConditions, GridGivesOnlyUnguardedDimensions) {
  // The guard bounds X and Y: --grid does not override them.
  auto M = parseText(MM);
  ASSERT_TRUE(M);
  std::array<bool, 2> Guarded;
  auto D = sequenceDomain({M->kernels()[0]}, {{"w", 37}, {"h", 21}, {"k", 5}},
                          std::array<std::int64_t, 2>{256, 256}, &Guarded);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ((*D)[0], 37);
  EXPECT_EQ((*D)[1], 21);
  EXPECT_TRUE(Guarded[0] && Guarded[1]);
}

} // namespace
