//===- TuneCacheTest.cpp - The tuning cache survives crashes and edits ----===//
//
// Records written and read back; any key field that differs is a miss; a
// truncated last line (a run killed while writing) and a corrupt line are
// skipped with a warning, never fatal, and appending after a torn line
// starts a fresh one; a later record of a key replaces the earlier; the
// default path follows XDG_CACHE_HOME.
//
//===----------------------------------------------------------------------===//
#include "Runtime/TuneCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace gpumerge;

namespace {

class TuneCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tunecache", Dir));
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, "sub", "tune.jsonl");
    Path = std::string(P);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  static TuneRecord record(const std::string &Candidate, double Ms) {
    TuneRecord R;
    R.Key = {"Dev", "drv 1", "src", "h100", "n=64", Candidate, "code", "v"};
    R.TimesMs = {Ms + 0.1, Ms, Ms + 0.2};
    R.MedianMs = Ms + 0.1;
    R.ModelRank = 3;
    return R;
  }
  void writeText(const std::string &Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }
  std::string readText() {
    auto B = llvm::MemoryBuffer::getFile(Path);
    return B ? (*B)->getBuffer().str() : "";
  }

  llvm::SmallString<128> Dir;
  std::string Path;
};

TEST_F(TuneCacheTest, RoundTripAndMisses) {
  auto C = TuneCache::open(Path);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->size(), 0u);
  ASSERT_FALSE(bool(C->append(record("a", 1.0)))); // creates sub/
  TuneRecord Bad = record("b", 0);
  Bad.Status = "mismatch";
  Bad.Reason = "'c' differs first at element 7";
  ASSERT_FALSE(bool(C->append(Bad)));

  auto D = TuneCache::open(Path);
  ASSERT_TRUE(bool(D));
  EXPECT_TRUE(D->warnings().empty());
  ASSERT_EQ(D->size(), 2u);
  const TuneRecord *A = D->lookup(record("a", 0).Key);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->TimesMs, (std::vector<double>{1.1, 1.0, 1.2}));
  EXPECT_DOUBLE_EQ(A->MedianMs, 1.1);
  EXPECT_EQ(A->ModelRank, 3);
  const TuneRecord *B = D->lookup(Bad.Key);
  ASSERT_TRUE(B);
  EXPECT_FALSE(B->ok());
  EXPECT_EQ(B->Status, "mismatch");
  EXPECT_EQ(B->Reason, Bad.Reason);
  // Every field of the key counts.
  for (std::string TuneKey::*Field :
       {&TuneKey::Device, &TuneKey::Driver, &TuneKey::Source, &TuneKey::Target,
        &TuneKey::Sizes, &TuneKey::Candidate, &TuneKey::Code,
        &TuneKey::Version}) {
    TuneKey K = record("a", 0).Key;
    K.*Field += "x";
    EXPECT_EQ(D->lookup(K), nullptr) << K.canonical();
  }
  // Without the device (a build machine): the records of any device.
  TuneKey Other = record("a", 0).Key;
  Other.Device = "Another GPU";
  Other.Driver = "drv 2";
  ASSERT_EQ(D->lookupAnyDevice(Other).size(), 1u);
  EXPECT_EQ(D->lookupAnyDevice(Other)[0]->Key.Device, "Dev");
}

TEST_F(TuneCacheTest, TruncatedLastLineIsSkippedAndAppendStartsFresh) {
  std::string Good;
  llvm::raw_string_ostream OS(Good);
  OS << record("a", 1.0).toJson() << "\n";
  OS.flush();
  std::string Torn;
  llvm::raw_string_ostream TS(Torn);
  TS << record("b", 2.0).toJson();
  TS.flush();
  Torn.resize(Torn.size() / 2); // killed in the middle of the write
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
  writeText(Good + Torn);

  auto C = TuneCache::open(Path);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->size(), 1u);
  ASSERT_EQ(C->warnings().size(), 1u);
  EXPECT_NE(C->warnings()[0].find(":2: the last line is incomplete"),
            std::string::npos)
      << C->warnings()[0];
  EXPECT_EQ(C->lookup(record("b", 0).Key), nullptr);

  ASSERT_FALSE(bool(C->append(record("b", 2.0))));
  EXPECT_EQ(readText().rfind(Good + Torn + "\n{", 0), 0u) << readText();
  auto D = TuneCache::open(Path);
  ASSERT_TRUE(bool(D));
  EXPECT_EQ(D->size(), 2u);
  ASSERT_TRUE(D->lookup(record("b", 0).Key));
  // The torn line is now an ordinary bad line in the middle.
  ASSERT_EQ(D->warnings().size(), 1u);
  EXPECT_NE(D->warnings()[0].find(":2: not a tuning record"), std::string::npos)
      << D->warnings()[0];
}

TEST_F(TuneCacheTest, CorruptLinesAreSkippedLaterRecordsWin) {
  std::string A1, A2;
  llvm::raw_string_ostream(A1) << record("a", 1.0).toJson();
  llvm::raw_string_ostream(A2) << record("a", 5.0).toJson();
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
  writeText(A1 + "\n{\"key\": 3}\nnot json at all\n\n" + A2 + "\n");
  auto C = TuneCache::open(Path);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->warnings().size(), 2u);
  ASSERT_EQ(C->size(), 1u);
  EXPECT_DOUBLE_EQ(C->lookup(record("a", 0).Key)->MedianMs, 5.1);
}

TEST_F(TuneCacheTest, DefaultPathFollowsXdg) {
  const char *Old = std::getenv("XDG_CACHE_HOME");
  std::string Saved = Old ? Old : "";
  ::setenv("XDG_CACHE_HOME", "/some/cache", 1);
  EXPECT_EQ(TuneCache::defaultPath(), "/some/cache/gpumerge/tune.jsonl");
  ::unsetenv("XDG_CACHE_HOME");
  std::string Home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (!Home.empty()) {
    EXPECT_EQ(TuneCache::defaultPath(), Home + "/.cache/gpumerge/tune.jsonl");
  }
  if (Old)
    ::setenv("XDG_CACHE_HOME", Saved.c_str(), 1);
}

TEST(ContentHashTest, StableAndDistinct) {
  EXPECT_EQ(contentHash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(contentHash("abc"), contentHash("abd"));
}

} // namespace
