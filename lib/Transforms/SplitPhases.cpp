//===- SplitPhases.cpp - Split kernels at their global barriers -----------===//
#include "Transforms/SplitPhases.h"
#include "CodeGen/Launcher.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

std::string phaseName(const std::string &Kernel, unsigned K) {
  return Kernel + "_phase" + std::to_string(K);
}

namespace {

/// Names a statement list refers to: variables read, assigned, or iterated
/// by a loop that does not declare its iterator.
std::set<std::string> namesUsed(const std::vector<StmtPtr> &Stmts) {
  std::set<std::string> Names;
  for (const StmtPtr &S : Stmts) {
    walkExprs(*S, [&](const Expr &E) {
      if (auto *V = llvm::dyn_cast<VarRef>(&E))
        Names.insert(V->Name);
    });
    walkStmts(*S, [&](Stmt &X) {
      if (auto *L = llvm::dyn_cast<ForStmt>(&X))
        if (!L->DeclaresIter)
          Names.insert(L->Iter);
    });
  }
  return Names;
}

/// Names assigned anywhere in \p S (after their declaration).
void collectAssigned(Stmt &S, std::set<std::string> &Out) {
  walkStmts(S, [&](Stmt &X) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X)) {
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Out.insert(V->Name);
    } else if (auto *L = llvm::dyn_cast<ForStmt>(&X)) {
      if (!L->DeclaresIter)
        Out.insert(L->Iter);
    }
  });
}

unsigned firstLine(const Stmt &S, unsigned Fallback) {
  return S.getLine() ? S.getLine() : Fallback;
}

} // namespace

PhaseSplit splitKernel(const Function &F) {
  PhaseSplit R;
  auto Refuse = [&](std::string Why, unsigned Line) {
    R.Phases.clear();
    R.Why = std::move(Why);
    R.Line = Line;
    return std::move(R);
  };
  const char *Barrier =
      F.PaperDialect ? "__syncthreads() (a global barrier in the original "
                       "compiler's dialect)"
                     : "gpumerge_global_sync()";

  // The top-level statements between barriers; barriers elsewhere refused.
  std::vector<std::vector<const Stmt *>> Segments(1);
  for (const StmtPtr &S : F.Body->Body) {
    if (llvm::isa<GlobalSyncStmt>(*S)) {
      R.BarrierLines.push_back(S->getLine());
      Segments.emplace_back();
      continue;
    }
    unsigned Nested = 0;
    walkStmts(*S, [&](Stmt &X) {
      if (llvm::isa<GlobalSyncStmt>(X) && !Nested)
        Nested = firstLine(X, F.Span.Line);
    });
    if (Nested)
      return Refuse(llvm::formatv("global barrier {0} inside control flow "
                                  "at line {1}: gpumerge splits a kernel "
                                  "only at barriers in its outermost block, "
                                  "which every thread reaches once",
                                  Barrier, Nested),
                    Nested);
    Segments.back().push_back(S.get());
  }

  // A thread that returns before a barrier must not run the later phases.
  for (size_t K = 0; K + 1 < Segments.size(); ++K)
    for (const Stmt *S : Segments[K]) {
      unsigned Ret = 0;
      walkStmts(const_cast<Stmt &>(*S), [&](Stmt &X) {
        if (llvm::isa<ReturnStmt>(X) && !Ret)
          Ret = firstLine(X, F.Span.Line);
      });
      if (Ret)
        return Refuse(llvm::formatv("return at line {0} before the global "
                                    "barrier at line {1}: the threads that "
                                    "return would still run the later "
                                    "phases",
                                    Ret, R.BarrierLines[K]),
                      Ret);
    }

  // Locals of the outermost block, by segment, and what is ever assigned.
  std::set<std::string> Assigned;
  collectAssigned(*F.Body, Assigned);
  struct Local {
    const DeclStmt *Decl;
    size_t Segment, Order;
  };
  std::map<std::string, Local> Locals;
  size_t Order = 0;
  for (size_t K = 0; K < Segments.size(); ++K)
    for (const Stmt *S : Segments[K])
      if (auto *D = llvm::dyn_cast<DeclStmt>(S))
        Locals[D->Name] = {D, K, Order++};

  // Recomputable: set once by its initializer, which reads only thread
  // positions, unassigned scalar parameters and earlier recomputable locals.
  std::map<std::string, bool> Memo;
  std::function<bool(const std::string &)> Recomputable =
      [&](const std::string &N) -> bool {
    if (auto It = Memo.find(N); It != Memo.end())
      return It->second;
    Memo[N] = false; // cycles are not recomputable
    const Local &L = Locals.at(N);
    const DeclStmt &D = *L.Decl;
    if (!D.Init || !D.Extents.empty() || D.Ty.IsPointer || Assigned.count(N) ||
        D.Ty.Space == AddressSpace::Shared)
      return false;
    bool Ok = true;
    walkExpr(*D.Init, [&](const Expr &X) {
      if (llvm::isa<ArrayRef>(X) || llvm::isa<CallExpr>(X))
        Ok = false;
      else if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
        const Param *P = F.findParam(V->Name);
        if (P)
          Ok &= !P->isArray() && !Assigned.count(V->Name);
        else {
          auto It = Locals.find(V->Name);
          Ok &= It != Locals.end() && It->second.Order < L.Order &&
                Recomputable(V->Name);
        }
      }
    });
    return Memo[N] = Ok;
  };

  // What each later phase needs from the earlier ones.
  std::vector<std::set<std::string>> Needs(Segments.size());
  for (size_t K = 1; K < Segments.size(); ++K) {
    std::vector<StmtPtr> Clones;
    for (const Stmt *S : Segments[K])
      Clones.push_back(S->clone());
    std::set<std::string> Used = namesUsed(Clones);
    std::set<std::string> AssignedBefore;
    for (size_t J = 0; J < K; ++J)
      for (const Stmt *S : Segments[J])
        collectAssigned(const_cast<Stmt &>(*S), AssignedBefore);
    for (const std::string &N : Used) {
      if (const Param *P = F.findParam(N)) {
        if (AssignedBefore.count(N))
          return Refuse(llvm::formatv("parameter '{0}' is changed before the "
                                      "global barrier at line {1} and read "
                                      "after it: the change does not survive "
                                      "the barrier",
                                      N, R.BarrierLines[K - 1]),
                        R.BarrierLines[K - 1]);
        (void)P;
        continue;
      }
      auto It = Locals.find(N);
      if (It == Locals.end() || It->second.Segment >= K)
        continue;
      if (!Recomputable(N))
        return Refuse(
            llvm::formatv("local '{0}' (line {1}) is computed before the "
                          "global barrier at line {2} and read after it: a "
                          "value in a register does not survive the barrier "
                          "(keep it in a global array, or compute it from "
                          "thread positions and parameters only)",
                          N, It->second.Decl->getLine(), R.BarrierLines[K - 1]),
            It->second.Decl->getLine());
      // With the locals its initializer reads, transitively.
      std::function<void(const std::string &)> Add = [&](const std::string &X) {
        if (!Needs[K].insert(X).second)
          return;
        walkExpr(*Locals.at(X).Decl->Init, [&](const Expr &E) {
          if (auto *V = llvm::dyn_cast<VarRef>(&E))
            if (Locals.count(V->Name) && !F.findParam(V->Name))
              Add(V->Name);
        });
      };
      Add(N);
    }
  }

  // The phases: re-declarations in source order, then the segment.
  std::set<std::string> Recomputed;
  for (size_t K = 0; K < Segments.size(); ++K) {
    if (Segments[K].empty())
      continue; // barriers at the start, the end or back to back
    auto P = F.withBody(std::make_unique<BlockStmt>());
    P->Name = phaseName(F.Name, R.Phases.size());
    P->PhaseOf = F.Name;
    P->PhaseIndex = R.Phases.size();
    P->Body->setLine(F.Body->getLine());
    std::vector<const Local *> Decls;
    for (const std::string &N : Needs[K])
      Decls.push_back(&Locals.at(N));
    std::sort(Decls.begin(), Decls.end(), [](const Local *A, const Local *B) {
      return A->Order < B->Order;
    });
    for (const Local *L : Decls) {
      P->Body->Body.push_back(L->Decl->clone());
      Recomputed.insert(L->Decl->Name);
    }
    for (const Stmt *S : Segments[K])
      P->Body->Body.push_back(S->clone());
    R.Phases.push_back(std::move(P));
  }
  R.Recomputed.assign(Recomputed.begin(), Recomputed.end());
  return R;
}

void splitGlobalBarriers(Module &M) {
  std::vector<std::unique_ptr<Function>> Out;
  for (std::unique_ptr<Function> &FP : M.Functions) {
    Function &F = *FP;
    if (!F.IsKernel || !hasGlobalSync(F)) {
      Out.push_back(std::move(FP));
      continue;
    }
    PhaseSplit S = splitKernel(F);
    // The phases would stand where the kernel stood: a template's text
    // stays as written.
    if (S.Why.empty() && !F.TemplateCall.empty()) {
      S.Why = "an instantiation of a template (" + F.TemplateCall +
              ") is not split at its global barriers";
      S.Line = F.Span.Line;
    }
    // The output needs new names, and every launch in host code must call
    // the generated launcher: the kernel itself no longer exists.
    if (S.Why.empty()) {
      std::vector<std::string> Names = {launcherName(F.Name)};
      for (const auto &P : S.Phases) {
        Names.push_back(P->Name);
        Names.push_back(fallbackName(P->Name));
        Names.push_back(launcherName(P->Name));
      }
      for (const std::string &N : Names)
        if (S.Why.empty() && M.mentions(N)) {
          S.Why = "the input already uses the name '" + N +
                  "', which splitting at the global barrier needs";
          S.Line = F.Span.Line;
        }
    }
    for (const KernelCallSite &C : M.CallSites) {
      if (C.Kernel != F.Name || !S.Why.empty())
        continue;
      if (!C.NotRewritable.empty())
        S.Why = "a launch at line " + std::to_string(C.Call.Line) +
                " cannot be rewritten into the launcher of the phases (" +
                C.NotRewritable + ")";
      else if (!C.Template.empty())
        S.Why = "the launch at line " + std::to_string(C.Call.Line) +
                " leaves the kernel template's instantiation to a function "
                "template";
      else if (C.Call.Begin < F.Span.Begin && !C.PrototypeBegin)
        S.Why = "the launch at line " + std::to_string(C.Call.Line) +
                " precedes the kernel's definition and its prototype is not "
                "in this file";
      S.Line = C.Call.Line;
    }
    if (!S.Why.empty()) {
      M.PassedThrough.push_back({F.Name,
                                 "cannot split at the global barrier: " + S.Why,
                                 S.Line ? S.Line : F.Span.Line, F.Span});
      continue;
    }
    PhasedKernel PK;
    PK.Name = F.Name;
    PK.BarrierLines = S.BarrierLines;
    PK.Recomputed = S.Recomputed;
    PK.Span = F.Span;
    PK.PaperDialect = F.PaperDialect;
    for (auto &P : S.Phases) {
      PK.Phases.push_back(P->Name);
      Out.push_back(std::move(P));
    }
    M.Phased.push_back(std::move(PK));
  }
  M.Functions = std::move(Out);
}

} // namespace gpumerge
