//===- PtxasCache.h - ptxas reports kept by content hash --------*- C++ -*-===//
//
// The ptxas checks of block-merge, thread-merge and prefetch compile one
// small translation unit each with nvcc; on sm_90 that is most of the time
// gpumerge spends on a kernel (about 0.6 s a compile here). The same kernel
// text for the same architecture and the same nvcc always gives the same
// report, so the report is kept in a cache directory under the hash of those
// three, and a second run over an unchanged tree reads it back instead.
//
// Entries are files written to a temporary name and renamed into place, so
// concurrent gpumerge processes and batch workers (-j) never read half a
// file: a reader sees the whole entry or none, and two writers of one key
// write the same text.
//
// Where: $GPUMERGE_CACHE_DIR, else $XDG_CACHE_HOME/gpumerge, else
// ~/.cache/gpumerge (entries under ptxas/). GPUMERGE_CACHE=off turns it off.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TARGET_PTXASCACHE_H
#define GPUMERGE_TARGET_PTXASCACHE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gpumerge {

/// The cache directory ("" when caching is off or no place is known).
std::string gpumergeCacheDir();

/// The key of a ptxas report: a hex digest of the kernel source, the
/// architecture and the identity of nvcc (its resolved path, size and
/// modification time, so a toolkit upgrade misses).
std::string ptxasCacheKey(llvm::StringRef Source, llvm::StringRef SmArch,
                          llvm::StringRef NvccPath);

/// The report stored under \p Key in \p Dir, if any.
std::optional<std::string> readCachedReport(llvm::StringRef Dir,
                                            llvm::StringRef Key);

/// Stores \p Report under \p Key in \p Dir, atomically. Failures (a
/// read-only or full disk) are ignored: the cache only saves time.
void writeCachedReport(llvm::StringRef Dir, llvm::StringRef Key,
                       llvm::StringRef Report);

} // namespace gpumerge

#endif
