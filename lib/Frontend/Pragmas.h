//===- Pragmas.h - #pragma gpumerge hints -----------------------*- C++ -*-===//
//
//   #pragma gpumerge size(w=4096, h=2048)   sizes of the benchmark problem
//   #pragma gpumerge output(c)              the real outputs
// Clang ignores unknown pragmas; we read them from the text and give each to
// the next kernel that starts after it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_PRAGMAS_H
#define GPUMERGE_FRONTEND_PRAGMAS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpumerge {

struct PragmaHints {
  unsigned Line = 0; ///< where the pragma is
  std::map<std::string, std::int64_t> Sizes;
  std::vector<std::string> Outputs;
};

/// Every `#pragma gpumerge` in \p Source, in order. A malformed one is an
/// error naming its line.
llvm::Expected<std::vector<PragmaHints>> scanPragmas(llvm::StringRef Source,
                                                     llvm::StringRef FileName);

} // namespace gpumerge

#endif
