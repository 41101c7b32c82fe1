//===- Ptxas.cpp - Kernel resource use as ptxas reports it ----------------===//
//
// nvcc 13's report, on stderr, one block per entry function (sm_75 adds
// "360 bytes cmem[0]" to the Used line; callees' "Function properties" blocks
// follow the entry's, without a "Compiling entry function" line):
//
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Compiling entry function '_Z2tpPfPKfi' for 'sm_90'
//   ptxas info    : Function properties for _Z2tpPfPKfi
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 14 registers, used 1 barriers, 1088 bytes smem
//   ptxas info    : Compile time = 1.971 ms
//
//===----------------------------------------------------------------------===//

#include "Target/Ptxas.h"
#include "Target/PtxasCache.h"
#include "Target/Subprocess.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <sys/wait.h>
#include <thread>

using namespace gpumerge;

namespace {
/// A compile of a small translation unit takes about a second; a minute means
/// nvcc is stuck, and the caller gets an error instead of a hang.
constexpr unsigned NvccTimeoutSeconds = 120;

llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// One "N unit" item of a report line ("14 registers", "1088 bytes smem",
/// "used 1 barriers"); false when the item does not start with a number.
/// CUDA before 5 wrote static+dynamic shared memory as "4096+0 bytes smem".
bool parseItem(llvm::StringRef Item, unsigned &Value, llvm::StringRef &Unit) {
  Item = Item.trim();
  if (Item.starts_with_insensitive("used "))
    Item = Item.drop_front(5).ltrim();
  unsigned long long N;
  if (Item.consumeInteger(10, N))
    return false;
  while (Item.consume_front("+")) {
    unsigned long long More;
    if (Item.consumeInteger(10, More))
      return false;
    N += More;
  }
  Value = static_cast<unsigned>(N);
  Unit = Item.trim();
  return true;
}

/// The text after "ptxas info    :" (any spacing), or None.
std::optional<llvm::StringRef> ptxasInfo(llvm::StringRef Line) {
  Line = Line.trim();
  if (!Line.consume_front("ptxas info"))
    return std::nullopt;
  Line = Line.ltrim();
  if (!Line.consume_front(":"))
    return std::nullopt;
  return Line.trim();
}

struct FrameProperties {
  unsigned StackFrame = 0, SpillStores = 0, SpillLoads = 0;
};

void mergeMax(KernelResources &Into, const KernelResources &From) {
  Into.Registers = std::max(Into.Registers, From.Registers);
  Into.SharedBytes = std::max(Into.SharedBytes, From.SharedBytes);
  Into.SpillStoreBytes = std::max(Into.SpillStoreBytes, From.SpillStoreBytes);
  Into.SpillLoadBytes = std::max(Into.SpillLoadBytes, From.SpillLoadBytes);
  Into.StackBytes = std::max(Into.StackBytes, From.StackBytes);
}
} // namespace

llvm::Expected<std::string> gpumerge::findNvcc() {
  // gpumerge-nvcc names the real nvcc here: the one on PATH may be the
  // drop-in itself.
  if (auto Named = llvm::sys::Process::GetEnv("GPUMERGE_NVCC");
      Named && !Named->empty()) {
    if (llvm::sys::fs::can_execute(*Named))
      return *Named;
    return makeError("GPUMERGE_NVCC names '" + *Named +
                     "', which is not an executable program");
  }
  if (auto OnPath = llvm::sys::findProgramByName("nvcc"))
    return *OnPath;
  llvm::SmallVector<std::string, 2> Dirs;
  if (auto CudaHome = llvm::sys::Process::GetEnv("CUDA_HOME"))
    Dirs.push_back(*CudaHome + "/bin");
  Dirs.push_back("/usr/local/cuda/bin");
  for (const std::string &Dir : Dirs) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, "nvcc");
    if (llvm::sys::fs::can_execute(P))
      return std::string(P);
  }
  return makeError("nvcc not found (looked on PATH, in $CUDA_HOME/bin and in "
                   "/usr/local/cuda/bin); install the CUDA toolkit or put "
                   "nvcc on PATH");
}

std::string gpumerge::kernelSourceName(llvm::StringRef Symbol) {
  if (!Symbol.startswith("_Z"))
    return Symbol.str(); // extern "C"
  llvm::ItaniumPartialDemangler Demangler;
  std::string Mangled = Symbol.str();
  if (!Demangler.partialDemangle(Mangled.c_str()) && Demangler.isFunction()) {
    size_t Size = 0;
    if (char *Base = Demangler.getFunctionBaseName(nullptr, &Size)) {
      std::string Name(Base);
      std::free(Base);
      if (!Name.empty())
        return Name;
    }
  }
  // Not demangled: take the first <length><identifier> of _Z<len><name>...
  llvm::StringRef Rest = Symbol.drop_front(2);
  Rest.consume_front("N");
  unsigned Len;
  if (!Rest.consumeInteger(10, Len) && Len <= Rest.size())
    return Rest.take_front(Len).str();
  return Symbol.str();
}

std::map<std::string, KernelResources>
gpumerge::parsePtxasReport(llvm::StringRef Report) {
  std::map<std::string, KernelResources> Entries; // by mangled symbol
  std::map<std::string, FrameProperties> Frames;  // by mangled symbol
  std::string CurrentEntry, PropertiesFor;

  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Report.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    std::optional<llvm::StringRef> Info = ptxasInfo(Line);
    if (!Info) {
      // The line after "Function properties for X".
      if (PropertiesFor.empty() || !Line.contains("stack frame"))
        continue;
      FrameProperties &FP = Frames[PropertiesFor];
      llvm::SmallVector<llvm::StringRef, 4> Items;
      Line.split(Items, ',');
      for (llvm::StringRef Item : Items) {
        unsigned V;
        llvm::StringRef Unit;
        if (!parseItem(Item, V, Unit))
          continue;
        if (Unit == "bytes stack frame")
          FP.StackFrame = V;
        else if (Unit == "bytes spill stores")
          FP.SpillStores = V;
        else if (Unit == "bytes spill loads")
          FP.SpillLoads = V;
      }
      PropertiesFor.clear();
      continue;
    }

    llvm::StringRef Body = *Info;
    if (Body.consume_front("Compiling entry function")) {
      // '_Z2tpPfPKfi' for 'sm_90'
      llvm::StringRef Quoted = Body.trim();
      if (!Quoted.consume_front("'"))
        continue;
      auto [Symbol, Tail] = Quoted.split('\'');
      CurrentEntry = Symbol.str();
      KernelResources &K = Entries[CurrentEntry];
      llvm::StringRef Arch = Tail.trim();
      if (Arch.consume_front("for") && (Arch = Arch.trim()).consume_front("'"))
        K.Source = ("ptxas " + Arch.split('\'').first).str();
      else
        K.Source = "ptxas";
      continue;
    }
    if (Body.consume_front("Function properties for")) {
      PropertiesFor = Body.trim().str();
      continue;
    }
    if (Body.starts_with_insensitive("used ") && !CurrentEntry.empty()) {
      KernelResources &K = Entries[CurrentEntry];
      llvm::SmallVector<llvm::StringRef, 8> Items;
      Body.split(Items, ',');
      for (llvm::StringRef Item : Items) {
        unsigned V;
        llvm::StringRef Unit;
        if (!parseItem(Item, V, Unit))
          continue;
        if (Unit == "registers")
          K.Registers = V;
        else if (Unit == "bytes smem")
          K.SharedBytes = V;
        else if (Unit == "bytes cumulative stack size")
          K.StackBytes = V;
      }
      // The Used line closes the entry; later properties are callees'.
      CurrentEntry.clear();
    }
  }

  std::map<std::string, KernelResources> ByName;
  for (auto &[Symbol, K] : Entries) {
    if (auto It = Frames.find(Symbol); It != Frames.end()) {
      K.SpillStoreBytes = It->second.SpillStores;
      K.SpillLoadBytes = It->second.SpillLoads;
      if (K.StackBytes == 0)
        K.StackBytes = It->second.StackFrame;
    }
    auto [It, Inserted] = ByName.try_emplace(kernelSourceName(Symbol), K);
    if (!Inserted)
      mergeMax(It->second, K);
  }
  return ByName;
}

llvm::Expected<std::map<std::string, KernelResources>>
gpumerge::ptxasResources(const std::string &CudaSource,
                         const std::string &SmArch, unsigned MaxRegisters) {
  llvm::StringRef Arch(SmArch);
  if (!Arch.starts_with("sm_") || Arch.size() == 3)
    return makeError("'" + SmArch +
                     "' is not a real GPU architecture (expected sm_NN)");
  llvm::Expected<std::string> Nvcc = findNvcc();
  if (!Nvcc)
    return Nvcc.takeError();

  // The same text, architecture and nvcc give the same report: read it back
  // when an earlier run (or another -j worker) already compiled it.
  std::string CacheDir = gpumergeCacheDir();
  std::string RegisterFlag =
      MaxRegisters ? "-maxrregcount=" + std::to_string(MaxRegisters) : "";
  std::string Key = ptxasCacheKey(CudaSource, SmArch + RegisterFlag, *Nvcc);
  if (std::optional<std::string> Cached = readCachedReport(CacheDir, Key))
    return parsePtxasReport(*Cached);

  std::string Why;
  std::optional<ScratchDir> Dir = ScratchDir::create("gpumerge-ptxas", Why);
  if (!Dir)
    return makeError(Why);
  std::string Input = Dir->path("kernel.cu"), Cubin = Dir->path("kernel.cubin"),
              Out = Dir->path("stdout.txt"), Err = Dir->path("stderr.txt");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Input, EC);
    if (EC)
      return makeError("cannot write " + Input + ": " + EC.message());
    OS << CudaSource;
    OS.close();
    if (OS.has_error())
      return makeError("cannot write " + Input + ": " + OS.error().message());
  }

  std::string ArchFlag = "-arch=" + SmArch;
  std::vector<llvm::StringRef> Args = {*Nvcc, "-cubin", ArchFlag,
                                       "--resource-usage"};
  if (MaxRegisters)
    Args.push_back(RegisterFlag);
  Args.insert(Args.end(), {"-o", Cubin, Input});
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(), Out, Err};
  std::string ExecError;
  bool ExecFailed = false;
  int RC = runWithDeadline(*Nvcc, Args, Redirects, NvccTimeoutSeconds,
                           ExecError, ExecFailed);
  if (ExecFailed)
    return makeError("cannot run " + *Nvcc + ": " + ExecError);

  std::string Report;
  for (const std::string &Path : {Out, Err})
    if (auto Buf = llvm::MemoryBuffer::getFile(Path))
      Report += (*Buf)->getBuffer();

  if (RC != 0) {
    // Diagnostics name the file as "<tmpdir>/kernel.cu(3): error: ...";
    // the directory is gone once we return, so drop it.
    std::string Diagnostics;
    llvm::StringRef Rest(Report);
    std::string Prefix = Dir->prefix();
    while (!Rest.empty()) {
      size_t At = Rest.find(Prefix);
      Diagnostics += Rest.take_front(At).str();
      if (At == llvm::StringRef::npos)
        break;
      Rest = Rest.drop_front(At + Prefix.size());
    }
    llvm::StringRef Trimmed = llvm::StringRef(Diagnostics).rtrim();
    std::string Why =
        RC < 0 ? (ExecError.empty() ? "crashed or timed out" : ExecError)
               : "exit " + std::to_string(RC);
    return makeError("nvcc " + ArchFlag + " failed (" + Why + "):\n" + Trimmed);
  }
  // Only successes are kept: a failure may be a timeout or a full disk.
  writeCachedReport(CacheDir, Key, Report);
  return parsePtxasReport(Report);
}

namespace {

/// The real architectures \p Nvcc compiles for, from `--list-gpu-code`
/// (one "sm_NN" a line); empty where it cannot say. Asked once a process
/// for each nvcc.
std::vector<std::string> gpuCodes(const std::string &Nvcc) {
  static std::mutex Lock;
  static std::map<std::string, std::vector<std::string>> Known;
  std::lock_guard<std::mutex> Guard(Lock);
  if (auto It = Known.find(Nvcc); It != Known.end())
    return It->second;
  std::vector<std::string> &Codes = Known[Nvcc];
  std::string Why;
  std::optional<ScratchDir> Dir = ScratchDir::create("gpumerge-codes", Why);
  if (!Dir)
    return Codes;
  std::string Out = Dir->path("stdout.txt"), Err = Dir->path("stderr.txt");
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(), Out, Err};
  std::vector<llvm::StringRef> Args = {Nvcc, "--list-gpu-code"};
  std::string ExecError;
  bool ExecFailed = false;
  if (runWithDeadline(Nvcc, Args, Redirects, NvccTimeoutSeconds, ExecError,
                      ExecFailed) != 0)
    return Codes;
  if (auto Buf = llvm::MemoryBuffer::getFile(Out)) {
    llvm::SmallVector<llvm::StringRef, 32> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines)
      if (L.trim().starts_with("sm_"))
        Codes.push_back(L.trim().str());
  }
  return Codes;
}

} // namespace

std::string gpumerge::firstCompiledArch(llvm::StringRef Candidates) {
  llvm::SmallVector<llvm::StringRef, 4> Archs;
  Candidates.split(Archs, ' ', -1, false);
  if (Archs.empty())
    return "";
  if (Archs.size() == 1)
    return Archs.front().str();
  llvm::Expected<std::string> Nvcc = findNvcc();
  if (!Nvcc) {
    llvm::consumeError(Nvcc.takeError());
    return Archs.back().str();
  }
  std::vector<std::string> Codes = gpuCodes(*Nvcc);
  for (llvm::StringRef A : Archs)
    if (std::find(Codes.begin(), Codes.end(), A.str()) != Codes.end())
      return A.str();
  return Archs.back().str();
}
