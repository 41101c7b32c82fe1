//===- MachineDescription.cpp - Load and validate machine descriptions ----===//
//
// YAML in, a validated MachineDescription out. The YAML keys are the C++ field
// names; every field is required, unknown keys are rejected, and every error
// names the file and the field, so a typo in a description is found when it is
// loaded rather than as a strange optimization decision later.
//
//===----------------------------------------------------------------------===//

#include "Target/MachineDescription.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/YAMLTraits.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace gpumerge;

namespace {
/// Passed to llvm::yaml as the IO context: tells whether the top-level mapping
/// was reached at all (an empty document maps nothing and reports no error).
struct MappingSeen {
  bool Seen = false;
};

/// The checks a numeric field takes in every description (validate()); the
/// rules between fields are written out there.
enum FieldChecks : unsigned {
  NoCheck = 0,
  /// Counts and sizes: zero is never meaningful.
  Positive = 1,
  /// Hardware sizes that the analyses divide and align by (warp, banks,
  /// segments, cache lines, allocation units) are powers of two on every GPU
  /// we know; another value is a typo.
  PowerOfTwo = 2,
  PositivePowerOfTwo = Positive | PowerOfTwo,
};
} // namespace

/// Every field of a MachineDescription, named once, in the header's order.
/// The YAML key is the field's name; a field is REQUIRED(Field, Checks) or
/// OPTIONAL(Field, Default, Checks). The YAML mapping and validate()'s
/// per-field checks are generated from this list.
#define GPUMERGE_MACHINE_FIELDS(REQUIRED, OPTIONAL)                            \
  REQUIRED(Name, NoCheck)                                                      \
  REQUIRED(DisplayName, NoCheck)                                               \
  REQUIRED(GpuVendor, NoCheck)                                                 \
  REQUIRED(CoalescedThread, PositivePowerOfTwo)                                \
  REQUIRED(ThreadInWarp, PositivePowerOfTwo)                                   \
  REQUIRED(WarpInMP, Positive)                                                 \
  REQUIRED(ThreadInMP, Positive)                                               \
  REQUIRED(ThreadBlockInMP, Positive)                                          \
  REQUIRED(RegisterInMP, Positive)                                             \
  REQUIRED(ThreadInBlock, Positive)                                            \
  REQUIRED(ShareMemoryInMP, Positive)                                          \
  REQUIRED(Vectorization, NoCheck)                                             \
  OPTIONAL(StreamVectorization, 0u, NoCheck)                                   \
  REQUIRED(CacheLineSize, PositivePowerOfTwo)                                  \
  REQUIRED(SMCount, Positive)                                                  \
  REQUIRED(MaxRegistersPerThread, Positive)                                    \
  REQUIRED(RegisterAllocation, NoCheck)                                        \
  REQUIRED(RegisterAllocUnit, PositivePowerOfTwo)                              \
  REQUIRED(SharedMemPerBlock, Positive)                                        \
  REQUIRED(SharedMemAllocUnit, PositivePowerOfTwo)                             \
  REQUIRED(SharedMemReservedPerBlock, NoCheck) /* 0 before sm_80 */            \
  REQUIRED(Banks, PositivePowerOfTwo)                                          \
  REQUIRED(BankWidth, PositivePowerOfTwo)                                      \
  REQUIRED(BankConflictGroup, PositivePowerOfTwo)                              \
  REQUIRED(SegmentBytes, PositivePowerOfTwo)                                   \
  REQUIRED(SectorBytes, PositivePowerOfTwo)                                    \
  REQUIRED(MemoryPartitions, Positive)                                         \
  REQUIRED(PartitionWidth, Positive)                                           \
  REQUIRED(SmArch, NoCheck)                                                    \
  OPTIONAL(PtxasStandIn, std::string(), NoCheck)                               \
  REQUIRED(MemoryBandwidthGBs, NoCheck)                                        \
  REQUIRED(PeakFP32GFlops, NoCheck)                                            \
  OPTIONAL(FP32LanesPerMP, 0u, NoCheck)                                        \
  OPTIONAL(L1CachesGlobalLoads, false, NoCheck)

namespace llvm {
namespace yaml {
template <> struct ScalarEnumerationTraits<Vendor> {
  static void enumeration(IO &Io, Vendor &V) {
    Io.enumCase(V, "nvidia", Vendor::Nvidia);
    Io.enumCase(V, "amd", Vendor::Amd);
  }
};

template <> struct ScalarEnumerationTraits<RegisterGranularity> {
  static void enumeration(IO &Io, RegisterGranularity &G) {
    Io.enumCase(G, "warp", RegisterGranularity::Warp);
    Io.enumCase(G, "block", RegisterGranularity::Block);
  }
};

template <> struct MappingTraits<MachineDescription> {
  static void mapping(IO &Io, MachineDescription &MD) {
    if (void *Ctx = Io.getContext())
      static_cast<MappingSeen *>(Ctx)->Seen = true;
#define REQUIRED_FIELD(Field, Checks) Io.mapRequired(#Field, MD.Field);
#define OPTIONAL_FIELD(Field, Default, Checks)                                 \
  Io.mapOptional(#Field, MD.Field, Default);
    GPUMERGE_MACHINE_FIELDS(REQUIRED_FIELD, OPTIONAL_FIELD)
#undef REQUIRED_FIELD
#undef OPTIONAL_FIELD
  }
};
} // namespace yaml
} // namespace llvm

namespace {
/// llvm::yaml speaks of "keys"; our messages speak of fields, as the header
/// and the docs do.
std::string rewordYamlMessage(llvm::StringRef Msg) {
  for (auto [From, To] : {std::pair<llvm::StringRef, llvm::StringRef>{
                              "missing required key", "missing required field"},
                          {"unknown key", "unknown field"}})
    if (Msg.startswith(From))
      return (To + Msg.drop_front(From.size())).str();
  return Msg.str();
}

struct YamlDiagnostics {
  llvm::StringRef FileName;
  std::vector<std::string> Messages;
};

/// Collects llvm::yaml's diagnostics as "file:line:col: message" instead of
/// letting the SourceMgr print them to stderr.
void collectYamlDiagnostic(const llvm::SMDiagnostic &D, void *Ctx) {
  auto *Diags = static_cast<YamlDiagnostics *>(Ctx);
  std::string Where = Diags->FileName.str();
  if (D.getLineNo() > 0)
    Where += ":" + std::to_string(D.getLineNo()) + ":" +
             std::to_string(D.getColumnNo() + 1);
  std::string Message = rewordYamlMessage(D.getMessage());
  // Value errors ("invalid number", "unknown enumerated scalar") point at the
  // value; name the field too, taken from the "Key: value" line.
  llvm::StringRef Line = D.getLineContents();
  size_t Colon = Line.find(':');
  llvm::StringRef Key = Line.take_front(Colon).trim();
  if (Colon != llvm::StringRef::npos && D.getColumnNo() > int(Colon) &&
      !Key.empty() && llvm::all_of(Key, llvm::isAlnum) &&
      !llvm::StringRef(Message).contains(" field '"))
    Message += " in field '" + Key.str() + "'";
  Diags->Messages.push_back(Where + ": " + Message);
}

void ignoreDiagnostic(const llvm::SMDiagnostic &, void *) {}

/// llvm::yaml::Input (LLVM 16) silently keeps one of two equal keys; a field
/// given twice is an editing mistake, so look for it in the raw node tree.
/// Syntax errors are left to Input, which reports them with their line.
void findDuplicateFields(llvm::StringRef Yaml, llvm::StringRef FileName,
                         std::vector<std::string> &Messages) {
  llvm::SourceMgr SM;
  SM.setDiagHandler(ignoreDiagnostic);
  llvm::yaml::Stream Stream(Yaml, SM);
  llvm::yaml::document_iterator Doc = Stream.begin();
  if (Doc == Stream.end())
    return;
  auto *Map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(Doc->getRoot());
  if (!Map)
    return;
  llvm::StringSet<> Keys;
  for (llvm::yaml::KeyValueNode &Entry : *Map) {
    auto *Key = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(Entry.getKey());
    if (!Key)
      continue;
    llvm::SmallString<32> Storage;
    llvm::StringRef Name = Key->getValue(Storage);
    if (Keys.insert(Name).second)
      continue;
    auto [Line, Column] = SM.getLineAndColumn(Key->getSourceRange().Start);
    Messages.push_back((FileName + ":" + llvm::Twine(Line) + ":" +
                        llvm::Twine(Column) + ": duplicate field '" + Name +
                        "'")
                           .str());
  }
}

llvm::Error joinedError(const std::vector<std::string> &Messages) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::join(Messages, "\n"));
}

/// Semantic checks after parsing. Each failure names the field; all failures
/// are reported at once so a new description is fixed in one pass.
class Validator {
public:
  explicit Validator(llvm::StringRef FileName) : FileName(FileName) {}

  void fail(llvm::StringRef Field, const llvm::Twine &Why) {
    Errors.push_back((FileName + ": field '" + Field + "' " + Why).str());
  }

  void positive(llvm::StringRef Field, unsigned V) {
    if (V == 0)
      fail(Field, "must be greater than 0");
  }

  void powerOfTwo(llvm::StringRef Field, unsigned V) {
    if (V != 0 && !llvm::isPowerOf2_32(V))
      fail(Field, "must be a power of two, got " + llvm::Twine(V));
  }

  /// \p Checks (FieldChecks) on the numeric field \p Field; the fields of
  /// other types take none.
  void check(llvm::StringRef Field, unsigned V, unsigned Checks) {
    if (Checks & Positive)
      positive(Field, V);
    if (Checks & PowerOfTwo)
      powerOfTwo(Field, V);
  }
  template <typename T> void check(llvm::StringRef, const T &, unsigned) {}

  void atMost(llvm::StringRef Field, unsigned V, llvm::StringRef LimitField,
              unsigned Limit) {
    if (V > Limit)
      fail(Field, "(" + llvm::Twine(V) + ") must not exceed " + LimitField +
                      " (" + llvm::Twine(Limit) + ")");
  }

  void positiveFinite(llvm::StringRef Field, double V) {
    if (!std::isfinite(V) || V <= 0)
      fail(Field, "must be a positive number");
  }

  llvm::Error finish() {
    return Errors.empty() ? llvm::Error::success() : joinedError(Errors);
  }

private:
  llvm::StringRef FileName;
  std::vector<std::string> Errors;
};

bool isTargetNameChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '-' || C == '.';
}

llvm::Error validate(const MachineDescription &MD, llvm::StringRef FileName) {
  Validator V(FileName);

  if (MD.Name.empty())
    V.fail("Name", "must not be empty");
  else if (!llvm::all_of(MD.Name, isTargetNameChar))
    V.fail("Name", "'" + MD.Name +
                       "' may only contain letters, digits, '_', '-' and '.'");
  if (MD.DisplayName.empty())
    V.fail("DisplayName", "must not be empty");

  // The checks GPUMERGE_MACHINE_FIELDS lists: every field's Positive check,
  // then every field's PowerOfTwo check.
  for (unsigned Only : {Positive, PowerOfTwo}) {
#define REQUIRED_FIELD(Field, Checks) V.check(#Field, MD.Field, (Checks)&Only);
#define OPTIONAL_FIELD(Field, Default, Checks) REQUIRED_FIELD(Field, Checks)
    GPUMERGE_MACHINE_FIELDS(REQUIRED_FIELD, OPTIONAL_FIELD)
#undef REQUIRED_FIELD
#undef OPTIONAL_FIELD
  }

  // §3.1: the global-memory variant uses float2 (or float4) vector types.
  if (MD.Vectorization != 2 && MD.Vectorization != 4)
    V.fail("Vectorization",
           "must be 2 or 4, got " + llvm::Twine(MD.Vectorization));

  if (MD.StreamVectorization != 0 && MD.StreamVectorization != 2 &&
      MD.StreamVectorization != 4)
    V.fail("StreamVectorization",
           "must be 0, 2 or 4, got " + llvm::Twine(MD.StreamVectorization));

  // The coalescing check (§3.2) and the bank-conflict model look at groups of
  // threads inside one warp.
  V.atMost("CoalescedThread", MD.CoalescedThread, "ThreadInWarp",
           MD.ThreadInWarp);
  V.atMost("BankConflictGroup", MD.BankConflictGroup, "ThreadInWarp",
           MD.ThreadInWarp);
  V.atMost("SectorBytes", MD.SectorBytes, "SegmentBytes", MD.SegmentBytes);

  // Residency limits must agree with each other, or the occupancy model
  // (docs/design.md) would depend on which of two limits it reads.
  if (MD.ThreadInWarp != 0 &&
      uint64_t(MD.WarpInMP) * MD.ThreadInWarp != MD.ThreadInMP)
    V.fail("ThreadInMP", "(" + llvm::Twine(MD.ThreadInMP) +
                             ") must equal WarpInMP x ThreadInWarp (" +
                             llvm::Twine(MD.WarpInMP) + " x " +
                             llvm::Twine(MD.ThreadInWarp) + ")");
  V.atMost("ThreadInBlock", MD.ThreadInBlock, "ThreadInMP", MD.ThreadInMP);
  V.atMost("RegisterAllocUnit", MD.RegisterAllocUnit, "RegisterInMP",
           MD.RegisterInMP);
  if (uint64_t(MD.SharedMemPerBlock) + MD.SharedMemReservedPerBlock >
      MD.ShareMemoryInMP)
    V.fail("SharedMemPerBlock", "(" + llvm::Twine(MD.SharedMemPerBlock) +
                                    ") plus SharedMemReservedPerBlock (" +
                                    llvm::Twine(MD.SharedMemReservedPerBlock) +
                                    ") must not exceed ShareMemoryInMP (" +
                                    llvm::Twine(MD.ShareMemoryInMP) + ")");

  // SmArch is what nvcc is given (-arch=sm_90); AMD targets have none.
  if (!MD.SmArch.empty()) {
    llvm::StringRef Arch(MD.SmArch);
    unsigned Number;
    if (MD.GpuVendor == Vendor::Amd)
      V.fail("SmArch", "must be empty for an AMD target, got '" + Arch + "'");
    else if (!Arch.consume_front("sm_") || Arch.getAsInteger(10, Number))
      V.fail("SmArch",
             "must look like 'sm_90' or be empty, got '" + MD.SmArch + "'");
  }

  V.positiveFinite("MemoryBandwidthGBs", MD.MemoryBandwidthGBs);
  V.positiveFinite("PeakFP32GFlops", MD.PeakFP32GFlops);
  return V.finish();
}

bool isPathLike(llvm::StringRef NameOrPath) {
  return NameOrPath.endswith(".yaml") || NameOrPath.contains('/');
}

llvm::Expected<MachineDescription> loadFile(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(
        Buffer.getError(), "cannot read machine description '%s': %s",
        Path.str().c_str(), Buffer.getError().message().c_str());
  return parseMachineDescription((*Buffer)->getBuffer(), Path);
}
} // namespace

bool gpumerge::hasAsyncCopy(const MachineDescription &MD) {
  unsigned Version = 0;
  llvm::StringRef Arch(MD.SmArch);
  return Arch.consume_front("sm_") && !Arch.consumeInteger(10, Version) &&
         Version >= 80;
}

double gpumerge::dramToSharedBandwidth(const MachineDescription &MD) {
  if (!MD.FP32LanesPerMP || !MD.SMCount || !MD.Banks)
    return 0;
  // Clock (GHz) = peak / (2 x SMs x lanes); DRAM bytes per SM clock =
  // bandwidth / SMs / clock.
  double ClockGHz =
      MD.PeakFP32GFlops / (2.0 * MD.SMCount * double(MD.FP32LanesPerMP));
  double DramPerClock = MD.MemoryBandwidthGBs / MD.SMCount / ClockGHz;
  return DramPerClock / double(MD.Banks * MD.BankWidth);
}

std::string gpumerge::defaultTargetsDir() {
  if (const char *Dir = std::getenv("GPUMERGE_TARGETS_DIR"); Dir && *Dir)
    return Dir;
  // An installed gpumerge (bin/gpumerge) finds the descriptions the install
  // put beside it, wherever the prefix is; the build tree has none there and
  // reads the source tree's. /proc/self/exe names the running program, so
  // this holds for gpumerge, gpumerge-nvcc and the tests alike.
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (!Exe.empty()) {
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(Dir, "..", "share", "gpumerge",
                            "machine-descriptions");
    if (llvm::sys::fs::is_directory(Dir)) {
      llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
      return std::string(Dir);
    }
  }
  return GPUMERGE_SOURCE_DIR "/machine-descriptions";
}

llvm::Expected<MachineDescription>
gpumerge::parseMachineDescription(llvm::StringRef Yaml,
                                  llvm::StringRef FileName) {
  MachineDescription MD;
  MappingSeen Seen;
  YamlDiagnostics Diags{FileName, {}};
  {
    llvm::yaml::Input In(Yaml, &Seen, collectYamlDiagnostic, &Diags);
    In >> MD;
    if (!In.error() && In.nextDocument())
      Diags.Messages.push_back(
          (FileName + ": expected one YAML document, found several").str());
    // An empty (or null) document sets an error code without a diagnostic,
    // or maps nothing at all; say so rather than "invalid".
    if (Diags.Messages.empty() && (In.error() || !Seen.Seen))
      Diags.Messages.push_back(
          (FileName + ": empty machine description").str());
  }
  if (Diags.Messages.empty())
    findDuplicateFields(Yaml, FileName, Diags.Messages);
  if (!Diags.Messages.empty())
    return joinedError(Diags.Messages);
  if (llvm::Error E = validate(MD, FileName))
    return E;
  return MD;
}

llvm::Expected<MachineDescription>
gpumerge::loadTarget(llvm::StringRef NameOrPath, llvm::StringRef Dir) {
  if (isPathLike(NameOrPath))
    return loadFile(NameOrPath);

  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, NameOrPath + ".yaml");
  if (!llvm::sys::fs::exists(Path)) {
    std::vector<std::string> Known = listTargets(Dir);
    if (Known.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "unknown target '%s'; no machine descriptions in '%s'",
          NameOrPath.str().c_str(), Dir.str().c_str());
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown target '%s'; known targets: %s",
                                   NameOrPath.str().c_str(),
                                   llvm::join(Known, ", ").c_str());
  }

  llvm::Expected<MachineDescription> MD = loadFile(Path);
  // A target looked up by name must call itself by that name: consumers print
  // MD.Name and name output files after it.
  if (MD && MD->Name != NameOrPath)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: field 'Name' is '%s' but the file is named for '%s'", Path.c_str(),
        MD->Name.c_str(), NameOrPath.str().c_str());
  return MD;
}

std::vector<std::string> gpumerge::listTargets(llvm::StringRef Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; !EC && It != End;
       It.increment(EC)) {
    llvm::StringRef Path = It->path();
    if (!Path.endswith(".yaml"))
      continue;
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> Status = It->status();
    if (!Status || Status->type() == llvm::sys::fs::file_type::directory_file)
      continue;
    Names.push_back(llvm::sys::path::stem(Path).str());
  }
  llvm::sort(Names);
  return Names;
}
