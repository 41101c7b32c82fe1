//===- VerifyInputs.cpp - The pseudo-random inputs verify runs on ---------===//
#include "Runtime/VerifyInputs.h"
#include "IR/HalfPrecision.h"

#include <cstring>

namespace gpumerge {

namespace {
/// splitmix64: a small, well-mixed generator, so runs are repeatable.
struct Random {
  std::uint64_t State;
  std::uint64_t next() {
    std::uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

template <typename T> void put(std::vector<std::uint8_t> &B, size_t I, T V) {
  std::memcpy(B.data() + I * sizeof(T), &V, sizeof(T));
}
unsigned scalarBytes(ScalarKind K) { return Type::scalar(K).elementBytes(); }

/// Pseudo-random contents for an array of \p Count elements of \p T:
/// floats in [-1, 1), integers in [-8, 8] (in [0, 16] where \p FromZero:
/// indices). Each element takes one draw either way.
std::vector<std::uint8_t> randomContents(const Type &T, std::int64_t Count,
                                         Random &R, bool FromZero = false) {
  const int Low = FromZero ? 0 : -8;
  size_t N = size_t(Count) * T.lanes();
  unsigned Bytes = scalarBytes(T.Scalar);
  std::vector<std::uint8_t> B(N * Bytes);
  for (size_t I = 0; I < N; ++I) {
    double U = R.uniform();
    switch (T.Scalar) {
    case ScalarKind::Float:
      put<float>(B, I, float(2 * U - 1));
      break;
    case ScalarKind::Double:
      put<double>(B, I, 2 * U - 1);
      break;
    case ScalarKind::Half:
      put<std::uint16_t>(B, I, halfBits(float(2 * U - 1)));
      break;
    case ScalarKind::BFloat16:
      put<std::uint16_t>(B, I, bfloat16Bits(float(2 * U - 1)));
      break;
    case ScalarKind::Int:
      put<std::int32_t>(B, I, std::int32_t(U * 17) + Low);
      break;
    case ScalarKind::UInt:
      put<std::uint32_t>(B, I, std::uint32_t(U * 17));
      break;
    case ScalarKind::Long:
      put<std::int64_t>(B, I, std::int64_t(U * 17) + Low);
      break;
    case ScalarKind::ULong:
      put<std::uint64_t>(B, I, std::uint64_t(U * 17));
      break;
    default:
      for (unsigned K = 0; K < Bytes; ++K)
        B[I * Bytes + K] = std::uint8_t(U * 7);
    }
  }
  return B;
}

/// 0 .. Count - 1 in a pseudo-random order, as elements of the integer type
/// \p T (an array that steers writes: no two threads then write one
/// element). One draw per element, as randomContents; other element types
/// fall back to it.
std::vector<std::uint8_t> permutedIndices(const Type &T, std::int64_t Count,
                                          Random &R) {
  if (T.lanes() != 1 ||
      !(T.Scalar == ScalarKind::Int || T.Scalar == ScalarKind::UInt ||
        T.Scalar == ScalarKind::Long || T.Scalar == ScalarKind::ULong))
    return randomContents(T, Count, R, /*FromZero=*/true);
  std::vector<std::int64_t> Order(size_t(std::max<std::int64_t>(Count, 0)));
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = std::int64_t(I);
  for (size_t I = Order.size(); I > 1; --I)
    std::swap(Order[I - 1], Order[R.next() % I]);
  if (!Order.empty())
    R.next();
  std::vector<std::uint8_t> B(Order.size() * scalarBytes(T.Scalar));
  for (size_t I = 0; I < Order.size(); ++I)
    if (scalarBytes(T.Scalar) == 4)
      put<std::int32_t>(B, I, std::int32_t(Order[I]));
    else
      put<std::int64_t>(B, I, Order[I]);
  return B;
}

} // namespace

std::shared_ptr<const VerifyInputs>
makeVerifyInputs(const std::vector<Param> &Params,
                 const std::map<std::string, std::int64_t> &Extents,
                 const InputKinds &Kinds, std::uint64_t Seed) {
  Random R{Seed};
  VerifyInputs Inputs;
  for (const Param &P : Params) {
    if (!P.Ty.IsPointer) {
      Inputs.emplace_back();
      continue;
    }
    auto It = Extents.find(P.Name);
    std::int64_t N = It == Extents.end() ? 0 : It->second;
    Inputs.push_back(Kinds.Scatters.count(P.Name)
                         ? permutedIndices(P.Ty.element(), N, R)
                         : randomContents(P.Ty.element(), N, R,
                                          Kinds.Indices.count(P.Name) > 0));
  }
  return std::make_shared<const VerifyInputs>(std::move(Inputs));
}

std::vector<double> verifyScalars(const std::vector<Param> &Params,
                                  const SizeBindings &Sizes) {
  std::vector<double> Scalars;
  unsigned FloatParam = 0;
  for (const Param &P : Params) {
    if (P.Ty.IsPointer)
      Scalars.push_back(0);
    else if (P.Ty.isInteger())
      Scalars.push_back(double(Sizes.count(P.Name) ? Sizes.at(P.Name) : 0));
    else // alpha, beta, ...: distinct values that are not 0 or 1.
      Scalars.push_back(1.25 + 0.5 * FloatParam++);
  }
  return Scalars;
}

} // namespace gpumerge
