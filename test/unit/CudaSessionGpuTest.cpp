//===- CudaSessionGpuTest.cpp - The CUDA session on a real GPU ------------===//
//
// Needs a GPU and its driver, so it fails (never skips) without one: ctest
// runs it only when configured with -DGPUMERGE_GPU_TESTS=ON; elsewhere run
// build/test/unit/CudaGpuTests on the GPU machine.
//
//===----------------------------------------------------------------------===//
#include "Runtime/CudaSession.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace gpumerge;

namespace {

/// Only where a GPU exists: a kernel, a texture object and a timing.
TEST(CudaSessionOnGpu, RunsTexturesAndTimes) {
  auto S = CudaSession::create();
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  CudaSession &C = **S;
  auto Prog = C.buildProgram(
      "__global__ void copy(cudaTextureObject_t t, float4 *v, float *o, "
      "int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) o[i] = tex1Dfetch<float>(t, i) + v[0].y;\n}\n",
      "", {"copy"});
  ASSERT_TRUE(bool(Prog)) << llvm::toString(Prog.takeError());
  std::vector<float> In(1000);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(I) * 0.5f;
  std::vector<std::uint8_t> Bytes(In.size() * 4);
  std::memcpy(Bytes.data(), In.data(), Bytes.size());
  auto B = C.createBuffer(Bytes);
  auto V = C.createBuffer(std::vector<std::uint8_t>(16, 0));
  auto O = C.createBuffer(std::vector<std::uint8_t>(Bytes.size(), 0));
  ASSERT_TRUE(B && V && O);
  auto T = C.createTexelView(*B, TexelChannel::Float, In.size(), 1);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  NDRange R;
  R.Global[0] = 1024;
  R.Local[0] = 128;
  std::vector<KernelArg> Args = {KernelArg::buffer(*T), KernelArg::buffer(*V),
                                 KernelArg::buffer(*O), KernelArg::i32(1000)};
  ASSERT_FALSE(bool(C.launch(*Prog, "copy", Args, R)));
  auto Got = C.readBuffer(*O);
  ASSERT_TRUE(bool(Got));
  std::vector<float> Result(In.size());
  std::memcpy(Result.data(), Got->data(), Got->size());
  EXPECT_EQ(Result, In);
  auto Times = C.timeKernel(*Prog, "copy", Args, R, 1, 7);
  ASSERT_TRUE(bool(Times)) << llvm::toString(Times.takeError());
  EXPECT_EQ(Times->Ms.size(), 7u);
  EXPECT_GT(Times->median(), 0);
  // A wrong argument count is caught before the launch where the driver
  // can tell (CUDA 12.4+).
  llvm::Error E = C.launch(*Prog, "copy", {KernelArg::buffer(*O)}, R);
  EXPECT_TRUE(bool(E));
  llvm::consumeError(std::move(E));
}

} // namespace

// Programs announced with expectBuilds compile on other threads; each build
// then takes its own (the kernel writes its own number), and what is
// released is gone.
TEST(CudaSessionOnGpu, BuildsAnnouncedAheadRunTheirOwnCode) {
  auto S = CudaSession::create();
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  CudaSession &C = **S;
  auto Source = [](int K) {
    return "__global__ void put(int *o) { o[0] = " + std::to_string(K) +
           " + N; }\n";
  };
  std::vector<DeviceSession::BuildRequest> Ahead;
  for (int K = 0; K < 4; ++K)
    Ahead.push_back({Source(K), "-DN=10", {"put"}});
  C.expectBuilds(Ahead);
  NDRange R;
  R.Global[0] = 1;
  R.Local[0] = 1;
  for (int K : {2, 0, 3, 1}) {
    auto Prog = C.buildProgram(Source(K), "-DN=10", {"put"});
    ASSERT_TRUE(bool(Prog)) << llvm::toString(Prog.takeError());
    auto O = C.createBuffer(std::vector<std::uint8_t>(4, 0));
    ASSERT_TRUE(bool(O));
    ASSERT_FALSE(bool(C.launch(*Prog, "put", {KernelArg::buffer(*O)}, R)));
    auto Got = C.readBuffer(*O);
    ASSERT_TRUE(bool(Got));
    int Value;
    std::memcpy(&Value, Got->data(), 4);
    EXPECT_EQ(Value, 10 + K);
    C.release(*O);
    C.releaseProgram(*Prog);
    auto Gone = C.readBuffer(*O);
    EXPECT_FALSE(bool(Gone));
    if (!Gone)
      llvm::consumeError(Gone.takeError());
  }
}
