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
  std::vector<AccessGuard> Guards;
  std::vector<Access> Result;

  static bool isReturn(const Stmt &S) {
    if (llvm::isa<ReturnStmt>(S))
      return true;
    const auto *B = llvm::dyn_cast<BlockStmt>(&S);
    return B && B->Body.size() == 1 && llvm::isa<ReturnStmt>(*B->Body[0]);
  }

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
    if (auto *I = llvm::dyn_cast<IfStmt>(&S)) {
      visitExpr(*I->Cond, false);
      Guards.push_back({I->Cond.get(), false});
      visit(*I->Then);
      Guards.back().Negated = true;
      if (I->Else)
        visit(*I->Else);
      Guards.pop_back();
      return;
    }
    if (auto *B = llvm::dyn_cast<BlockStmt>(&S)) {
      // After `if (c) return;` the rest of the block runs where !c holds.
      size_t Depth = Guards.size();
      for (StmtPtr &C : B->Body) {
        visit(*C);
        const auto *I = llvm::dyn_cast<IfStmt>(C.get());
        if (I && !I->Else && isReturn(*I->Then))
          Guards.push_back({I->Cond.get(), true});
      }
      Guards.resize(Depth);
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
    visitExprUnder(Root, RootIsWrite ? &Root : nullptr);
  }

  /// The accesses of \p E in evaluation order; \p Written is the written
  /// element. The right of `c && a[i]` runs where c holds, so its accesses
  /// carry c as a guard (and the branches of `c ? a[i] : b[j]` theirs).
  void visitExprUnder(const Expr &E, const Expr *Written) {
    if (const auto *B = llvm::dyn_cast<BinaryExpr>(&E);
        B && (B->Op == BinaryOp::LAnd || B->Op == BinaryOp::LOr)) {
      visitExprUnder(*B->LHS, Written);
      Guards.push_back({B->LHS.get(), B->Op == BinaryOp::LOr});
      visitExprUnder(*B->RHS, Written);
      Guards.pop_back();
      return;
    }
    if (const auto *S = llvm::dyn_cast<SelectExpr>(&E)) {
      visitExprUnder(*S->Cond, Written);
      Guards.push_back({S->Cond.get(), false});
      visitExprUnder(*S->TrueVal, Written);
      Guards.back().Negated = true;
      visitExprUnder(*S->FalseVal, Written);
      Guards.pop_back();
      return;
    }
    // File-scope constant arrays (not parameters) are read-only tables in
    // their own memory: no pass moves or stages them.
    if (const auto *R = llvm::dyn_cast<ArrayRef>(&E);
        R && (R->Space == AddressSpace::Global ||
              (R->Space == AddressSpace::Constant && F.findParam(R->Array))))
      record(*R, &E == Written);
    const_cast<Expr &>(E).forEachChild(
        [&](ExprPtr &C) { visitExprUnder(*C, Written); });
  }

  void record(const ArrayRef &R, bool IsWrite) {
    Access A;
    A.Ref = &R;
    A.Array = R.Array;
    A.IsWrite = IsWrite;
    A.Line = R.getLine();
    A.ElementBytes = R.getType().elementBytes();
    A.Loops = Loops;
    A.Guards = Guards;
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

std::set<std::string> arraysUsedAsPointers(const Function &F) {
  // An indexed access names its array as ArrayRef::Array, not a VarRef.
  std::set<std::string> Used;
  walkExprs(*F.Body, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      if (const Param *P = F.findParam(V->Name); P && P->isArray())
        Used.insert(V->Name);
  });
  return Used;
}

namespace {

/// The integer array parameters of \p F whose values steer, directly or
/// through locals, the indices of its global writes (\p WritesOnly), or
/// those of every access and the loops' ranges.
std::set<std::string> steeringArrays(const Function &F, bool WritesOnly) {
  std::map<std::string, std::set<std::string>> From; // local → arrays
  auto Sources = [&](const Expr &E) {
    std::set<std::string> S;
    walkExpr(E, [&](const Expr &X) {
      if (const auto *R = llvm::dyn_cast<ArrayRef>(&X))
        S.insert(R->Array);
      else if (const auto *V = llvm::dyn_cast<VarRef>(&X))
        if (auto It = From.find(V->Name); It != From.end())
          S.insert(It->second.begin(), It->second.end());
    });
    return S;
  };
  auto Add = [](std::set<std::string> &To, const std::set<std::string> &A) {
    size_t Before = To.size();
    To.insert(A.begin(), A.end());
    return To.size() != Before;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    walkStmts(*F.Body, [&](Stmt &S) {
      if (const auto *D = llvm::dyn_cast<DeclStmt>(&S); D && D->Init)
        Changed |= Add(From[D->Name], Sources(*D->Init));
      else if (const auto *A = llvm::dyn_cast<AssignStmt>(&S))
        if (const auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
          Changed |= Add(From[V->Name], Sources(*A->RHS));
      if (const auto *L = llvm::dyn_cast<ForStmt>(&S); L && L->Init)
        Changed |= Add(From[L->Iter], Sources(*L->Init));
    });
  }
  std::set<std::string> Steering;
  if (WritesOnly) {
    walkStmts(*F.Body, [&](Stmt &S) {
      const auto *A = llvm::dyn_cast<AssignStmt>(&S);
      const auto *R = A ? llvm::dyn_cast<ArrayRef>(A->LHS.get()) : nullptr;
      if (R && R->Space == AddressSpace::Global)
        for (const ExprPtr &I : R->Indices)
          Add(Steering, Sources(*I));
    });
  } else {
    walkStmts(*F.Body, [&](Stmt &S) {
      if (const auto *L = llvm::dyn_cast<ForStmt>(&S))
        for (const Expr *E : {L->Init.get(), L->Bound.get()})
          if (E)
            Add(Steering, Sources(*E));
    });
    walkExprs(*F.Body, [&](const Expr &E) {
      if (const auto *R = llvm::dyn_cast<ArrayRef>(&E))
        for (const ExprPtr &I : R->Indices)
          Add(Steering, Sources(*I));
    });
  }
  std::set<std::string> Out;
  for (const std::string &A : Steering)
    if (const Param *P = F.findParam(A);
        P && P->Ty.IsPointer && P->Ty.element().isInteger())
      Out.insert(A);
  return Out;
}

} // namespace

std::set<std::string> arraysSteeringIndices(const Function &F) {
  return steeringArrays(F, /*WritesOnly=*/false);
}

std::set<std::string> arraysSteeringWrites(const Function &F) {
  return steeringArrays(F, /*WritesOnly=*/true);
}

} // namespace gpumerge
