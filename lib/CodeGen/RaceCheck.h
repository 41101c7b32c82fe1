//===- RaceCheck.h - Optimized kernels that report shared-memory races ---===//
//
// --verify on PoCL compares results, and PoCL cannot show a missing
// barrier: it runs a work-group's work-items one after another between
// barriers, and puts barriers of its own at the ends of loops that hold one,
// so a tile overwritten while another work-item still reads it reads the
// same on the CPU. The kernel as the verifier runs it on OpenCL therefore
// checks every access to its shared (__local) arrays, whatever the order the
// work-items run in:
//
//   - each element has two shadow words in local memory, the last writer and
//     the readers (one, or several) of the current barrier interval (the
//     barriers passed so far, counted by each work-item);
//   - a read of an element another work-item wrote in the same interval, a
//     write of one another read or wrote there, and an index outside the
//     array are races: one is recorded in a buffer the kernel takes as its
//     last argument (RaceRecord), and the results are compared as usual.
//
// The checks' code takes PoCL's optimizer minutes where the kernel itself
// takes seconds: the verifier builds the checked program with
// -cl-opt-disable (about as fast as the kernel unchecked, optimized). It
// then runs a hundred times slower or more: where the input ran over 0.1 s
// (device time), the verifier runs the kernel optimized for the results
// and checks some of its work-groups (the corners of the grid, where the
// partial tiles are, and the middle), each launched alone on a copy of the
// arrays, so a checked kernel knows its work-group's place in the whole
// grid from its arguments (Runtime/RaceCheckRun.h). The report's
// verify_race_check says which.
//
// A cp.async copy (async-prefetch), an assignment in OpenCL, is checked as
// CUDA runs it: its write is pending from its issue (a write then) until a
// __pipeline_wait_prior of its work-item covers its batch (the commits
// before it); the work-item itself may read it after that wait, the others
// in a later barrier interval. An access to it before is a race (a wait
// that waits for too few batches, or no barrier after the wait).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_RACECHECK_H
#define GPUMERGE_CODEGEN_RACECHECK_H

#include "IR/Kernel.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

/// A shared array of a checked kernel: records name it by its position.
struct CheckedArray {
  std::string Name;
  std::vector<std::int64_t> Extents;
};

struct RaceCheckedKernel {
  /// The kernel in OpenCL, checking, with these arguments after all of its
  /// own: `__global uint *gpumerge_race` (RaceRecord::BufferWords words,
  /// zero before the launch); `int gpumerge_group0, gpumerge_group1,
  /// gpumerge_group2`, the launch's first work-group in the whole grid (0 for
  /// a launch of the whole grid); `int gpumerge_groups0, gpumerge_groups1`,
  /// the whole grid's work-groups in X and Y (RaceRecord::groupArguments).
  std::string Text;
  std::vector<CheckedArray> Arrays;
};

/// \p F in OpenCL with its accesses to shared arrays checked, or nullopt
/// where it has none or uses one other than by indexing it (a pointer to
/// it): then it is not checked.
std::optional<RaceCheckedKernel> emitRaceChecked(const Function &F);

/// The OpenCL functions the checked kernels call: once, before them.
std::string raceCheckHelpers();

/// The buffer a checked kernel fills at its first race: a record of Words
/// words for each of Slots work-groups (by their place in the launch,
/// modulo Slots), so that the work-groups PoCL runs at once do not mix
/// their words.
struct RaceRecord {
  static constexpr unsigned Words = 24;
  static constexpr unsigned Slots = 64;
  static constexpr unsigned BufferWords = Words * Slots;
  /// The first record of \p Buffer (BufferWords words) that holds a race,
  /// or the first where none does.
  static std::vector<std::uint32_t>
  firstRace(const std::vector<std::uint32_t> &Buffer);
  /// The checked kernel's arguments after the record, for a launch whose
  /// first work-group is \p First of a grid of \p Groups work-groups.
  static std::array<std::int32_t, 5>
  groupArguments(std::array<std::size_t, 3> First,
                 std::array<std::size_t, 3> Groups) {
    return {std::int32_t(First[0]), std::int32_t(First[1]),
            std::int32_t(First[2]), std::int32_t(Groups[0]),
            std::int32_t(Groups[1])};
  }
  /// A race \p Record (read back after the launches of work-groups of
  /// \p Local work-items) holds, in words ("shared-memory race in 'mm':
  /// work-item (4, 0) read 'a_s[3][17]' after (5, 1) wrote it with no
  /// barrier between (barrier interval 7)"), or empty where it holds none.
  /// Of several races in one work-group, one.
  static std::string describe(const std::string &Kernel,
                              const std::vector<CheckedArray> &Arrays,
                              const std::vector<std::uint32_t> &Record,
                              std::array<std::size_t, 2> Local);
};

} // namespace gpumerge

#endif
