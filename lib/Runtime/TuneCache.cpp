//===- TuneCache.cpp - Measured candidates, kept between runs -------------===//
#include "Runtime/TuneCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#ifndef GPUMERGE_VERSION
#define GPUMERGE_VERSION "unknown"
#endif

namespace gpumerge {

const char *gpumergeVersion() { return GPUMERGE_VERSION; }

std::string contentHash(llvm::StringRef Text) {
  llvm::SHA256 H;
  H.update(Text);
  auto Digest = H.final();
  return llvm::toHex(Digest, /*LowerCase=*/true);
}

llvm::json::Object TuneKey::toJson() const {
  return llvm::json::Object{{"device", Device}, {"driver", Driver},
                            {"source", Source}, {"target", Target},
                            {"sizes", Sizes},   {"candidate", Candidate},
                            {"code", Code},     {"gpumerge", Version}};
}

std::optional<TuneKey> TuneKey::fromJson(const llvm::json::Object &O) {
  TuneKey K;
  struct {
    const char *Name;
    std::string *Into;
  } Fields[] = {{"device", &K.Device}, {"driver", &K.Driver},
                {"source", &K.Source}, {"target", &K.Target},
                {"sizes", &K.Sizes},   {"candidate", &K.Candidate},
                {"code", &K.Code},     {"gpumerge", &K.Version}};
  for (auto &F : Fields) {
    auto V = O.getString(F.Name);
    if (!V)
      return std::nullopt;
    *F.Into = V->str();
  }
  return K;
}

std::string TuneKey::canonical() const {
  // A separator that no field holds (they are names, hashes and numbers).
  return llvm::join(std::vector<std::string>{Device, Driver, Source, Target,
                                             Sizes, Candidate, Code, Version},
                    "\x1f");
}

llvm::json::Value TuneRecord::toJson() const {
  llvm::json::Array Times;
  for (double T : TimesMs)
    Times.push_back(T);
  llvm::json::Object O{
      {"key", Key.toJson()}, {"status", Status}, {"model_rank", ModelRank}};
  if (ok()) {
    O["median_ms"] = MedianMs;
    O["times_ms"] = std::move(Times);
    O["max_rel_error"] = MaxRelError;
  } else {
    O["reason"] = Reason;
  }
  return O;
}

std::optional<TuneRecord> TuneRecord::fromJson(const llvm::json::Value &V) {
  const llvm::json::Object *O = V.getAsObject();
  if (!O)
    return std::nullopt;
  const llvm::json::Object *K = O->getObject("key");
  auto Status = O->getString("status");
  if (!K || !Status)
    return std::nullopt;
  auto Key = TuneKey::fromJson(*K);
  if (!Key)
    return std::nullopt;
  TuneRecord R;
  R.Key = *Key;
  R.Status = Status->str();
  R.Reason = O->getString("reason").value_or("").str();
  R.ModelRank = int(O->getInteger("model_rank").value_or(0));
  if (R.ok()) {
    auto Median = O->getNumber("median_ms");
    const llvm::json::Array *Times = O->getArray("times_ms");
    if (!Median || !Times)
      return std::nullopt;
    R.MedianMs = *Median;
    for (const llvm::json::Value &T : *Times) {
      auto D = T.getAsNumber();
      if (!D)
        return std::nullopt;
      R.TimesMs.push_back(*D);
    }
    R.MaxRelError = O->getNumber("max_rel_error").value_or(0);
  }
  return R;
}

std::string TuneCache::defaultPath() {
  llvm::SmallString<256> P;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X == '/') {
    P = X;
  } else if (const char *H = std::getenv("HOME"); H && *H) {
    P = H;
    llvm::sys::path::append(P, ".cache");
  } else {
    P = "/tmp";
  }
  llvm::sys::path::append(P, "gpumerge", "tune.jsonl");
  return std::string(P);
}

llvm::Expected<TuneCache> TuneCache::open(const std::string &Path) {
  TuneCache C;
  C.Path = Path;
  if (!llvm::sys::fs::exists(Path))
    return C;
  auto Text = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Text)
    return llvm::createStringError(
        Text.getError(), "cannot read the tuning cache '%s': %s", Path.c_str(),
        Text.getError().message().c_str());
  llvm::StringRef Rest = (*Text)->getBuffer();
  bool EndsWithNewline = Rest.endswith("\n");
  unsigned LineNo = 0;
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    ++LineNo;
    if (Line.trim().empty())
      continue;
    bool Last = Rest.empty() && !EndsWithNewline;
    auto J = llvm::json::parse(Line);
    std::optional<TuneRecord> R;
    if (J)
      R = TuneRecord::fromJson(*J);
    else
      llvm::consumeError(J.takeError());
    if (!R) {
      C.Warnings.push_back(
          llvm::formatv("{0}:{1}: {2}; the line is skipped", Path, LineNo,
                        Last ? "the last line is incomplete (a run "
                               "interrupted while writing it?)"
                             : "not a tuning record")
              .str());
      continue;
    }
    auto [It, New] = C.Index.try_emplace(R->Key.canonical(), C.Records.size());
    if (New)
      C.Records.push_back(std::move(*R));
    else
      C.Records[It->second] = std::move(*R);
  }
  return C;
}

const TuneRecord *TuneCache::lookup(const TuneKey &Key) const {
  auto It = Index.find(Key.canonical());
  return It == Index.end() ? nullptr : &Records[It->second];
}

std::vector<const TuneRecord *>
TuneCache::lookupAnyDevice(const TuneKey &Key, bool AnySizes) const {
  std::vector<const TuneRecord *> Out;
  for (const TuneRecord &R : Records) {
    TuneKey K = R.Key;
    K.Device = Key.Device;
    K.Driver = Key.Driver;
    if (AnySizes)
      K.Sizes = Key.Sizes;
    if (K.canonical() == Key.canonical())
      Out.push_back(&R);
  }
  return Out;
}

llvm::Error TuneCache::append(const TuneRecord &R) {
  auto Fail = [&](const char *What) {
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        "cannot %s the tuning cache '%s': %s", What, Path.c_str(),
        std::strerror(errno));
  };
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  if (!Dir.empty())
    if (auto EC = llvm::sys::fs::create_directories(Dir))
      return llvm::createStringError(EC, "cannot create '%s': %s",
                                     Dir.str().c_str(), EC.message().c_str());
  int FD = ::open(Path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (FD < 0)
    return Fail("open");
  std::string Line;
  llvm::raw_string_ostream OS(Line);
  OS << R.toJson();
  OS.flush();
  // After a torn write the file may end inside a line: start a new one, so
  // only the torn line is lost.
  off_t End = ::lseek(FD, 0, SEEK_END);
  if (End > 0) {
    char Last = '\n';
    if (::pread(FD, &Last, 1, End - 1) == 1 && Last != '\n')
      Line.insert(Line.begin(), '\n');
  }
  Line += '\n';
  // One write: a record is in the file whole or (killed mid-write) torn at
  // the end, where open() skips it.
  size_t Done = 0;
  while (Done < Line.size()) {
    ssize_t N = ::write(FD, Line.data() + Done, Line.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      int Saved = errno;
      ::close(FD);
      errno = Saved;
      return Fail("write");
    }
    Done += size_t(N);
  }
  if (::fsync(FD) != 0) {
    int Saved = errno;
    ::close(FD);
    errno = Saved;
    return Fail("flush");
  }
  ::close(FD);
  auto [It, New] = Index.try_emplace(R.Key.canonical(), Records.size());
  if (New)
    Records.push_back(R);
  else
    Records[It->second] = R;
  return llvm::Error::success();
}

} // namespace gpumerge
