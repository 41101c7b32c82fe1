//===- PtxasCacheTest.cpp - ptxas reports kept by content hash ------------===//
//
// Keys change with each of source, architecture and nvcc; entries round-trip,
// an entry of another format is a miss, writers racing on one key leave a
// whole entry and no temporary files, and ptxasResources reads an entry
// instead of compiling (a planted report proves it) and stores what it
// compiled.
//
//===----------------------------------------------------------------------===//

#include "Target/PtxasCache.h"
#include "Target/Ptxas.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <thread>
#include <vector>

using namespace gpumerge;

namespace {

class PtxasCache : public ::testing::Test {
protected:
  llvm::SmallString<128> Dir;
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxas-cache", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// Every regular file under Dir.
  std::vector<std::string> files() {
    std::vector<std::string> Out;
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
         It != End && !EC; It.increment(EC))
      if (It->type() == llvm::sys::fs::file_type::regular_file)
        Out.push_back(It->path());
    return Out;
  }
};

TEST_F(PtxasCache, KeyDependsOnEachPart) {
  std::string K = ptxasCacheKey("__global__ void k() {}", "sm_90", "/bin/sh");
  EXPECT_EQ(K, ptxasCacheKey("__global__ void k() {}", "sm_90", "/bin/sh"));
  EXPECT_EQ(K.size(), 64u); // SHA-256 in hex
  EXPECT_NE(K, ptxasCacheKey("__global__ void j() {}", "sm_90", "/bin/sh"));
  EXPECT_NE(K, ptxasCacheKey("__global__ void k() {}", "sm_80", "/bin/sh"));
  EXPECT_NE(K, ptxasCacheKey("__global__ void k() {}", "sm_90", "/bin/ls"));
  // Parts are length-prefixed: moving text between them changes the key.
  EXPECT_NE(ptxasCacheKey("0k", "sm_9", "/bin/sh"),
            ptxasCacheKey("k", "sm_90", "/bin/sh"));
}

TEST_F(PtxasCache, RoundTripAndMiss) {
  std::string K = ptxasCacheKey("src", "sm_90", "/bin/sh");
  EXPECT_FALSE(readCachedReport(Dir, K));
  writeCachedReport(Dir, K, "ptxas info    : Used 3 registers\n");
  auto R = readCachedReport(Dir, K);
  ASSERT_TRUE(R);
  EXPECT_EQ(*R, "ptxas info    : Used 3 registers\n");
  EXPECT_FALSE(
      readCachedReport(Dir, ptxasCacheKey("src2", "sm_90", "/bin/sh")));
  // Turned off: no directory, nothing read or written.
  EXPECT_FALSE(readCachedReport("", K));
}

TEST_F(PtxasCache, OtherFormatIsAMiss) {
  std::string K = ptxasCacheKey("src", "sm_90", "/bin/sh");
  writeCachedReport(Dir, K, "report");
  std::vector<std::string> Fs = files();
  ASSERT_EQ(Fs.size(), 1u);
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Fs[0], EC);
    ASSERT_FALSE(EC);
    OS << "gpumerge-ptxas-0\nreport";
  }
  EXPECT_FALSE(readCachedReport(Dir, K));
}

TEST_F(PtxasCache, RacingWritersLeaveOneWholeEntry) {
  std::string K = ptxasCacheKey("src", "sm_90", "/bin/sh");
  std::string Report(200000, 'x'); // long enough for torn writes to show
  std::vector<std::thread> Writers;
  for (int I = 0; I < 8; ++I)
    Writers.emplace_back([&] {
      for (int N = 0; N < 20; ++N) {
        writeCachedReport(Dir, K, Report);
        if (auto R = readCachedReport(Dir, K)) {
          EXPECT_EQ(R->size(), Report.size());
        }
      }
    });
  for (std::thread &T : Writers)
    T.join();
  EXPECT_EQ(files().size(), 1u) << "temporary files were left behind";
  auto R = readCachedReport(Dir, K);
  ASSERT_TRUE(R);
  EXPECT_EQ(*R, Report);
}

TEST_F(PtxasCache, DirectoryFromTheEnvironment) {
  auto Restore = llvm::make_scope_exit([] {
    ::unsetenv("GPUMERGE_CACHE_DIR");
    ::unsetenv("GPUMERGE_CACHE");
    ::unsetenv("XDG_CACHE_HOME");
  });
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(gpumergeCacheDir(), "/xdg/gpumerge");
  ::setenv("GPUMERGE_CACHE_DIR", "/elsewhere", 1);
  EXPECT_EQ(gpumergeCacheDir(), "/elsewhere");
  ::setenv("GPUMERGE_CACHE", "off", 1);
  EXPECT_EQ(gpumergeCacheDir(), "");
}

TEST_F(PtxasCache, PtxasResourcesReadsAndStores) {
  auto Nvcc = findNvcc();
  ASSERT_TRUE(static_cast<bool>(Nvcc))
      << "this test needs nvcc: " << llvm::toString(Nvcc.takeError());
  ::setenv("GPUMERGE_CACHE_DIR", Dir.c_str(), 1);
  auto Restore =
      llvm::make_scope_exit([] { ::unsetenv("GPUMERGE_CACHE_DIR"); });

  // A planted entry is what ptxasResources returns: it did not compile.
  std::string Planted = "__global__ void planted(float *a) { a[0] = 1; }\n";
  writeCachedReport(
      Dir, ptxasCacheKey(Planted, "sm_90", *Nvcc),
      "ptxas info    : Compiling entry function '_Z7plantedPf' for 'sm_90'\n"
      "ptxas info    : Used 99 registers, used 0 barriers\n");
  auto P = ptxasResources(Planted, "sm_90");
  ASSERT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  ASSERT_EQ(P->count("planted"), 1u);
  EXPECT_EQ(P->at("planted").Registers, 99u);

  // A real compile is stored, and the stored report parses the same.
  std::string Real = "__global__ void real(float *a) { a[1] = 2; }\n";
  std::string Key = ptxasCacheKey(Real, "sm_90", *Nvcc);
  EXPECT_FALSE(readCachedReport(Dir, Key));
  auto R = ptxasResources(Real, "sm_90");
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto Stored = readCachedReport(Dir, Key);
  ASSERT_TRUE(Stored);
  auto Again = parsePtxasReport(*Stored);
  ASSERT_EQ(Again.count("real"), 1u);
  EXPECT_EQ(Again.at("real").Registers, R->at("real").Registers);

  // A compile error is not stored.
  std::string Bad = "__global__ void bad(float *a) { a[0] = }\n";
  auto B = ptxasResources(Bad, "sm_90");
  ASSERT_FALSE(static_cast<bool>(B));
  llvm::consumeError(B.takeError());
  EXPECT_FALSE(readCachedReport(Dir, ptxasCacheKey(Bad, "sm_90", *Nvcc)));
}

} // namespace
