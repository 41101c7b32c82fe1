//===- Frontend.h - Naive kernels from source to KIR ------------*- C++ -*-===//
//
// The only place Clang is seen. Parses a CUDA or OpenCL file (a kernel-only
// CUDA file needs no CUDA SDK: a small prelude declares the built-ins), finds
// the __global__ / __kernel functions with AST matchers and lowers them and the
// __device__ helpers they call to KIR. A kernel using something KIR cannot
// express is recorded in Module::PassedThrough with the construct and line.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_FRONTEND_H
#define GPUMERGE_FRONTEND_FRONTEND_H

#include "Frontend/FrontendOptions.h"
#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>

namespace gpumerge {

/// Parses \p Path. A syntax error gives an error holding Clang's diagnostics
/// (file:line:col) and no module.
llvm::Expected<std::unique_ptr<Module>> parseFile(const std::string &Path,
                                                  const FrontendOptions &Opts);
/// Same, for text in memory named \p FileName (the name decides the language
/// unless Opts.Lang is set).
llvm::Expected<std::unique_ptr<Module>>
parseSource(const std::string &Source, const std::string &FileName,
            const FrontendOptions &Opts);

/// The device code of CUDA text \p Text (named \p FileName: quoted includes
/// are found beside it), parsed as parseSource parses it with \p Opts:
/// what the file and the files it includes leave once host code is left
/// out (HostCode.h).
llvm::Expected<std::string> deviceCodeOf(const std::string &Text,
                                         const std::string &FileName,
                                         const FrontendOptions &Opts);

/// Language from a file name: .cl → OpenCL, anything else CUDA.
Language languageOfFile(llvm::StringRef Path);

} // namespace gpumerge

#endif
