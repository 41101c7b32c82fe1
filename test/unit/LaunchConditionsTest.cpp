//===- LaunchConditionsTest.cpp - When the optimized path runs ------------===//
//
// The launch-condition arithmetic decides, with no device, the sizes verify
// runs at and whether an emitted kernel's optimized path can run at all. A
// wrong answer either drops a good variant (Never where sizes exist) or
// keeps verify on the fallback (no sizes found where they exist), so each
// test pairs a case that holds with one that does not.
//
//===----------------------------------------------------------------------===//
#include "Analysis/LaunchConditions.h"
#include "TestKernels.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

const char *MM = GuardedMMSource;

/// No bounds guard: the launch alone sets the domain (--grid, or the grid
/// verify assumes).
const char *Scale = R"(
__global__ void scale(float *a, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = a[i] * s;
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

/// \p Naive with a 1-D launch plan of whole tiles of \p Tile threads.
std::unique_ptr<Function> tiled1D(const Function &Naive, std::int64_t Tile) {
  auto F = Naive.clone();
  F->Plan.emplace();
  F->Plan->Dims = 1;
  F->Plan->Block = {Tile, 1};
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

TEST(LaunchConditions, TileLargerThanAFixedGridNeverHolds) {
  // No guard: --grid fixes the domain, and no size can change it. A tile
  // of 64 needs the domain >= 64; a grid of 32 never gives it.
  auto M = parseText(Scale);
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  auto F = tiled1D(Naive, 64);
  std::vector<VerifyStage> Stages = {{&Naive, F.get(), {}}};
  auto Grid = [](std::int64_t X) {
    return std::optional<std::array<std::int64_t, 2>>({X, 1});
  };
  EXPECT_EQ(planSatisfiability({&Naive}, Stages, Grid(32)),
            PlanSatisfiability::Never);
  EXPECT_EQ(planSatisfiability({&Naive}, Stages, Grid(64)),
            PlanSatisfiability::Holds);
  EXPECT_EQ(planSatisfiability({&Naive}, Stages, Grid(8192)),
            PlanSatisfiability::Holds);
  // The launcher's own test agrees, and says why it falls back.
  std::string Failed;
  EXPECT_FALSE(planApplies(*F->Plan, {32, 1}, {}, Failed));
  EXPECT_NE(Failed.find("smaller than one tile (64)"), std::string::npos)
      << Failed;
  EXPECT_TRUE(planApplies(*F->Plan, {64, 1}, {}, Failed)) << Failed;
  EXPECT_TRUE(Failed.empty());
}

TEST(LaunchConditions, TileLargerThanAConstantGuardNeverHolds) {
  // `if (i < 32)`: the guard fixes the domain whatever the sizes.
  auto M = parseText(R"(
__global__ void head(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 32)
    a[i] = a[i] + n;
}
)");
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  auto Big = tiled1D(Naive, 64), Small = tiled1D(Naive, 32);
  EXPECT_EQ(planSatisfiability({&Naive}, {{&Naive, Big.get(), {}}}),
            PlanSatisfiability::Never);
  EXPECT_EQ(planSatisfiability({&Naive}, {{&Naive, Small.get(), {}}}),
            PlanSatisfiability::Holds);
}

TEST(LaunchConditions, SizesFoundWhereThePreconditionsHold) {
  // k % 4 == 0 (a float4 walk along k) and whole 16 x 16 tiles: the default
  // sizes (k = 53) take the fallback; the search finds sizes that do not.
  auto M = parseText(MM);
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  std::vector<ExprPtr> C;
  C.push_back(divisible(var("k"), 4));
  auto F = planned(Naive, std::move(C));

  SizeBindings Defaults = chooseSizes(Naive, {});
  std::string Failed;
  EXPECT_FALSE(
      planApplies(*F->Plan, {Defaults["w"], Defaults["h"]}, Defaults, Failed));
  EXPECT_NE(Failed.find("does not hold (test)"), std::string::npos) << Failed;

  std::vector<VerifyStage> Stages = {{&Naive, F.get(), {}}};
  auto S = sizesForOptimizedStages({&Naive}, Stages, {});
  ASSERT_TRUE(S);
  EXPECT_EQ(S->at("k") % 4, 0);
  EXPECT_TRUE(planApplies(*F->Plan, {S->at("w"), S->at("h")}, *S, Failed))
      << Failed;
  // Sizes verify can run at: the input kernel is sound there.
  EXPECT_EQ(sizeProblem({&Naive}, Stages, *S, {}), "");
  // The one-kernel form finds the same.
  auto P = sizesForOptimizedPath(Naive, *F, {});
  ASSERT_TRUE(P);
  EXPECT_EQ(*P, *S);
}

TEST(LaunchConditions, NoSizesWhereThePreconditionsNeverHold) {
  auto M = parseText(MM);
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  std::vector<ExprPtr> C;
  C.push_back(divisible(var("k"), 256));
  C.push_back(divisible(binary(BinaryOp::Sub, var("k"), intLit(1)), 32));
  auto F = planned(Naive, std::move(C));
  EXPECT_FALSE(sizesForOptimizedStages({&Naive}, {{&Naive, F.get(), {}}}, {}));
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

TEST(LaunchConditions, UnguardedDomainNeedsAGrid) {
  auto M = parseText(Scale);
  ASSERT_TRUE(M);
  const Function &K = *M->kernels()[0];
  auto D = sequenceDomain({&K}, {});
  ASSERT_FALSE(bool(D));
  EXPECT_NE(llvm::toString(D.takeError()).find("give --grid"),
            std::string::npos);
  // One element a thread whatever the grid: verify may pick one.
  auto G = assumedVerifyGrid({&K});
  ASSERT_TRUE(G);
  EXPECT_EQ((*G)[0], 8192);
  // A 2-D kernel's rows are a size: no grid of verify's choosing.
  auto MMod = parseText(MM);
  ASSERT_TRUE(MMod);
  EXPECT_FALSE(assumedVerifyGrid({MMod->kernels()[0]}));
}

TEST(LaunchConditions, RacingSizesAreAProblem) {
  // Rows of n elements, m columns written: where n < m, thread (n, 0)
  // writes what (0, 1) writes, and the input's result is not defined.
  auto M = parseText(R"(
__global__ void copy(const float *a, float *c, int m, int n, int h) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (j < m && i < h)
    c[i * n + j] = a[i * n + j];
}
)");
  ASSERT_TRUE(M);
  const Function &K = *M->kernels()[0];
  std::vector<VerifyStage> Stages = {{&K, &K, {}}};
  bool Race = true;
  EXPECT_EQ(
      sizeProblem({&K}, Stages, {{"m", 67}, {"n", 67}, {"h", 5}}, {}, &Race),
      "");
  EXPECT_FALSE(Race);
  std::string P =
      sizeProblem({&K}, Stages, {{"m", 67}, {"n", 45}, {"h", 5}}, {}, &Race);
  EXPECT_TRUE(Race);
  EXPECT_NE(P.find("write one element"), std::string::npos) << P;
  // An empty domain is a problem too, but not a race.
  P = sizeProblem({&K}, Stages, {{"m", 0}, {"n", 45}, {"h", 5}}, {}, &Race);
  EXPECT_FALSE(Race);
  EXPECT_NE(P.find("empty domain"), std::string::npos) << P;
}

TEST(LaunchConditions, TinyDomainsAreWidened) {
  // LU's `j = idx + k + 1; if (j < n)` at k = 67, n = 69 runs one thread.
  auto M = parseText(R"(
__global__ void lu(float *a, int n, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x + k + 1;
  if (j < n)
    a[j] = a[j] * 2.0f;
}
)");
  ASSERT_TRUE(M);
  const Function &K = *M->kernels()[0];
  std::vector<VerifyStage> Stages = {{&K, &K, {}}};
  SizeBindings Tiny = {{"n", 69}, {"k", 67}};
  auto Before = sequenceDomain({&K}, Tiny);
  ASSERT_TRUE(bool(Before)) << llvm::toString(Before.takeError());
  EXPECT_EQ((*Before)[0], 1);
  SizeBindings Wide = widenDomain({&K}, Stages, Tiny, {}, {});
  auto After = sequenceDomain({&K}, Wide);
  ASSERT_TRUE(bool(After)) << llvm::toString(After.takeError());
  EXPECT_GE((*After)[0], 16);
  EXPECT_EQ(sizeProblem({&K}, Stages, Wide, {}), "");
  // Sizes the user gave stay: with both given, nothing can change.
  EXPECT_EQ(widenDomain({&K}, Stages, Tiny, Tiny, {}), Tiny);
}

} // namespace
