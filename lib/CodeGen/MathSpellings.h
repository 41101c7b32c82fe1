//===- MathSpellings.h - CUDA and OpenCL math function names ----*- C++ -*-===//
//
// The math functions and intrinsics the two languages spell differently:
// CUDA's float-suffixed sqrtf is OpenCL's overloaded sqrt, CUDA's fast
// __powf is native_powr, __umul24 is mul24. One table serves both emitters,
// so a kernel translated one way and back keeps its calls.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_MATHSPELLINGS_H
#define GPUMERGE_CODEGEN_MATHSPELLINGS_H

#include "IR/Type.h"

#include <string>

namespace gpumerge {

/// How OpenCL C spells a call of CUDA's \p Callee returning \p Result:
/// the name, and arguments to append after the call's own (`__saturatef(x)`
/// is `clamp(x, 0.0f, 1.0f)`).
struct Spelling {
  std::string Name;
  std::string TrailingArgs;
};
Spelling openclSpelling(const std::string &Callee, const Type &Result);

/// How CUDA spells a call of OpenCL's \p Callee returning \p Result.
std::string cudaSpelling(const std::string &Callee, const Type &Result);

/// Is \p Name one of OpenCL C's built-in functions (`step`, `mix`, `dot`,
/// `sqrt`, ...)? An OpenCL program cannot define a kernel of that name, so
/// a CUDA kernel named so is renamed where gpumerge runs it as OpenCL.
bool isOpenCLBuiltinFunction(const std::string &Name);

} // namespace gpumerge

#endif
