//===- PtxasCache.cpp - ptxas reports kept by content hash ----------------===//
#include "Target/PtxasCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace gpumerge;

/// Bumped when what an entry holds, or how the key is made, changes.
static constexpr const char *CacheFormat = "gpumerge-ptxas-1";

std::string gpumerge::gpumergeCacheDir() {
  if (auto Off = llvm::sys::Process::GetEnv("GPUMERGE_CACHE");
      Off && (*Off == "off" || *Off == "0"))
    return "";
  if (auto Dir = llvm::sys::Process::GetEnv("GPUMERGE_CACHE_DIR");
      Dir && !Dir->empty())
    return *Dir;
  llvm::SmallString<256> Path;
  if (auto Xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      Xdg && !Xdg->empty())
    Path = *Xdg;
  else if (llvm::sys::path::home_directory(Path))
    llvm::sys::path::append(Path, ".cache");
  else
    return "";
  llvm::sys::path::append(Path, "gpumerge");
  return std::string(Path);
}

std::string gpumerge::ptxasCacheKey(llvm::StringRef Source,
                                    llvm::StringRef SmArch,
                                    llvm::StringRef NvccPath) {
  std::string Identity = NvccPath.str();
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(NvccPath, Real))
    Identity = std::string(Real);
  llvm::sys::fs::file_status Status;
  if (!llvm::sys::fs::status(Identity, Status))
    Identity += llvm::formatv(
                    " {0} {1}", Status.getSize(),
                    Status.getLastModificationTime().time_since_epoch().count())
                    .str();
  llvm::SHA256 Hash;
  // Each part with its length first: no two different triples hash the same
  // text.
  for (llvm::StringRef Part : {llvm::StringRef(CacheFormat), SmArch,
                               llvm::StringRef(Identity), Source}) {
    Hash.update(std::to_string(Part.size()) + ":");
    Hash.update(Part);
  }
  return llvm::toHex(Hash.final(), /*LowerCase=*/true);
}

/// DIR/ptxas/ab/cdef...: two hex digits of fan-out keep directories small.
static std::string entryPath(llvm::StringRef Dir, llvm::StringRef Key) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, "ptxas", Key.take_front(2), Key.drop_front(2));
  return std::string(P);
}

std::optional<std::string> gpumerge::readCachedReport(llvm::StringRef Dir,
                                                      llvm::StringRef Key) {
  if (Dir.empty() || Key.size() < 3)
    return std::nullopt;
  auto Buf = llvm::MemoryBuffer::getFile(entryPath(Dir, Key));
  if (!Buf)
    return std::nullopt;
  // The first line names the format: an entry of another version is a miss.
  auto [Head, Report] = (*Buf)->getBuffer().split('\n');
  if (Head != CacheFormat)
    return std::nullopt;
  return Report.str();
}

void gpumerge::writeCachedReport(llvm::StringRef Dir, llvm::StringRef Key,
                                 llvm::StringRef Report) {
  if (Dir.empty() || Key.size() < 3)
    return;
  std::string Path = entryPath(Dir, Key);
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)))
    return;
  llvm::SmallString<256> Temp;
  int FD;
  if (llvm::sys::fs::createUniqueFile(Path + ".tmp-%%%%%%%%", FD, Temp))
    return;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << CacheFormat << "\n" << Report;
    OS.close();
    if (OS.has_error()) {
      OS.clear_error();
      llvm::sys::fs::remove(Temp);
      return;
    }
  }
  // rename() replaces an entry another writer put there first: same text.
  if (llvm::sys::fs::rename(Temp, Path))
    llvm::sys::fs::remove(Temp);
}
