//===- Ptxas.h - Kernel resource use as ptxas reports it --------*- C++ -*-===//
//
// The paper's legal() (§3.5, Fig. 12) keeps a merged kernel only if its
// register and shared memory use stay under the limits without spilling, with
// at least two blocks per SM, and it reads that use from the vendor compiler's
// output rather than estimating it. So do we: the translation unit is compiled
// with `nvcc -cubin --resource-usage` and ptxas's report is parsed into the
// registers and shared bytes that the occupancy model (Target/Occupancy.h)
// takes as input.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TARGET_PTXAS_H
#define GPUMERGE_TARGET_PTXAS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace gpumerge {

/// What one kernel uses, per thread or per block, as the compiler reports it.
struct KernelResources {
  unsigned Registers = 0;   ///< per thread
  unsigned SharedBytes = 0; ///< static shared memory per block
  unsigned SpillStoreBytes = 0, SpillLoadBytes = 0;
  /// The kernel's stack: its cumulative stack size (callees included) where
  /// ptxas reports one, else its own stack frame.
  unsigned StackBytes = 0;
  std::string Source; ///< "ptxas sm_90" or "estimate"
};

/// Where nvcc is, or an error saying it was not found: $GPUMERGE_NVCC when
/// set (gpumerge-nvcc sets it to the real nvcc), else looked for on PATH,
/// then in $CUDA_HOME/bin, then in /usr/local/cuda/bin.
llvm::Expected<std::string> findNvcc();

/// The name a kernel has in its source for the symbol ptxas reports:
/// "_ZN2ns3mmEPKfS1_Pf" -> "mm", "_Z2tkILi3EEvPf" -> "tk"; extern "C" names
/// are returned unchanged.
std::string kernelSourceName(llvm::StringRef Symbol);

/// Parses ptxas's `-v` / nvcc `--resource-usage` report (both output streams,
/// concatenated) into the usage of every entry function, keyed by
/// kernelSourceName(). Overloads of one name are merged by taking the maximum
/// of each field, which is what a legality check needs. Lines it does not
/// recognise are ignored.
std::map<std::string, KernelResources> parsePtxasReport(llvm::StringRef Report);

/// Compiles \p CudaSource (a whole .cu translation unit) for \p SmArch
/// ("sm_90") with `nvcc -cubin -arch=<SmArch> --resource-usage` and returns
/// the usage ptxas reports for every __global__ kernel, keyed by the kernel's
/// source name (see kernelSourceName). A compile error is returned as an
/// llvm::Error holding nvcc's diagnostics, which name the file "kernel.cu".
/// Reports of successful compiles are cached by content (PtxasCache.h).
/// \p MaxRegisters, where not 0, caps each thread's registers as the
/// target's own compiler does (-maxrregcount): a target older than any
/// architecture this nvcc compiles for is counted on a newer one with its
/// own limit, and what does not fit spills.
llvm::Expected<std::map<std::string, KernelResources>>
ptxasResources(const std::string &CudaSource, const std::string &SmArch,
               unsigned MaxRegisters = 0);

/// The first of \p Candidates ("sm_35 sm_75", in order of preference) that
/// the nvcc findNvcc() finds compiles for (`nvcc --list-gpu-code`); the
/// last where none is, or nvcc cannot say. A GTX 480 is counted on sm_35
/// by CUDA 11 (the register allocator of the generation after Fermi, the
/// one GPGPU-Sim's Fermi configurations count with) and on sm_75 by CUDA
/// 13, which compiles for nothing older.
std::string firstCompiledArch(llvm::StringRef Candidates);

} // namespace gpumerge

#endif // GPUMERGE_TARGET_PTXAS_H
