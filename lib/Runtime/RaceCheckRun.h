//===- RaceCheckRun.h - Which work-groups verify runs checked ---*- C++ -*-===//
//
// verify on OpenCL runs an optimized kernel in its race-checking form
// (CodeGen/RaceCheck.h), unoptimized and a call per shared access, a
// hundred times slower or more. Where the input ran under 0.1 s every
// work-group runs checked; where it ran longer (and for a --tune
// candidate, whose times come from the kernel as emitted), the kernel runs
// unchecked for the results, and some of its work-groups run checked beside
// it, each launched alone on a copy of the arrays: the grid's corners,
// where the partial tiles are, and its middle.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_RACECHECKRUN_H
#define GPUMERGE_RUNTIME_RACECHECKRUN_H

#include "IR/Kernel.h"
#include "Runtime/Device.h"

#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// How long the input may run for every work-group to run checked; past
/// it, the sampled work-groups' share of the grid times the input's time
/// must stay within it.
constexpr double RaceCheckInputSeconds = 0.1;

/// The work-groups of \p R in each dimension, or nullopt where the runtime
/// picks them (no local size).
std::optional<std::array<std::size_t, 3>> workGroups(const NDRange &R);

/// The work-groups a grid of \p Groups runs checked where not all of them
/// can: its first and last, the other two corners in X and Y (the partial
/// tiles of both edges), and the middle; each once.
std::vector<std::array<std::size_t, 3>>
sampledWorkGroups(std::array<std::size_t, 3> Groups);

/// Whether \p F reads its thread's or block's place in the grid, or the
/// grid's size: a helper that does cannot run in a launch of some of the
/// work-groups, where only the checked kernel knows its place.
bool readsGridPlace(const Function &F);

/// Which work-groups of the checked launches run checked.
enum class RaceCheckPlan { None, All, Some };

struct RaceCheckInputs {
  /// The ranges of the launches of checked kernels, in order.
  std::vector<NDRange> CheckedLaunches;
  double ReferenceSeconds = 0; ///< the input's device time
  bool Timed = false;          ///< a --tune candidate
  /// Why some work-groups cannot run alone (empty where they can).
  std::string NotSampled;
};

/// The race check for \p In: all of the work-groups where the input was
/// quick, else some of each checked launch, or none. \p Says is set to
/// what the report's verify_race_check says.
RaceCheckPlan planRaceCheck(const RaceCheckInputs &In, std::string &Says);

/// Runs the checked kernel \p Kernel of program \p Checking on the sampled
/// work-groups of \p Range, each launched alone on a copy of \p Buffers as
/// they stand with \p Args (the kernel's own, on those buffers), its races
/// recorded in \p Record: the launch itself then runs unchecked on
/// \p Buffers, for the results.
llvm::Error checkSomeWorkGroups(DeviceSession &Session, unsigned Checking,
                                const std::string &Kernel,
                                const std::vector<KernelArg> &Args,
                                const std::vector<unsigned> &Buffers,
                                unsigned Record, const NDRange &Range);

} // namespace gpumerge

#endif
