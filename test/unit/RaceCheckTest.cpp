//===- RaceCheckTest.cpp - Kernels that report their shared-memory races --===//
//
// The checking form verify runs on OpenCL (CodeGen/RaceCheck.h): every
// access to a shared array goes through a check, barriers count intervals,
// and a record read back after the run is put in words. Runs that find a
// race are in test/Driver/verify-races.test.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/RaceCheck.h"
#include "Runtime/OpenCLSession.h"
#include "TestKernels.h"

#include <cstring>

using namespace gpumerge;

namespace {

const char *Transpose = R"(
__global__ void tr(const float *a, float *b, int n) {
  __shared__ float t[16][17];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  t[threadIdx.y][threadIdx.x] = a[y * n + x];
  __syncthreads();
  b[(blockIdx.x * 16 + threadIdx.y) * n + blockIdx.y * 16 + threadIdx.x] =
      t[threadIdx.x][threadIdx.y];
}
)";

TEST(RaceCheck, EveryAccessToASharedArrayIsChecked) {
  auto M = parseText(Transpose);
  ASSERT_TRUE(M);
  auto K = emitRaceChecked(*M->kernels()[0]);
  ASSERT_TRUE(K);
  ASSERT_EQ(K->Arrays.size(), 1u);
  EXPECT_EQ(K->Arrays[0].Name, "t");
  EXPECT_EQ(K->Arrays[0].Extents, (std::vector<std::int64_t>{16, 17}));
  const std::string &T = K->Text;
  for (const char *Part :
       {"int n, __global uint *gpumerge_race, int gpumerge_group0, int "
        "gpumerge_group1, int gpumerge_group2, int gpumerge_groups0, int "
        "gpumerge_groups1) {\n",
        "__local uint gpumerge_w_t[272], gpumerge_r_t[272], "
        "gpumerge_a_t[272];",
        "*(gpumerge_write(gpumerge_w_t, gpumerge_r_t, gpumerge_a_t, "
        "gpumerge_waits, 272, (long)("
        "get_local_id(1) * 17 + get_local_id(0)), 1, gpumerge_me, "
        "gpumerge_epoch, gpumerge_record, 0), &t[get_local_id(1)]"
        "[get_local_id(0)]) = ",
        "(barrier(CLK_LOCAL_MEM_FENCE), ++gpumerge_epoch);",
        "(gpumerge_read(gpumerge_w_t, gpumerge_r_t, gpumerge_a_t, "
        "gpumerge_waits, 272, (long)("
        "get_local_id(0) * 17 + get_local_id(1)), 1"})
    EXPECT_NE(T.find(Part), std::string::npos) << Part << "\nin:\n" << T;
  // The shadows are cleared, and a barrier passed, before the kernel's own
  // first statement.
  EXPECT_LT(T.find("barrier(CLK_LOCAL_MEM_FENCE);\n  uint gpumerge_epoch = 1, "
                   "gpumerge_batch = 0;"),
            T.find("gpumerge_write"));
}

// Where the input ran long, verify launches some work-groups of the checked
// kernel alone (one work-group each): the arguments after the record say
// where that work-group stands in the whole grid, and the kernel computes
// what that work-group computes in the whole launch.
TEST(RaceCheck, AWorkGroupLaunchedAloneKnowsItsPlaceInTheGrid) {
  auto M = parseText(Transpose);
  ASSERT_TRUE(M);
  auto K = emitRaceChecked(*M->kernels()[0]);
  ASSERT_TRUE(K);
  auto S = OpenCLSession::create();
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  auto P = (*S)->buildProgram(raceCheckHelpers() + K->Text, "-cl-opt-disable");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const int N = 64; // a grid of 4 x 4 work-groups of 16 x 16
  std::vector<float> A(N * N);
  for (int I = 0; I < N * N; ++I)
    A[I] = float(I * 7 % 1013);
  auto Bytes = [](const std::vector<float> &V) {
    std::vector<std::uint8_t> B(V.size() * 4);
    std::memcpy(B.data(), V.data(), B.size());
    return B;
  };
  auto InA = (*S)->createBuffer(Bytes(A));
  auto OutB = (*S)->createBuffer(Bytes(std::vector<float>(N * N, -1.0f)));
  auto Record = (*S)->createBuffer(
      std::vector<std::uint8_t>(RaceRecord::BufferWords * 4, 0));
  ASSERT_TRUE(InA && OutB && Record);
  std::vector<KernelArg> Args = {KernelArg::buffer(*InA),
                                 KernelArg::buffer(*OutB), KernelArg::i32(N),
                                 KernelArg::buffer(*Record)};
  for (std::int32_t V : RaceRecord::groupArguments({2, 1, 0}, {4, 4, 1}))
    Args.push_back(KernelArg::i32(V));
  NDRange One;
  One.Dims = 2;
  One.Global = {16, 16, 1};
  One.Local = {16, 16, 1};
  ASSERT_FALSE(bool((*S)->launch(*P, "tr", Args, One)));
  auto Out = (*S)->readBuffer(*OutB);
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  std::vector<float> B(N * N);
  std::memcpy(B.data(), Out->data(), Out->size());
  // Work-group (2, 1) reads a's tile at rows 16.., columns 32.. and writes
  // it transposed at b's rows 32.., columns 16..; nothing else is written.
  for (int Y = 0; Y < N; ++Y)
    for (int X = 0; X < N; ++X) {
      bool Mine = Y / 16 == 2 && X / 16 == 1;
      ASSERT_EQ(B[Y * N + X], Mine ? A[X * N + Y] : -1.0f)
          << "b[" << Y << "][" << X << "]";
    }
  auto R = (*S)->readBuffer(*Record);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ((*R)[0], 0) << "a race-free kernel recorded a race";
}

TEST(RaceCheck, KernelsWithoutSharedArraysAreNotChecked) {
  auto M = parseKernelFile("mv.cu");
  ASSERT_TRUE(M);
  EXPECT_FALSE(emitRaceChecked(*M->kernels()[0]));
}

TEST(RaceCheck, RecordsInWords) {
  std::vector<CheckedArray> Arrays = {{"t", {16, 17}}};
  std::vector<std::uint32_t> R(RaceRecord::Words, 0);
  EXPECT_EQ(RaceRecord::describe("tr", Arrays, R, {16, 16}), "");
  // Work-item 19 = (3, 1) read t[1][2] (element 19) that 5 = (5, 0) wrote.
  R[0] = 1;
  R[1] = 1;
  R[3] = 19;
  R[4] = 19;
  R[5] = 5;
  R[6] = 2;
  EXPECT_EQ(RaceRecord::describe("tr", Arrays, R, {16, 16}),
            "shared-memory race in 'tr': work-item (3, 1) read 't[1][2]' "
            "after (5, 0) wrote it with no barrier between (barrier "
            "interval 2)");
  R[1] = 2;
  R[5] = 0xFFFFFFFF;
  EXPECT_EQ(RaceRecord::describe("tr", Arrays, R, {16, 16}),
            "shared-memory race in 'tr': work-item (3, 1) wrote 't[1][2]' "
            "after other work-items read it with no barrier between "
            "(barrier interval 2)");
  // A read of t[1][2] before the cp.async copy of 5 = (5, 0) into it was
  // waited for; then before work-item 19's own copy.
  R[1] = 5;
  R[5] = 5;
  EXPECT_EQ(RaceRecord::describe("tr", Arrays, R, {16, 16}),
            "shared-memory race in 'tr': work-item (3, 1) accessed 't[1][2]' "
            "before the asynchronous copy (5, 0) made into it landed (no "
            "__pipeline_wait_prior of (5, 0) covering it, then a barrier, "
            "before the access; barrier interval 2)");
  R[5] = 19;
  EXPECT_EQ(RaceRecord::describe("tr", Arrays, R, {16, 16}),
            "shared-memory race in 'tr': work-item (3, 1) accessed 't[1][2]' "
            "before its own asynchronous copy into it landed (no "
            "__pipeline_wait_prior covering it before the access; barrier "
            "interval 2)");
  // The first slot that holds a race; the first where none does.
  std::vector<std::uint32_t> Buffer(RaceRecord::BufferWords, 0);
  EXPECT_EQ(RaceRecord::firstRace(Buffer),
            std::vector<std::uint32_t>(RaceRecord::Words, 0));
  std::copy(R.begin(), R.end(), Buffer.begin() + 5 * RaceRecord::Words);
  EXPECT_EQ(RaceRecord::firstRace(Buffer), R);
  R[1] = 4;
  R[3] = 300;
  EXPECT_EQ(RaceRecord::describe("tr", Arrays, R, {16, 16}),
            "shared-memory access out of bounds in 'tr': work-item (3, 1) "
            "accessed element 300 of 't', which has 272");
}

} // namespace
