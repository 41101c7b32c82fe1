//===- Isolate.h - Run device code where it cannot hurt us ------*- C++ -*-===//
//
// --verify runs the user's kernels (and ours) on PoCL, which executes them in
// the calling process: a kernel that writes out of bounds would corrupt
// gpumerge's heap, one that loops forever would hang it. runIsolated runs
// such work in a forked child process with a time limit; only the child's
// result, as text, comes back through a pipe. A child that crashes, is killed
// or overruns its time gives an error naming what happened, and gpumerge goes
// on with the next kernel.
//
// The child starts as a copy of this process and must not rely on other
// threads (fork copies only the calling one): the work given here creates its
// own OpenCL session and touches nothing shared.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_ISOLATE_H
#define GPUMERGE_RUNTIME_ISOLATE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <mutex>
#include <string>

namespace gpumerge {

/// Seconds a verify run may take before it counts as a hang: the
/// GPUMERGE_VERIFY_TIMEOUT environment variable, else 120.
unsigned verifyTimeoutSeconds();

/// Whether an emitted kernel stopped by a \p TimeoutSeconds limit that also
/// covered the input kernel's \p ReferenceSeconds run is too slow to compare
/// rather than hung: it had less than three times the input's time (and a
/// second) left. A hang had that much and more.
bool tooSlowToCallAHang(unsigned TimeoutSeconds, double ReferenceSeconds);

/// What the work in the child sends: each call reaches the parent at once,
/// so what was sent before a crash is still read.
using SendFn = llvm::function_ref<void(llvm::StringRef)>;

/// Held while runIsolated flushes llvm::outs() and llvm::errs() and forks. A
/// thread that writes those streams while another thread may verify (a batch
/// under -j) holds it too: the flush would race with the write, and a buffer
/// half written at the fork would be copied into the child.
std::mutex &streamsAndForkMutex();

/// Called with each whole line the child sends, as it comes; where it
/// returns true, the time limit starts again from then.
using LineFn = llvm::function_ref<bool(llvm::StringRef)>;

/// Runs \p Work in a child process; \p Output receives everything it sent,
/// and \p OnLine (where given) each line of it as it comes (a run of several
/// --tune candidates gives each its own time limit).
/// Errors: the child was killed by a signal ("it crashed with signal 11
/// (Segmentation fault)"), ran longer than \p TimeoutSeconds (it is killed),
/// exited with a failure, or the process could not be created. Calls from
/// several threads run one at a time: the child is forked without exec, so
/// it is made while no other verify child is being set up, and at most one
/// OpenCL runtime runs at once.
llvm::Error runIsolated(llvm::function_ref<void(SendFn)> Work,
                        unsigned TimeoutSeconds, std::string &Output,
                        LineFn OnLine = nullptr);

} // namespace gpumerge

#endif
