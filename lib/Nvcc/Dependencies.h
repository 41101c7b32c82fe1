//===- Dependencies.h - Includes and dependency files of a copy -*- C++ -*-===//
//
// The rewritten copy of a source lives in a temporary directory, but it must
// read the same headers as the original and the build must learn the
// original's dependencies:
//
// - `#include "x.h"` looks in the including file's directory first. The copy
//   is elsewhere, so each quoted include that the original's directory
//   resolves is spelled with that directory's absolute path in the copy
//   (no -I flag: one would change what `<x.h>` finds, and several inputs
//   from several directories could not all come first).
// - nvcc -MD writes the copy's path and those absolute header paths into
//   the dependency file; they are turned back into the original's spelling,
//   so make and ninja see exactly what a plain nvcc build would write.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_NVCC_DEPENDENCIES_H
#define GPUMERGE_NVCC_DEPENDENCIES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>

namespace gpumerge {
namespace nvcc {

/// \p Text with each `#include "NAME"` whose NAME exists in \p OriginalDir
/// (absolute) spelled `#include "<OriginalDir>/NAME"`. Lines keep their
/// count.
std::string anchorQuotedIncludes(llvm::StringRef Text,
                                 llvm::StringRef OriginalDir);

/// A path rewrite for a dependency file: a path equal to From becomes To;
/// with Prefix set, a path starting with From + "/" has that part replaced
/// by To + "/" (To empty: by nothing).
struct PathRewrite {
  std::string From, To;
  bool Prefix = false;
};

/// \p Deps (make syntax, as nvcc/gcc -MD write it: `target : a.cu \`
/// continuations, spaces in names escaped `\ `) with the paths rewritten.
/// Whitespace and line continuations are kept.
std::string rewriteDependencyPaths(llvm::StringRef Deps,
                                   llvm::ArrayRef<PathRewrite> Rewrites);

} // namespace nvcc
} // namespace gpumerge

#endif
