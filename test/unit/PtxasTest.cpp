//===- PtxasTest.cpp - Kernel resource use as ptxas reports it ------------===//
//
// The report parser on nvcc 13's output and older formats, the kernel names
// behind mangled symbols, and real compiles with nvcc: exact shared memory,
// registers of a kernel with many live values, every kernel of a file, and
// compile errors carried back with their line. nvcc is required: without it
// the compiling tests fail and say so, rather than pass.
//
//===----------------------------------------------------------------------===//

#include "Target/Ptxas.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

// --- Parsing (no nvcc needed) -----------------------------------------------

// nvcc 13.0 for sm_90, verbatim (a namespaced, an extern "C" and a template
// kernel; a local array gives a stack frame).
constexpr const char *Sm90Report = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN2ns3nskEPf' for 'sm_90'
ptxas info    : Function properties for _ZN2ns3nskEPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 22.886 ms
ptxas info    : Compiling entry function '_Z5spillPfi' for 'sm_90'
ptxas info    : Function properties for _Z5spillPfi
    1024 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 1024 bytes cumulative stack size
ptxas info    : Compile time = 86.225 ms
ptxas info    : Compiling entry function '_Z2tkILi3EEvPf' for 'sm_90'
ptxas info    : Function properties for _Z2tkILi3EEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 1.819 ms
ptxas info    : Compiling entry function 'cfun' for 'sm_90'
ptxas info    : Function properties for cfun
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 0.993 ms
ptxas info    : Compiling entry function '_Z2tpPfPKfi' for 'sm_90'
ptxas info    : Function properties for _Z2tpPfPKfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 1088 bytes smem
ptxas info    : Compile time = 1.971 ms
)";

TEST(PtxasReport, ParsesNvcc13ForSm90) {
  auto R = parsePtxasReport(Sm90Report);
  ASSERT_EQ(R.size(), 5u);
  const KernelResources &Tp = R.at("tp");
  EXPECT_EQ(Tp.Registers, 14u);
  EXPECT_EQ(Tp.SharedBytes, 1088u);
  EXPECT_EQ(Tp.StackBytes, 0u);
  EXPECT_EQ(Tp.Source, "ptxas sm_90");
  EXPECT_EQ(R.at("spill").Registers, 40u);
  EXPECT_EQ(R.at("spill").StackBytes, 1024u);
  EXPECT_EQ(R.at("nsk").Registers, 8u);
  EXPECT_EQ(R.at("tk").Registers, 8u);
  EXPECT_EQ(R.at("cfun").Registers, 8u);
}

// sm_75 adds constant banks to the Used line, and a callee's properties come
// after the entry's: they must not overwrite the kernel's.
TEST(PtxasReport, ConstantBanksAndCalleesAfterTheEntry) {
  auto R = parsePtxasReport(
      R"(ptxas info    : 40 bytes gmem, 400 bytes cmem[3], 8 bytes cmem[4]
ptxas info    : Compiling entry function '_Z1kPf' for 'sm_75'
ptxas info    : Function properties for _Z1kPf
    256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 72 registers, used 0 barriers, 256 bytes cumulative stack size, 800 bytes smem, 360 bytes cmem[0]
ptxas info    : Compile time = 9.732 ms
ptxas info    : Function properties for _Z1fPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
)");
  ASSERT_EQ(R.size(), 1u);
  const KernelResources &K = R.at("k");
  EXPECT_EQ(K.Registers, 72u);
  EXPECT_EQ(K.SharedBytes, 800u);
  EXPECT_EQ(K.StackBytes, 256u);
  EXPECT_EQ(K.SpillStoreBytes, 8u);
  EXPECT_EQ(K.SpillLoadBytes, 12u);
  EXPECT_EQ(K.Source, "ptxas sm_75");
}

// Older toolkits: no barriers item, "static+dynamic bytes smem", "ptxas info:"
// spacing; overloads of one name are merged by maximum.
TEST(PtxasReport, OlderFormatAndOverloads) {
  auto R = parsePtxasReport(
      R"(ptxas info: Compiling entry function '_Z2mmPKfS0_Pfiii' for 'sm_20'
ptxas info: Function properties for _Z2mmPKfS0_Pfiii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info: Used 40 registers, 4096+0 bytes smem, 380 bytes cmem[0]
ptxas info: Compiling entry function '_Z2mmPKdS0_Pdiii' for 'sm_20'
ptxas info: Function properties for _Z2mmPKdS0_Pdiii
    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info: Used 63 registers, 2048+0 bytes smem, 380 bytes cmem[0]
)");
  ASSERT_EQ(R.size(), 1u);
  const KernelResources &K = R.at("mm");
  EXPECT_EQ(K.Registers, 63u);
  EXPECT_EQ(K.SharedBytes, 4096u);
  EXPECT_EQ(K.StackBytes, 16u);
  EXPECT_EQ(K.SpillStoreBytes, 4u);
}

TEST(PtxasReport, KernelSourceNames) {
  EXPECT_EQ(kernelSourceName("_Z2mmPKfS0_Pfiii"), "mm");
  EXPECT_EQ(kernelSourceName("_ZN2ns3nskEPf"), "nsk");
  EXPECT_EQ(kernelSourceName("_Z2tkILi3EEvPf"), "tk");
  EXPECT_EQ(kernelSourceName("cfun"), "cfun");
  EXPECT_EQ(kernelSourceName("_Z13matrixMul_tmpv"), "matrixMul_tmp");
}

// --- Compiling with nvcc ----------------------------------------------------

class PtxasCompile : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::Expected<std::string> Nvcc = findNvcc();
    ASSERT_TRUE(static_cast<bool>(Nvcc))
        << "these tests need nvcc (CUDA 11 or newer): "
        << llvm::toString(Nvcc.takeError());
  }

  std::map<std::string, KernelResources> compile(const std::string &Source,
                                                 const std::string &Arch) {
    auto R = ptxasResources(Source, Arch);
    if (!R) {
      ADD_FAILURE() << llvm::toString(R.takeError());
      return {};
    }
    return *R;
  }
};

constexpr const char *TransposeAndManyRegisters = R"(
#define TILE 16
__global__ void transpose(float *out, const float *in, int n) {
  __shared__ float s[TILE][TILE + 1];
  int x = threadIdx.x, y = threadIdx.y;
  s[y][x] = in[(blockIdx.y * TILE + y) * n + blockIdx.x * TILE + x];
  __syncthreads();
  out[(blockIdx.x * TILE + y) * n + blockIdx.y * TILE + x] = s[x][y];
}

// 48 values loaded up front and all read again at the end: live together.
__global__ void manyLive(float *out, const float *in, int n) {
  float v[48];
#pragma unroll
  for (int i = 0; i < 48; ++i)
    v[i] = in[i * n + blockIdx.x * blockDim.x + threadIdx.x];
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 48; ++i)
    acc += v[i] * v[47 - i] + v[(i * 5) % 48];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void scale(float *a, float f) { a[threadIdx.x] *= f; }
)";

TEST_F(PtxasCompile, SharedMemoryExactRegistersAndEveryKernel) {
  auto R = compile(TransposeAndManyRegisters, "sm_90");
  ASSERT_EQ(R.size(), 3u);
  ASSERT_TRUE(R.count("transpose") && R.count("manyLive") && R.count("scale"));

  const KernelResources &T = R.at("transpose");
  EXPECT_EQ(T.SharedBytes, 16u * 17u * 4u); // 1088
  EXPECT_GT(T.Registers, 0u);
  EXPECT_EQ(T.Source, "ptxas sm_90");

  const KernelResources &M = R.at("manyLive");
  EXPECT_EQ(M.SharedBytes, 0u);
  EXPECT_GE(M.Registers, 48u) << "48 floats are live at once";
  EXPECT_GT(M.Registers, T.Registers);
  EXPECT_EQ(M.SpillStoreBytes, 0u);

  EXPECT_GT(R.at("scale").Registers, 0u);
  EXPECT_EQ(R.at("scale").SharedBytes, 0u);
}

TEST_F(PtxasCompile, StackOfALocalArrayOnAnOlderArchitecture) {
  auto R = compile(R"(
__global__ void local(float *a, int n) {
  float v[256];
  for (int i = 0; i < 256; ++i)
    v[i] = a[i * n + threadIdx.x];
  a[threadIdx.x] = v[n & 255];
}
)",
                   "sm_75");
  ASSERT_EQ(R.count("local"), 1u);
  EXPECT_GE(R.at("local").StackBytes, 1024u);
  EXPECT_EQ(R.at("local").Source, "ptxas sm_75");
}

TEST_F(PtxasCompile, SyntaxErrorNamesTheLine) {
  auto R = ptxasResources("__global__ void k(float *a) {\n"
                          "  a[0] = 1.0f\n"
                          "}\n",
                          "sm_90");
  ASSERT_FALSE(static_cast<bool>(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("kernel.cu(3): error"), std::string::npos) << Msg;
  EXPECT_EQ(Msg.find("gpumerge-ptxas"), std::string::npos)
      << "the temporary directory leaked into the message: " << Msg;
}

TEST_F(PtxasCompile, NotARealArchitecture) {
  auto R = ptxasResources("__global__ void k() {}\n", "compute_90");
  ASSERT_FALSE(static_cast<bool>(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("sm_NN"), std::string::npos);
}

} // namespace
