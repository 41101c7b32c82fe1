//===- PtxasRunTest.cpp - How ptxasResources runs nvcc --------------------===//
//
// With a stand-in nvcc (GPUMERGE_NVCC, a shell script): several threads
// compiling at once each get their own report (batch workers under -j; nvcc
// is waited for by polling, not by a process-wide alarm()), and an nvcc
// killed by a signal is an error that says so.
//
//===----------------------------------------------------------------------===//

#include "Target/Ptxas.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace gpumerge;

namespace {

class PtxasRun : public ::testing::Test {
protected:
  llvm::SmallString<128> Dir;
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxas-run-test", Dir));
    // Every call compiles: a cache would answer the second thread.
    ::setenv("GPUMERGE_CACHE", "off", 1);
  }
  void TearDown() override {
    ::unsetenv("GPUMERGE_CACHE");
    ::unsetenv("GPUMERGE_NVCC");
    llvm::sys::fs::remove_directories(Dir);
  }
  /// A stand-in nvcc running \p Body (sh), made executable.
  std::string script(llvm::StringRef Name, llvm::StringRef Body) {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    std::error_code EC;
    {
      llvm::raw_fd_ostream OS(Path, EC);
      EXPECT_FALSE(EC);
      OS << "#!/bin/sh\n" << Body;
    }
    llvm::sys::fs::setPermissions(Path, llvm::sys::fs::all_read |
                                            llvm::sys::fs::all_exe |
                                            llvm::sys::fs::owner_write);
    return std::string(Path);
  }
};

TEST_F(PtxasRun, ThreadsCompilingAtOnceEachGetTheirReport) {
  // The report names the kernel after the source's last word, so each
  // thread can tell its own report from another's.
  std::string Nvcc = script(
      "nvcc", "for a; do src=$a; done\n"
              "name=$(tr -cd 'a-z ' < \"$src\" | awk '{print $NF}')\n"
              "sleep 0.3\n"
              "echo \"ptxas info    : Compiling entry function '$name' for "
              "'sm_90'\" >&2\n"
              "echo \"ptxas info    : Used ${#name} registers, used 0 "
              "barriers\" >&2\n");
  ::setenv("GPUMERGE_NVCC", Nvcc.c_str(), 1);
  std::vector<std::string> Names = {"a", "bb", "ccc", "dddd"};
  std::atomic<unsigned> Right{0};
  std::vector<std::thread> Threads;
  for (const std::string &N : Names)
    Threads.emplace_back([&, N] {
      auto R = ptxasResources("kernel " + N, "sm_90");
      if (!R) {
        llvm::consumeError(R.takeError());
        return;
      }
      if (R->count(N) && R->at(N).Registers == N.size())
        ++Right;
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Right, Names.size());
}

TEST_F(PtxasRun, AnNvccKilledBySignalIsAnError) {
  std::string Nvcc = script("nvcc", "kill -SEGV $$\n");
  ::setenv("GPUMERGE_NVCC", Nvcc.c_str(), 1);
  auto R = ptxasResources("__global__ void k() {}", "sm_90");
  ASSERT_FALSE(static_cast<bool>(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("crashed with signal 11"), std::string::npos) << Msg;
}

TEST_F(PtxasRun, AnNvccExitStatusIsKept) {
  std::string Nvcc = script("nvcc", "echo 'kernel.cu(1): error: no' >&2\n"
                                    "exit 3\n");
  ::setenv("GPUMERGE_NVCC", Nvcc.c_str(), 1);
  auto R = ptxasResources("__global__ void k() {}", "sm_90");
  ASSERT_FALSE(static_cast<bool>(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("failed (exit 3)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("error: no"), std::string::npos) << Msg;
}

} // namespace
