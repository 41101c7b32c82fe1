//===- WriteCollisionRun.h - Do the input's writes collide? -----*- C++ -*-===//
//
// Where the analysis cannot prove that no two work-items of the input write
// one element (Analysis/Races.h, unprovenWrite: a scatter), the verifier
// runs the input's launches once more, on copies of the inputs, with those
// kernels claiming each element they assign (CodeGen/WriteCollisions.h).
// Where two work-items of a launch write one element, the input's result
// depends on the order they run in, and a candidate that runs them in
// another order cannot be compared with it: the run is skipped ("the
// input's writes collide"), never a mismatch. The check runs once per
// reference (--tune's candidates share it), in the verify child after the
// input's own run; its time counts in the "reference run" phase.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_WRITECOLLISIONRUN_H
#define GPUMERGE_RUNTIME_WRITECOLLISIONRUN_H

#include "Runtime/Device.h"
#include "Runtime/DeviceRun.h"

#include "llvm/Support/Error.h"

#include <string>

namespace gpumerge {

/// Runs \p Run's reference launches with its CollisionCheck program on
/// \p Session, each kernel of CollisionChecked claiming its writes: the
/// first collision, in words ("work-items (3, 0) and (19, 0) of 'hist'
/// write element 3 of 'h'"), or "" where none happened.
llvm::Expected<std::string> findWriteCollision(DeviceSession &Session,
                                               const DeviceRun &Run);

} // namespace gpumerge

#endif
