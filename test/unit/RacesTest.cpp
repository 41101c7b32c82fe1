//===- RacesTest.cpp - Threads of a naive kernel writing one element ------===//
#include "Analysis/Races.h"
#include "TestKernels.h"

using namespace gpumerge;

namespace {

const char *Rows = R"(
__global__ void rows(const float *a, float *c, int m, int n, int h) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (j < m && i < h)
    c[i * n + j] = a[i * n + j];
}
)";

TEST(Races, LeadingDimensionSmallerThanTheRow) {
  auto M = parseText(Rows);
  ASSERT_TRUE(M);
  const Function &F = *M->kernels()[0];
  // 67 columns in rows of 67: every thread has its element.
  EXPECT_EQ(findWriteRace(F, {{"m", 67}, {"n", 67}, {"h", 5}}, {67, 5}), "");
  // Rows of 45: thread (45, 0) writes what (0, 1) writes.
  std::string R = findWriteRace(F, {{"m", 67}, {"n", 45}, {"h", 5}}, {67, 5});
  EXPECT_NE(R.find("threads (0, 1) and (45, 0)"), std::string::npos) << R;
  // One row only: no second row to collide with.
  EXPECT_EQ(findWriteRace(F, {{"m", 67}, {"n", 45}, {"h", 1}}, {67, 1}), "");
}

TEST(Races, EveryXWritesOneElement) {
  auto M = parseText(R"(
__global__ void colsum(const float *a, float *s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    s[y] = a[y * w + x];
}
)");
  ASSERT_TRUE(M);
  EXPECT_NE(findWriteRace(*M->kernels()[0], {{"w", 3}, {"h", 4}}, {3, 4}), "");
  EXPECT_EQ(findWriteRace(*M->kernels()[0], {{"w", 1}, {"h", 4}}, {1, 4}), "");
}

TEST(Races, LoopWritesOverlapWhenTheirRangeIsWider) {
  // Thread i writes c[i*n + j] for j < k: rows overlap when k > n.
  auto M = parseText(R"(
__global__ void fill(float *c, int n, int k, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h)
    for (int j = 0; j < k; j++)
      c[i * n + j] = j;
}
)");
  ASSERT_TRUE(M);
  const Function &F = *M->kernels()[0];
  EXPECT_EQ(findWriteRace(F, {{"n", 8}, {"k", 8}, {"h", 9}}, {9, 1}), "");
  EXPECT_NE(findWriteRace(F, {{"n", 8}, {"k", 9}, {"h", 9}}, {9, 1}), "");
}

TEST(Races, TwoWritesOfARowCollideAcrossThreads) {
  // HeCBench's cross: thread i writes out[3i], out[3i + s] and out[3i + 2s];
  // with s = 45, threads 8 and 23 both write element 69 (the texture
  // variant's result differed there from the input's on an H100). Its
  // grid-stride loop is checked in this form (GridStride.h).
  auto M = parseText(R"(
__global__ void cross(int n, float *out, const float *a, int s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float *row = out + 3 * i;
    row[0] = a[i];
    row[s] = 2 * a[i];
    row[2 * s] = 3 * a[i];
  }
}
)");
  ASSERT_TRUE(M);
  const Function &F = *M->kernels()[0];
  std::string R = findWriteRace(F, {{"n", 67}, {"s", 45}}, {67, 1});
  EXPECT_NE(R.find("'out'"), std::string::npos) << R;
  EXPECT_NE(R.find("write the same element"), std::string::npos) << R;
  // s = 46: 3·dx = 46·dk has no solution with |dk| <= 2 and dx != 0.
  EXPECT_EQ(findWriteRace(F, {{"n", 67}, {"s", 46}}, {67, 1}), "");
  // s = 1: each thread its own three elements.
  EXPECT_EQ(findWriteRace(F, {{"n", 67}, {"s", 1}}, {67, 1}), "");
  // Fewer threads than the gap needs: s = 45 with n = 15 (dx = 15 is out).
  EXPECT_EQ(findWriteRace(F, {{"n", 15}, {"s", 45}}, {15, 1}), "");
  EXPECT_NE(findWriteRace(F, {{"n", 16}, {"s", 45}}, {16, 1}), "");
}

TEST(Races, ConditionalWritesAreNotClaimed) {
  // Only thread 0 writes: the check cannot see it and claims nothing.
  auto M = parseText(R"(
__global__ void first(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i == 0)
    out[0] = a[0];
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(findWriteRace(*M->kernels()[0], {{"n", 100}}, {100, 1}), "");
}

/// findReadWriteRace on \p Body, a 1-D kernel over i < n with arrays a
/// (written) and b, at n = 67.
std::string readWriteRace(const std::string &Body) {
  auto M = parseText("__global__ void k(float *a, const float *b, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  " +
                     Body + "\n}\n");
  if (!M)
    return "unparsed";
  const Function &F = *M->kernels()[0];
  return findReadWriteRace(F, {{"n", 67}}, {67, 1});
}

TEST(Races, ReadingWhatAnotherThreadWrites) {
  // An in-place stencil: thread 2 reads a[1], which thread 1 writes (thread
  // 0 does not run).
  std::string R =
      readWriteRace("if (i > 0 && i < n - 1) a[i] = a[i - 1] + a[i + 1];");
  EXPECT_NE(R.find("'a' (line 3): thread (2, 0) reads the element thread "
                   "(1, 0) writes"),
            std::string::npos)
      << R;
  // Its own element only, or another array: none.
  EXPECT_EQ(readWriteRace("if (i < n) a[i] += 2.0f * a[i] + b[i + 1];"), "");
  EXPECT_EQ(readWriteRace("if (i > 0 && i < n) a[i] = b[i - 1];"), "");
  // The writer of a[i + n] would be thread i + n, past the domain.
  EXPECT_EQ(readWriteRace("if (i < n) a[i] = a[i + n];"), "");
  // A read under a data-dependent condition is not claimed.
  EXPECT_EQ(readWriteRace("if (i > 0 && i < n && b[i] > 0.0f) a[i] = "
                          "a[i - 1];"),
            "");
}

TEST(Races, ReadingTheRowAboveIn2D) {
  auto M = parseText(R"(
__global__ void down(float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y > 0 && y < h)
    a[y * w + x] = a[(y - 1) * w + x];
}
)");
  ASSERT_TRUE(M);
  std::string R =
      findReadWriteRace(*M->kernels()[0], {{"w", 5}, {"h", 4}}, {5, 4});
  EXPECT_NE(R.find("thread (0, 2) reads the element thread (0, 1) writes"),
            std::string::npos)
      << R;
}

TEST(Races, ReturnBeforeABarrier) {
  auto M = parseText(R"(
__global__ void early(const float *a, float *c, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  t[threadIdx.x] = a[i];
  __syncthreads();
  c[i] = t[255 - threadIdx.x];
}
__global__ void late(const float *a, float *c, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i >= n)
    return;
  c[i] = t[255 - threadIdx.x];
}
__global__ void looped(const float *a, float *c, int n, int k) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < k; j++) {
    __syncthreads();
    t[threadIdx.x] = a[j];
    if (t[0] > 1.0f)
      return;
  }
  c[i] = t[0];
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(findReturnBeforeBarrier(*M->kernels()[0]),
            "the return at line 6 comes before the barrier at line 8");
  // Every thread passes the barrier before any returns.
  EXPECT_EQ(findReturnBeforeBarrier(*M->kernels()[1]), "");
  // The next iteration's barrier comes after this one's return.
  EXPECT_EQ(findReturnBeforeBarrier(*M->kernels()[2]),
            "the return at line 27 and the barrier at line 24 are in one loop");
}

// Verify checks the input's writes on the device only where the analysis
// cannot prove that no two threads assign one element.
TEST(Races, WritesProvedApartOrNot) {
  auto M = parseText(R"(
__global__ void copy(const float *a, float *c, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    if (a[y * w + x] > 0.0f)
      c[y * w + x] = a[y * w + x];
  }
}
__global__ void scatter(const int *bin, const float *a, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    h[bin[i] & 15] = a[i];
}
__global__ void pairs(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[2 * i] = a[i];
    c[i + 1] = a[i];
  }
}
__global__ void first(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] > 0.0f)
    c[0] = a[i];
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 4u);
  auto Of = [&](const char *Name, SizeBindings Sizes,
                std::array<std::int64_t, 2> Domain) {
    return unprovenWrite(*M->find(Name), Sizes, Domain);
  };
  // One element per thread, under any condition: proved.
  EXPECT_EQ(Of("copy", {{"w", 67}, {"h", 45}}, {67, 45}), "");
  // An index the data steers: not.
  EXPECT_EQ(Of("scatter", {{"n", 4000}}, {4000, 1}),
            "'h' (line 13): an index the check cannot follow");
  // Two writes of one array that step otherwise.
  EXPECT_EQ(Of("pairs", {{"n", 100}}, {100, 1}),
            "'c' (lines 18 and 19): two writes the check cannot compare");
  // A conditional write every thread may make: findWriteRace leaves it
  // out, unprovenWrite does not.
  EXPECT_EQ(findWriteRace(*M->find("first"), {{"n", 100}}, {100, 1}), "");
  EXPECT_NE(Of("first", {{"n", 100}}, {100, 1}), "");
}

} // namespace
