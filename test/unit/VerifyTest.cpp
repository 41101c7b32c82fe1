//===- VerifyTest.cpp - --verify finds what differs -----------------------===//
//
// The verifier must catch a wrong emitted kernel, not only bless a right one:
// a kernel whose arithmetic or indexing is altered is reported as a mismatch.
//
//===----------------------------------------------------------------------===//
#include "Runtime/Verify.h"
#include "Frontend/Frontend.h"

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

std::unique_ptr<Module> parse(const char *Src) {
  auto M = parseSource(Src, "mm.cu", {});
  EXPECT_TRUE(bool(M)) << (M ? "" : llvm::toString(M.takeError()));
  return M ? std::move(*M) : nullptr;
}

VerifyResult verify(const Module &M, const Function &Emitted,
                    SizeBindings Sizes = {}) {
  VerifyOptions Opts;
  Opts.Sizes = std::move(Sizes);
  auto R = verifyKernel(M, *M.kernels()[0], Emitted, naiveLaunch(2), Opts);
  EXPECT_TRUE(bool(R)) << (R ? "" : llvm::toString(R.takeError()));
  return R ? *R : VerifyResult();
}

TEST(Verify, RoundTripMatches) {
  auto M = parse(MM);
  ASSERT_TRUE(M);
  VerifyResult R =
      verify(*M, *M->kernels()[0], {{"w", 37}, {"h", 21}, {"k", 19}});
  EXPECT_EQ(R.Outcome, VerifyResult::Status::Ok) << R.Detail;
  EXPECT_EQ(R.MaxRelError, 0.0);
  EXPECT_EQ(R.Domain[0], 37);
  EXPECT_EQ(R.Domain[1], 21);
}

TEST(Verify, SwappedIndicesAreCaught) {
  // b[i*w + x] → b[x*w + i] on a square problem: in bounds, but a transposed
  // read, which random non-symmetric inputs must expose.
  auto M = parse(MM);
  ASSERT_TRUE(M);
  auto Bad = M->kernels()[0]->clone();
  rewriteExprs(*Bad->Body, [](Expr &E) -> ExprPtr {
    auto *A = llvm::dyn_cast<ArrayRef>(&E);
    if (!A || A->Array != "b")
      return nullptr;
    std::vector<ExprPtr> I;
    I.push_back(add(mul(var("x"), var("w")), var("i")));
    return std::make_unique<ArrayRef>("b", std::move(I), A->getType());
  });
  VerifyResult R = verify(*M, *Bad, {{"w", 29}, {"h", 29}, {"k", 29}});
  EXPECT_EQ(R.Outcome, VerifyResult::Status::Mismatch);
  EXPECT_NE(R.Detail.find("'c'"), std::string::npos) << R.Detail;
  EXPECT_GT(R.MaxRelError, 1e-4);
}

TEST(Verify, DefaultSizesAreAwkward) {
  auto M = parse(MM);
  ASSERT_TRUE(M);
  SizeBindings S = chooseSizes(*M->kernels()[0], {});
  ASSERT_EQ(S.size(), 3u);
  for (auto &[Name, V] : S)
    EXPECT_NE(V % 16, 0) << Name;
  EXPECT_NE(S["w"], S["h"]);
}

TEST(Verify, SizeHintsAreScaledDown) {
  auto M =
      parse((std::string("#pragma gpumerge size(w=4096, h=2048, k=8)\n") + MM)
                .c_str());
  ASSERT_TRUE(M);
  SizeBindings S = chooseSizes(*M->kernels()[0], {{"h", 100}});
  EXPECT_EQ(S["h"], 100);           // given
  EXPECT_EQ(S["k"], 8);             // small hints are kept
  EXPECT_EQ(S["w"], 4096 / 32 + 3); // large ones scaled, off the 16-grid
}

} // namespace
