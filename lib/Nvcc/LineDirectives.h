//===- LineDirectives.h - Point a rewrite at the original file --*- C++ -*-===//
//
// gpumerge-nvcc compiles gpumerge's rewrite of a source, a temporary file;
// the user's build must still say where in *their* file a diagnostic, an
// assert's __FILE__/__LINE__ or a -G/-lineinfo line is. The rewrite keeps
// host code and untouched kernels line for line, so a line diff of the two
// texts tells which lines of the rewrite are the original's, and
// `#line N "original.cu"` directives before each run of them say so. Lines
// gpumerge wrote (an optimized kernel, a launcher) have no line of their
// own in the original: each is attributed to the first line of what it
// replaced, or to the line it follows, so a message about them points at
// the kernel they came from.
//
// A directive is never put where it would change the program: inside a
// block comment or raw string, or after a line continued with a backslash.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_NVCC_LINEDIRECTIVES_H
#define GPUMERGE_NVCC_LINEDIRECTIVES_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace gpumerge {
namespace nvcc {

/// For each line of \p Rewritten, the 1-based line of \p Original it is
/// (equal lines found by a minimal line diff), or 0 for a line of its own.
std::vector<unsigned> matchLines(llvm::StringRef Original,
                                 llvm::StringRef Rewritten);

/// \p Rewritten with `#line` directives naming \p OriginalName (spelled as
/// the compiler should print it) so every line maps to \p Original's.
std::string addLineDirectives(llvm::StringRef Original,
                              llvm::StringRef Rewritten,
                              llvm::StringRef OriginalName);

} // namespace nvcc
} // namespace gpumerge

#endif
