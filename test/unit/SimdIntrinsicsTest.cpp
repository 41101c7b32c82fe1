//===- SimdIntrinsicsTest.cpp - CUDA's SIMD intrinsics in OpenCL ----------===//
//
// Every SIMD intrinsic the OpenCL translation defines runs on the OpenCL
// device (PoCL here) over pairs of edge values (0, ±1, the lanes' extremes)
// and mixed words, against a lane-by-lane computation of what CUDA's manual
// and PTX's video instructions say it does.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/SimdIntrinsics.h"
#include "Runtime/OpenCLSession.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace gpumerge;

namespace {

const char *Unary[] = {"__vabs", "__vabsss", "__vneg", "__vnegss"};
const char *Binary[] = {
    "__vabsdiffs", "__vabsdiffu", "__vadd",    "__vsub",    "__vaddss",
    "__vaddus",    "__vsubss",    "__vsubus",  "__vavgs",   "__vavgu",
    "__vhaddu",    "__vmaxs",     "__vmaxu",   "__vmins",   "__vminu",
    "__vsads",     "__vsadu",     "__vcmpeq",  "__vcmpne",  "__vcmpges",
    "__vcmpgeu",   "__vcmpgts",   "__vcmpgtu", "__vcmples", "__vcmpleu",
    "__vcmplts",   "__vcmpltu",   "__vseteq",  "__vsetne",  "__vsetges",
    "__vsetgeu",   "__vsetgts",   "__vsetgtu", "__vsetles", "__vsetleu",
    "__vsetlts",   "__vsetltu"};

/// What \p Stem (`__vaddss`) of lanes \p Bits wide computes of a and b: each
/// lane on its own, as an exact integer, then packed back (or, for the sums
/// of absolute differences, summed).
std::uint32_t reference(llvm::StringRef Stem, unsigned Bits, std::uint32_t A,
                        std::uint32_t B) {
  const std::int64_t Mask = (std::int64_t(1) << Bits) - 1;
  const std::int64_t SMax = Mask >> 1, SMin = -SMax - 1;
  auto Unsigned = [&](std::uint32_t W, unsigned L) {
    return std::int64_t(W >> (L * Bits)) & Mask;
  };
  auto Signed = [&](std::uint32_t W, unsigned L) {
    std::int64_t U = Unsigned(W, L);
    return U > SMax ? U - (Mask + 1) : U;
  };
  auto Clamp = [](std::int64_t V, std::int64_t Lo, std::int64_t Hi) {
    return std::min(std::max(V, Lo), Hi);
  };
  auto Floor2 = [](std::int64_t V) { // V / 2, rounded down
    return V >= 0 ? V / 2 : -((-V + 1) / 2);
  };
  std::int64_t Sum = 0;
  std::uint32_t Out = 0;
  for (unsigned L = 0; L < 32 / Bits; ++L) {
    std::int64_t SA = Signed(A, L), SB = Signed(B, L);
    std::int64_t UA = Unsigned(A, L), UB = Unsigned(B, L);
    std::int64_t R = 0;
    std::string S = Stem.str();
    if (S == "__vabs")
      R = SA < 0 ? -SA : SA;
    else if (S == "__vabsss")
      R = std::min(SA < 0 ? -SA : SA, SMax);
    else if (S == "__vneg")
      R = -SA;
    else if (S == "__vnegss")
      R = Clamp(-SA, SMin, SMax);
    else if (S == "__vabsdiffs")
      R = SA > SB ? SA - SB : SB - SA;
    else if (S == "__vabsdiffu")
      R = UA > UB ? UA - UB : UB - UA;
    else if (S == "__vadd")
      R = UA + UB;
    else if (S == "__vsub")
      R = UA - UB;
    else if (S == "__vaddss")
      R = Clamp(SA + SB, SMin, SMax);
    else if (S == "__vaddus")
      R = std::min(UA + UB, Mask);
    else if (S == "__vsubss")
      R = Clamp(SA - SB, SMin, SMax);
    else if (S == "__vsubus")
      R = std::max(UA - UB, std::int64_t(0));
    else if (S == "__vavgs")
      R = Floor2(SA + SB + 1);
    else if (S == "__vavgu")
      R = (UA + UB + 1) / 2;
    else if (S == "__vhaddu")
      R = (UA + UB) / 2;
    else if (S == "__vmaxs")
      R = std::max(SA, SB);
    else if (S == "__vmaxu")
      R = std::max(UA, UB);
    else if (S == "__vmins")
      R = std::min(SA, SB);
    else if (S == "__vminu")
      R = std::min(UA, UB);
    else if (S == "__vsads")
      Sum += SA > SB ? SA - SB : SB - SA;
    else if (S == "__vsadu")
      Sum += UA > UB ? UA - UB : UB - UA;
    else {
      llvm::StringRef C = Stem.drop_front(6); // after __vcmp or __vset
      bool T = C == "eq"    ? UA == UB
               : C == "ne"  ? UA != UB
               : C == "ges" ? SA >= SB
               : C == "geu" ? UA >= UB
               : C == "gts" ? SA > SB
               : C == "gtu" ? UA > UB
               : C == "les" ? SA <= SB
               : C == "leu" ? UA <= UB
               : C == "lts" ? SA < SB
                            : UA < UB;
      R = T ? (Stem.startswith("__vcmp") ? Mask : 1) : 0;
    }
    Out |= std::uint32_t(R & Mask) << (L * Bits);
  }
  return Stem.startswith("__vsad") ? std::uint32_t(Sum) : Out;
}

std::vector<std::uint8_t> bytes(const std::vector<std::uint32_t> &V) {
  std::vector<std::uint8_t> B(V.size() * 4);
  std::memcpy(B.data(), V.data(), B.size());
  return B;
}

} // namespace

TEST(SimdIntrinsics, NamedOnlyForCudasIntrinsics) {
  EXPECT_EQ(openclSimdIntrinsicName("__vmaxs4"), "gpumerge_vmaxs4");
  EXPECT_EQ(openclSimdIntrinsicName("__vsetgtu2"), "gpumerge_vsetgtu2");
  EXPECT_FALSE(openclSimdIntrinsicName("__vmaxs3"));
  EXPECT_FALSE(openclSimdIntrinsicName("__vmax"));
  EXPECT_FALSE(openclSimdIntrinsicName("__viaddmax_s32"));
  EXPECT_FALSE(openclSimdIntrinsicName("vmaxs4"));
  EXPECT_EQ(openclSimdIntrinsicDefinition("__popc"), "");
}

TEST(SimdIntrinsics, EachComputesWhatCudaDoesLaneByLane) {
  auto S = OpenCLSession::create();
  if (!S) {
    std::string E = llvm::toString(S.takeError());
    if (E.find("no OpenCL platform found") == 0)
      GTEST_SKIP() << E;
    FAIL() << E;
  }
  // Edge lanes for bytes and halfwords, and mixed words.
  const std::vector<std::uint32_t> Values = {
      0x00000000u, 0xffffffffu, 0x7f7f7f7fu, 0x80808080u, 0x01010101u,
      0x7fff8000u, 0x80007fffu, 0x00ff7f80u, 0xfe01807fu, 0x12345678u,
      0x9abcdef0u, 0x7ffffffeu, 0x0000ffffu, 0xff00ff00u, 0x00010002u};
  std::vector<std::uint32_t> A, B;
  for (std::uint32_t X : Values)
    for (std::uint32_t Y : Values) {
      A.push_back(X);
      B.push_back(Y);
    }
  std::vector<std::string> Names;
  for (const char *Stem : Unary)
    for (const char *W : {"2", "4"})
      Names.push_back(std::string(Stem) + W);
  for (const char *Stem : Binary)
    for (const char *W : {"2", "4"})
      Names.push_back(std::string(Stem) + W);
  std::string Source;
  for (const std::string &N : Names) {
    std::string Def = openclSimdIntrinsicDefinition(N);
    ASSERT_FALSE(Def.empty()) << N;
    bool IsUnary =
        std::find_if(std::begin(Unary), std::end(Unary), [&](const char *U) {
          return N.substr(0, N.size() - 1) == U;
        }) != std::end(Unary);
    Source += Def + "\n__kernel void t" + N +
              "(__global const uint *a, __global const uint *b, "
              "__global uint *r) { size_t i = get_global_id(0); r[i] = " +
              *openclSimdIntrinsicName(N) +
              (IsUnary ? "(a[i]);" : "(a[i], b[i]);") + " }\n";
  }
  auto P = (*S)->buildProgram(Source, "");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto BA = (*S)->createBuffer(bytes(A));
  auto BB = (*S)->createBuffer(bytes(B));
  ASSERT_TRUE(BA && BB);
  NDRange R;
  R.Dims = 1;
  R.Global = {A.size(), 1, 1};
  for (const std::string &N : Names) {
    auto BR = (*S)->createBuffer(std::vector<std::uint8_t>(A.size() * 4));
    ASSERT_TRUE(bool(BR));
    ASSERT_FALSE(
        bool((*S)->launch(*P, "t" + N,
                          {KernelArg::buffer(*BA), KernelArg::buffer(*BB),
                           KernelArg::buffer(*BR)},
                          R)))
        << N;
    auto Out = (*S)->readBuffer(*BR);
    ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
    llvm::StringRef Name(N);
    unsigned Bits = Name.back() == '4' ? 8 : 16;
    for (size_t I = 0; I < A.size(); ++I) {
      std::uint32_t Got;
      std::memcpy(&Got, Out->data() + 4 * I, 4);
      ASSERT_EQ(Got, reference(Name.drop_back(), Bits, A[I], B[I]))
          << std::hex << N << "(0x" << A[I] << ", 0x" << B[I] << ")";
    }
  }
}
