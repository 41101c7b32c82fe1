//===- TuneCache.h - Measured candidates, kept between runs -----*- C++ -*-===//
//
// --tune times candidate versions of a kernel; each measurement (or why the
// candidate could not run) is one JSON line of the cache file, so a rerun,
// another build or gpumerge-nvcc can pick tuned versions without timing.
//
// A record is keyed by everything its result depends on: the device's name
// and driver, a hash of the kernel's source (with the macros, typedefs and
// helpers it uses, and the parse options), the target description, the
// sizes, the candidate's parameters, a hash of the candidate's code and the
// gpumerge version. Any difference is a miss, never an error.
//
// Each record is appended whole with one write() and flushed to disk
// (fsync) before the next candidate runs: a run killed midway leaves every
// finished measurement, and the rerun resumes after them. A line that does
// not parse (a truncated last line after a crash, an edit) is skipped with a
// warning; it is never fatal.
//
//   {"key":{"device":"NVIDIA H100 80GB HBM3","driver":"CUDA driver 13.0,
//    NVRTC 13.0","source":"3f2a…","target":"h100","sizes":"h=4096,k=4096,
//    w=4096","candidate":"global block=1x8 thread=1x4","code":"9c1e…",
//    "gpumerge":"0.1.0"},"status":"ok","median_ms":1.93,
//    "times_ms":[1.94,1.93,…],"model_rank":2,"max_rel_error":1.2e-7}
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_TUNECACHE_H
#define GPUMERGE_RUNTIME_TUNECACHE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// The gpumerge version the records are written by.
const char *gpumergeVersion();

/// SHA-256 of \p Text, in hex: the source and code hashes of the key.
std::string contentHash(llvm::StringRef Text);

struct TuneKey {
  std::string Device, Driver, Source, Target, Sizes, Candidate, Code, Version;
  llvm::json::Object toJson() const;
  static std::optional<TuneKey> fromJson(const llvm::json::Object &O);
  /// One string of every field, for lookups.
  std::string canonical() const;
};

struct TuneRecord {
  TuneKey Key;
  /// "ok" (verified, then timed), or why the candidate is not one:
  /// compile-error, resources, shared-memory, launch-failure, mismatch,
  /// precondition (its launch conditions do not hold at these sizes, so
  /// the launcher would run the fallback).
  std::string Status = "ok";
  std::string Reason; ///< the details, for a candidate that is not ok
  std::vector<double> TimesMs;
  double MedianMs = 0;
  int ModelRank = 0; ///< the static model's rank (1 = its choice)
  double MaxRelError = 0;
  /// Where a measurement's wall time went (VerifyResult::PhaseSeconds);
  /// not kept in the cache.
  std::vector<std::pair<std::string, double>> PhaseSeconds;

  bool ok() const { return Status == "ok"; }
  llvm::json::Value toJson() const;
  static std::optional<TuneRecord> fromJson(const llvm::json::Value &V);
};

class TuneCache {
public:
  /// $XDG_CACHE_HOME/gpumerge/tune.jsonl, else ~/.cache/gpumerge/tune.jsonl.
  static std::string defaultPath();

  /// Reads \p Path (a missing file is an empty cache). Lines that do not
  /// parse are skipped, each with a warning in warnings().
  static llvm::Expected<TuneCache> open(const std::string &Path);

  const std::string &path() const { return Path; }
  const std::vector<std::string> &warnings() const { return Warnings; }
  size_t size() const { return Records.size(); }

  /// The record of \p Key, or null (a miss).
  const TuneRecord *lookup(const TuneKey &Key) const;
  /// The records whose key equals \p Key except for device and driver
  /// (and sizes, with \p AnySizes): what a build without the device
  /// (gpumerge-nvcc) can choose from.
  std::vector<const TuneRecord *> lookupAnyDevice(const TuneKey &Key,
                                                  bool AnySizes = false) const;

  /// Appends \p R as one line, flushed to disk before returning (creating
  /// the file and its directory when needed); a later record of the same
  /// key replaces an earlier one.
  llvm::Error append(const TuneRecord &R);

private:
  std::string Path;
  std::vector<std::string> Warnings;
  std::vector<TuneRecord> Records;
  std::map<std::string, size_t> Index; ///< canonical key → record
};

} // namespace gpumerge

#endif
