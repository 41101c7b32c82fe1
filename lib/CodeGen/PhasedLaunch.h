//===- PhasedLaunch.h - Launch code for kernels split in phases -*- C++ -*-===//
//
// A kernel split at its global barriers (Transforms/SplitPhases.h) is gone
// from the output: its phases NAME_phase0, NAME_phase1, ... stand there,
// each with its own fallback and launcher where it was optimized. What runs
// the whole kernel:
//
// - CUDA: a host function after the last phase, which every
//   `NAME<<<grid, block, smem, stream>>>(args)` of the host code calls:
//
//     [[maybe_unused]] static void gpumerge_launch_rd(dim3 grid, dim3 block,
//         size_t smem, cudaStream_t stream, const float *in, ..., int nt) {
//       gpumerge_launch_rd_phase0(grid, block, smem, stream, in, ..., nt);
//       rd_phase1<<<grid, block, smem, stream>>>(in, ..., nt);
//     }
//
//   Launches on one stream run in order: each phase sees what the one before
//   wrote to global memory.
// - OpenCL: in the launch header, the phases' names in order and their
//   count, for a host that enqueues them on one in-order queue.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_PHASEDLAUNCH_H
#define GPUMERGE_CODEGEN_PHASEDLAUNCH_H

#include "IR/Kernel.h"

namespace gpumerge {

/// The CUDA launcher of \p PK, whose phases have \p Phase0's parameters;
/// \p Planned[k]: phase k is written with its plan and its own launcher.
std::string emitCudaPhasedLauncher(const PhasedKernel &PK,
                                   const Function &Phase0,
                                   const std::vector<bool> &Planned);
/// Its declaration, for launches before the kernel's definition.
std::string emitCudaPhasedLauncherDeclaration(const PhasedKernel &PK,
                                              const Function &Phase0);
/// For the OpenCL launch header: a comment, the phase count and
/// `gpumerge_NAME_phase(k)`, the name of the k-th kernel to enqueue.
std::string emitOpenCLPhaseTable(const PhasedKernel &PK);

} // namespace gpumerge

#endif
