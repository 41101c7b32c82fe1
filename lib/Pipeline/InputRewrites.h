//===- InputRewrites.h - What runs on the input before any pass -*- C++ -*-===//
//
// Two rewrites read the input into the form the passes work on, once per
// file, before the pipelines of the variants:
//
//   global-barrier  a kernel with grid-wide barriers becomes phase kernels
//                   launched one after another (SplitPhases.h), or is
//                   passed through with the reason;
//   grid-stride     a kernel whose body is a grid-stride loop is read as
//                   one thread per element, the loop's bound its guard
//                   (GridStride.h): the passes start from that form, and an
//                   optimized kernel gets a launch of its own over the bound.
//
// They are not passes of the registry: one makes several kernels of one,
// and the other changes where the pipeline starts, which a kernel no pass
// changed takes back. But they have names like the passes:
// --disable-passes leaves them out, the report lists grid-stride among an
// optimized kernel's passes (and its refusal under not_applied), a split
// kernel has status "split", and --emit-steps writes the grid-stride
// reading as step 00.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_PIPELINE_INPUTREWRITES_H
#define GPUMERGE_PIPELINE_INPUTREWRITES_H

#include "IR/Kernel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <set>
#include <string>

namespace gpumerge {

/// The names of the input rewrites, in the order they run.
llvm::ArrayRef<std::string> inputRewriteNames();
bool isInputRewrite(llvm::StringRef Name);

/// What the grid-stride reading made of a module's kernels.
struct InputReading {
  /// Kernels whose grid-stride loop reads as a bounds guard, in that form:
  /// the passes start there, and verify sizes the launch by its guard. The
  /// module keeps them as written.
  std::map<std::string, std::unique_ptr<Function>> Guarded;
  /// Why a kernel's grid-stride loop was not read so, for the report.
  std::map<std::string, std::string> Notes;
  /// Kernels whose reading crashed (a gpumerge bug): the kernel goes on as
  /// written.
  std::set<std::string> Crashed;

  /// What the passes start from for kernel \p F: its guarded form, or F.
  const Function &startOf(const Function &F) const;
};

/// Runs the input rewrites \p Disabled does not name on \p M, in order. A
/// crash reading a kernel's grid-stride loop costs that reading alone,
/// with a warning to \p Diagnostics naming \p File. \p DebugFail
/// "grid-stride-crash=NAME" crashes it on kernel NAME (for the tests).
InputReading rewriteInput(Module &M, llvm::ArrayRef<std::string> Disabled,
                          const std::string &File, llvm::StringRef DebugFail,
                          llvm::raw_ostream &Diagnostics);

} // namespace gpumerge

#endif
