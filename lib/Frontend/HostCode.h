//===- HostCode.h - A CUDA file without its host code -----------*- C++ -*-===//
//
// --verify --device=cuda runs a CUDA file's kernels as written, and the
// output's as emitted, through NVRTC, which compiles device code only: the
// file's host code (main, launchers, runtime calls, host globals) must be
// left out. Clang's parse says which declarations of the main file are host
// code; they are blanked (spaces, newlines kept) so NVRTC's messages keep
// the file's line numbers, and everything else stays as written: kernels,
// __device__ helpers and tables, types, macros and includes (NVRTC answers a
// host header with a stub, Nvrtc.h).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_HOSTCODE_H
#define GPUMERGE_FRONTEND_HOSTCODE_H

#include "Frontend/Frontend.h"
#include "IR/Kernel.h"

namespace clang {
class ASTContext;
}

namespace gpumerge {

/// The host code at file scope of the main file, in source order: functions
/// (definitions and prototypes, templates included) with neither __global__
/// nor __device__ written, and variables with none of __device__,
/// __constant__ or __shared__ that are not const (a const integer may size a
/// kernel's array). Declarations inside namespaces and extern "C" blocks
/// count; classes stay whole.
std::vector<SourceSpan> hostCodeSpans(clang::ASTContext &Ctx);

/// \p Text with each of \p Host blanked: every character but newlines
/// becomes a space.
std::string withoutHostCode(const std::string &Text,
                            const std::vector<SourceSpan> &Host);

/// The device code of CUDA text \p Text (named \p FileName: quoted includes
/// are found beside it), parsed as the frontend parses it with \p Opts.
llvm::Expected<std::string> deviceCodeOf(const std::string &Text,
                                         const std::string &FileName,
                                         const FrontendOptions &Opts);

} // namespace gpumerge

#endif
