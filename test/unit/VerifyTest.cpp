//===- VerifyTest.cpp - --verify finds what differs -----------------------===//
//
// The verifier must catch a wrong emitted kernel, not only bless a right one:
// a kernel whose arithmetic or indexing is altered is reported as a mismatch.
//
//===----------------------------------------------------------------------===//
#include "Runtime/Verify.h"
#include "Frontend/Frontend.h"
#include "Runtime/Isolate.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

const char *MM = GuardedMMSource;

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

} // namespace

// One time limit covers the input's run and the emitted kernel's: an
// emitted kernel stopped with little time left is too slow, not hung.
TEST(VerifyTimeout, SlowIsNotAHang) {
  EXPECT_FALSE(tooSlowToCallAHang(120, 0.2)); // 119.8 s left: a hang
  EXPECT_FALSE(tooSlowToCallAHang(2, 0.1));   // 1.9 s left, > 1.3 s
  EXPECT_TRUE(tooSlowToCallAHang(120, 100));  // 20 s left after 100 s
  EXPECT_TRUE(tooSlowToCallAHang(120, 40));   // 80 s left, < 121 s
  EXPECT_TRUE(tooSlowToCallAHang(2, 1.5));
}
