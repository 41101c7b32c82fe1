//===- DropIn.h - gpumerge-nvcc: nvcc with gpumerge in front ----*- C++ -*-===//
//
// `gpumerge-nvcc [nvcc flags] files...` does what nvcc does, on gpumerge's
// rewrite of each CUDA source:
//
//  1. The command line is read as nvcc reads it (NvccCommand.h). What has no
//     CUDA source to compile, or prints something a caller parses
//     (--version, -v, --dryrun, -E, -M, ...), runs the real nvcc as it is.
//  2. Each CUDA source whose text has a __global__ goes through gpumerge
//     (--memory=global unless -Xgpumerge says otherwise; the target from
//     -arch/-gencode, GPUMERGE_TARGET or -Xgpumerge --target=NAME; the
//     source's -D/-I/-include/-std for the parse). The rewrite is written to
//     a temporary directory under the source's own name, with `#line`
//     directives naming the original (LineDirectives.h) and its quoted
//     includes anchored to the original's directory (Dependencies.h).
//  3. The real nvcc runs with the same flags on the copies. A dependency file
//     it writes is spelled back to the original paths.
//
// Failures never cost the build: where gpumerge cannot rewrite a file, the
// original is compiled, with one warning (GPUMERGE_STRICT=1 makes it an
// error); where nvcc rejects a rewrite that the original compiles with (a
// gpumerge bug), the original's result is kept, with a warning; where the
// original itself does not compile, nvcc's diagnostics on the original are
// what the user sees. The exit code is nvcc's; stdout carries only nvcc's.
//
// Environment: GPUMERGE_NVCC (the real nvcc), GPUMERGE_TARGET,
// GPUMERGE_STRICT, GPUMERGE_DISABLE (run nvcc alone), GPUMERGE_VERBOSE
// (show the commands and gpumerge's messages), GPUMERGE_NVCC_KEEP (keep the
// temporary directory).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_NVCC_DROPIN_H
#define GPUMERGE_NVCC_DROPIN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace gpumerge {
namespace nvcc {

/// Runs gpumerge-nvcc on \p Args (without the program name); \p Self is the
/// running program's path. Returns the exit code.
int runDropIn(llvm::ArrayRef<std::string> Args, const std::string &Self);

/// The real nvcc: $GPUMERGE_NVCC, else the first `nvcc` on PATH that is not
/// \p Self, else /usr/local/cuda/bin/nvcc.
llvm::Expected<std::string> findRealNvcc(const std::string &Self);

/// gpumerge: beside \p Self, else in the build tree's tools/gpumerge, else
/// on PATH.
llvm::Expected<std::string> findGpumerge(const std::string &Self);

} // namespace nvcc
} // namespace gpumerge

#endif
