//===- Accesses.cpp - The global-memory accesses of a kernel --------------===//
#include "Analysis/Accesses.h"

#include "IR/Printer.h"

namespace gpumerge {

const char *indexKindName(IndexKind K) {
  switch (K) {
  case IndexKind::Constant:
    return "constant";
  case IndexKind::Predefined:
    return "predefined";
  case IndexKind::Loop:
    return "loop";
  case IndexKind::Unresolved:
    return "unresolved";
  }
  return "?";
}

namespace {

class Collector {
public:
  explicit Collector(const Function &F) : F(F), Ctx(kernelAffineContext(F)) {}

  std::vector<Access> run() {
    visit(*F.Body);
    return std::move(Result);
  }

private:
  const Function &F;
  AffineContext Ctx;
  std::vector<LoopInfo> Loops;
  std::vector<Access> Result;

  void visit(Stmt &S) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
      visitExpr(*L->Init, false);
      visitExpr(*L->Bound, false);
      LoopInfo Info;
      Info.Iter = L->Iter;
      Info.Step = L->Step;
      Info.ConstantStep = L->hasConstantStep();
      Info.Loop = L;
      if (auto Start = toAffine(*L->Init, Ctx)) {
        Info.Start = Start->asConstant();
        if (Start->mentions(AffineVar::Kind::Thread))
          Info.ThreadStart = *Start;
      }
      Loops.push_back(Info);
      Ctx.LoopIterators.insert(L->Iter);
      visit(*L->Body);
      Ctx.LoopIterators.erase(L->Iter);
      Loops.pop_back();
      return;
    }
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S)) {
      // c[i] += x reads and writes c[i].
      visitExpr(*A->LHS, true);
      if (A->Op != AssignOp::Set)
        visitExpr(*A->LHS, false);
      visitExpr(*A->RHS, false);
      return;
    }
    S.forEachExpr([&](ExprPtr &E) { visitExpr(*E, false); });
    S.forEachStmt([&](StmtPtr &C) { visit(*C); });
  }

  void visitExpr(const Expr &Root, bool RootIsWrite) {
    walkExpr(Root, [&](const Expr &E) {
      const auto *R = llvm::dyn_cast<ArrayRef>(&E);
      if (!R || (R->Space != AddressSpace::Global &&
                 R->Space != AddressSpace::Constant))
        return;
      if (RootIsWrite && &E == &Root)
        record(*R, true);
      else
        record(*R, false);
    });
  }

  void record(const ArrayRef &R, bool IsWrite) {
    Access A;
    A.Ref = &R;
    A.Array = R.Array;
    A.IsWrite = IsWrite;
    A.Line = R.getLine();
    A.ElementBytes = R.getType().elementBytes();
    A.Loops = Loops;
    for (size_t I = 0; I < R.Indices.size(); ++I)
      A.IndexText += (I ? "][" : "") + printExprDebug(*R.Indices[I]);
    // Flatten a[y][x] with the array's inner extents: y*N + x.
    const Param *P = F.findParam(R.Array);
    std::optional<AffineForm> Flat = AffineForm::constant(0);
    for (size_t I = 0; I < R.Indices.size() && Flat; ++I) {
      auto Part = toAffine(*R.Indices[I], Ctx);
      if (!Part) {
        Flat.reset();
        break;
      }
      std::int64_t Stride = 1;
      if (P)
        for (size_t J = I; J < P->Ty.InnerExtents.size(); ++J)
          Stride *= P->Ty.InnerExtents[J];
      *Flat = *Flat + Part->scaled(Stride);
    }
    // j = start + (distance travelled) when the start is a thread position.
    for (const LoopInfo &L : Loops)
      if (Flat && L.ThreadStart) {
        AffineVar V{AffineVar::Kind::Loop, L.Iter};
        *Flat =
            Flat->without(V) +
            Flat->coefficientOf(V) * (*L.ThreadStart + AffineForm::variable(V));
      }
    if (Flat && !Flat->isAffine())
      Flat.reset();
    A.Index = Flat;
    if (!Flat)
      A.Kind = IndexKind::Unresolved;
    else if (Flat->mentions(AffineVar::Kind::Loop))
      A.Kind = IndexKind::Loop;
    else if (Flat->mentions(AffineVar::Kind::Thread))
      A.Kind = IndexKind::Predefined;
    else
      A.Kind = IndexKind::Constant;
    Result.push_back(std::move(A));
  }
};

} // namespace

std::vector<Access> collectAccesses(const Function &F) {
  return Collector(F).run();
}

} // namespace gpumerge
