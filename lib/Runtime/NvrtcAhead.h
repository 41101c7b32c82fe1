//===- NvrtcAhead.h - NVRTC compiles started ahead of need ------*- C++ -*-===//
//
// A --tune run on a CUDA device builds one program per candidate, and NVRTC
// takes most of a second for each (a whole emitted file), while the GPU
// waits. NVRTC needs no GPU and its calls may run on several threads at once
// (each on its own program), so a CudaSession told which programs will be
// built compiles them on worker threads while the input and the first
// candidates run; buildProgram then takes the result, waiting for it where
// it is not done yet, or compiling it at once where no worker has begun it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_NVRTCAHEAD_H
#define GPUMERGE_RUNTIME_NVRTCAHEAD_H

#include "Runtime/Nvrtc.h"

#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gpumerge {

/// One compile: Nvrtc::compile's source, options and kernels.
struct NvrtcRequest {
  std::string Source;
  std::vector<std::string> Options, Kernels;
  bool operator==(const NvrtcRequest &O) const {
    return Source == O.Source && Options == O.Options && Kernels == O.Kernels;
  }
};

class NvrtcAhead {
public:
  /// Compiles for compute capability \p Major.\p Minor with \p Compiler on
  /// \p Workers threads.
  NvrtcAhead(Nvrtc &Compiler, int Major, int Minor, unsigned Workers);
  /// Drops the compiles no worker began and waits for the others.
  ~NvrtcAhead();
  NvrtcAhead(const NvrtcAhead &) = delete;
  NvrtcAhead &operator=(const NvrtcAhead &) = delete;

  /// Queues \p R; workers take the queue in order.
  void add(NvrtcRequest R);
  /// The result of a compile added before (removed from here); none where
  /// \p R was not added.
  std::optional<llvm::Expected<NvrtcOutput>> take(const NvrtcRequest &R);

  /// Threads for compiling ahead on this machine: one per core but one (the
  /// calling thread builds and launches), at least one.
  static unsigned defaultWorkers();

private:
  struct Job {
    NvrtcRequest Request;
    enum class Stage { Queued, Running, Done } At = Stage::Queued;
    std::optional<NvrtcOutput> Output;
    std::string Error; ///< where the compile failed
  };
  /// Compiles \p J (claimed Running by the caller), with the lock released.
  void compile(Job &J, std::unique_lock<std::mutex> &Held);
  void work();

  Nvrtc &Compiler;
  int Major, Minor;
  std::mutex Lock;
  std::condition_variable Changed;
  std::list<Job> Jobs; ///< in the order added (a list: stable references)
  bool Stopping = false;
  std::vector<std::thread> Threads;
};

} // namespace gpumerge

#endif
