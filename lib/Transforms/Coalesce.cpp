//===- Coalesce.cpp - Non-coalesced accesses through shared memory --------===//
//
// §3.3. The block becomes one coalescing group wide (T = the target's
// CoalescedThread: a half-warp of 16 on GT200-class targets, a warp of 32 on
// Fermi and later) and the loop whose accesses the coalescing check rejects
// is tiled by T; each such access is loaded cooperatively into a shared
// tile, T consecutive elements by T consecutive threads, and read from the
// tile. Accesses the block's threads all read (a[idy][i] in mm) go through
// the tile too: that is the data sharing of §3.4. An access with no reuse
// and already coalesced stays in global memory.
//
//   mv before (block 256):
//     int i = idx;
//     if (i < h) {
//       float sum = 0.0f;
//       for (int j = 0; j < w; j++)
//         sum += a[i * w + j] * x[j];
//       y[i] = sum;
//     }
//
//   after (gtx285, T = 16: block 16, a row of a per thread):
//     int i = idx;
//     __shared__ float a_s[16][17];      // padded: column reads, no conflicts
//     __shared__ float x_s[16];
//     float sum = 0.0f;
//     for (int j0 = 0; j0 < w - w % 16; j0 += 16) {
//       for (int l = tidx; l < 256; l += 16)
//         a_s[l / 16][l % 16] = a[(bidx * 16 + l / 16) * w + (j0 + l % 16)];
//       for (int l2 = tidx; l2 < 16; l2 += 16)
//         x_s[l2] = x[j0 + l2];
//       __syncthreads();
//       #pragma unroll 16
//       for (int j = j0; j < j0 + 16; j++)
//         sum += a_s[tidx][j - j0] * x_s[j - j0];
//       __syncthreads();
//     }
//     for (int j = w - w % 16; j < w; j++)   // the last w % 16 columns
//       sum += a[i * w + j] * x[j];
//     y[i] = sum;
//
// The guard goes: the kernel computes whole tiles of 16 rows, mv_edge the
// rows they leave, and mv_naive runs where the launch checks fail
// (EdgeKernel.h, Launcher.h).
//
// The generation itself is Tiling.cpp's; this pass picks the shape.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "IR/Printer.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

static std::string uncoalescedSummary(const Function &F,
                                      const MachineDescription &MD) {
  std::vector<std::string> Items;
  for (const Access &A : collectAccesses(F))
    if (checkCoalescing(A, MD).Coalesced == Tristate::False) {
      std::string Item =
          llvm::formatv("{0} {1}[{2}] (line {3})", A.IsWrite ? "write" : "read",
                        A.Array, A.IndexText, A.Line);
      // Tiles of T iterations need a constant unit step.
      for (const LoopInfo &L : A.Loops) {
        bool Constant = false;
        if (!L.ConstantStep)
          Item += " in the loop over '" + L.Iter + "', whose step '" +
                  printExprDebug(*L.Loop->StepExpr) +
                  "' is not the constant 1 that tiling needs";
        else if (L.Step == 1 &&
                 loopTile(*L.Loop, MD.CoalescedThread, Constant) == 0)
          Item += llvm::formatv(" in the loop over '{0}', whose constant trip "
                                "count no tile of 2 to {1} iterations divides",
                                L.Iter, MD.CoalescedThread)
                      .str();
      }
      Items.push_back(std::move(Item));
    }
  if (Items.empty())
    return "every access is coalesced on this target and none is shared by "
           "the threads of a block";
  return "not convertible here: " + llvm::join(Items, ", ") +
         " (only reads in a loop, indexed by the loop iterator with "
         "coefficient 1, from arrays the kernel does not write)";
}

PassInfo coalescePass() {
  return {
      "coalesce",
      "non-coalesced loop accesses through shared memory tiles (§3.3)",
      [](Function &F, const PassContext &Ctx,
         std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
        if (F.Plan && F.Plan->Origin) {
          Why = "the kernel is already tiled";
          return std::nullopt;
        }
        const MachineDescription &MD = Ctx.Target;
        std::int64_t T = MD.CoalescedThread;
        // §3.3: A[idx][idy] becomes A[idy][idx] when exchanging the
        // positions leaves fewer accesses uncoalesced.
        auto Uncoalesced = [&](const Function &G, bool ReadsOnly) {
          return countUncoalesced(
              G, MD, ReadsOnly ? AccessKinds::Reads : AccessKinds::All);
        };
        bool Square = canInterchange(F);
        std::unique_ptr<Function> Swapped = Square ? interchanged(F) : nullptr;
        unsigned Here = Uncoalesced(F, false);
        bool Interchange = Square && Uncoalesced(*Swapped, false) < Here;
        // The read-side transpose, out[y*w + x] = in[x*h + y]: one access
        // is uncoalesced either way, but exchanging the positions moves it
        // from the read to the write, which the write tile below coalesces.
        bool ReadToWrite = Square && !Interchange && Here > 0 &&
                           Uncoalesced(*Swapped, false) == Here &&
                           Uncoalesced(F, true) > 0 &&
                           Uncoalesced(*Swapped, true) == 0;
        Interchange |= ReadToWrite;
        // A write staged through shared memory needs a tile T
        // positions tall, so consecutive threads store T consecutive
        // elements; try that shape first and keep it if a write goes
        // through the tile.
        std::int64_t By =
            std::min<std::int64_t>(T, std::max<std::int64_t>(1, 256 / T));
        TileShape S{{T, By}, {1, T / By}, T, Interchange};
        auto K = generateTiled(F, S, MD);
        bool Writes = false;
        if (K)
          for (const StagedAccess &SA : K->Staged)
            Writes |= SA.IsWrite;
        else
          llvm::consumeError(K.takeError());
        if (Writes) {
          K->Kernel->Plan->ShapeFixedBy =
              "the write tile of coalesce sets the block shape";
        } else {
          // Without the write tile, exchanging would only move the problem.
          Interchange &= !ReadToWrite;
          S = TileShape{{T, 1}, {1, 1}, T, Interchange};
          K = generateTiled(F, S, MD);
        }
        if (!K) {
          Why = llvm::toString(K.takeError());
          return std::nullopt;
        }
        if (K->Staged.empty() && !Interchange) {
          Why = uncoalescedSummary(F, MD);
          return std::nullopt;
        }
        AppliedPass P{"coalesce", {}};
        std::vector<std::string> Converted;
        for (const StagedAccess &SA : K->Staged) {
          std::string Dims;
          for (std::int64_t E : SA.Extents)
            Dims += "[" + std::to_string(E) + "]";
          Converted.push_back(llvm::formatv(
              "{0}[{1}] -> {2}{3} ({4})", SA.Array, SA.Index, SA.Shared, Dims,
              SA.IsWrite       ? "write, not coalesced"
              : SA.Uncoalesced ? "not coalesced"
                               : "shared by the block"));
        }
        P.Parameters["converted"] = llvm::join(Converted, "; ");
        P.Parameters["loop"] = K->TiledLoop;
        P.Parameters["tile"] = std::to_string(T);
        if (K->TiledBy > 0 && K->TiledBy != T)
          P.Parameters["tile"] = llvm::formatv(
              "{0} (the {1} loop's constant trip count: {0} divides it, {2} "
              "does not)",
              K->TiledBy, K->TiledLoop, T);
        if (Interchange)
          P.Parameters["interchange"] =
              ReadToWrite ? "idx and idy exchanged: the uncoalesced read "
                            "becomes a write, staged through shared memory"
                          : "idx and idy exchanged: fewer accesses left "
                            "uncoalesced";
        P.Parameters["block"] =
            llvm::formatv("{0}x{1}", S.Block[0], S.Block[1]).str();
        if (S.Merge[1] > 1)
          P.Parameters["merge"] = llvm::formatv("1x{0}", S.Merge[1]).str();
        F = std::move(*K->Kernel);
        return P;
      }};
}

} // namespace gpumerge
