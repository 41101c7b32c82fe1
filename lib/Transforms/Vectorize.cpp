//===- Vectorize.cpp - Vector loads and stores (§3.1) ---------------------===//
//
// vectorize: accesses of one thread to neighbouring elements of a global
// array become one vector access (Fig. 3). Intra-thread, reads:
//
//   cmv before:                     after (h100):
//     float xr = x[2 * j];            float2 x_v = ((const float2 *)x)[j];
//     float xi = x[2 * j + 1];        float xr = x_v.x;
//                                     float xi = x_v.y;
//
// and writes of neighbouring elements by consecutive statements:
//
//     y[2 * i] = re;                  ((float2 *)y)[i] = make_float2(re, im);
//     y[2 * i + 1] = im;
//
// Loop-based (where the target's policy allows it): a unit-step loop whose
// body reads a[i + N] is unrolled by the vector width so that the copies'
// reads become neighbours, and then combined as above:
//
//   mv before:
//     for (int j = 0; j < w; j++)
//       sum += a[i * w + j] * x[j];
//
//   after (hd5870, width 2):
//     for (int j = 0; j < w; j += 2) {
//       float2 a_v = ((const float2 *)a)[(i * w + j) / 2];
//       float2 x_v = ((const float2 *)x)[j / 2];
//       sum += a_v.x * x_v.x;
//       sum += a_v.y * x_v.y;
//     }
//
// A group of W accesses combines when the first index is provably a
// multiple of W (every term of its affine form is, or its symbolic factor
// is a size parameter that the launch then checks: `w % 2 == 0`) and the
// others are it + 1, ..., + W-1; the unrolled loop's trip count likewise.
// Every such condition and the alignment of the array's address become
// preconditions of the kernel's launch plan, so the launcher falls back to
// the original kernel where they fail.
//
// Policy (Fig. 4): the global variant vectorizes within a thread only, with
// float2, on NVIDIA GPUs; on AMD GPUs loop-based and inter-thread as well,
// with the target's Vectorization width. Output arrays: intra-thread only.
// Past the paper: on NVIDIA targets whose description sets
// StreamVectorization (Volta and later), a kernel nothing else optimized
// (it only streams memory: saxpy, a copy) has that many neighbouring
// threads merged in X and their accesses combined, float4 per thread.
//
// Order: the paper vectorizes first. Here the passes before this one each
// regenerate the kernel from its origin (Tiling.cpp), so vectorization runs
// last, on the accesses that are still global after coalescing and merging.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Affine.h"
#include "Analysis/Coalescing.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"
#include "Target/MachineDescription.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"
#include "Transforms/WholeGroups.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

/// Which kinds the target's policy allows, and the vector width.
struct VectorPolicy {
  unsigned Width = 2;
  bool LoopBased = false;
  bool InterThread = false;
  /// The width when threads are merged for vectors (inter-thread).
  unsigned MergedWidth = 2;
};

VectorPolicy policyFor(const PassContext &Ctx) {
  const MachineDescription &MD = Ctx.Target;
  VectorPolicy P;
  // The paper's texture variant (§3.5) fetches four-channel texels; a
  // texture variant that follows the global one vectorizes as it does.
  if (Ctx.paperTexture()) {
    P.Width = P.MergedWidth = 4;
    P.LoopBased = P.InterThread = true;
    return P;
  }
  bool Amd = MD.GpuVendor == Vendor::Amd;
  P.Width = P.MergedWidth = Amd && MD.Vectorization >= 2 ? MD.Vectorization : 2;
  P.LoopBased = P.InterThread = Amd;
  if (!Amd && MD.StreamVectorization) {
    P.InterThread = true;
    P.MergedWidth = MD.StreamVectorization;
  }
  return P;
}

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

class Vectorizer {
public:
  /// \p Naive: the kernel whose accesses bound the arrays' element counts
  /// (the naive one; F itself may be tiled and unguarded).
  Vectorizer(Function &F, VectorPolicy Policy,
             std::set<std::string> ScalarTextures, const Function &Naive)
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

  void run() { visitBlock(*F.Body); }

  Function &F;
  VectorPolicy Policy;
  /// Texture arrays that keep scalar fetches (some read would stay scalar).
  std::set<std::string> ScalarTextures;
  AffineContext Ctx;
  std::set<std::string> Written;
  /// Names in use, so that new locals take others.
  std::set<std::string> Names;
  /// The loops of each iterator name, whose start and step tell which
  /// multiples the iterator takes.
  std::map<std::string, std::vector<ForStmt *>> Loops;
  /// The arrays of each vector access made, in order (nonempty: applied).
  std::vector<std::string> Done;
  std::vector<std::string> UnrolledLoops;
  /// Conditions over size parameters, by their text (no duplicates).
  std::map<std::string, Precondition> Conditions;
  std::map<std::string, unsigned> Aligned;
  std::map<std::string, std::shared_ptr<const Expr>> Elements;
  /// Arrays whose accesses now happen in another order: they must not
  /// overlap (the launcher compares their address ranges).
  std::set<std::pair<std::string, std::string>> Disjoint;
  /// Why accesses kept their order, when an unknown extent kept them.
  std::string Unordered;

private:
  void visitBlock(BlockStmt &B) {
    for (StmtPtr &S : B.Body)
      visitNested(S);
    combineRegions(B);
  }

  void visitNested(StmtPtr &S) {
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

  void visitChild(StmtPtr &S) {
    if (!llvm::isa<BlockStmt>(S.get())) {
      auto Blk = std::make_unique<BlockStmt>();
      Blk->Body.push_back(std::move(S));
      S = std::move(Blk);
    }
    visitBlock(*llvm::cast<BlockStmt>(S.get()));
  }

  void combineRegions(BlockStmt &B) {
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

  // --- divisibility ---------------------------------------------------------

  /// Is \p Form a multiple of \p W for all values of its thread and loop
  /// variables? Conditions on size parameters that make it so go to \p Need.
  bool multipleOf(const AffineForm &Form, unsigned W,
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
                binary(BinaryOp::Rem,
                       var(Sym->Name, F.findParam(Sym->Name)->Ty), intLit(W)),
                intLit(0))),
            Why};
    }
    return true;
  }

  /// Is Coef * Mono a multiple of \p W because Mono's one loop iterator
  /// starts at a multiple and steps by one (`j` of `for (j = 0; j < w; j +=
  /// 2)`, times any size parameters in Mono)?
  bool iteratorTermMultiple(const Monomial &Mono, std::int64_t Coef, unsigned W,
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
  mutable unsigned Depth = 0;

  /// \p E / \p W without a division where the factor is visible.
  static ExprPtr divided(const Expr &E, unsigned W) {
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

  // --- intra-thread combining ------------------------------------------------

  struct Read {
    ArrayRef *Ref;
    size_t Stmt;
    AffineForm Form;
  };

  /// Combines reads and writes in the straight statements [Begin, End) of
  /// \p Body; returns how many statements it inserted.
  size_t combineRegion(std::vector<StmtPtr> &Body, size_t Begin, size_t End) {
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

  void collectReads(Stmt &S, size_t Index,
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

  bool candidate(const ArrayRef &A) const {
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

  bool textureArray(const std::string &A) const {
    return F.Plan && F.Plan->readsThroughTexture(A);
  }

  Type vectorType(const Type &Elem, unsigned W) const {
    Type T = Elem.element();
    T.TypedefName.clear();
    T.VectorWidth = W;
    return T;
  }

  /// Groups \p List into vectors of \p W; true when any group formed.
  bool combineReads(std::vector<StmtPtr> &Body, const std::string &Array,
                    std::vector<Read> &List, unsigned W,
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

  /// Consecutive `a[e] = v0; a[e + 1] = v1; ...` become one vector store.
  size_t combineWrites(std::vector<StmtPtr> &Body, size_t Begin, size_t End) {
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

  /// The write `a[e] = v` of statement \p S, when it may be vectorized.
  const ArrayRef *plainWrite(const Stmt &S) const {
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

  /// Whether a vector read of written \p Array may replace reads of it in
  /// statement \p S alone: S writes the array only through its left side
  /// (it does not pass it whole), so its reads all happen before that.
  static bool readsBeforeOwnWrite(const Stmt &S, const std::string &Array) {
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

  bool combineWriteGroup(std::vector<StmtPtr> &Body, size_t S, unsigned W) {
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

  static std::set<std::string> arraysWritten(const Stmt &S) {
    std::set<std::string> R;
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S))
      if (auto *Q = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
        if (Q->Space == AddressSpace::Global)
          R.insert(Q->Array);
    return R;
  }

  /// May accesses of \p Array move across those of \p Others? Yes when
  /// the launch can check each pair's address ranges (recorded in
  /// Disjoint); no when an element count is unknown.
  bool mayReorder(const std::string &Array,
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

  /// Did the input declare both arrays `__restrict__`? Then what one reaches
  /// the other does not, and their accesses may take any order.
  bool declaredApart(const std::string &A, const std::string &B) const {
    const Param *PA = F.findParam(A), *PB = F.findParam(B);
    return PA && PB && PA->Restrict && PB->Restrict;
  }

  /// Counts a vector access for the report ("a: 8 float4 loads (32
  /// reads)").
  void note(const std::string &Array, const char *What, const Type &VT,
            size_t Elements) {
    auto &[Vectors, Scalars] =
        Counts[Array + ": " + scalarName(VT.Scalar, VT.VectorWidth) + What];
    ++Vectors;
    Scalars += Elements;
    Done.push_back(Array);
  }

public:
  /// "a: float4 loads" → (vector accesses, scalar accesses they replace).
  std::map<std::string, std::pair<unsigned, size_t>> Counts;

  /// The report's line: "a: 8 float4 loads (32 reads); y: 1 float2 store".
  std::string summary() const {
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

private:
  void noteAligned(const std::string &Array, const Type &VT) {
    unsigned Bytes = VT.elementBytes();
    unsigned &A = Aligned[Array];
    A = std::max(A, Bytes);
  }

  // --- loop-based ------------------------------------------------------------

  /// Unrolls \p L by the vector width when that lets its body's reads
  /// combine: `for (j = s; j < e; j++) B(j)` → `for (j = s; j < e; j += W)
  /// { B(j); B'(j + 1); ... }`, copies' locals renamed, then combined.
  void unrollForVectors(ForStmt &L) {
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
          substituteVar(*Copy, L.Iter,
                        *add(var(L.Iter, L.IterType), intLit(C)));
          for (const std::string &N : Locals) {
            std::string Renamed = N + "_u" + std::to_string(C);
            substituteVar(*Copy, N, *var(Renamed));
            if (auto *D = llvm::dyn_cast<DeclStmt>(Copy.get());
                D && D->Name == N)
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

  static void retypeLocals(std::vector<StmtPtr> &Stmts) {
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
};

/// Texture arrays with a scalar read left in \p F.
std::set<std::string> scalarTextureReads(const Function &F) {
  std::set<std::string> R;
  walkStmts(*F.Body, [&](Stmt &S) {
    S.forEachExpr([&](ExprPtr &E) {
      walkExpr(*E, [&](const Expr &X) {
        if (auto *A = llvm::dyn_cast<ArrayRef>(&X))
          if (A->VectorWidth == 1 && F.Plan &&
              F.Plan->readsThroughTexture(A->Array))
            R.insert(A->Array);
      });
    });
  });
  return R;
}

/// Scalar reads a vectorizer run combined (output arrays are vectorized
/// within a thread only, Fig. 4: their stores do not justify a merge).
size_t combinedReads(const Vectorizer &V) {
  size_t N = 0;
  for (const auto &[Key, Counts] : V.Counts)
    if (llvm::StringRef(Key).endswith("loads"))
      N += Counts.second;
  return N;
}

/// Global stores of \p F whose neighbouring threads in X do not write
/// neighbouring elements: each then takes several sectors per warp, partly
/// written (reads are cheaper: the merged copies' reads of a line meet in
/// the L1 cache). A symbolic or unresolved stride counts too; the vector
/// stores this pass made do not (neighbouring vectors).
size_t stridedStores(const Function &F) {
  size_t N = 0;
  for (const Access &A : collectAccesses(F)) {
    if (!A.IsWrite || A.Ref->VectorWidth > 1)
      continue;
    if (!A.Index) {
      ++N;
      continue;
    }
    std::optional<std::int64_t> S = strideInX(*A.Index).asConstant();
    N += !S || *S < -1 || *S > 1;
  }
  return N;
}

/// Global reads of \p F in loops whose neighbouring threads in X do not
/// read neighbouring elements (a symbolic or unresolved stride counts too;
/// vectors do not). A merge whose copies each run their own loop (bounds
/// read per thread: ELLPACK's rowLengths[t]) makes every such read of the
/// loop Width elements apart across the warp: Width times the sectors of
/// each load, for a vector load or store outside the loop.
size_t stridedLoopReads(const Function &F) {
  size_t N = 0;
  for (const Access &A : collectAccesses(F)) {
    if (A.IsWrite || A.Loops.empty() || A.Ref->VectorWidth > 1)
      continue;
    std::optional<std::int64_t> S =
        A.Index ? strideInX(*A.Index).asConstant() : std::nullopt;
    N += !S || *S < -1 || *S > 1;
  }
  return N;
}

/// \p F with each compound store to a global scalar element written out
/// (`y[i] += x[i]` as `y[i] = y[i] + x[i]`), so that a merge's copies read
/// their neighbours' elements where the vectorizer combines reads, and
/// store them where it combines stores.
std::unique_ptr<Function> withStoresWrittenOut(const Function &F) {
  std::unique_ptr<Function> Out = F.clone();
  walkStmts(*Out->Body, [](Stmt &S) {
    auto *A = llvm::dyn_cast<AssignStmt>(&S);
    auto *R = A ? llvm::dyn_cast<ArrayRef>(A->LHS.get()) : nullptr;
    std::optional<BinaryOp> Op = A ? assignBinaryOp(A->Op) : std::nullopt;
    if (!Op || !R || R->Space != AddressSpace::Global ||
        R->getType().VectorWidth != 1 || A->Async)
      return;
    A->RHS = binary(*Op, A->LHS->clone(), std::move(A->RHS));
    A->Op = AssignOp::Set;
  });
  return Out;
}

/// \p F (not yet tiled) with Width neighbouring threads merged in X (§3.1
/// inter-thread: idx → idx*W + k), when vectorizing that combines more
/// reads per naive thread than vectorizing F (the merged copies' reads of
/// neighbours, not merely the loop-based ones each copy has anyway); null
/// otherwise. A guarded kernel keeps its guard, with a branch for the
/// threads whose copies are all inside it (every size runs it, in one
/// launch); one without a guard runs on whole tiles.
std::unique_ptr<Function> mergedForVectors(const Function &Input,
                                           const MachineDescription &MD,
                                           const VectorPolicy &Policy,
                                           std::string &Shape,
                                           std::string &Refused) {
  std::unique_ptr<Function> Written = withStoresWrittenOut(Input);
  const Function &F = *Written;
  unsigned Dims = findDomain(F).Dims;
  TileShape S;
  S.Block = Dims == 1 ? std::array<std::int64_t, 2>{256, 1}
                      : std::array<std::int64_t, 2>{16, 16};
  S.Merge = {Policy.Width, 1};
  S.AdjacentX = true;
  auto Plain = F.clone();
  Vectorizer AsIs(*Plain, Policy, {}, F);
  AsIs.run();
  // Guarded copies first: they run at every size, edges included, in one
  // launch. Whole tiles (and <name>_edge) where the kernel has no guard, or
  // where the copies' reads combine only in control flow they share (a
  // loop each copy of a guard would repeat).
  std::unique_ptr<Function> Chosen;
  for (bool Whole : {false, true}) {
    S.WholeTiles = Whole;
    auto K = generateTiled(F, S, MD);
    if (!K) {
      llvm::consumeError(K.takeError());
      continue;
    }
    bool Branched = !Whole && K->Kernel->Plan->GuardsDomain &&
                    branchOnWholeGroups(*K->Kernel, {Policy.Width, 1});
    if (!K->Staged.empty() || (!Whole && !Branched))
      continue;
    // The gain counts the threads whose copies are all inside the guard.
    auto Trial = K->Kernel->clone();
    if (Branched)
      llvm::cast<IfStmt>(*Trial->Body->Body.back()).Else = nullptr;
    Vectorizer Merged(*Trial, Policy, {}, F);
    Merged.run();
    // Per naive thread: the merged kernel does the work of Width of them.
    // A store left scalar in the merged threads is Width elements apart
    // from its neighbour's: it costs more than the vectors save
    // (demosaicing's three planes: 0.49x naive on an H200).
    if (combinedReads(Merged) <= combinedReads(AsIs) * Policy.Width) {
      if (!Merged.Unordered.empty())
        Refused = llvm::formatv("merging {0} threads in X: {1}", Policy.Width,
                                Merged.Unordered)
                      .str();
      continue;
    }
    if (stridedStores(*Trial) > stridedStores(*Plain) * Policy.Width) {
      Refused = llvm::formatv("merging {0} threads in X would leave stores "
                              "{0} elements apart",
                              Policy.Width)
                    .str();
      continue;
    }
    if (stridedLoopReads(*Trial) > stridedLoopReads(*Plain) * Policy.Width) {
      Refused = llvm::formatv("merging {0} threads in X would leave the "
                              "reads of the loops each copy runs {0} "
                              "elements apart",
                              Policy.Width)
                    .str();
      continue;
    }
    Chosen = std::move(K->Kernel);
    break;
  }
  if (!Chosen)
    return nullptr;
  Shape = llvm::formatv("{0} neighbouring threads in X (block {1}x{2})",
                        Policy.Width, S.Block[0], S.Block[1])
              .str();
  return Chosen;
}

} // namespace

PassInfo vectorizePass() {
  return {"vectorize",
          "neighbouring global accesses of one thread (and, where the target's "
          "policy allows, of a loop unrolled by the width) as float2/float4",
          [](Function &F, const PassContext &Ctx,
             std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
            VectorPolicy Policy = policyFor(Ctx);
            // Texture arrays whose reads would not all combine keep scalar
            // fetches: find them on copies until none is left.
            std::set<std::string> ScalarTextures;
            for (unsigned Round = 0; F.Plan && !F.Plan->TextureArrays.empty();
                 ++Round) {
              auto Copy = F.clone();
              Vectorizer Trial(*Copy, Policy, ScalarTextures, tilingOrigin(F));
              Trial.run();
              std::set<std::string> Left = scalarTextureReads(*Copy);
              size_t Before = ScalarTextures.size();
              ScalarTextures.insert(Left.begin(), Left.end());
              if (ScalarTextures.size() == Before || Round == 4)
                break;
            }
            // Inter-thread: neighbouring threads in X merged, when that
            // combines more accesses than the kernel as it is.
            std::unique_ptr<Function> Merged;
            std::string MergedShape, Refused;
            VectorPolicy MergedPolicy = Policy;
            MergedPolicy.Width = Policy.MergedWidth;
            if (Policy.InterThread && !F.Plan)
              Merged = mergedForVectors(F, Ctx.Target, MergedPolicy,
                                        MergedShape, Refused);
            if (Merged)
              Policy = MergedPolicy;
            const Function &Naive = tilingOrigin(F);
            Function &G = Merged ? *Merged : F;
            Vectorizer V(G, Policy, ScalarTextures, Naive);
            V.run();
            if (G.Plan)
              for (const std::string &A : G.Plan->TextureArrays)
                if (!ScalarTextures.count(A) && V.Aligned.count(A))
                  G.Plan->TextureVectorWidth[A] = 4;
            if (V.Done.empty()) {
              Why =
                  Policy.LoopBased
                      ? "no neighbouring global accesses of one thread or of "
                        "a unit-step loop's iterations with a provably aligned "
                        "first index"
                      : "no neighbouring global accesses of one thread with a "
                        "provably aligned first index (" +
                            std::string(Ctx.Target.GpuVendor == Vendor::Amd
                                            ? "AMD"
                                            : "NVIDIA") +
                            " global variant: intra-thread only" +
                            (Policy.InterThread
                                 ? ", and merged threads where nothing else "
                                   "changed the kernel"
                                 : "") +
                            ")" + (Refused.empty() ? "" : "; " + Refused);
              return std::nullopt;
            }
            sameLaunchPlan(G);
            std::vector<std::string> Conds;
            for (auto &[Text, P] : V.Conditions) {
              G.Plan->Preconditions.push_back(P);
              Conds.push_back(Text + " == 0");
            }
            for (const auto &[A, B] : V.Disjoint)
              G.Plan->requireDisjoint(A, B, V.Elements);
            std::vector<std::string> Aligned;
            for (auto &[Array, Bytes] : V.Aligned) {
              unsigned &A = G.Plan->AlignedBytes[Array];
              A = std::max(A, Bytes);
              Aligned.push_back(Array + " " + std::to_string(Bytes) + " B");
            }
            std::string Kinds = "intra-thread";
            if (Merged)
              Kinds += ", inter-thread";
            if (!V.UnrolledLoops.empty())
              Kinds += ", loop-based";
            AppliedPass R{"vectorize",
                          {{"width", std::to_string(Policy.Width)},
                           {"kinds", Kinds},
                           {"accesses", V.summary()},
                           {"alignment", llvm::join(Aligned, ", ")}}};
            if (!V.UnrolledLoops.empty())
              R.Parameters["unrolled"] = llvm::join(V.UnrolledLoops, ", ");
            if (!Conds.empty())
              R.Parameters["preconditions"] = llvm::join(Conds, ", ");
            if (Merged) {
              R.Parameters["merged"] = MergedShape;
              F = std::move(*Merged);
            }
            return R;
          }};
}

} // namespace gpumerge
