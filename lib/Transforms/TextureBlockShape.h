//===- TextureBlockShape.h - The texture variant's block shape --*- C++ -*-===//
//
// §3.5.1: in the texture variant the block is one warp (wavefront), shaped
// for the texture cache rather than for coalescing: 32x1 (64x1) for a 1-D
// output, 8x4 (8x8) for a 2-D one; when a read-only array is read with
// spatial locality along X (A[..][idx]), X is at least one cache line of
// its elements (CacheLineSize / datum size), likewise Y. thread-merge asks
// for this shape first in the texture variant, so the merge factors it
// picks are those of the final block; the texture-block-shape pass then sets
// it (and says why) whether or not threads were merged.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_TEXTUREBLOCKSHAPE_H
#define GPUMERGE_TRANSFORMS_TEXTUREBLOCKSHAPE_H

#include "IR/Kernel.h"
#include "Target/MachineDescription.h"

#include <array>

namespace gpumerge {

struct TextureBlock {
  std::array<std::int64_t, 2> Block = {32, 1};
  /// idx and idy exchanged (Tiling.h's interchanged): a write along Y.
  bool Interchange = false;
  std::string Why; ///< for the report
};

/// The texture variant's block for the naive kernel \p Origin on \p MD.
TextureBlock textureBlockShape(const Function &Origin,
                               const MachineDescription &MD);

} // namespace gpumerge

#endif
