//===- ScalarReplaceTest.cpp - The scalar-replace pass --------------------===//
//
// The pass on parsed kernels: gemm_accum's accumulator goes to a register and
// the plan records which arrays must not overlap it, with their symbolic
// element counts; what it must leave alone (mm, an index through a local
// reassigned in the loop, two indices, a loop bound reading the array); and
// its place at the head of the default global pipeline.
//
//===----------------------------------------------------------------------===//

#include "IR/Printer.h"
#include "IR/Verifier.h"
#include "Transforms/Passes.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

/// Runs the pass on \p F; the applied parameters, or nullopt with \p Why.
std::optional<AppliedPass> runPass(Function &F, std::string &Why) {
  MachineDescription MD;
  PassContext Ctx{MD, MemoryVariant::Global};
  auto R = scalarReplacePass().Run(F, Ctx, Why);
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return std::nullopt;
  }
  if (auto E = verifyFunction(F))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return *R;
}

TEST(ScalarReplace, GemmAccumKeepsCInARegister) {
  auto M = parseKernelFile("gemm_accum.cu");
  ASSERT_NE(M, nullptr);
  Function &F = *M->kernels()[0];
  std::string Why;
  auto Applied = runPass(F, Why);
  ASSERT_TRUE(Applied.has_value()) << Why;
  EXPECT_EQ(Applied->Name, "scalar-replace");
  EXPECT_EQ(Applied->Parameters.at("arrays"), "c[i * n + j]");

  std::string Text = printFunctionDebug(F);
  EXPECT_NE(Text.find("float c_reg = c[i * n + j];\n"
                      "    for (int l = 0; l < k; l++) {\n"
                      "      c_reg += a[i * k + l] * b[l * n + j];\n"
                      "    }\n"
                      "    c[i * n + j] = c_reg;\n"),
            std::string::npos)
      << Text;

  // c may alias a and b: the launcher checks, the launch is unchanged.
  ASSERT_TRUE(F.Plan.has_value());
  EXPECT_TRUE(F.Plan->SameLaunch);
  EXPECT_EQ(F.Plan->Dims, 2u);
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(F.Plan->Disjoint, (std::vector<Pair>{{"c", "a"}, {"c", "b"}}));
  ASSERT_EQ(F.Plan->Elements.size(), 3u);
  EXPECT_EQ(printExprDebug(*F.Plan->Elements.at("a")), "k * m");
  EXPECT_EQ(printExprDebug(*F.Plan->Elements.at("b")), "k * n");
  EXPECT_EQ(printExprDebug(*F.Plan->Elements.at("c")), "m * n");
}

TEST(ScalarReplace, AddsToAnExistingPlan) {
  auto M = parseKernelFile("gemm_accum.cu");
  ASSERT_NE(M, nullptr);
  Function &F = *M->kernels()[0];
  F.Plan.emplace();
  F.Plan->Block = {32, 8};
  F.Plan->Disjoint.push_back({"b", "c"});
  std::string Why;
  ASSERT_TRUE(runPass(F, Why).has_value()) << Why;
  EXPECT_FALSE(F.Plan->SameLaunch);
  EXPECT_EQ(F.Plan->Block[0], 32);
  using Pair = std::pair<std::string, std::string>;
  // (b, c) was already there, in the other order.
  EXPECT_EQ(F.Plan->Disjoint, (std::vector<Pair>{{"b", "c"}, {"c", "a"}}));
}

TEST(ScalarReplace, NothingInMatrixMultiplication) {
  auto M = parseKernelFile("mm.cu");
  ASSERT_NE(M, nullptr);
  Function &F = *M->kernels()[0];
  std::string Before = printFunctionDebug(F);
  std::string Why;
  EXPECT_FALSE(runPass(F, Why).has_value());
  EXPECT_EQ(Why, "no loop writes global memory");
  EXPECT_EQ(printFunctionDebug(F), Before);
  EXPECT_FALSE(F.Plan.has_value());
}

TEST(ScalarReplace, Refusals) {
  auto M = parseText(R"(
__global__ void reassigned(const float *a, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int r = i;
    for (int l = 0; l < k; l++) {
      c[r] += a[l];
      r = r + n;
    }
  }
}
__global__ void twoindices(const float *a, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int l = 0; l < k; l++) {
      c[i] += a[l];
      c[i + n] = c[i];
    }
}
__global__ void bound(float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int l = 0; l < c[i]; l++)
      c[i] = c[i] + 1.0f;
}
__global__ void indexed(const int *p, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int l = 0; l < k; l++)
      c[p[i]] += 1.0f;
}
__global__ void noloop(float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] += 1.0f;
}
)");
  ASSERT_NE(M, nullptr);
  auto Expect = [&](const char *Kernel, const std::string &Reason) {
    SCOPED_TRACE(Kernel);
    Function *F = M->find(Kernel);
    ASSERT_NE(F, nullptr);
    std::string Before = printFunctionDebug(*F);
    std::string Why;
    EXPECT_FALSE(runPass(*F, Why).has_value());
    EXPECT_EQ(Why, Reason);
    EXPECT_EQ(printFunctionDebug(*F), Before);
    EXPECT_FALSE(F->Plan.has_value());
  };
  Expect("reassigned", "the index of c[r] changes in the loop over 'l' "
                       "(through 'r')");
  Expect("twoindices",
         "'c' is accessed at c[i] and c[i + n] in the loop over 'l'");
  Expect("bound", "the loop over 'l' reads 'c' in its bounds");
  Expect("indexed", "the index of c[p[i]] reads memory");
  Expect("noloop", "the kernel has no loop");
}

TEST(ScalarReplace, FirstInTheGlobalPipeline) {
  ASSERT_TRUE(passRegistry().count("scalar-replace"));
  auto Global = defaultPipeline(MemoryVariant::Global, shippedTarget("gtx480"));
  ASSERT_FALSE(Global.empty());
  EXPECT_EQ(Global.front(), "scalar-replace");
}

} // namespace
