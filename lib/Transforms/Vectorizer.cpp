//===- Vectorizer.cpp - Vector accesses in one kernel ---------------------===//
#include "Transforms/Vectorizer.h"
#include "Analysis/Accesses.h"
#include "Analysis/Affine.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"
#include "Transforms/Tiling.h"
#include "Transforms/WholeGroups.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

namespace {

bool vectorizableElement(const Type &T) {
  return T.VectorWidth == 1 &&
         (T.Scalar == ScalarKind::Float || T.Scalar == ScalarKind::Double ||
          T.Scalar == ScalarKind::Int || T.Scalar == ScalarKind::UInt);
}

const char *const Components[] = {"x", "y", "z", "w"};

/// Is a vector of \p W elements of \p Elem at most 16 bytes, the widest
/// load and store of the GPUs of the machine descriptions? double4 is two
/// accesses anyway, and CUDA 13 deprecates it.
bool fitsOneAccess(const Type &Elem, unsigned W) {
  return W * Elem.elementBytes() <= 16;
}

/// Statements that may share a vector access: no control flow or barrier.
bool isStraight(const Stmt &S) {
  return llvm::isa<DeclStmt>(S) || llvm::isa<AssignStmt>(S) ||
         llvm::isa<ExprStmt>(S);
}

/// Variables a statement declares or assigns.
std::set<std::string> definedBy(const Stmt &S) {
  std::set<std::string> R;
  if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
    R.insert(D->Name);
  if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
    if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
      R.insert(V->Name);
  return R;
}

std::set<std::string> varsOf(const Expr &E) {
  std::set<std::string> R;
  walkExpr(E, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      R.insert(V->Name);
  });
  return R;
}

} // namespace

Vectorizer::Vectorizer(Function &F, VectorPolicy Policy,
                       std::set<std::string> ScalarTextures,
                       const Function &Naive)
    : F(F), Policy(Policy), ScalarTextures(std::move(ScalarTextures)) {
  Ctx = kernelAffineContext(F);
  Names = declaredNames(F);
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
      Ctx.LoopIterators.insert(L->Iter);
      Loops[L->Iter].push_back(L);
    }
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
        Written.insert(R->Array);
  });
  // An array passed on whole (to a helper) may be written there.
  Written.merge(arraysUsedAsPointers(F));
  // Element counts, for the arrays that must not overlap once accesses
  // move (from the kernel before this pass rewrites it).
  for (const Param &P : F.Params)
    if (P.isArray()) {
      std::shared_ptr<const Expr> N;
      if (F.Plan && F.Plan->Elements.count(P.Name))
        N = F.Plan->Elements.at(P.Name);
      else if (ExprPtr E = symbolicElements(Naive, P.Name))
        N = std::move(E);
      if (N)
        Elements[P.Name] = N;
    }
}

void Vectorizer::visitBlock(BlockStmt &B) {
  for (StmtPtr &S : B.Body)
    visitNested(S);
  combineRegions(B);
}

void Vectorizer::visitNested(StmtPtr &S) {
  if (auto *Blk = llvm::dyn_cast<BlockStmt>(S.get()))
    return visitBlock(*Blk);
  if (auto *I = llvm::dyn_cast<IfStmt>(S.get())) {
    visitChild(I->Then);
    if (I->Else)
      visitChild(I->Else);
    return;
  }
  if (auto *L = llvm::dyn_cast<ForStmt>(S.get())) {
    visitChild(L->Body);
    if (Policy.LoopBased)
      unrollForVectors(*L);
  }
}

void Vectorizer::visitChild(StmtPtr &S) {
  if (!llvm::isa<BlockStmt>(S.get())) {
    auto Blk = std::make_unique<BlockStmt>();
    Blk->Body.push_back(std::move(S));
    S = std::move(Blk);
  }
  visitBlock(*llvm::cast<BlockStmt>(S.get()));
}

void Vectorizer::combineRegions(BlockStmt &B) {
  for (size_t I = 0; I < B.Body.size();) {
    if (!isStraight(*B.Body[I])) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < B.Body.size() && isStraight(*B.Body[J]))
      ++J;
    size_t Added = combineRegion(B.Body, I, J);
    I = J + Added;
  }
}

bool Vectorizer::multipleOf(const AffineForm &Form, unsigned W,
                            std::map<std::string, Precondition> &Need,
                            const std::string &Why) const {
  for (const auto &[Mono, Coef] : Form.Terms) {
    if (Coef % W == 0 || iteratorTermMultiple(Mono, Coef, W, Need, Why))
      continue;
    const AffineVar *Sym = nullptr;
    for (const AffineVar &V : Mono)
      if (V.VarKind == AffineVar::Kind::Symbol) {
        const Param *P = F.findParam(V.Name);
        if (P && !P->isArray())
          Sym = &V;
      }
    if (!Sym)
      return false;
    std::string Key = Sym->Name + " % " + std::to_string(W);
    if (!Need.count(Key))
      Need[Key] = {
          std::shared_ptr<const Expr>(binary(
              BinaryOp::EQ,
              binary(BinaryOp::Rem, var(Sym->Name, F.findParam(Sym->Name)->Ty),
                     intLit(W)),
              intLit(0))),
          Why};
  }
  return true;
}

bool Vectorizer::iteratorTermMultiple(const Monomial &Mono, std::int64_t Coef,
                                      unsigned W,
                                      std::map<std::string, Precondition> &Need,
                                      const std::string &Why) const {
  const AffineVar *Iter = nullptr;
  AffineForm Rest = AffineForm::constant(Coef);
  for (const AffineVar &V : Mono) {
    if (V.VarKind == AffineVar::Kind::Loop && !Iter)
      Iter = &V;
    else if (V.VarKind == AffineVar::Kind::Symbol)
      Rest = Rest * AffineForm::variable(V);
    else
      return false;
  }
  auto It = Iter ? Loops.find(Iter->Name) : Loops.end();
  // Loops' starts may name other iterators; a name reused for loops
  // whose starts name each other must not recurse forever.
  if (It == Loops.end() || Depth >= 8)
    return false;
  ++Depth;
  bool Ok = true;
  for (const ForStmt *L : It->second) {
    auto Init = toAffine(*L->Init, Ctx);
    Ok = Ok && L->hasConstantStep() && L->Step > 0 &&
         (Coef * L->Step) % W == 0 && Init &&
         multipleOf(*Init * Rest, W, Need, Why);
  }
  --Depth;
  return Ok;
}

ExprPtr Vectorizer::divided(const Expr &E, unsigned W) {
  if (auto *L = llvm::dyn_cast<IntLit>(&E))
    if (L->Value % W == 0)
      return intLit(L->Value / W);
  if (auto *B = llvm::dyn_cast<BinaryExpr>(&E)) {
    if (B->Op == BinaryOp::Add || B->Op == BinaryOp::Sub) {
      auto L = divided(*B->LHS, W), R = divided(*B->RHS, W);
      if (!llvm::isa<BinaryExpr>(L.get()) ||
          llvm::cast<BinaryExpr>(L.get())->Op != BinaryOp::Div)
        if (!llvm::isa<BinaryExpr>(R.get()) ||
            llvm::cast<BinaryExpr>(R.get())->Op != BinaryOp::Div)
          return binary(B->Op, std::move(L), std::move(R));
    }
    if (B->Op == BinaryOp::Mul)
      for (int Side = 0; Side < 2; ++Side) {
        const Expr &K = Side ? *B->RHS : *B->LHS;
        const Expr &Other = Side ? *B->LHS : *B->RHS;
        if (auto *L = llvm::dyn_cast<IntLit>(&K); L && L->Value % W == 0)
          return L->Value == W ? Other.clone()
                               : mul(intLit(L->Value / W), Other.clone());
      }
  }
  return binary(BinaryOp::Div, E.clone(), intLit(W));
}

size_t Vectorizer::combineRegion(std::vector<StmtPtr> &Body, size_t Begin,
                                 size_t End) {
  size_t Added = combineWrites(Body, Begin, End);
  End -= Added; // writes merge statements: the region shrank
  Added = 0;
  std::map<std::string, std::vector<Read>> Reads;
  for (size_t S = Begin; S < End; ++S)
    collectReads(*Body[S], S, Reads);
  // New declarations, by the statement they go before.
  std::multimap<size_t, StmtPtr> Inserts;
  std::map<const ArrayRef *, ExprPtr> Replace;
  for (auto &[Array, List] : Reads)
    for (unsigned W = Policy.Width; W >= 2; W /= 2)
      if (combineReads(Body, Array, List, W, Inserts, Replace))
        break;
  if (Replace.empty())
    return 0;
  for (size_t S = Begin; S < End; ++S)
    Body[S]->forEachExpr([&](ExprPtr &E) {
      E = rewriteExpr(std::move(E), [&](Expr &X) -> ExprPtr {
        auto It = Replace.find(llvm::dyn_cast<ArrayRef>(&X));
        return It == Replace.end() ? nullptr : It->second->clone();
      });
    });
  for (auto It = Inserts.rbegin(); It != Inserts.rend(); ++It) {
    Body.insert(Body.begin() + It->first, std::move(It->second));
    ++Added;
  }
  return Added;
}

void Vectorizer::collectReads(Stmt &S, size_t Index,
                              std::map<std::string, std::vector<Read>> &Reads) {
  S.forEachExpr([&](ExprPtr &E) {
    walkExpr(*E, [&](const Expr &X) {
      auto *A = llvm::dyn_cast<ArrayRef>(&X);
      if (!A || !candidate(*A))
        return;
      if (auto Form = toAffine(*A->Indices[0], Ctx))
        Reads[A->Array].push_back(
            {const_cast<ArrayRef *>(A), Index, std::move(*Form)});
    });
  });
}

bool Vectorizer::candidate(const ArrayRef &A) const {
  const Param *P = F.findParam(A.Array);
  // An array read through a texture or image is fetched as float4 (a
  // four-channel texture or image) when all its reads combine, else kept
  // scalar; float, int and unsigned int have four-channel formats.
  if (textureArray(A.Array) && (ScalarTextures.count(A.Array) ||
                                A.getType().Scalar == ScalarKind::Double))
    return false;
  return P && P->isArray() && P->Ty.InnerExtents.empty() &&
         A.Space == AddressSpace::Global && A.VectorWidth == 1 &&
         A.Indices.size() == 1 && vectorizableElement(A.getType());
}

bool Vectorizer::textureArray(const std::string &A) const {
  return F.Plan && F.Plan->readsThroughTexture(A);
}

Type Vectorizer::vectorType(const Type &Elem, unsigned W) const {
  Type T = Elem.element();
  T.TypedefName.clear();
  T.VectorWidth = W;
  return T;
}

bool Vectorizer::combineReads(std::vector<StmtPtr> &Body,
                              const std::string &Array, std::vector<Read> &List,
                              unsigned W,
                              std::multimap<size_t, StmtPtr> &Inserts,
                              std::map<const ArrayRef *, ExprPtr> &Replace) {
  bool Any = false;
  if (textureArray(Array) && W != 4)
    return false;
  std::set<const ArrayRef *> Taken;
  for (Read &Base : List) {
    if (Taken.count(Base.Ref) || Replace.count(Base.Ref) ||
        !fitsOneAccess(Base.Ref->getType(), W))
      continue;
    std::map<std::string, Precondition> Need;
    if (!multipleOf(Base.Form, W, Need,
                    Array + " is read as " + std::to_string(W) +
                        "-element vectors from an index that must be a "
                        "multiple of " +
                        std::to_string(W)))
      continue;
    // Every read of the group, and the span of statements it covers.
    std::vector<std::pair<const Read *, unsigned>> Members;
    bool Complete = true;
    for (unsigned C = 0; C < W && Complete; ++C) {
      AffineForm Want = Base.Form + AffineForm::constant(C);
      bool Found = false;
      for (const Read &R : List)
        if (R.Form == Want && !Replace.count(R.Ref) && !Taken.count(R.Ref)) {
          Members.emplace_back(&R, C);
          Found = true;
        }
      Complete = Found;
    }
    if (!Complete)
      continue;
    size_t First = Base.Stmt, Last = Base.Stmt;
    for (auto &[R, C] : Members) {
      First = std::min(First, R->Stmt);
      Last = std::max(Last, R->Stmt);
    }
    // The vector is read before the first statement: the base index must
    // mean the same from there to the last one.
    std::set<std::string> Vars = varsOf(*Base.Ref->Indices[0]);
    bool Stable = true;
    for (size_t S = First; S <= Last && Stable; ++S)
      for (const std::string &D : definedBy(*Body[S]))
        Stable &= !Vars.count(D);
    if (!Stable)
      continue;
    // An array the kernel writes is read as a vector within one
    // statement only, before that statement's own store.
    if (Written.count(Array) &&
        (First != Last || !readsBeforeOwnWrite(*Body[First], Array)))
      continue;
    // The vector read moves before writes to other arrays in the span.
    std::set<std::string> Moved;
    for (size_t S = First; S < Last; ++S)
      for (const std::string &X : arraysWritten(*Body[S]))
        Moved.insert(X);
    if (!mayReorder(Array, Moved))
      continue;
    std::string Name = uniqueName(Names, Array + "_v");
    Type VT = vectorType(Base.Ref->getType(), W);
    auto Vec = std::make_unique<ArrayRef>(Array, std::vector<ExprPtr>{}, VT);
    Vec->Indices.push_back(divided(*Base.Ref->Indices[0], W));
    Vec->VectorWidth = W;
    Vec->setLine(Base.Ref->getLine());
    auto Decl = std::make_unique<DeclStmt>(Name, VT, std::move(Vec));
    Inserts.emplace(First, std::move(Decl));
    for (auto &[R, C] : Members) {
      Taken.insert(R->Ref);
      Replace[R->Ref] = std::make_unique<MemberExpr>(
          var(Name, VT), Components[C], R->Ref->getType());
    }
    for (auto &[K, P] : Need)
      Conditions.emplace(K, P);
    noteAligned(Array, VT);
    note(Array, " loads", VT, Members.size());
    Any = true;
  }
  return Any;
}

size_t Vectorizer::combineWrites(std::vector<StmtPtr> &Body, size_t Begin,
                                 size_t End) {
  size_t Removed = 0;
  for (size_t S = Begin; S + 1 < End - Removed; ++S) {
    for (unsigned W = Policy.Width; W >= 2; W /= 2) {
      if (S + W > End - Removed)
        continue;
      if (combineWriteGroup(Body, S, W)) {
        Removed += W - 1;
        break;
      }
    }
  }
  return Removed;
}

const ArrayRef *Vectorizer::plainWrite(const Stmt &S) const {
  auto *A = llvm::dyn_cast<AssignStmt>(&S);
  if (!A || A->Op != AssignOp::Set)
    return nullptr;
  auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get());
  if (!R || !candidate(*R))
    return nullptr;
  // The stored value may read the array being written only at the
  // element it overwrites (`y[i] = a * x[i] + y[i]`), which no other
  // store of the group writes.
  auto Written = toAffine(*R->Indices[0], Ctx);
  bool ReadsOther = !Written;
  walkExpr(*A->RHS, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      ReadsOther |= V->Name == R->Array;
    if (auto *Q = llvm::dyn_cast<ArrayRef>(&X); Q && Q->Array == R->Array) {
      auto Form = Q->Indices.size() == 1 && Q->VectorWidth == 1
                      ? toAffine(*Q->Indices[0], Ctx)
                      : std::nullopt;
      ReadsOther |= !Form || !Written || !(*Form == *Written);
    }
  });
  return ReadsOther ? nullptr : R;
}

bool Vectorizer::readsBeforeOwnWrite(const Stmt &S, const std::string &Array) {
  auto *A = llvm::dyn_cast<AssignStmt>(&S);
  if (!A || !llvm::isa<ArrayRef>(A->LHS.get()))
    return false;
  bool PassedWhole = false;
  walkExpr(*A->RHS, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      PassedWhole |= V->Name == Array;
  });
  for (const ExprPtr &I : llvm::cast<ArrayRef>(A->LHS.get())->Indices)
    walkExpr(*I, [&](const Expr &X) {
      if (auto *Q = llvm::dyn_cast<ArrayRef>(&X))
        PassedWhole |= Q->Array == Array;
    });
  return !PassedWhole;
}

bool Vectorizer::combineWriteGroup(std::vector<StmtPtr> &Body, size_t S,
                                   unsigned W) {
  const ArrayRef *Base = plainWrite(*Body[S]);
  if (!Base || !fitsOneAccess(Base->getType(), W))
    return false;
  auto BaseForm = toAffine(*Base->Indices[0], Ctx);
  std::map<std::string, Precondition> Need;
  if (!BaseForm ||
      !multipleOf(*BaseForm, W, Need,
                  Base->Array + " is written as " + std::to_string(W) +
                      "-element vectors at an index that must be a "
                      "multiple of " +
                      std::to_string(W)))
    return false;
  // Statement S + C writes element base + C (in that order).
  std::vector<ExprPtr> Values;
  for (unsigned C = 0; C < W; ++C) {
    const ArrayRef *R = plainWrite(*Body[S + C]);
    if (!R || R->Array != Base->Array)
      return false;
    auto Form = toAffine(*R->Indices[0], Ctx);
    if (!Form || !(*Form == *BaseForm + AffineForm::constant(C)))
      return false;
  }
  // Later statements' values are now computed before the earlier stores.
  std::set<std::string> Moved;
  for (unsigned C = 1; C < W; ++C)
    walkExpr(*llvm::cast<AssignStmt>(*Body[S + C]).RHS, [&](const Expr &X) {
      if (auto *Q = llvm::dyn_cast<ArrayRef>(&X))
        if (Q->Space == AddressSpace::Global)
          Moved.insert(Q->Array);
    });
  if (!mayReorder(Base->Array, Moved))
    return false;
  for (unsigned C = 0; C < W; ++C)
    Values.push_back(llvm::cast<AssignStmt>(*Body[S + C]).RHS->clone());
  Type VT = vectorType(Base->getType(), W);
  auto Vec =
      std::make_unique<ArrayRef>(Base->Array, std::vector<ExprPtr>{}, VT);
  Vec->Indices.push_back(divided(*Base->Indices[0], W));
  Vec->VectorWidth = W;
  Vec->setLine(Base->getLine());
  auto Lit =
      std::make_unique<CallExpr>(VectorLiteralCallee, std::move(Values), VT);
  auto Store = std::make_unique<AssignStmt>(std::move(Vec), AssignOp::Set,
                                            std::move(Lit));
  Store->setLine(Body[S]->getLine());
  std::string Array = Base->Array;
  Body[S] = std::move(Store);
  Body.erase(Body.begin() + S + 1, Body.begin() + S + W);
  for (auto &[K, P] : Need)
    Conditions.emplace(K, P);
  noteAligned(Array, VT);
  note(Array, " stores", VT, W);
  return true;
}

std::set<std::string> Vectorizer::arraysWritten(const Stmt &S) {
  std::set<std::string> R;
  if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
    if (auto *Q = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
      if (Q->Space == AddressSpace::Global)
        R.insert(Q->Array);
  return R;
}

bool Vectorizer::mayReorder(const std::string &Array,
                            const std::set<std::string> &Others) {
  for (const std::string &X : Others)
    if (X != Array && !declaredApart(Array, X) &&
        (!Elements.count(X) || !Elements.count(Array))) {
      if (Unordered.empty())
        Unordered = "the accesses of '" + Array + "' and '" + X +
                    "' would change order, and nothing bounds the two "
                    "arrays for a check that they do not overlap (an "
                    "index without bounds; both __restrict__ would "
                    "promise it)";
      return false;
    }
  for (const std::string &X : Others)
    if (X != Array && !declaredApart(Array, X))
      Disjoint.insert(std::minmax(Array, X));
  return true;
}

bool Vectorizer::declaredApart(const std::string &A,
                               const std::string &B) const {
  const Param *PA = F.findParam(A), *PB = F.findParam(B);
  return PA && PB && PA->Restrict && PB->Restrict;
}

void Vectorizer::note(const std::string &Array, const char *What,
                      const Type &VT, size_t Elements) {
  auto &[Vectors, Scalars] =
      Counts[Array + ": " + scalarName(VT.Scalar, VT.VectorWidth) + What];
  ++Vectors;
  Scalars += Elements;
  Done.push_back(Array);
}

std::string Vectorizer::summary() const {
  std::vector<std::string> Items;
  for (const auto &[Key, N] : Counts) {
    bool Loads = llvm::StringRef(Key).endswith("loads");
    std::string Text = Key;
    if (N.first == 1)
      Text.pop_back(); // "1 float2 store"
    size_t Colon = Text.find(": ");
    Text.insert(Colon + 2, std::to_string(N.first) + " ");
    Items.push_back(Text + " (" + std::to_string(N.second) +
                    (Loads ? " reads)" : " writes)"));
  }
  return llvm::join(Items, "; ");
}

void Vectorizer::noteAligned(const std::string &Array, const Type &VT) {
  unsigned Bytes = VT.elementBytes();
  unsigned &A = Aligned[Array];
  A = std::max(A, Bytes);
}

void Vectorizer::unrollForVectors(ForStmt &L) {
  unsigned W = Policy.Width;
  auto *Body = llvm::dyn_cast<BlockStmt>(L.Body.get());
  if (!Body || !L.hasConstantStep() || L.Step != 1 ||
      L.CondOp != BinaryOp::LT || Body->Body.empty())
    return;
  for (const StmtPtr &S : Body->Body)
    if (!isStraight(*S) || definedBy(*S).count(L.Iter))
      return;
  auto Init = toAffine(*L.Init, Ctx), Bound = toAffine(*L.Bound, Ctx);
  if (!Init || !Bound)
    return;
  std::map<std::string, Precondition> Need;
  if (!multipleOf(*Bound - *Init, W, Need,
                  "the " + L.Iter + " loop is unrolled by " +
                      std::to_string(W) + " for vector loads"))
    return;
  // The unrolled body, on a copy: kept only if its reads combine.
  std::vector<StmtPtr> Unrolled;
  std::set<std::string> Locals;
  for (const StmtPtr &S : Body->Body)
    if (auto *D = llvm::dyn_cast<DeclStmt>(S.get()))
      Locals.insert(D->Name);
  for (unsigned C = 0; C < W; ++C)
    for (const StmtPtr &S : Body->Body) {
      StmtPtr Copy = S->clone();
      if (C) {
        substituteVar(*Copy, L.Iter, *add(var(L.Iter, L.IterType), intLit(C)));
        for (const std::string &N : Locals) {
          std::string Renamed = N + "_u" + std::to_string(C);
          substituteVar(*Copy, N, *var(Renamed));
          if (auto *D = llvm::dyn_cast<DeclStmt>(Copy.get()); D && D->Name == N)
            D->Name = Renamed;
        }
      }
      Unrolled.push_back(std::move(Copy));
    }
  // Renamed locals keep their types: substituteVar cloned an int VarRef,
  // so restore each from its declaration.
  retypeLocals(Unrolled);
  size_t DoneBefore = Done.size();
  auto SavedConditions = Conditions;
  auto SavedAligned = Aligned;
  auto SavedDisjoint = Disjoint;
  // Extend the context with the copies' single definitions.
  for (const StmtPtr &S : Unrolled)
    if (auto *D = llvm::dyn_cast<DeclStmt>(S.get()))
      if (D->Init && D->Extents.empty() && !Ctx.Definitions.count(D->Name))
        Ctx.Definitions[D->Name] = D->Init.get();
  L.Step = W;
  combineRegion(Unrolled, 0, Unrolled.size());
  if (Done.size() == DoneBefore) {
    L.Step = 1;
    Conditions = std::move(SavedConditions);
    Aligned = std::move(SavedAligned);
    Disjoint = std::move(SavedDisjoint);
    return;
  }
  for (auto &[K, P] : Need)
    Conditions.emplace(K, P);
  Body->Body = std::move(Unrolled);
  UnrolledLoops.push_back(L.Iter + " by " + std::to_string(W));
}

void Vectorizer::retypeLocals(std::vector<StmtPtr> &Stmts) {
  std::map<std::string, Type> Types;
  for (const StmtPtr &S : Stmts)
    if (auto *D = llvm::dyn_cast<DeclStmt>(S.get()))
      Types[D->Name] = D->Ty;
  for (StmtPtr &S : Stmts)
    S->forEachExpr([&](ExprPtr &E) {
      walkExpr(*E, [&](const Expr &X) {
        if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
          auto It = Types.find(V->Name);
          if (It != Types.end())
            const_cast<VarRef *>(V)->setType(It->second.element());
        }
      });
    });
}

} // namespace gpumerge
