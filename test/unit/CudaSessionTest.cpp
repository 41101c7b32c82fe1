//===- CudaSessionTest.cpp - CUDA through dlopen, with and without a GPU --===//
//
// On a machine without a driver, CudaSession::create() must answer a clean
// "no CUDA device: ..." naming what is missing (the driver library, or the
// toolkit's stub standing for it), never crash; probe() says the same from a
// child process. NVRTC needs no driver, so compiling is tested wherever
// libnvrtc exists: CUBIN for a known architecture, PTX for a newer one,
// mangled kernel names resolved, host headers stubbed, the user's -D used,
// and compile errors carrying the log. What needs a GPU is in
// CudaSessionGpuTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "Runtime/CudaSession.h"
#include "Runtime/Isolate.h"
#include "Runtime/Nvrtc.h"
#include "Runtime/NvrtcAhead.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace gpumerge;

namespace {

/// create() in a child process with \p Env set (the driver library is
/// loaded once per process), returning its error text or "ok". Without
/// \p Env, the default driver library: GPUMERGE_LIBCUDA is unset there, so
/// the developer's environment (a shell that points it elsewhere) does not
/// change what is tested.
std::string createInChild(const char *Env, const char *Value) {
  std::string Output;
  llvm::Error E = runIsolated(
      [&](SendFn Send) {
        if (Env)
          ::setenv(Env, Value, 1);
        else
          ::unsetenv("GPUMERGE_LIBCUDA");
        auto S = CudaSession::create();
        if (S) {
          Send("ok");
          return;
        }
        Send(llvm::toString(S.takeError()));
      },
      60, Output);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  return Output;
}

bool driverLoadable() {
  void *H = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (H)
    dlclose(H);
  return H != nullptr;
}

TEST(CudaSessionTest, NoDriverGivesCleanNoDeviceError) {
  std::string Out = createInChild(nullptr, nullptr);
  if (driverLoadable() && Out == "ok")
    return; // a GPU machine: the session opened (see CudaGpuTests)
  EXPECT_EQ(Out.rfind("no CUDA device: ", 0), 0u) << Out;
  if (!driverLoadable()) {
    EXPECT_NE(Out.find("cannot load libcuda.so.1"), std::string::npos) << Out;
  }
}

TEST(CudaSessionTest, MissingLibraryIsNamed) {
  std::string Out =
      createInChild("GPUMERGE_LIBCUDA", "/nonexistent/libcuda.so.1");
  EXPECT_EQ(
      Out.rfind("no CUDA device: cannot load /nonexistent/libcuda.so.1", 0), 0u)
      << Out;
}

TEST(CudaSessionTest, ToolkitStubIsNotADriver) {
  // The toolkit's stub library exports every entry point and fails cuInit
  // with CUDA_ERROR_STUB_LIBRARY: the error must say so, not crash.
  std::string Include = Nvrtc::cudaIncludeDir();
  std::string Stub = Include.empty() ? "/usr/local/cuda/include" : Include;
  Stub = Stub.substr(0, Stub.size() - strlen("include")) +
         "lib64/stubs/libcuda.so";
  if (!llvm::sys::fs::exists(Stub))
    GTEST_SKIP() << "no toolkit stub at " << Stub;
  std::string Out = createInChild("GPUMERGE_LIBCUDA", Stub.c_str());
  EXPECT_EQ(Out.rfind("no CUDA device: ", 0), 0u) << Out;
  EXPECT_NE(Out.find("stub"), std::string::npos) << Out;
}

TEST(CudaSessionTest, ProbeAnswersFromAChild) {
  auto Info = CudaSession::probe();
  if (Info) {
    EXPECT_FALSE(Info->Name.empty());
    EXPECT_GE(Info->Major, 3);
    return;
  }
  std::string Why = llvm::toString(Info.takeError());
  EXPECT_EQ(Why.rfind("no CUDA device: ", 0), 0u) << Why;
}

TEST(CudaSessionTest, SplitBuildOptions) {
  EXPECT_EQ(splitBuildOptions("-DN=4 -D M=2  -U Z"),
            (std::vector<std::string>{"-DN=4", "-DM=2", "-UZ"}));
  EXPECT_EQ(splitBuildOptions("-I /inc -I/other"),
            (std::vector<std::string>{"-I/inc", "-I/other"}));
}

/// NVRTC, or a skip where the toolkit is absent.
Nvrtc *nvrtcOrSkip(std::string &Why) {
  auto N = Nvrtc::get();
  if (!N) {
    Why = llvm::toString(N.takeError());
    return nullptr;
  }
  return &*N;
}

#define REQUIRE_NVRTC()                                                        \
  std::string NoNvrtc;                                                         \
  Nvrtc *N = nvrtcOrSkip(NoNvrtc);                                             \
  if (!N)                                                                      \
  GTEST_SKIP() << NoNvrtc

TEST(NvrtcTest, CompilesWithoutADriver) {
  REQUIRE_NVRTC();
  auto Out = N->compile("__global__ void scale(float *a, int n) {\n"
                        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "  if (i < n) a[i] = 2 * __ldg(&a[i]);\n}\n",
                        "scale.cu", 9, 0, {}, {"scale"});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  EXPECT_FALSE(Out->IsPtx);
  EXPECT_EQ(Out->Arch, "-arch=sm_90");
  ASSERT_GT(Out->Binary.size(), 4u);
  EXPECT_EQ(std::memcmp(Out->Binary.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  // A C++ kernel's symbol is mangled; the lowered name says which.
  ASSERT_TRUE(Out->LoweredNames.count("scale"));
  EXPECT_EQ(Out->LoweredNames.at("scale").rfind("_Z5scale", 0), 0u)
      << Out->LoweredNames.at("scale");
}

TEST(NvrtcTest, NewerGpuGetsPtx) {
  REQUIRE_NVRTC();
  // No NVRTC knows sm_999: PTX for the newest architecture it does know.
  auto Out = N->compile("extern \"C\" __global__ void k(int *a) { a[0] = 1; }",
                        "k.cu", 99, 9, {});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  EXPECT_TRUE(Out->IsPtx);
  EXPECT_EQ(Out->Arch.rfind("-arch=compute_", 0), 0u) << Out->Arch;
  std::string Text(Out->Binary.begin(), Out->Binary.end());
  EXPECT_NE(Text.find(".entry k"), std::string::npos);
}

TEST(NvrtcTest, HostHeadersAreStubbedAndOptionsUsed) {
  REQUIRE_NVRTC();
  const char *Source = "#include <stdio.h>\n#include <stdint.h>\n"
                       "#include <cuda_runtime.h>\n"
                       "#if WIDTH != 4\n#error WIDTH must be 4\n#endif\n"
                       "__global__ void k(int32_t *a) { a[0] = WIDTH; }\n";
  auto Out = N->compile(Source, "k.cu", 8, 0, {"-DWIDTH=4"}, {"k"});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  EXPECT_NE(std::find(Out->StubbedHeaders.begin(), Out->StubbedHeaders.end(),
                      "stdio.h"),
            Out->StubbedHeaders.end());
  EXPECT_NE(std::find(Out->StubbedHeaders.begin(), Out->StubbedHeaders.end(),
                      "stdint.h"),
            Out->StubbedHeaders.end());
  // Without the -D the #error fires, and the log says where.
  auto Bad = N->compile(Source, "k.cu", 8, 0, {}, {"k"});
  ASSERT_FALSE(bool(Bad));
  std::string Why = llvm::toString(Bad.takeError());
  EXPECT_NE(Why.find("WIDTH must be 4"), std::string::npos) << Why;
  EXPECT_NE(Why.find("k.cu(5)"), std::string::npos) << Why;
}

// What glibc's headers bring along, which HeCBench's kernels use without
// including it (silu: uint64_t after <cstdlib>; eigenvalue: uint;
// perplexity: INFINITY after <math.h>), and `register`, which NVRTC
// refuses in C++17 and nvcc takes: an H100 run skipped such inputs.
TEST(NvrtcTest, WhatHostHeadersBringAlong) {
  REQUIRE_NVRTC();
  auto Out = N->compile("#include <cstdlib>\n#include <math.h>\n"
                        "__global__ void k(float *a, uint n) {\n"
                        "  register uint64_t w = n;\n"
                        "  a[0] = w > 4 ? INFINITY : NAN;\n"
                        "  a[1] = HUGE_VALF;\n}\n",
                        "k.cu", 9, 0, {}, {"k"});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  EXPECT_EQ(Out->LoweredNames.size(), 1u);
}

TEST(NvrtcTest, CompileErrorCarriesTheLog) {
  REQUIRE_NVRTC();
  auto Out = N->compile("__global__ void k(float *a) { a[0] = undeclared; }",
                        "bad.cu", 9, 0, {});
  ASSERT_FALSE(bool(Out));
  std::string Why = llvm::toString(Out.takeError());
  EXPECT_NE(Why.find("undeclared"), std::string::npos) << Why;
  EXPECT_NE(Why.find("-arch=sm_90"), std::string::npos) << Why;
}

// Compiles begun ahead on worker threads (--tune's candidates): each taken
// result is its own request's, in any order; a failed one carries its log;
// one never added is none; what no worker began is compiled when taken.
TEST(NvrtcAheadTest, TakesEachRequestsOwnResult) {
  REQUIRE_NVRTC();
  auto Kernel = [](int K) {
    return NvrtcRequest{"__global__ void k" + std::to_string(K) +
                            "(float *a) { a[0] = " + std::to_string(K) + "; }",
                        {"-DUNUSED=1"},
                        {"k" + std::to_string(K)}};
  };
  NvrtcRequest Bad{
      "__global__ void bad(float *a) { a[0] = undeclared; }", {}, {"bad"}};
  NvrtcAhead Ahead(*N, 9, 0, 2);
  for (int K = 0; K < 4; ++K) {
    Ahead.add(Kernel(K));
    if (K == 1)
      Ahead.add(Bad);
  }
  EXPECT_FALSE(Ahead.take(Kernel(9)).has_value());
  for (int K : {3, 0, 2, 1}) {
    auto Out = Ahead.take(Kernel(K));
    ASSERT_TRUE(Out.has_value()) << K;
    ASSERT_TRUE(bool(*Out)) << llvm::toString(Out->takeError());
    std::string Name = "k" + std::to_string(K);
    ASSERT_EQ((*Out)->LoweredNames.count(Name), 1u) << K;
    EXPECT_EQ((*Out)->LoweredNames.at(Name).find("_Z2" + Name), 0u);
    // Taken once: a second build compiles again.
    EXPECT_FALSE(Ahead.take(Kernel(K)).has_value());
  }
  auto Failed = Ahead.take(Bad);
  ASSERT_TRUE(Failed.has_value());
  ASSERT_FALSE(bool(*Failed));
  std::string Why = llvm::toString(Failed->takeError());
  EXPECT_NE(Why.find("undeclared"), std::string::npos) << Why;
}

TEST(KernelTimesTest, Median) {
  KernelTimes T;
  T.Ms = {5, 1, 3};
  EXPECT_EQ(T.median(), 3);
  T.Ms = {4, 1, 3, 2};
  EXPECT_EQ(T.median(), 2.5);
}

} // namespace
