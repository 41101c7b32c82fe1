//===- BatchSummary.h - What a batch came to, counted -----------*- C++ -*-===//
//
// Counts a batch's outcomes from the files' report objects (the same JSON a
// single file's --report=json prints), so the table and the batch JSON say
// the same thing and the per-file pipeline needs no second channel:
//
//   files taken                          6
//     ok                                 4
//     bad input (exit 1)                 1   test/x/broken.cu
//   files not taken                      1
//     no kernel in it                    1
//   kernels                              5
//   kernel variants                     10
//     optimized                          7
//     passed through                     3
//       no pass applied                  2
//   ...
//
// Passed-through reasons are grouped by their head ("no pass applied",
// "texture-memory", "while loop that is not ..."): the full reasons name
// kernels and lines, so each would be a group of one.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_BATCHSUMMARY_H
#define GPUMERGE_DRIVER_BATCHSUMMARY_H

#include "Driver/Batch.h"
#include "Driver/BatchInputs.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace gpumerge {

struct BatchTally {
  /// Outcome label ("ok", "bad input (exit 1)") → the files, in order.
  std::map<int, std::vector<std::string>> FilesByExit;
  std::map<std::string, unsigned> NotTaken; ///< why → count
  unsigned Files = 0, Kernels = 0, Variants = 0, Optimized = 0,
           PassedThrough = 0, Split = 0, HelpersPassedThrough = 0;
  std::map<std::string, unsigned> PassedThroughBy; ///< reason head → count
  std::map<std::string, unsigned> Verify; ///< ok, mismatch, ... → count
  /// Kernel variants with a pass dropped because of a gpumerge bug.
  unsigned InternalErrors = 0;
};

BatchTally tallyBatch(const std::vector<FileOutcome> &Files,
                      const std::vector<NotTaken> &Left);

/// The head of a passed-through reason: up to its first " (", ": ", "; " or
/// " at line ".
std::string reasonGroup(llvm::StringRef Reason);

/// The summary table; the wall time last, on a line of its own (the only
/// line that differs between two runs of one tree).
void printBatchSummary(const BatchTally &T, double Seconds, unsigned Workers,
                       llvm::raw_ostream &OS);

/// The same as JSON.
llvm::json::Object batchSummaryJson(const BatchTally &T, double Seconds,
                                    unsigned Workers);

/// How an exit code reads in the summary: "ok", "bad input (exit 1)".
std::string exitLabel(int Code);

} // namespace gpumerge

#endif
