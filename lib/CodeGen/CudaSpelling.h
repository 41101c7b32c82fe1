//===- CudaSpelling.h - What CUDA cannot spell of OpenCL -------*- C++ -*-===//
//
// OpenCL's vectors have operators, swizzles, built-ins and sizes (float3 is
// padded to 16 bytes, float8 and float16 exist) that CUDA's vector structs
// lack. A kernel of an OpenCL input that uses them has no CUDA translation:
// with --lang=cuda it is passed through with the construct named, never
// emitted as CUDA that does not compile.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_CUDASPELLING_H
#define GPUMERGE_CODEGEN_CUDASPELLING_H

#include "IR/Kernel.h"

namespace gpumerge {

/// The first construct of \p F that CUDA cannot spell, with its line; none
/// when the whole function has a CUDA spelling.
std::optional<Unsupported> cudaSpellingProblem(const Function &F);

/// Moves the functions of \p M that cudaSpellingProblem refuses, and those
/// that call them, to M.PassedThrough.
void passThroughWhatCudaCannotSpell(Module &M);

} // namespace gpumerge

#endif
