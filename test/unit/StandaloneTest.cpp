//===- StandaloneTest.cpp - A kernel alone, for ptxas ---------------------===//
//
// The user's typedefs and #define'd sizes that a rewritten kernel keeps by
// name are defined again in its lone file, with the values gpumerge read,
// the helpers it calls come with it, and the file compiles where nvcc
// exists.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Emitter.h"
#include "Target/Ptxas.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

const char *Gemm = R"(
typedef float DATA_TYPE;
#define NK 64
__global__ void k(const DATA_TYPE *a, DATA_TYPE *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    DATA_TYPE s = 0;
    for (int j = 0; j < NK; j++)
      s += a[i * NK + j];
    c[i] = s;
  }
}
)";

TEST(Standalone, DefinesTheSpellingsItKeeps) {
  auto M = parseText(Gemm);
  ASSERT_TRUE(M);
  std::string S = emitStandaloneCuda(*M->kernels().front(), {});
  EXPECT_EQ(S.rfind("typedef float DATA_TYPE;\n#define NK 64\n", 0), 0u) << S;
  EXPECT_NE(S.find("DATA_TYPE s"), std::string::npos) << S;
}

TEST(Standalone, DefinesFileConstantsByTheirValues) {
  auto M = parseText(R"(
const float kScale = 0.1f;
constexpr int OFFSET = -3;
__global__ void k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = kScale * x[i] - OFFSET;
}
)");
  ASSERT_TRUE(M);
  std::string S = emitStandaloneCuda(*M->kernels().front(), {});
  EXPECT_NE(S.find("#define OFFSET (-3)\n"), std::string::npos) << S;
  EXPECT_NE(S.find("#define kScale 0.1f\n"), std::string::npos) << S;
  EXPECT_NE(S.find("kScale * x[i] - OFFSET"), std::string::npos) << S;
}

TEST(Standalone, CompilesAlone) {
  // nvcc is part of this project's toolchain (scripts/setup, CI).
  auto Nvcc = findNvcc();
  ASSERT_TRUE(bool(Nvcc)) << llvm::toString(Nvcc.takeError());
  auto M = parseText(Gemm);
  ASSERT_TRUE(M);
  auto R =
      ptxasResources(emitStandaloneCuda(*M->kernels().front(), {}), "sm_90");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->count("k"));
}

// A kernel calling helpers did not compile alone: ptxas could not count
// its registers, and the search took the model's choice unchecked (and
// async-prefetch refused it).
TEST(Standalone, HelpersComeWithTheKernelInTheirNamespaces) {
  auto Nvcc = findNvcc();
  ASSERT_TRUE(bool(Nvcc)) << llvm::toString(Nvcc.takeError());
  auto M = parseText(R"(
#define SCALE 3
namespace util {
__device__ float twice(float v) { return 2.0f * v; }
}
__device__ float scaled(float v) { return util::twice(v) * SCALE; }
__device__ float unused(float v) { return v; }
__global__ void k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = scaled(x[i]);
}
)");
  ASSERT_TRUE(M);
  const Function &K = *M->kernels().front();
  std::vector<const Function *> Helpers = M->helpersCalled(K);
  ASSERT_EQ(Helpers.size(), 2u);
  EXPECT_EQ(Helpers[0]->Name, "twice");
  EXPECT_EQ(Helpers[1]->Name, "scaled");
  std::string S = emitStandaloneCuda(K, Helpers);
  EXPECT_NE(S.find("#define SCALE 3\n"), std::string::npos) << S;
  EXPECT_NE(S.find("namespace util {\n__device__ float twice("),
            std::string::npos)
      << S;
  EXPECT_EQ(S.find("unused"), std::string::npos) << S;
  auto R = ptxasResources(S, "sm_90");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError()) << "\n" << S;
  EXPECT_TRUE(R->count("k"));
  // Without them, it does not.
  auto Alone = ptxasResources(emitStandaloneCuda(K, {}), "sm_90");
  EXPECT_FALSE(bool(Alone));
  if (!Alone)
    llvm::consumeError(Alone.takeError());
}

} // namespace
