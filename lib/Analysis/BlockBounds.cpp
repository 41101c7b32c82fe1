//===- BlockBounds.cpp - Block sizes a kernel's shared arrays admit -------===//
#include "Analysis/BlockBounds.h"
#include "Analysis/Affine.h"

#include <algorithm>
#include <map>
#include <vector>

namespace gpumerge {

std::array<std::int64_t, 2> sharedArrayBlockBound(const Function &F) {
  std::map<std::string, std::vector<std::int64_t>> Extents;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S);
        D && D->Ty.Space == AddressSpace::Shared && !D->Extents.empty())
      Extents[D->Name] = D->Extents;
  });
  std::array<std::int64_t, 2> Bound = {0, 0};
  if (Extents.empty())
    return Bound;
  // An index's form (Affine.h), locals assigned once read as their values.
  AffineContext Ctx = kernelAffineContext(F);
  const AffineVar Position[2] = {
      {AffineVar::Kind::Thread, builtinName(Builtin::Tidx)},
      {AffineVar::Kind::Thread, builtinName(Builtin::Tidy)}};
  walkExprs(*F.Body, [&](const Expr &E) {
    const auto *A = llvm::dyn_cast<ArrayRef>(&E);
    auto It = A ? Extents.find(A->Array) : Extents.end();
    if (It == Extents.end() || It->second.size() != A->Indices.size())
      return;
    for (size_t K = 0; K < A->Indices.size(); ++K) {
      std::optional<AffineForm> Form = toAffine(*A->Indices[K], Ctx);
      for (unsigned Dim = 0; Form && Dim < 2; ++Dim) {
        // tidx (or tidy) plus a constant that is not negative.
        AffineForm Rest = Form->without(Position[Dim]);
        if (Form->coefficientOf(Position[Dim]).asConstant() != 1 ||
            !Rest.isConstant() || Rest.constantTerm() < 0)
          continue;
        std::int64_t Fits =
            std::max<std::int64_t>(1, It->second[K] - Rest.constantTerm());
        Bound[Dim] = Bound[Dim] ? std::min(Bound[Dim], Fits) : Fits;
      }
    }
  });
  return Bound;
}

} // namespace gpumerge
