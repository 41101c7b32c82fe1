//===- HalfPrecision.cpp - 16-bit floats on the host ----------------------===//
#include "IR/HalfPrecision.h"

#include <cstring>

namespace gpumerge {

static std::uint32_t bitsOf(float F) {
  std::uint32_t U;
  std::memcpy(&U, &F, sizeof U);
  return U;
}

static float floatOf(std::uint32_t U) {
  float F;
  std::memcpy(&F, &U, sizeof F);
  return F;
}

std::uint16_t halfBits(float F) {
  std::uint32_t U = bitsOf(F);
  std::uint16_t Sign = std::uint16_t((U >> 16) & 0x8000u);
  std::uint32_t Abs = U & 0x7fffffffu;
  if (Abs > 0x7f800000u) // NaN: a quiet one, its top payload bits kept
    return Sign | 0x7e00u | std::uint16_t((Abs >> 13) & 0x1ffu);
  if (Abs >= 0x477ff000u) // 65520 and up round to infinity
    return Sign | 0x7c00u;
  if (Abs < 0x38800000u) { // below 2^-14: a subnormal half (or zero)
    if (Abs < 0x33000000u) // at most 2^-25: rounds to zero
      return Sign;
    std::uint32_t Mantissa = (Abs & 0x7fffffu) | 0x800000u;
    // Mantissa counts units of 2^(exponent - 150), the half's 2^-24.
    unsigned Shift = 126 - (Abs >> 23);
    std::uint32_t Kept = Mantissa >> Shift;
    std::uint32_t Rest = Mantissa & ((1u << Shift) - 1);
    std::uint32_t Half = 1u << (Shift - 1);
    if (Rest > Half || (Rest == Half && (Kept & 1)))
      ++Kept;
    return Sign | std::uint16_t(Kept);
  }
  // A normal half: rebias the exponent, round the 13 bits dropped.
  std::uint32_t H = ((Abs >> 13) - ((127 - 15) << 10));
  std::uint32_t Rest = Abs & 0x1fffu;
  if (Rest > 0x1000u || (Rest == 0x1000u && (H & 1)))
    ++H; // a carry into the exponent is right, up to infinity
  return Sign | std::uint16_t(H);
}

float halfValue(std::uint16_t Bits) {
  std::uint32_t Sign = std::uint32_t(Bits & 0x8000u) << 16;
  std::uint32_t Exponent = (Bits >> 10) & 0x1fu;
  std::uint32_t Mantissa = Bits & 0x3ffu;
  if (Exponent == 0x1f) // infinity, NaN
    return floatOf(Sign | 0x7f800000u | (Mantissa << 13));
  if (Exponent == 0) { // zero, subnormal: Mantissa * 2^-24
    float V = float(Mantissa) * floatOf(0x33800000u);
    return Sign ? -V : V;
  }
  return floatOf(Sign | ((Exponent + 127 - 15) << 23) | (Mantissa << 13));
}

std::uint16_t bfloat16Bits(float F) {
  std::uint32_t U = bitsOf(F);
  if ((U & 0x7fffffffu) > 0x7f800000u) // NaN: stays one
    return std::uint16_t((U >> 16) | 0x40u);
  U += 0x7fffu + ((U >> 16) & 1u);
  return std::uint16_t(U >> 16);
}

float bfloat16Value(std::uint16_t Bits) {
  return floatOf(std::uint32_t(Bits) << 16);
}

float roundToHalfPrecision(ScalarKind K, float F) {
  return K == ScalarKind::Half ? halfValue(halfBits(F))
                               : bfloat16Value(bfloat16Bits(F));
}

std::string openclHalfPrecisionDefinitions(ScalarKind K) {
  if (K == ScalarKind::Half)
    return "// CUDA's __half, computed as float and rounded after each\n"
           "// operation (vstore_half_rte rounds to nearest even).\n"
           "float gpumerge_round_half(float x) {\n"
           "  ushort h;\n"
           "  vstore_half_rte(x, 0, (half *)&h);\n"
           "  return vload_half(0, (const half *)&h);\n"
           "}\n";
  return "// CUDA's __nv_bfloat16, computed as float and rounded after each\n"
         "// operation to nearest even; kept as its bits (ushort).\n"
         "float gpumerge_round_bf16(float x) {\n"
         "  uint u = as_uint(x);\n"
         "  if ((u & 0x7fffffffu) > 0x7f800000u)\n"
         "    return x;\n"
         "  return as_float((u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u);\n"
         "}\n"
         "float gpumerge_bf16_to_float(ushort b) {\n"
         "  return as_float((uint)b << 16);\n"
         "}\n"
         "ushort gpumerge_float_to_bf16(float x) {\n"
         "  return (ushort)(as_uint(gpumerge_round_bf16(x)) >> 16);\n"
         "}\n";
}

} // namespace gpumerge
