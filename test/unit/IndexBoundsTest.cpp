//===- IndexBoundsTest.cpp - Indices bounded by their types ---------------===//
//
// bufferExtents sizes verify's buffers by the largest index a kernel
// reaches. A table lookup is not affine; its types bound it (an unsigned
// char: 256 entries), as a remainder by a size does, and a gather through
// an int array or a signed char (below 0) stays unbounded.
//
//===----------------------------------------------------------------------===//

#include "Analysis/IndexBounds.h"
#include "Analysis/Domain.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

const char *Lookups = R"(
__global__ void lookups(unsigned char *y, const unsigned char *x,
                        const unsigned char *sbox, const float *ring,
                        const float *lut, float *z, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned char v = x[i];
    y[i] = sbox[v] ^ sbox[(v >> 4) & 0x7];
    float s = 0.0f;
    for (int j = 0; j < k; j++)
      s += ring[(i + j) % n] + lut[(i * 7 + j) & 63];
    z[i] = s;
  }
}
)";

TEST(IndexBounds, TableLookupsAreBoundedByTheirTypes) {
  auto M = parseText(Lookups);
  ASSERT_TRUE(M);
  const Function &F = *M->kernels()[0];
  auto E = bufferExtents(F, {{"n", 1003}, {"k", 7}}, {1003, 1}, {256, 1});
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(E->at("x"), 1003);
  EXPECT_EQ(E->at("sbox"), 256);  // v: an unsigned char
  EXPECT_EQ(E->at("ring"), 1003); // (i + j) % n with i + j >= 0
  EXPECT_EQ(E->at("lut"), 64);    // & 63
  EXPECT_EQ(E->at("z"), 1003);
}

TEST(IndexBounds, GathersAndNegativeIndicesStayUnbounded) {
  for (const char *Index : {"t[idx[i]]", "t[c[i]]", "t[idx[i] % 8]"}) {
    SCOPED_TRACE(Index);
    std::string Src = std::string(R"(
__global__ void gather(float *y, const int *idx, const signed char *c,
                       const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = )") + Index +
                      R"(;
}
)";
    auto M = parseText(Src.c_str());
    ASSERT_TRUE(M);
    auto E =
        bufferExtents(*M->kernels()[0], {{"n", 1003}}, {1003, 1}, {256, 1});
    ASSERT_FALSE(bool(E));
    EXPECT_NE(llvm::toString(E.takeError())
                  .find("cannot bound the size of array 't': its index at "
                        "line 6 is not affine, and its types do not keep it "
                        "within 0 .. 2^26"),
              std::string::npos);
  }
}

TEST(IndexBounds, IntervalArithmetic) {
  auto M = parseText(R"(
__global__ void k(int *y, const unsigned char *x, unsigned u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = (x[i] << 2) + (int)(u % 10u) - (x[i] | 5) + (unsigned char)(i * 3);
}
)");
  ASSERT_TRUE(M);
  const Function &F = *M->kernels()[0];
  const auto &Store = llvm::cast<AssignStmt>(*F.Body->Body.back());
  AffineContext Ctx = kernelAffineContext(F);
  std::map<std::string, IndexRange> Ranges{{"idx", {0, 99}}};
  auto B = indexBounds(*Store.RHS, Ctx, Ranges);
  ASSERT_TRUE(B);
  // [0, 1020] + [0, 9] - [0, 255] + [0, 255] (x | 5 is taken as any value
  // of its bits, 0 .. 255: an over-approximation).
  EXPECT_EQ(B->Lo, -255);
  EXPECT_EQ(B->Hi, 1020 + 9 + 255);
  // An unsigned sum may wrap: its type's range.
  auto U =
      indexBounds(*binary(BinaryOp::Sub,
                          var("u", Type::scalar(ScalarKind::UInt)), intLit(1)),
                  Ctx, Ranges);
  ASSERT_TRUE(U);
  EXPECT_EQ(U->Lo, 0);
  EXPECT_EQ(U->Hi, 4294967295LL);
  // The position alone: i is idx.
  auto I = indexBounds(*var("i"), Ctx, Ranges);
  ASSERT_TRUE(I);
  EXPECT_EQ(I->Lo, 0);
  EXPECT_EQ(I->Hi, 99);
}

} // namespace
