//===- TileStaging.cpp - The loop tiled and its shared tiles --------------===//
//
// The staging half of the generator (TileGenerator.h): which loop is tiled,
// which of its accesses go through shared memory (coalescing, sharing by
// the block's threads), how each tile is laid out (padding against bank
// conflicts, a thread's merged columns side by side), loaded by the block
// and read by the computation; the writes staged through a tile.
//
//===----------------------------------------------------------------------===//
#include "Transforms/TileGenerator.h"

#include "Analysis/BankConflicts.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Evaluate.h"

namespace gpumerge {
namespace tiling {
void collectNames(Stmt &S, std::set<std::string> &Names) {
  walkStmts(S, [&](Stmt &X) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&X))
      Names.insert(D->Name);
    if (auto *L = llvm::dyn_cast<ForStmt>(&X))
      Names.insert(L->Iter);
  });
}

namespace {

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
// Bank conflicts (docs/design.md, "Bank conflicts"; Baskaran et al.)
//===----------------------------------------------------------------------===//

/// The padding of a [Rows][Cols] tile minimising the conflicts of its
/// cooperative stores (consecutive threads, consecutive elements) and of the
/// reads of the computation (consecutive threads in X: Row = RowOfThread),
/// each pattern weighed by how often a thread runs it in a tile step: it
/// stores Rows * Cols / threads elements and reads Cols for each of its
/// merged rows. Unweighed, the h100 mm's a_s[128][16] (rows 8 apart a
/// thread) tied: pitch 17 took the reads' 2-way conflicts off and gave the
/// stores one, and the smaller pad won; its 128 reads a step against 8
/// stores lost the 12% that pitch 17 measured on an H100
/// (bench/experiments/mm-pipeline.cu: 4.13 ms, the generated kernel 4.65).
std::int64_t choosePad(std::int64_t Rows, std::int64_t Cols, ThreadClass C,
                       const TileShape &S, const MachineDescription &MD) {
  unsigned G = MD.BankConflictGroup;
  std::int64_t Threads = std::max<std::int64_t>(1, S.Block[0] * S.Block[1]);
  std::int64_t Stores = std::max<std::int64_t>(1, Rows * Cols / Threads);
  std::int64_t Reads = Cols * (C == ThreadClass::X   ? S.Merge[0]
                               : C == ThreadClass::Y ? S.Merge[1]
                                                     : 1);
  std::int64_t Weight = std::max<std::int64_t>(1, Reads / Stores);
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
    std::vector<std::vector<std::int64_t>> Groups{Store};
    Groups.insert(Groups.end(), size_t(Weight), Read);
    return Groups;
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

} // namespace

/// Columns a thread's merged copies in X read from an [iterations]
/// [threads] tile (b_s[i - i0][c * 16 + tidx] in mm) that are stored side
/// by side, so one 16-byte shared load reads G of them: G where the
/// target is one nvcc compiles for (ptxas combines the reads; mm's 8x8
/// tile on sm_90 then reads b with 2 LDS.128 a step instead of 8 LDS),
/// else 1. Copy k of thread t reads column k*Bx + t, stored at
/// (k / G) * Bx*G + t*G + k % G: groups of G, a warp's groups contiguous.
std::int64_t Generator::columnGroup(const Candidate &C, bool IterRows,
                                    unsigned ElementBytes) const {
  std::int64_t G = ElementBytes ? 16 / std::int64_t(ElementBytes) : 1;
  if (MD.SmArch.empty() || C.Class != ThreadClass::X || !IterRows || G < 2 ||
      S.Merge[0] < G || S.Merge[0] % G != 0)
    return 1;
  return G;
}

/// Where column \p Col of the tile is stored (columnGroup).
ExprPtr Generator::groupColumns(ExprPtr Col, std::int64_t G) const {
  if (G < 2)
    return Col;
  const std::int64_t Bx = S.Block[0];
  ExprPtr Group =
      mul(binary(BinaryOp::Div, Col->clone(), intLit(Bx * G)), intLit(Bx * G));
  ExprPtr Within =
      binary(BinaryOp::Rem, binary(BinaryOp::Div, Col->clone(), intLit(Bx)),
             intLit(G));
  ExprPtr Thread =
      mul(binary(BinaryOp::Rem, std::move(Col), intLit(Bx)), intLit(G));
  return add(add(std::move(Group), std::move(Within)), std::move(Thread));
}

/// The column this thread's copy reads (KxName: the copy) of a tile
/// stored by groupColumns.
ExprPtr Generator::groupedRead(std::int64_t G) const {
  return add(add(mul(binary(BinaryOp::Div, var(KxName), intLit(G)),
                     intLit(S.Block[0] * G)),
                 binary(BinaryOp::Rem, var(KxName), intLit(G))),
             mul(builtin(Builtin::Tidx), intLit(G)));
}

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
/// built-ins and loop iterators remain. A local of 64 bits defined by a
/// narrower expression (`size_t i = blockIdx.x * blockDim.x + threadIdx.x`)
/// inlines converted, so that `i * w` stays a product in 64 bits.
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
    const Type &T = V->getType();
    if (T.is64BitInteger() && It->second->getType().Scalar != T.Scalar)
      return std::make_unique<CastExpr>(T, It->second->clone());
    return It->second->clone();
  });
  return Changed ? inlineLocals(std::move(E), Defs, F, Depth + 1)
                 : std::move(E);
}

/// The staged accesses of \p C grouped by tile: A[f + m*i + n] with the
/// same f and m share one; one per access where the iterator strides rows.
static std::vector<StageGroup> groupStaged(const LoopChoice &C) {
  std::vector<StageGroup> Groups;
  std::map<std::string, size_t> ByKey;
  AffineVar I{AffineVar::Kind::Loop, C.Loop->Iter};
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
    StageGroup &G = Groups[It->second];
    G.Members.push_back(&Cand);
    G.N0 = std::min(G.N0, N);
  }
  return Groups;
}

StmtPtr Generator::loadTile(const Candidate &Cand, const StageGroup &G,
                            const TileLayout &T, const SharedTile &Shared,
                            const std::string &Tile,
                            std::vector<ExprPtr> Indices) {
  const std::string &Iter = T.Iter;
  // The load: element l of the tile is (row r, column c) of the block's
  // threads and the loop's T iterations, consecutive l along consecutive
  // addresses so the loads coalesce.
  std::string E = fresh("l");
  ExprPtr Row = T.Flat       ? intLit(0)
                : T.IterRows ? binary(BinaryOp::Rem, var(E), intLit(T.Rows))
                             : binary(BinaryOp::Div, var(E), intLit(T.Width));
  ExprPtr Col = T.Flat       ? var(E)
                : T.IterRows ? binary(BinaryOp::Div, var(E), intLit(T.Rows))
                             : binary(BinaryOp::Rem, var(E), intLit(T.Width));
  // Column c is element f + m*i0 + n0 + c.
  std::vector<ExprPtr> SrcIdx;
  for (ExprPtr &Index : Indices) {
    ExprPtr Src = G.M == 1
                      ? substituteVar(std::move(Index), Iter,
                                      *add(var(Tile), Col->clone()))
                      : add(substituteVar(std::move(Index), Iter, *var(Tile)),
                            Col->clone());
    if (Cand.Class == ThreadClass::X)
      Src = substituteBuiltin(
          std::move(Src), Builtin::Idx,
          *add(mul(builtin(Builtin::Bidx), intLit(T.Rows)), Row->clone()));
    if (Cand.Class == ThreadClass::Y)
      Src = substituteBuiltin(
          std::move(Src), Builtin::Idy,
          *add(mul(builtin(Builtin::Bidy), intLit(T.Rows)), Row->clone()));
    SrcIdx.push_back(simplifyExpr(std::move(Src)));
  }
  std::vector<ExprPtr> DstIdx;
  if (T.IterRows) {
    DstIdx.push_back(std::move(Col));
    DstIdx.push_back(groupColumns(std::move(Row), T.Group));
  } else {
    if (!T.Flat)
      DstIdx.push_back(std::move(Row));
    DstIdx.push_back(std::move(Col));
  }
  const Access &A = Cand.A;
  auto SrcRef =
      std::make_unique<ArrayRef>(A.Array, std::move(SrcIdx), A.Ref->getType());
  return cooperativeLoop(
      E, T.Rows * T.Width,
      std::make_unique<AssignStmt>(tileRef(Shared, std::move(DstIdx)),
                                   AssignOp::Set, std::move(SrcRef)));
}

void Generator::redirectServed(const Candidate &Cand, const StageGroup &G,
                               const TileLayout &T, const SharedTile &Shared,
                               const std::string &Tile,
                               const std::vector<const Candidate *> &Served,
                               StagedReads &Out) {
  // The read in the computation: row of this thread's copy.
  ExprPtr ReadRow =
      Cand.Class == ThreadClass::X && T.Group > 1 ? groupedRead(T.Group)
      : Cand.Class == ThreadClass::X
          ? add(mul(var(KxName), intLit(S.Block[0])), builtin(Builtin::Tidx))
      : Cand.Class == ThreadClass::Y
          ? add(mul(builtin(Builtin::Tidy), intLit(S.Merge[1])), var(KyName))
          : nullptr;
  for (const Candidate *Member : Served) {
    std::int64_t N =
        Member->IterRows ? 0 : Member->A.Index->constantTerm() - G.N0;
    ExprPtr Step = simplifyExpr(
        add(mul(intLit(G.M), binary(BinaryOp::Sub, var(T.Iter), var(Tile))),
            intLit(N)));
    std::vector<ExprPtr> ReadIdx;
    if (T.IterRows) {
      ReadIdx.push_back(std::move(Step));
      ReadIdx.push_back(simplifyExpr(ReadRow->clone()));
    } else {
      if (!T.Flat)
        ReadIdx.push_back(simplifyExpr(ReadRow->clone()));
      ReadIdx.push_back(std::move(Step));
    }
    std::string MemberKey = accessKey(Member->A.Array, Member->A.IndexText);
    Out.Replace.push_back({MemberKey, tileRef(Shared, std::move(ReadIdx))});
    Out.Redirected.insert(MemberKey);
  }
}

void Generator::stageGroup(NaiveShape &NS, const LoopChoice &C,
                           const StageGroup &G, const std::string &Tile,
                           const std::set<std::string> &LoopLocals,
                           LaunchPlan &Plan, StagedReads &Out) {
  const ForStmt &L = *C.Loop;
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
    return;
  const Candidate &Cand = *Rep;
  const Access &A = Cand.A;
  const std::int64_t W = G.M * C.Tile; // columns of the tile
  if (Out.Redirected.count(accessKey(A.Array, A.IndexText)))
    return;
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
    return;
  std::int64_t Rows = Cand.Class == ThreadClass::X   ? S.Block[0] * S.Merge[0]
                      : Cand.Class == ThreadClass::Y ? S.Block[1] * S.Merge[1]
                                                     : 1;
  const bool Flat = Rows == 1, IterRows = Cand.IterRows && !Flat;
  const std::int64_t Group = columnGroup(Cand, IterRows, A.ElementBytes);
  std::int64_t Pad =
      Flat || IterRows ? 0 : choosePad(Rows, W, Cand.Class, S, MD);
  std::vector<std::int64_t> Dims =
      Flat       ? std::vector<std::int64_t>{W}
      : IterRows ? std::vector<std::int64_t>{C.Tile, Rows}
                 : std::vector<std::int64_t>{Rows, W + Pad};
  SharedTile Shared =
      declareTile(NS, Plan, A.Array, A.Ref->getType(), A.ElementBytes, Dims);
  TileLayout T{L.Iter, Rows, W, Group, Flat, IterRows};
  Out.Loads.push_back(loadTile(Cand, G, T, Shared, Tile, std::move(Indices)));
  redirectServed(Cand, G, T, Shared, Tile, Served, Out);
  Result.Staged.push_back({A.Array, A.IndexText, Shared.Name, Dims,
                           Cand.Uncoalesced, A.Line, Rows * W});
  Result.Staged.back().Grouped = Group;
}

llvm::Error Generator::tileLoop(NaiveShape &NS, LoopChoice &C,
                                const std::string &Tile, ExprPtr Bound,
                                std::unique_ptr<ForStmt> Rest,
                                std::vector<StmtPtr> Loads, LaunchPlan &Plan) {
  ForStmt &L = *C.Loop;
  const std::int64_t T = C.Tile;
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
  // The input's `#pragma unroll` was for its loop, now the inner loop over
  // one tile (which gets its own) and the remainder (a copy, which keeps it).
  L.Unroll = 0;
  L.UnrollFull = false;
  L.Body = block(std::move(OuterBody));
  return llvm::Error::success();
}

llvm::Error Generator::stage(NaiveShape &NS, LoopChoice &C, LaunchPlan &Plan) {
  ForStmt &L = *C.Loop;
  std::set<std::string> LoopLocals;
  collectNames(*L.Body, LoopLocals);
  // The loop as written, for the iterations past the last whole tile.
  std::unique_ptr<ForStmt> Rest(llvm::cast<ForStmt>(L.clone().release()));

  std::string Tile = fresh(L.Iter + "0");
  ExprPtr Bound = L.Bound->clone();
  if (L.CondOp == BinaryOp::LE)
    Bound = add(std::move(Bound), intLit(1));
  Bound = simplifyExpr(std::move(Bound));

  StagedReads Staged;
  for (const StageGroup &G : groupStaged(C))
    stageGroup(NS, C, G, Tile, LoopLocals, Plan, Staged);
  if (Result.Staged.empty())
    return llvm::Error::success();
  if (auto E = checkSharedLimit(Plan))
    return E;

  // Replace the staged reads in the loop body (matched by array and index
  // as written, so every occurrence of the same access is redirected).
  redirect(*L.Body, Staged.Replace);
  // Did every staged access get replaced? (Index text spelled the same way.)
  std::set<std::string> Still;
  walkExprs(*L.Body, [&](const Expr &X) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(&X))
      if (R->Space == AddressSpace::Global)
        Still.insert(accessKey(*R));
  });
  for (auto &[K, _] : Staged.Replace)
    if (Still.count(K))
      return cannot("internal: a staged access was not redirected: " + K);
  return tileLoop(NS, C, Tile, std::move(Bound), std::move(Rest),
                  std::move(Staged.Loads), Plan);
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
      Plan.requireDisjoint(Other, A->Array, {});
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

} // namespace tiling
} // namespace gpumerge
