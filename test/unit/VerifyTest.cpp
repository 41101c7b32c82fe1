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

TEST(Verify, PlanSatisfiability) {
  auto M = parse(MM);
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

TEST(Verify, GridGivesOnlyUnguardedDimensions) {
  // The guard bounds X and Y: --grid does not override them.
  auto M = parse(MM);
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

// One time limit covers the input's run and the emitted kernel's: an
// emitted kernel stopped with little time left is too slow, not hung.
TEST(VerifyTimeout, SlowIsNotAHang) {
  EXPECT_FALSE(tooSlowToCallAHang(120, 0.2)); // 119.8 s left: a hang
  EXPECT_FALSE(tooSlowToCallAHang(2, 0.1));   // 1.9 s left, > 1.3 s
  EXPECT_TRUE(tooSlowToCallAHang(120, 100));  // 20 s left after 100 s
  EXPECT_TRUE(tooSlowToCallAHang(120, 40));   // 80 s left, < 121 s
  EXPECT_TRUE(tooSlowToCallAHang(2, 1.5));
}
