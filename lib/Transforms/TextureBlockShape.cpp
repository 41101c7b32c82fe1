//===- TextureBlockShape.cpp - The block shape of the texture variant -----===//
//
// texture-block-shape (§3.5.1). The texture variant has no shared memory
// and no coalescing step; what matters is that the threads of a warp hit
// few texture cache lines. The block is one warp, 8x4 for a 2-D output, and
// stretched along the dimension in which a read-only array is read
// contiguously so that a row of the block covers a cache line:
//
//   conv before (naive 16x16):           after (h100, 128-byte lines):
//     out[y*w + x] = Σ in[(y+j)*W + x+i]   block 32x1: in[..][x+i] is read
//                                          along X, 128 / 4 = 32 threads
//   mm on gtx285 (64-byte lines): b[i*w + x] along X → 16x2;
//   mv (1-D output): 32x1; on hd5870 (wavefront 64) 64x1.
//
// Writes do not go through the texture cache: a write along Y (tp's
// out[x*h + y] = in[y*w + x]) has the positions exchanged (§3.3), so a
// warp writes one contiguous run and the reads, now along Y, hit the lines
// the block's other warps bring into the cache. Measured on an H200 at
// 4096^2, tp's texture variant with the reads' 32x8 block ran at 0.50x
// naive: every warp wrote 32 rows.
//
// The kernel is regenerated from the naive one with this block and the
// thread merge factors already chosen, without staging (Tiling.h with loop
// tile 0), so every copy keeps its bounds check and any size runs.
//
//===----------------------------------------------------------------------===//
#include "Transforms/TextureBlockShape.h"
#include "Analysis/Accesses.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

/// On GPUs that read through __ldg (sm_35 and later) one-warp blocks
/// cannot fill an SM (h100: 32 resident blocks of 32 threads are half its
/// 2048), and measured on an H100 they ran at a quarter of the naive
/// kernel's speed (bench/results, 2026-11-23). On Fermi 8 resident blocks
/// of 32 threads are a sixth of its 1536 (the simulated GTX 480 ran them at
/// about 16% occupancy). There the warp-shaped block is stacked to
/// StackedThreads along its short side, so the side that covers a cache
/// line stays as it is. GT200 and the HD 5870 keep the paper's shapes.
constexpr std::int64_t StackedThreads = 256;

static bool oneWarpStarves(const MachineDescription &MD, std::int64_t Threads) {
  if (defaultTextureForm(MD) == TextureForm::Ldg)
    return true;
  bool FermiOrLater =
      MD.GpuVendor == Vendor::Nvidia && MD.CoalescedThread >= MD.ThreadInWarp;
  return FermiOrLater && Threads * MD.ThreadBlockInMP * 2 < MD.ThreadInMP;
}

static TextureBlock stacked(TextureBlock R, const MachineDescription &MD,
                            unsigned Dims) {
  std::int64_t Threads = R.Block[0] * R.Block[1];
  if (Threads >= StackedThreads || !oneWarpStarves(MD, Threads))
    return R;
  std::int64_t K = StackedThreads / Threads;
  if (Dims < 2) {
    R.Block[0] *= K;
    R.Why = llvm::formatv("{0} threads ({1} warps) for a 1-D output: "
                          "one-warp blocks cannot fill {2}'s SMs",
                          R.Block[0], R.Block[0] / MD.ThreadInWarp, MD.Name)
                .str();
    return R;
  }
  bool High = R.Block[1] <= R.Block[0];
  R.Block[High ? 1 : 0] *= K;
  R.Why += llvm::formatv(", stacked {0} {1} to {2} threads (one-warp "
                         "blocks cannot fill {3}'s SMs)",
                         K, High ? "high" : "wide", StackedThreads, MD.Name)
               .str();
  return R;
}

TextureBlock textureBlockShape(const Function &Origin,
                               const MachineDescription &MD) {
  const std::int64_t Warp = MD.ThreadInWarp;
  TextureBlock R;
  if (findDomain(Origin).Dims < 2) {
    R.Block = {Warp, 1};
    R.Why =
        llvm::formatv("one {0} of {1} threads for a 1-D output",
                      MD.GpuVendor == Vendor::Amd ? "wavefront" : "warp", Warp);
    return stacked(std::move(R), MD, 1);
  }
  if (canInterchange(Origin)) {
    unsigned Here = countUncoalesced(Origin, MD, AccessKinds::Writes);
    if (Here > 0 && countUncoalesced(*interchanged(Origin), MD,
                                     AccessKinds::Writes) < Here) {
      R.Block = {Warp, 1};
      R.Interchange = true;
      R.Why = llvm::formatv("a write is coalesced only along Y: positions "
                            "exchanged, one {0} of {1} threads writes a row",
                            MD.GpuVendor == Vendor::Amd ? "wavefront" : "warp",
                            Warp)
                  .str();
      return stacked(std::move(R), MD, 2);
    }
  }
  // Spatial locality: a read-only array whose index moves by one element
  // with idx (along X) or idy (along Y). The line holds Line / datum of them.
  std::set<std::string> Written;
  std::vector<Access> All = collectAccesses(Origin);
  for (const Access &A : All)
    if (A.IsWrite)
      Written.insert(A.Array);
  std::int64_t Need[2] = {0, 0};
  std::string Seen[2];
  for (const Access &A : All) {
    if (A.IsWrite || Written.count(A.Array) || !A.Index || !A.ElementBytes)
      continue;
    for (unsigned D = 0; D < 2; ++D) {
      auto C =
          A.Index->coefficientOf({AffineVar::Kind::Thread, D ? "idy" : "idx"})
              .asConstant();
      if (!C || *C != 1)
        continue;
      std::int64_t N =
          std::max<std::int64_t>(1, MD.CacheLineSize / A.ElementBytes);
      if (N > Need[D]) {
        Need[D] = N;
        Seen[D] = A.Array + "[" + A.IndexText + "]";
      }
    }
  }
  // 8x4 for a warp of 32, 8x8 for a wavefront of 64.
  std::int64_t X = std::min<std::int64_t>(8, Warp);
  std::int64_t Y = Warp / X;
  std::string Why =
      llvm::formatv("one {0} of {1} threads, 8 wide for a 2-D "
                    "output",
                    MD.GpuVendor == Vendor::Amd ? "wavefront" : "warp", Warp);
  // Locality along X wins where both are seen: rows are what the naive
  // kernels walk contiguously.
  if (Need[0] > X) {
    X = std::min(Need[0], Warp);
    Y = Warp / X;
    Why = llvm::formatv("{0} is read along X: {1} threads cover a {2}-byte "
                        "texture cache line",
                        Seen[0], X, MD.CacheLineSize);
  } else if (Need[1] > Y) {
    Y = std::min(Need[1], Warp);
    X = Warp / Y;
    Why = llvm::formatv("{0} is read along Y: {1} threads cover a {2}-byte "
                        "texture cache line",
                        Seen[1], Y, MD.CacheLineSize);
  }
  R.Block = {X, Y};
  R.Why = Why;
  return stacked(std::move(R), MD, 2);
}

PassInfo textureBlockShapePass() {
  return {"texture-block-shape",
          "the texture variant's block: one warp shaped for the texture cache "
          "(§3.5.1)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            if (F.Plan && F.Plan->Lanes > 1) { // regenerating would unsplit it
              Why = F.Plan->ShapeFixedBy;
              return std::nullopt;
            }
            if (F.Plan && F.Plan->LoopTile > 0) {
              Why = "the kernel reads through shared memory tiles (a "
                    "global-variant shape); the texture block is for kernels "
                    "without staging";
              return std::nullopt;
            }
            const Function &Origin = tilingOrigin(F);
            TextureBlock TB = textureBlockShape(Origin, Ctx.Target);
            TileShape S;
            S.Block = TB.Block;
            S.Merge = F.Plan && F.Plan->Origin
                          ? F.Plan->Coverage
                          : std::array<std::int64_t, 2>{1, 1};
            S.LoopTile = 0;
            // Thread merge ran on the texture block, exchanged or not.
            S.Interchange = F.Plan ? F.Plan->Interchanged : TB.Interchange;
            // Merged copies share their loops only without per-copy guards
            // (thread-merge generated them so); unmerged kernels keep theirs.
            S.WholeTiles = S.Merge != std::array<std::int64_t, 2>{1, 1};
            auto K = generateTiled(Origin, S, Ctx.Target);
            if (!K) {
              Why = llvm::toString(K.takeError());
              return std::nullopt;
            }
            // What an earlier pass recorded about the launch carries over.
            if (F.Plan) {
              K->Kernel->Plan->PtxasSource = F.Plan->PtxasSource;
              K->Kernel->Plan->PtxasRegisters = F.Plan->PtxasRegisters;
              K->Kernel->Plan->PtxasSpillBytes = F.Plan->PtxasSpillBytes;
            }
            F = std::move(*K->Kernel);
            AppliedPass P{"texture-block-shape", {}};
            P.Parameters["block"] =
                llvm::formatv("{0}x{1}", S.Block[0], S.Block[1]).str();
            P.Parameters["merge"] =
                llvm::formatv("{0}x{1}", S.Merge[0], S.Merge[1]).str();
            if (S.Interchange)
              P.Parameters["interchange"] = "idx and idy exchanged";
            P.Parameters["why"] = TB.Why;
            return P;
          }};
}

} // namespace gpumerge
