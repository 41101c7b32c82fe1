//===- HostCode.h - A CUDA file without its host code -----------*- C++ -*-===//
//
// --verify --device=cuda runs a CUDA file's kernels as written, and the
// output's as emitted, through NVRTC, which compiles device code only: the
// file's host code (main, launchers, runtime calls, host globals) must be
// left out, in the file and in the files of the user's it includes
// (PolyBench includes its timing code, polybench.c). Clang's parse says
// which declarations are host code; they are blanked (spaces, newlines and
// preprocessor lines kept), each included file of the user's is written
// where it was included, between #line directives, so NVRTC's messages name
// the right file and line, and everything else stays as written: kernels,
// __device__ helpers and tables, types, macros, and the includes of system
// and toolkit headers (NVRTC answers a host header with a stub, Nvrtc.h).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_HOSTCODE_H
#define GPUMERGE_FRONTEND_HOSTCODE_H

#include <string>

namespace clang {
class ASTContext;
}

namespace gpumerge {

/// The device code of the CUDA file parsed into \p Ctx, as one source. Host
/// code is, at file scope and in namespaces and extern "C" blocks: functions
/// (definitions and prototypes, templates included) with neither __global__
/// nor __device__ written, except constexpr ones; variables with none of
/// __device__, __constant__ or __shared__ that are not const, or are const
/// and never named by device code (a const integer may size a kernel's
/// array; an unused `const float r = -f;` would be a device variable that
/// NVRTC cannot initialize); classes (not a typedef's or a variable's)
/// whose member functions are all host code and that device code never
/// names (others stay whole). A quoted include that the parse did not enter
/// (guarded, #pragma once) is blanked.
std::string deviceCode(clang::ASTContext &Ctx);

} // namespace gpumerge

#endif
