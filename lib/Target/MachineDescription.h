//===- MachineDescription.h - A GPU described for the optimizer -*- C++ -*-===//
//
// The machine description of the paper's Table I plus what the analytic models
// of docs/design.md need. Loaded from YAML in machine-descriptions/,
// validated on load (errors name the field), looked up by name or path.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TARGET_MACHINEDESCRIPTION_H
#define GPUMERGE_TARGET_MACHINEDESCRIPTION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gpumerge {

enum class Vendor { Nvidia, Amd };

/// How registers are handed out to a block: per warp (rounded to a unit per
/// warp, Fermi and later) or per block (GT200: rounded for the whole block).
enum class RegisterGranularity { Warp, Block };

struct MachineDescription {
  std::string Name;        ///< "gtx480": the --target name.
  std::string DisplayName; ///< "NVIDIA GeForce GTX 480".
  Vendor GpuVendor = Vendor::Nvidia;

  // --- Table I -------------------------------------------------------------
  unsigned CoalescedThread = 16; ///< threads whose accesses coalesce together
  unsigned ThreadInWarp = 32;    ///< warp (wavefront) size
  unsigned WarpInMP = 32;        ///< max resident warps per SM
  unsigned ThreadInMP = 1024;    ///< max resident threads per SM
  unsigned ThreadBlockInMP = 8;  ///< max resident blocks per SM
  unsigned RegisterInMP = 16384; ///< 32-bit registers per SM
  unsigned ThreadInBlock = 512;  ///< max threads per block
  unsigned ShareMemoryInMP = 16384; ///< shared memory per SM, bytes
  unsigned Vectorization = 2;       ///< global-variant vector width (2 or 4)
  /// NVIDIA: the vector width at which the global variant merges
  /// neighbouring threads of a kernel that only streams memory (nothing
  /// shared, nothing tiled), so each thread moves 16 bytes per access
  /// (§3.1's inter-thread kind); 0 keeps the paper's Fig. 4 policy
  /// (intra-thread float2 only), as on the GT200 and Fermi parts it
  /// measured.
  unsigned StreamVectorization = 0;
  unsigned CacheLineSize = 64; ///< texture cache line, bytes

  // --- For the models ------------------------------------------------------
  unsigned SMCount = 1;
  unsigned MaxRegistersPerThread = 63;
  RegisterGranularity RegisterAllocation = RegisterGranularity::Warp;
  unsigned RegisterAllocUnit = 64;    ///< registers, per warp or per block
  unsigned SharedMemPerBlock = 16384; ///< max shared bytes one block may use
  unsigned SharedMemAllocUnit = 512;  ///< bytes
  unsigned SharedMemReservedPerBlock = 0; ///< bytes the system takes per block
  unsigned Banks = 16;                    ///< shared-memory banks
  unsigned BankWidth = 4;                 ///< bytes per bank word
  unsigned BankConflictGroup = 16; ///< threads whose accesses may conflict
  unsigned SegmentBytes = 64;      ///< coalescing segment / cache line
  unsigned SectorBytes = 32;       ///< smallest DRAM transaction, bytes
  unsigned MemoryPartitions = 8;
  unsigned PartitionWidth = 256; ///< bytes
  std::string SmArch;            ///< "sm_90" for nvcc; empty when none
  /// Where SmArch is empty: a newer architecture whose ptxas counts the
  /// registers of this target's kernels, capped at MaxRegistersPerThread
  /// (Fermi's sm_20 is gone from CUDA 12). Empty: estimated from KIR.
  std::string PtxasStandIn;
  double MemoryBandwidthGBs = 0;
  double PeakFP32GFlops = 0;
  /// FP32 lanes of one SM (128 on sm_90): with PeakFP32GFlops, the clock,
  /// which puts DRAM and shared-memory bandwidth in one unit for the static
  /// model. 0 (the default) leaves shared-memory traffic out of it.
  unsigned FP32LanesPerMP = 0;
  /// Does the L1 cache global loads (Fermi; Volta and later)? Neighbouring
  /// threads' reads of one element then hit there, and a shared tile that
  /// only shares them (halo-tile) adds its copies and a barrier for little.
  /// Optional; false (GT200, Kepler, AMD's Evergreen).
  bool L1CachesGlobalLoads = false;
};

/// Bytes of DRAM bandwidth one SM has per clock over the shared-memory
/// bytes it can read per clock (Banks x BankWidth); 0 when the description
/// does not give FP32LanesPerMP. H100: 12.8 / 128 = 0.1.
double dramToSharedBandwidth(const MachineDescription &MD);

/// Can \p MD copy global to shared memory asynchronously (cp.async, compute
/// capability 8.0 and later: SmArch sm_80 or newer)?
bool hasAsyncCopy(const MachineDescription &MD);

/// Directory holding the shipped *.yaml descriptions: $GPUMERGE_TARGETS_DIR
/// when set, else ../share/gpumerge/machine-descriptions beside the running
/// program when it exists (an installed gpumerge), else the source tree's
/// machine-descriptions/.
std::string defaultTargetsDir();

/// Parses and validates one description from YAML text. \p FileName is used in
/// messages ("gtx480.yaml: field 'SMCount' ...").
llvm::Expected<MachineDescription>
parseMachineDescription(llvm::StringRef Yaml, llvm::StringRef FileName);

/// Loads a target by name (looked up in \p Dir) or by path to a .yaml file.
/// An unknown name gives an error listing the known targets.
llvm::Expected<MachineDescription> loadTarget(llvm::StringRef NameOrPath,
                                              llvm::StringRef Dir);

/// Names of the targets in \p Dir, sorted.
std::vector<std::string> listTargets(llvm::StringRef Dir);

} // namespace gpumerge

#endif
