//===- GridStrideTest.cpp - A grid-stride loop read as a bounds guard -----===//
//
// Transforms/GridStride.h: the guarded form of the loop's spellings (the
// start and stride through locals, the iterator declared before, a
// get_global_size step), the loops it must leave alone and why, and the
// launch an optimized kernel gets where its plan kept the user's.
//
//===----------------------------------------------------------------------===//

#include "Transforms/GridStride.h"
#include "IR/Printer.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

/// The guarded form of kernel \p Name in \p Source, printed; "" with the
/// reason in \p Why when it has none.
std::string guarded(const std::string &Source, const std::string &Name,
                    std::string &Why) {
  auto M = parseText(Source);
  const Function *F = M ? M->find(Name) : nullptr;
  if (!F) {
    ADD_FAILURE() << Name << " was not lowered:\n" << Source;
    return "";
  }
  std::unique_ptr<Function> G = guardGridStride(*F, Why);
  return G ? printFunctionDebug(*G) : "";
}

TEST(GridStride, LocalsForStartAndStrideLeaveTheGuard) {
  std::string Why;
  std::string Code = guarded(R"(
__global__ void k(int n, float a, const float *x, float *y) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  float twice = 2.0f * a;
  for (int i = tid; i < n; i += stride)
    y[i] = twice * x[i];
}
)",
                             "k", Why);
  ASSERT_FALSE(Code.empty()) << Why;
  // The set-up the body reads stays; the start and stride, which only the
  // loop's header read, go.
  EXPECT_NE(Code.find("float twice = 2.0f * a;"), std::string::npos) << Code;
  EXPECT_EQ(Code.find("stride"), std::string::npos) << Code;
  EXPECT_EQ(Code.find("tid"), std::string::npos) << Code;
  EXPECT_NE(Code.find("int i = idx;"), std::string::npos) << Code;
  EXPECT_NE(Code.find("if (i < n)"), std::string::npos) << Code;
  EXPECT_EQ(Code.find("for ("), std::string::npos) << Code;
}

TEST(GridStride, IteratorDeclaredBeforeAndInclusiveBound) {
  std::string Why;
  std::string Code = guarded(R"(
__global__ void k(int n, const float *x, float *y) {
  int i;
  for (i = blockIdx.x * blockDim.x + threadIdx.x; i <= n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}
)",
                             "k", Why);
  ASSERT_FALSE(Code.empty()) << Why;
  EXPECT_NE(Code.find("int i = idx;"), std::string::npos) << Code;
  EXPECT_NE(Code.find("if (i <= n)"), std::string::npos) << Code;
}

TEST(GridStride, WidenedStart) {
  // `(size_t)blockIdx.x * blockDim.x + threadIdx.x` starts a 64-bit loop.
  std::string Why;
  std::string Code = guarded(R"(
__global__ void k(size_t n, const float *x, float *y) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}
)",
                             "k", Why);
  ASSERT_FALSE(Code.empty()) << Why;
  EXPECT_NE(Code.find("ulong i = idx;"), std::string::npos) << Code;
}

TEST(GridStride, OpenCLGlobalSize) {
  auto M = parseSource(R"(
__kernel void k(int n, __global const float *x, __global float *y) {
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    y[i] = x[i] * x[i];
}
)",
                       "x.cl", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  std::string Why;
  auto G = guardGridStride(*(*M)->find("k"), Why);
  ASSERT_TRUE(G) << Why;
  EXPECT_EQ(G->GridStrideLine, 3u);
}

TEST(GridStride, LoopsWhoseIterationsDoNotStandAlone) {
  struct Case {
    const char *Body, *Why;
  } Cases[] = {
      {"float s = 0.0f; LOOP s += x[i]; y[0] = s;", "statements follow it"},
      {"float s = 0.0f; LOOP { s = s + x[i]; y[i] = s; }",
       "its body writes 's', declared before it, which carries from one "
       "iteration to the next"},
      // Set first, but read before in the same iteration.
      {"float s = 0.0f; LOOP { y[i] = s; s = x[i]; }",
       "its body writes 's', declared before it, which carries from one "
       "iteration to the next"},
      // Set first only under a condition.
      {"float s = 0.0f; LOOP { if (x[i] > 0.0f) s = x[i]; y[i] = s; }",
       "its body writes 's', declared before it, which carries from one "
       "iteration to the next"},
      {"LOOP y[i] = x[i] + threadIdx.x;",
       "its body reads a thread or block built-in other than through 'i'"},
      {"LOOP { if (x[i] < 0.0f) break; y[i] = x[i]; }",
       "its body breaks out of it"},
      {"LOOP { if (x[i] < 0.0f) return; y[i] = x[i]; }", "its body returns"},
      {"LOOP { y[i] = x[i]; __syncthreads(); }", "its body synchronizes"},
      {"if (n < 1) return; LOOP y[i] = x[i];",
       "line 2 before it is not set-up"},
  };
  for (const Case &C : Cases) {
    std::string Body = C.Body;
    Body.replace(Body.find("LOOP"), 4,
                 "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                 "i += blockDim.x * gridDim.x)");
    std::string Why;
    std::string Code =
        guarded("__global__ void k(int n, const float *x, float *y) {\n  " +
                    Body + "\n}\n",
                "k", Why);
    EXPECT_TRUE(Code.empty()) << C.Body << "\n" << Code;
    EXPECT_NE(Why.find(C.Why), std::string::npos) << C.Body << ": " << Why;
    EXPECT_NE(Why.find("the grid-stride loop at line 2"), std::string::npos)
        << Why;
  }
}

TEST(GridStride, LocalsDeclaredBeforeAndSetFirstInEachIteration) {
  std::string Why;
  std::string Code = guarded(R"(
__global__ void k(int n, float dt, float *p, const float *a) {
  int i, inc;
  float dv;
  inc = blockDim.x * gridDim.x;
  for (i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += inc) {
    dv = a[i] * dt;
    p[i] = p[i] + dv;
  }
}
)",
                             "k", Why);
  // C89 style: dv is set before anything reads it, in every iteration.
  ASSERT_FALSE(Code.empty()) << Why;
  EXPECT_NE(Code.find("float dv;"), std::string::npos) << Code;
  EXPECT_NE(Code.find("if (i < n)"), std::string::npos) << Code;
}

TEST(GridStride, OtherLoopsAreNoGridStride) {
  // A step that is not the grid's extent: the loop is the kernel's own.
  std::string Why = "unset";
  std::string Code = guarded(R"(
__global__ void k(int n, int nt, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += nt)
    y[i] = x[i];
}
)",
                             "k", Why);
  EXPECT_TRUE(Code.empty()) << Code;
  EXPECT_EQ(Why, "");
}

TEST(GridStride, SameLaunchBecomesALaunchOverTheBound) {
  auto M = parseText(R"(
__global__ void k(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 2 * n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}
)");
  ASSERT_TRUE(M);
  std::string Why;
  auto G = guardGridStride(*M->find("k"), Why);
  ASSERT_TRUE(G) << Why;
  std::unique_ptr<Function> K = G->clone();
  K->Plan.emplace();
  K->Plan->SameLaunch = true;
  ASSERT_TRUE(launchOverGuard(*K, *G));
  const LaunchPlan &P = *K->Plan;
  EXPECT_FALSE(P.SameLaunch);
  EXPECT_TRUE(P.GuardsDomain);
  ASSERT_TRUE(P.Extent[0]);
  EXPECT_EQ(printExprDebug(*P.Extent[0]), "2 * n");
  EXPECT_EQ(P.Block[0], 256);
  EXPECT_EQ(K->GridStrideLine, 3u);
  // Its int positions keep the domain below 2^31: the launcher checks that
  // for every plan (blocks_x * tile), so the plan needs no precondition.
  EXPECT_TRUE(P.Preconditions.empty());
  // A plan that says its domain is kept as it is.
  std::unique_ptr<Function> T = G->clone();
  T->Plan.emplace();
  T->Plan->Block = {128, 1};
  T->Plan->Extent[0] = P.Extent[0];
  ASSERT_TRUE(launchOverGuard(*T, *G));
  EXPECT_EQ(T->Plan->Block[0], 128);
  // One that does not cannot run apart from the user's grid.
  T->Plan->Extent[0] = nullptr;
  EXPECT_FALSE(launchOverGuard(*T, *G));
}

} // namespace
