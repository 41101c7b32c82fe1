//===- WriteCollisionsTest.cpp - Input kernels that report their races ----===//
//
// The form of the input verify runs where the analysis cannot prove its
// writes apart (CodeGen/WriteCollisions.h): each assignment to a global
// array claims its element first; a record read back after the run says
// which two work-items wrote one element. Runs of whole verifies are in
// test/Driver/verify-write-collisions.test.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/WriteCollisions.h"
#include "Runtime/OpenCLSession.h"
#include "TestKernels.h"

#include <cstring>
#include <numeric>

using namespace gpumerge;

namespace {

const char *Scatter = R"(
__global__ void hist(const int *bin, const float *a, float *h, float *n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64)
    h[bin[i]] = n[i];
}
)";

TEST(WriteCollisions, EveryAssignmentToAGlobalArrayIsClaimed) {
  auto M = parseText(Scatter);
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  auto K = emitCollisionChecked(*M->kernels()[0]);
  ASSERT_TRUE(K);
  // n is only read: not claimed.
  EXPECT_EQ(K->Arrays, std::vector<std::string>{"h"});
  const std::string &T = K->Text;
  for (const char *Part :
       {"float *n, __global uint *gpumerge_writer0, int gpumerge_elements0, "
        "__global uint *gpumerge_collision) {\n  const uint gpumerge_me = ",
        "{ gpumerge_claim(gpumerge_writer0, gpumerge_elements0, (long)(bin[",
        "gpumerge_me, gpumerge_collision, 0u); h[bin["})
    EXPECT_NE(T.find(Part), std::string::npos) << Part << "\nin:\n" << T;
}

TEST(WriteCollisions, KernelsThatAssignNoGlobalElementAreNotChecked) {
  auto M = parseText(R"(
__global__ void sum(const float *a, float *s, int n) {
  __shared__ float t[256];
  t[threadIdx.x] = a[blockIdx.x * 256 + threadIdx.x];
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  EXPECT_FALSE(emitCollisionChecked(*M->kernels()[0]));
}

TEST(WriteCollisions, RecordsInWords) {
  std::vector<std::uint32_t> R(CollisionRecord::Words, 0);
  EXPECT_EQ(CollisionRecord::describe("k", {"h"}, R, {8, 4, 1}), "");
  // Work-items 9 and 18 (plus one) of an 8 x 4 grid: (1, 1) and (2, 2).
  R = {1, 0, 5, 10, 19, 0, 0, 0};
  EXPECT_EQ(CollisionRecord::describe("k", {"h"}, R, {8, 4, 1}),
            "work-items (1, 1) and (2, 2) of 'k' write element 5 of 'h'");
}

/// Runs the checked hist over 64 work-items with \p Bins; the record's
/// words.
std::vector<std::uint32_t> runChecked(const std::vector<std::int32_t> &Bins) {
  auto M = parseText(Scatter);
  EXPECT_TRUE(M && M->kernels().size() == 1);
  if (!M || M->kernels().size() != 1)
    return {};
  auto K = emitCollisionChecked(*M->kernels()[0]);
  auto S = OpenCLSession::create();
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
  if (!S || !K)
    return {};
  auto P = (*S)->buildProgram(collisionCheckHelpers() + K->Text, "", {});
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  if (!P)
    return {};
  auto Bytes = [](const void *Data, size_t N) {
    std::vector<std::uint8_t> B(N);
    std::memcpy(B.data(), Data, N);
    return B;
  };
  std::vector<float> A(64, 1.0f), H(64, 0.0f), Nv(64, 2.0f);
  auto Bin = (*S)->createBuffer(Bytes(Bins.data(), 64 * 4));
  auto InA = (*S)->createBuffer(Bytes(A.data(), 64 * 4));
  auto OutH = (*S)->createBuffer(Bytes(H.data(), 64 * 4));
  auto N = (*S)->createBuffer(Bytes(Nv.data(), 64 * 4));
  auto Shadow = (*S)->createBuffer(std::vector<std::uint8_t>(64 * 4, 0));
  auto Record = (*S)->createBuffer(
      std::vector<std::uint8_t>(CollisionRecord::Words * 4, 0));
  EXPECT_TRUE(Bin && InA && OutH && N && Shadow && Record);
  NDRange R;
  R.Global = {64, 1, 1};
  R.Local = {16, 1, 1};
  EXPECT_FALSE(
      bool((*S)->launch(*P, "hist",
                        {KernelArg::buffer(*Bin), KernelArg::buffer(*InA),
                         KernelArg::buffer(*OutH), KernelArg::buffer(*N),
                         KernelArg::buffer(*Shadow), KernelArg::i32(64),
                         KernelArg::buffer(*Record)},
                        R)));
  auto Out = (*S)->readBuffer(*Record);
  EXPECT_TRUE(bool(Out));
  std::vector<std::uint32_t> Words(CollisionRecord::Words);
  std::memcpy(Words.data(), Out->data(), Words.size() * 4);
  return Words;
}

TEST(WriteCollisions, DistinctTargetsDoNotCollide) {
  std::vector<std::int32_t> Bins(64);
  std::iota(Bins.rbegin(), Bins.rend(), 0); // 63, 62, ..., 0
  std::vector<std::uint32_t> R = runChecked(Bins);
  ASSERT_EQ(R.size(), CollisionRecord::Words);
  EXPECT_EQ(R[0], 0u) << "a permutation recorded a collision";
}

TEST(WriteCollisions, TwoWorkItemsWritingOneElementCollide) {
  std::vector<std::int32_t> Bins(64);
  std::iota(Bins.begin(), Bins.end(), 0);
  Bins[40] = 7; // work-items 7 and 40 write h[7]
  std::vector<std::uint32_t> R = runChecked(Bins);
  ASSERT_EQ(R.size(), CollisionRecord::Words);
  EXPECT_EQ(
      CollisionRecord::describe("hist", {"h"}, R, {64, 1, 1}).substr(0, 10),
      "work-items");
  EXPECT_EQ(R[2], 7u); // the element
  std::set<std::uint32_t> Writers = {R[3], R[4]};
  EXPECT_EQ(Writers, (std::set<std::uint32_t>{8, 41}));
}

} // namespace
