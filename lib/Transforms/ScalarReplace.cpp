//===- ScalarReplace.cpp - Keep a loop's accumulator in a register --------===//
//
// scalar-replace (docs/passes.md). Naive code often accumulates straight
// into global memory: each iteration reads and writes the thread's own
// element. When every access to that array in the loop is at one index that
// does not change in the loop, the element lives in a register across the
// loop and is written once:
//
//   Before (gemm_accum):
//     if (i < m && j < n) {
//       for (int l = 0; l < k; l = l + 1)
//         c[i * n + j] += a[i * k + l] * b[l * n + j];
//     }
//   After:
//     if (i < m && j < n) {
//       float c_reg = c[i * n + j];
//       for (int l = 0; l < k; l++)
//         c_reg += a[i * k + l] * b[l * n + j];
//       c[i * n + j] = c_reg;
//     }
//   Plan: SameLaunch, Disjoint {c: a, c: b}, Elements {a: k * m, b: k * n,
//   c: m * n}: the launcher runs gemm_accum_naive when c overlaps a or b.
//
// Legality:
//   - every access to the array in the loop (reads, writes, nested loops and
//     conditions included) uses the same index, and that index holds no
//     iterator of this loop or an inner one, no local assigned or declared
//     in the loop and no array element: it names one element for the whole
//     loop, so the register is that element;
//   - the loop holds no return (which would skip the write-back) and no
//     barrier (another thread could read the element after a barrier inside
//     the loop, before the write-back), its start and bound do not read
//     the array, and no array pointer is passed on in it;
//   - no other array accessed in the loop overlaps the element: the pass
//     cannot prove it, so it records each pair (array, other array) in the
//     kernel's LaunchPlan as Disjoint, with the symbolic element counts of
//     both (Analysis/Extents.h), and the launcher checks the address ranges
//     at run time, falling back to the naive kernel (a plan made here has
//     SameLaunch: the launch itself is unchanged). An array whose count
//     cannot be bounded symbolically blocks the replacement.
//
// The load before and the store after run even when the loop runs zero
// times; they then write back the value just read. That is the same as the
// naive kernel unless another thread writes the element meanwhile, and in a
// kernel where one thread owns each element it accumulates into (what the
// loop's own read-modify-writes already require to be race-free), none does.
//
//===----------------------------------------------------------------------===//
#include "Transforms/Passes.h"

#include "Analysis/Extents.h"
#include "IR/Printer.h"

#include "llvm/ADT/StringExtras.h"

#include <set>

namespace gpumerge {

namespace {

/// The ArrayRef an assignment writes: `c[e] = ...` or `c[e].x = ...`.
const ArrayRef *writtenRef(const AssignStmt &A) {
  const Expr *L = A.LHS.get();
  if (const auto *M = llvm::dyn_cast<MemberExpr>(L))
    L = M->Base.get();
  return llvm::dyn_cast<ArrayRef>(L);
}

/// Names whose value may change from one iteration of \p L to the next:
/// its iterator and those of inner loops, locals declared or assigned in it.
std::set<std::string> namesChangedIn(ForStmt &L) {
  std::set<std::string> Names = {L.Iter};
  walkStmts(*L.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
      Names.insert(D->Name);
    else if (auto *F = llvm::dyn_cast<ForStmt>(&S))
      Names.insert(F->Iter);
    else if (auto *A = llvm::dyn_cast<AssignStmt>(&S)) {
      const Expr *T = A->LHS.get();
      if (const auto *M = llvm::dyn_cast<MemberExpr>(T))
        T = M->Base.get();
      if (const auto *V = llvm::dyn_cast<VarRef>(T))
        Names.insert(V->Name);
    }
  });
  return Names;
}

class ScalarReplacer {
public:
  explicit ScalarReplacer(Function &F) : F(F) {
    // Extents of the kernel as it came in: the replacement keeps every
    // element access's index, so they stay valid while it rewrites.
    for (const Param &P : F.Params)
      if (P.isArray())
        Elements[P.Name] =
            std::shared_ptr<const Expr>(symbolicElements(F, P.Name).release());
    Taken = declaredNames(F);
    walkExprs(*F.Body, [&](const Expr &E) {
      if (const auto *V = llvm::dyn_cast<VarRef>(&E))
        Taken.insert(V->Name);
      else if (const auto *C = llvm::dyn_cast<CallExpr>(&E))
        Taken.insert(C->Callee);
    });
  }

  void run() { visitBlock(*F.Body); }

  std::vector<std::string> Replaced; ///< "c[i * n + j]", in order
  std::vector<std::string> Reasons;  ///< why a candidate was left alone
  unsigned Loops = 0, LoopsWriting = 0;

private:
  Function &F;
  std::map<std::string, std::shared_ptr<const Expr>> Elements;
  std::set<std::string> Taken;

  /// What to put around a loop: register declarations before, stores after.
  struct Rewrite {
    std::vector<StmtPtr> Before, After;
  };

  void because(const std::string &R) {
    if (std::find(Reasons.begin(), Reasons.end(), R) == Reasons.end())
      Reasons.push_back(R);
  }

  void visitBlock(BlockStmt &B) {
    for (size_t I = 0; I < B.Body.size(); ++I) {
      auto *L = llvm::dyn_cast<ForStmt>(B.Body[I].get());
      if (!L) {
        visit(B.Body[I]);
        continue;
      }
      Rewrite R = replaceIn(*L);
      size_t NBefore = R.Before.size(), NAfter = R.After.size();
      B.Body.insert(B.Body.begin() + I + 1,
                    std::make_move_iterator(R.After.begin()),
                    std::make_move_iterator(R.After.end()));
      B.Body.insert(B.Body.begin() + I,
                    std::make_move_iterator(R.Before.begin()),
                    std::make_move_iterator(R.Before.end()));
      I += NBefore;
      L->forEachStmt([&](StmtPtr &C) { visit(C); });
      I += NAfter;
    }
  }

  /// A statement slot: a loop that is the whole body of an if or a loop
  /// gets a block around it when registers are placed beside it.
  void visit(StmtPtr &Slot) {
    if (auto *B = llvm::dyn_cast<BlockStmt>(Slot.get()))
      return visitBlock(*B);
    if (auto *L = llvm::dyn_cast<ForStmt>(Slot.get())) {
      Rewrite R = replaceIn(*L);
      if (!R.Before.empty()) {
        auto Block = std::make_unique<BlockStmt>();
        Block->setLine(L->getLine());
        for (StmtPtr &S : R.Before)
          Block->Body.push_back(std::move(S));
        Block->Body.push_back(std::move(Slot));
        for (StmtPtr &S : R.After)
          Block->Body.push_back(std::move(S));
        Slot = std::move(Block);
      }
      L->forEachStmt([&](StmtPtr &C) { visit(C); });
      return;
    }
    Slot->forEachStmt([&](StmtPtr &C) { visit(C); });
  }

  /// The arrays \p L writes that can live in a register, replaced; what to
  /// place before and after the loop.
  Rewrite replaceIn(ForStmt &L) {
    ++Loops;
    Rewrite R;
    // Written arrays, in order of their first write.
    std::vector<const ArrayRef *> Writes;
    bool Escapes = false, Leaves = false;
    walkStmts(*L.Body, [&](Stmt &S) {
      if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
        if (const ArrayRef *W = writtenRef(*A))
          if (W->Space == AddressSpace::Global)
            Writes.push_back(W);
      Leaves |= llvm::isa<ReturnStmt>(S) || llvm::isa<SyncStmt>(S) ||
                llvm::isa<GlobalSyncStmt>(S) || llvm::isa<JumpStmt>(S);
    });
    if (Writes.empty())
      return R;
    ++LoopsWriting;
    std::string Loop = "the loop over '" + L.Iter + "'";
    if (Leaves) {
      because(Loop + " holds a return or a barrier");
      return R;
    }

    // Every global access in the loop (body, start and bound), by array.
    std::map<std::string, std::vector<const ArrayRef *>> Refs;
    std::set<std::string> InHeader;
    auto Collect = [&](const Expr &E, bool Header) {
      walkExpr(E, [&](const Expr &X) {
        if (const auto *A = llvm::dyn_cast<ArrayRef>(&X)) {
          if (A->Space != AddressSpace::Global &&
              A->Space != AddressSpace::Constant)
            return;
          Refs[A->Array].push_back(A);
          if (Header)
            InHeader.insert(A->Array);
        } else if (const auto *V = llvm::dyn_cast<VarRef>(&X)) {
          // A pointer passed on: the pass cannot see what is done with it.
          const Param *P = F.findParam(V->Name);
          Escapes |= P && P->isArray();
        }
      });
    };
    Collect(*L.Init, true);
    Collect(*L.Bound, true);
    walkStmts(*L.Body, [&](Stmt &S) {
      S.forEachExpr([&](ExprPtr &E) { Collect(*E, false); });
    });
    if (Escapes) {
      because(Loop + " passes an array pointer on");
      return R;
    }

    std::set<std::string> Changing = namesChangedIn(L);
    std::set<std::string> Done;
    struct Chosen {
      const ArrayRef *Ref;
      std::string Array;
    };
    std::vector<Chosen> Picked;
    for (const ArrayRef *W : Writes) {
      const std::string &A = W->Array;
      if (!Done.insert(A).second)
        continue;
      std::string Text = printExprDebug(*W);
      const Param *P = F.findParam(A);
      if (!P || !P->isArray())
        continue;
      if (InHeader.count(A)) {
        because(Loop + " reads '" + A + "' in its bounds");
        continue;
      }
      const ArrayRef *Other = nullptr;
      // Every access of A at W's element (exprEquals: the same array,
      // vector width and indices).
      for (const ArrayRef *X : Refs[A])
        if (!exprEquals(*W, *X))
          Other = X;
      if (Other) {
        because("'" + A + "' is accessed at " + Text + " and " +
                printExprDebug(*Other) + " in " + Loop);
        continue;
      }
      std::string Varying;
      bool ReadsMemory = false;
      for (const ExprPtr &I : W->Indices)
        walkExpr(*I, [&](const Expr &X) {
          if (const auto *V = llvm::dyn_cast<VarRef>(&X)) {
            if (Changing.count(V->Name) && Varying.empty())
              Varying = V->Name;
          } else if (llvm::isa<ArrayRef>(X)) {
            ReadsMemory = true;
          }
        });
      if (!Varying.empty()) {
        because("the index of " + Text + " changes in " + Loop + " (through '" +
                Varying + "')");
        continue;
      }
      if (ReadsMemory) {
        because("the index of " + Text + " reads memory");
        continue;
      }
      // The launcher must see that no other array of the loop overlaps A.
      std::string Unbounded;
      for (const auto &[B, _] : Refs) {
        const Param *PB = F.findParam(B);
        if (!PB || !PB->isArray())
          continue;
        if (!Elements[B] && Unbounded.empty())
          Unbounded = B;
      }
      if (!Unbounded.empty() && Refs.size() > 1) {
        because("cannot bound the elements of '" + Unbounded +
                "' symbolically, needed to check at run time that " + Text +
                " overlaps no other array of " + Loop);
        continue;
      }
      Picked.push_back({W, A});
    }

    for (const Chosen &C : Picked) {
      std::string Text = printExprDebug(*C.Ref);
      // The parameter's element type keeps a typedef's spelling (DATA_TYPE).
      Type T = F.findParam(C.Array)->Ty.element();
      std::string Reg = uniqueName(Taken, C.Array + "_reg");
      auto Load = std::make_unique<DeclStmt>(Reg, T, C.Ref->clone());
      Load->setLine(L.getLine());
      auto Store = std::make_unique<AssignStmt>(C.Ref->clone(), AssignOp::Set,
                                                var(Reg, T));
      Store->setLine(L.getLine());
      recordDisjoint(C.Array, Refs);
      // C.Ref points into the body: everything that uses it comes first.
      rewriteExprs(*L.Body, [&](Expr &E) -> ExprPtr {
        const auto *A = llvm::dyn_cast<ArrayRef>(&E);
        if (!A || A->Array != C.Array || A->Space != AddressSpace::Global)
          return nullptr;
        auto V = var(Reg, T);
        V->setLine(A->getLine());
        return V;
      });
      R.Before.push_back(std::move(Load));
      R.After.push_back(std::move(Store));
      Replaced.push_back(Text);
    }
    return R;
  }

  /// Disjoint pairs (Array, each other array of the loop) and their element
  /// counts in the kernel's plan, made here (same launch) if it has none.
  void recordDisjoint(
      const std::string &Array,
      const std::map<std::string, std::vector<const ArrayRef *>> &Refs) {
    for (const auto &[B, _] : Refs) {
      const Param *PB = F.findParam(B);
      if (B == Array || !PB || !PB->isArray())
        continue;
      sameLaunchPlan(F).requireDisjoint(Array, B, Elements);
    }
  }
};

} // namespace

PassInfo scalarReplacePass() {
  return {"scalar-replace",
          "keep an element a thread accumulates into across a loop in a "
          "register, written once after the loop",
          [](Function &F, const PassContext &,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            ScalarReplacer S(F);
            S.run();
            if (S.Replaced.empty()) {
              if (!S.Loops)
                Why = "the kernel has no loop";
              else if (!S.LoopsWriting)
                Why = "no loop writes global memory";
              else
                Why = llvm::join(S.Reasons, "; ");
              return std::nullopt;
            }
            return AppliedPass{"scalar-replace",
                               {{"arrays", llvm::join(S.Replaced, ", ")}}};
          },
          /*KeepsThreadBuiltins=*/true};
}

} // namespace gpumerge
