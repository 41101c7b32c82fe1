//===- BatchInputs.h - Which files a batch takes, where they go -*- C++ -*-===//
//
// A batch (Batch.h) is given directories, files and/or a compilation
// database (-p, compile_commands.json as clang-tidy and hipify-clang read it).
// This unit decides, before anything runs, which files are taken, with which
// parse flags, and where each one's outputs go:
//
//   gpumerge --out-dir=opt src/         src/a/k.cu -> opt/a/k.global.cu
//   gpumerge --out-dir=opt src/ x.cu    x.cu       -> opt/x.global.cu
//   gpumerge --out-dir=opt -p build/    the database's files, mirrored under
//                                       the directory common to them all
//
// A directory is walked recursively (hidden directories skipped) for .cu, .cl
// and .cuh files that define a kernel; a file named on the command line is
// always taken. Nothing here runs the pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_BATCHINPUTS_H
#define GPUMERGE_DRIVER_BATCHINPUTS_H

#include "Driver/Driver.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gpumerge {

/// One file of a batch.
struct BatchFile {
  std::string Path;   ///< as given or found (relative when under the cwd)
  std::string OutDir; ///< its outputs' directory: --out-dir, mirrored
  /// Its place under the root its tree is mirrored from ("a/k.cu").
  std::string Relative;
  /// From the compilation database, before the flags after `--`.
  std::vector<std::string> ClangArgs;
  /// Set when the file is not run: its outputs would land on an input or
  /// on another file's outputs.
  std::string Refused;
};

/// A file looked at and left out, with why.
struct NotTaken {
  std::string Path;
  std::string Why; ///< "no kernel in it", "not matched by --files"
};

struct BatchInputs {
  std::vector<BatchFile> Files; ///< sorted by Path
  std::vector<NotTaken> Left;   ///< sorted by Path
};

/// True when \p Opts asks for a batch: a directory among the inputs, or -p.
bool isBatchRequest(const DriverOptions &Opts);

/// The files of the batch \p Opts asks for. Errors (the CLI's usage
/// errors): no --out-dir with a directory or -p, an --out-dir equal to or
/// inside an input directory, a database that cannot be read.
llvm::Expected<BatchInputs> collectBatchInputs(const DriverOptions &Opts);

/// Whether \p Text (a CUDA or OpenCL source, by \p OpenCL) defines a kernel:
/// __global__ (CUDA), __kernel or kernel (OpenCL) outside comments and
/// string literals.
bool definesKernel(llvm::StringRef Text, bool OpenCL);

/// The flags of a compile command (argv, with the compiler first) that
/// gpumerge's parse takes, as after `--`: -I (and -isystem, nvcc's
/// --include-path), -D, -U, -include, -std (-cl-std for OpenCL); relative
/// paths made absolute against \p Directory, the command's directory.
std::vector<std::string>
parseFlagsOfCommand(const std::vector<std::string> &CommandLine,
                    llvm::StringRef Directory, bool OpenCL);

} // namespace gpumerge

#endif
