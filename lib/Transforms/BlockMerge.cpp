//===- BlockMerge.cpp - Neighbouring thread blocks merged (§3.5) ----------===//
//
// block-merge (§3.5, thread-block merge) puts several neighbouring blocks
// into one, so the data they share (G2S) is loaded into shared memory once
// per merged block. After coalescing, mm's block is T x 1 and stages a row
// of a; merged by 16 in Y it is T x 16, its a tile serves 16 rows of
// threads, and b, which those rows share, is staged too:
//
//   mm after coalesce (gtx285, T = 16, block 16 x 1):
//     __shared__ float a_s[16];
//     for (int i0 = 0; i0 < k - k % 16; i0 += 16) {
//       for (int l = tidx; l < 16; l += 16)
//         a_s[l] = a[bidy * k + (i0 + l)];
//       __syncthreads();
//       #pragma unroll 16
//       for (int i = i0; i < i0 + 16; i++)
//         sum += a_s[i - i0] * b[i * w + x];
//       __syncthreads();
//     }
//
//   after block-merge 1x16 (block 16 x 16):
//     __shared__ float a_s[16][16];
//     __shared__ float b_s[16][16];
//     for (int i0 = 0; i0 < k - k % 16; i0 += 16) {
//       for (int l = tidy * 16 + tidx; l < 256; l += 256)
//         a_s[l / 16][l % 16] = a[(bidy * 16 + l / 16) * k + (i0 + l % 16)];
//       for (int l2 = tidy * 16 + tidx; l2 < 256; l2 += 256)
//         b_s[l2 / 16][l2 % 16] =
//             b[(i0 + l2 / 16) * w + (bidx * 16 + l2 % 16)];
//       __syncthreads();
//       #pragma unroll 16
//       for (int i = i0; i < i0 + 16; i++)
//         sum += a_s[tidy][i - i0] * b_s[i - i0][tidx];
//       __syncthreads();
//     }
//
// (The loop over the last k % 16 steps is the same in both.) The block comes
// from the ranked Fig. 12 space (Search.h; on a target whose ptxas counts on
// a stand-in architecture, the best version ptxas finds legal) or from
// --merge. The kernel is regenerated from the naive one (Tiling.h).
//
//===----------------------------------------------------------------------===//
#include "Transforms/MergeCommon.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace gpumerge {

/// The first few ranked versions, for the report (the seam of a timed
/// search: these are the versions it would run).
static std::string topVersions(const std::vector<RankedVersion> &Vs) {
  std::vector<std::string> Items;
  for (size_t I = 0; I < Vs.size() && I < 5; ++I)
    Items.push_back(llvm::formatv("block {0}x{1} merge {2}x{3}: cost {4:f4}, "
                                  "{5} regs, {6} B shared, {7} blocks/SM",
                                  Vs[I].Shape.Block[0], Vs[I].Shape.Block[1],
                                  Vs[I].Shape.Merge[0], Vs[I].Shape.Merge[1],
                                  Vs[I].Cost, Vs[I].Registers,
                                  Vs[I].SharedBytes, Vs[I].Occ.BlocksPerSM)
                        .str());
  return llvm::join(Items, "; ");
}

PassInfo blockMergePass() {
  return {"block-merge",
          "neighbouring blocks merged so shared tiles serve more threads "
          "(§3.5, G2S)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            if (shapeFixed(F, Ctx, Why))
              return std::nullopt;
            TileShape Cur = currentShape(F, Ctx);
            const Function &Origin = tilingOrigin(F);
            std::string Chosen = "--merge", Ranked, Bound;
            TileShape S = Cur;
            if (Ctx.Merge.BlockX || Ctx.Merge.BlockY) {
              S.Block = {Cur.Block[0] * Ctx.Merge.BlockX.value_or(1),
                         Cur.Block[1] * Ctx.Merge.BlockY.value_or(1)};
            } else {
              if (Cur.LoopTile == 0) {
                Why = "no data is shared between neighbouring blocks "
                      "(nothing is read through shared memory)";
                return std::nullopt;
              }
              auto Versions =
                  rankVersions(Origin, Cur.LoopTile, Ctx.Target, std::nullopt,
                               Cur.Interchange, false, ptxasCounts(Ctx.Target));
              if (Versions.empty()) {
                Why = "no legal merged version";
                return std::nullopt;
              }
              if (Ctx.Searched)
                *Ctx.Searched = {Cur.Block, Versions};
              // On a stand-in architecture (PtxasStandIn) the block of the
              // best version ptxas finds legal: the estimate from KIR takes
              // blocks whose capped registers leave room for one block a SM
              // (gemm's 32x16 on a GTX 480: 59 registers by ptxas, 19
              // estimated), and thread merge then finds nothing legal.
              RankedVersion Best = Versions.front();
              std::string Note;
              // On a small problem (Search.h) too, anywhere: the latency
              // chain hangs on the blocks an SM holds.
              if (countsOnStandIn(Ctx.Target) || Versions.front().Chain > 0) {
                std::optional<KernelResources> Used;
                Best = checkWithPtxas(Origin, Versions, Ctx.Target, Ctx.Helpers,
                                      Note, Used,
                                      /*MaxVersions=*/6);
              }
              Ranked = topVersions(Versions);
              S.Block = Best.Shape.Block;
              Chosen = llvm::formatv("static model (cost {0:f4}, best of {1})",
                                     Best.Cost, Versions.size());
              if (Best.Shape.Block != Versions.front().Shape.Block)
                Chosen += "; " + Note;
              Bound = versionBound(Best, Ctx.Target);
            }
            if (S.Block == Cur.Block) {
              Why = "the model keeps the block as it is";
              return std::nullopt;
            }
            // A block half as wide (Search.cpp: thread merge widens the
            // tile again) is a factor of 1/2 in X.
            std::int64_t Fx = S.Block[0] / Cur.Block[0],
                         Fy = S.Block[1] / Cur.Block[1];
            std::string Factor =
                S.Block[0] < Cur.Block[0]
                    ? llvm::formatv("1/{0}x{1}", Cur.Block[0] / S.Block[0], Fy)
                          .str()
                    : "";
            S.Merge = {1, 1};
            auto R =
                applyMerge(F, Ctx, S, "block-merge",
                           std::max<std::int64_t>(Fx, 1), Fy, Chosen, Factor);
            if (R && *R && !Ranked.empty())
              (**R).Parameters["ranked"] = Ranked;
            if (R && *R && !Bound.empty())
              (**R).Parameters["bound"] = Bound;
            return R;
          }};
}

} // namespace gpumerge
