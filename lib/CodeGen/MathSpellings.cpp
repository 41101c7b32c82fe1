//===- MathSpellings.cpp - CUDA and OpenCL names of math functions --------===//
#include "CodeGen/MathSpellings.h"
#include "CodeGen/SimdIntrinsics.h"

#include "llvm/ADT/StringRef.h"

#include <set>

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

/// CUDA's integer intrinsics that OpenCL C has by another name, one way
/// (OpenCL's popcount of a long is no __popc). CUDA's bit counts are int
/// and OpenCL's unsigned: cast, so arithmetic on them stays signed
/// (`__popc(a) - __popc(b) < 0`). Same results: clz(0) is the width in
/// both, hadd and rhadd round as __hadd and __rhadd do.
const Pair IntegerIntrinsics[] = {
    {"__popc", "(int)popcount"}, {"__popcll", "(int)popcount"},
    {"__clz", "(int)clz"},       {"__clzll", "(int)clz"},
    {"__mulhi", "mul_hi"},       {"__umulhi", "mul_hi"},
    {"__mul64hi", "mul_hi"},     {"__umul64hi", "mul_hi"},
    {"__hadd", "hadd"},          {"__uhadd", "hadd"},
    {"__rhadd", "rhadd"},        {"__urhadd", "rhadd"},
};

/// cuda_fp16.h's and cuda_bf16.h's functions of a 16-bit float, which the
/// translation computes as a float (OpenCLEmitter.h): OpenCL's float
/// function, its result rounded to the type. Exact for the first row
/// (sqrt's correctly rounded float, rounded again, is the correctly
/// rounded half); CUDA's others are approximations themselves, within an
/// ulp or two of the half (verify's 16, Verify.h), and __hfma's product
/// and sum round twice here, once in CUDA, which ties alone tell apart.
const Pair HalfPrecision[] = {
    {"hsqrt", "sqrt"},   {"__habs", "fabs"},  {"__hmax", "fmax"},
    {"__hmin", "fmin"},  {"hfloor", "floor"}, {"hceil", "ceil"},
    {"htrunc", "trunc"}, {"hrint", "rint"},   {"hexp", "exp"},
    {"hexp2", "exp2"},   {"hexp10", "exp10"}, {"hlog", "log"},
    {"hlog2", "log2"},   {"hlog10", "log10"}, {"hsin", "sin"},
    {"hcos", "cos"},     {"hrsqrt", "rsqrt"}, {"htanh", "tanh"},
    {"__hfma", "fma"}};

} // namespace

Spelling openclSpelling(const std::string &Callee, const Type &Result) {
  if (Result.isHalfPrecision())
    for (const Pair &P : HalfPrecision)
      if (Callee == P.Cuda)
        return {P.OpenCL, ""};
  // CUDA's float-suffixed math (sqrtf) is overloaded sqrt in OpenCL C.
  // (Every such function that OpenCL C 1.2 has; langevin's coshf and
  // sinhf were missing, and its translation did not build.)
  static const char *Suffixed[] = {
      "sqrtf",   "rsqrtf",    "expf",   "logf",   "fabsf",      "sinf",
      "cosf",    "tanf",      "floorf", "ceilf",  "tanhf",      "exp2f",
      "log2f",   "roundf",    "truncf", "powf",   "fminf",      "fmaxf",
      "atan2f",  "fmodf",     "log10f", "acosf",  "asinf",      "atanf",
      "acoshf",  "asinhf",    "atanhf", "coshf",  "sinhf",      "cbrtf",
      "erff",    "erfcf",     "expm1f", "log1pf", "hypotf",     "lgammaf",
      "tgammaf", "copysignf", "fdimf",  "rintf",  "exp10f",     "logbf",
      "ilogbf",  "ldexpf",    "cospif", "sinpif", "nextafterf", "remainderf"};
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
  for (const Pair &P : IntegerIntrinsics)
    if (Callee == P.Cuda)
      return {P.OpenCL, ""};
  if ((Callee == "min" || Callee == "max") && Result.isFloating())
    return {"f" + Callee, ""};
  if (std::optional<std::string> Simd = openclSimdIntrinsicName(Callee))
    return {*Simd, ""};
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

bool isOpenCLBuiltinFunction(const std::string &Name) {
  static const std::set<std::string> Builtins = {
      // math
      "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2",
      "atanh", "atanpi", "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh",
      "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
      "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp", "hypot",
      "ilogb", "ldexp", "lgamma", "lgamma_r", "log", "log2", "log10", "log1p",
      "logb", "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow",
      "pown", "powr", "remainder", "remquo", "rint", "rootn", "round", "rsqrt",
      "sin", "sincos", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi",
      "tgamma", "trunc",
      // integer
      "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clz", "ctz", "mad_hi",
      "mad_sat", "max", "min", "mul_hi", "rotate", "sub_sat", "upsample",
      "popcount", "mad24", "mul24",
      // common
      "clamp", "degrees", "mix", "radians", "step", "smoothstep", "sign",
      // geometric
      "cross", "dot", "distance", "length", "normalize", "fast_distance",
      "fast_length", "fast_normalize",
      // relational
      "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless",
      "islessequal", "islessgreater", "isfinite", "isinf", "isnan", "isnormal",
      "isordered", "isunordered", "signbit", "any", "all", "bitselect",
      "select",
      // synchronization, work-items, memory
      "barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
      "get_work_dim", "get_global_size", "get_global_id", "get_local_size",
      "get_local_id", "get_num_groups", "get_group_id", "get_global_offset",
      "prefetch", "wait_group_events", "async_work_group_copy", "printf",
      "shuffle", "shuffle2", "vec_step"};
  return Builtins.count(Name) > 0;
}

} // namespace gpumerge
