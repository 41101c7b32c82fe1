//===- Prelude.h - Declarations a naive kernel file assumes -----*- C++ -*-===//
//
// Kernel-only CUDA files are parsed without the CUDA SDK: Clang's
// __clang_cuda_builtin_vars.h gives threadIdx & co., and this prelude gives
// the attribute macros, barriers, math functions, atomics (so a kernel using
// them parses and is then passed through), the global barrier hint; and
// CudaDialectPrelude the original GPGPU compiler's bare built-ins (idx, idy,
// tidx, ...).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_PRELUDE_H
#define GPUMERGE_FRONTEND_PRELUDE_H

namespace gpumerge {

/// The virtual path the prelude is mapped at.
inline constexpr const char *PreludePath =
    "/gpumerge-prelude/gpumerge_prelude.h";
/// A directory with an empty texture_fetch_functions.h: CUDA 12+ dropped that
/// header, which Clang 16's CUDA wrapper still includes.
inline constexpr const char *CudaCompatDir = "/gpumerge-prelude/compat";
/// A directory searched after every other (-idirafter) for the host
/// compiler's headers that Clang's resource directory lacks: omp.h.
inline constexpr const char *HostFallbackDir = "/gpumerge-prelude/fallback";

extern const char CudaKernelOnlyPrelude[];
extern const char CudaWithSdkPrelude[];
/// The original compiler's bare built-ins (idx, idy, tidx, ...): after the
/// kernel-only prelude, and after the SDK's where a kernel-only file is
/// parsed again with it (a call of a helper the file does not define must
/// then be the error, not every bare idx).
extern const char CudaDialectPrelude[];
extern const char OpenCLPrelude[];
/// omp.h for host code that calls the OpenMP runtime (omp_get_wtime): its
/// declarations, for the parse only.
extern const char OmpFallbackHeader[];

} // namespace gpumerge

#endif
