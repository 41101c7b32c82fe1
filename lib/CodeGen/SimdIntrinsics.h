//===- SimdIntrinsics.h - CUDA SIMD video intrinsics in OpenCL --*- C++ -*-===//
//
// CUDA's SIMD intrinsics treat an unsigned int as four bytes (`__vmaxs4`) or
// two halfwords (`__vadd2`) and work lane by lane: wrapping or saturating
// sums, differences and absolute values, averages, sums of absolute
// differences, comparisons as masks (`__vcmp*`, 0xff per true byte) or as
// ones (`__vset*`, 1 per true byte). OpenCL C has no such functions but has
// the vector types and reinterpretation to write them: `__vmaxs4(a, b)` is
// `as_uint(max(as_char4(a), as_char4(b)))`. An OpenCL translation defines
// each one it calls, as gpumerge_vmaxs4 (a name of its own: OpenCL reserves
// names with two underscores).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_SIMDINTRINSICS_H
#define GPUMERGE_CODEGEN_SIMDINTRINSICS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gpumerge {

/// The OpenCL name of CUDA's SIMD intrinsic \p CudaName (`__vmaxs4` is
/// gpumerge_vmaxs4), or nothing when it is none that gpumerge writes.
std::optional<std::string> openclSimdIntrinsicName(llvm::StringRef CudaName);

/// The OpenCL C definition of the function openclSimdIntrinsicName names for
/// \p CudaName; empty when it is none.
std::string openclSimdIntrinsicDefinition(llvm::StringRef CudaName);

} // namespace gpumerge

#endif
