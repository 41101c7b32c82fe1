//===- ThreadMerge.cpp - Neighbouring threads merged (§3.5, Fig. 10) ------===//
//
// thread-merge makes one thread compute several naive threads' outputs, so
// what those share (G2R) is loaded once into a register: in Y, idy → idy*N + k
// for copy k (Fig. 10); in X the copies are cyclic, blockDim.x apart, so a
// warp still reads consecutive elements. Control flow and statements that do
// not depend on the merged position are kept once, the rest replicated with
// their locals renamed (sum_0, sum_1, ...):
//
//   mm after block-merge (gtx285, block 16 x 16):
//     int y = bidy * bdimy + tidy;
//     __shared__ float a_s[16][16];
//     ...
//       for (int i = i0; i < i0 + 16; i++)
//         sum += a_s[tidy][i - i0] * b_s[i - i0][tidx];
//     ...
//     c[y * w + x] = sum;
//
//   after thread-merge 1x4 (a block computes 64 rows of c):
//     int y_0 = (bidy * bdimy + tidy) * 4;
//     ...
//     int y_3 = (bidy * bdimy + tidy) * 4 + 3;
//     __shared__ float a_s[64][16];
//     ...
//       for (int i = i0; i < i0 + 16; i++) {
//         sum_0 += a_s[tidy * 4][i - i0] * b_s[i - i0][tidx];
//         ...
//         sum_3 += a_s[tidy * 4 + 3][i - i0] * b_s[i - i0][tidx];
//       }
//     ...
//     c[y_0 * w + x] = sum_0;
//     ...
//     c[y_3 * w + x] = sum_3;
//
// The four copies read one b_s[i - i0][tidx], which nvcc keeps in a register.
// Factors come from the ranked Fig. 12 space (Search.h), checked with ptxas
// where nvcc compiles for the target, or from --merge. In the texture variant
// there is no shared memory: thread merge shares what merged copies read in
// registers (G2R) within the texture block, and the kernel is generated
// without staging (loop tile 0). The kernel is regenerated from the naive one
// (Tiling.h).
//
//===----------------------------------------------------------------------===//
#include "Transforms/MergeCommon.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

PassInfo threadMergePass() {
  return {"thread-merge",
          "neighbouring threads merged so one thread keeps shared data in "
          "registers (§3.5, G2R, Fig. 10)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            if (shapeFixed(F, Ctx, Why))
              return std::nullopt;
            TileShape S = currentShape(F, Ctx);
            std::string Chosen = "--merge", Bound;
            std::optional<KernelResources> Used;
            if (Ctx.Merge.ThreadX || Ctx.Merge.ThreadY) {
              S.Merge = {Ctx.Merge.ThreadX.value_or(1),
                         Ctx.Merge.ThreadY.value_or(1)};
              std::string Note;
              S.UnrollTile = forcedUnroll(tilingOrigin(F), S, Ctx.Target,
                                          Ctx.Helpers, Note);
              if (!Note.empty())
                Chosen += "; " + Note;
            } else {
              auto Versions = rankVersions(
                  tilingOrigin(F), S.LoopTile, Ctx.Target, S.Block,
                  S.Interchange, Ctx.paperTexture(), ptxasCounts(Ctx.Target));
              if (Versions.empty()) {
                Why = "no legal merged version for this block";
                return std::nullopt;
              }
              // Block merge's space holds this one, and more.
              if (Ctx.Searched && Ctx.Searched->Versions.empty())
                *Ctx.Searched = {S.Block, Versions};
              // On a small problem the unmerged version may lead at the
              // estimated registers only: ptxas decides (checkWithPtxas).
              if (Versions.front().Shape.Merge ==
                      std::array<std::int64_t, 2>{1, 1} &&
                  Versions.front().Chain == 0) {
                Why = "merged threads would share no data, or leave SMs "
                      "without a block at the size hints (the model finds no "
                      "gain)";
                return std::nullopt;
              }
              std::string Note;
              RankedVersion Best =
                  checkWithPtxas(tilingOrigin(F), Versions, Ctx.Target,
                                 Ctx.Helpers, Note, Used);
              S.Merge = Best.Shape.Merge;
              S.UnrollTile = Best.Shape.UnrollTile;
              Chosen = llvm::formatv("static model (cost {0:f4}, best of {1}); "
                                     "{2}",
                                     Best.Cost, Versions.size(), Note);
              Bound = versionBound(Best, Ctx.Target);
              if (S.Merge == std::array<std::int64_t, 2>{1, 1}) {
                Why = Versions.front().Chain > 0
                          ? "a small problem at the size hints, whose shortest "
                            "latency chain at ptxas's registers is unmerged (" +
                                Note + ")"
                          : Note;
                return std::nullopt;
              }
            }
            if (S.Merge == std::array<std::int64_t, 2>{1, 1}) {
              Why = "merged threads would share no data (the model finds no "
                    "gain)";
              return std::nullopt;
            }
            // Texture variant: no staging, so the copies share control flow
            // (and their common reads) only without per-copy guards. The
            // global variant keeps them, with a branch for whole groups.
            S.WholeTiles = Ctx.paperTexture();
            auto R = applyMerge(F, Ctx, S, "thread-merge", S.Merge[0],
                                S.Merge[1], Chosen);
            if (R && *R && Used) {
              F.Plan->PtxasSource = Used->Source;
              F.Plan->PtxasRegisters = Used->Registers;
              F.Plan->PtxasSpillBytes =
                  Used->SpillStoreBytes + Used->SpillLoadBytes;
            }
            if (R && *R && !Bound.empty())
              (**R).Parameters["bound"] = Bound;
            if (R && *R && !Ctx.paperTexture())
              (**R).Parameters.merge(shareCopiesReads(F, S.Merge));
            return R;
          }};
}

} // namespace gpumerge
