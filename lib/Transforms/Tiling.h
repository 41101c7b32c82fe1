//===- Tiling.h - One generator for coalescing and merges -------*- C++ -*-===//
//
// The coalesce, block-merge and thread-merge passes (§3.3-3.5) decide; this
// generator writes. A TileShape says how many threads a block has, how many
// naive threads one thread stands for (thread merge) and by how much the
// loop that reads through shared memory is tiled (the coalescing width).
// From the naive kernel and a shape it derives everything else the paper
// derives step by step, so any combination of factors is correct by
// construction and each pass only changes the shape and regenerates:
//
//   - which accesses go through shared memory: those the target's coalescing
//     check rejects, and those several threads of one block read (G2S
//     sharing); what one thread's merged copies share stays in a register
//     (G2R), since the copies read it from one statement;
//   - the shared tiles, padded by the bank-conflict model, and their
//     cooperative, coalesced loads;
//   - the merged body: control flow and statements that do not depend on
//     the merged position kept once, the others replicated with idy → idy*N
//     + k (Y) or cyclic positions in X (never a contiguous run:
//     docs/design.md, "Traffic");
//   - the tiled loop's remainder: whole tiles up to k - k % T, then the loop
//     as written (global reads) for the iterations past them;
//   - the launch plan: block, coverage (the launch runs whole tiles of the
//     domain, <name>_edge the rest), the preconditions and the arrays that
//     must not overlap.
//
// Before (mm, h100):                 After (Block 32x8, Merge 1x4, tile 32):
//   if (x < w && y < h) {              for (i0 = 0; i0 < k - k % 32; i0 += 32)
//     float sum = 0.0f;                {
//     for (int i = 0; i < k; i++)        for (l = tid; l < 1024; l += 256)
//       sum += a[y*k + i] * b[i*w + x];    a_s[l / 32][l % 32] = a[...];
//     c[y*w + x] = sum;                  ... b_s likewise; __syncthreads();
//   }                                    for (int i = i0; i < i0 + 32; i++) {
//                                          sum_0 += a_s[ty*4][i - i0] * b_s..;
//                                          sum_1 += ...   (4 copies)
//                                        }
//                                        __syncthreads();
//                                      }
//                                      for (int i = k - k % 32; i < k; i++) {
//                                        sum_0 += a[y_0*k + i] * b[i*w + x];
//                                        sum_1 += ...   (4 copies)
//                                      }
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_TILING_H
#define GPUMERGE_TRANSFORMS_TILING_H

#include "IR/Kernel.h"
#include "Target/MachineDescription.h"

#include "llvm/Support/Error.h"

#include <array>

namespace gpumerge {

struct TileShape {
  std::array<std::int64_t, 2> Block = {16, 16}; ///< threads per block
  std::array<std::int64_t, 2> Merge = {1, 1};   ///< thread merge factors
  std::int64_t LoopTile = 0; ///< 0: no staging through shared memory
  /// Exchange idx and idy first (§3.3: A[idx][idy] → A[idy][idx]).
  bool Interchange = false;
  /// Drop the bounds guard even when nothing is staged, as staging does:
  /// merged copies then share their control flow and the reads they have in
  /// common (G2R, the texture variant's thread merge), and the launch runs
  /// it on whole tiles (<name>_edge the rest). Without it an unstaged kernel
  /// keeps a guard per copy and runs on a grid rounded up.
  bool WholeTiles = false;
  /// Merge in X with neighbouring threads (idx → idx*Mx + k) instead of
  /// blockDim.x apart: the copies of one thread then touch neighbouring
  /// elements, which §3.1's inter-thread vectorization combines. Only
  /// without staging (LoopTile 0).
  bool AdjacentX = false;
  /// Unroll the loop over a shared tile whole, within UnrollBudget; thread
  /// merge turns it off where ptxas then needs too many registers.
  bool UnrollTile = true;
};

/// An access the generated kernel reads through shared memory.
struct StagedAccess {
  std::string Array;
  std::string Index;  ///< as written in the naive kernel
  std::string Shared; ///< the tile's name
  std::vector<std::int64_t> Extents;
  bool Uncoalesced = false; ///< converted for coalescing (else for sharing)
  unsigned Line = 0;
  std::int64_t Loaded = 0; ///< elements loaded per tile step
  bool IsWrite = false;    ///< a write staged and stored by the block
  /// A thread's merged copies in X read G columns stored side by side (one
  /// 16-byte shared read, Generator::stage); 1: the columns as in memory.
  std::int64_t Grouped = 1;
};

struct TiledKernel {
  std::unique_ptr<Function> Kernel; ///< with Plan set
  std::vector<StagedAccess> Staged;
  std::string TiledLoop; ///< the iterator of the loop tiled, if any
  /// Iterations per tile step of that loop: the shape's LoopTile, or a
  /// divisor of a constant trip count (loopTile).
  std::int64_t TiledBy = 0;
  /// Global elements loaded per naive output per tile step: the static
  /// model's traffic estimate (docs/design.md, "Traffic").
  double LoadsPerOutput = 0;
  /// Shared-memory elements read per naive output per step of the tiled
  /// loop: (Mx + My) / (Mx * My) for mm's register tile. What bounds a
  /// compute-bound kernel once its global traffic is small.
  double SharedLoadsPerOutput = 0;
  unsigned EstimatedRegisters = 0;
};

/// Shared memory one block of a generated kernel may use: the target's
/// limit, but at most 48 KB, the most a kernel may declare statically on
/// every NVIDIA GPU (more needs dynamic shared memory and an opt-in).
std::int64_t staticSharedLimit(const MachineDescription &MD);

/// The naive kernel of \p F: its Plan's Origin when it has been tiled, else
/// F itself.
const Function &tilingOrigin(const Function &F);

/// Sets \p P's layers of a 3-D grid (LaunchPlan::Layered, LayerExtent)
/// from the z guard of \p Naive.
void setLayers(LaunchPlan &P, const Function &Naive);

/// The tile of loop \p L (unit step) tiled by \p T: T, but for a
/// constant trip count N the largest divisor of N not above T, so that "the
/// tile divides the trip count" holds (`for (j = 0; j < 5; j++)` is one
/// tile of 5, never tiled by 32 under the condition 5 % 32 == 0, which no
/// launch can meet); 0 when no tile of two or more iterations divides N.
/// \p Constant says the trip count is a literal (no macro a rebuild with
/// -D could change), so the launcher need not check it.
std::int64_t loopTile(const ForStmt &L, std::int64_t T, bool &Constant);

/// Generates \p Origin (a naive kernel) tiled and merged as \p S says for
/// \p MD. Errors say why the kernel cannot take this shape (a construct the
/// generator does not handle, a loop that cannot be tiled); the passes turn
/// them into the report's reason.
llvm::Expected<TiledKernel> generateTiled(const Function &Origin,
                                          const TileShape &S,
                                          const MachineDescription &MD);

/// The shape generateTiled was given for the kernel of plan \p P (one with
/// an Origin), so a later pass can generate it again with one factor
/// changed.
TileShape generatedShape(const LaunchPlan &P);

/// \p F with idx and idy exchanged (its guards and indices follow).
std::unique_ptr<Function> interchanged(const Function &F);

/// Whether generateTiled can exchange idx and idy in \p F: a 2-D kernel
/// with one bound on each position, or with none at all (the launch is the
/// domain, which the launcher exchanges as it does the bounds).
bool canInterchange(const Function &F);

/// Removes `+ 0`, `* 1`, `0 * e`, and folds literal arithmetic.
ExprPtr simplifyExpr(ExprPtr E);

} // namespace gpumerge

#endif
