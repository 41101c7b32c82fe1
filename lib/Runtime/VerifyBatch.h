//===- VerifyBatch.h - Prepared verify runs, run in a child -----*- C++ -*-===//
//
// Verify decides a run in gpumerge's process (a PreparedRun: the result so
// far and the DeviceRun to make) and runs it in a child process, where a
// kernel that crashes or hangs costs that run alone. A batch of runs that
// share their reference (--tune's candidates of one kernel at one size) runs
// in one child, the input's kernels once for all; where the child ends at a
// candidate (it crashed, hung, or its launch failed), the rest go on in a
// new one. This unit reads what the child says, line by line, and turns
// each candidate's end into its result.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_VERIFYBATCH_H
#define GPUMERGE_RUNTIME_VERIFYBATCH_H

#include "Runtime/DeviceRun.h"
#include "Runtime/Verify.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <set>
#include <string>

namespace gpumerge {

/// A verify run as decided in this process: the result so far and, where
/// kernels are to run, what runs on the device.
struct PreparedRun {
  VerifyResult Result;
  std::optional<DeviceRun> Run; ///< none: Result is final
  /// The functions an OpenCL run's programs hold (callClosure).
  std::set<std::string> Reached;
  double InputSeconds = 0; ///< making the inputs (0: \p Like's were taken)
};

/// Runs \p Batch, whose runs share their reference (sameReference), on the
/// device in a child process, the input's kernels once for all; \p Done
/// receives each run's result by its index, in order, as it comes. Where
/// the child ends at a candidate (it crashed, hung, or its launch failed,
/// which may leave a CUDA context unusable), the rest run in a new one.
/// \p InputBuildFailed says whether the input's build failed there.
void runPrepared(
    const Module &M, llvm::ArrayRef<PreparedRun *> Batch,
    const VerifyOptions &Opts, bool &InputBuildFailed,
    llvm::function_ref<void(size_t, llvm::Expected<VerifyResult>)> Done);

} // namespace gpumerge

#endif
