//===- Subprocess.h - Running the vendor's tools -----------------*- C++ -*-===//
//
// gpumerge runs nvcc for ptxas's resource counts (Ptxas.h) and to check the
// CUDA files it writes (Driver/NvccCheck.h), from batch workers at once:
// each run in a directory of its own, waited for with a deadline that needs
// no signal.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TARGET_SUBPROCESS_H
#define GPUMERGE_TARGET_SUBPROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gpumerge {

/// Runs \p Program and waits for it at most \p Seconds (then kills it): its
/// exit status, -2 after a signal or the deadline (\p ErrMsg says which), -1
/// when it could not start (\p ExecFailed). Safe from several threads.
int runWithDeadline(llvm::StringRef Program,
                    llvm::ArrayRef<llvm::StringRef> Args,
                    llvm::ArrayRef<std::optional<llvm::StringRef>> Redirects,
                    unsigned Seconds, std::string &ErrMsg, bool &ExecFailed);

/// A new temporary directory, removed with everything in it when this
/// object goes.
class ScratchDir {
public:
  /// The directory, named after \p Prefix; nullopt (and \p Why) when it
  /// cannot be made.
  static std::optional<ScratchDir> create(llvm::StringRef Prefix,
                                          std::string &Why);
  ScratchDir(ScratchDir &&Other) noexcept : Dir(std::move(Other.Dir)) {
    Other.Dir.clear();
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  ScratchDir &operator=(ScratchDir &&) = delete;
  ~ScratchDir();

  /// The path of \p Name in it.
  std::string path(llvm::StringRef Name) const;
  /// The directory itself, with a separator: what diagnostics prefix the
  /// files' names with.
  std::string prefix() const;

private:
  ScratchDir() = default;
  llvm::SmallString<128> Dir;
};

} // namespace gpumerge

#endif
