//===- StagedLoop.h - A loop over tiles staged in shared memory -*- C++ -*-===//
//
// The shape TileStaging gives a tiled loop, which both forms of the §3.6
// prefetch rewrite (Prefetch.cpp into registers, AsyncPrefetch.cpp into a
// second shared buffer):
//
//   for (i0 = 0; i0 < k - k % 32; i0 += 32) {
//     for (l = threadIdx.y * 16 + threadIdx.x; l < 4096; l += 256)
//       a_s[l / 32][l % 32] = a[(blockIdx.y * 128 + l / 32) * k + i0 + l % 32];
//     ...                                       // one loop per staged tile
//     __syncthreads();
//     ... compute on a_s ...
//   }
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_STAGEDLOOP_H
#define GPUMERGE_TRANSFORMS_STAGEDLOOP_H

#include "IR/Kernel.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpumerge {

/// One cooperative load loop `for (l = t; l < N; l += P) s[..l..] = g[..l..]`
/// in which every thread's start t lies in [0, P).
struct CoopLoad {
  ForStmt *Loop;
  AssignStmt *Copy;
  std::int64_t Bound = 0, Step = 0;
};

struct StagedLoop {
  BlockStmt *Outer; ///< the block holding the tile loop
  size_t At;        ///< its position there
  ForStmt *Tile;
  BlockStmt *Body;
  std::vector<CoopLoad> Loads; ///< the first statements of Body
  size_t FirstSync;            ///< Body's barrier after them
};

/// The first loop of \p F with that shape, of more than one tile; nullopt
/// with \p Why saying what the last candidate lacked.
std::optional<StagedLoop> findStagedLoop(Function &F, std::string &Why);

/// Variables \p S declares or assigns, loop counters included.
std::set<std::string> namesDefinedIn(Stmt &S);

} // namespace gpumerge

#endif
