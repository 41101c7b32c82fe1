//===- ExtentProbe.h - Array sizes measured where none is known -*- C++ -*-===//
//
// Verify sizes every array from its index ranges (bufferExtents). Where an
// index is not affine (`in[idl * w + idk]` after `if (idk < 0) idk = -idk`,
// an offset a loop of divisions builds) or a loop bound depends on the data,
// no size follows, and the kernel went unverified. The probe measures it:
// a copy of the input kernel whose every access to such an array goes
// through a call that records the lowest and highest index and clamps the
// access into the buffer runs once, over the verify launch, on the very
// inputs the verify run uses. Where every index it saw lies within the
// buffers, the input kernel as written, on the same inputs, makes the same
// accesses (its result is defined: verify runs it twice where they differ),
// so the verify run stays inside them. An index below 0, or one past what
// the buffers can be, leaves the kernel unverified with why.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_EXTENTPROBE_H
#define GPUMERGE_RUNTIME_EXTENTPROBE_H

#include "IR/Kernel.h"
#include "Runtime/DeviceRun.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gpumerge {

/// The name of the record parameter a probed kernel takes last (before a
/// CUDA input's __constant__ arrays, which follow every argument).
inline constexpr const char *ProbeRecordName = "gpumerge_probe_record";

/// Why \p Arrays of \p F cannot be probed ("" where they can): an array
/// passed to a helper or indexed as a 2-D array hides accesses from the
/// probe.
std::string unprobeable(const Function &F, const std::set<std::string> &Arrays);

/// \p F with each access to one of \p Arrays (slot i for Arrays[i]) going
/// through gpumerge_probe(index, record, slot, extent), \p Extents giving
/// each array's buffer size, and the record parameter appended.
std::unique_ptr<Function>
probedKernel(const Function &F, const std::vector<std::string> &Arrays,
             const std::map<std::string, std::int64_t> &Extents);

/// The OpenCL C definition of gpumerge_probe, to put before the kernels.
const char *probeHelperSource();

/// What a probe saw of each probed array: the lowest index and one past
/// the highest (Lo > Hi where nothing was accessed).
struct ProbedRange {
  std::int64_t Lo = 0, Hi = 0;
};

/// Runs \p Probe (OpenCL C holding the probed kernels \p Kernels, launched in
/// order like \p Run's reference, each over its NaiveRange) with \p Run's
/// inputs on the first OpenCL device (where \p Run is for CUDA too), in a
/// child process; one range per probed array, in slot order.
llvm::Expected<std::vector<ProbedRange>>
runExtentProbe(const DeviceRun &Run, const std::string &Probe,
               const std::vector<std::string> &Kernels, size_t Arrays);

} // namespace gpumerge

#endif
