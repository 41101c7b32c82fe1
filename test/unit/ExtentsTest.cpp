//===- ExtentsTest.cpp - Symbolic array extents ---------------------------===//
//
// symbolicElements against the numbers bufferExtents gives for the corpus
// kernels at several sizes (equal for these), the printed forms of a few, the
// naive launch's threads where a dimension has no guard, and what it refuses:
// non-affine indices, doubly guarded dimensions, block-relative positions.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Extents.h"
#include "Analysis/Domain.h"
#include "IR/Printer.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

std::string elementsText(const Function &F, const std::string &Array) {
  ExprPtr E = symbolicElements(F, Array);
  return E ? printExprDebug(*E) : "<none>";
}

/// For every array of every kernel in \p File, at each of \p SizeSets: the
/// symbolic count evaluates to what bufferExtents computes for the domain the
/// guards give.
void checkAgainstBufferExtents(const std::string &File,
                               const std::vector<SizeBindings> &SizeSets) {
  SCOPED_TRACE(File);
  auto M = parseKernelFile(File);
  ASSERT_NE(M, nullptr);
  ASSERT_FALSE(M->kernels().empty());
  for (const Function *F : M->kernels()) {
    for (const SizeBindings &Sizes : SizeSets) {
      auto Domain = evaluateDomain(*F, findDomain(*F), Sizes);
      ASSERT_TRUE(bool(Domain)) << llvm::toString(Domain.takeError());
      auto Numeric = bufferExtents(*F, Sizes, *Domain, {16, 16});
      ASSERT_TRUE(bool(Numeric)) << llvm::toString(Numeric.takeError());
      for (const Param &P : F->Params) {
        if (!P.isArray())
          continue;
        SCOPED_TRACE(F->Name + ": " + P.Name);
        ExprPtr E = symbolicElements(*F, P.Name);
        ASSERT_NE(E, nullptr);
        auto V = evaluateScalar(*E, *F, Sizes);
        ASSERT_TRUE(V.has_value()) << printExprDebug(*E);
        EXPECT_EQ(*V, Numeric->at(P.Name)) << printExprDebug(*E);
      }
    }
  }
}

/// Sizes for every parameter name the corpus kernels use (\p X for the
/// PolyBench ones: nx, ny, ni, nj, nk).
SizeBindings sizes(std::int64_t W, std::int64_t H, std::int64_t K,
                   std::int64_t N, std::int64_t M, std::int64_t FW,
                   std::int64_t FH, std::int64_t X) {
  return {{"w", W},      {"h", H},      {"k", K},      {"n", N},
          {"m", M},      {"fw", FW},    {"fh", FH},    {"nx", X},
          {"ny", X + 8}, {"ni", X + 1}, {"nj", X + 3}, {"nk", X + 5}};
}

TEST(Extents, MatchBufferExtentsOnCorpus) {
  // Square, non-square, and sizes that are not multiples of 16.
  std::vector<SizeBindings> Sizes = {sizes(64, 64, 64, 64, 64, 5, 5, 64),
                                     sizes(1003, 37, 29, 45, 1003, 5, 3, 53),
                                     sizes(17, 250, 3, 7, 300, 17, 1, 9)};
  for (const char *File :
       {"mm.cu", "mv.cu", "tp.cu", "conv.cu", "gemm_accum.cu", "jacobi2d.cu",
        "mm.cl", "tmv.cu", "vv.cu", "strsm.cu", "atax.cu", "gemm.cu",
        "saxpy.cu", "mm_macro.cu"})
    checkAgainstBufferExtents(File, Sizes);
}

TEST(Extents, SimplifiedForms) {
  auto MM = parseKernelFile("mm.cu");
  ASSERT_NE(MM, nullptr);
  const Function &F = *MM->kernels()[0];
  EXPECT_EQ(elementsText(F, "a"), "h * k");
  EXPECT_EQ(elementsText(F, "b"), "k * w");
  EXPECT_EQ(elementsText(F, "c"), "h * w");

  auto G = parseKernelFile("gemm_accum.cu");
  ASSERT_NE(G, nullptr);
  EXPECT_EQ(elementsText(*G->kernels()[0], "c"), "m * n");

  // a[y*w + x + 1] and a[(y+1)*w + x] with y < h - 1, x < w - 1: the second
  // dominates, so there is one form.
  auto J = parseKernelFile("jacobi2d.cu");
  ASSERT_NE(J, nullptr);
  EXPECT_EQ(elementsText(*J->kernels()[0], "a"), "h * w - 1");

  // Triangular: l[i*n + j], j < i < n, and l[i*n + i].
  auto S = parseKernelFile("strsm.cu");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(elementsText(*S->kernels()[0], "l"), "n * n");
}

TEST(Extents, CoefficientsAndLoopForms) {
  auto M = parseText(R"(
__global__ void k(const float *a, const float *b, float *c, float *d,
                  int n, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x <= n) {
    // A negative coefficient takes the low end of x: n - 1 - 0.
    c[x] = a[n - 1 - x];
    // <= loop: i in [2, w]; a falling loop: j in (0, w].
    for (int i = 2; i <= w; i++)
      d[2 * i + 1] = b[x];
    for (int j = w; j > 0; j--)
      d[j] = 0.0f;
  }
}
)");
  ASSERT_NE(M, nullptr);
  const Function &F = *M->kernels()[0];
  EXPECT_EQ(elementsText(F, "a"), "n");
  EXPECT_EQ(elementsText(F, "c"), "n + 1"); // x <= n
  EXPECT_EQ(elementsText(F, "d"), "2 * w + 2");
  EXPECT_EQ(elementsText(F, "n"), "<none>"); // not an array
  auto Dx = symbolicElementForms(F, "d");
  ASSERT_TRUE(Dx.has_value());
  EXPECT_EQ(Dx->size(), 1u);
}

TEST(Extents, IncomparableFormsGiveMax) {
  auto M = parseText(R"(
__global__ void k(float *a, int n, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) {
    a[x * w] = 1.0f;
    a[x + h] = 2.0f;
  }
}
)");
  ASSERT_NE(M, nullptr);
  const Function &F = *M->kernels()[0];
  auto Forms = symbolicElementForms(F, "a");
  ASSERT_TRUE(Forms.has_value());
  ASSERT_EQ(Forms->size(), 2u);
  EXPECT_EQ(elementsText(F, "a"),
            "n * w - w + 1 > h + n ? n * w - w + 1 : h + n");
}

TEST(Extents, Refusals) {
  auto M = parseText(R"(
__global__ void nonaffine(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n)
    a[x * x] = 1.0f;
}
__global__ void twoguards(float *a, int n, int m) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n && x < m)
    a[x] = 1.0f;
}
__global__ void local(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n)
    a[threadIdx.x] = 1.0f;
}
__global__ void unused(float *a, float *b, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n)
    a[x] = 1.0f;
}
)");
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(symbolicElements(*M->find("nonaffine"), "a"), nullptr);
  EXPECT_EQ(symbolicElements(*M->find("twoguards"), "a"), nullptr);
  EXPECT_EQ(symbolicElements(*M->find("local"), "a"), nullptr);
  EXPECT_EQ(elementsText(*M->find("unused"), "b"), "0");
  EXPECT_EQ(elementsText(*M->find("unused"), "a"), "n");
}

// Without a guard, a thread position runs over what the naive launch covers
// (the paper's own kernels, launched over exactly the matrix): the count
// names those threads, for launch code to bind.
TEST(Extents, UnguardedDimensionsNameTheLaunch) {
  auto M = parseText(R"(
#define WIDTH_A 2048
#define A(y, x) A[(y) * WIDTH_A + (x)]
__global__ void unguarded(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  a[x] = 1.0f;
}
__global__ void matmul(float *A, float *B, float *C, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0;
  for (int i = 0; i < width; i = i + 1)
    sum += A(y, i) * B[i * 2048 + x];
  C[y * 2048 + x] = sum;
}
__global__ void rows(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n)
    a[y * n + x] = 1.0f;
}
)");
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(elementsText(*M->find("unguarded"), "a"),
            "gpumerge_launch_threads_x");
  const Function &MM = *M->find("matmul");
  EXPECT_EQ(elementsText(MM, "A"),
            "2048 * gpumerge_launch_threads_y + width - 2048");
  EXPECT_EQ(elementsText(MM, "B"),
            "gpumerge_launch_threads_x + 2048 * width - 2048");
  EXPECT_EQ(elementsText(MM, "C"), "gpumerge_launch_threads_x + 2048 * "
                                   "gpumerge_launch_threads_y - 2048");
  // A guarded X and an unguarded Y: the guard bounds one, the launch the
  // other.
  EXPECT_EQ(elementsText(*M->find("rows"), "a"),
            "gpumerge_launch_threads_y * n");
}

} // namespace

namespace {

TEST(Domain, LowerBoundsOfStencilGuards) {
  auto M = gpumerge::parseText(R"(
__global__ void jacobi(const float *a, float *b, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < n - 1 && j >= 1 && j < m - 1)
    b[j * n + i] = a[j * n + i - 1] + a[j * n + i + 1] + a[(j - 1) * n + i];
}
)");
  ASSERT_TRUE(M);
  const gpumerge::Function &F = *M->kernels()[0];
  gpumerge::KernelDomain D = gpumerge::findDomain(F);
  ASSERT_EQ(D.Lower[0].size(), 1u);
  ASSERT_EQ(D.Lower[1].size(), 1u);
  EXPECT_EQ(D.Lower[0][0].Offset, 1); // i > 0: i >= 0 + 1
  EXPECT_EQ(D.Lower[1][0].Offset, 0); // j >= 1
  std::map<std::string, std::int64_t> Lowest;
  auto E = gpumerge::bufferExtents(F, {{"n", 10}, {"m", 8}}, {9, 7}, {16, 16},
                                   &Lowest);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  // Under the guard (i >= 1, j >= 1) the lowest read is a[(j - 1) * n + i]
  // at j = i = 1: never before the array, as without the lower bounds.
  EXPECT_EQ(Lowest["a"], 1);
  EXPECT_EQ(Lowest["b"], 10 + 1);
}

// The guards of the access itself count: an if around it, the left of
// `x > 0 && in[x - 1]`, an earlier `if (y == 0) return;`.
TEST(Domain, LowestUnderTheAccessGuards) {
  auto M = gpumerge::parseText(R"(
__global__ void edges(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float m = in[y * w + x];
    if (x > 0 && in[y * w + x - 1] > m)
      m = 0.0f;
    if (y > 0) {
      m += in[(y - 1) * w + x];
    }
    out[y * w + x] = x > 1 ? in[y * w + x - 2] : m;
  }
}
)");
  ASSERT_TRUE(M);
  const gpumerge::Function &F = *M->kernels()[0];
  std::map<std::string, std::int64_t> Lowest;
  auto E = gpumerge::bufferExtents(F, {{"w", 10}, {"h", 8}}, {10, 8}, {16, 16},
                                   &Lowest);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(Lowest["in"], 0);
  EXPECT_EQ(Lowest["out"], 0);
}

// Sizes fold into the coefficients before the bounds are taken:
// y * (w - fw + 1) + x never goes below zero, though -y * fw alone does.
TEST(Domain, LowestFoldsTheSizes) {
  auto M = gpumerge::parseText(R"(
__global__ void valid(const float *in, float *out, int w, int h, int fw) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w - fw + 1 && y < h)
    out[y * (w - fw + 1) + x] = in[y * w + x];
}
)");
  ASSERT_TRUE(M);
  const gpumerge::Function &F = *M->kernels()[0];
  std::map<std::string, std::int64_t> Lowest;
  auto E = gpumerge::bufferExtents(F, {{"w", 40}, {"h", 20}, {"fw", 9}},
                                   {32, 20}, {16, 16}, &Lowest);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(Lowest["out"], 0);
  // The extent stays the term-by-term bound symbolicElements matches: at
  // least the last element written, never short of it.
  EXPECT_GE((*E)["out"], 19 * 32 + 31 + 1);
}

// `if (t == 0) { ... }` after declarations: one thread's work at any size
// (verify launches that thread; split-reduction gives it a block of lanes).
TEST(Domain, OnlyTheFirstThreadRuns) {
  auto M = gpumerge::parseText(R"(
__global__ void first(const float *a, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  if (t == 0) {
    for (int j = 0; j < n; j++)
      s += a[j];
    out[0] = s;
  }
}
__global__ void flipped(float *out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (0 == t)
    out[0] = 1.0f;
}
__global__ void second(float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 1)
    out[0] = 1.0f;
}
__global__ void more(float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0)
    out[0] = 1.0f;
  if (t < n)
    out[t + 1] = 2.0f;
}
__global__ void calls(float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float w = sqrtf((float)t);
  if (t == 0)
    out[0] = w;
}
__global__ void orelse(float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0)
    out[0] = 1.0f;
  else
    out[1] = 2.0f;
}
__global__ void rows(float *out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x == 0)
    out[y * w] = 1.0f;
}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(gpumerge::onlyFirstThreadRuns(*M->find("first")));
  EXPECT_TRUE(gpumerge::onlyFirstThreadRuns(*M->find("flipped")));
  EXPECT_FALSE(gpumerge::onlyFirstThreadRuns(*M->find("second")));
  EXPECT_FALSE(gpumerge::onlyFirstThreadRuns(*M->find("more")));
  // A call in a declaration every thread makes may be work (an atomicAdd).
  EXPECT_FALSE(gpumerge::onlyFirstThreadRuns(*M->find("calls")));
  EXPECT_FALSE(gpumerge::onlyFirstThreadRuns(*M->find("orelse")));
  // Every row's first thread: a 2-D domain.
  EXPECT_FALSE(gpumerge::onlyFirstThreadRuns(*M->find("rows")));
}

} // namespace

// A 3-D grid: the z position is idz, its guard a layer bound (not a bound of
// X or Y), and the arrays' extents and symbolic element counts range idz
// over the layers.
TEST(Domain, LayersOfA3DGrid) {
  auto M = gpumerge::parseText(R"(
__global__ void vscale(const float *in, float *out, int w, int h, int d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockDim.z * blockIdx.z + threadIdx.z;
  if (x < w && y < h && z < d - 1)
    out[(z * h + y) * w + x] = 2.0f * in[(z * h + y) * w + x];
}
__global__ void nozguard(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < n)
    a[z * n + i] = 1.0f;
}
)");
  ASSERT_TRUE(M);
  const gpumerge::Function &F = *M->kernels()[0];
  gpumerge::KernelDomain D = gpumerge::findDomain(F);
  EXPECT_TRUE(D.Layered);
  EXPECT_EQ(D.Bounds[0].size(), 1u);
  EXPECT_EQ(D.Bounds[1].size(), 1u);
  ASSERT_EQ(D.LayerBounds.size(), 1u);
  gpumerge::SizeBindings Sizes = {{"w", 7}, {"h", 5}, {"d", 4}};
  auto Layers = gpumerge::evaluateLayers(F, D, Sizes);
  ASSERT_TRUE(bool(Layers)) << llvm::toString(Layers.takeError());
  EXPECT_EQ(*Layers, 3); // z < d - 1
  auto E = gpumerge::bufferExtents(F, Sizes, {7, 5}, {16, 16}, nullptr, 3);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(E->at("out"), 3 * 5 * 7);
  EXPECT_EQ(elementsText(F, "out"), elementsText(F, "in"));
  auto Symbolic = gpumerge::symbolicElements(F, "out");
  ASSERT_NE(Symbolic, nullptr);
  EXPECT_EQ(gpumerge::evaluateScalar(*Symbolic, F, Sizes), 3 * 5 * 7);

  // Without a guard on z the layers are unknown: verify cannot launch them.
  const gpumerge::Function &G = *M->kernels()[1];
  gpumerge::KernelDomain DG = gpumerge::findDomain(G);
  EXPECT_TRUE(DG.Layered);
  auto None = gpumerge::evaluateLayers(G, DG, {{"n", 9}});
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("no guard bounds its z"),
            std::string::npos);
  EXPECT_EQ(gpumerge::symbolicElements(G, "a"), nullptr);
}

// What no index range bounds is named rather than an error where the caller
// measures it (verify's extent probe): a mirrored index and a loop over a
// data-dependent range; the other arrays keep their extents.
TEST(Domain, UnboundedArraysNamedForAProbe) {
  auto M = gpumerge::parseText(R"(
__global__ void rows(const int *start, const float *vals, const float *in,
                     float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = i - 2;
    if (j < 0)
      j = -j;
    float s = in[j];
    for (int k = start[i]; k < start[i + 1]; k++)
      s += vals[k];
    out[i] = s;
  }
}
)");
  ASSERT_TRUE(M);
  const gpumerge::Function &F = *M->kernels()[0];
  auto Refused = gpumerge::bufferExtents(F, {{"n", 10}}, {10, 1}, {16, 1});
  ASSERT_FALSE(bool(Refused));
  EXPECT_NE(llvm::toString(Refused.takeError()).find("cannot bound"),
            std::string::npos);
  std::set<std::string> Unbounded;
  auto E = gpumerge::bufferExtents(F, {{"n", 10}}, {10, 1}, {16, 1}, nullptr, 1,
                                   &Unbounded);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(Unbounded, (std::set<std::string>{"in", "vals"}));
  EXPECT_EQ((*E)["start"], 11);
  EXPECT_EQ((*E)["out"], 10);
}

// The integer arrays whose values become indices or loop ranges, directly
// or through locals: verify draws theirs from 0. Data arrays are not.
TEST(Accesses, ArraysSteeringIndices) {
  auto M = gpumerge::parseText(R"(
__global__ void csr(const int *rows, const int *cols, const float *vals,
                    const int *weights, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = rows[i]; j < rows[i + 1]; j++) {
      int c = cols[j];
      s += vals[j] * x[c] * weights[i];
    }
    y[i] = s;
  }
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(gpumerge::arraysSteeringIndices(*M->kernels()[0]),
            (std::set<std::string>{"cols", "rows"}));
}

// Of those, the arrays that steer where a kernel writes (a scatter, also
// through a local): verify fills them with a permutation, so no two threads
// write one element. csr's index arrays steer reads only.
TEST(Accesses, ArraysSteeringWrites) {
  auto M = gpumerge::parseText(R"(
__global__ void scatter(const int *perm, const int *keys, const float *v,
                        float *out, float *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int to = perm[i];
    out[to] = v[keys[i]];
    hist[i] = v[i];
  }
}
__global__ void csr(const int *rows, const int *cols, const float *x,
                    float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = rows[i]; j < rows[i + 1]; j++)
      s += x[cols[j]];
    y[i] = s;
  }
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(gpumerge::arraysSteeringWrites(*M->kernels()[0]),
            (std::set<std::string>{"perm"}));
  EXPECT_EQ(gpumerge::arraysSteeringIndices(*M->kernels()[0]),
            (std::set<std::string>{"keys", "perm"}));
  EXPECT_TRUE(gpumerge::arraysSteeringWrites(*M->kernels()[1]).empty());
}
