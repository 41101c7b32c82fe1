//===- HaloTile.cpp - A stencil's reads through a shared tile and halo ----===//
//
// §3.4's data sharing for kernels without a loop to tile: when the threads
// of a block read neighbouring elements of one array (a stencil: a[i-1],
// a[i], a[i+1]), the block loads the elements it needs once, its own
// positions and a halo of the stencil's reach around them, into a shared
// tile, and each thread reads its neighbours from there. coalesce stages
// the reads of a loop; this pass the reads of a kernel that has none (2-D
// convolution, Jacobi, FDTD).
//
//   before (1-D, 3 points):             after (block 256):
//   int i = idx;                        int i = idx;
//   if (i > 0 && i < n - 1)             __shared__ float a_s[258];
//     b[i] = a[i-1] + a[i] + a[i+1];    int a_lo = 0, a_hi = n - 1;
//                                       if (1 < n - 1)
//                                         for (c = tidx; c < 258; c += 256) {
//                                           int a_g = bidx*256 + c - 1;
//                                           if (a_g >= a_lo && a_g <= a_hi)
//                                             a_s[c] = a[a_g];
//                                         }
//                                       __syncthreads();
//                                       if (i > 0 && i < n - 1)
//                                         b[i] = a_s[tidx] + a_s[tidx + 1] +
//                                                a_s[tidx + 2];
//
// The kernel keeps its guard and one thread per output, so the launch
// rounds the grid up (GuardsDomain) and any size runs the optimized path.
// A tile element is loaded only when its index lies between the lowest and
// the highest index the naive kernel reads over its domain: those two are
// read, so everything between is inside the array, and the halo of an edge
// block never reads past it. That needs the domain to be the guard's box
// (every conjunct a bound on a position) and the staged reads to run in
// every thread of it (not under a further `if`, a loop, `?:` or `&&`).
// 2-D reads are a[(y + di) * s + x + dj] for a row stride s at least the
// stencil's width, so the offsets order by row: implied where the X bound
// is s less a constant (`j > 0 && j < m - 1`: m >= 3 or the domain is
// empty), else a launch precondition.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Affine.h"
#include "Analysis/Domain.h"
#include "Analysis/Extents.h"
#include "IR/Printer.h"
#include "IR/Substitute.h"
#include "Transforms/NaiveShape.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

namespace {

/// The farthest a staged read may reach from its thread's position, in
/// rows or columns.
constexpr std::int64_t MaxReach = 4;

const AffineVar PosX{AffineVar::Kind::Thread, "idx"};
const AffineVar PosY{AffineVar::Kind::Thread, "idy"};

/// One array read as a stencil: the offsets of its reads from the thread's
/// position, and the row stride they share (2-D).
struct Stencil {
  std::string Array;
  Type ElemTy;
  unsigned ElementBytes = 4;
  std::optional<AffineForm> Stride; ///< coefficient of idy; 1-D: none
  std::set<std::pair<std::int64_t, std::int64_t>> Offsets; ///< (di, dj)
  std::int64_t Rows[2] = {0, 0}; ///< halo above and below (di < 0, > 0)
  std::int64_t Cols[2] = {0, 0}; ///< halo left and right
  /// Each read's offset, for its rewrite as a tile element.
  std::map<const ArrayRef *, std::pair<std::int64_t, std::int64_t>> At;
  /// The stride as the source spells it (strideSpelling), 2-D only.
  ExprPtr Spelled;
};

/// Reads of each array in the guarded statements, and the arrays read
/// where not every thread of the domain reads them (under an `if`, in a
/// loop, in an arm of `?:` or behind `&&`/`||`).
struct ReadSites {
  std::map<std::string, std::vector<ArrayRef *>> Plain;
  std::set<std::string> Conditional;
};

/// Every array \p St reads, as read by only some threads.
void markConditional(Stmt &St, ReadSites &Sites) {
  walkExprs(St, [&](const Expr &E) {
    walkExpr(E, [&](const Expr &X) {
      if (auto *R = llvm::dyn_cast<ArrayRef>(&X))
        Sites.Conditional.insert(R->Array);
    });
  });
}

void collectReads(Expr &E, bool Conditional, ReadSites &Sites) {
  if (auto *R = llvm::dyn_cast<ArrayRef>(&E)) {
    if (Conditional)
      Sites.Conditional.insert(R->Array);
    else
      Sites.Plain[R->Array].push_back(R);
    for (ExprPtr &I : R->Indices)
      collectReads(*I, Conditional, Sites);
    return;
  }
  if (auto *S = llvm::dyn_cast<SelectExpr>(&E)) {
    collectReads(*S->Cond, Conditional, Sites);
    collectReads(*S->TrueVal, true, Sites);
    collectReads(*S->FalseVal, true, Sites);
    return;
  }
  if (auto *B = llvm::dyn_cast<BinaryExpr>(&E);
      B && (B->Op == BinaryOp::LAnd || B->Op == BinaryOp::LOr)) {
    collectReads(*B->LHS, Conditional, Sites);
    collectReads(*B->RHS, true, Sites);
    return;
  }
  E.forEachChild([&](ExprPtr &C) { collectReads(*C, Conditional, Sites); });
}

void collectReads(Stmt &St, ReadSites &Sites) {
  if (llvm::isa<DeclStmt>(&St) || llvm::isa<ExprStmt>(&St)) {
    St.forEachExpr([&](ExprPtr &E) { collectReads(*E, false, Sites); });
    return;
  }
  if (auto *A = llvm::dyn_cast<AssignStmt>(&St)) {
    // The stored-to element itself is no read (unless compound).
    if (auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get())) {
      for (ExprPtr &I : R->Indices)
        collectReads(*I, false, Sites);
      if (A->Op != AssignOp::Set)
        Sites.Conditional.insert(R->Array); // written anyway
    } else {
      collectReads(*A->LHS, false, Sites);
    }
    collectReads(*A->RHS, false, Sites);
    return;
  }
  if (auto *B = llvm::dyn_cast<BlockStmt>(&St)) {
    for (StmtPtr &S : B->Body)
      collectReads(*S, Sites);
    return;
  }
  // if, for and the rest: what they read is not read by every thread.
  markConditional(St, Sites);
}

/// Records the offset of read \p R from the thread's position in \p S,
/// with its stride; an error message when it is not a stencil read.
std::optional<std::string> offsetOf(const ArrayRef &R, const AffineContext &Ctx,
                                    unsigned Dims, Stencil &S) {
  if (R.Indices.size() != 1)
    return std::string("it is indexed in several dimensions");
  std::string Index = "its index '" + printExprDebug(*R.Indices[0]) + "'";
  auto Form = toAffine(*R.Indices[0], Ctx);
  if (!Form || !Form->isAffine() || Form->mentions(AffineVar::Kind::Loop))
    return Index + " is not affine in the thread position";
  if (Form->coefficientOf(PosX).asConstant() != std::optional<std::int64_t>(1))
    return Index + " does not move by one element with the X position";
  AffineForm Rest = Form->without(PosX).without(PosY);
  if (Rest.mentions(AffineVar::Kind::Thread))
    return Index + " uses another thread or block id";
  std::string Far = llvm::formatv(" is not within {0} rows and columns of the "
                                  "thread's position",
                                  MaxReach);
  std::int64_t Di = 0;
  if (Dims == 2) {
    AffineForm Stride = Form->coefficientOf(PosY);
    if (Stride.isConstant() && Stride.constantTerm() == 0)
      return Index + " does not move with the Y position";
    if (S.Stride && !(*S.Stride == Stride))
      return std::string("its reads have different row strides");
    S.Stride = Stride;
    // Rest = di * stride + dj with small di and dj.
    bool Found = false;
    for (std::int64_t D = -MaxReach; D <= MaxReach && !Found; ++D) {
      auto C = (Rest - Stride.scaled(D)).asConstant();
      if (C && *C >= -MaxReach && *C <= MaxReach) {
        Di = D;
        Rest = AffineForm::constant(*C);
        Found = true;
      }
    }
    if (!Found)
      return Index + Far;
  }
  auto Dj = Rest.asConstant();
  if (!Dj || *Dj < -MaxReach || *Dj > MaxReach)
    return Index + Far;
  S.Offsets.insert({Di, *Dj});
  S.At[&R] = {Di, *Dj};
  S.Rows[0] = std::max(S.Rows[0], -Di);
  S.Rows[1] = std::max(S.Rows[1], Di);
  S.Cols[0] = std::max(S.Cols[0], -*Dj);
  S.Cols[1] = std::max(S.Cols[1], *Dj);
  return std::nullopt;
}

/// The row stride as the source spells it (`NJ`, not the 1003 it expands
/// to, so a rebuild with another -DNJ stays right): the other factor of a
/// product `(y + c) * s` in one of \p Refs' indices. Null when none is.
ExprPtr strideSpelling(const std::vector<ArrayRef *> &Refs,
                       const AffineForm &Stride, const AffineContext &Ctx) {
  auto RowOf = [&](const Expr &E) {
    auto A = toAffine(E, Ctx);
    return A &&
           A->coefficientOf(PosY).asConstant() ==
               std::optional<std::int64_t>(1) &&
           A->coefficientOf(PosX).isConstant() &&
           A->coefficientOf(PosX).constantTerm() == 0;
  };
  auto IsStride = [&](const Expr &E) {
    auto A = toAffine(E, Ctx);
    return A && !A->mentions(AffineVar::Kind::Thread) && *A == Stride;
  };
  const Expr *Found = nullptr;
  for (const ArrayRef *R : Refs)
    walkExpr(*R->Indices[0], [&](const Expr &E) {
      auto *B = llvm::dyn_cast<BinaryExpr>(&E);
      if (Found || !B || B->Op != BinaryOp::Mul)
        return;
      if (RowOf(*B->LHS) && IsStride(*B->RHS))
        Found = B->RHS.get();
      else if (RowOf(*B->RHS) && IsStride(*B->LHS))
        Found = B->LHS.get();
    });
  return Found ? Found->clone() : nullptr;
}

/// Does a domain that is not empty imply rows of at least \p Span
/// elements? So when the X bound is the stride less a constant (`j < m - 1`
/// with rows of m) and the lowest X position is constant: then lo < m - c
/// gives m >= lo + c + 1 (jacobi: j > 0 && j < m - 1 means m >= 3).
bool rowsImplied(const Function &F, const KernelDomain &D, const Expr &XBound,
                 const AffineForm &Stride, std::int64_t Span,
                 const AffineContext &Ctx) {
  auto Hi = toAffine(*inlineSingleAssignmentLocals(XBound, F), Ctx);
  if (!Hi)
    return false;
  auto Less = (Stride - *Hi).asConstant(); // Hi = stride - Less
  if (!Less)
    return false;
  std::int64_t Lo = 0;
  for (const DomainBound &B : D.Lower[0]) {
    auto L = toAffine(*inlineSingleAssignmentLocals(*B.Bound, F), Ctx);
    auto C = L ? L->asConstant() : std::nullopt;
    if (!C)
      return false;
    Lo = std::max(Lo, *C + B.Offset);
  }
  return Lo + *Less + 1 >= Span;
}

ExprPtr sub(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Sub, std::move(L), std::move(R));
}
/// \p E + \p C, written E - 1 rather than E + -1.
ExprPtr offset(ExprPtr E, std::int64_t C) {
  if (C == 0)
    return E;
  if (auto *L = llvm::dyn_cast<IntLit>(E.get()))
    return intLit(L->Value + C);
  // (x - 1) - 1 is x - 2.
  if (auto *B = llvm::dyn_cast<BinaryExpr>(E.get());
      B && (B->Op == BinaryOp::Add || B->Op == BinaryOp::Sub))
    if (auto *L = llvm::dyn_cast<IntLit>(B->RHS.get())) {
      std::int64_t Sum = (B->Op == BinaryOp::Add ? L->Value : -L->Value) + C;
      return offset(std::move(B->LHS), Sum);
    }
  return C > 0 ? add(std::move(E), intLit(C)) : sub(std::move(E), intLit(-C));
}
ExprPtr conj(ExprPtr L, ExprPtr R) {
  if (!L)
    return R;
  return binary(BinaryOp::LAnd, std::move(L), std::move(R));
}
/// The highest of \p Bounds (lower bounds of one position), each offset.
ExprPtr highest(const std::vector<DomainBound> &Bounds, const Function &F) {
  ExprPtr Out;
  for (const DomainBound &B : Bounds) {
    ExprPtr E = simplifyExpr(
        add(inlineSingleAssignmentLocals(*B.Bound, F), intLit(B.Offset)));
    if (!Out) {
      Out = std::move(E);
      continue;
    }
    ExprPtr Cmp = binary(BinaryOp::GT, Out->clone(), E->clone());
    Out = std::make_unique<SelectExpr>(std::move(Cmp), std::move(Out),
                                       std::move(E),
                                       Type::scalar(ScalarKind::Int));
  }
  return Out;
}

StmtPtr intDecl(const std::string &Name, ExprPtr Init,
                Type T = Type::scalar(ScalarKind::Int)) {
  return std::make_unique<DeclStmt>(Name, std::move(T),
                                    simplifyExpr(std::move(Init)));
}

/// Does the input index \p S's array in 64 bits (`in[y * w + x]` with y a
/// size_t)? Then so do the tile's loads: for an array past 2^31 elements,
/// an int row start would wrap.
bool indexedWide(const Stencil &S) {
  return llvm::any_of(S.At, [](const auto &At) {
    return At.first->Indices[0]->getType().is64BitInteger();
  });
}

/// Why \p F, of shape \p NS over domain \p D, has no domain a halo can be
/// bounded by: a 3-D grid, no bounds guard, a guard that tests more than
/// the positions, a position no guard bounds; empty where it has one.
std::string unboundedDomain(const NaiveShape &NS, const KernelDomain &D) {
  if (D.Layered)
    return "3-D grid: halo tiles are two-dimensional";
  if (!NS.Guard)
    return "the kernel has no bounds guard, so its domain cannot bound a "
           "tile's halo";
  unsigned BoundAtoms = 0;
  for (unsigned I = 0; I < 2; ++I)
    BoundAtoms += unsigned(D.Bounds[I].size() + D.Lower[I].size());
  if (BoundAtoms != NS.GuardAtoms)
    return "the bounds guard tests more than the thread positions, so the "
           "elements the kernel reads cannot be bounded";
  for (unsigned I = 0; I < NS.Dims; ++I)
    if (!NS.Extent[I])
      return llvm::formatv("no guard bounds the {0} position",
                           I == 0 ? "X" : "Y");
  return "";
}

/// The stencil of \p Array, which \p Refs read, into \p S; why it is none
/// (one position per thread, an offset it cannot take, a stride it cannot
/// spell), empty where it is one.
std::string stencilOf(const Function &F, const std::string &Array,
                      const std::vector<ArrayRef *> &Refs,
                      const AffineContext &ACtx, unsigned Dims, Stencil &S) {
  S.Array = Array;
  S.ElemTy = Refs.front()->getType();
  S.ElementBytes = S.ElemTy.elementBytes();
  std::optional<std::string> Bad;
  for (ArrayRef *R : Refs)
    if ((Bad = offsetOf(*R, ACtx, Dims, S)))
      break;
  if (Bad)
    return "'" + Array + "': " + *Bad;
  if (S.Offsets.size() < 2)
    return "'" + Array + "' is read at one position per thread";
  if (S.Stride) {
    S.Spelled = strideSpelling(Refs, *S.Stride, ACtx);
    if (!S.Spelled && S.Stride->isConstant())
      return "'" + Array + "': its row stride " + S.Stride->str() +
             " is not spelled as a factor of its index";
    if (!S.Spelled)
      S.Spelled = affineToExpr(*S.Stride, F);
  }
  return "";
}

/// The arrays every thread of the domain reads as a stencil, of the
/// guarded statements of \p NS; in \p Skipped, why each other array
/// parameter read is not one.
std::vector<Stencil> findStencils(const Function &F, NaiveShape &NS,
                                  const std::set<std::string> &Written,
                                  const AffineContext &ACtx,
                                  std::vector<std::string> &Skipped) {
  ReadSites Sites;
  for (StmtPtr &St : NS.Guarded)
    collectReads(*St, Sites);
  for (const StmtPtr &St : NS.Prologue)
    markConditional(*St, Sites);
  std::vector<Stencil> Stencils;
  for (auto &[Array, Refs] : Sites.Plain) {
    const Param *P = F.findParam(Array);
    if (!P || !P->isArray())
      continue;
    if (Written.count(Array) || Sites.Conditional.count(Array)) {
      Skipped.push_back("'" + Array + "' is " +
                        (Written.count(Array) ? "written by the kernel"
                                              : "not read by every thread"));
      continue;
    }
    Stencil S;
    if (std::string Why = stencilOf(F, Array, Refs, ACtx, NS.Dims, S);
        !Why.empty()) {
      Skipped.push_back(Why);
      continue;
    }
    Stencils.push_back(std::move(S));
  }
  return Stencils;
}

/// The block: a row of coalescing groups, 8 rows in 2-D; the input's own
/// block where its positions assume one.
std::array<std::int64_t, 2>
haloBlock(const Function &F, const MachineDescription &MD, unsigned Dims) {
  std::array<std::int64_t, 2> Block =
      Dims == 2 ? std::array<std::int64_t, 2>{MD.CoalescedThread,
                                              256 / MD.CoalescedThread}
                : std::array<std::int64_t, 2>{256, 1};
  if (F.FixedBlock[0])
    Block[0] = F.FixedBlock[0];
  if (Dims == 2)
    Block[1] = F.FixedBlock[1] ? F.FixedBlock[1]
                               : std::max<std::int64_t>(1, 256 / Block[0]);
  return Block;
}

/// Tiles the stencils of one kernel (apply): for each, a shared tile
/// declared at the top, the loads that fill it before a barrier, and its
/// reads from the tile.
class HaloTiler {
public:
  HaloTiler(const Function &F, NaiveShape &NS, const KernelDomain &D,
            const AffineContext &ACtx, std::array<std::int64_t, 2> Block,
            const std::set<std::string> &Written, LaunchPlan &Plan)
      : F(F), NS(NS), D(D), ACtx(ACtx), Dims(NS.Dims), Block(Block),
        Written(Written), Plan(Plan), Names(declaredNames(F)) {
    Top = std::move(NS.Prologue);
    // The domain's box: [Lo, Hi) per dimension; not empty, or nothing
    // reads.
    for (unsigned I = 0; I < Dims; ++I) {
      Lo[I] = D.Lower[I].empty() ? intLit(0) : highest(D.Lower[I], F);
      Hi[I] = NS.Extent[I]->clone();
      NonEmpty = conj(std::move(NonEmpty),
                      binary(BinaryOp::LT, Lo[I]->clone(), Hi[I]->clone()));
    }
  }

  /// Tiles \p S; why it cannot be, empty where it is.
  std::string tile(Stencil &S);

  /// The statements of the kernel before its guard: the tiles, the
  /// prologue, the loads.
  std::vector<StmtPtr> Top;
  std::vector<StmtPtr> Loads;
  std::vector<std::string> Shapes; ///< each tile, for the report
  /// Global loads per output, of the stencils' reads and of the tiles.
  double LoadsBefore = 0, LoadsAfter = 0;

private:
  /// The row of \p S starting at index \p R (times its stride), in 64 bits
  /// where \p Wide.
  ExprPtr row(const Stencil &S, ExprPtr R, bool Wide) const {
    R = simplifyExpr(std::move(R));
    if (Wide && !llvm::isa<IntLit>(*R))
      R = std::make_unique<CastExpr>(Type::scalar(ScalarKind::Long),
                                     std::move(R));
    return mul(std::move(R), S.Spelled->clone());
  }
  std::string checkRowWidth(const Stencil &S);
  std::string declareTile(const Stencil &S, std::int64_t Height,
                          std::int64_t Width);
  void loadTile(const Stencil &S, const std::string &TileName,
                std::int64_t Height, std::int64_t Width);
  void readFromTile(const Stencil &S, const std::string &TileName);
  std::string requireDisjoint(const Stencil &S);

  const Function &F;
  NaiveShape &NS;
  const KernelDomain &D;
  const AffineContext &ACtx;
  const unsigned Dims;
  const std::array<std::int64_t, 2> Block;
  const std::set<std::string> &Written;
  LaunchPlan &Plan;
  std::set<std::string> Names;
  ExprPtr Lo[2], Hi[2], NonEmpty;
};

/// Offsets order by row only when a row is wider than the stencil: refused
/// where a constant stride is narrower, a launch precondition where the
/// domain does not imply it.
std::string HaloTiler::checkRowWidth(const Stencil &S) {
  std::int64_t Span = S.Cols[0] + S.Cols[1] + 1;
  if (auto C = S.Stride->asConstant()) {
    if (*C < Span)
      return llvm::formatv("the rows of '{0}' ({1} elements) are narrower "
                           "than its stencil ({2})",
                           S.Array, *C, Span);
  } else if (!rowsImplied(F, D, *NS.Extent[0], *S.Stride, Span, ACtx)) {
    Plan.Preconditions.push_back(
        {std::shared_ptr<const Expr>(
             binary(BinaryOp::GE, S.Spelled->clone(), intLit(Span))),
         llvm::formatv("the rows of '{0}' are at least as wide as its "
                       "stencil, so its halo tile's bounds hold",
                       S.Array)
             .str()});
  }
  return "";
}

/// The tile of \p S, declared first; its name.
std::string HaloTiler::declareTile(const Stencil &S, std::int64_t Height,
                                   std::int64_t Width) {
  std::string TileName = uniqueName(Names, S.Array + "_s");
  Type TileTy = S.ElemTy;
  TileTy.IsConst = false;
  TileTy.Space = AddressSpace::Shared;
  auto Decl = std::make_unique<DeclStmt>(TileName, TileTy);
  Decl->Extents = Dims == 2 ? std::vector<std::int64_t>{Height, Width}
                            : std::vector<std::int64_t>{Width};
  Top.insert(Top.begin(), std::move(Decl));
  Plan.SharedBytes += Height * Width * S.ElementBytes;
  return TileName;
}

/// The loads that fill the tile of \p S, named \p TileName, into Loads.
void HaloTiler::loadTile(const Stencil &S, const std::string &TileName,
                         std::int64_t Height, std::int64_t Width) {
  // The lowest and highest index the naive kernel reads: at the box's
  // first and last positions, with the first and last offsets.
  // At the last position, Last = 1: the bound minus one.
  // In 64 bits where the input indexes so: a row (`(long long)r * w`).
  bool Wide = Dims == 2 && indexedWide(S);
  Type IndexTy = Type::scalar(Wide ? ScalarKind::Long : ScalarKind::Int);
  auto At = [&](ExprPtr *Box, std::int64_t Last, std::int64_t Di,
                std::int64_t Dj) -> ExprPtr {
    ExprPtr Col = offset(Box[0]->clone(), Dj - Last);
    if (Dims == 1)
      return Col;
    return add(row(S, offset(Box[1]->clone(), Di - Last), Wide),
               std::move(Col));
  };
  auto First = *S.Offsets.begin(), Last = *S.Offsets.rbegin();
  std::string LoName = uniqueName(Names, S.Array + "_lo");
  std::string HiName = uniqueName(Names, S.Array + "_hi");
  Loads.push_back(
      intDecl(LoName, At(Lo, 0, First.first, First.second), IndexTy));
  Loads.push_back(intDecl(HiName, At(Hi, 1, Last.first, Last.second), IndexTy));

  // Element (r, c) of the tile is the array at (bidy*By + r - above,
  // bidx*Bx + c - left): the block's threads walk its rows By apart and
  // its columns Bx apart (no division per element), loading what lies
  // between the lowest and highest index read.
  auto Walk = [&](const std::string &Iter, Builtin From, std::int64_t Count,
                  std::int64_t Step, std::vector<StmtPtr> Body) {
    auto Loop = std::make_unique<ForStmt>();
    Loop->Iter = Iter;
    Loop->Init = builtin(From);
    Loop->Bound = intLit(Count);
    Loop->Step = Step;
    Loop->Body = block(std::move(Body));
    return Loop;
  };
  std::string C = uniqueName(Names, "c");
  std::string G = uniqueName(Names, S.Array + "_g");
  ExprPtr GIndex = offset(
      add(mul(builtin(Builtin::Bidx), intLit(Block[0])), var(C)), -S.Cols[0]);
  std::string R, RowStart;
  if (Dims == 2) {
    R = uniqueName(Names, "r");
    RowStart = uniqueName(Names, S.Array + "_row");
    GIndex = add(var(RowStart), std::move(GIndex));
  }
  std::vector<ExprPtr> TileIdx;
  if (Dims == 2)
    TileIdx.push_back(var(R));
  TileIdx.push_back(var(C));
  auto TileRef =
      std::make_unique<ArrayRef>(TileName, std::move(TileIdx), S.ElemTy);
  TileRef->Space = AddressSpace::Shared;
  std::vector<ExprPtr> GIdx;
  GIdx.push_back(var(G));
  auto GlobalRef =
      std::make_unique<ArrayRef>(S.Array, std::move(GIdx), S.ElemTy);
  ExprPtr InRange =
      binary(BinaryOp::LAnd, binary(BinaryOp::GE, var(G), var(LoName)),
             binary(BinaryOp::LE, var(G), var(HiName)));
  std::vector<StmtPtr> Body;
  Body.push_back(intDecl(G, std::move(GIndex), IndexTy));
  Body.push_back(std::make_unique<IfStmt>(
      std::move(InRange),
      std::make_unique<AssignStmt>(std::move(TileRef), AssignOp::Set,
                                   std::move(GlobalRef))));
  StmtPtr Loop = Walk(C, Builtin::Tidx, Width, Block[0], std::move(Body));
  if (Dims == 2) {
    std::vector<StmtPtr> RowBody;
    RowBody.push_back(intDecl(
        RowStart,
        row(S,
            offset(add(mul(builtin(Builtin::Bidy), intLit(Block[1])), var(R)),
                   -S.Rows[0]),
            Wide),
        IndexTy));
    RowBody.push_back(std::move(Loop));
    Loop = Walk(R, Builtin::Tidy, Height, Block[1], std::move(RowBody));
  }
  Loads.push_back(std::make_unique<IfStmt>(NonEmpty->clone(), block({})));
  llvm::cast<BlockStmt>(llvm::cast<IfStmt>(Loads.back().get())->Then.get())
      ->Body.push_back(std::move(Loop));
}

/// The reads of \p S, from its tile \p TileName.
void HaloTiler::readFromTile(const Stencil &S, const std::string &TileName) {
  for (StmtPtr &St : NS.Guarded)
    rewriteExprs(*St, [&](Expr &X) -> ExprPtr {
      auto It = S.At.find(llvm::dyn_cast<ArrayRef>(&X));
      if (It == S.At.end())
        return nullptr;
      auto [Di, Dj] = It->second;
      std::vector<ExprPtr> Idx;
      if (Dims == 2)
        Idx.push_back(offset(builtin(Builtin::Tidy), Di + S.Rows[0]));
      Idx.push_back(offset(builtin(Builtin::Tidx), Dj + S.Cols[0]));
      auto T =
          std::make_unique<ArrayRef>(TileName, std::move(Idx), X.getType());
      T->Space = AddressSpace::Shared;
      return T;
    });
}

/// The staged array of \p S must not alias an array the kernel writes;
/// why the launcher cannot check that, empty where it can.
std::string HaloTiler::requireDisjoint(const Stencil &S) {
  for (const std::string &W : Written) {
    std::map<std::string, std::shared_ptr<const Expr>> Counts;
    for (const std::string &A : {S.Array, W})
      if (!Plan.Elements.count(A)) {
        Counts[A] = symbolicElements(F, A);
        if (!Counts[A])
          return "cannot bound the extent of '" + A +
                 "' for the run-time aliasing check";
      }
    Plan.requireDisjoint(S.Array, W, Counts);
  }
  return "";
}

std::string HaloTiler::tile(Stencil &S) {
  std::int64_t Width = Block[0] + S.Cols[0] + S.Cols[1];
  std::int64_t Height = Dims == 2 ? Block[1] + S.Rows[0] + S.Rows[1] : 1;
  if (Dims == 2)
    if (std::string Why = checkRowWidth(S); !Why.empty())
      return Why;
  std::string TileName = declareTile(S, Height, Width);
  loadTile(S, TileName, Height, Width);
  readFromTile(S, TileName);
  if (std::string Why = requireDisjoint(S); !Why.empty())
    return Why;
  LoadsBefore += double(S.Offsets.size());
  LoadsAfter += double(Height * Width) / double(Block[0] * Block[1]);
  Shapes.push_back(
      llvm::formatv("{0}_s[{1}] for {2} offsets ({3} row(s) "
                    "above, {4} below, {5} column(s) left, {6} "
                    "right)",
                    S.Array,
                    Dims == 2 ? llvm::formatv("{0}][{1}", Height, Width).str()
                              : std::to_string(Width),
                    S.Offsets.size(), S.Rows[0], S.Rows[1], S.Cols[0],
                    S.Cols[1])
          .str());
  return "";
}

llvm::Expected<std::optional<AppliedPass>>
apply(Function &F, const PassContext &Ctx, std::string &Why) {
  if (F.Plan && (F.Plan->Origin || !F.Plan->SameLaunch)) {
    Why = "the kernel is already tiled";
    return std::nullopt;
  }
  auto NSOr = analyzeShape(F);
  if (!NSOr) {
    Why = llvm::toString(NSOr.takeError());
    return std::nullopt;
  }
  NaiveShape &NS = *NSOr;
  KernelDomain D = findDomain(F);
  unsigned Dims = NS.Dims;
  if (std::string Bad = unboundedDomain(NS, D); !Bad.empty()) {
    Why = Bad;
    return std::nullopt;
  }

  std::set<std::string> Written;
  for (const Access &A : collectAccesses(F))
    if (A.IsWrite)
      Written.insert(A.Array);
  AffineContext ACtx = kernelAffineContext(F);
  std::vector<std::string> Skipped;
  std::vector<Stencil> Stencils = findStencils(F, NS, Written, ACtx, Skipped);
  if (Stencils.empty()) {
    Why = Skipped.empty() ? "no array is read at several neighbouring positions"
                          : "no array is read as a stencil (" +
                                llvm::join(Skipped, "; ") + ")";
    return std::nullopt;
  }

  // The tile pays for itself where the neighbours' reads would each go to
  // DRAM. Where the L1 caches global loads they hit there already, and the
  // tile adds its copies, the halo's bounds and a barrier: on GPGPU-Sim's
  // GTX 480, PolyBench's jacobi-2d ran at 0.57x the input with it and 2-D
  // convolution at 0.67x (bench/results/sim-gtx480-2026-12-01.md).
  const MachineDescription &MD = Ctx.Target;
  if (MD.L1CachesGlobalLoads && !Ctx.PipelineGiven) {
    Why = MD.Name + "'s L1 caches global loads, so the neighbours' reads "
                    "hit there; a shared tile would add copies and a "
                    "barrier (--passes=halo-tile forces it)";
    return std::nullopt;
  }

  std::array<std::int64_t, 2> Block = haloBlock(F, MD, Dims);
  LaunchPlan Plan;
  if (F.Plan) { // scalar replacement's conditions carry over
    Plan.Preconditions = F.Plan->Preconditions;
    Plan.Disjoint = F.Plan->Disjoint;
    Plan.Elements = F.Plan->Elements;
  }
  Plan.Dims = Dims;
  Plan.Block = Block;
  Plan.Extent = NS.Extent;
  Plan.GuardsDomain = true;
  Plan.ShapeFixedBy = "the halo tile of halo-tile sets the block shape";

  HaloTiler Tiler(F, NS, D, ACtx, Block, Written, Plan);
  for (Stencil &S : Stencils)
    if (std::string Bad = Tiler.tile(S); !Bad.empty()) {
      Why = Bad;
      return std::nullopt;
    }
  if (Plan.SharedBytes > staticSharedLimit(MD)) {
    Why = llvm::formatv("the halo tiles need {0} bytes of shared memory, more "
                        "than the {1} a block may declare",
                        Plan.SharedBytes, staticSharedLimit(MD));
    return std::nullopt;
  }
  // The model: global loads per output, each stencil read against the
  // tile's elements per thread.
  if (Tiler.LoadsAfter >= Tiler.LoadsBefore) {
    Why = "the halo tiles would load as much as the reads they replace";
    return std::nullopt;
  }

  std::vector<StmtPtr> Top = std::move(Tiler.Top);
  for (StmtPtr &St : Tiler.Loads)
    Top.push_back(std::move(St));
  Top.push_back(std::make_unique<SyncStmt>());
  Top.push_back(std::make_unique<IfStmt>(std::move(NS.Guard),
                                         block(std::move(NS.Guarded))));
  auto K = F.withBody(std::make_unique<BlockStmt>());
  K->Body->Body = std::move(Top);
  Plan.EstimatedRegisters = 20;
  Plan.Origin = std::shared_ptr<const Function>(F.clone());
  setLayers(Plan, F);
  K->Plan = std::move(Plan);
  F = std::move(*K);

  AppliedPass P{"halo-tile", {}};
  P.Parameters["block"] = llvm::formatv("{0}x{1}", Block[0], Block[1]).str();
  P.Parameters["tiles"] = llvm::join(Tiler.Shapes, ", ");
  P.Parameters["loads-per-output"] =
      llvm::formatv("{0:f2} -> {1:f2}", Tiler.LoadsBefore, Tiler.LoadsAfter)
          .str();
  if (!Skipped.empty())
    P.Parameters["kept-in-global"] = llvm::join(Skipped, "; ");
  return P;
}

} // namespace

PassInfo haloTilePass() {
  return {"halo-tile",
          "a stencil's neighbouring reads loaded once per block into a shared "
          "tile with its halo (§3.4, kernels without a loop to tile)",
          apply};
}

} // namespace gpumerge
