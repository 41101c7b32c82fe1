//===- Batch.h - gpumerge over a tree of files ------------------*- C++ -*-===//
//
// `gpumerge --target=h100 --out-dir=opt src/` (or `-p build/`) runs the
// per-file pipeline (runFile) over every file BatchInputs takes, on -j
// workers (llvm::ThreadPool), and writes:
//   - each file's warnings and "wrote" lines in the files' sorted order, so a
//     run at -j 8 prints what -j 1 prints (a progress line on a terminal);
//   - at the end a summary table on stderr (BatchSummary.h), and with
//     --report=json the files' report objects wrapped in one object;
//   - the worst exit code of the batch (worseExit): one bad file costs that
//     file, never the others.
//
// What the workers share is read-only (options, the machine description);
// each file has its own module, Clang parse and output streams. Two things
// are process-wide and guarded where they live: --verify's forked child
// (Runtime/Isolate.h: one at a time, and never while a stream is written) and
// nvcc's time limit (Target/Ptxas.cpp: polled, not alarm()).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_BATCH_H
#define GPUMERGE_DRIVER_BATCH_H

#include "Driver/Driver.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace gpumerge {

/// What one file of a batch came to.
struct FileOutcome {
  std::string Path;
  int Exit = ExitOk;
  /// Its report object as runFile made it; none when it failed before one
  /// (a parse error, an unreadable file) or was refused.
  std::optional<llvm::json::Object> Report;
  std::string Refused; ///< why it was not run (its outputs would collide)
  std::string OutText, ErrText; ///< what it printed, in order later
};

/// Whether runDriver should run a batch: a directory among the inputs, or -p.
bool isBatch(const DriverOptions &Opts);

/// Runs the batch \p Opts asks for (checked by runDriver) for target \p MD.
int runBatch(const DriverOptions &Opts, const MachineDescription &MD,
             llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace gpumerge

#endif
