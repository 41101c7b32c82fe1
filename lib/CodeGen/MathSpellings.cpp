//===- MathSpellings.cpp - CUDA and OpenCL names of math functions --------===//
#include "CodeGen/MathSpellings.h"

#include "llvm/ADT/StringRef.h"

namespace gpumerge {

namespace {

/// CUDA's fast intrinsics and OpenCL's native_ functions: the same
/// trade of accuracy for speed.
struct Pair {
  const char *Cuda, *OpenCL;
};
const Pair Intrinsics[] = {
    {"__expf", "native_exp"},     {"__logf", "native_log"},
    {"__powf", "native_powr"},    {"__log2f", "native_log2"},
    {"__log10f", "native_log10"}, {"__exp10f", "native_exp10"},
    {"__sinf", "native_sin"},     {"__cosf", "native_cos"},
    {"__tanf", "native_tan"},     {"__fdividef", "native_divide"},
    {"__umul24", "mul24"},        {"__mul24", "mul24"},
};

} // namespace

Spelling openclSpelling(const std::string &Callee, const Type &Result) {
  // CUDA's float-suffixed math (sqrtf) is overloaded sqrt in OpenCL C.
  static const char *Suffixed[] = {
      "sqrtf",  "rsqrtf", "expf",  "logf",  "fabsf",  "sinf",  "cosf",
      "tanf",   "floorf", "ceilf", "tanhf", "exp2f",  "log2f", "roundf",
      "truncf", "powf",   "fminf", "fmaxf", "atan2f", "fmodf", "log10f"};
  for (const char *S : Suffixed)
    if (Callee == S)
      return {Callee.substr(0, Callee.size() - 1), ""};
  if (Callee == "fmaf")
    return {"fma", ""};
  if (Callee == "__saturatef")
    return {"clamp", ", 0.0f, 1.0f"};
  for (const Pair &P : Intrinsics)
    if (Callee == P.Cuda)
      return {P.OpenCL, ""};
  if ((Callee == "min" || Callee == "max") && Result.isFloating())
    return {"f" + Callee, ""};
  return {Callee, ""};
}

std::string cudaSpelling(const std::string &Callee, const Type &Result) {
  if (Callee == "mad")
    return Result.Scalar == ScalarKind::Float ? "fmaf" : "fma";
  if (Callee == "mul24")
    return Result.Scalar == ScalarKind::UInt ? "__umul24" : "__mul24";
  for (const Pair &P : Intrinsics)
    if (Callee == P.OpenCL)
      return P.Cuda;
  return Callee;
}

} // namespace gpumerge
