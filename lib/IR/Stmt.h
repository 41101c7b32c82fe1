//===- Stmt.h - KIR statements ----------------------------------*- C++ -*-===//
//
// Statements of the kernel IR: Block, Decl, Assign, If, For (canonical loops
// only: one iterator, a bound, a constant or loop-invariant step), Sync
// (barrier within a block), GlobalSync (the paper's global barrier: the kernel
// splits into launches), Return and ExprStmt. What the frontend cannot express
// here it refuses, and the kernel is passed through unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_STMT_H
#define GPUMERGE_IR_STMT_H

#include "IR/Expr.h"

#include <vector>

namespace gpumerge {

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

class Stmt {
public:
  enum class Kind {
    Block,
    Decl,
    Assign,
    If,
    For,
    Sync,
    GlobalSync,
    Return,
    ExprStmt,
    Jump,
    Pipeline
  };
  Kind getKind() const { return K; }
  unsigned getLine() const { return Line; }
  void setLine(unsigned L) { Line = L; }
  virtual ~Stmt() = default;
  virtual StmtPtr clone() const = 0;
  /// Calls \p F on each expression slot directly held by this statement.
  virtual void forEachExpr(const std::function<void(ExprPtr &)> &F) {}
  /// Calls \p F on each directly nested statement slot.
  virtual void forEachStmt(const std::function<void(StmtPtr &)> &F) {}

protected:
  explicit Stmt(Kind K) : K(K) {}
  template <typename T>
  std::unique_ptr<T> withCommon(std::unique_ptr<T> S) const {
    S->Line = Line;
    return S;
  }

private:
  Kind K;
  unsigned Line = 0;
};

class BlockStmt : public Stmt {
public:
  BlockStmt() : Stmt(Kind::Block) {}
  std::vector<StmtPtr> Body;
  StmtPtr clone() const override;
  void forEachStmt(const std::function<void(StmtPtr &)> &F) override {
    for (StmtPtr &S : Body)
      F(S);
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Block; }
};

/// `T name [= init];` or a shared array `__shared__ float s[16][17];`.
class DeclStmt : public Stmt {
public:
  DeclStmt(std::string Name, Type T, ExprPtr Init = nullptr)
      : Stmt(Kind::Decl), Name(std::move(Name)), Ty(std::move(T)),
        Init(std::move(Init)) {}
  std::string Name;
  Type Ty;
  ExprPtr Init;                      ///< may be null
  std::vector<std::int64_t> Extents; ///< array extents; empty for scalars
  StmtPtr clone() const override;
  void forEachExpr(const std::function<void(ExprPtr &)> &F) override {
    if (Init)
      F(Init);
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Decl; }
};

enum class AssignOp { Set, Add, Sub, Mul, Div };
const char *assignOpSpelling(AssignOp Op);
/// The operator of a compound assignment (`+=`: Add); nullopt for Set.
std::optional<BinaryOp> assignBinaryOp(AssignOp Op);

/// `lhs op= rhs;` — also `i++` (Add 1). The target is a VarRef, an ArrayRef or
/// a MemberExpr.
class AssignStmt : public Stmt {
public:
  AssignStmt(ExprPtr L, AssignOp Op, ExprPtr R)
      : Stmt(Kind::Assign), LHS(std::move(L)), Op(Op), RHS(std::move(R)) {}
  ExprPtr LHS;
  AssignOp Op;
  ExprPtr RHS;
  /// A copy from global to shared memory that completes asynchronously
  /// (cp.async, sm_80 and later): `__pipeline_memcpy_async(&lhs, &rhs, n)`
  /// in CUDA, a plain assignment in OpenCL. Only async-prefetch makes them,
  /// with the PipelineStmts that wait for them.
  bool Async = false;
  StmtPtr clone() const override {
    auto C = std::make_unique<AssignStmt>(LHS->clone(), Op, RHS->clone());
    C->Async = Async;
    return withCommon(std::move(C));
  }
  void forEachExpr(const std::function<void(ExprPtr &)> &F) override {
    F(LHS);
    F(RHS);
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Assign; }
};

class IfStmt : public Stmt {
public:
  IfStmt(ExprPtr C, StmtPtr T, StmtPtr E = nullptr)
      : Stmt(Kind::If), Cond(std::move(C)), Then(std::move(T)),
        Else(std::move(E)) {}
  ExprPtr Cond;
  StmtPtr Then, Else; ///< Else may be null
  StmtPtr clone() const override {
    return withCommon(std::make_unique<IfStmt>(Cond->clone(), Then->clone(),
                                               Else ? Else->clone() : nullptr));
  }
  void forEachExpr(const std::function<void(ExprPtr &)> &F) override {
    F(Cond);
  }
  void forEachStmt(const std::function<void(StmtPtr &)> &F) override {
    F(Then);
    if (Else)
      F(Else);
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::If; }
};

/// for (T Iter = Init; Iter CondOp Bound; Iter += Step) Body
/// The canonical loop of §3.2: the analyses see S, S+Inc, ... directly.
/// The step is a constant, or a loop-invariant expression over scalar
/// parameters, locals the loop does not change and grid-uniform built-ins
/// (`j += nt`, `i += blockDim.x * gridDim.x`): StepExpr. Then Step is only
/// the direction (1 when the iterator rises, -1 when it falls, so `-= s`
/// prints with s in StepExpr), and a pass that needs the step's value must
/// check hasConstantStep() and refuse the loop otherwise.
class ForStmt : public Stmt {
public:
  ForStmt() : Stmt(Kind::For) {}
  std::string Iter;
  Type IterType = Type::scalar(ScalarKind::Int);
  bool DeclaresIter = true; ///< `for (int i = ...` vs `for (i = ...`
  ExprPtr Init;
  BinaryOp CondOp = BinaryOp::LT; ///< LT, LE, NE, GT, GE
  ExprPtr Bound;
  std::int64_t Step = 1;
  ExprPtr StepExpr; ///< null for a constant step
  StmtPtr Body;
  /// `#pragma unroll N` before the loop (CUDA and OpenCL C); 0: none, 1:
  /// not unrolled.
  unsigned Unroll = 0;
  /// `#pragma unroll` with no count (unrolled whole), as the input wrote it.
  bool UnrollFull = false;
  bool hasConstantStep() const { return !StepExpr; }
  StmtPtr clone() const override;
  void forEachExpr(const std::function<void(ExprPtr &)> &F) override {
    F(Init);
    F(Bound);
    if (StepExpr)
      F(StepExpr);
  }
  void forEachStmt(const std::function<void(StmtPtr &)> &F) override {
    F(Body);
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::For; }
};

/// __syncthreads() / barrier(CLK_LOCAL_MEM_FENCE).
class SyncStmt : public Stmt {
public:
  SyncStmt() : Stmt(Kind::Sync) {}
  StmtPtr clone() const override {
    return withCommon(std::make_unique<SyncStmt>());
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Sync; }
};

/// gpumerge_global_sync(): every thread of the grid waits here (§3: the kernel
/// is split into consecutive launches at this point).
class GlobalSyncStmt : public Stmt {
public:
  GlobalSyncStmt() : Stmt(Kind::GlobalSync) {}
  StmtPtr clone() const override {
    return withCommon(std::make_unique<GlobalSyncStmt>());
  }
  static bool classof(const Stmt *S) {
    return S->getKind() == Kind::GlobalSync;
  }
};

class ReturnStmt : public Stmt {
public:
  explicit ReturnStmt(ExprPtr V = nullptr)
      : Stmt(Kind::Return), Value(std::move(V)) {}
  ExprPtr Value; ///< null in kernels
  StmtPtr clone() const override {
    return withCommon(
        std::make_unique<ReturnStmt>(Value ? Value->clone() : nullptr));
  }
  void forEachExpr(const std::function<void(ExprPtr &)> &F) override {
    if (Value)
      F(Value);
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Return; }
};

/// `break;` or `continue;` of the innermost loop. A loop holding one is
/// kept as written: the passes that tile, merge, unroll or scalar-replace
/// loops leave it alone.
class JumpStmt : public Stmt {
public:
  explicit JumpStmt(bool IsBreak) : Stmt(Kind::Jump), IsBreak(IsBreak) {}
  bool IsBreak; ///< false: continue
  StmtPtr clone() const override {
    return withCommon(std::make_unique<JumpStmt>(IsBreak));
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Jump; }
};

/// An expression evaluated for its effect: a call of a helper.
class ExprStmt : public Stmt {
public:
  explicit ExprStmt(ExprPtr E) : Stmt(Kind::ExprStmt), E(std::move(E)) {}
  ExprPtr E;
  StmtPtr clone() const override {
    return withCommon(std::make_unique<ExprStmt>(E->clone()));
  }
  void forEachExpr(const std::function<void(ExprPtr &)> &F) override { F(E); }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::ExprStmt; }
};

/// The asynchronous copies' bookkeeping (cp.async, see AssignStmt::Async):
/// `__pipeline_commit();` closes the group of copies this thread issued
/// since the last commit; `__pipeline_wait_prior(N);` waits until at most
/// the N newest groups are still in flight. Nothing in OpenCL, where the
/// copies are plain assignments.
class PipelineStmt : public Stmt {
public:
  enum class Op { Commit, WaitPrior };
  explicit PipelineStmt(Op O, unsigned Prior = 0)
      : Stmt(Kind::Pipeline), Operation(O), Prior(Prior) {}
  Op Operation;
  unsigned Prior; ///< WaitPrior's N
  StmtPtr clone() const override {
    return withCommon(std::make_unique<PipelineStmt>(Operation, Prior));
  }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Pipeline; }
};

/// Visits \p S and every statement below it, parents first.
void walkStmts(Stmt &S, const std::function<void(Stmt &)> &F);
/// Visits every expression (every node, parents first) under \p S.
void walkExprs(Stmt &S, const std::function<void(const Expr &)> &F);
/// Applies rewriteExpr to every expression slot under \p S.
void rewriteExprs(Stmt &S, const std::function<ExprPtr(Expr &)> &F);

/// A block holding \p Stmts.
StmtPtr block(std::vector<StmtPtr> Stmts);
/// The statements of \p S: its body when it is a block, else S alone.
std::vector<StmtPtr> unwrap(StmtPtr S);

} // namespace gpumerge

#endif
