//===- HalfPrecision.h - 16-bit floats on the host --------------*- C++ -*-===//
//
// CUDA's __half (IEEE binary16) and __nv_bfloat16 (the top half of a float)
// as the host sees them: bits converted to and from float, rounding to
// nearest even as __float2half and __float2bfloat16 do. The verifier fills
// and compares 16-bit buffers with them; the OpenCL translation, which
// computes these types as floats, spells the same rounding
// (openclHalfPrecisionDefinitions).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_HALFPRECISION_H
#define GPUMERGE_IR_HALFPRECISION_H

#include "IR/Type.h"

#include <cstdint>
#include <string>

namespace gpumerge {

std::uint16_t halfBits(float F);
float halfValue(std::uint16_t Bits);
std::uint16_t bfloat16Bits(float F);
float bfloat16Value(std::uint16_t Bits);

/// \p F rounded to 16-bit type \p K (Half or BFloat16), as a float.
float roundToHalfPrecision(ScalarKind K, float F);

/// The OpenCL C definitions that a translation computing 16-bit type \p K
/// as floats needs: gpumerge_round_half (or _bf16) rounds a float to the
/// type; for bfloat16, which OpenCL cannot load, the conversions from and
/// to its bits (gpumerge_bf16_to_float, gpumerge_float_to_bf16). Half is
/// loaded and stored with vload_half and vstore_half_rte.
std::string openclHalfPrecisionDefinitions(ScalarKind K);

/// The name of the OpenCL function rounding a float to \p K.
inline const char *openclRoundingFunction(ScalarKind K) {
  return K == ScalarKind::Half ? "gpumerge_round_half" : "gpumerge_round_bf16";
}

} // namespace gpumerge

#endif
