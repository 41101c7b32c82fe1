//===- WriteCollisions.h - Input kernels that report collisions -*- C++ -*-===//
//
// --verify compares the emitted kernel with the input, which must compute
// one result. Where two work-items of the input write one element (a
// scatter `h[bin[i] & 15] = a[i]`), which of them wins depends on the order
// they run in, and an optimized kernel, whose order differs, would be
// reported a mismatch it is not. PoCL runs work-items in one order every
// time, so running the input twice shows nothing. The verifier therefore
// runs, beside the input's run on OpenCL, a copy of the input kernel that
// claims each element it assigns in a global array before the store:
//
//   - each checked array has a shadow buffer of one word per element, zero
//     before each launch, holding the last writer (the work-item's global
//     linear id plus one), swapped in with atomic_xchg;
//   - a store to an element another work-item of the launch claimed is a
//     collision: the first is recorded in a buffer the kernel takes last
//     (CollisionRecord), with the array, the element and both writers.
//
// Atomic updates (atomic_add, atomicAdd) are no assignments and are not
// claimed: their order does not change the result. Only the kernel's own
// assignments are checked (not a helper's through a pointer).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_WRITECOLLISIONS_H
#define GPUMERGE_CODEGEN_WRITECOLLISIONS_H

#include "IR/Kernel.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

struct CollisionCheckedKernel {
  /// The kernel in OpenCL, claiming each element it assigns in Arrays, with
  /// these arguments after all of its own: for array i of Arrays,
  /// `__global uint *gpumerge_writer<i>, int gpumerge_elements<i>` (its
  /// shadow, zero before the launch, and its elements); then `__global uint
  /// *gpumerge_collision` (CollisionRecord::Words words, zero).
  std::string Text;
  std::vector<std::string> Arrays;
};

/// \p F (a kernel) in OpenCL with its assignments to elements of its global
/// array parameters claimed, or nullopt where it assigns none.
std::optional<CollisionCheckedKernel> emitCollisionChecked(const Function &F);

/// The OpenCL functions the checked kernels call: once, before them.
std::string collisionCheckHelpers();

/// The buffer a checked kernel fills at its first collision.
struct CollisionRecord {
  static constexpr unsigned Words = 8;
  /// The collision \p Record (read back after a launch of \p Kernel over
  /// \p Global work-items) holds, in words ("work-items (3, 0) and (19, 0)
  /// of 'hist' write element 3 of 'h'"), or empty where it holds none.
  static std::string describe(const std::string &Kernel,
                              const std::vector<std::string> &Arrays,
                              const std::vector<std::uint32_t> &Record,
                              std::array<std::size_t, 3> Global);
};

} // namespace gpumerge

#endif
