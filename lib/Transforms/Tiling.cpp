//===- Tiling.cpp - One generator for coalescing, block and thread merge --===//
#include "Transforms/Tiling.h"
#include "Transforms/NaiveShape.h"
#include "Transforms/UnrollBudget.h"

#include "Analysis/Accesses.h"
#include "Analysis/BankConflicts.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Evaluate.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"

#include "llvm/Support/FormatVariadic.h"

#include <numeric>
#include <set>

namespace gpumerge {

static llvm::Error cannot(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why.str());
}

std::int64_t staticSharedLimit(const MachineDescription &MD) {
  return std::min<std::int64_t>(MD.SharedMemPerBlock, 48 * 1024);
}

void setLayers(LaunchPlan &P, const Function &Naive) {
  KernelDomain D = findDomain(Naive);
  P.Layered = D.Layered;
  P.LayerExtent.reset();
  if (!D.Layered || D.LayerBounds.size() != 1)
    return;
  const DomainBound &B = D.LayerBounds.front();
  ExprPtr E = inlineSingleAssignmentLocals(*B.Bound, Naive);
  if (B.Offset)
    E = add(std::move(E), intLit(B.Offset));
  P.LayerExtent = std::shared_ptr<const Expr>(simplifyExpr(std::move(E)));
}

const Function &tilingOrigin(const Function &F) {
  return F.Plan && F.Plan->Origin ? *F.Plan->Origin : F;
}

/// The trip count of \p L (unit step, `<`, `<=` or `!=`) when its bounds
/// are constants; \p Literal says they are plain literals (no macro a
/// rebuild with -D could change).
static std::optional<std::int64_t> constantTrip(const ForStmt &L,
                                                bool &Literal) {
  ExprPtr Trip = binary(BinaryOp::Sub, L.Bound->clone(), L.Init->clone());
  if (L.CondOp == BinaryOp::LE)
    Trip = add(std::move(Trip), intLit(1));
  auto N = evaluateInteger(*Trip, {});
  if (!N)
    return std::nullopt;
  Literal = true;
  walkExpr(*Trip, [&](const Expr &X) {
    if (auto *I = llvm::dyn_cast<IntLit>(&X))
      Literal &= I->MacroName.empty();
  });
  return N;
}

std::int64_t loopTile(const ForStmt &L, std::int64_t T, bool &Constant) {
  bool Literal = false;
  auto N = constantTrip(L, Literal);
  Constant = N && Literal;
  if (!N)
    return T;
  if (*N < 2)
    return 0;
  for (std::int64_t D = std::min(T, *N); D >= 2; --D)
    if (*N % D == 0)
      return D;
  return 0;
}

//===----------------------------------------------------------------------===//
// Small expression helpers
//===----------------------------------------------------------------------===//

ExprPtr simplifyExpr(ExprPtr E) {
  return rewriteExpr(std::move(E), [](Expr &X) -> ExprPtr {
    auto *B = llvm::dyn_cast<BinaryExpr>(&X);
    if (!B || B->getType().isFloating())
      return nullptr;
    auto *L = llvm::dyn_cast<IntLit>(B->LHS.get());
    auto *R = llvm::dyn_cast<IntLit>(B->RHS.get());
    if (L && R && L->MacroName.empty() && R->MacroName.empty()) {
      switch (B->Op) {
      case BinaryOp::Add:
        return intLit(L->Value + R->Value);
      case BinaryOp::Sub:
        return intLit(L->Value - R->Value);
      case BinaryOp::Mul:
        return intLit(L->Value * R->Value);
      case BinaryOp::Div: // the same in C for any signedness when >= 0
        return L->Value >= 0 && R->Value > 0 ? intLit(L->Value / R->Value)
                                             : nullptr;
      case BinaryOp::Rem:
        return L->Value >= 0 && R->Value > 0 ? intLit(L->Value % R->Value)
                                             : nullptr;
      default:
        return nullptr;
      }
    }
    auto IsLit = [](IntLit *I, std::int64_t V) {
      return I && I->Value == V && I->MacroName.empty();
    };
    switch (B->Op) {
    case BinaryOp::Add:
      if (IsLit(R, 0))
        return std::move(B->LHS);
      if (IsLit(L, 0))
        return std::move(B->RHS);
      return nullptr;
    case BinaryOp::Sub:
      return IsLit(R, 0) ? std::move(B->LHS) : nullptr;
    case BinaryOp::Div:
      return IsLit(R, 1) ? std::move(B->LHS) : nullptr;
    case BinaryOp::Rem:
      return IsLit(R, 1) ? intLit(0) : nullptr;
    case BinaryOp::Mul:
      if (IsLit(R, 1))
        return std::move(B->LHS);
      if (IsLit(L, 1))
        return std::move(B->RHS);
      if (IsLit(L, 0) || IsLit(R, 0))
        return intLit(0);
      return nullptr;
    default:
      return nullptr;
    }
  });
}

namespace {

bool mentionsVar(const Expr &E, const std::set<std::string> &Names) {
  bool Found = false;
  walkExpr(E, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      Found |= Names.count(V->Name) > 0;
  });
  return Found;
}

/// Block-uniform: only literals, scalar parameters and \p Uniform locals
/// (iterators of enclosing uniform loops); no built-in, no memory.
bool isUniform(const Expr &E, const Function &F,
               const std::set<std::string> &Uniform) {
  bool Ok = true;
  walkExpr(E, [&](const Expr &X) {
    if (llvm::isa<BuiltinRef>(&X) || llvm::isa<ArrayRef>(&X) ||
        llvm::isa<CallExpr>(&X))
      Ok = false;
    if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
      const Param *P = F.findParam(V->Name);
      Ok &= (P && !P->isArray()) || Uniform.count(V->Name);
    }
  });
  return Ok;
}

void collectNames(Stmt &S, std::set<std::string> &Names) {
  walkStmts(S, [&](Stmt &X) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
      Names.insert(D->Name);
    if (auto *L = llvm::dyn_cast<ForStmt>(&X))
      Names.insert(L->Iter);
  });
}

//===----------------------------------------------------------------------===//
// Staging: the loop tiled and the accesses read through shared memory
//===----------------------------------------------------------------------===//

enum class ThreadClass { None, X, Y, Both };

struct Candidate {
  Access A;
  ThreadClass Class = ThreadClass::None;
  bool Uncoalesced = false;
  /// The iterator strides rows and the position runs along them (b[i*w +
  /// x] in mm): the tile is [T][threads], loaded along the position.
  bool IterRows = false;
};

struct LoopChoice {
  ForStmt *Loop = nullptr;       ///< in NaiveShape::Guarded
  std::int64_t Tile = 0;         ///< iterations per tile step
  bool ConstantTrip = false;     ///< the tile divides a literal trip count
  std::set<std::string> Uniform; ///< iterators of the loops around it
  std::vector<Candidate> Staged;
};

/// Loops of \p Stmts reached through block-uniform control flow, with
/// their uniform enclosing iterators.
void uniformLoops(
    std::vector<StmtPtr> &Stmts, const Function &F,
    std::set<std::string> Uniform,
    std::vector<std::pair<ForStmt *, std::set<std::string>>> &Out) {
  for (StmtPtr &S : Stmts) {
    if (auto *L = llvm::dyn_cast<ForStmt>(S.get())) {
      if (!isUniform(*L->Init, F, Uniform) ||
          !isUniform(*L->Bound, F, Uniform) ||
          (L->StepExpr && !isUniform(*L->StepExpr, F, Uniform)))
        continue;
      Out.push_back({L, Uniform});
      std::set<std::string> Inner = Uniform;
      Inner.insert(L->Iter);
      if (auto *B = llvm::dyn_cast<BlockStmt>(L->Body.get()))
        uniformLoops(B->Body, F, Inner, Out);
    } else if (auto *If = llvm::dyn_cast<IfStmt>(S.get())) {
      if (!isUniform(*If->Cond, F, Uniform))
        continue;
      if (auto *B = llvm::dyn_cast<BlockStmt>(If->Then.get()))
        uniformLoops(B->Body, F, Uniform, Out);
      if (If->Else)
        if (auto *B = llvm::dyn_cast<BlockStmt>(If->Else.get()))
          uniformLoops(B->Body, F, Uniform, Out);
    } else if (auto *B = llvm::dyn_cast<BlockStmt>(S.get())) {
      uniformLoops(B->Body, F, Uniform, Out);
    }
  }
}

/// Inserts \p New right after \p Target, a statement of \p Stmts or of a
/// block nested in them; false when \p Target is in neither.
bool insertAfter(std::vector<StmtPtr> &Stmts, const Stmt *Target,
                 StmtPtr &&New) {
  for (size_t I = 0; I < Stmts.size(); ++I) {
    if (Stmts[I].get() == Target) {
      Stmts.insert(Stmts.begin() + I + 1, std::move(New));
      return true;
    }
    bool Done = false;
    if (auto *B = llvm::dyn_cast<BlockStmt>(Stmts[I].get()))
      Done = insertAfter(B->Body, Target, std::move(New));
    else
      Stmts[I]->forEachStmt([&](StmtPtr &Child) {
        if (auto *B = llvm::dyn_cast<BlockStmt>(Child.get()); B && !Done)
          Done = insertAfter(B->Body, Target, std::move(New));
      });
    if (Done)
      return true;
  }
  return false;
}

bool hasBarrierOrReturn(Stmt &S) {
  bool Found = false;
  walkStmts(S, [&](Stmt &X) {
    Found |= llvm::isa<SyncStmt>(&X) || llvm::isa<GlobalSyncStmt>(&X) ||
             llvm::isa<ReturnStmt>(&X) || llvm::isa<JumpStmt>(&X);
  });
  return Found;
}

ThreadClass classOf(const AffineForm &A) {
  bool X = false, Y = false;
  for (const AffineVar &V : A.variables(AffineVar::Kind::Thread)) {
    X |= V.Name == "idx";
    Y |= V.Name == "idy";
    // The layer of a 3-D grid is one per block (Builtin::Idz).
    if (V.Name != "idx" && V.Name != "idy" && V.Name != "idz")
      return ThreadClass::Both;
  }
  return X && Y ? ThreadClass::Both
         : X    ? ThreadClass::X
         : Y    ? ThreadClass::Y
                : ThreadClass::None;
}

/// Threads of one block that read the same element of an access of class
/// \p C (G2S sharing, §3.4-3.5).
std::int64_t sharers(ThreadClass C, const TileShape &S) {
  switch (C) {
  case ThreadClass::None:
    return S.Block[0] * S.Block[1];
  case ThreadClass::X:
    return S.Block[1];
  case ThreadClass::Y:
    return S.Block[0];
  case ThreadClass::Both:
    return 1;
  }
  return 1;
}

//===----------------------------------------------------------------------===//
// Bank conflicts (reference/models.md, Baskaran et al.)
//===----------------------------------------------------------------------===//

/// The padding of a [Rows][Cols] tile minimising the conflicts of its
/// cooperative stores (consecutive threads, consecutive elements) and of the
/// reads of the computation (consecutive threads in X: Row = RowOfThread).
std::int64_t choosePad(std::int64_t Rows, std::int64_t Cols, ThreadClass C,
                       const TileShape &S, const MachineDescription &MD) {
  unsigned G = MD.BankConflictGroup;
  return choosePadding(Cols, MD.Banks, [&](std::int64_t Pitch) {
    std::vector<std::int64_t> Store, Read;
    for (unsigned T = 0; T < G; ++T) {
      std::int64_t E = T % (Rows * Cols);
      Store.push_back((E / Cols) * Pitch + E % Cols);
      std::int64_t Tx = T % S.Block[0], Ty = T / S.Block[0];
      std::int64_t Row = C == ThreadClass::X   ? Tx % Rows
                         : C == ThreadClass::Y ? (Ty * S.Merge[1]) % Rows
                                               : 0;
      Read.push_back(Row * Pitch);
    }
    return std::vector<std::vector<std::int64_t>>{Store, Read};
  });
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

/// An access as written, `a[y * k + i]`: staged accesses are matched by it.
std::string accessKey(const std::string &Array, const std::string &Index) {
  return Array + "[" + Index + "]";
}
std::string accessKey(const ArrayRef &R) {
  std::string Index; // spelled as Access::IndexText: `y][i` for a[y][i]
  for (size_t I = 0; I < R.Indices.size(); ++I)
    Index += (I ? "][" : "") + printExprDebug(*R.Indices[I]);
  return accessKey(R.Array, Index);
}

/// Replaces under \p St every global access whose key \p Replace names.
void redirect(Stmt &St,
              const std::vector<std::pair<std::string, ExprPtr>> &Replace) {
  rewriteExprs(St, [&](Expr &X) -> ExprPtr {
    auto *R = llvm::dyn_cast<ArrayRef>(&X);
    if (!R || R->Space != AddressSpace::Global)
      return nullptr;
    std::string Key = accessKey(*R);
    for (auto &[K, With] : Replace)
      if (K == Key)
        return With->clone();
    return nullptr;
  });
}

const char *KxName = "__merge_kx";
const char *KyName = "__merge_ky";

class Generator {
public:
  Generator(const Function &Origin, const TileShape &S,
            const MachineDescription &MD)
      : Origin(Origin), S(S), MD(MD) {}

  llvm::Expected<TiledKernel> run();

private:
  const Function &Origin;
  const TileShape &S;
  const MachineDescription &MD;
  std::set<std::string> Names; ///< locals in use, for fresh names
  /// Locals that differ between merged copies, with the dimensions they
  /// vary in (bit 0: X, bit 1: Y); the merge placeholders are among them.
  std::map<std::string, unsigned> Varying;
  unsigned MergedDims = 0; ///< bit 0: Merge[0] > 1, bit 1: Merge[1] > 1
  TiledKernel Result;
  /// The naive kernel's global accesses, the arrays it writes and reads,
  /// and its single-assignment locals (for inlining into staged indices).
  std::vector<Access> Accesses;
  std::set<std::string> Written, Read;
  std::map<std::string, const Expr *> Defs;

  /// A shared tile for elements of an array accessed as \p Ref, declared
  /// at the top of the kernel and counted in the plan.
  struct SharedTile {
    std::string Name;
    Type ElemTy;
  };
  SharedTile declareTile(NaiveShape &NS, LaunchPlan &Plan,
                         const std::string &Array, const Type &RefTy,
                         unsigned ElementBytes,
                         const std::vector<std::int64_t> &Dims) {
    SharedTile T{fresh(Array + "_s"), RefTy};
    T.ElemTy.IsConst = false;
    Type SharedTy = T.ElemTy;
    SharedTy.Space = AddressSpace::Shared;
    auto Decl = std::make_unique<DeclStmt>(T.Name, SharedTy);
    Decl->Extents = Dims;
    std::int64_t Words = 1;
    for (std::int64_t D : Dims)
      Words *= D;
    Plan.SharedBytes += Words * ElementBytes;
    NS.Prologue.push_back(std::move(Decl));
    return T;
  }
  static ExprPtr tileRef(const SharedTile &T, std::vector<ExprPtr> Indices) {
    auto R = std::make_unique<ArrayRef>(T.Name, std::move(Indices), T.ElemTy);
    R->Space = AddressSpace::Shared;
    return R;
  }
  /// The thread's linear id in the block.
  ExprPtr threadInBlock() const {
    return S.Block[1] > 1 ? add(mul(builtin(Builtin::Tidy), intLit(S.Block[0])),
                                builtin(Builtin::Tidx))
                          : builtin(Builtin::Tidx);
  }
  /// for (Iter = thread id; Iter < Count; Iter += threads) Body: the
  /// block's threads share \p Count copies, consecutive threads consecutive
  /// elements.
  StmtPtr cooperativeLoop(const std::string &Iter, std::int64_t Count,
                          StmtPtr Body) const {
    auto L = std::make_unique<ForStmt>();
    L->Iter = Iter;
    L->Init = threadInBlock();
    L->Bound = intLit(Count);
    L->Step = S.Block[0] * S.Block[1];
    L->Body = block({});
    llvm::cast<BlockStmt>(L->Body.get())->Body.push_back(std::move(Body));
    return L;
  }
  /// Columns a thread's merged copies in X read from an [iterations]
  /// [threads] tile (b_s[i - i0][c * 16 + tidx] in mm) that are stored side
  /// by side, so one 16-byte shared load reads G of them: G where the
  /// target is one nvcc compiles for (ptxas combines the reads; mm's 8x8
  /// tile on sm_90 then reads b with 2 LDS.128 a step instead of 8 LDS),
  /// else 1. Copy k of thread t reads column k*Bx + t, stored at
  /// (k / G) * Bx*G + t*G + k % G: groups of G, a warp's groups contiguous.
  std::int64_t columnGroup(const Candidate &C, bool IterRows,
                           unsigned ElementBytes) const {
    std::int64_t G = ElementBytes ? 16 / std::int64_t(ElementBytes) : 1;
    if (MD.SmArch.empty() || C.Class != ThreadClass::X || !IterRows || G < 2 ||
        S.Merge[0] < G || S.Merge[0] % G != 0)
      return 1;
    return G;
  }
  /// Where column \p Col of the tile is stored (columnGroup).
  ExprPtr groupColumns(ExprPtr Col, std::int64_t G) const {
    if (G < 2)
      return Col;
    const std::int64_t Bx = S.Block[0];
    ExprPtr Group = mul(binary(BinaryOp::Div, Col->clone(), intLit(Bx * G)),
                        intLit(Bx * G));
    ExprPtr Within =
        binary(BinaryOp::Rem, binary(BinaryOp::Div, Col->clone(), intLit(Bx)),
               intLit(G));
    ExprPtr Thread =
        mul(binary(BinaryOp::Rem, std::move(Col), intLit(Bx)), intLit(G));
    return add(add(std::move(Group), std::move(Within)), std::move(Thread));
  }
  /// The column this thread's copy reads (KxName: the copy) of a tile
  /// stored by groupColumns.
  ExprPtr groupedRead(std::int64_t G) const {
    return add(add(mul(binary(BinaryOp::Div, var(KxName), intLit(G)),
                       intLit(S.Block[0] * G)),
                   binary(BinaryOp::Rem, var(KxName), intLit(G))),
               mul(builtin(Builtin::Tidx), intLit(G)));
  }
  llvm::Error checkSharedLimit(const LaunchPlan &Plan) const {
    if (Plan.SharedBytes <= staticSharedLimit(MD))
      return llvm::Error::success();
    return cannot(llvm::formatv("the shared tiles need {0} bytes, more than "
                                "the {1} a block may declare",
                                Plan.SharedBytes, staticSharedLimit(MD)));
  }
  /// Records how many elements \p Array has, for the launcher's aliasing
  /// check.
  llvm::Error requireElements(LaunchPlan &Plan, const std::string &Array) {
    ExprPtr N = symbolicElements(Origin, Array);
    if (!N)
      return cannot("cannot bound the extent of '" + Array +
                    "' for the run-time aliasing check");
    Plan.Elements[Array] = std::shared_ptr<const Expr>(std::move(N));
    return llvm::Error::success();
  }
  /// Does \p Index name a variable other than a scalar parameter and
  /// \p Iterators? (The naive kernel has no built-ins but idx and idy.)
  bool opaque(const Expr &Index, const std::set<std::string> &Iterators) const {
    bool Opaque = false;
    walkExpr(Index, [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Opaque |= !Origin.findParam(V->Name) && !Iterators.count(V->Name);
    });
    return Opaque;
  }

  std::string fresh(const std::string &Base) {
    return uniqueName(Names, Base, "", 2);
  }

  llvm::Expected<std::optional<LoopChoice>> chooseLoop(NaiveShape &NS);
  llvm::Error stage(NaiveShape &NS, LoopChoice &C, LaunchPlan &Plan);
  llvm::Error stageWrites(NaiveShape &NS, LaunchPlan &Plan);
  llvm::Error stageSegments(NaiveShape &NS, LaunchPlan &Plan);
  void findVarying(std::vector<StmtPtr> &Stmts);
  unsigned maskOf(const Expr &E) const {
    unsigned M = 0;
    walkExpr(E, [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
        auto It = Varying.find(V->Name);
        if (It != Varying.end())
          M |= It->second;
      }
      if (auto *B = llvm::dyn_cast<BuiltinRef>(&X)) {
        if (B->Which == Builtin::Idx)
          M |= MergedDims & 1;
        if (B->Which == Builtin::Idy)
          M |= MergedDims & 2;
      }
    });
    return M;
  }
  bool varies(const Expr &E) const { return maskOf(E) != 0; }
  unsigned maskOf(Stmt &St) {
    unsigned M = 0;
    auto Local = [&](const std::string &N) {
      auto It = Varying.find(N);
      if (It != Varying.end())
        M |= It->second;
    };
    walkStmts(St, [&](Stmt &X) {
      if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
        Local(D->Name);
      if (auto *L = llvm::dyn_cast<ForStmt>(&X))
        Local(L->Iter);
    });
    walkExprs(St, [&](const Expr &E) { M |= maskOf(E); });
    return M;
  }
  bool varies(Stmt &St) { return maskOf(St) != 0; }
  std::vector<StmtPtr> merge(std::vector<StmtPtr> Stmts);
  /// A condition or loop bound kept once because it does not vary: a
  /// placeholder left in it (a staged read in an `if` in the tiled loop)
  /// belongs to a dimension that is not merged, whose one copy is 0.
  static ExprPtr once(ExprPtr E) {
    E = substituteVar(std::move(E), KxName, *intLit(0));
    E = substituteVar(std::move(E), KyName, *intLit(0));
    return simplifyExpr(std::move(E));
  }
  StmtPtr copyFor(const Stmt &St, std::int64_t Kx, std::int64_t Ky);
  std::string suffix(unsigned Mask, std::int64_t Kx, std::int64_t Ky) const {
    if (Mask == 1)
      return "_" + std::to_string(Kx);
    if (Mask == 2)
      return "_" + std::to_string(Ky);
    return "_" + std::to_string(Ky * S.Merge[0] + Kx);
  }
};

llvm::Expected<std::optional<LoopChoice>>
Generator::chooseLoop(NaiveShape &NS) {
  if (S.LoopTile <= 0)
    return std::nullopt;
  std::vector<std::pair<ForStmt *, std::set<std::string>>> Loops;
  uniformLoops(NS.Guarded, Origin, {}, Loops);
  if (Loops.empty())
    return std::nullopt;

  // Accesses are found on Origin; loops on the clone in NS. Match loops by
  // their position in a pre-order walk of both trees.
  std::vector<const ForStmt *> OriginLoops;
  walkStmts(*Origin.Body, [&](Stmt &X) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&X))
      OriginLoops.push_back(L);
  });
  std::vector<ForStmt *> CloneLoops;
  for (StmtPtr &St : NS.Prologue)
    walkStmts(*St, [&](Stmt &X) {
      if (auto *L = llvm::dyn_cast<ForStmt>(&X))
        CloneLoops.push_back(L);
    });
  for (StmtPtr &St : NS.Guarded)
    walkStmts(*St, [&](Stmt &X) {
      if (auto *L = llvm::dyn_cast<ForStmt>(&X))
        CloneLoops.push_back(L);
    });
  if (OriginLoops.size() != CloneLoops.size())
    return cannot("internal: loop structure changed while splitting the guard");

  std::optional<LoopChoice> Best;
  for (auto &[L, Uniform] : Loops) {
    // The trip count must be known from the parameters alone: the whole
    // tiles end where the block agrees they do (strsm's `j < i` cannot be).
    if (!isUniform(*L->Init, Origin, {}) || !isUniform(*L->Bound, Origin, {}))
      continue;
    // Tiles of T iterations need the unit step (a step expression such as
    // `j += nt` has Step 1 as its direction only).
    if (L->Step != 1 || !L->hasConstantStep() ||
        (L->CondOp != BinaryOp::LT && L->CondOp != BinaryOp::LE &&
         L->CondOp != BinaryOp::NE) ||
        hasBarrierOrReturn(*L->Body))
      continue;
    bool Constant = false;
    std::int64_t Tile = loopTile(*L, S.LoopTile, Constant);
    if (Tile == 0)
      continue;
    size_t Pos =
        std::find(CloneLoops.begin(), CloneLoops.end(), L) - CloneLoops.begin();
    const ForStmt *OL = OriginLoops[Pos];
    LoopChoice C;
    C.Loop = L;
    C.Tile = Tile;
    C.ConstantTrip = Constant;
    C.Uniform = Uniform;
    for (const Access &A : Accesses) {
      if (A.IsWrite || Written.count(A.Array) || !A.Index ||
          !A.Index->isAffine() || A.Loops.empty() ||
          A.Loops.back().Loop != OL || A.Loops.back().ThreadStart)
        continue;
      AffineVar I{AffineVar::Kind::Loop, L->Iter};
      auto Coeff = A.Index->coefficientOf(I).asConstant();
      bool IterRows = false;
      if (Coeff && *Coeff > 1 && *Coeff <= 8) {
        // A[m*i + n]: a tile m*T wide serves every n in [n0, n0 + m)
        // (§3.3 unrolls 16/gcd(m, 16) times to the same effect).
      } else if (!Coeff || *Coeff != 1) {
        // Only as rows of a tile whose columns are consecutive positions.
        ThreadClass Cl = classOf(*A.Index);
        if (Cl != ThreadClass::X && Cl != ThreadClass::Y)
          continue;
        AffineVar P{AffineVar::Kind::Thread,
                    Cl == ThreadClass::X ? "idx" : "idy"};
        auto PC = A.Index->coefficientOf(P).asConstant();
        if (!PC || *PC != 1 || A.Index->coefficientOf(I).Terms.empty())
          continue;
        IterRows = true;
      }
      bool OtherLoops = false;
      for (const AffineVar &V : A.Index->variables(AffineVar::Kind::Loop))
        OtherLoops |= V.Name != L->Iter && !Uniform.count(V.Name);
      if (OtherLoops)
        continue;
      Candidate Cand{A, classOf(*A.Index), false, IterRows};
      if (Cand.Class == ThreadClass::Both)
        continue;
      Cand.Uncoalesced = checkCoalescing(A, MD).Coalesced == Tristate::False;
      if (!Cand.Uncoalesced && sharers(Cand.Class, S) <= 1)
        continue;
      C.Staged.push_back(Cand);
    }
    if (!C.Staged.empty() && (!Best || C.Staged.size() >= Best->Staged.size()))
      Best = std::move(C);
  }
  return Best;
}

/// Inlines single-assignment locals into \p E until only parameters,
/// built-ins and loop iterators remain.
ExprPtr inlineLocals(ExprPtr E, const std::map<std::string, const Expr *> &Defs,
                     const Function &F, unsigned Depth = 0) {
  if (Depth > 8)
    return E;
  bool Changed = false;
  E = rewriteExpr(std::move(E), [&](Expr &X) -> ExprPtr {
    auto *V = llvm::dyn_cast<VarRef>(&X);
    if (!V || F.findParam(V->Name))
      return nullptr;
    auto It = Defs.find(V->Name);
    if (It == Defs.end() || !It->second)
      return nullptr;
    Changed = true;
    return It->second->clone();
  });
  return Changed ? inlineLocals(std::move(E), Defs, F, Depth + 1)
                 : std::move(E);
}

llvm::Error Generator::stage(NaiveShape &NS, LoopChoice &C, LaunchPlan &Plan) {
  ForStmt &L = *C.Loop;
  const std::int64_t T = C.Tile;
  std::set<std::string> LoopLocals;
  collectNames(*L.Body, LoopLocals);
  // The loop as written, for the iterations past the last whole tile.
  std::unique_ptr<ForStmt> Rest(llvm::cast<ForStmt>(L.clone().release()));

  std::string Tile = fresh(L.Iter + "0");
  ExprPtr Bound = L.Bound->clone();
  if (L.CondOp == BinaryOp::LE)
    Bound = add(std::move(Bound), intLit(1));
  Bound = simplifyExpr(std::move(Bound));

  std::vector<StmtPtr> Loads;
  // (array ref in the body) → replacement
  std::vector<std::pair<std::string, ExprPtr>> Replace; // by index text
  std::set<std::string> Redirected;                     // keys already staged
  // Accesses A[f + m*i + n] with the same f and m share one tile.
  struct Group {
    std::vector<const Candidate *> Members;
    std::int64_t M = 1, N0 = 0;
  };
  std::vector<Group> Groups;
  {
    std::map<std::string, size_t> ByKey;
    AffineVar I{AffineVar::Kind::Loop, L.Iter};
    for (const Candidate &Cand : C.Staged) {
      std::int64_t M =
          Cand.IterRows ? 1 : *Cand.A.Index->coefficientOf(I).asConstant();
      std::int64_t N = Cand.IterRows ? 0 : Cand.A.Index->constantTerm();
      std::string GroupKey =
          Cand.IterRows
              ? accessKey(Cand.A.Array, Cand.A.IndexText)
              : Cand.A.Array + "|" + std::to_string(M) + "|" +
                    (Cand.A.Index->without(I) - AffineForm::constant(N)).str();
      auto [It, New] = ByKey.emplace(GroupKey, Groups.size());
      if (New)
        Groups.push_back({{}, M, N});
      Group &G = Groups[It->second];
      G.Members.push_back(&Cand);
      G.N0 = std::min(G.N0, N);
    }
  }
  for (Group &G : Groups) {
    // The representative: the access at the tile's first column.
    const Candidate *Rep = nullptr;
    std::vector<const Candidate *> Served;
    for (const Candidate *Cand : G.Members) {
      std::int64_t N = Cand->IterRows ? 0 : Cand->A.Index->constantTerm();
      if (N - G.N0 >= G.M)
        continue; // beyond the tile's width: stays in global memory
      Served.push_back(Cand);
      if (N == G.N0 && !Rep)
        Rep = Cand;
    }
    if (!Rep)
      continue;
    const Candidate &Cand = *Rep;
    const Access &A = Cand.A;
    const std::int64_t W = G.M * T; // columns of the tile
    if (Redirected.count(accessKey(A.Array, A.IndexText)))
      continue;
    // A true 2-D array (the paper's a[idy][i]) is loaded index by index:
    // the iterator and the position are substituted in each, so the
    // column offset lands on the iterator (unit coefficient only).
    std::set<std::string> Iterators = C.Uniform;
    Iterators.insert(L.Iter);
    std::vector<ExprPtr> Indices;
    bool Unusable = A.Ref->Indices.size() > 1 && G.M != 1;
    for (const ExprPtr &X : A.Ref->Indices) {
      Indices.push_back(inlineLocals(X->clone(), Defs, Origin));
      // A local the index cannot be expressed without.
      Unusable |= mentionsVar(*Indices.back(), LoopLocals) ||
                  opaque(*Indices.back(), Iterators);
    }
    if (Unusable)
      continue;
    std::int64_t Rows = Cand.Class == ThreadClass::X   ? S.Block[0] * S.Merge[0]
                        : Cand.Class == ThreadClass::Y ? S.Block[1] * S.Merge[1]
                                                       : 1;
    const bool Flat = Rows == 1, IterRows = Cand.IterRows && !Flat;
    const std::int64_t Group = columnGroup(Cand, IterRows, A.ElementBytes);
    std::int64_t Pad =
        Flat || IterRows ? 0 : choosePad(Rows, W, Cand.Class, S, MD);
    std::vector<std::int64_t> Dims =
        Flat       ? std::vector<std::int64_t>{W}
        : IterRows ? std::vector<std::int64_t>{T, Rows}
                   : std::vector<std::int64_t>{Rows, W + Pad};
    SharedTile Shared =
        declareTile(NS, Plan, A.Array, A.Ref->getType(), A.ElementBytes, Dims);

    // The load: element l of the tile is (row r, column c) of the block's
    // threads and the loop's T iterations, consecutive l along consecutive
    // addresses so the loads coalesce.
    std::string E = fresh("l");
    ExprPtr Row = Flat       ? intLit(0)
                  : IterRows ? binary(BinaryOp::Rem, var(E), intLit(Rows))
                             : binary(BinaryOp::Div, var(E), intLit(W));
    ExprPtr Col = Flat       ? var(E)
                  : IterRows ? binary(BinaryOp::Div, var(E), intLit(Rows))
                             : binary(BinaryOp::Rem, var(E), intLit(W));
    // Column c is element f + m*i0 + n0 + c.
    std::vector<ExprPtr> SrcIdx;
    for (ExprPtr &Index : Indices) {
      ExprPtr Src =
          G.M == 1 ? substituteVar(std::move(Index), L.Iter,
                                   *add(var(Tile), Col->clone()))
                   : add(substituteVar(std::move(Index), L.Iter, *var(Tile)),
                         Col->clone());
      if (Cand.Class == ThreadClass::X)
        Src = substituteBuiltin(
            std::move(Src), Builtin::Idx,
            *add(mul(builtin(Builtin::Bidx), intLit(Rows)), Row->clone()));
      if (Cand.Class == ThreadClass::Y)
        Src = substituteBuiltin(
            std::move(Src), Builtin::Idy,
            *add(mul(builtin(Builtin::Bidy), intLit(Rows)), Row->clone()));
      SrcIdx.push_back(simplifyExpr(std::move(Src)));
    }
    std::vector<ExprPtr> DstIdx;
    if (IterRows) {
      DstIdx.push_back(std::move(Col));
      DstIdx.push_back(groupColumns(std::move(Row), Group));
    } else {
      if (!Flat)
        DstIdx.push_back(std::move(Row));
      DstIdx.push_back(std::move(Col));
    }
    auto SrcRef = std::make_unique<ArrayRef>(A.Array, std::move(SrcIdx),
                                             A.Ref->getType());
    Loads.push_back(cooperativeLoop(
        E, Rows * W,
        std::make_unique<AssignStmt>(tileRef(Shared, std::move(DstIdx)),
                                     AssignOp::Set, std::move(SrcRef))));

    // The read in the computation: row of this thread's copy.
    ExprPtr ReadRow =
        Cand.Class == ThreadClass::X && Group > 1 ? groupedRead(Group)
        : Cand.Class == ThreadClass::X
            ? add(mul(var(KxName), intLit(S.Block[0])), builtin(Builtin::Tidx))
        : Cand.Class == ThreadClass::Y
            ? add(mul(builtin(Builtin::Tidy), intLit(S.Merge[1])), var(KyName))
            : nullptr;
    for (const Candidate *Member : Served) {
      std::int64_t N =
          Member->IterRows ? 0 : Member->A.Index->constantTerm() - G.N0;
      ExprPtr Step = simplifyExpr(
          add(mul(intLit(G.M), binary(BinaryOp::Sub, var(L.Iter), var(Tile))),
              intLit(N)));
      std::vector<ExprPtr> ReadIdx;
      if (IterRows) {
        ReadIdx.push_back(std::move(Step));
        ReadIdx.push_back(simplifyExpr(ReadRow->clone()));
      } else {
        if (!Flat)
          ReadIdx.push_back(simplifyExpr(ReadRow->clone()));
        ReadIdx.push_back(std::move(Step));
      }
      std::string MemberKey = accessKey(Member->A.Array, Member->A.IndexText);
      Replace.push_back({MemberKey, tileRef(Shared, std::move(ReadIdx))});
      Redirected.insert(MemberKey);
    }
    Result.Staged.push_back({A.Array, A.IndexText, Shared.Name, Dims,
                             Cand.Uncoalesced, A.Line, Rows * W});
    Result.Staged.back().Grouped = Group;
  }
  if (Result.Staged.empty())
    return llvm::Error::success();
  if (auto E = checkSharedLimit(Plan))
    return E;

  // Replace the staged reads in the loop body (matched by array and index
  // as written, so every occurrence of the same access is redirected).
  redirect(*L.Body, Replace);
  // Did every staged access get replaced? (Index text spelled the same way.)
  std::set<std::string> Still;
  walkExprs(*L.Body, [&](const Expr &X) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(&X))
      if (R->Space == AddressSpace::Global)
        Still.insert(accessKey(*R));
  });
  for (auto &[K, _] : Replace)
    if (Still.count(K))
      return cannot("internal: a staged access was not redirected: " + K);

  // for (i0 = S; i0 < B; i0 += T) { loads; sync; for (i = i0; i < i0 + T;
  // i++) body; sync; }
  auto Inner = std::make_unique<ForStmt>();
  Inner->Iter = L.Iter;
  Inner->IterType = L.IterType;
  // A C89 counter (`int j; for (j = 0; ...)`) stays the variable declared
  // before the loop: the inner loop assigns it, so a read after the loop
  // still sees it. The tile's counter is a new name and declared here.
  Inner->DeclaresIter = L.DeclaresIter;
  Inner->Init = var(Tile);
  Inner->Bound = add(var(Tile), intLit(T));
  Inner->Body = std::move(L.Body);
  if (S.UnrollTile) // whole, as far as the budget allows (run)
    Inner->Unroll = unsigned(T);
  std::vector<StmtPtr> OuterBody = std::move(Loads);
  OuterBody.push_back(std::make_unique<SyncStmt>());
  OuterBody.push_back(std::move(Inner));
  OuterBody.push_back(std::make_unique<SyncStmt>());
  // A literal trip count is divided by its tile (loopTile). Any other runs
  // whole tiles up to End = Bound - (Bound - Init) % T, then the loop as
  // written from there: `for (i = k - k % 32; i < k; i++)`, reading global
  // memory (a C89 counter ends at Bound as before).
  if (!C.ConstantTrip) {
    ExprPtr End = simplifyExpr(
        binary(BinaryOp::Sub, Bound->clone(),
               binary(BinaryOp::Rem,
                      simplifyExpr(binary(BinaryOp::Sub, Bound->clone(),
                                          L.Init->clone())),
                      intLit(T))));
    Rest->Init = End->clone();
    Bound = std::move(End);
    if (!insertAfter(NS.Guarded, &L, std::move(Rest)))
      return cannot("internal: the tiled loop was not found to place its "
                    "remainder after it");
  }
  Result.TiledLoop = L.Iter;
  Result.TiledBy = T;
  if (L.CondOp == BinaryOp::NE) // `i != n` counts up to n only from below
    Plan.Preconditions.push_back(
        {std::shared_ptr<const Expr>(
             binary(BinaryOp::GE, Bound->clone(), L.Init->clone())),
         llvm::formatv("the {0} loop (`!=`) counts up to its bound", L.Iter)
             .str()});
  L.Iter = Tile;
  L.DeclaresIter = true;
  L.CondOp = BinaryOp::LT;
  L.Bound = std::move(Bound);
  L.Step = T;
  L.Body = block(std::move(OuterBody));
  return llvm::Error::success();
}

/// Reads outside loops that the coalescing check rejects, with constant or
/// predefined indices (§3.3: A[idy][0]): the segment the block's rows read
/// is loaded once into a shared tile, a row per row of the block and the
/// columns from the smallest constant offset to the largest, and read from
/// there. Only elements the naive threads read are loaded.
llvm::Error Generator::stageSegments(NaiveShape &NS, LaunchPlan &Plan) {
  struct Segment {
    const Access *Rep = nullptr;
    ThreadClass Class = ThreadClass::None;
    std::int64_t N0 = 0, N1 = 0;
    std::vector<const Access *> Members;
  };
  std::map<std::string, Segment> Segments;
  for (const Access &A : Accesses) {
    if (A.IsWrite || Written.count(A.Array) || !A.Loops.empty() || !A.Index ||
        !A.Index->isAffine() || A.Ref->Indices.size() != 1 ||
        A.Index->mentions(AffineVar::Kind::Loop) ||
        checkCoalescing(A, MD).Coalesced != Tristate::False)
      continue;
    ThreadClass C = classOf(*A.Index);
    if (C != ThreadClass::None && C != ThreadClass::Y)
      continue;
    std::int64_t N = A.Index->constantTerm();
    std::string Key =
        A.Array + "|" + (*A.Index - AffineForm::constant(N)).str();
    Segment &Seg = Segments[Key];
    if (!Seg.Rep || N < Seg.N0) {
      if (!Seg.Rep)
        Seg.N1 = N;
      Seg.Rep = &A;
      Seg.N0 = N;
    }
    Seg.N1 = std::max(Seg.N1, N);
    Seg.Class = C;
    Seg.Members.push_back(&A);
  }
  if (Segments.empty())
    return llvm::Error::success();
  std::vector<StmtPtr> Loads;
  std::vector<std::pair<std::string, ExprPtr>> Replace;
  for (auto &[Key, Seg] : Segments) {
    const Access &A = *Seg.Rep;
    if (Seg.N1 - Seg.N0 >= 64)
      continue; // too wide a segment for one tile
    ExprPtr Index = inlineLocals(A.Ref->Indices[0]->clone(), Defs, Origin);
    if (opaque(*Index, {}))
      continue;
    const std::int64_t Rows =
        Seg.Class == ThreadClass::Y ? S.Block[1] * S.Merge[1] : 1;
    const std::int64_t Cols = Seg.N1 - Seg.N0 + 1;
    std::vector<std::int64_t> Dims;
    if (Rows > 1)
      Dims.push_back(Rows);
    if (Cols > 1 || Rows == 1)
      Dims.push_back(Cols);
    SharedTile Shared =
        declareTile(NS, Plan, A.Array, A.Ref->getType(), A.ElementBytes, Dims);

    std::string L = fresh("l");
    ExprPtr Row =
        Rows > 1 ? binary(BinaryOp::Div, var(L), intLit(Cols)) : intLit(0);
    ExprPtr Col = binary(BinaryOp::Rem, var(L), intLit(Cols));
    // Element (r, c): the representative's index at row r, plus c.
    ExprPtr Src = add(Index->clone(), Col->clone());
    if (Seg.Class == ThreadClass::Y)
      Src = substituteBuiltin(
          std::move(Src), Builtin::Idy,
          *add(mul(builtin(Builtin::Bidy), intLit(Rows)), Row->clone()));
    Row = simplifyExpr(std::move(Row));
    Col = simplifyExpr(std::move(Col));
    Src = simplifyExpr(std::move(Src));
    std::vector<ExprPtr> DstIdx, SrcIdx;
    if (Rows > 1)
      DstIdx.push_back(std::move(Row));
    if (Cols > 1 || Rows == 1)
      DstIdx.push_back(std::move(Col));
    SrcIdx.push_back(simplifyExpr(std::move(Src)));
    Loads.push_back(cooperativeLoop(
        L, Rows * Cols,
        std::make_unique<AssignStmt>(
            tileRef(Shared, std::move(DstIdx)), AssignOp::Set,
            std::make_unique<ArrayRef>(A.Array, std::move(SrcIdx),
                                       A.Ref->getType()))));
    for (const Access *Member : Seg.Members) {
      std::vector<ExprPtr> ReadIdx;
      if (Rows > 1)
        ReadIdx.push_back(simplifyExpr(
            add(mul(builtin(Builtin::Tidy), intLit(S.Merge[1])), var(KyName))));
      if (Cols > 1 || Rows == 1)
        ReadIdx.push_back(intLit(Member->Index->constantTerm() - Seg.N0));
      Replace.push_back({accessKey(Member->Array, Member->IndexText),
                         tileRef(Shared, std::move(ReadIdx))});
    }
    Result.Staged.push_back(
        {A.Array, A.IndexText, Shared.Name, Dims, true, A.Line, Rows * Cols});
  }
  if (Loads.empty())
    return llvm::Error::success();
  if (auto E = checkSharedLimit(Plan))
    return E;
  // Redirect the reads outside loops (inside a loop the same text is the
  // same element: the index has no iterator), then load first of all.
  for (StmtPtr &St : NS.Guarded)
    redirect(*St, Replace);
  Loads.push_back(std::make_unique<SyncStmt>());
  for (StmtPtr &St : NS.Guarded)
    Loads.push_back(std::move(St));
  NS.Guarded = std::move(Loads);
  return llvm::Error::success();
}

/// Writes the coalescing check rejects, like the transpose's
/// out[x*h + y], go through a shared tile: each thread stores its element
/// at (its X, its Y) of the block's tile, and after a barrier the block
/// writes the tile out along Y, where consecutive threads reach consecutive
/// addresses. Only for a write done once per thread, at the top of the
/// guarded code, to an array the kernel does not read, whose index moves
/// by one element along Y.
llvm::Error Generator::stageWrites(NaiveShape &NS, LaunchPlan &Plan) {
  const std::int64_t TX = S.Block[0] * S.Merge[0], TY = S.Block[1] * S.Merge[1];
  if (NS.Dims != 2 || TY < 2)
    return llvm::Error::success();
  std::map<std::string, unsigned> Writes;
  for (const Access &A : Accesses)
    Writes[A.Array] += A.IsWrite;
  std::vector<StmtPtr> Stores;
  for (StmtPtr &St : NS.Guarded) {
    auto *As = llvm::dyn_cast<AssignStmt>(St.get());
    auto *R = As ? llvm::dyn_cast<ArrayRef>(As->LHS.get()) : nullptr;
    if (!R || R->Space != AddressSpace::Global || As->Op != AssignOp::Set ||
        Read.count(R->Array) || Writes[R->Array] != 1)
      continue;
    const Access *A = nullptr;
    for (const Access &X : Accesses)
      if (X.IsWrite && X.Array == R->Array)
        A = &X;
    if (!A || !A->Index || !A->Loops.empty() ||
        checkCoalescing(*A, MD).Coalesced != Tristate::False)
      continue;
    auto YC =
        A->Index->coefficientOf({AffineVar::Kind::Thread, "idy"}).asConstant();
    if (classOf(*A->Index) != ThreadClass::Both || !YC || *YC != 1)
      continue;
    // One index, or one per dimension of a true array (the paper's
    // c[idx][idy]).
    std::vector<ExprPtr> Indices;
    bool Opaque = false;
    for (const ExprPtr &I : R->Indices) {
      Indices.push_back(inlineLocals(I->clone(), Defs, Origin));
      Opaque |= opaque(*Indices.back(), {});
    }
    const std::string Array = R->Array;
    const Type RefTy = R->getType();
    if (Opaque)
      continue;

    // Rows are X positions, columns Y: the thread stores down a column,
    // the block's copy-out reads along rows.
    std::int64_t Pad = choosePadding(TY, MD.Banks, [&](std::int64_t Pitch) {
      std::vector<std::int64_t> Column, Row;
      for (unsigned T = 0; T < MD.BankConflictGroup; ++T) {
        Column.push_back((T % S.Block[0]) * Pitch + (T / S.Block[0]) % TY);
        Row.push_back((T / TY) * Pitch + T % TY);
      }
      return std::vector<std::vector<std::int64_t>>{Column, Row};
    });
    SharedTile Shared =
        declareTile(NS, Plan, Array, RefTy, A->ElementBytes, {TX, TY + Pad});
    std::vector<ExprPtr> Own;
    Own.push_back(simplifyExpr(
        add(mul(var(KxName), intLit(S.Block[0])), builtin(Builtin::Tidx))));
    Own.push_back(simplifyExpr(
        add(mul(builtin(Builtin::Tidy), intLit(S.Merge[1])), var(KyName))));
    As->LHS = tileRef(Shared, std::move(Own));

    std::string L = fresh("l");
    ExprPtr Row = binary(BinaryOp::Div, var(L), intLit(TY));
    ExprPtr Col = binary(BinaryOp::Rem, var(L), intLit(TY));
    std::vector<ExprPtr> OutIdx, TileIdx;
    for (ExprPtr &Index : Indices) {
      ExprPtr Out = substituteBuiltin(
          std::move(Index), Builtin::Idx,
          *add(mul(builtin(Builtin::Bidx), intLit(TX)), Row->clone()));
      Out = substituteBuiltin(
          std::move(Out), Builtin::Idy,
          *add(mul(builtin(Builtin::Bidy), intLit(TY)), Col->clone()));
      OutIdx.push_back(simplifyExpr(std::move(Out)));
    }
    TileIdx.push_back(std::move(Row));
    TileIdx.push_back(std::move(Col));
    Stores.push_back(cooperativeLoop(
        L, TX * TY,
        std::make_unique<AssignStmt>(
            std::make_unique<ArrayRef>(Array, std::move(OutIdx), RefTy),
            AssignOp::Set, tileRef(Shared, std::move(TileIdx)))));
    StagedAccess SA{A->Array, A->IndexText, Shared.Name, {TX, TY + Pad},
                    true,     A->Line,      TX * TY};
    SA.IsWrite = true;
    Result.Staged.push_back(std::move(SA));
    for (const std::string &Other : Read)
      Plan.Disjoint.push_back({Other, A->Array});
  }
  if (Stores.empty())
    return llvm::Error::success();
  if (auto E = checkSharedLimit(Plan))
    return E;
  NS.Guarded.push_back(std::make_unique<SyncStmt>());
  for (StmtPtr &St : Stores)
    NS.Guarded.push_back(std::move(St));
  for (const std::string &Arr : Read)
    if (auto E = requireElements(Plan, Arr))
      return E;
  for (const StagedAccess &SA : Result.Staged)
    if (SA.IsWrite)
      if (auto E = requireElements(Plan, SA.Array))
        return E;
  return llvm::Error::success();
}

void Generator::findVarying(std::vector<StmtPtr> &Stmts) {
  bool Changed = true;
  std::function<void(Stmt &, unsigned)> Walk = [&](Stmt &St, unsigned Ctx) {
    auto Mark = [&](const std::string &N, unsigned M) {
      if (!M)
        return;
      unsigned &Old = Varying[N];
      Changed |= (Old | M) != Old;
      Old |= M;
    };
    if (auto *D = llvm::dyn_cast<DeclStmt>(&St)) {
      Mark(D->Name, Ctx | (D->Init ? maskOf(*D->Init) : 0));
    } else if (auto *A = llvm::dyn_cast<AssignStmt>(&St)) {
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Mark(V->Name, Ctx | maskOf(*A->RHS));
    } else if (auto *If = llvm::dyn_cast<IfStmt>(&St)) {
      unsigned C = Ctx | maskOf(*If->Cond);
      Walk(*If->Then, C);
      if (If->Else)
        Walk(*If->Else, C);
    } else if (auto *L = llvm::dyn_cast<ForStmt>(&St)) {
      unsigned C = Ctx | maskOf(*L->Init) | maskOf(*L->Bound) |
                   (L->StepExpr ? maskOf(*L->StepExpr) : 0);
      Mark(L->Iter, C);
      Walk(*L->Body, C);
    } else if (auto *B = llvm::dyn_cast<BlockStmt>(&St)) {
      for (StmtPtr &X : B->Body)
        Walk(*X, Ctx);
    }
  };
  while (Changed) {
    Changed = false;
    for (StmtPtr &St : Stmts)
      Walk(*St, 0);
  }
  for (auto It = Varying.begin(); It != Varying.end();)
    It = It->second ? std::next(It) : Varying.erase(It);
}

StmtPtr Generator::copyFor(const Stmt &St, std::int64_t Kx, std::int64_t Ky) {
  StmtPtr C = St.clone();
  if (S.Merge[0] > 1 && S.AdjacentX)
    substituteBuiltin(
        *C, Builtin::Idx,
        *add(mul(builtin(Builtin::Idx), intLit(S.Merge[0])), intLit(Kx)));
  else if (S.Merge[0] > 1)
    substituteBuiltin(
        *C, Builtin::Idx,
        *add(mul(add(mul(builtin(Builtin::Bidx), intLit(S.Merge[0])),
                     intLit(Kx)),
                 builtin(Builtin::Bdimx)),
             builtin(Builtin::Tidx)));
  if (S.Merge[1] > 1)
    substituteBuiltin(
        *C, Builtin::Idy,
        *add(mul(builtin(Builtin::Idy), intLit(S.Merge[1])), intLit(Ky)));
  substituteVar(*C, KxName, *intLit(Kx));
  substituteVar(*C, KyName, *intLit(Ky));
  auto Renamed = [&](const std::string &N) -> std::optional<std::string> {
    auto It = Varying.find(N);
    if (It == Varying.end())
      return std::nullopt;
    return N + suffix(It->second, Kx, Ky);
  };
  rewriteExprs(*C, [&](Expr &X) -> ExprPtr {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      if (auto N = Renamed(V->Name))
        return var(*N, V->getType());
    return nullptr;
  });
  walkStmts(*C, [&](Stmt &X) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
      if (auto N = Renamed(D->Name))
        D->Name = *N;
    if (auto *L = llvm::dyn_cast<ForStmt>(&X))
      if (auto N = Renamed(L->Iter))
        L->Iter = *N;
  });
  rewriteExprs(*C, [](Expr &X) -> ExprPtr {
    return llvm::isa<BinaryExpr>(&X) ? simplifyExpr(X.clone()) : nullptr;
  });
  return C;
}

std::vector<StmtPtr> Generator::merge(std::vector<StmtPtr> Stmts) {
  std::vector<StmtPtr> Out;
  for (StmtPtr &St : Stmts) {
    if (!varies(*St)) {
      Out.push_back(copyFor(*St, 0, 0));
      continue;
    }
    if (auto *L = llvm::dyn_cast<ForStmt>(St.get());
        L && !varies(*L->Init) && !varies(*L->Bound) &&
        !(L->StepExpr && varies(*L->StepExpr)) && !Varying.count(L->Iter)) {
      L->Init = once(std::move(L->Init));
      L->Bound = once(std::move(L->Bound));
      if (L->StepExpr)
        L->StepExpr = once(std::move(L->StepExpr));
      L->Body = block(merge(unwrap(std::move(L->Body))));
      Out.push_back(std::move(St));
      continue;
    }
    if (auto *If = llvm::dyn_cast<IfStmt>(St.get()); If && !varies(*If->Cond)) {
      If->Cond = once(std::move(If->Cond));
      If->Then = block(merge(unwrap(std::move(If->Then))));
      if (If->Else)
        If->Else = block(merge(unwrap(std::move(If->Else))));
      Out.push_back(std::move(St));
      continue;
    }
    if (llvm::isa<BlockStmt>(St.get())) {
      Out.push_back(block(merge(unwrap(std::move(St)))));
      continue;
    }
    // Replicated over the dimensions it varies in only: `int x = idx`
    // gives x_0, x_1 for two copies in X, whatever the copies in Y.
    unsigned M = maskOf(*St);
    for (std::int64_t Ky = 0; Ky < (M & 2 ? S.Merge[1] : 1); ++Ky)
      for (std::int64_t Kx = 0; Kx < (M & 1 ? S.Merge[0] : 1); ++Kx)
        Out.push_back(copyFor(*St, Kx, Ky));
  }
  return Out;
}

llvm::Expected<TiledKernel> Generator::run() {
  for (unsigned D = 0; D < 2; ++D)
    if (S.Block[D] < 1 || S.Merge[D] < 1)
      return cannot("block and merge factors must be positive");
  if (S.AdjacentX && S.LoopTile > 0)
    return cannot("neighbouring threads merge in X only without staging");
  if (hasGlobalSync(Origin))
    return cannot("the kernel has a global barrier");
  bool OnlyPositions = true, HasSync = false, Vectorized = false;
  walkExprs(*Origin.Body, [&](const Expr &E) {
    if (auto *B = llvm::dyn_cast<BuiltinRef>(&E))
      OnlyPositions &= B->Which == Builtin::Idx || B->Which == Builtin::Idy ||
                       B->Which == Builtin::Idz;
    if (auto *A = llvm::dyn_cast<ArrayRef>(&E))
      Vectorized |= A->VectorWidth > 1;
  });
  if (Vectorized)
    return cannot("the kernel is already vectorized (vectorize runs after "
                  "the passes that tile)");
  walkStmts(*Origin.Body, [&](Stmt &X) { HasSync |= llvm::isa<SyncStmt>(&X); });
  if (!OnlyPositions)
    return cannot("the kernel reads threadIdx/blockIdx/blockDim directly, so "
                  "its meaning depends on the block shape");
  if (HasSync)
    return cannot("the kernel already synchronizes its block");
  if (Origin.Plan && !Origin.Plan->SameLaunch)
    return cannot("internal: the origin kernel is already tiled");

  auto NSOr = analyzeShape(Origin);
  if (!NSOr)
    return NSOr.takeError();
  NaiveShape &NS = *NSOr;
  if (NS.Dims == 1 && (S.Block[1] != 1 || S.Merge[1] != 1))
    return cannot("a 1-D kernel takes no Y factors");
  // A return in one merged copy would leave the copies after it undone,
  // and a break or continue in a loop the copies share would end or skip
  // the others' iterations.
  if (S.Merge[0] * S.Merge[1] > 1)
    for (StmtPtr &St : NS.Guarded) {
      const Stmt *Exit = nullptr;
      walkStmts(*St, [&](Stmt &X) {
        if (!Exit && (llvm::isa<ReturnStmt>(&X) || llvm::isa<JumpStmt>(&X)))
          Exit = &X;
      });
      if (Exit && llvm::isa<ReturnStmt>(Exit))
        return cannot(llvm::formatv("the return at line {0}, after the bounds "
                                    "guard, would end a merged thread's "
                                    "other copies",
                                    St->getLine()));
      if (Exit)
        return cannot(llvm::formatv(
            "the {0} at line {1} ends or skips an iteration of one thread "
            "only: its loop is kept as written, unmerged",
            llvm::cast<JumpStmt>(Exit)->IsBreak ? "break" : "continue",
            Exit->getLine()));
    }
  collectNames(*Origin.Body, Names);
  Accesses = collectAccesses(Origin);
  for (const Access &A : Accesses)
    (A.IsWrite ? Written : Read).insert(A.Array);
  Defs = singleAssignmentLocals(Origin);
  for (const Param &P : Origin.Params)
    Names.insert(P.Name);

  LaunchPlan Plan;
  if (Origin.Plan) { // scalar replacement's aliasing requirements carry over
    Plan.Preconditions = Origin.Plan->Preconditions;
    Plan.Disjoint = Origin.Plan->Disjoint;
    Plan.Elements = Origin.Plan->Elements;
  }
  Plan.Dims = NS.Dims;
  Plan.Block = S.Block;
  Plan.Coverage = S.Merge;
  Plan.Extent = NS.Extent;
  Plan.LoopTile = S.LoopTile;

  auto Choice = chooseLoop(NS);
  if (!Choice)
    return Choice.takeError();
  if (*Choice)
    if (auto E = stage(NS, **Choice, Plan))
      return E;
  if (S.LoopTile > 0) {
    if (auto E = stageSegments(NS, Plan))
      return E;
    if (auto E = stageWrites(NS, Plan))
      return E;
  }
  bool Tiled = !Result.Staged.empty();
  if ((Tiled || S.WholeTiles) && NS.GuardKeepsMore)
    return cannot("the bounds guard tests more than the thread positions");

  if (Tiled || S.WholeTiles) {
    // Every launched thread is inside the domain (the launch runs whole
    // tiles only), and all of them must reach the barriers.
    std::set<std::string> StagedArrays;
    for (const StagedAccess &SA : Result.Staged)
      if (!SA.IsWrite)
        StagedArrays.insert(SA.Array);
    for (const std::string &R : StagedArrays)
      for (const std::string &W : Written) {
        if (auto E = requireElements(Plan, R))
          return E;
        if (auto E = requireElements(Plan, W))
          return E;
        Plan.Disjoint.push_back({R, W});
      }
  } else {
    Plan.GuardsDomain = NS.Guard != nullptr;
    if (NS.Guard) {
      auto If = std::make_unique<IfStmt>(std::move(NS.Guard),
                                         block(std::move(NS.Guarded)));
      NS.Guarded.clear();
      NS.Guarded.push_back(std::move(If));
    }
  }
  MergedDims = (S.Merge[0] > 1 ? 1 : 0) | (S.Merge[1] > 1 ? 2 : 0);
  if (S.Merge[0] > 1)
    Varying[KxName] = 1;
  if (S.Merge[1] > 1)
    Varying[KyName] = 2;

  std::vector<StmtPtr> All = std::move(NS.Prologue);
  for (StmtPtr &St : NS.Guarded)
    All.push_back(std::move(St));
  findVarying(All);

  auto K = Origin.withBody(std::make_unique<BlockStmt>());
  K->Body->Body = merge(std::move(All));
  capUnrolling(*K->Body);

  // Traffic: global elements loaded per naive output per tile step.
  {
    std::int64_t NT = S.Block[0] * S.Block[1];
    double Outputs = double(NT * S.Merge[0] * S.Merge[1]);
    double Loads = 0;
    for (const StagedAccess &SA : Result.Staged)
      Loads += double(SA.Loaded);
    // Distinct global reads one thread makes per iteration of the loop
    // (the tiled loop when there is one, else the whole kernel).
    std::set<std::string> Reads, SharedReads;
    Stmt *Scope = K->Body.get();
    if (Tiled) // the first: the tile's loop (a remainder loop follows)
      walkStmts(*K->Body, [&](Stmt &X) {
        if (auto *L = llvm::dyn_cast<ForStmt>(&X))
          if (L->Iter == Result.TiledLoop && Scope == K->Body.get())
            Scope = L->Body.get();
      });
    walkStmts(*Scope, [&](Stmt &X) {
      auto Note = [&](const Expr &E) {
        walkExpr(E, [&](const Expr &Y) {
          if (auto *R = llvm::dyn_cast<ArrayRef>(&Y)) {
            if (R->Space == AddressSpace::Global)
              Reads.insert(printExprDebug(*R));
            else if (R->Space == AddressSpace::Shared)
              SharedReads.insert(printExprDebug(*R));
          }
        });
      };
      if (auto *A = llvm::dyn_cast<AssignStmt>(&X)) {
        Note(*A->RHS);
        if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
          for (const ExprPtr &I : R->Indices)
            Note(*I);
      } else if (auto *D = llvm::dyn_cast<DeclStmt>(&X)) {
        if (D->Init)
          Note(*D->Init);
      }
    });
    double PerStep =
        Tiled ? double(Result.TiledBy > 0 ? Result.TiledBy : S.LoopTile) : 1.0;
    Loads += double(Reads.size()) * double(NT) * PerStep;
    Result.LoadsPerOutput = Loads / (Outputs * PerStep);
    // Each distinct shared read once per iteration of the loop over the
    // tile (the tiled loop's body holds one iteration's reads).
    Result.SharedLoadsPerOutput =
        double(SharedReads.size()) * double(NT) / Outputs;
  }

  // Registers: a base, plus each replicated scalar once per copy: two for
  // what varies in one direction (positions, which feed 64-bit addresses),
  // one for what varies in both (the accumulators of a register tile:
  // ptxas gives mm's 4x4 tile 56 registers and its 8x8 tile 128).
  unsigned Copies = 0;
  for (const auto &[N, M] : Varying)
    if (N.rfind("__merge", 0) != 0)
      Copies += unsigned(M == 1   ? 2 * S.Merge[0]
                         : M == 2 ? 2 * S.Merge[1]
                                  : S.Merge[0] * S.Merge[1]);
  Result.EstimatedRegisters = 16 + Copies;

  Plan.EstimatedRegisters = Result.EstimatedRegisters;
  Plan.Origin = std::shared_ptr<const Function>(Origin.clone());
  setLayers(Plan, Origin);
  K->Plan = std::move(Plan);
  Result.Kernel = std::move(K);
  return std::move(Result);
}

} // namespace

std::unique_ptr<Function> interchanged(const Function &F) {
  std::unique_ptr<Function> G = F.clone();
  const char *Hold = "__interchange_x";
  substituteBuiltin(*G->Body, Builtin::Idx, *var(Hold));
  substituteBuiltin(*G->Body, Builtin::Idy, *builtin(Builtin::Idx));
  substituteVar(*G->Body, Hold, *builtin(Builtin::Idy));
  return G;
}

bool canInterchange(const Function &F) {
  KernelDomain D = findDomain(F);
  bool Unguarded = D.Bounds[0].empty() && D.Bounds[1].empty() &&
                   D.Lower[0].empty() && D.Lower[1].empty();
  return D.Dims == 2 &&
         (Unguarded || (D.Bounds[0].size() == 1 && D.Bounds[1].size() == 1));
}

llvm::Expected<TiledKernel> generateTiled(const Function &Origin,
                                          const TileShape &S,
                                          const MachineDescription &MD) {
  if (!S.Interchange)
    return Generator(Origin, S, MD).run();
  if (!canInterchange(Origin))
    return cannot("exchanging idx and idy needs a 2-D kernel with a bound "
                  "on each position or none");
  std::unique_ptr<Function> Swapped = interchanged(Origin);
  TileShape Plain = S;
  Plain.Interchange = false;
  auto K = Generator(*Swapped, Plain, MD).run();
  if (!K)
    return K.takeError();
  K->Kernel->Plan->Interchanged = true;
  K->Kernel->Plan->Origin = std::shared_ptr<const Function>(Origin.clone());
  return K;
}

} // namespace gpumerge
