//===- SplitPhases.cpp - Split kernels at their global barriers -----------===//
#include "Transforms/SplitPhases.h"
#include "CodeGen/Launcher.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <optional>
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

/// Why a kernel is not split, and the line that says so.
struct Refusal {
  std::string Why;
  unsigned Line;
};

/// Splits one kernel at its global barriers (splitKernel): the top-level
/// statements between barriers become phases, each re-declaring the locals
/// of earlier phases it reads, which must be recomputable.
class PhaseSplitter {
public:
  explicit PhaseSplitter(const Function &F)
      : F(F), Barrier(F.PaperDialect
                          ? "__syncthreads() (a global barrier in the original "
                            "compiler's dialect)"
                          : "gpumerge_global_sync()") {}

  PhaseSplit split();

private:
  /// A local of the outermost block.
  struct Local {
    const DeclStmt *Decl;
    size_t Segment, Order;
  };

  std::optional<Refusal> segment();
  std::optional<Refusal> checkReturns() const;
  void collectLocals();
  bool recomputable(const std::string &N);
  std::optional<Refusal> collectNeeds();
  std::optional<Refusal> collectNeeds(size_t K);
  void addNeeded(size_t K, const std::string &N);
  void buildPhases();

  const Function &F;
  const char *Barrier; ///< as messages name it
  PhaseSplit R;
  /// The top-level statements between barriers.
  std::vector<std::vector<const Stmt *>> Segments =
      std::vector<std::vector<const Stmt *>>(1);
  std::set<std::string> Assigned; ///< anywhere in the kernel
  std::map<std::string, Local> Locals;
  std::map<std::string, bool> Memo; ///< of recomputable
  /// What each later phase needs from the earlier ones.
  std::vector<std::set<std::string>> Needs;
};

PhaseSplit PhaseSplitter::split() {
  std::optional<Refusal> Refused = segment();
  if (!Refused)
    Refused = checkReturns();
  if (!Refused) {
    collectLocals();
    Refused = collectNeeds();
  }
  if (Refused) {
    R.Phases.clear();
    R.Why = std::move(Refused->Why);
    R.Line = Refused->Line;
    return std::move(R);
  }
  buildPhases();
  return std::move(R);
}

/// The top-level statements between barriers; barriers elsewhere refused.
std::optional<Refusal> PhaseSplitter::segment() {
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
      return Refusal{llvm::formatv("global barrier {0} inside control flow "
                                   "at line {1}: gpumerge splits a kernel "
                                   "only at barriers in its outermost block, "
                                   "which every thread reaches once",
                                   Barrier, Nested),
                     Nested};
    Segments.back().push_back(S.get());
  }
  return std::nullopt;
}

/// A thread that returns before a barrier must not run the later phases.
std::optional<Refusal> PhaseSplitter::checkReturns() const {
  for (size_t K = 0; K + 1 < Segments.size(); ++K)
    for (const Stmt *S : Segments[K]) {
      unsigned Ret = 0;
      walkStmts(const_cast<Stmt &>(*S), [&](Stmt &X) {
        if (llvm::isa<ReturnStmt>(X) && !Ret)
          Ret = firstLine(X, F.Span.Line);
      });
      if (Ret)
        return Refusal{llvm::formatv("return at line {0} before the global "
                                     "barrier at line {1}: the threads that "
                                     "return would still run the later "
                                     "phases",
                                     Ret, R.BarrierLines[K]),
                       Ret};
    }
  return std::nullopt;
}

/// Locals of the outermost block, by segment, and what is ever assigned.
void PhaseSplitter::collectLocals() {
  collectAssigned(*F.Body, Assigned);
  size_t Order = 0;
  for (size_t K = 0; K < Segments.size(); ++K)
    for (const Stmt *S : Segments[K])
      if (auto *D = llvm::dyn_cast<DeclStmt>(S))
        Locals[D->Name] = {D, K, Order++};
}

/// Recomputable: set once by its initializer, which reads only thread
/// positions, unassigned scalar parameters and earlier recomputable locals.
bool PhaseSplitter::recomputable(const std::string &N) {
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
              recomputable(V->Name);
      }
    }
  });
  return Memo[N] = Ok;
}

/// What each later phase needs from the earlier ones.
std::optional<Refusal> PhaseSplitter::collectNeeds() {
  Needs.resize(Segments.size());
  for (size_t K = 1; K < Segments.size(); ++K)
    if (std::optional<Refusal> Refused = collectNeeds(K))
      return Refused;
  return std::nullopt;
}

/// What phase \p K needs from the earlier ones: the locals they declare
/// that it reads, each recomputable; refused where one is not, or a
/// parameter it reads is changed before.
std::optional<Refusal> PhaseSplitter::collectNeeds(size_t K) {
  std::vector<StmtPtr> Clones;
  for (const Stmt *S : Segments[K])
    Clones.push_back(S->clone());
  std::set<std::string> Used = namesUsed(Clones);
  std::set<std::string> AssignedBefore;
  for (size_t J = 0; J < K; ++J)
    for (const Stmt *S : Segments[J])
      collectAssigned(const_cast<Stmt &>(*S), AssignedBefore);
  for (const std::string &N : Used) {
    if (F.findParam(N)) {
      if (AssignedBefore.count(N))
        return Refusal{llvm::formatv("parameter '{0}' is changed before the "
                                     "global barrier at line {1} and read "
                                     "after it: the change does not survive "
                                     "the barrier",
                                     N, R.BarrierLines[K - 1]),
                       R.BarrierLines[K - 1]};
      continue;
    }
    auto It = Locals.find(N);
    if (It == Locals.end() || It->second.Segment >= K)
      continue;
    if (!recomputable(N))
      return Refusal{
          llvm::formatv("local '{0}' (line {1}) is computed before the "
                        "global barrier at line {2} and read after it: a "
                        "value in a register does not survive the barrier "
                        "(keep it in a global array, or compute it from "
                        "thread positions and parameters only)",
                        N, It->second.Decl->getLine(), R.BarrierLines[K - 1]),
          It->second.Decl->getLine()};
    addNeeded(K, N);
  }
  return std::nullopt;
}

/// Adds local \p N to what phase \p K needs, with the locals its
/// initializer reads, transitively.
void PhaseSplitter::addNeeded(size_t K, const std::string &N) {
  if (!Needs[K].insert(N).second)
    return;
  walkExpr(*Locals.at(N).Decl->Init, [&](const Expr &E) {
    if (auto *V = llvm::dyn_cast<VarRef>(&E))
      if (Locals.count(V->Name) && !F.findParam(V->Name))
        addNeeded(K, V->Name);
  });
}

/// The phases: re-declarations in source order, then the segment.
void PhaseSplitter::buildPhases() {
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
}

} // namespace

PhaseSplit splitKernel(const Function &F) { return PhaseSplitter(F).split(); }

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
