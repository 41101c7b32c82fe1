//===- HalfPrecisionTest.cpp - CUDA's 16-bit floats -----------------------===//
//
// The host's conversions against IEEE binary16's and bfloat16's known
// encodings; the OpenCL translation's rounding against PoCL's own
// vstore_half_rte and the host's; and a __half kernel, lowered and
// translated, run on PoCL against the host computing what CUDA does:
// every operation rounded to the type (a translation that forgot one
// rounding computes in float and differs).
//
//===----------------------------------------------------------------------===//
#include "IR/HalfPrecision.h"
#include "CodeGen/Emitter.h"
#include "Runtime/OpenCLSession.h"

#include "TestKernels.h"

#include <cmath>
#include <cstring>

using namespace gpumerge;

namespace {

float bitsAsFloat(std::uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

/// Floats that round in every way: ties to even and away, the subnormal
/// range, overflow, signed zeros, and a spread of ordinary values.
std::vector<float> edgeFloats() {
  std::vector<float> V = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          1.0f + std::ldexp(1.0f, -11),     // half tie, to even
                          1.0f + 3 * std::ldexp(1.0f, -11), // tie, up
                          1.0f + std::ldexp(1.0f, -8),      // bfloat16 tie
                          1.0f + 3 * std::ldexp(1.0f, -8),
                          65504.0f,
                          65519.0f,
                          65520.0f,
                          1e6f,
                          -1e6f,
                          std::ldexp(1.0f, -14),
                          std::ldexp(1.0f, -24),
                          std::ldexp(1.0f, -25),
                          3 * std::ldexp(1.0f, -26),
                          std::ldexp(1.0f, -26),
                          5 * std::ldexp(1.0f, -25),
                          0.1f,
                          1.0f / 3,
                          3.0e38f,
                          bitsAsFloat(0x7f800000u),
                          bitsAsFloat(0xff800000u)};
  std::uint32_t State = 12345;
  for (int I = 0; I < 400; ++I) {
    State = State * 1664525u + 1013904223u;
    // Exponents around the half range, every mantissa pattern.
    std::uint32_t Exponent = 100 + (State >> 8) % 48;
    V.push_back(bitsAsFloat((State & 0x80000000u) | (Exponent << 23) |
                            ((State * 2654435761u) & 0x7fffffu)));
  }
  return V;
}

std::vector<std::uint8_t> floatBytes(const std::vector<float> &V) {
  std::vector<std::uint8_t> B(V.size() * 4);
  std::memcpy(B.data(), V.data(), B.size());
  return B;
}

std::unique_ptr<OpenCLSession> session() {
  auto S = OpenCLSession::create();
  if (!S) {
    ADD_FAILURE() << llvm::toString(S.takeError());
    return nullptr;
  }
  return std::move(*S);
}

} // namespace

TEST(HalfPrecision, KnownEncodings) {
  EXPECT_EQ(halfBits(1.0f), 0x3c00);
  EXPECT_EQ(halfBits(-2.0f), 0xc000);
  EXPECT_EQ(halfBits(65504.0f), 0x7bff);
  EXPECT_EQ(halfBits(65519.0f), 0x7bff);
  EXPECT_EQ(halfBits(65520.0f), 0x7c00); // rounds to infinity
  EXPECT_EQ(halfBits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(halfBits(std::ldexp(1.0f, -25)), 0x0000); // tie, to even
  EXPECT_EQ(halfBits(3 * std::ldexp(1.0f, -26)), 0x0001);
  EXPECT_EQ(halfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(halfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(halfBits(0.1f), 0x2e66);
  EXPECT_EQ(bfloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(bfloat16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(bfloat16Bits(0.1f), 0x3dcd);
  EXPECT_TRUE(std::isnan(halfValue(halfBits(std::nanf("")))));
  EXPECT_TRUE(std::isnan(bfloat16Value(bfloat16Bits(std::nanf("")))));
}

TEST(HalfPrecision, EveryHalfConvertsBackToItself) {
  for (unsigned H = 0; H < 0x10000; ++H) {
    if ((H & 0x7c00) == 0x7c00 && (H & 0x3ff)) // NaN
      continue;
    ASSERT_EQ(halfBits(halfValue(std::uint16_t(H))), H) << std::hex << H;
    ASSERT_EQ(bfloat16Bits(bfloat16Value(std::uint16_t(H))), H)
        << std::hex << H;
  }
}

TEST(HalfPrecision, OpenCLRoundsAsTheHostAndPoCLDo) {
  auto S = session();
  ASSERT_TRUE(S);
  std::vector<float> In = edgeFloats();
  std::string Source = openclHalfPrecisionDefinitions(ScalarKind::Half) +
                       openclHalfPrecisionDefinitions(ScalarKind::BFloat16) +
                       "__kernel void t(__global const float *x, __global "
                       "float *h, __global float *b, __global half *s) {\n"
                       "  size_t i = get_global_id(0);\n"
                       "  h[i] = gpumerge_round_half(x[i]);\n"
                       "  b[i] = gpumerge_bf16_to_float("
                       "gpumerge_float_to_bf16(x[i]));\n"
                       "  vstore_half_rte(x[i], i, s);\n"
                       "}\n";
  auto P = S->buildProgram(Source, "");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto X = S->createBuffer(floatBytes(In));
  auto H = S->createBuffer(std::vector<std::uint8_t>(In.size() * 4));
  auto B = S->createBuffer(std::vector<std::uint8_t>(In.size() * 4));
  auto Stored = S->createBuffer(std::vector<std::uint8_t>(In.size() * 2));
  ASSERT_TRUE(X && H && B && Stored);
  NDRange R;
  R.Dims = 1;
  R.Global = {In.size(), 1, 1};
  ASSERT_FALSE(
      bool(S->launch(*P, "t",
                     {KernelArg::buffer(*X), KernelArg::buffer(*H),
                      KernelArg::buffer(*B), KernelArg::buffer(*Stored)},
                     R)));
  auto HB = S->readBuffer(*H), BB = S->readBuffer(*B),
       SB = S->readBuffer(*Stored);
  ASSERT_TRUE(HB && BB && SB);
  for (size_t I = 0; I < In.size(); ++I) {
    float GotHalf, GotBf16;
    std::uint16_t PoclBits;
    std::memcpy(&GotHalf, HB->data() + 4 * I, 4);
    std::memcpy(&GotBf16, BB->data() + 4 * I, 4);
    std::memcpy(&PoclBits, SB->data() + 2 * I, 2);
    EXPECT_EQ(halfBits(In[I]), PoclBits) << In[I];
    EXPECT_EQ(halfBits(GotHalf), halfBits(In[I])) << In[I];
    EXPECT_EQ(bfloat16Bits(GotBf16), bfloat16Bits(In[I])) << In[I];
  }
}

TEST(HalfPrecision, TranslatedKernelRoundsEachOperation) {
  // z = x * y + x * 3, each product and the sum rounded to half; w the
  // same in bfloat16 through its intrinsics.
  auto M = parseText(R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void k(const __half *x, const __half *y, __half *z,
                  const __nv_bfloat16 *u, __nv_bfloat16 *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half t = x[i] * y[i];
    t += x[i] * __float2half(3.0f);
    z[i] = t;
    w[i] = __hmul(u[i], u[i]) + __float2bfloat16(__bfloat162float(u[i]) / 3);
  }
}
)");
  ASSERT_TRUE(M);
  EmittedModule E = llvm::cantFail(emitModule(*M, Language::OpenCL));
  auto S = session();
  ASSERT_TRUE(S);
  auto P = S->buildProgram(E.Text, "");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError()) << E.Text;
  const int N = 333;
  std::vector<std::uint8_t> X(2 * N), Y(2 * N), U(2 * N);
  std::vector<float> XV(N), YV(N), UV(N);
  for (int I = 0; I < N; ++I) {
    // Values whose products and sums need rounding: not multiples of
    // small powers of two, of mixed signs and magnitudes.
    XV[I] = halfValue(halfBits(std::sin(I * 0.37f) * 7.3f));
    YV[I] = halfValue(halfBits(std::cos(I * 1.13f) * 0.91f));
    UV[I] = bfloat16Value(bfloat16Bits(std::sin(I * 0.71f) * 3.1f));
    std::uint16_t XB = halfBits(XV[I]), YB = halfBits(YV[I]),
                  UB = bfloat16Bits(UV[I]);
    std::memcpy(&X[2 * I], &XB, 2);
    std::memcpy(&Y[2 * I], &YB, 2);
    std::memcpy(&U[2 * I], &UB, 2);
  }
  auto BX = S->createBuffer(X), BY = S->createBuffer(Y),
       BZ = S->createBuffer(std::vector<std::uint8_t>(2 * N)),
       BU = S->createBuffer(U),
       BW = S->createBuffer(std::vector<std::uint8_t>(2 * N));
  ASSERT_TRUE(BX && BY && BZ && BU && BW);
  NDRange R;
  R.Dims = 1;
  R.Global = {N, 1, 1};
  ASSERT_FALSE(bool(S->launch(*P, "k",
                              {KernelArg::buffer(*BX), KernelArg::buffer(*BY),
                               KernelArg::buffer(*BZ), KernelArg::buffer(*BU),
                               KernelArg::buffer(*BW), KernelArg::i32(N)},
                              R)));
  auto Z = S->readBuffer(*BZ), W = S->readBuffer(*BW);
  ASSERT_TRUE(Z && W);
  auto H = [](float F) { return roundToHalfPrecision(ScalarKind::Half, F); };
  auto B = [](float F) {
    return roundToHalfPrecision(ScalarKind::BFloat16, F);
  };
  int Rounded = 0; // elements where a missing rounding would show
  for (int I = 0; I < N; ++I) {
    float Want = H(H(XV[I] * YV[I]) + H(XV[I] * 3.0f));
    float WantW = B(B(UV[I] * UV[I]) + B(UV[I] / 3));
    std::uint16_t GotZ, GotW;
    std::memcpy(&GotZ, Z->data() + 2 * I, 2);
    std::memcpy(&GotW, W->data() + 2 * I, 2);
    EXPECT_EQ(GotZ, halfBits(Want)) << I;
    EXPECT_EQ(GotW, bfloat16Bits(WantW)) << I;
    Rounded += halfBits(XV[I] * YV[I] + XV[I] * 3.0f) != halfBits(Want);
  }
  EXPECT_GT(Rounded, 0) << "the inputs never tell one rounding from two";
}
