//===- SplitPhasesTest.cpp - Splitting kernels at global barriers ---------===//
#include "Transforms/SplitPhases.h"
#include "CodeGen/Emitter.h"
#include "Runtime/OpenCLSession.h"

#include "TestKernels.h"

#include <cstring>

using namespace gpumerge;

namespace {

bool anyGlobalSync(const Module &M) {
  for (const auto &F : M.Functions)
    if (hasGlobalSync(*F))
      return true;
  return false;
}

std::string body(const Function &F) { return emitFunction(F, Language::Cuda); }

/// The reason \p Source's only kernel is refused, or "" when it splits.
std::string refusal(const std::string &Source) {
  auto M = parseText(Source);
  if (!M)
    return "parse failed";
  splitGlobalBarriers(*M);
  if (M->PassedThrough.empty())
    return "";
  return M->PassedThrough.front().Construct;
}

} // namespace

TEST(SplitPhases, ReductionSplitsInTwoWithThePositionRecomputed) {
  auto M = parseKernelFile("rd.cu");
  ASSERT_TRUE(M);
  splitGlobalBarriers(*M);
  ASSERT_EQ(M->Phased.size(), 1u);
  const PhasedKernel &PK = M->Phased[0];
  EXPECT_EQ(PK.Name, "rd");
  EXPECT_EQ(PK.Phases, (std::vector<std::string>{"rd_phase0", "rd_phase1"}));
  EXPECT_EQ(PK.BarrierLines, std::vector<unsigned>{20});
  EXPECT_EQ(PK.Recomputed, std::vector<std::string>{"i"});
  EXPECT_EQ(M->find("rd"), nullptr) << "the split kernel must be gone";
  EXPECT_FALSE(anyGlobalSync(*M));
  for (unsigned K = 0; K < 2; ++K) {
    const Function *P = M->find(PK.Phases[K]);
    ASSERT_TRUE(P);
    EXPECT_EQ(P->PhaseOf, "rd");
    EXPECT_EQ(P->PhaseIndex, K);
    ASSERT_EQ(P->Params.size(), 5u);
    EXPECT_EQ(P->Params[4].Name, "nt");
    // Both phases start from the thread's position.
    auto *D = llvm::dyn_cast<DeclStmt>(P->Body->Body.front().get());
    ASSERT_TRUE(D) << body(*P);
    EXPECT_EQ(D->Name, "i");
  }
  EXPECT_NE(body(*M->find("rd_phase0")).find("j += nt"), std::string::npos);
  EXPECT_NE(body(*M->find("rd_phase1")).find("out[0] = total;"),
            std::string::npos);
}

TEST(SplitPhases, RecomputesChainsOfLocalsInSourceOrder) {
  auto M = parseText(R"(
__global__ void k(const float *in, float *tmp, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int unused = 7;
  int m = n - 1 - i;
  int k2 = 2 * m + 1;
  if (i < n)
    tmp[i] = in[i];
  gpumerge_global_sync();
  if (k2 < 2 * n)
    out[i] = tmp[m];
}
)");
  ASSERT_TRUE(M);
  splitGlobalBarriers(*M);
  ASSERT_EQ(M->Phased.size(), 1u) << M->PassedThrough.front().Construct;
  const Function *P1 = M->find("k_phase1");
  ASSERT_TRUE(P1);
  std::vector<std::string> Decls;
  for (const StmtPtr &S : P1->Body->Body)
    if (auto *D = llvm::dyn_cast<DeclStmt>(S.get()))
      Decls.push_back(D->Name);
  EXPECT_EQ(Decls, (std::vector<std::string>{"i", "m", "k2"}));
}

TEST(SplitPhases, BarriersAtTheEdgesMakeNoEmptyPhase) {
  auto M = parseText(R"(
__global__ void k(float *a, int n) {
  gpumerge_global_sync();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 1.0f;
  gpumerge_global_sync();
  gpumerge_global_sync();
}
)");
  ASSERT_TRUE(M);
  splitGlobalBarriers(*M);
  ASSERT_EQ(M->Phased.size(), 1u);
  EXPECT_EQ(M->Phased[0].Phases, std::vector<std::string>{"k_phase0"});
  EXPECT_EQ(M->Phased[0].BarrierLines.size(), 3u);
}

TEST(SplitPhases, RefusesRegistersAcrossTheBarrier) {
  std::string Why = refusal(R"(
__global__ void k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  gpumerge_global_sync();
  out[i] = v;
}
)");
  EXPECT_NE(Why.find("local 'v' (line 4) is computed before the global "
                     "barrier at line 5 and read after it"),
            std::string::npos)
      << Why;
  // Set once, but from memory: not recomputable either (the barrier may
  // separate it from a write of in).
  Why = refusal(R"(
__global__ void k(const int *idxs, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = idxs[i];
  gpumerge_global_sync();
  out[j] = 1.0f;
}
)");
  EXPECT_NE(Why.find("local 'j'"), std::string::npos) << Why;
  // Assigned after its declaration.
  Why = refusal(R"(
__global__ void k(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    i = n - 1;
  gpumerge_global_sync();
  out[i] = 1.0f;
}
)");
  EXPECT_NE(Why.find("local 'i'"), std::string::npos) << Why;
  Why = refusal(R"(
__global__ void k(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  n = n / 2;
  gpumerge_global_sync();
  if (i < n)
    out[i] = 1.0f;
}
)");
  EXPECT_NE(Why.find("parameter 'n' is changed before the global barrier"),
            std::string::npos)
      << Why;
}

TEST(SplitPhases, RefusesBarriersInControlFlowAndEarlyReturns) {
  std::string Why = refusal(R"(
__global__ void k(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = 1.0f;
    gpumerge_global_sync();
  }
}
)");
  EXPECT_NE(Why.find("inside control flow at line 6"), std::string::npos)
      << Why;
  Why = refusal(R"(
__global__ void k(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  a[i] = 1.0f;
  gpumerge_global_sync();
  a[i] += a[n - 1 - i];
}
)");
  EXPECT_NE(Why.find("return at line 5 before the global barrier at line 7"),
            std::string::npos)
      << Why;
}

TEST(SplitPhases, RefusesNamesTheInputAlreadyUses) {
  std::string Why = refusal(R"(
__global__ void k(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 1.0f;
  gpumerge_global_sync();
  if (i < n)
    a[i] += 1.0f;
}
__global__ void k_phase1(float *a) {}
)");
  EXPECT_NE(Why.find("already uses the name 'k_phase1'"), std::string::npos)
      << Why;
}

// The split means what the barrier meant: the input kernel, run as one
// work-group with the barrier as a work-group barrier (which then waits for
// every thread of the launch), and the phases, launched in order over many
// work-groups, compute the same partial sums and total.
TEST(SplitPhases, PhasesComputeWhatTheBarrierKernelComputes) {
  auto SessionOrErr = OpenCLSession::create();
  if (!SessionOrErr) {
    std::string Why = llvm::toString(SessionOrErr.takeError());
    if (Why.find("no OpenCL platform found") == 0)
      GTEST_SKIP() << Why;
    FAIL() << Why;
  }
  OpenCLSession &S = **SessionOrErr;
  auto M = parseKernelFile("rd.cl");
  ASSERT_TRUE(M);
  std::string Whole = emitFunction(*M->find("rd"), Language::OpenCL);
  size_t At = Whole.find("gpumerge_global_sync();");
  ASSERT_NE(At, std::string::npos);
  Whole.replace(At, std::strlen("gpumerge_global_sync();"),
                "barrier(CLK_GLOBAL_MEM_FENCE);");
  splitGlobalBarriers(*M);
  std::string Phases = llvm::cantFail(emitModule(*M, Language::OpenCL)).Text;
  auto WholeProg = S.buildProgram(Whole);
  ASSERT_TRUE(bool(WholeProg)) << llvm::toString(WholeProg.takeError());
  auto PhaseProg = S.buildProgram(Phases);
  ASSERT_TRUE(bool(PhaseProg)) << llvm::toString(PhaseProg.takeError());

  const int N = 100003, NT = 250;
  std::vector<float> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = float((I * 37) % 101) / 16.0f - 3.0f;
  auto Bytes = [](const std::vector<float> &V) {
    std::vector<std::uint8_t> B(V.size() * sizeof(float));
    std::memcpy(B.data(), V.data(), B.size());
    return B;
  };
  auto Run = [&](unsigned Prog, const std::vector<std::string> &Kernels,
                 NDRange R) -> std::vector<std::vector<std::uint8_t>> {
    unsigned BIn = *S.createBuffer(Bytes(In));
    unsigned BPart = *S.createBuffer(Bytes(std::vector<float>(NT, -1.0f)));
    unsigned BOut = *S.createBuffer(Bytes(std::vector<float>(1, -1.0f)));
    for (const std::string &K : Kernels) {
      llvm::Error E = S.launch(
          Prog, K,
          {KernelArg::buffer(BIn), KernelArg::buffer(BPart),
           KernelArg::buffer(BOut), KernelArg::i32(N), KernelArg::i32(NT)},
          R);
      EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
    }
    return {*S.readBuffer(BPart), *S.readBuffer(BOut)};
  };
  NDRange OneGroup;
  OneGroup.Global[0] = OneGroup.Local[0] = NT;
  NDRange Groups;
  Groups.Global[0] = 256;
  Groups.Local[0] = 16; // 16 work-groups, the last ones partly idle
  auto Expected = Run(*WholeProg, {"rd"}, OneGroup);
  auto Actual = Run(*PhaseProg, M->Phased[0].Phases, Groups);
  EXPECT_EQ(Expected[0], Actual[0]) << "partial sums differ";
  EXPECT_EQ(Expected[1], Actual[1]) << "totals differ";
  float Total;
  std::memcpy(&Total, Actual[1].data(), sizeof(float));
  double Sum = 0;
  for (float X : In)
    Sum += X;
  EXPECT_NEAR(Total, Sum, 1e-3 * std::max(1.0, std::abs(Sum)));
}
