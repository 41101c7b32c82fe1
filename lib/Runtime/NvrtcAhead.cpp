//===- NvrtcAhead.cpp - NVRTC compiles started before they are needed -----===//
#include "Runtime/NvrtcAhead.h"

#include <algorithm>

namespace gpumerge {

NvrtcAhead::NvrtcAhead(Nvrtc &Compiler, int Major, int Minor, unsigned Workers)
    : Compiler(Compiler), Major(Major), Minor(Minor) {
  for (unsigned I = 0; I < std::max(1u, Workers); ++I)
    Threads.emplace_back([this] { work(); });
}

NvrtcAhead::~NvrtcAhead() {
  {
    std::lock_guard<std::mutex> G(Lock);
    Stopping = true;
  }
  Changed.notify_all();
  for (std::thread &T : Threads)
    T.join();
}

unsigned NvrtcAhead::defaultWorkers() {
  unsigned Cores = std::thread::hardware_concurrency();
  return Cores > 1 ? Cores - 1 : 1;
}

void NvrtcAhead::add(NvrtcRequest R) {
  {
    std::lock_guard<std::mutex> G(Lock);
    Jobs.emplace_back();
    Jobs.back().Request = std::move(R);
  }
  Changed.notify_all();
}

void NvrtcAhead::compile(Job &J, std::unique_lock<std::mutex> &Held) {
  Held.unlock();
  auto Out = Compiler.compile(J.Request.Source, "gpumerge.cu", Major, Minor,
                              J.Request.Options, J.Request.Kernels);
  Held.lock();
  if (Out)
    J.Output = std::move(*Out);
  else
    J.Error = llvm::toString(Out.takeError());
  J.At = Job::Stage::Done;
  Changed.notify_all();
}

void NvrtcAhead::work() {
  std::unique_lock<std::mutex> Held(Lock);
  for (;;) {
    auto Next = std::find_if(Jobs.begin(), Jobs.end(), [](const Job &J) {
      return J.At == Job::Stage::Queued;
    });
    if (Stopping)
      return;
    if (Next == Jobs.end()) {
      Changed.wait(Held);
      continue;
    }
    Next->At = Job::Stage::Running;
    compile(*Next, Held);
  }
}

std::optional<llvm::Expected<NvrtcOutput>>
NvrtcAhead::take(const NvrtcRequest &R) {
  std::unique_lock<std::mutex> Held(Lock);
  auto It = std::find_if(Jobs.begin(), Jobs.end(),
                         [&](const Job &J) { return J.Request == R; });
  if (It == Jobs.end())
    return std::nullopt;
  // Not begun: compiled here at once rather than after the queue before it.
  if (It->At == Job::Stage::Queued) {
    It->At = Job::Stage::Running;
    compile(*It, Held);
  }
  Changed.wait(Held, [&] { return It->At == Job::Stage::Done; });
  std::optional<llvm::Expected<NvrtcOutput>> Result;
  if (It->Output)
    Result.emplace(std::move(*It->Output));
  else
    Result.emplace(
        llvm::createStringError(llvm::inconvertibleErrorCode(), It->Error));
  Jobs.erase(It);
  return Result;
}

} // namespace gpumerge
