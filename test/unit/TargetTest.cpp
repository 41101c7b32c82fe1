//===- TargetTest.cpp - Machine descriptions: load, validate, look up -----===//
//
// Every shipped description loads and validates; the loader rejects missing,
// unknown and out-of-range fields with a message naming the field; unknown
// targets list the known ones.
//
//===----------------------------------------------------------------------===//

#include "Target/MachineDescription.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>

using namespace gpumerge;

namespace {

const char *const ShippedTargets[] = {"a100", "gtx280", "gtx285", "gtx480",
                                      "h100", "hd5870", "v100"};

/// The text of a shipped description, to derive broken variants from.
std::string shippedYaml(llvm::StringRef Name) {
  llvm::SmallString<256> Path(defaultTargetsDir());
  llvm::sys::path::append(Path, Name + ".yaml");
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buffer)) << "cannot read " << Path.str().str();
  return Buffer ? (*Buffer)->getBuffer().str() : std::string();
}

/// Replaces the whole line starting with "Key:" by \p Replacement (which may be
/// empty, deleting the line).
std::string replaceLine(std::string Yaml, llvm::StringRef Key,
                        llvm::StringRef Replacement) {
  std::string Prefix = Key.str() + ":";
  size_t At = Yaml.rfind("\n" + Prefix);
  EXPECT_NE(At, std::string::npos) << "no line for " << Prefix;
  if (At == std::string::npos)
    return Yaml;
  size_t Begin = At + 1;
  size_t End = Yaml.find('\n', Begin);
  Yaml.replace(Begin,
               End == std::string::npos ? std::string::npos : End - Begin,
               Replacement.str());
  return Yaml;
}

/// The error message of a failed parse (empty, with a test failure, if it
/// unexpectedly succeeded).
std::string parseError(llvm::StringRef Yaml,
                       llvm::StringRef FileName = "gtx480.yaml") {
  llvm::Expected<MachineDescription> MD =
      parseMachineDescription(Yaml, FileName);
  if (MD) {
    ADD_FAILURE() << "expected a parse error";
    return "";
  }
  return llvm::toString(MD.takeError());
}

MachineDescription loadOrFail(llvm::StringRef NameOrPath,
                              llvm::StringRef Dir = defaultTargetsDir()) {
  llvm::Expected<MachineDescription> MD = loadTarget(NameOrPath, Dir);
  if (!MD) {
    ADD_FAILURE() << llvm::toString(MD.takeError());
    return MachineDescription();
  }
  return *MD;
}

TEST(TargetTest, ListsTheShippedTargetsSorted) {
  std::vector<std::string> Names = listTargets(defaultTargetsDir());
  for (const char *Name : ShippedTargets)
    EXPECT_NE(std::find(Names.begin(), Names.end(), Name), Names.end())
        << Name << " missing from " << defaultTargetsDir();
  EXPECT_TRUE(std::is_sorted(Names.begin(), Names.end()));
}

TEST(TargetTest, EveryShippedTargetLoadsAndValidates) {
  std::vector<std::string> Names = listTargets(defaultTargetsDir());
  ASSERT_FALSE(Names.empty());
  for (const std::string &Name : Names) {
    SCOPED_TRACE(Name);
    llvm::Expected<MachineDescription> MD =
        loadTarget(Name, defaultTargetsDir());
    ASSERT_TRUE(bool(MD)) << llvm::toString(MD.takeError());
    EXPECT_EQ(MD->Name, Name);
    EXPECT_FALSE(MD->DisplayName.empty());
    // Consistency the models rely on, beyond what the loader checks.
    EXPECT_EQ(MD->ThreadInBlock % MD->ThreadInWarp, 0u);
    EXPECT_GE(MD->ShareMemoryInMP, MD->SharedMemPerBlock);
    EXPECT_GT(MD->PeakFP32GFlops, MD->MemoryBandwidthGBs);
  }
}

TEST(TargetTest, ShippedValues) {
  MachineDescription Gtx480 = loadOrFail("gtx480");
  EXPECT_EQ(Gtx480.SMCount, 15u);
  EXPECT_EQ(Gtx480.RegisterInMP, 32768u);
  EXPECT_EQ(Gtx480.CoalescedThread, 32u);
  EXPECT_EQ(Gtx480.MemoryPartitions, 6u);
  EXPECT_EQ(Gtx480.RegisterAllocation, RegisterGranularity::Warp);
  EXPECT_EQ(Gtx480.SmArch, "");

  MachineDescription Gtx285 = loadOrFail("gtx285");
  EXPECT_EQ(Gtx285.CoalescedThread, 16u);
  EXPECT_EQ(Gtx285.SegmentBytes, 64u);
  EXPECT_EQ(Gtx285.Banks, 16u);
  EXPECT_EQ(Gtx285.RegisterAllocation, RegisterGranularity::Block);
  EXPECT_EQ(Gtx285.RegisterAllocUnit, 512u);
  EXPECT_EQ(Gtx285.MemoryPartitions, 8u);
  EXPECT_EQ(Gtx285.PartitionWidth, 256u);

  MachineDescription Hd5870 = loadOrFail("hd5870");
  EXPECT_EQ(Hd5870.GpuVendor, Vendor::Amd);
  EXPECT_EQ(Hd5870.ThreadInWarp, 64u);
  EXPECT_EQ(Hd5870.ShareMemoryInMP, 32768u);
  EXPECT_EQ(Hd5870.SmArch, "");

  MachineDescription H100 = loadOrFail("h100");
  EXPECT_EQ(H100.SmArch, "sm_90");
  EXPECT_EQ(H100.SMCount, 132u);
  EXPECT_EQ(H100.ShareMemoryInMP, 228u * 1024);
  EXPECT_EQ(H100.SharedMemPerBlock, 227u * 1024);
  EXPECT_EQ(H100.SharedMemReservedPerBlock, 1024u);

  EXPECT_EQ(loadOrFail("a100").SmArch, "sm_80");
  EXPECT_EQ(loadOrFail("v100").SmArch, "sm_70");
}

TEST(TargetTest, MissingFieldIsNamed) {
  std::string Message =
      parseError(replaceLine(shippedYaml("gtx480"), "SMCount", ""));
  EXPECT_NE(Message.find("gtx480.yaml"), std::string::npos) << Message;
  EXPECT_NE(Message.find("missing required field 'SMCount'"), std::string::npos)
      << Message;
}

TEST(TargetTest, WrongValueIsNamed) {
  std::string Message = parseError(
      replaceLine(shippedYaml("gtx480"), "Vectorization", "Vectorization: 3"));
  EXPECT_NE(Message.find("gtx480.yaml"), std::string::npos) << Message;
  EXPECT_NE(Message.find("'Vectorization'"), std::string::npos) << Message;
}

TEST(TargetTest, RangeChecksNameTheirField) {
  const std::string Gtx480 = shippedYaml("gtx480");
  struct Case {
    const char *Key, *Line, *Field;
  } Cases[] = {
      {"SMCount", "SMCount: 0", "'SMCount'"},
      {"Banks", "Banks: 24", "'Banks'"},
      {"ThreadInWarp", "ThreadInWarp: 48", "'ThreadInWarp'"},
      {"CoalescedThread", "CoalescedThread: 64", "'CoalescedThread'"},
      {"ThreadInBlock", "ThreadInBlock: 2048", "'ThreadInBlock'"},
      {"ThreadInMP", "ThreadInMP: 1500", "'ThreadInMP'"},
      {"SharedMemPerBlock", "SharedMemPerBlock: 65536", "'SharedMemPerBlock'"},
      {"SmArch", "SmArch: compute_20", "'SmArch'"},
      {"MemoryBandwidthGBs", "MemoryBandwidthGBs: 0", "'MemoryBandwidthGBs'"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Line);
    std::string Message = parseError(replaceLine(Gtx480, C.Key, C.Line));
    EXPECT_NE(Message.find(C.Field), std::string::npos) << Message;
  }
}

TEST(TargetTest, MalformedYamlIsRejected) {
  const std::string Gtx480 = shippedYaml("gtx480");
  // Unknown keys are typos of known ones: an error, not ignored.
  std::string Message = parseError(Gtx480 + "SMCnt: 15\n");
  EXPECT_NE(Message.find("unknown field 'SMCnt'"), std::string::npos)
      << Message;
  // A field given twice would silently keep one value.
  Message = parseError(Gtx480 + "SMCount: 3\n");
  EXPECT_NE(Message.find("duplicate field 'SMCount'"), std::string::npos)
      << Message;
  // Enumerations and numbers: file, line and field.
  Message = parseError(replaceLine(Gtx480, "GpuVendor", "GpuVendor: intel"));
  EXPECT_NE(Message.find("gtx480.yaml:"), std::string::npos) << Message;
  EXPECT_NE(Message.find("'GpuVendor'"), std::string::npos) << Message;
  Message = parseError(replaceLine(Gtx480, "SMCount", "SMCount: -1"));
  EXPECT_NE(Message.find("gtx480.yaml:"), std::string::npos) << Message;
  EXPECT_NE(Message.find("'SMCount'"), std::string::npos) << Message;
  // Syntax errors carry the line.
  Message = parseError(Gtx480 + "  oops: [\n");
  EXPECT_NE(Message.find("gtx480.yaml:"), std::string::npos) << Message;
  // AMD targets have no nvcc architecture.
  Message =
      parseError(replaceLine(shippedYaml("hd5870"), "SmArch", "SmArch: sm_20"),
                 "hd5870.yaml");
  EXPECT_NE(Message.find("'SmArch'"), std::string::npos) << Message;
  // Nothing at all.
  EXPECT_NE(parseError("").find("empty"), std::string::npos);
  EXPECT_NE(parseError("# only a comment\n").find("empty"), std::string::npos);
  EXPECT_FALSE(parseError("- a\n- b\n").empty());
}

TEST(TargetTest, UnknownTargetListsKnownOnes) {
  llvm::Expected<MachineDescription> MD =
      loadTarget("foo", defaultTargetsDir());
  ASSERT_FALSE(bool(MD));
  std::string Message = llvm::toString(MD.takeError());
  EXPECT_NE(Message.find("unknown target 'foo'; known targets: a100, gtx280, "
                         "gtx285, gtx480, h100, hd5870, v100"),
            std::string::npos)
      << Message;
}

TEST(TargetTest, LoadsByPath) {
  // A description outside the targets directory, named by path; its Name
  // need not match the file name.
  llvm::SmallString<128> Path;
  int FD;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("my-gpu", "yaml", FD, Path));
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << replaceLine(shippedYaml("gtx480"), "SMCount", "SMCount: 11");
  }
  llvm::Expected<MachineDescription> MD = loadTarget(Path, "/nonexistent");
  ASSERT_TRUE(bool(MD)) << llvm::toString(MD.takeError());
  EXPECT_EQ(MD->SMCount, 11u);
  EXPECT_EQ(MD->Name, "gtx480");

  // By a path to a shipped file, with a '/' in it.
  llvm::SmallString<256> Shipped(defaultTargetsDir());
  llvm::sys::path::append(Shipped, "h100.yaml");
  EXPECT_EQ(loadOrFail(Shipped, "/nonexistent").SmArch, "sm_90");

  // A bad path names the file.
  llvm::sys::fs::remove(Path);
  MD = loadTarget(Path, defaultTargetsDir());
  ASSERT_FALSE(bool(MD));
  std::string Message = llvm::toString(MD.takeError());
  EXPECT_NE(Message.find(Path.str().str()), std::string::npos) << Message;
}

TEST(TargetTest, TargetsDirFromEnvironment) {
  const char *Saved = std::getenv("GPUMERGE_TARGETS_DIR");
  std::string SavedValue = Saved ? Saved : "";
  ::setenv("GPUMERGE_TARGETS_DIR", "/some/dir", 1);
  EXPECT_EQ(defaultTargetsDir(), "/some/dir");
  ::unsetenv("GPUMERGE_TARGETS_DIR");
  EXPECT_EQ(defaultTargetsDir(),
            std::string(GPUMERGE_SOURCE_DIR) + "/machine-descriptions");
  if (Saved)
    ::setenv("GPUMERGE_TARGETS_DIR", SavedValue.c_str(), 1);
}

TEST(TargetTest, EmptyDirectoryHasNoTargets) {
  EXPECT_TRUE(listTargets("/nonexistent/gpumerge-targets").empty());
  llvm::Expected<MachineDescription> MD =
      loadTarget("h100", "/nonexistent/gpumerge-targets");
  ASSERT_FALSE(bool(MD));
  EXPECT_NE(llvm::toString(MD.takeError()).find("unknown target 'h100'"),
            std::string::npos);
}

} // namespace
