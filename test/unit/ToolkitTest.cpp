//===- ToolkitTest.cpp - The CUDA toolkit as nvcc shows it to a file ------===//
//
// The version nvcc would define as __CUDACC_VER_*: read from `nvcc
// --version` (build number included) or, without nvcc, from cuda.h's
// CUDA_VERSION; text of neither shape gives nothing rather than a guess.
// The parse flags hold the version macros and the variadics flag, and the
// CCCL directory exactly when the toolkit has one.
//
//===----------------------------------------------------------------------===//

#include "Frontend/Toolkit.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace gpumerge;

TEST(Toolkit, NvccVersionLine) {
  auto V = parseNvccVersion("nvcc: NVIDIA (R) Cuda compiler driver\n"
                            "Cuda compilation tools, release 13.0, "
                            "V13.0.88\nBuild cuda_13.0.r13.0/compiler\n");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Major, 13);
  EXPECT_EQ(V->Minor, 0);
  ASSERT_TRUE(V->Build);
  EXPECT_EQ(*V->Build, 88);
  auto Old = parseNvccVersion("Cuda compilation tools, release 11.8, "
                              "V11.8.89");
  ASSERT_TRUE(Old);
  EXPECT_EQ(Old->Major, 11);
  EXPECT_EQ(Old->Minor, 8);
  EXPECT_FALSE(parseNvccVersion("clang version 16.0.6"));
}

TEST(Toolkit, CudaHeaderVersion) {
  auto V = parseCudaHeaderVersion("/* ... */\n#define CUDA_VERSION 12040\n");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Major, 12);
  EXPECT_EQ(V->Minor, 4);
  EXPECT_FALSE(V->Build);
  EXPECT_FALSE(parseCudaHeaderVersion("#define CUDART_VERSION 12040\n"));
}

TEST(Toolkit, ParseArgsFollowTheToolkit) {
  // A toolkit directory of our own: cuda.h only, no nvcc, no cccl.
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gpumerge-toolkit", Dir));
  std::string Root(Dir);
  ASSERT_FALSE(llvm::sys::fs::create_directories(Root + "/include"));
  {
    std::error_code EC;
    llvm::raw_fd_ostream(Root + "/include/cuda.h", EC)
        << "#define CUDA_VERSION 12020\n";
    ASSERT_FALSE(EC);
  }
  const std::vector<std::string> &A = nvccParseArgs(Root);
  auto Has = [&](const std::string &S) {
    return std::find(A.begin(), A.end(), S) != A.end();
  };
  EXPECT_TRUE(Has("-D__CUDACC_VER_MAJOR__=12"));
  EXPECT_TRUE(Has("-D__CUDACC_VER_MINOR__=2"));
  EXPECT_TRUE(Has("-fcuda-allow-variadic-functions"));
  EXPECT_FALSE(Has(Root + "/include/cccl"));
  EXPECT_FALSE(std::any_of(A.begin(), A.end(), [](const std::string &S) {
    return S.rfind("-D__CUDACC_VER_BUILD__", 0) == 0;
  }));

  // With include/cccl (a second toolkit: the flags are kept per root).
  std::string Other = Root + "/other";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Other + "/include/cccl"));
  const std::vector<std::string> &B = nvccParseArgs(Other);
  EXPECT_NE(std::find(B.begin(), B.end(), Other + "/include/cccl"), B.end());
  llvm::sys::fs::remove_directories(Root);
}
