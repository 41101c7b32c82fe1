//===- Vectorize.cpp - Vector loads and stores (§3.1) ---------------------===//
//
// vectorize: accesses of one thread to neighbouring elements of a global
// array become one vector access (Fig. 3). Intra-thread, reads:
//
//   cmv before:                     after (h100):
//     float xr = x[2 * j];            float2 x_v = ((const float2 *)x)[j];
//     float xi = x[2 * j + 1];        float xr = x_v.x;
//                                     float xi = x_v.y;
//
// and writes of neighbouring elements by consecutive statements:
//
//     y[2 * i] = re;                  ((float2 *)y)[i] = make_float2(re, im);
//     y[2 * i + 1] = im;
//
// Loop-based (where the target's policy allows it): a unit-step loop whose
// body reads a[i + N] is unrolled by the vector width so that the copies'
// reads become neighbours, and then combined as above:
//
//   mv before:
//     for (int j = 0; j < w; j++)
//       sum += a[i * w + j] * x[j];
//
//   after (hd5870, width 2):
//     for (int j = 0; j < w; j += 2) {
//       float2 a_v = ((const float2 *)a)[(i * w + j) / 2];
//       float2 x_v = ((const float2 *)x)[j / 2];
//       sum += a_v.x * x_v.x;
//       sum += a_v.y * x_v.y;
//     }
//
// A group of W accesses combines when the first index is provably a
// multiple of W (every term of its affine form is, or its symbolic factor
// is a size parameter that the launch then checks: `w % 2 == 0`) and the
// others are it + 1, ..., + W-1; the unrolled loop's trip count likewise.
// Every such condition and the alignment of the array's address become
// preconditions of the kernel's launch plan, so the launcher falls back to
// the original kernel where they fail.
//
// Policy (Fig. 4): the global variant vectorizes within a thread only, with
// float2, on NVIDIA GPUs; on AMD GPUs loop-based and inter-thread as well,
// with the target's Vectorization width. Output arrays: intra-thread only.
// Past the paper: on NVIDIA targets whose description sets
// StreamVectorization (Volta and later), a kernel nothing else optimized
// (it only streams memory: saxpy, a copy) has that many neighbouring
// threads merged in X and their accesses combined, float4 per thread.
//
// Order: the paper vectorizes first. Here the passes before this one each
// regenerate the kernel from its origin (Tiling.cpp), so vectorization runs
// last, on the accesses that are still global after coalescing and merging.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Affine.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"
#include "Target/MachineDescription.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"
#include "Transforms/Vectorizer.h"
#include "Transforms/WholeGroups.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

VectorPolicy policyFor(const PassContext &Ctx) {
  const MachineDescription &MD = Ctx.Target;
  VectorPolicy P;
  // The paper's texture variant (§3.5) fetches four-channel texels; a
  // texture variant that follows the global one vectorizes as it does.
  if (Ctx.paperTexture()) {
    P.Width = P.MergedWidth = 4;
    P.LoopBased = P.InterThread = true;
    return P;
  }
  bool Amd = MD.GpuVendor == Vendor::Amd;
  P.Width = P.MergedWidth = Amd && MD.Vectorization >= 2 ? MD.Vectorization : 2;
  P.LoopBased = P.InterThread = Amd;
  if (!Amd && MD.StreamVectorization) {
    P.InterThread = true;
    P.MergedWidth = MD.StreamVectorization;
  }
  return P;
}

/// Texture arrays with a scalar read left in \p F.
std::set<std::string> scalarTextureReads(const Function &F) {
  std::set<std::string> R;
  walkStmts(*F.Body, [&](Stmt &S) {
    S.forEachExpr([&](ExprPtr &E) {
      walkExpr(*E, [&](const Expr &X) {
        if (auto *A = llvm::dyn_cast<ArrayRef>(&X))
          if (A->VectorWidth == 1 && F.Plan &&
              F.Plan->readsThroughTexture(A->Array))
            R.insert(A->Array);
      });
    });
  });
  return R;
}

/// Scalar reads a vectorizer run combined (output arrays are vectorized
/// within a thread only, Fig. 4: their stores do not justify a merge).
size_t combinedReads(const Vectorizer &V) {
  size_t N = 0;
  for (const auto &[Key, Counts] : V.Counts)
    if (llvm::StringRef(Key).endswith("loads"))
      N += Counts.second;
  return N;
}

/// Global stores of \p F whose neighbouring threads in X do not write
/// neighbouring elements: each then takes several sectors per warp, partly
/// written (reads are cheaper: the merged copies' reads of a line meet in
/// the L1 cache). A symbolic or unresolved stride counts too; the vector
/// stores this pass made do not (neighbouring vectors).
size_t stridedStores(const Function &F) {
  size_t N = 0;
  for (const Access &A : collectAccesses(F)) {
    if (!A.IsWrite || A.Ref->VectorWidth > 1)
      continue;
    if (!A.Index) {
      ++N;
      continue;
    }
    std::optional<std::int64_t> S = strideInX(*A.Index).asConstant();
    N += !S || *S < -1 || *S > 1;
  }
  return N;
}

/// Global reads of \p F in loops whose neighbouring threads in X do not
/// read neighbouring elements (a symbolic or unresolved stride counts too;
/// vectors do not). A merge whose copies each run their own loop (bounds
/// read per thread: ELLPACK's rowLengths[t]) makes every such read of the
/// loop Width elements apart across the warp: Width times the sectors of
/// each load, for a vector load or store outside the loop.
size_t stridedLoopReads(const Function &F) {
  size_t N = 0;
  for (const Access &A : collectAccesses(F)) {
    if (A.IsWrite || A.Loops.empty() || A.Ref->VectorWidth > 1)
      continue;
    std::optional<std::int64_t> S =
        A.Index ? strideInX(*A.Index).asConstant() : std::nullopt;
    N += !S || *S < -1 || *S > 1;
  }
  return N;
}

/// The loops of \p F.
size_t loopCount(const Function &F) {
  size_t N = 0;
  walkStmts(*F.Body, [&](Stmt &S) { N += llvm::isa<ForStmt>(S); });
  return N;
}

/// \p F with each compound store to a global scalar element written out
/// (`y[i] += x[i]` as `y[i] = y[i] + x[i]`), so that a merge's copies read
/// their neighbours' elements where the vectorizer combines reads, and
/// store them where it combines stores.
std::unique_ptr<Function> withStoresWrittenOut(const Function &F) {
  std::unique_ptr<Function> Out = F.clone();
  walkStmts(*Out->Body, [](Stmt &S) {
    auto *A = llvm::dyn_cast<AssignStmt>(&S);
    auto *R = A ? llvm::dyn_cast<ArrayRef>(A->LHS.get()) : nullptr;
    std::optional<BinaryOp> Op = A ? assignBinaryOp(A->Op) : std::nullopt;
    if (!Op || !R || R->Space != AddressSpace::Global ||
        R->getType().VectorWidth != 1 || A->Async)
      return;
    A->RHS = binary(*Op, A->LHS->clone(), std::move(A->RHS));
    A->Op = AssignOp::Set;
  });
  return Out;
}

/// \p F (not yet tiled) with Width neighbouring threads merged in X (§3.1
/// inter-thread: idx → idx*W + k), when vectorizing that combines more
/// reads per naive thread than vectorizing F (the merged copies' reads of
/// neighbours, not merely the loop-based ones each copy has anyway); null
/// otherwise. A guarded kernel keeps its guard, with a branch for the
/// threads whose copies are all inside it (every size runs it, in one
/// launch); one without a guard runs on whole tiles.
std::unique_ptr<Function> mergedForVectors(const Function &Input,
                                           const MachineDescription &MD,
                                           const VectorPolicy &Policy,
                                           std::string &Shape,
                                           std::string &Refused) {
  std::unique_ptr<Function> Written = withStoresWrittenOut(Input);
  const Function &F = *Written;
  unsigned Dims = findDomain(F).Dims;
  TileShape S;
  S.Block = Dims == 1 ? std::array<std::int64_t, 2>{256, 1}
                      : std::array<std::int64_t, 2>{16, 16};
  S.Merge = {Policy.Width, 1};
  S.AdjacentX = true;
  auto Plain = F.clone();
  Vectorizer AsIs(*Plain, Policy, {}, F);
  AsIs.run();
  // Guarded copies first: they run at every size, edges included, in one
  // launch. Whole tiles (and <name>_edge) where the kernel has no guard, or
  // where the copies' reads combine only in control flow they share (a
  // loop each copy of a guard would repeat).
  std::unique_ptr<Function> Chosen;
  for (bool Whole : {false, true}) {
    S.WholeTiles = Whole;
    auto K = generateTiled(F, S, MD);
    if (!K) {
      llvm::consumeError(K.takeError());
      continue;
    }
    bool Branched = !Whole && K->Kernel->Plan->GuardsDomain &&
                    branchOnWholeGroups(*K->Kernel, {Policy.Width, 1});
    if (!K->Staged.empty() || (!Whole && !Branched))
      continue;
    // The gain counts the threads whose copies are all inside the guard.
    auto Trial = K->Kernel->clone();
    if (Branched)
      llvm::cast<IfStmt>(*Trial->Body->Body.back()).Else = nullptr;
    Vectorizer Merged(*Trial, Policy, {}, F);
    Merged.run();
    // Per naive thread: the merged kernel does the work of Width of them.
    // A store left scalar in the merged threads is Width elements apart
    // from its neighbour's: it costs more than the vectors save
    // (demosaicing's three planes: 0.49x naive on an H200).
    if (combinedReads(Merged) <= combinedReads(AsIs) * Policy.Width) {
      if (!Merged.Unordered.empty())
        Refused = llvm::formatv("merging {0} threads in X: {1}", Policy.Width,
                                Merged.Unordered)
                      .str();
      continue;
    }
    if (stridedStores(*Trial) > stridedStores(*Plain) * Policy.Width) {
      Refused = llvm::formatv("merging {0} threads in X would leave stores "
                              "{0} elements apart",
                              Policy.Width)
                    .str();
      continue;
    }
    if (stridedLoopReads(*Trial) > stridedLoopReads(*Plain) * Policy.Width) {
      Refused = llvm::formatv("merging {0} threads in X would leave the "
                              "reads of the loops each copy runs {0} "
                              "elements apart",
                              Policy.Width)
                    .str();
      continue;
    }
    // Copies that each run their own loop, with reads that were not
    // coalesced anyway (CSR's val[j] for j from rowDelimiters[row] to
    // rowDelimiters[row + 1]), run them one after another: a thread does
    // Width rows' loops in sequence, with a Width-th of the threads left to
    // hide their latency, for a vector access outside the loops.
    if (loopCount(*Trial) > loopCount(*Plain)) {
      Refused = llvm::formatv("merging {0} threads in X would run the {0} "
                              "copies' loops one after another in each "
                              "thread",
                              Policy.Width)
                    .str();
      continue;
    }
    Chosen = std::move(K->Kernel);
    break;
  }
  if (!Chosen)
    return nullptr;
  Shape = llvm::formatv("{0} neighbouring threads in X (block {1}x{2})",
                        Policy.Width, S.Block[0], S.Block[1])
              .str();
  return Chosen;
}

} // namespace

PassInfo vectorizePass() {
  return {"vectorize",
          "neighbouring global accesses of one thread (and, where the target's "
          "policy allows, of a loop unrolled by the width) as float2/float4",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            VectorPolicy Policy = policyFor(Ctx);
            // Texture arrays whose reads would not all combine keep scalar
            // fetches: find them on copies until none is left.
            std::set<std::string> ScalarTextures;
            for (unsigned Round = 0; F.Plan && !F.Plan->TextureArrays.empty();
                 ++Round) {
              auto Copy = F.clone();
              Vectorizer Trial(*Copy, Policy, ScalarTextures, tilingOrigin(F));
              Trial.run();
              std::set<std::string> Left = scalarTextureReads(*Copy);
              size_t Before = ScalarTextures.size();
              ScalarTextures.insert(Left.begin(), Left.end());
              if (ScalarTextures.size() == Before || Round == 4)
                break;
            }
            // Inter-thread: neighbouring threads in X merged, when that
            // combines more accesses than the kernel as it is.
            std::unique_ptr<Function> Merged;
            std::string MergedShape, Refused;
            VectorPolicy MergedPolicy = Policy;
            MergedPolicy.Width = Policy.MergedWidth;
            if (Policy.InterThread && !F.Plan)
              Merged = mergedForVectors(F, Ctx.Target, MergedPolicy,
                                        MergedShape, Refused);
            if (Merged)
              Policy = MergedPolicy;
            const Function &Naive = tilingOrigin(F);
            Function &G = Merged ? *Merged : F;
            Vectorizer V(G, Policy, ScalarTextures, Naive);
            V.run();
            if (G.Plan)
              for (const std::string &A : G.Plan->TextureArrays)
                if (!ScalarTextures.count(A) && V.Aligned.count(A))
                  G.Plan->TextureVectorWidth[A] = 4;
            if (V.Done.empty()) {
              Why =
                  Policy.LoopBased
                      ? "no neighbouring global accesses of one thread or of "
                        "a unit-step loop's iterations with a provably aligned "
                        "first index"
                      : "no neighbouring global accesses of one thread with a "
                        "provably aligned first index (" +
                            std::string(Ctx.Target.GpuVendor == Vendor::Amd
                                            ? "AMD"
                                            : "NVIDIA") +
                            " global variant: intra-thread only" +
                            (Policy.InterThread
                                 ? ", and merged threads where nothing else "
                                   "changed the kernel"
                                 : "") +
                            ")" + (Refused.empty() ? "" : "; " + Refused);
              return std::nullopt;
            }
            sameLaunchPlan(G);
            std::vector<std::string> Conds;
            for (auto &[Text, P] : V.Conditions) {
              G.Plan->Preconditions.push_back(P);
              Conds.push_back(Text + " == 0");
            }
            for (const auto &[A, B] : V.Disjoint)
              G.Plan->requireDisjoint(A, B, V.Elements);
            std::vector<std::string> Aligned;
            for (auto &[Array, Bytes] : V.Aligned) {
              unsigned &A = G.Plan->AlignedBytes[Array];
              A = std::max(A, Bytes);
              Aligned.push_back(Array + " " + std::to_string(Bytes) + " B");
            }
            std::string Kinds = "intra-thread";
            if (Merged)
              Kinds += ", inter-thread";
            if (!V.UnrolledLoops.empty())
              Kinds += ", loop-based";
            AppliedPass R{"vectorize",
                          {{"width", std::to_string(Policy.Width)},
                           {"kinds", Kinds},
                           {"accesses", V.summary()},
                           {"alignment", llvm::join(Aligned, ", ")}}};
            if (!V.UnrolledLoops.empty())
              R.Parameters["unrolled"] = llvm::join(V.UnrolledLoops, ", ");
            if (!Conds.empty())
              R.Parameters["preconditions"] = llvm::join(Conds, ", ");
            if (Merged) {
              R.Parameters["merged"] = MergedShape;
              F = std::move(*Merged);
            }
            return R;
          }};
}

} // namespace gpumerge
