//===- NvccCheck.cpp - Does each CUDA file gpumerge writes compile? -------===//

#include "Driver/NvccCheck.h"
#include "Target/Ptxas.h"
#include "Target/PtxasCache.h"
#include "Target/Subprocess.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace gpumerge {

namespace {

constexpr unsigned CompileSeconds = 180;

/// What the cache holds for a file that compiles.
constexpr llvm::StringLiteral Compiles = "compiles\n";

/// The first error of nvcc's diagnostics \p Log, about the file at \p Path:
/// "line 15: error: ..." (cudafe++'s `PATH(15): error: ...` and the host
/// compiler's `PATH:15:3: error: ...`), else the first line that says
/// error, else the first line.
std::string firstErrorIn(llvm::StringRef Log, llvm::StringRef Path) {
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  Log.split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    if (!L.contains("error"))
      continue;
    llvm::StringRef Rest = L.trim();
    if (!Rest.consume_front(Path))
      return Rest.str();
    unsigned Line = 0;
    if (Rest.consume_front("(")) {
      Rest.consumeInteger(10, Line);
      Rest.consume_front("):");
    } else if (Rest.consume_front(":")) {
      Rest.consumeInteger(10, Line);
      Rest = Rest.drop_until([](char C) { return C == ' '; });
    }
    return llvm::formatv("line {0}: {1}", Line, Rest.trim()).str();
  }
  return Lines.empty() ? "nvcc failed without a message" : Lines[0].str();
}

} // namespace

std::vector<std::string>
NvccCheck::nvccFlags(llvm::ArrayRef<std::string> Args) {
  std::vector<std::string> Flags;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    bool Joined = A.size() > 2 && (A.starts_with("-I") || A.starts_with("-D") ||
                                   A.starts_with("-U"));
    if (Joined || A.starts_with("-std=")) {
      Flags.push_back(A.str());
    } else if ((A == "-I" || A == "-D" || A == "-U" || A == "-include" ||
                A == "-isystem") &&
               I + 1 < Args.size()) {
      Flags.push_back(A.str());
      Flags.push_back(Args[++I]);
    }
  }
  return Flags;
}

std::optional<NvccCheck>
NvccCheck::forInput(llvm::StringRef InputPath,
                    llvm::ArrayRef<std::string> ClangArgs,
                    llvm::StringRef SmArch) {
  if (const char *Off = std::getenv("GPUMERGE_NO_NVCC_CHECK");
      Off && llvm::StringRef(Off) != "0" && *Off)
    return std::nullopt;
  llvm::Expected<std::string> Nvcc = findNvcc();
  if (!Nvcc) {
    llvm::consumeError(Nvcc.takeError());
    return std::nullopt;
  }
  NvccCheck C;
  C.Nvcc = *Nvcc;
  C.Arch = SmArch.str();
  // The output lives elsewhere: its quoted includes are the input's.
  llvm::SmallString<256> Dir(InputPath);
  llvm::sys::fs::make_absolute(Dir);
  llvm::sys::path::remove_filename(Dir);
  C.Flags = {"-I" + std::string(Dir)};
  for (std::string &F : nvccFlags(ClangArgs))
    C.Flags.push_back(std::move(F));
  return C;
}

std::string NvccCheck::command() const {
  return "nvcc -c -arch=" + Arch +
         (Flags.size() > 1 ? " " + llvm::join(llvm::drop_begin(Flags), " ")
                           : std::string());
}

std::optional<std::string> NvccCheck::firstError(llvm::StringRef Text) const {
  std::string CacheDir = gpumergeCacheDir();
  std::string Key = ptxasCacheKey(llvm::join(Flags, "\n") + "\n" + Text.str(),
                                  "nvcc-check " + Arch, Nvcc);
  if (std::optional<std::string> Cached = readCachedReport(CacheDir, Key))
    return *Cached == Compiles ? "" : *Cached;
  // Where nvcc cannot be run to a verdict, the text is not judged.

  std::string Why;
  std::optional<ScratchDir> Dir =
      ScratchDir::create("gpumerge-nvcc-check", Why);
  if (!Dir)
    return std::nullopt;
  std::string Source = Dir->path("output.cu"), Object = Dir->path("output.o"),
              Log = Dir->path("log.txt");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Source, EC);
    if (EC)
      return std::nullopt;
    OS << Text;
  }
  std::string ArchFlag = "-arch=" + Arch;
  std::vector<llvm::StringRef> Args = {Nvcc, "-c", ArchFlag, "-w"};
  for (const std::string &F : Flags)
    Args.push_back(F);
  Args.insert(Args.end(), {"-o", Object, Source});
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(), Log, Log};
  std::string ExecError;
  bool ExecFailed = false;
  int RC = runWithDeadline(Nvcc, Args, Redirects, CompileSeconds, ExecError,
                           ExecFailed);
  if (ExecFailed || RC < 0) // a crash or the deadline: no verdict
    return std::nullopt;
  std::string Result;
  if (RC != 0) {
    auto Buf = llvm::MemoryBuffer::getFile(Log);
    Result = firstErrorIn(Buf ? (*Buf)->getBuffer() : "", Source);
  }
  writeCachedReport(CacheDir, Key, RC == 0 ? Compiles.str() : Result);
  return Result;
}

std::map<std::string, std::string> kernelsBreakingTheBuild(
    const NvccCheck &Check, llvm::ArrayRef<std::string> Changed,
    llvm::function_ref<std::string(llvm::ArrayRef<std::string>)> Emit,
    bool &InputFails) {
  InputFails = false;
  std::map<std::string, std::string> Broken;
  if (Changed.empty())
    return Broken;
  std::optional<std::string> All = Check.firstError(Emit(Changed));
  if (!All || All->empty())
    return Broken;
  if (std::optional<std::string> Input = Check.firstError(Emit({}));
      !Input || !Input->empty()) {
    InputFails = true;
    return Broken;
  }
  for (const std::string &K : Changed)
    if (std::optional<std::string> Why = Check.firstError(Emit(K));
        Why && !Why->empty())
      Broken[K] = *Why;
  // Each compiles alone but not all together: none is kept.
  if (Broken.empty())
    for (const std::string &K : Changed)
      Broken[K] = *All;
  return Broken;
}

} // namespace gpumerge
