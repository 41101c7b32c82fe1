//===- Device.cpp - What --verify and --tune need of a device -------------===//
#include "Runtime/Device.h"

#include <algorithm>
#include <cstring>

namespace gpumerge {

namespace {
template <typename T> KernelArg scalarArg(T V) {
  KernelArg A;
  A.ArgKind = KernelArg::Kind::Scalar;
  A.Bytes.resize(sizeof(T));
  std::memcpy(A.Bytes.data(), &V, sizeof(T));
  return A;
}
} // namespace

KernelArg KernelArg::buffer(unsigned Id) {
  KernelArg A;
  A.ArgKind = Kind::Buffer;
  A.BufferId = Id;
  return A;
}
KernelArg KernelArg::i32(std::int32_t V) { return scalarArg(V); }
KernelArg KernelArg::u32(std::uint32_t V) { return scalarArg(V); }
KernelArg KernelArg::i64(std::int64_t V) { return scalarArg(V); }
KernelArg KernelArg::f32(float V) { return scalarArg(V); }
KernelArg KernelArg::f64(double V) { return scalarArg(V); }
KernelArg KernelArg::local(std::size_t Bytes) {
  KernelArg A;
  A.ArgKind = Kind::LocalMemory;
  A.LocalBytes = Bytes;
  return A;
}

const char *deviceKindName(DeviceKind K) {
  return K == DeviceKind::Cuda ? "cuda" : "opencl";
}

double KernelTimes::median() const {
  if (Ms.empty())
    return 0;
  std::vector<double> S = Ms;
  std::sort(S.begin(), S.end());
  size_t N = S.size();
  return N % 2 ? S[N / 2] : (S[N / 2 - 1] + S[N / 2]) / 2;
}

DeviceSession::~DeviceSession() = default;

void DeviceSession::expectBuilds(const std::vector<BuildRequest> &) {}

llvm::Error DeviceSession::setGlobal(unsigned, const std::string &Name,
                                     const std::vector<std::uint8_t> &) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "setGlobal(" + Name +
          "): this device's programs have no globals to "
          "fill");
}

llvm::Expected<KernelTimes>
DeviceSession::timeKernel(unsigned Program, const std::string &KernelName,
                          const std::vector<KernelArg> &Args,
                          const NDRange &Range, unsigned Warmup,
                          unsigned Runs) {
  // The first launch pays for loading the module, filling caches and (on
  // PoCL) compiling the work-group function: it is not kept.
  for (unsigned I = 0; I < Warmup; ++I)
    if (auto E = launch(Program, KernelName, Args, Range))
      return E;
  KernelTimes T;
  for (unsigned I = 0; I < Runs; ++I) {
    auto Ms = launchTimed(Program, KernelName, Args, Range);
    if (!Ms)
      return Ms.takeError();
    T.Ms.push_back(*Ms);
  }
  return T;
}

} // namespace gpumerge
