//===- Passes.h - The optimization passes, one factory each -----*- C++ -*-===//
//
// Each pass lives in its own file and exposes one factory; passRegistry()
// (PassRegistry.cpp) registers them by name from a list of these calls.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_PASSES_H
#define GPUMERGE_TRANSFORMS_PASSES_H

#include "Transforms/PassRegistry.h"

namespace gpumerge {

/// scalar-replace: an element one thread reads and writes repeatedly in a
/// loop is kept in a register across the loop (ScalarReplace.cpp).
PassInfo scalarReplacePass();

/// split-reduction: a 1-D kernel's summing loop shared by several threads
/// per output where the naive launch leaves the GPU idle (SplitReduction.cpp).
PassInfo splitReductionPass();

/// coalesce: non-coalesced loop accesses (and those the block's threads
/// share) read through shared memory tiles, §3.3 (Coalesce.cpp).
PassInfo coalescePass();

/// halo-tile: a stencil's neighbouring reads through a shared tile with its
/// halo, for kernels without a loop to tile, §3.4 (HaloTile.cpp).
PassInfo haloTilePass();

/// block-merge and thread-merge: the factors of Fig. 12 chosen by the
/// static model or forced by --merge (BlockMerge.cpp, ThreadMerge.cpp).
PassInfo blockMergePass();
PassInfo threadMergePass();

/// partition-camping: diagonal block order when neighbouring blocks hit
/// one memory partition, §3.7 (PartitionCamping.cpp).
PassInfo partitionCampingPass();

/// async-prefetch: the next shared-memory tile copied into a second buffer
/// with cp.async during the current one's computation (sm_80 and later,
/// CUDA output), §3.6 without registers (AsyncPrefetch.cpp).
PassInfo asyncPrefetchPass();

/// prefetch: the next shared-memory tile loaded into registers during the
/// current one's computation, when the registers allow, §3.6 (Prefetch.cpp).
PassInfo prefetchPass();

/// vectorize: neighbouring global accesses of one thread (and of a loop's
/// iterations, where the target's policy allows) as float2/float4, §3.1
/// (Vectorize.cpp).
PassInfo vectorizePass();
/// texture-block-shape: the texture variant's block, one warp shaped for
/// the texture cache, §3.5.1 (TextureBlockShape.cpp).
PassInfo textureBlockShapePass();

/// texture-memory: read-only arrays read through texture objects or __ldg
/// (CUDA) and images (OpenCL), §3.5 (TextureMemory.cpp).
PassInfo textureMemoryPass();

/// The CUDA texture form used when --texture does not say: ldg where the
/// target's SmArch has __ldg (sm_35 and later), object otherwise.
TextureForm defaultTextureForm(const MachineDescription &MD);

} // namespace gpumerge

#endif
