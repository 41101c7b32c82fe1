//===- Launcher.h - Launch code for kernels with a LaunchPlan ---*- C++ -*-===//
//
// An optimized kernel with a LaunchPlan runs only when the plan's
// preconditions hold and with its own grid and block; the input's kernel,
// kept in the output as <name>_naive, runs otherwise. This file writes the
// code that decides (docs/design.md, "Launch glue"):
//
// - CUDA: a host function placed right after the optimized kernel, which
//   every `k<<<grid, block, smem, stream>>>(args)` of the host code calls
//   instead (ModuleEmitter rewrites the call sites):
//
//     [[maybe_unused]] static void gpumerge_launch_mm(dim3 grid, dim3 block,
//         size_t smem, cudaStream_t stream, const float *a, ..., int k) {
//       const long long extent_x = (long long)w;  // the naive domain
//       const long long blocks_x = extent_x / 32; // its whole tiles
//       ...
//       bool ok = true;
//       // Each block computes a 32 x 32 tile: the domain must hold one.
//       ok = ok && blocks_x > 0;
//       ...
//       if (ok) {
//         mm<<<dim3(blocks_x, blocks_y), dim3(32, 8), 0, stream>>>(
//             a, b, c, w, h, k);
//         ... mm_edge<<<...>>> over what the tiles leave (EdgeKernel.h)
//       } else {
//         mm_naive<<<grid, block, smem, stream>>>(a, b, c, w, h, k);
//       }
//     }
//
// - OpenCL: a C header for the host program with, per planned kernel,
//   gpumerge_<name>_ndrange(), which maps the naive NDRange to the optimized
//   kernel's, says which of the two kernels to enqueue and, for a kernel with
//   edges, fills a gpumerge_edges with the <name>_edge launches that follow.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_LAUNCHER_H
#define GPUMERGE_CODEGEN_LAUNCHER_H

#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

#include <map>

namespace gpumerge {

/// "gpumerge_launch_<name>": the CUDA launcher of kernel \p Kernel.
std::string launcherName(const std::string &Kernel);

/// Checks that the plan of \p Optimized can be turned into launch code:
/// one or two dimensions, positive block and coverage, expressions over
/// scalar parameters only (no thread built-ins, arrays or calls), every
/// Disjoint name an array parameter with an element count.
llvm::Error checkLaunchPlan(const Function &Optimized);

/// Why the plan of \p Optimized (the replacement of a kernel of \p M) cannot
/// be used in \p M written in \p L, or "" when it can: checkLaunchPlan, an
/// overloaded kernel name, the names <name>_naive and
/// gpumerge_launch_<name> already used by the input, and, for CUDA, a launch in
/// host code that cannot be rewritten (written in a macro, the kernel named
/// without <<<>>>, ...) or that precedes the kernel without a prototype in the
/// file. The emitters write the input's kernel alone when a plan cannot be
/// used.
std::string launchPlanProblem(const Module &M, const Function &Optimized,
                              Language L);

/// The CUDA launcher of \p Optimized (which has a valid Plan), a host
/// function ending in a newline.
std::string emitCudaLauncher(const Function &Optimized);
/// Its declaration, `...;` and a newline, for launches before the kernel.
std::string emitCudaLauncherDeclaration(const Function &Optimized);

/// The C header for the host of \p M written as OpenCL with \p Replacements
/// (see emitModule): include guard, <stddef.h>, <stdint.h>, and per kernel
/// whose replacement has a usable plan
///
///   static inline int gpumerge_<name>_ndrange(const size_t naive_global[2],
///       <scalar parameters>, <array parameters as uintptr_t addresses>,
///       size_t global[2], size_t local[2][, gpumerge_edges *edges]);
///
/// The header's comment states the contract. "" when no kernel has a plan.
std::string emitOpenCLLaunchHeader(
    const Module &M,
    const std::map<std::string, const Function *> &Replacements);

} // namespace gpumerge

#endif
