//===- PartitionCamping.cpp - Diagonal block order against camping --------===//
//
// §3.7. Global memory is split into partitions of PartitionWidth bytes
// interleaved over MemoryPartitions controllers. When the blocks that run
// together (neighbours in X) start their accesses a multiple of
// PartitionWidth x MemoryPartitions bytes apart, they all hit one partition
// ("camping"). Only accesses that move with bidx are examined; the stride
// between bidx and bidx + 1 is the index's coefficient of idx times the
// tile width, evaluated at the kernel's `#pragma gpumerge size` hints.
//
// 2-D grids get the diagonal block order of Ruetsch and Micikevicius (the
// paper's newbidy = bidx, newbidx = (bidx + bidy) % gridDim.x, generalised
// so any grid shape stays a bijection):
//
//   before: x = blockIdx.x * blockDim.x + threadIdx.x; ...
//   after:  int gm_bid = blockIdx.x + gridDim.x * blockIdx.y;
//           int gm_bidy = gm_bid % gridDim.y;
//           int gm_bidx = (gm_bid / gridDim.y + gm_bidy) % gridDim.x;
//           x = gm_bidx * blockDim.x + threadIdx.x; ...
//
// 1-D grids (the offset rotation of Fig. 15c) are not done yet; the pass
// says so.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Domain.h"
#include "IR/Evaluate.h"
#include "IR/Substitute.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

namespace {

/// The accesses whose neighbouring blocks in X land in one partition, at
/// the size hints; empty when none or when the sizes are unknown.
std::vector<std::string> campingAccesses(const Function &F,
                                         const MachineDescription &MD,
                                         std::int64_t TileX, std::string &Why) {
  // The accesses as the kernel makes them: after an interchange its X is
  // the naive Y.
  std::unique_ptr<Function> Swapped;
  if (F.Plan && F.Plan->Interchanged)
    Swapped = interchanged(tilingOrigin(F));
  const Function &Origin = Swapped ? *Swapped : tilingOrigin(F);
  std::vector<std::string> Found;
  std::map<std::string, std::int64_t> Sizes(Origin.SizeHints.begin(),
                                            Origin.SizeHints.end());
  std::int64_t Period = std::int64_t(MD.PartitionWidth) * MD.MemoryPartitions;
  bool Unknown = false;
  for (const Access &A : collectAccesses(Origin)) {
    if (!A.Index)
      continue;
    AffineForm C = A.Index->coefficientOf({AffineVar::Kind::Thread, "idx"});
    if (C.Terms.empty())
      continue;
    std::optional<std::int64_t> Coeff = C.asConstant();
    if (!Coeff) {
      // A symbolic stride (the row length h of out[x*h + y]): its value at
      // the hints.
      std::int64_t V = 0;
      bool Ok = true;
      for (const auto &[M, K] : C.Terms) {
        std::int64_t T = K;
        for (const AffineVar &Var : M) {
          auto It = Sizes.find(Var.Name);
          Ok &= It != Sizes.end();
          T *= Ok ? It->second : 0;
        }
        V += T;
      }
      if (!Ok) {
        Unknown = true;
        continue;
      }
      Coeff = V;
    }
    std::int64_t Stride = *Coeff * TileX * A.ElementBytes;
    if (Stride != 0 && Stride % Period == 0)
      Found.push_back(llvm::formatv("{0}[{1}] ({2} bytes between blocks)",
                                    A.Array, A.IndexText, Stride)
                          .str());
  }
  if (Found.empty())
    Why = Unknown
              ? "no size hints to evaluate the strides between blocks"
              : llvm::formatv("no access has blocks a multiple of {0} "
                              "bytes apart ({1} partitions of {2} bytes)",
                              Period, MD.MemoryPartitions, MD.PartitionWidth)
                    .str();
  return Found;
}

} // namespace

PassInfo partitionCampingPass() {
  return {"partition-camping",
          "diagonal block order when neighbouring blocks hit one memory "
          "partition (§3.7)",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            unsigned Dims = findDomain(tilingOrigin(F)).Dims;
            if (Dims != 2) {
              Why = "1-D grids (the offset rotation of Fig. 15c) are not "
                    "implemented";
              return std::nullopt;
            }
            bool Planned = F.Plan && !F.Plan->SameLaunch;
            std::int64_t TileX = Planned ? F.Plan->tile(0) : 16;
            auto Found = campingAccesses(F, Ctx.Target, TileX, Why);
            if (Found.empty())
              return std::nullopt;
            bool Uses = false;
            walkExprs(*F.Body, [&](const Expr &E) {
              if (auto *B = llvm::dyn_cast<BuiltinRef>(&E))
                Uses |=
                    B->Which == Builtin::Gsizex || B->Which == Builtin::Gsizey;
            });
            if (Uses) {
              Why = "the kernel reads the grid size";
              return std::nullopt;
            }
            // Positions in terms of block indices, then the new order.
            for (Builtin B : {Builtin::Idx, Builtin::Idy}) {
              bool X = B == Builtin::Idx;
              substituteBuiltin(
                  *F.Body, B,
                  *add(mul(builtin(X ? Builtin::Bidx : Builtin::Bidy),
                           builtin(X ? Builtin::Bdimx : Builtin::Bdimy)),
                       builtin(X ? Builtin::Tidx : Builtin::Tidy)));
            }
            substituteBuiltin(*F.Body, Builtin::Bidx, *var("gm_bidx"));
            substituteBuiltin(*F.Body, Builtin::Bidy, *var("gm_bidy"));
            std::vector<StmtPtr> Prologue;
            Prologue.push_back(std::make_unique<DeclStmt>(
                "gm_bid", Type::scalar(ScalarKind::Int),
                add(builtin(Builtin::Bidx),
                    mul(builtin(Builtin::Gdimx), builtin(Builtin::Bidy)))));
            Prologue.push_back(std::make_unique<DeclStmt>(
                "gm_bidy", Type::scalar(ScalarKind::Int),
                binary(BinaryOp::Rem, var("gm_bid"), builtin(Builtin::Gdimy))));
            Prologue.push_back(std::make_unique<DeclStmt>(
                "gm_bidx", Type::scalar(ScalarKind::Int),
                binary(BinaryOp::Rem,
                       add(binary(BinaryOp::Div, var("gm_bid"),
                                  builtin(Builtin::Gdimy)),
                           var("gm_bidy")),
                       builtin(Builtin::Gdimx))));
            for (StmtPtr &S : F.Body->Body)
              Prologue.push_back(std::move(S));
            F.Body->Body = std::move(Prologue);
            AppliedPass P{"partition-camping", {}};
            P.Parameters["order"] = "diagonal";
            P.Parameters["accesses"] = llvm::join(Found, "; ");
            return P;
          }};
}

} // namespace gpumerge
