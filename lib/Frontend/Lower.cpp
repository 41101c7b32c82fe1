//===- Lower.cpp - Clang AST to KIR ---------------------------------------===//
//
// A direct recursive lowering: statements and expressions of the kernel body
// map one to one onto KIR nodes; parentheses and implicit conversions are
// dropped (the printer and C's rules recreate them); CUDA's threadIdx.x and
// OpenCL's get_local_id(0) become the same built-in, and the usual ways of
// writing the global position (bidx*bdimx+tidx in any order) fold to idx.
//
//===----------------------------------------------------------------------===//
#include "Frontend/Lower.h"
#include "Frontend/FileConstants.h"
#include "Frontend/Inlining.h"
#include "Frontend/PointerChains.h"
#include "Frontend/Prelude.h"
#include "Frontend/Templates.h"
#include "IR/Printer.h"
#include "IR/VectorComponents.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"

#include "llvm/ADT/StringSwitch.h"

#include <set>

using namespace clang;

namespace gpumerge {
namespace {

/// Names the paper's dialect uses bare (§3): the prelude declares them.
std::optional<Builtin> dialectBuiltin(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<Builtin>>(Name)
      .Case("idx", Builtin::Idx)
      .Case("idy", Builtin::Idy)
      .Case("tidx", Builtin::Tidx)
      .Case("tidy", Builtin::Tidy)
      .Case("bidx", Builtin::Bidx)
      .Case("bidy", Builtin::Bidy)
      .Default(std::nullopt);
}

/// `bidx*bdimx + tidx` (either product order, either sum order) → idx; the
/// same in Y. The frontend's one piece of pattern matching, so analyses see
/// thread positions as single nodes. A constant in place of bdimx
/// (`blockIdx.x * 256 + threadIdx.x`, a #define'd block size) folds too, and
/// goes to \p Fixed: the block size the launcher must then check; a second,
/// different constant sets \p Conflict.
ExprPtr foldThreadPosition(Expr &E, std::array<std::int64_t, 2> &Fixed,
                           bool &Conflict) {
  auto *Add = llvm::dyn_cast<BinaryExpr>(&E);
  if (!Add || Add->Op != BinaryOp::Add)
    return nullptr;
  auto IsBuiltin = [](const Expr *X, Builtin B) {
    auto *R = llvm::dyn_cast<BuiltinRef>(X);
    return R && R->Which == B;
  };
  // The block size in `bid * size`: 0 for bdim, the constant, or -1.
  auto BlockOffset = [&](const Expr *X, Builtin Bid,
                         Builtin Bdim) -> std::int64_t {
    auto *M = llvm::dyn_cast<BinaryExpr>(X);
    if (!M || M->Op != BinaryOp::Mul)
      return -1;
    const Expr *Size = IsBuiltin(M->LHS.get(), Bid)   ? M->RHS.get()
                       : IsBuiltin(M->RHS.get(), Bid) ? M->LHS.get()
                                                      : nullptr;
    if (!Size)
      return -1;
    if (IsBuiltin(Size, Bdim))
      return 0;
    if (auto *L = llvm::dyn_cast<IntLit>(Size); L && L->Value > 0)
      return L->Value;
    return -1;
  };
  struct Dim {
    Builtin Bid, Bdim, Tid, Id;
  };
  unsigned D = 0;
  for (Dim X :
       {Dim{Builtin::Bidx, Builtin::Bdimx, Builtin::Tidx, Builtin::Idx},
        Dim{Builtin::Bidy, Builtin::Bdimy, Builtin::Tidy, Builtin::Idy},
        Dim{Builtin::Bidz, Builtin::Bdimz, Builtin::Tidz, Builtin::Idz}}) {
    std::int64_t Size = -1;
    if (IsBuiltin(Add->RHS.get(), X.Tid))
      Size = BlockOffset(Add->LHS.get(), X.Bid, X.Bdim);
    else if (IsBuiltin(Add->LHS.get(), X.Tid))
      Size = BlockOffset(Add->RHS.get(), X.Bid, X.Bdim);
    // In Z only blockDim.z: optimized kernels run blocks one layer deep.
    if (D == 2 && Size > 0)
      Size = -1;
    if (Size >= 0) {
      if (Size > 0) {
        Conflict |= Fixed[D] && Fixed[D] != Size;
        Fixed[D] = Size;
      }
      auto R = builtin(X.Id);
      R->setLine(E.getLine());
      return R;
    }
    ++D;
  }
  return nullptr;
}

class Lowering {
public:
  Lowering(ASTContext &Ctx, Preprocessor &PP, Module &M)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), PP(PP), M(M) {}

  std::variant<std::unique_ptr<Function>, LoweringFailure>
  run(const FunctionDecl &FD) {
    auto F = std::make_unique<Function>();
    F->Name = FD.getNameAsString();
    F->IsKernel = CurrentIsKernel = isKernelDecl(FD);
    F->ReturnType = lowerType(FD.getReturnType(), FD.getBeginLoc());
    for (const ParmVarDecl *P : FD.parameters()) {
      Param KP;
      KP.Name = P->getNameAsString();
      if (KP.Name.empty())
        fail("unnamed parameter", P->getBeginLoc());
      KP.Ty = lowerType(P->getType(), P->getBeginLoc());
      KP.Restrict = KP.Ty.IsPointer && P->getType().isRestrictQualified();
      if (const auto *A = Ctx.getAsConstantArrayType(P->getOriginalType()))
        KP.DeclaredRows = A->getSize().getSExtValue();
      if (KP.Ty.IsPointer && KP.Ty.Space == AddressSpace::Private)
        KP.Ty.Space = AddressSpace::Global; // CUDA kernel pointers
      F->Params.push_back(std::move(KP));
    }
    Changed = assignedIn(*FD.getBody());
    namesOf(FD, DeclaredNames, TakenNames);
    StmtPtr Body = lowerStmt(FD.getBody());
    // Threads of one layer of a 3-D grid: idz only (see Builtin::Idz).
    walkExprs(*Body, [&](const Expr &E) {
      const auto *B = llvm::dyn_cast<BuiltinRef>(&E);
      if (B && builtinDimension(B->Which) == 2 && B->Which != Builtin::Idz &&
          !Failure)
        Failure = LoweringFailure{
            Ctx.getLangOpts().OpenCL
                ? std::string(B->Which == Builtin::Tidz ? "get_local_id(2)"
                              : B->Which == Builtin::Bidz
                                  ? "get_group_id(2)"
                                  : "get_local_size(2)") +
                      " (3-D work-groups: only the z position "
                      "get_global_id(2))"
                : std::string(B->Which == Builtin::Tidz   ? "threadIdx.z"
                              : B->Which == Builtin::Bidz ? "blockIdx.z"
                                                          : "blockDim.z") +
                      " other than in the z position blockIdx.z * blockDim.z "
                      "+ threadIdx.z (3-D blocks)",
            B->getLine() ? B->getLine() : lineOf(FD.getBeginLoc())};
    });
    if (FixedBlockConflict)
      fail("its thread positions assume two different block sizes "
           "(blockIdx.x * N + threadIdx.x with two values of N)",
           FD.getBeginLoc());
    if (Failure)
      return *Failure;
    F->FixedBlock = FixedBlock;
    F->ConstantArrays = std::move(ConstantArrays);
    F->Body.reset(llvm::cast<BlockStmt>(Body.release()));
    F->PaperDialect = UsesDialect;
    if (UsesDialect) {
      // In the original compiler's dialect __syncthreads() separates phases
      // of the whole grid: a global barrier.
      walkStmts(*F->Body, [](Stmt &S) {
        S.forEachStmt([](StmtPtr &C) {
          if (llvm::isa<SyncStmt>(*C)) {
            unsigned L = C->getLine();
            C = std::make_unique<GlobalSyncStmt>();
            C->setLine(L);
          }
        });
      });
    }
    return F;
  }

private:
  ASTContext &Ctx;
  SourceManager &SM;
  Preprocessor &PP;
  Module &M;
  std::optional<LoweringFailure> Failure;
  bool UsesDialect = false;
  bool CurrentIsKernel = false;
  std::vector<Param> ConstantArrays;
  std::array<std::int64_t, 2> FixedBlock = {0, 0};
  bool FixedBlockConflict = false;
  /// The loops around the statement lowered, innermost last: true for a
  /// while loop read as a for loop; and their iterators.
  std::vector<bool> LoopKinds;
  std::vector<const VarDecl *> LoopIters;
  /// What the function's body assigns (PointerChains.h).
  Assigned Changed;
  /// A local pointer into an array parameter (`row = a + i * w`): the
  /// parameter, and the offset (null: none) its elements are read at.
  struct Alias {
    const VarDecl *Base = nullptr;
    ExprPtr Offset;
  };
  std::map<const VarDecl *, Alias> Aliases;

  // Helpers that take pointers, lowered where they are called (Inlining.h).
  /// The helpers being inlined, innermost last, and the lines of the calls.
  struct InlineFrame {
    const FunctionDecl *Callee;
    unsigned CallLine;
  };
  std::vector<InlineFrame> Inlined;
  /// Their parameters and locals as the function lowered declares them.
  std::map<const VarDecl *, std::string> Renamed;
  /// Their parameters read as the arguments' values (or, for a reference
  /// or a pointer to a variable, as what the argument names).
  std::map<const VarDecl *, ExprPtr> Substituted;
  /// Their pointer parameters that point at one variable (`&x`).
  std::map<const VarDecl *, const VarDecl *> PointsAtVariable;
  /// The names the function lowered declares, with those declared for
  /// inlined helpers; and every name it refers to besides.
  std::set<std::string> DeclaredNames, TakenNames;
  /// What the inlined calls of the statement being lowered put before it.
  std::vector<StmtPtr> Hoisted;
  /// Why the expression being lowered cannot have statements put before
  /// it (it is evaluated only under a condition, or again and again); null
  /// where it can.
  const char *NoHoist = nullptr;
  /// Statements lowered from inlined helpers (a bound on what duplicating
  /// the rest of a body after an early return can grow to).
  unsigned InlinedStatements = 0;

  unsigned lineOf(SourceLocation L) const {
    return SM.getExpansionLineNumber(L);
  }
  void fail(const std::string &What, SourceLocation L) {
    if (Failure)
      return;
    Failure = LoweringFailure{What, lineOf(L)};
    // Where a helper is inlined: its line, and the call's.
    if (!Inlined.empty())
      Failure->Construct +=
          " (in '" + Inlined.back().Callee->getNameAsString() +
          "', which gpumerge inlines where line " +
          std::to_string(Inlined.front().CallLine) + " calls it)";
  }
  ExprPtr failExpr(const std::string &What, SourceLocation L) {
    fail(What, L);
    return intLit(0);
  }
  StmtPtr failStmt(const std::string &What, SourceLocation L) {
    fail(What, L);
    return std::make_unique<BlockStmt>();
  }

  /// Written by the user: in the main file or a header of theirs (a
  /// typedef or macro there keeps its name in the output; the included
  /// header defines it again), not a system header or our prelude.
  bool isUserCode(SourceLocation L) const {
    SourceLocation E = SM.getExpansionLoc(L);
    if (SM.isInMainFile(E))
      return true;
    if (E.isInvalid() || SM.isInSystemHeader(E))
      return false;
    return SM.getFilename(E) != PreludePath;
  }

  /// The source text of the token at \p Loc's spelling ("100U").
  std::string tokenText(SourceLocation Loc) const {
    SourceLocation S = SM.getSpellingLoc(Loc);
    return Lexer::getSourceText(CharSourceRange::getTokenRange(S, S), SM,
                                Ctx.getLangOpts())
        .str();
  }

  // --- types -------------------------------------------------------------
  void noteTypedef(const TypedefNameDecl *TD) {
    std::string Name = TD->getNameAsString();
    for (auto &[N, _] : M.Typedefs)
      if (N == Name)
        return;
    if (!isUserCode(TD->getLocation()))
      return; // a system header or the prelude (float4, size_t)
    QualType Under = TD->getUnderlyingType().getCanonicalType();
    const RecordDecl *Vec = cudaVectorRecord(Under);
    M.Typedefs.emplace_back(
        Name, "typedef " +
                  (Vec ? Vec->getNameAsString() : Under.getAsString()) + " " +
                  Name + ";");
  }

  // --- vectors -------------------------------------------------------------
  /// CUDA's float2, int4, uchar4 ...: the toolkit's struct of fields x, y
  /// (z, w) of one scalar type, named as OpenCL names the same vector (its
  /// declaration in vector_types.h, not the user's code). Null for any
  /// other type.
  const RecordDecl *cudaVectorRecord(QualType Q) const {
    const RecordDecl *RD = Q->getAsRecordDecl();
    if (!RD || !RD->isStruct() || !RD->getDefinition() ||
        isUserCode(RD->getLocation()))
      return nullptr;
    QualType Field;
    unsigned N = 0;
    for (const FieldDecl *F : RD->fields()) {
      QualType FT = F->getType().getCanonicalType();
      if (N >= 4 || F->getName() != vectorComponentName(N, 4) ||
          !FT->isArithmeticType() || (N && FT != Field))
        return nullptr;
      Field = FT;
      ++N;
    }
    if (N < 2)
      return nullptr;
    return RD;
  }
  bool isCudaVector(QualType Q) const { return cudaVectorRecord(Q); }

  /// The KIR vector type of CUDA's vector struct \p RD (cudaVectorRecord).
  Type cudaVectorType(const RecordDecl &RD, QualType Q, SourceLocation Loc) {
    unsigned N = std::distance(RD.field_begin(), RD.field_end());
    Type T = lowerScalar(RD.field_begin()->getType(), Loc);
    T.IsConst = false;
    T.VectorWidth = N;
    T.Packed = N == 3;
    if (scalarName(T.Scalar, N) != RD.getName())
      fail("type '" + Q.getAsString() + "'", Loc); // longlong2, dim3 ...
    return T;
  }

  /// `make_float4(a, b, c, d)`, `float4{a, b}`, OpenCL's `(float4)(a, b, c,
  /// d)`: a vector built from \p Parts (missing ones are zero), or null
  /// where this is not such a construction.
  ExprPtr vectorLiteral(QualType Q, llvm::ArrayRef<const clang::Expr *> Parts,
                        SourceLocation Loc) {
    Type Vec = lowerType(Q, Loc);
    Vec.IsConst = false;
    if (Vec.VectorWidth < 2 || Parts.size() > Vec.VectorWidth)
      return failExpr("vector of " + std::to_string(Parts.size()) +
                          " values for type '" + Q.getAsString() + "'",
                      Loc);
    std::vector<ExprPtr> Args;
    for (const clang::Expr *P : Parts) {
      if (P->getType()->isVectorType() || isCudaVector(P->getType()))
        return failExpr("vector built from vectors", Loc);
      if (llvm::isa<ImplicitValueInitExpr>(strip(P))) // float2 c = {e};
        Args.push_back(std::make_unique<IntLit>(0));
      else
        Args.push_back(lowerExpr(P));
    }
    while (Args.size() < Vec.VectorWidth)
      Args.push_back(std::make_unique<IntLit>(0));
    return std::make_unique<gpumerge::CallExpr>(VectorLiteralCallee,
                                                std::move(Args), Vec);
  }

  /// A store to one component of a vector, `v.x = e` or `c[i].y += e` (\p
  /// RHS null: `v.x++`, \p Op Add or Sub): the store of the whole vector
  /// that KIR writes (VectorComponents.h). Null where \p LHS is no component.
  StmtPtr lowerComponentStore(const clang::Expr *LHS, AssignOp Op,
                              const clang::Expr *RHS, SourceLocation Loc) {
    const clang::Expr *Base = nullptr;
    std::string Name;
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(LHS);
        M && isCudaVector(M->getBase()->getType())) {
      if (M->isArrow())
        return failStmt("a store to a vector component through a pointer", Loc);
      Base = M->getBase();
      Name = M->getMemberDecl()->getNameAsString();
    } else if (const auto *V = llvm::dyn_cast<ExtVectorElementExpr>(LHS)) {
      if (V->isArrow() || V->getNumElements() != 1)
        return failStmt("a store to several vector components '" +
                            sourceText(V->getSourceRange()) + "'",
                        Loc);
      Base = V->getBase();
      Name = V->getAccessor().getName().str();
    } else {
      return nullptr;
    }
    ExprPtr Target = lowerExpr(Base);
    ExprPtr Value = RHS ? lowerExpr(RHS) : intLit(1);
    std::optional<unsigned> K =
        vectorComponentIndex(Name, Target->getType().VectorWidth);
    if (!K || !(llvm::isa<VarRef>(*Target) || llvm::isa<ArrayRef>(*Target)))
      return failStmt("a store to the vector component '" +
                          sourceText(LHS->getSourceRange()) + "'",
                      Loc);
    return withLine(componentStore(std::move(Target), *K, Op, std::move(Value)),
                    Loc);
  }

  Type lowerScalar(QualType Q, SourceLocation Loc) {
    Type T;
    std::string TypedefName;
    if (const auto *TT = Q->getAs<TypedefType>()) {
      const TypedefNameDecl *TD = TT->getDecl();
      if (isUserCode(TD->getLocation())) {
        noteTypedef(TD);
        TypedefName = TD->getNameAsString();
      }
    }
    QualType C = Q.getCanonicalType();
    if (const auto *V = C->getAs<clang::VectorType>()) {
      T = lowerScalar(V->getElementType(), Loc);
      T.VectorWidth = V->getNumElements();
      T.TypedefName = TypedefName;
      return T;
    }
    if (const RecordDecl *RD = cudaVectorRecord(C)) {
      T = cudaVectorType(*RD, Q, Loc);
      T.TypedefName = TypedefName;
      return T;
    }
    const auto *B = C->getAs<BuiltinType>();
    if (!B) {
      fail("type '" + Q.getAsString() + "'", Loc);
      return T;
    }
    switch (B->getKind()) {
    case BuiltinType::Void:
      T.Scalar = ScalarKind::Void;
      break;
    case BuiltinType::Bool:
      T.Scalar = ScalarKind::Bool;
      break;
    case BuiltinType::Char_S:
    case BuiltinType::SChar:
      T.Scalar = ScalarKind::Char;
      break;
    case BuiltinType::Char_U:
    case BuiltinType::UChar:
      T.Scalar = ScalarKind::UChar;
      break;
    case BuiltinType::Short:
      T.Scalar = ScalarKind::Short;
      break;
    case BuiltinType::UShort:
      T.Scalar = ScalarKind::UShort;
      break;
    case BuiltinType::Int:
      T.Scalar = ScalarKind::Int;
      break;
    case BuiltinType::UInt:
      T.Scalar = ScalarKind::UInt;
      break;
    case BuiltinType::Long:
    case BuiltinType::LongLong:
      T.Scalar = ScalarKind::Long;
      T.SpelledLong = B->getKind() == BuiltinType::Long;
      break;
    case BuiltinType::ULong:
    case BuiltinType::ULongLong:
      T.Scalar = ScalarKind::ULong;
      T.SpelledLong = B->getKind() == BuiltinType::ULong;
      break;
    case BuiltinType::Float:
      T.Scalar = ScalarKind::Float;
      break;
    case BuiltinType::Double:
      T.Scalar = ScalarKind::Double;
      break;
    default:
      fail("type '" + Q.getAsString() + "'", Loc);
    }
    T.TypedefName = TypedefName;
    return T;
  }

  AddressSpace lowerSpace(LangAS AS) {
    switch (AS) {
    case LangAS::opencl_global:
    case LangAS::cuda_device:
      return AddressSpace::Global;
    case LangAS::opencl_local:
    case LangAS::cuda_shared:
      return AddressSpace::Shared;
    case LangAS::opencl_constant:
    case LangAS::cuda_constant:
      return AddressSpace::Constant;
    default:
      return AddressSpace::Private;
    }
  }

  Type lowerType(QualType Q, SourceLocation Loc) {
    if (const auto *P = Q->getAs<PointerType>()) {
      QualType Pointee = P->getPointeeType();
      std::vector<std::int64_t> Inner;
      QualType Elem = Pointee;
      while (const auto *A = Ctx.getAsConstantArrayType(Elem)) {
        Inner.push_back(A->getSize().getSExtValue());
        Elem = A->getElementType();
      }
      if (Elem->isPointerType()) {
        fail("pointer to pointer '" + Q.getAsString() + "'", Loc);
        return Type();
      }
      Type T = lowerScalar(Elem, Loc);
      T.IsVolatile =
          Pointee.isVolatileQualified() || Elem.isVolatileQualified();
      T.IsPointer = true;
      T.Space = lowerSpace(Pointee.getAddressSpace());
      T.IsConst = Pointee.isConstQualified() || Elem.isConstQualified();
      T.InnerExtents = Inner;
      return T;
    }
    if (Q->isArrayType() || Q->isReferenceType() ||
        (Q->isRecordType() && !isCudaVector(Q))) {
      fail("type '" + Q.getAsString() + "'", Loc);
      return Type();
    }
    Type T = lowerScalar(Q, Loc);
    T.IsConst = Q.isConstQualified();
    return T;
  }

  /// A read of file-scope constant array \p V (`__constant__ float w[9]`
  /// in CUDA, `__constant float w[9] = {...}` in OpenCL): read-only, kept
  /// as the input names it. One the host fills is recorded on the function
  /// (an OpenCL translation passes it as a parameter); one with an
  /// initializer on the module (a translation declares it again).
  ExprPtr lowerConstantArray(const VarDecl &V, std::vector<ExprPtr> Indices,
                             const ArraySubscriptExpr &A, SourceLocation Loc) {
    std::string Name = V.getNameAsString();
    std::vector<std::int64_t> Extents;
    QualType Elem = V.getType();
    while (const auto *CA = Ctx.getAsConstantArrayType(Elem)) {
      Extents.push_back(CA->getSize().getSExtValue());
      Elem = CA->getElementType();
    }
    if (Extents.empty())
      return failExpr(
          "a read through the file-scope constant pointer '" + Name + "'", Loc);
    if (Indices.size() != Extents.size())
      return failExpr(
          "a row of the constant array '" + Name + "' taken as a pointer", Loc);
    Type T = lowerScalar(Elem.getUnqualifiedType(), Loc);
    if (!V.hasInit()) {
      if (!CurrentIsKernel)
        return failExpr("a read of the __constant__ array '" + Name +
                            "' in a helper function (only kernels may read "
                            "those the host fills)",
                        Loc);
      bool Known = false;
      for (const Param &P : ConstantArrays)
        Known |= P.Name == Name;
      if (!Known) {
        Param P;
        P.Name = Name;
        P.Ty = T;
        P.Ty.IsPointer = true;
        P.Ty.IsConst = true;
        P.Ty.Space = AddressSpace::Constant;
        P.Ty.InnerExtents.assign(Extents.begin() + 1, Extents.end());
        P.DeclaredRows = Extents.front();
        ConstantArrays.push_back(std::move(P));
      }
    } else {
      bool Known = false;
      for (const Module::ConstantDefinition &D : M.ConstantDefinitions)
        Known |= D.Name == Name;
      if (!Known)
        M.ConstantDefinitions.push_back(
            {Name, T, Extents,
             Lexer::getSourceText(
                 CharSourceRange::getTokenRange(V.getInit()->getSourceRange()),
                 SM, Ctx.getLangOpts())
                 .str()});
    }
    auto R = std::make_unique<ArrayRef>(Name, std::move(Indices),
                                        lowerScalar(A.getType(), Loc));
    R->Space = AddressSpace::Constant;
    return R;
  }

  // --- expressions -------------------------------------------------------
  /// The zero of scalar type \p T: `T()` in a template, the elements an
  /// initializer list leaves out.
  static ExprPtr zeroOf(const gpumerge::Type &T) {
    if (T.isFloating())
      return std::make_unique<FloatLit>(
          0.0, T.Scalar == ScalarKind::Float ? "0.0f" : "0.0", T);
    return std::make_unique<IntLit>(0, T);
  }

  static const clang::Expr *strip(const clang::Expr *E) {
    while (true) {
      if (const auto *P = llvm::dyn_cast<ParenExpr>(E))
        E = P->getSubExpr();
      else if (const auto *I = llvm::dyn_cast<ImplicitCastExpr>(E))
        E = I->getSubExpr();
      else if (const auto *C = llvm::dyn_cast<ConstantExpr>(E))
        E = C->getSubExpr();
      else if (const auto *W = llvm::dyn_cast<ExprWithCleanups>(E))
        E = W->getSubExpr();
      else if (const auto *T = llvm::dyn_cast<MaterializeTemporaryExpr>(E))
        E = T->getSubExpr();
      else
        return E;
    }
  }

  /// threadIdx.x and friends: a property access on a CUDA built-in variable.
  ExprPtr lowerCudaBuiltin(const PseudoObjectExpr &PO) {
    const auto *Prop = llvm::dyn_cast<MSPropertyRefExpr>(
        PO.getSyntacticForm()->IgnoreParens());
    if (!Prop)
      return failExpr("property expression", PO.getBeginLoc());
    const auto *Base =
        llvm::dyn_cast<DeclRefExpr>(Prop->getBaseExpr()->IgnoreImpCasts());
    if (const auto *OV = llvm::dyn_cast<OpaqueValueExpr>(
            Prop->getBaseExpr()->IgnoreImpCasts()))
      Base = llvm::dyn_cast<DeclRefExpr>(OV->getSourceExpr()->IgnoreImpCasts());
    if (!Base)
      return failExpr("property expression", PO.getBeginLoc());
    std::string Var = Base->getDecl()->getNameAsString();
    std::string Field = Prop->getPropertyDecl()->getNameAsString();
    // In Z only the position blockIdx.z * blockDim.z + threadIdx.z, which
    // lowering folds into idz (run() refuses what is left).
    if (Field == "z") {
      if (Var == "threadIdx")
        return builtin(Builtin::Tidz);
      if (Var == "blockIdx")
        return builtin(Builtin::Bidz);
      if (Var == "blockDim")
        return builtin(Builtin::Bdimz);
      return failExpr(Var + ".z (3-D grids: only the z position "
                            "blockIdx.z * blockDim.z + threadIdx.z)",
                      PO.getBeginLoc());
    }
    bool X = Field == "x";
    if (Var == "threadIdx")
      return builtin(X ? Builtin::Tidx : Builtin::Tidy);
    if (Var == "blockIdx")
      return builtin(X ? Builtin::Bidx : Builtin::Bidy);
    if (Var == "blockDim")
      return builtin(X ? Builtin::Bdimx : Builtin::Bdimy);
    if (Var == "gridDim")
      return builtin(X ? Builtin::Gdimx : Builtin::Gdimy);
    return failExpr("built-in '" + Var + "'", PO.getBeginLoc());
  }

  /// get_global_id(0) and the other OpenCL work-item functions.
  ExprPtr lowerWorkItemCall(llvm::StringRef Name, const clang::CallExpr &C,
                            bool &Handled) {
    Handled = false;
    static const std::pair<const char *, std::pair<Builtin, Builtin>> Table[] =
        {
            {"get_global_id", {Builtin::Idx, Builtin::Idy}},
            {"get_local_id", {Builtin::Tidx, Builtin::Tidy}},
            {"get_group_id", {Builtin::Bidx, Builtin::Bidy}},
            {"get_local_size", {Builtin::Bdimx, Builtin::Bdimy}},
            {"get_num_groups", {Builtin::Gdimx, Builtin::Gdimy}},
            {"get_global_size", {Builtin::Gsizex, Builtin::Gsizey}},
        };
    for (const auto &[Fn, Pair] : Table) {
      if (Name != Fn)
        continue;
      Handled = true;
      clang::Expr::EvalResult R;
      if (C.getNumArgs() != 1 || !C.getArg(0)->EvaluateAsInt(R, Ctx))
        return failExpr(Name.str() + " with a non-constant dimension",
                        C.getBeginLoc());
      std::int64_t D = R.Val.getInt().getExtValue();
      if (D == 2) {
        static const std::pair<const char *, Builtin> Z[] = {
            {"get_global_id", Builtin::Idz},
            {"get_local_id", Builtin::Tidz},
            {"get_group_id", Builtin::Bidz},
            {"get_local_size", Builtin::Bdimz}};
        for (const auto &[ZFn, B] : Z)
          if (Name == ZFn)
            return builtin(B);
      }
      if (D < 0 || D > 1)
        return failExpr(Name.str() + "(" + std::to_string(D) +
                            ") (3-D grids: only the z position "
                            "get_global_id(2))",
                        C.getBeginLoc());
      return builtin(D == 0 ? Pair.first : Pair.second);
    }
    return nullptr;
  }

  /// The spelling of the literal token at \p Loc when it is one token of
  /// the user's text ("100U", "'a'"); empty when it cannot be read back.
  std::string literalSpelling(SourceLocation Loc) const {
    std::string Text = tokenText(Loc);
    if (Text.empty() || Text.find_first_of(" \t\n\\") != std::string::npos)
      return "";
    return Text;
  }

  /// An integer literal written as an object-like macro (`#define WIDTH
  /// 2048`) keeps the macro's name so the output reads like the input.
  void noteMacro(IntLit &L, SourceLocation Loc) {
    if (!Loc.isMacroID())
      return;
    llvm::StringRef Name =
        Lexer::getImmediateMacroName(Loc, SM, Ctx.getLangOpts());
    if (Name.empty())
      return;
    const IdentifierInfo *II = PP.getIdentifierInfo(Name);
    const MacroInfo *MI = II ? PP.getMacroInfo(II) : nullptr;
    if (!MI || !MI->isObjectLike() || MI->getNumTokens() != 1 ||
        !MI->getReplacementToken(0).is(tok::numeric_constant))
      return;
    if (!isUserCode(MI->getDefinitionLoc()))
      return;
    L.MacroName = Name.str();
    for (auto &[N, _] : M.Macros)
      if (N == L.MacroName)
        return;
    const Token &Tok = MI->getReplacementToken(0);
    std::string Text(Tok.getLiteralData(), Tok.getLength());
    M.Macros.emplace_back(L.MacroName, "#define " + L.MacroName + " " + Text);
  }

  /// A file-scope constant (FileConstants.h) read as its value and printed
  /// by its name, which a translation declares again with that value.
  ExprPtr lowerFileConstant(const VarDecl &V, bool Qualified,
                            SourceLocation Loc) {
    auto Read = fileConstantValue(V, Qualified);
    if (const auto *Why = std::get_if<std::string>(&Read))
      return failExpr(*Why, Loc);
    const ConstantValue &C = std::get<ConstantValue>(Read);
    Type T = lowerScalar(V.getType().getUnqualifiedType(), Loc);
    std::string Name = V.getNameAsString();
    ExprPtr R;
    if (const auto *I = std::get_if<std::int64_t>(&C)) {
      auto L = std::make_unique<IntLit>(*I, T);
      L->MacroName = Name;
      R = std::move(L);
    } else {
      double D = std::get<double>(C);
      auto L = std::make_unique<FloatLit>(D, floatSpelling(D, T.Scalar), T);
      L->MacroName = Name;
      R = std::move(L);
    }
    std::string Value = valueSpelling(*R);
    for (const Module::ConstantDefinition &D : M.ConstantDefinitions)
      if (D.Name == Name)
        return D.Extents.empty() && D.Initializer == Value
                   ? std::move(R)
                   : failExpr("two file-scope constants named '" + Name +
                                  "' (of two namespaces), which a "
                                  "translation would declare at once",
                              Loc);
    M.ConstantDefinitions.push_back({Name, T, {}, Value});
    return R;
  }

  std::optional<BinaryOp> binaryOp(BinaryOperatorKind K) {
    switch (K) {
    case BO_Mul:
      return BinaryOp::Mul;
    case BO_Div:
      return BinaryOp::Div;
    case BO_Rem:
      return BinaryOp::Rem;
    case BO_Add:
      return BinaryOp::Add;
    case BO_Sub:
      return BinaryOp::Sub;
    case BO_Shl:
      return BinaryOp::Shl;
    case BO_Shr:
      return BinaryOp::Shr;
    case BO_LT:
      return BinaryOp::LT;
    case BO_GT:
      return BinaryOp::GT;
    case BO_LE:
      return BinaryOp::LE;
    case BO_GE:
      return BinaryOp::GE;
    case BO_EQ:
      return BinaryOp::EQ;
    case BO_NE:
      return BinaryOp::NE;
    case BO_And:
      return BinaryOp::BitAnd;
    case BO_Xor:
      return BinaryOp::BitXor;
    case BO_Or:
      return BinaryOp::BitOr;
    case BO_LAnd:
      return BinaryOp::LAnd;
    case BO_LOr:
      return BinaryOp::LOr;
    default:
      return std::nullopt;
    }
  }

  ExprPtr lowerExpr(const clang::Expr *E) {
    ExprPtr R = lowerExprImpl(strip(E));
    R->setLine(lineOf(E->getBeginLoc()));
    if (!Inlined.empty())
      checkNotCaptured(*R, E->getBeginLoc());
    return rewriteExpr(std::move(R), [&](Expr &X) {
      return foldThreadPosition(X, FixedBlock, FixedBlockConflict);
    });
  }

  ExprPtr lowerExprImpl(const clang::Expr *E) {
    SourceLocation Loc = E->getBeginLoc();
    // A template's integer parameter (`BS` where BS is 16): the value, not
    // the parameter's spelling, which names nothing outside the template.
    if (const auto *P = llvm::dyn_cast<SubstNonTypeTemplateParmExpr>(E)) {
      clang::Expr::EvalResult R;
      if (!P->getType()->isIntegralOrEnumerationType() ||
          !P->EvaluateAsInt(R, Ctx))
        return failExpr("a template parameter that is not an integer", Loc);
      const llvm::APSInt &V = R.Val.getInt();
      return std::make_unique<IntLit>(
          V.isUnsigned() ? std::int64_t(V.getZExtValue()) : V.getSExtValue(),
          lowerScalar(P->getType(), Loc));
    }
    if (const auto *L = llvm::dyn_cast<IntegerLiteral>(E)) {
      // 0xFFFFFFFFu is 4294967295, not -1: extend by the literal's type.
      const llvm::APInt &V = L->getValue();
      bool Unsigned = L->getType()->isUnsignedIntegerType();
      auto R = std::make_unique<IntLit>(
          Unsigned ? std::int64_t(V.getZExtValue()) : V.getSExtValue(),
          lowerScalar(L->getType(), Loc));
      R->Spelling = literalSpelling(Loc);
      noteMacro(*R, Loc);
      return R;
    }
    if (const auto *L = llvm::dyn_cast<CXXBoolLiteralExpr>(E))
      return std::make_unique<IntLit>(L->getValue() ? 1 : 0);
    // `T()` in a template: the type's zero.
    if (const auto *Z = llvm::dyn_cast<CXXScalarValueInitExpr>(E)) {
      if (!Z->getType()->isArithmeticType())
        return failExpr(describeExpr(*E), Loc);
      return zeroOf(lowerScalar(Z->getType(), Loc));
    }
    if (const auto *L = llvm::dyn_cast<CharacterLiteral>(E)) {
      auto R = std::make_unique<IntLit>(L->getValue());
      R->Spelling = literalSpelling(Loc);
      return R;
    }
    if (const auto *L = llvm::dyn_cast<FloatingLiteral>(E)) {
      std::string Text = tokenText(Loc);
      if (Text.empty())
        Text = std::to_string(L->getValueAsApproximateDouble());
      return std::make_unique<FloatLit>(L->getValueAsApproximateDouble(), Text,
                                        lowerScalar(L->getType(), Loc));
    }
    if (const auto *D = llvm::dyn_cast<DeclRefExpr>(E)) {
      const ValueDecl *VD = D->getDecl();
      if (const auto *EC = llvm::dyn_cast<EnumConstantDecl>(VD))
        return intLit(EC->getInitVal().getSExtValue());
      const auto *Var = llvm::dyn_cast<VarDecl>(VD);
      if (!Var)
        return failExpr("reference to '" + VD->getNameAsString() + "'", Loc);
      if (!Var->isLocalVarDeclOrParm()) {
        if (auto B = dialectBuiltin(Var->getName());
            B && !SM.isInMainFile(SM.getExpansionLoc(Var->getLocation()))) {
          UsesDialect = true;
          return builtin(*B);
        }
        return lowerFileConstant(*Var, D->hasQualifier(), Loc);
      }
      if (auto It = Substituted.find(Var); It != Substituted.end())
        return It->second->clone();
      if (Aliases.count(Var) || PointsAtVariable.count(Var))
        return failExpr("pointer '" + Var->getNameAsString() +
                            "' used other than to index it",
                        Loc);
      return var(nameOf(*Var), lowerType(Var->getType(), Loc));
    }
    if (const auto *PO = llvm::dyn_cast<PseudoObjectExpr>(E))
      return lowerCudaBuiltin(*PO);
    if (const auto *A = llvm::dyn_cast<ArraySubscriptExpr>(E)) {
      std::vector<ExprPtr> Indices;
      const clang::Expr *Base = E;
      while (const auto *S = llvm::dyn_cast<ArraySubscriptExpr>(strip(Base))) {
        Indices.insert(Indices.begin(), lowerExpr(S->getIdx()));
        Base = S->getBase();
      }
      const auto *BD = llvm::dyn_cast<DeclRefExpr>(strip(Base));
      const auto *BV = BD ? llvm::dyn_cast<VarDecl>(BD->getDecl()) : nullptr;
      if (BV && !BV->isLocalVarDeclOrParm()) {
        if (BV->hasAttr<CUDAConstantAttr>() ||
            BV->getType().getAddressSpace() == LangAS::opencl_constant)
          return lowerConstantArray(*BV, std::move(Indices), *A, Loc);
        const char *Space = BV->hasAttr<CUDADeviceAttr>() ? "__device__ " : "";
        return failExpr((llvm::Twine("a read of the file-scope ") + Space +
                         "array '" + BV->getName() +
                         "' (of file-scope arrays, gpumerge follows the "
                         "constant ones only)")
                            .str(),
                        Loc);
      }
      if (!BV)
        return failExpr("array access through a computed pointer", Loc);
      if (auto It = PointsAtVariable.find(BV); It != PointsAtVariable.end())
        return variablePointee(*It->second, Indices, Loc);
      if (auto It = Aliases.find(BV); It != Aliases.end()) {
        // A helper's parameter that is an array parameter of the kernel's
        // (no offset) takes its indices as they are, rows and all.
        if (!It->second.Offset && Indices.size() > 1)
          return arrayRef(*It->second.Base, std::move(Indices), A->getType(),
                          Loc);
        if (Indices.size() != 1)
          return failExpr(
              "pointer '" + BV->getNameAsString() + "' indexed twice", Loc);
        return arrayRef(*It->second.Base,
                        aliasIndex(It->second, std::move(Indices[0])),
                        A->getType(), Loc);
      }
      return arrayRef(*BV, std::move(Indices), A->getType(), Loc);
    }
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E)) {
      std::optional<UnaryOp> Op;
      switch (U->getOpcode()) {
      case UO_Minus:
        Op = UnaryOp::Neg;
        break;
      case UO_Plus:
        Op = UnaryOp::Plus;
        break;
      case UO_LNot:
        Op = UnaryOp::Not;
        break;
      case UO_Not:
        Op = UnaryOp::BitNot;
        break;
      case UO_Deref:
        return lowerDeref(*U, Loc);
      case UO_AddrOf:
        return failExpr("address-of operator", Loc);
      default:
        return failExpr("increment or decrement inside an expression", Loc);
      }
      return std::make_unique<UnaryExpr>(*Op, lowerExpr(U->getSubExpr()),
                                         lowerType(U->getType(), Loc));
    }
    if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E)) {
      if (B->isAssignmentOp())
        return failExpr("assignment inside an expression", Loc);
      auto Op = binaryOp(B->getOpcode());
      if (!Op)
        return failExpr("operator '" + B->getOpcodeStr().str() + "'", Loc);
      if (B->getLHS()->getType()->isPointerType() ||
          B->getRHS()->getType()->isPointerType())
        return failExpr("pointer arithmetic", Loc);
      ExprPtr L = lowerExpr(B->getLHS());
      ExprPtr R = B->isLogicalOp()
                      ? lowerWithoutHoisting(B->getRHS(),
                                             "after && or || (it runs only "
                                             "when the left side decides)")
                      : lowerExpr(B->getRHS());
      return std::make_unique<BinaryExpr>(*Op, std::move(L), std::move(R),
                                          lowerType(B->getType(), Loc));
    }
    if (const auto *C = llvm::dyn_cast<ConditionalOperator>(E)) {
      const char *Why = "in a branch of ?: (it runs only when chosen)";
      ExprPtr Cond = lowerExpr(C->getCond());
      ExprPtr T = lowerWithoutHoisting(C->getTrueExpr(), Why);
      ExprPtr F = lowerWithoutHoisting(C->getFalseExpr(), Why);
      return std::make_unique<SelectExpr>(std::move(Cond), std::move(T),
                                          std::move(F),
                                          lowerType(C->getType(), Loc));
    }
    if (const auto *C = llvm::dyn_cast<ExplicitCastExpr>(E))
      return std::make_unique<CastExpr>(lowerType(C->getType(), Loc),
                                        lowerExpr(C->getSubExpr()));
    if (const auto *V = llvm::dyn_cast<ExtVectorElementExpr>(E)) {
      if (V->isArrow())
        return failExpr("a vector component through a pointer", Loc);
      return std::make_unique<MemberExpr>(lowerExpr(V->getBase()),
                                          V->getAccessor().getName().str(),
                                          lowerType(V->getType(), Loc));
    }
    // CUDA's vectors: p.x, a copy of one, float4{...}, float4().
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E);
        M && isCudaVector(M->getBase()->getType())) {
      if (M->isArrow())
        return failExpr("a vector component through a pointer", Loc);
      ExprPtr Base = lowerExpr(M->getBase());
      Type Lane = Base->getType().lane();
      return std::make_unique<MemberExpr>(
          std::move(Base), M->getMemberDecl()->getNameAsString(), Lane);
    }
    if (const auto *C = llvm::dyn_cast<CXXConstructExpr>(E);
        C && isCudaVector(C->getType())) {
      const CXXConstructorDecl *Ctor = C->getConstructor();
      if (C->getNumArgs() == 1 && Ctor->isCopyOrMoveConstructor())
        return lowerExpr(C->getArg(0));
      if (C->getNumArgs() == 0 && C->requiresZeroInitialization())
        return vectorLiteral(C->getType(), {}, Loc);
      return failExpr(describeExpr(*E), Loc);
    }
    if (const auto *I = llvm::dyn_cast<InitListExpr>(E);
        I && (isCudaVector(I->getType()) || I->getType()->isVectorType()))
      return vectorLiteral(
          I->getType(), llvm::ArrayRef(I->getInits(), I->getNumInits()), Loc);
    if (const auto *C = llvm::dyn_cast<CompoundLiteralExpr>(E);
        C && C->getType()->isVectorType())
      if (const auto *I = llvm::dyn_cast<InitListExpr>(C->getInitializer()))
        return vectorLiteral(
            C->getType(), llvm::ArrayRef(I->getInits(), I->getNumInits()), Loc);
    if (const auto *S = llvm::dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
      clang::Expr::EvalResult R;
      if (S->EvaluateAsInt(R, Ctx))
        return intLit(R.Val.getInt().getExtValue());
      return failExpr("sizeof of a variable-size type", Loc);
    }
    if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E)) {
      const FunctionDecl *Callee = C->getDirectCallee();
      if (!Callee)
        return failExpr("indirect call", Loc);
      std::string Name = Callee->getNameAsString();
      if (const FunctionDecl *Def = inlinedHelper(*Callee)) {
        if (ExprPtr V = inlineCall(*C, *Def, Loc))
          return V;
        return failExpr("the value of void function '" + Name + "'", Loc);
      }
      bool Handled;
      if (ExprPtr B = lowerWorkItemCall(Name, *C, Handled); Handled)
        return B;
      if (llvm::StringRef(Name).startswith("make_") &&
          isCudaVector(C->getType()) && !isUserCode(Callee->getLocation()))
        return vectorLiteral(
            C->getType(), llvm::ArrayRef(C->getArgs(), C->getNumArgs()), Loc);
      if (llvm::StringRef(Name).startswith("atomic") ||
          llvm::StringRef(Name).startswith("atom_"))
        return failExpr("atomic operation '" + Name + "'", Loc);
      if (isWarpLevel(Name))
        return failExpr("warp-level operation '" + Name +
                            "' (it exchanges values with other threads, which "
                            "merged threads would change)",
                        Loc);
      if (Name == "__syncthreads" || Name == "barrier" ||
          Name == "gpumerge_global_sync")
        return failExpr("barrier inside an expression", Loc);
      if (Name == "__ldg" && !isUserCode(Callee->getLocation()))
        if (ExprPtr R = lowerLdg(*C, Loc))
          return R;
      std::vector<ExprPtr> Args;
      for (const clang::Expr *A : C->arguments()) {
        if (A->getType()->isPointerType())
          return failExpr("pointer argument to '" + Name + "'", Loc);
        if (llvm::isa<CXXDefaultArgExpr>(A)) // __syncwarp(), mask left out
          return failExpr("call of '" + Name + "' with a default argument",
                          Loc);
        ExprPtr Arg = lowerExpr(A);
        // An integer converted for the call (an int i to __umul24's
        // unsigned) keeps its conversion: OpenCL's overloads (mul24) need
        // arguments of one type.
        QualType From = strip(A)->getType(), To = A->getType();
        if (To->isIntegerType() && From->isIntegerType() &&
            Ctx.getCanonicalType(From) != Ctx.getCanonicalType(To) &&
            !llvm::isa<IntLit>(*Arg))
          Arg = std::make_unique<gpumerge::CastExpr>(
              lowerType(To, A->getBeginLoc()), std::move(Arg));
        Args.push_back(std::move(Arg));
      }
      // An instantiation of a helper template of the user's: the helper
      // gpumerge lowers from it (Templates.h).
      if (Callee->isTemplateInstantiation() &&
          SM.isInMainFile(SM.getExpansionLoc(Callee->getLocation()))) {
        Name = kernelInstanceName(*Callee);
        if (Name.empty())
          return failExpr("call of an instantiation of '" +
                              Callee->getNameAsString() +
                              "' whose template arguments gpumerge cannot "
                              "name a function after",
                          Loc);
      }
      return std::make_unique<gpumerge::CallExpr>(Name, std::move(Args),
                                                  lowerType(C->getType(), Loc));
    }
    return failExpr(describeExpr(*E), Loc);
  }

  /// Element \p Indices of the array \p BV names (a pointer parameter, a
  /// local or __shared__ array), of type \p Elem.
  ExprPtr arrayRef(const VarDecl &BV, std::vector<ExprPtr> Indices,
                   QualType Elem, SourceLocation Loc) {
    auto R = std::make_unique<ArrayRef>(nameOf(BV), std::move(Indices),
                                        lowerScalar(Elem, Loc));
    QualType BT = BV.getType();
    if (BT->isPointerType())
      R->Space = lowerSpace(BT->getPointeeType().getAddressSpace());
    else
      R->Space = BV.hasAttr<CUDASharedAttr>() ||
                         BT.getAddressSpace() == LangAS::opencl_local
                     ? AddressSpace::Shared
                     : AddressSpace::Private;
    if (BT->isPointerType() && R->Space == AddressSpace::Private)
      R->Space = AddressSpace::Global;
    return R;
  }

  /// `*p`, `*(p + i)`, `*(i + p)`, `*(p - 1 + i)` of a pointer parameter (or
  /// local pointer) to scalars: p[0], p[i], p[-1 + i]. Other dereferences
  /// are refused.
  ExprPtr lowerDeref(const clang::UnaryOperator &U, SourceLocation Loc) {
    return lowerPointee(U.getSubExpr(), U.getType(), Loc);
  }

  /// The element \p Pointer points at, of type \p Elem: `p + i - 1` as
  /// p[i - 1], where p is a pointer parameter or local.
  ExprPtr lowerPointee(const clang::Expr *Pointer, QualType Elem,
                       SourceLocation Loc) {
    std::optional<PointerChain> C = pointerChain(Pointer);
    const VarDecl *V = C ? C->Base : nullptr;
    if (!V || !V->isLocalVarDeclOrParm() || !pointsToElements(*V))
      return failExpr("pointer dereference", Loc);
    ExprPtr Index = sumOffsets(C->Offsets);
    if (auto It = PointsAtVariable.find(V); It != PointsAtVariable.end()) {
      std::vector<ExprPtr> Indices;
      Indices.push_back(Index ? std::move(Index) : intLit(0));
      return variablePointee(*It->second, Indices, Loc);
    }
    if (auto It = Aliases.find(V); It != Aliases.end())
      return arrayRef(
          *It->second.Base,
          aliasIndex(It->second, Index ? std::move(Index) : intLit(0)), Elem,
          Loc);
    std::vector<ExprPtr> Indices;
    Indices.push_back(Index ? std::move(Index) : intLit(0));
    return arrayRef(*V, std::move(Indices), Elem, Loc);
  }

  /// Does pointer \p V point at scalars or vectors (not at pointers or
  /// rows of a 2-D array)?
  static bool pointsToElements(const VarDecl &V) {
    QualType Pointee = V.getType()->getPointeeType();
    return !Pointee->isPointerType() && !Pointee->isArrayType();
  }

  /// The offsets of a pointer chain added up (`- i + 1`, the first
  /// negated), or null for none.
  ExprPtr
  sumOffsets(const std::vector<std::pair<const clang::Expr *, bool>> &Offsets) {
    ExprPtr Sum;
    for (const auto &[Offset, Negated] : Offsets) {
      ExprPtr X = lowerExpr(Offset);
      if (!Sum) {
        Type T = X->getType();
        Sum = Negated
                  ? std::make_unique<UnaryExpr>(UnaryOp::Neg, std::move(X), T)
                  : std::move(X);
        continue;
      }
      Type T = Sum->getType();
      Sum =
          std::make_unique<BinaryExpr>(Negated ? BinaryOp::Sub : BinaryOp::Add,
                                       std::move(Sum), std::move(X), T);
    }
    return Sum;
  }

  /// The index of \p A's element \p Index in its array parameter (its
  /// first element, `*out`, at the offset unwidened: nothing is added).
  static std::vector<ExprPtr> aliasIndex(const Alias &A, ExprPtr Index) {
    std::vector<ExprPtr> Out;
    const auto *Zero = llvm::dyn_cast<IntLit>(Index.get());
    if (!A.Offset)
      Out.push_back(std::move(Index));
    else if (Zero && Zero->Value == 0)
      Out.push_back(llvm::isa<gpumerge::CastExpr>(*A.Offset)
                        ? llvm::cast<gpumerge::CastExpr>(*A.Offset).Sub->clone()
                        : A.Offset->clone());
    else
      Out.push_back(add(A.Offset->clone(), std::move(Index)));
    return Out;
  }

  /// `const float *row = a + i * w;` (or `= &a[i * w]`, or into another
  /// such pointer): a local pointer into an array parameter that is never
  /// moved, whose offset's variables do not change while it is in scope
  /// (set once, or iterators of the loops around it) and read no array the
  /// kernel writes. Its elements are read as the parameter's (`row[j]` is
  /// a[i * w + j]), the offset widened to 64 bits as pointer arithmetic
  /// has it; the declaration itself is left out. True when \p D is such a
  /// pointer, or a local pointer refused as one (with the reason).
  bool lowerPointerAlias(const Decl *D) {
    const auto *V = llvm::dyn_cast<VarDecl>(D);
    if (!V || !V->getType()->isPointerType() || !V->hasInit() ||
        V->hasAttr<CUDASharedAttr>() || !V->isLocalVarDecl())
      return false;
    SourceLocation Loc = V->getBeginLoc();
    std::string Name = "pointer '" + V->getNameAsString() + "'";
    std::optional<PointerChain> C = pointerChain(V->getInit());
    if (!C) {
      fail(Name + " set to what is not an array parameter plus an offset", Loc);
      return true;
    }
    if (Changed.Variables.count(V)) {
      fail(Name + " moved after its declaration", Loc);
      return true;
    }
    const VarDecl *Base = C->Base;
    ExprPtr Offset;
    if (PointsAtVariable.count(Base)) {
      fail(Name + " set to a pointer to a variable", Loc);
      return true;
    }
    if (auto It = Aliases.find(Base); It != Aliases.end()) {
      Base = It->second.Base;
      if (It->second.Offset)
        Offset = It->second.Offset->clone();
    } else if (!llvm::isa<ParmVarDecl>(Base) || !pointsToElements(*Base) ||
               Changed.Variables.count(Base)) {
      fail(Name + " into '" + Base->getNameAsString() +
               "', which is not an array parameter the kernel keeps",
           Loc);
      return true;
    }
    if (!Ctx.hasSameUnqualifiedType(V->getType()->getPointeeType(),
                                    Base->getType()->getPointeeType())) {
      fail(Name + " to another element type than '" + Base->getNameAsString() +
               "'",
           Loc);
      return true;
    }
    for (const auto &[E, Negated] : C->Offsets)
      if (std::string Why = unstableOffset(*E); !Why.empty()) {
        fail(Name + " offset by " + Why, Loc);
        return true;
      }
    if (ExprPtr More = sumOffsets(C->Offsets)) {
      // Pointer arithmetic does not wrap where an int sum would: a
      // variable offset of 32 bits is widened (`(long long)(i * w) + j`).
      bool Wide = More->getType().Scalar == ScalarKind::Long ||
                  More->getType().Scalar == ScalarKind::ULong;
      if (!Wide && !llvm::isa<IntLit>(*More))
        More = std::make_unique<gpumerge::CastExpr>(
            Type::scalar(ScalarKind::Long), std::move(More));
      Offset =
          Offset ? add(std::move(Offset), std::move(More)) : std::move(More);
    }
    Aliases[V] = {Base, std::move(Offset)};
    return true;
  }

  /// Why offset \p E may change between a pointer's declaration and its
  /// uses ("'k', which changes"); empty when it cannot.
  std::string unstableOffset(const clang::Expr &E) {
    std::string Why;
    std::function<void(const clang::Stmt *)> Visit = [&](const clang::Stmt *S) {
      if (!S || !Why.empty())
        return;
      if (const auto *R = llvm::dyn_cast<DeclRefExpr>(S))
        if (const auto *X = llvm::dyn_cast<VarDecl>(R->getDecl())) {
          if (Changed.Variables.count(X) && !llvm::is_contained(LoopIters, X))
            Why = "'" + X->getNameAsString() + "', which changes";
          else if (X->getType()->isPointerType() && Changed.Arrays.count(X))
            Why = "an element of '" + X->getNameAsString() +
                  "', which the kernel writes";
        }
      if (llvm::isa<clang::CallExpr>(S))
        Why = "a call";
      for (const clang::Stmt *Child : S->children())
        Visit(Child);
    };
    Visit(&E);
    return Why;
  }

  /// CUDA's `__ldg(&a[i])` or `__ldg(a + i)`: a load through the read-only
  /// data cache, which reads a[i] as a plain load does wherever the kernel
  /// does not write what it reads so (the texture variant puts such reads
  /// through the cache again where it may). Null when the argument is not
  /// an element of an array gpumerge follows.
  ExprPtr lowerLdg(const clang::CallExpr &C, SourceLocation Loc) {
    if (C.getNumArgs() != 1)
      return nullptr;
    const clang::Expr *Arg = strip(C.getArg(0));
    QualType Elem = C.getType();
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(Arg);
        U && U->getOpcode() == UO_AddrOf) {
      if (!llvm::isa<ArraySubscriptExpr>(strip(U->getSubExpr())))
        return nullptr;
      ExprPtr R = lowerExpr(U->getSubExpr());
      return llvm::isa<ArrayRef>(R.get()) ? std::move(R) : nullptr;
    }
    if (!Arg->getType()->isPointerType())
      return nullptr;
    return lowerPointee(Arg, Elem, Loc);
  }

  /// A built-in whose value or effect involves the other threads of a warp
  /// or sub-group, or of the block beyond a barrier: __shfl_down_sync,
  /// __ballot_sync, __syncwarp, __syncthreads_or, OpenCL's sub_group_* and
  /// work_group_*. Read as a plain call, thread merge would pair each
  /// thread with another's lane.
  static bool isWarpLevel(llvm::StringRef Name) {
    for (llvm::StringRef Prefix :
         {"__shfl", "__ballot", "__any", "__all", "__activemask", "__syncwarp",
          "__match_", "__reduce_", "__syncthreads_", "sub_group_",
          "work_group_", "intel_sub_group", "get_sub_group",
          "get_num_sub_group", "get_max_sub_group",
          "get_enqueued_num_sub_group"})
      if (Name.startswith(Prefix))
        return true;
    return false;
  }

  /// What \p E is, in the words of the language, with its text: the reason
  /// a kernel is passed through (never a Clang class name).
  std::string describeExpr(const clang::Expr &E) const {
    std::string Text = sourceText(E.getSourceRange());
    std::string Quoted = Text.empty() ? "" : " '" + Text + "'";
    std::string Type = E.getType().getAsString();
    if (Type.find("texture<") != std::string::npos)
      return "texture reference" + Quoted +
             " (texture references are read "
             "as written; gpumerge's texture variant uses texture objects)";
    if (llvm::isa<CXXConstructExpr>(E) || llvm::isa<CXXTemporaryObjectExpr>(E))
      return "construction of a '" + Type + "' value" + Quoted;
    if (llvm::isa<InitListExpr>(E))
      return "initializer list" + Quoted;
    if (llvm::isa<clang::MemberExpr>(E))
      return "member access" + Quoted;
    if (llvm::isa<ExtVectorElementExpr>(E))
      return "vector component" + Quoted;
    if (llvm::isa<AsTypeExpr>(E))
      return "as_type reinterpretation" + Quoted;
    if (llvm::isa<CXXOperatorCallExpr>(E))
      return "overloaded operator" + Quoted;
    if (llvm::isa<CXXMemberCallExpr>(E))
      return "member function call" + Quoted;
    if (llvm::isa<LambdaExpr>(E))
      return "lambda";
    if (llvm::isa<CompoundLiteralExpr>(E))
      return "compound literal" + Quoted;
    if (llvm::isa<UnaryExprOrTypeTraitExpr>(E))
      return "sizeof or alignof" + Quoted;
    return "expression" + (Quoted.empty() ? " of a kind gpumerge does not "
                                            "handle"
                                          : Quoted);
  }

  /// The user's text of \p R (one line, at most 60 characters), or empty.
  std::string sourceText(SourceRange R) const {
    CharSourceRange C = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
    if (C.isInvalid())
      return "";
    std::string T = Lexer::getSourceText(C, SM, Ctx.getLangOpts()).str();
    std::replace(T.begin(), T.end(), '\n', ' ');
    if (T.size() > 60)
      T = T.substr(0, 57) + "...";
    return T;
  }

  // --- helpers that take pointers, inlined (Inlining.h) ------------------

  /// \p V's name in the function lowered: a helper's local or parameter
  /// under the name it was declared with there.
  std::string nameOf(const VarDecl &V) const {
    auto It = Renamed.find(&V);
    return It != Renamed.end() ? It->second : V.getNameAsString();
  }

  /// \p Base, or `Base_1`, `Base_2` ...: a name that nothing in the
  /// function lowered declares or refers to yet, now declared.
  std::string freshName(const std::string &Base) {
    std::string Name = Base;
    for (unsigned N = 1; TakenNames.count(Name); ++N)
      Name = Base + "_" + std::to_string(N);
    TakenNames.insert(Name);
    DeclaredNames.insert(Name);
    return Name;
  }

  /// A local of an inlined helper gets a name of its own in the function
  /// lowered (it may be inlined twice, or share a name with the kernel's).
  void declareLocal(const VarDecl &V) {
    if (!Inlined.empty())
      Renamed[&V] = freshName(V.getNameAsString());
  }

  /// `p[0]` or `*p` where a helper's pointer p points at variable \p V.
  ExprPtr variablePointee(const VarDecl &V, const std::vector<ExprPtr> &Index,
                          SourceLocation Loc) {
    const auto *Zero =
        Index.size() == 1 ? llvm::dyn_cast<IntLit>(Index[0].get()) : nullptr;
    if (!Zero || Zero->Value != 0)
      return failExpr("a pointer to the variable '" + nameOf(V) +
                          "' read at an offset",
                      Loc);
    return var(nameOf(V), lowerType(V.getType(), Loc));
  }

  /// Runs \p Lower, which adds statements to its argument, and puts them
  /// into \p Into after what the inlined calls among them put before them.
  template <typename LowerFn> void hoistInto(BlockStmt &Into, LowerFn Lower) {
    std::vector<StmtPtr> Outer = std::exchange(Hoisted, {});
    std::vector<StmtPtr> Made;
    Lower(Made);
    for (StmtPtr &S : Hoisted)
      Into.Body.push_back(std::move(S));
    for (StmtPtr &S : Made)
      if (S)
        Into.Body.push_back(std::move(S));
    Hoisted = std::move(Outer);
  }

  /// \p E lowered where no statement can be put before it, for \p Why.
  ExprPtr lowerWithoutHoisting(const clang::Expr *E, const char *Why) {
    const char *Outer = std::exchange(NoHoist, Why);
    ExprPtr R = lowerExpr(E);
    NoHoist = Outer;
    return R;
  }

  /// The definition of \p Callee where a call of it is lowered as its body.
  const FunctionDecl *inlinedHelper(const FunctionDecl &Callee) const {
    const FunctionDecl *Def = nullptr;
    if (!Callee.hasBody(Def) || !Def || isKernelDecl(*Def) ||
        !isUserCode(Def->getLocation()) || !takesPointers(*Def))
      return nullptr;
    return Def;
  }

  /// \p E as a value of type \p T: converted where its type is another
  /// (the conversions C makes at a call and a return, which KIR spells).
  static ExprPtr convertTo(ExprPtr E, const gpumerge::Type &T) {
    const gpumerge::Type &From = E->getType();
    if (From.Scalar == T.Scalar && From.VectorWidth == T.VectorWidth &&
        From.IsPointer == T.IsPointer)
      return E;
    gpumerge::Type To = T;
    To.IsConst = false;
    return std::make_unique<gpumerge::CastExpr>(To, std::move(E));
  }

  /// Is \p E cheap and fixed enough to stand for a parameter wherever the
  /// helper reads it: a literal, a built-in, or a variable that \p Callee's
  /// body cannot change (its address is not an argument)?
  bool isPlainValue(const Expr &E, const std::set<std::string> &Written) {
    if (const auto *C = llvm::dyn_cast<gpumerge::CastExpr>(&E))
      return isPlainValue(*C->Sub, Written);
    if (const auto *V = llvm::dyn_cast<VarRef>(&E))
      return !Written.count(V->Name);
    return llvm::isa<IntLit>(E) || llvm::isa<FloatLit>(E) ||
           llvm::isa<BuiltinRef>(E);
  }

  /// Binds \p P, a pointer parameter of \p Callee, to argument \p Arg: as
  /// the array the argument points into (an array parameter or a local or
  /// shared array, at the argument's offset), or as the variable it points
  /// at. \p Fixed: the offset must read nothing the body may change (it is
  /// read again at every use). False, with the failure, where it cannot.
  bool bindPointer(const ParmVarDecl &P, const clang::Expr *Arg,
                   const std::string &Callee, bool Fixed, SourceLocation Loc) {
    std::string Why = "pointer argument '" + sourceText(Arg->getSourceRange()) +
                      "' to '" + Callee + "'";
    const clang::Expr *A = Arg->IgnoreParenImpCasts();
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(A);
        U && U->getOpcode() == UO_AddrOf) {
      const auto *R =
          llvm::dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts());
      const auto *X = R ? llvm::dyn_cast<VarDecl>(R->getDecl()) : nullptr;
      if (X && X->isLocalVarDeclOrParm() && !X->getType()->isArrayType() &&
          !X->getType()->isPointerType() && !Substituted.count(X) &&
          !X->hasAttr<CUDASharedAttr>()) {
        PointsAtVariable[&P] = X;
        return true;
      }
    }
    std::optional<PointerChain> C = pointerChain(A, /*ArrayBases=*/true);
    if (!C) {
      fail(Why + ", which is not an array plus an offset", Loc);
      return false;
    }
    if (auto It = PointsAtVariable.find(C->Base);
        It != PointsAtVariable.end()) {
      if (!C->Offsets.empty()) {
        fail(Why + ", a pointer to a variable moved", Loc);
        return false;
      }
      PointsAtVariable[&P] = It->second;
      return true;
    }
    const VarDecl *Base = C->Base;
    ExprPtr Offset;
    QualType BaseType = Base->getType();
    if (auto It = Aliases.find(Base); It != Aliases.end()) {
      Base = It->second.Base;
      if (It->second.Offset)
        Offset = It->second.Offset->clone();
    } else if (BaseType->isPointerType()) {
      if (!llvm::isa<ParmVarDecl>(Base) || Changed.Variables.count(Base)) {
        fail(Why + ", which points into '" + Base->getNameAsString() +
                 "', not an array parameter the kernel keeps",
             Loc);
        return false;
      }
    } else if (!Base->isLocalVarDecl()) {
      fail(Why + ", which is not an array parameter or a local array", Loc);
      return false;
    }
    QualType Elem = BaseType->isPointerType()
                        ? BaseType->getPointeeType()
                        : Ctx.getAsArrayType(BaseType)->getElementType();
    if (!Ctx.hasSameUnqualifiedType(P.getType()->getPointeeType(), Elem)) {
      fail(Why + " to another element type", Loc);
      return false;
    }
    if (Fixed)
      for (const auto &[E, Negated] : C->Offsets)
        if (const char *Reads = readsMemoryOrCalls(*E)) {
          fail(Why + " offset by " + Reads, Loc);
          return false;
        }
    if (ExprPtr More = sumOffsets(C->Offsets))
      Offset = Offset ? add(std::move(Offset), widenedOffset(std::move(More)))
                      : widenedOffset(std::move(More));
    // A row pointer (`double phi[][NY]`) takes the indices of the array it
    // names, which an offset would shift by rows, not elements.
    if (Offset && P.getType()->getPointeeType()->isArrayType()) {
      fail(Why + ", a row at an offset", Loc);
      return false;
    }
    Aliases[&P] = {Base, std::move(Offset)};
    return true;
  }

  /// "an array element" or "a call" where \p E reads one, which a helper
  /// inlined may change before it reads \p E again; null for neither.
  static const char *readsMemoryOrCalls(const clang::Stmt &E) {
    if (llvm::isa<ArraySubscriptExpr>(E))
      return "an array element";
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(&E);
        U && U->getOpcode() == UO_Deref)
      return "an array element";
    if (llvm::isa<clang::CallExpr>(E))
      return "a call";
    for (const clang::Stmt *C : E.children())
      if (C)
        if (const char *R = readsMemoryOrCalls(*C))
          return R;
    return nullptr;
  }

  /// A variable offset of 32 bits widened to 64 (`(long long)(i * w)`):
  /// pointer arithmetic does not wrap where an int sum would.
  static ExprPtr widenedOffset(ExprPtr More) {
    bool Wide = More->getType().Scalar == ScalarKind::Long ||
                More->getType().Scalar == ScalarKind::ULong;
    if (!Wide && !llvm::isa<IntLit>(*More))
      More = std::make_unique<gpumerge::CastExpr>(
          Type::scalar(ScalarKind::Long), std::move(More));
    return More;
  }

  /// How a helper's result reaches the expression that called it: the
  /// variable its returns store (none for void), declared by the only
  /// return where the body ends in its only one.
  struct InlineResult {
    std::string Name;
    gpumerge::Type T;
    bool Declare = false;
  };

  /// The call \p C of helper \p Def (Inlining.h) lowered as its body: a
  /// body `{ return E; }` as E, its parameters read as the arguments; any
  /// other before the statement that calls it (Hoisted), its parameters
  /// and locals declared under names of their own and its returns stored
  /// to a result, which is the call's value. Null for a void helper.
  ExprPtr inlineCall(const clang::CallExpr &C, const FunctionDecl &Def,
                     SourceLocation Loc) {
    std::string Name = Def.getNameAsString();
    for (const InlineFrame &F : Inlined)
      if (F.Callee == &Def)
        return failExpr("recursive call of '" + Name + "'", Loc);
    if (Inlined.size() >= 8)
      return failExpr("helpers that take pointers called more than 8 deep",
                      Loc);
    if (C.getNumArgs() != Def.getNumParams() || Def.isVariadic())
      return failExpr("call of '" + Name + "' with a default argument", Loc);
    const auto *Body = llvm::dyn_cast<CompoundStmt>(Def.getBody());
    Assigned Own = assignedIn(*Body);
    // The names it refers to at file scope stay free for its locals.
    for (const std::string &G : fileScopeNamesIn(Def))
      TakenNames.insert(G);
    std::optional<ReturnChain> Value = returnChain(Def);
    for (const ParmVarDecl *P : Def.parameters())
      if (Own.Variables.count(P))
        Value.reset(); // a parameter it changes is declared
    if (!Value && NoHoist)
      return failExpr(
          "call of '" + Name + "', which gpumerge inlines, " + NoHoist, Loc);
    Changed.Variables.insert(Own.Variables.begin(), Own.Variables.end());
    Changed.Arrays.insert(Own.Arrays.begin(), Own.Arrays.end());

    // The arguments, lowered where the call is.
    bool Fixed = !Value;
    std::set<std::string> Written; // variables the body may change
    std::vector<std::pair<const ParmVarDecl *, ExprPtr>> Values;
    for (unsigned I = 0; I < Def.getNumParams(); ++I) {
      const ParmVarDecl *P = Def.getParamDecl(I);
      const clang::Expr *Arg = C.getArg(I);
      if (llvm::isa<CXXDefaultArgExpr>(Arg))
        return failExpr("call of '" + Name + "' with a default argument", Loc);
      QualType T = P->getType();
      if (T->isPointerType()) {
        if (!bindPointer(*P, Arg, Name, Fixed, Loc))
          return intLit(0);
        if (auto It = PointsAtVariable.find(P); It != PointsAtVariable.end())
          Written.insert(nameOf(*It->second));
        continue;
      }
      if (T->isReferenceType() && !T->getPointeeType().isConstQualified()) {
        const clang::Expr *A = strip(Arg);
        const auto *R = llvm::dyn_cast<DeclRefExpr>(A);
        const auto *X = R ? llvm::dyn_cast<VarDecl>(R->getDecl()) : nullptr;
        if (!(X && X->isLocalVarDeclOrParm()) &&
            !llvm::isa<ArraySubscriptExpr>(A))
          return failExpr("reference argument '" +
                              sourceText(Arg->getSourceRange()) + "' to '" +
                              Name + "', which is not a variable or an element",
                          Loc);
        if (const char *Reads =
                llvm::isa<ArraySubscriptExpr>(A)
                    ? readsMemoryOrCalls(
                          *llvm::cast<ArraySubscriptExpr>(A)->getIdx())
                    : nullptr)
          return failExpr("reference argument '" +
                              sourceText(Arg->getSourceRange()) + "' to '" +
                              Name + "' indexed by " + Reads,
                          Loc);
        ExprPtr L = lowerExpr(A);
        if (const auto *V = llvm::dyn_cast<VarRef>(L.get()))
          Written.insert(V->Name);
        Substituted[P] = std::move(L);
        continue;
      }
      Values.emplace_back(
          P, convertTo(lowerExpr(Arg),
                       lowerType(T.getNonReferenceType(), P->getBeginLoc())));
    }
    // What an offset or an element index reads stays as it was while the
    // body runs.
    for (const ParmVarDecl *P : Def.parameters()) {
      std::vector<const Expr *> Fixed; // offsets and element indices
      if (auto It = Aliases.find(P); It != Aliases.end() && It->second.Offset)
        Fixed.push_back(It->second.Offset.get());
      if (auto It = Substituted.find(P); It != Substituted.end())
        if (const auto *A = llvm::dyn_cast<ArrayRef>(It->second.get()))
          for (const ExprPtr &X : A->Indices)
            Fixed.push_back(X.get());
      std::string Moved;
      for (const Expr *F : Fixed)
        walkExpr(*F, [&](const Expr &X) {
          const auto *V = llvm::dyn_cast<VarRef>(&X);
          if (V && Written.count(V->Name))
            Moved = V->Name;
        });
      if (!Moved.empty())
        return failExpr("argument of '" + Name + "' at an offset of '" + Moved +
                            "', which it changes",
                        Loc);
    }

    Inlined.push_back(
        {&Def, Inlined.empty() ? lineOf(Loc) : Inlined.front().CallLine});
    auto Block = std::make_unique<BlockStmt>();
    for (auto &[P, V] : Values) {
      if (!Own.Variables.count(P) && (Value || isPlainValue(*V, Written))) {
        Substituted[P] = std::move(V);
        continue;
      }
      Renamed[P] = freshName(P->getNameAsString());
      Block->Body.push_back(withLine(
          std::make_unique<gpumerge::DeclStmt>(
              Renamed[P],
              lowerType(P->getType().getNonReferenceType(), P->getBeginLoc()),
              std::move(V)),
          P->getBeginLoc()));
    }
    gpumerge::Type RT = lowerType(Def.getReturnType(), Def.getBeginLoc());
    ExprPtr Result;
    if (Value) {
      Result = lowerReturnChain(*Value, RT);
    } else {
      InlineResult R;
      if (RT.Scalar != ScalarKind::Void) {
        R.Name = freshName(Name + "_result");
        R.T = RT;
        R.T.IsConst = false;
        R.Declare = returnsOnlyAtEnd(*Body) && !Body->body_empty() &&
                    llvm::isa<clang::ReturnStmt>(Body->body_back());
        if (!R.Declare)
          Block->Body.push_back(withLine(
              std::make_unique<gpumerge::DeclStmt>(R.Name, R.T, nullptr), Loc));
        Result = var(R.Name, R.T);
      }
      lowerInlinedList(statementsOf(Body), R, *Block);
      for (StmtPtr &S : Block->Body)
        Hoisted.push_back(std::move(S));
    }
    Inlined.pop_back();
    for (const ParmVarDecl *P : Def.parameters()) {
      Substituted.erase(P);
      Aliases.erase(P);
      PointsAtVariable.erase(P);
    }
    return Result;
  }

  /// A helper's body of returns only (ReturnChain) as the expression `c1 ?
  /// a1 : c2 ? a2 : b` of type \p RT. All but the first condition run only
  /// as chosen, so what they call puts nothing before the call.
  ExprPtr lowerReturnChain(const ReturnChain &Chain, const gpumerge::Type &RT) {
    const char *Why = "in a helper's return after another (it runs only "
                      "when chosen)";
    std::vector<std::pair<ExprPtr, ExprPtr>> Cases;
    for (const auto &[Cond, Value] : Chain.Cases) {
      ExprPtr C =
          Cases.empty() ? lowerExpr(Cond) : lowerWithoutHoisting(Cond, Why);
      Cases.emplace_back(std::move(C),
                         convertTo(lowerWithoutHoisting(Value, Why), RT));
    }
    ExprPtr R = convertTo(Cases.empty() ? lowerExpr(Chain.Last)
                                        : lowerWithoutHoisting(Chain.Last, Why),
                          RT);
    gpumerge::Type T = RT;
    T.IsConst = false;
    for (auto It = Cases.rbegin(); It != Cases.rend(); ++It)
      R = std::make_unique<SelectExpr>(std::move(It->first),
                                       std::move(It->second), std::move(R), T);
    return R;
  }

  /// The statements \p List of an inlined helper's body into \p Into, each
  /// return a store of its value to \p R. An if that returns takes the rest
  /// of the list into the branches that do not: `if (c) return a; s; return
  /// b;` is `if (c) r = a; else { s; r = b; }`.
  void lowerInlinedList(std::vector<const clang::Stmt *> List,
                        const InlineResult &R, BlockStmt &Into) {
    for (size_t I = 0; I < List.size(); ++I) {
      const clang::Stmt *S = List[I];
      if (++InlinedStatements > 4096) {
        fail("helpers that take pointers inlined into more than 4096 "
             "statements",
             S->getBeginLoc());
        return;
      }
      if (const auto *Ret = llvm::dyn_cast<clang::ReturnStmt>(S)) {
        storeResult(*Ret, R, Into);
        return; // what follows never runs
      }
      if (!containsReturn(S)) {
        lowerInto(S, Into);
        continue;
      }
      std::vector<const clang::Stmt *> Rest(List.begin() + I + 1, List.end());
      if (llvm::isa<CompoundStmt>(S)) { // its locals have names of their own
        std::vector<const clang::Stmt *> Inner = statementsOf(S);
        Inner.insert(Inner.end(), Rest.begin(), Rest.end());
        lowerInlinedList(std::move(Inner), R, Into);
        return;
      }
      const auto *If = llvm::dyn_cast<clang::IfStmt>(S);
      if (!If || If->getInit() || If->getConditionVariable()) {
        fail("return inside a loop or a switch of '" +
                 Inlined.back().Callee->getNameAsString() + "'",
             S->getBeginLoc());
        return;
      }
      auto Branch = [&](const clang::Stmt *B) -> StmtPtr {
        std::vector<const clang::Stmt *> L = statementsOf(B);
        if (!alwaysReturns(B))
          L.insert(L.end(), Rest.begin(), Rest.end());
        if (L.empty())
          return nullptr;
        auto Block = std::make_unique<BlockStmt>();
        lowerInlinedList(std::move(L), R, *Block);
        return withLine(std::move(Block),
                        B ? B->getBeginLoc() : If->getEndLoc());
      };
      hoistInto(Into, [&](std::vector<StmtPtr> &Out) {
        ExprPtr Cond = lowerExpr(If->getCond());
        StmtPtr Then = Branch(If->getThen());
        if (!Then)
          Then = std::make_unique<BlockStmt>();
        StmtPtr Else = Branch(If->getElse());
        Out.push_back(
            withLine(std::make_unique<gpumerge::IfStmt>(
                         std::move(Cond), std::move(Then), std::move(Else)),
                     If->getBeginLoc()));
      });
      return;
    }
  }

  /// `return e;` of an inlined helper: e stored to its result.
  void storeResult(const clang::ReturnStmt &Ret, const InlineResult &R,
                   BlockStmt &Into) {
    if (!Ret.getRetValue() || R.Name.empty())
      return;
    hoistInto(Into, [&](std::vector<StmtPtr> &Out) {
      ExprPtr V = convertTo(lowerExpr(Ret.getRetValue()), R.T);
      if (R.Declare)
        Out.push_back(
            std::make_unique<gpumerge::DeclStmt>(R.Name, R.T, std::move(V)));
      else
        Out.push_back(std::make_unique<AssignStmt>(
            var(R.Name, R.T), AssignOp::Set, std::move(V)));
      Out.back()->setLine(lineOf(Ret.getBeginLoc()));
    });
  }

  /// A name an inlined helper refers to at file scope (a constant, a macro,
  /// a helper it calls) that the function lowered declares for a variable
  /// of its own, which would stand for it where the body is inlined.
  void checkNotCaptured(const Expr &E, SourceLocation Loc) {
    walkExpr(E, [&](const Expr &X) {
      std::string N;
      if (const auto *I = llvm::dyn_cast<IntLit>(&X))
        N = I->MacroName;
      else if (const auto *F = llvm::dyn_cast<FloatLit>(&X))
        N = F->MacroName;
      else if (const auto *A = llvm::dyn_cast<ArrayRef>(&X);
               A && A->Space == AddressSpace::Constant)
        N = A->Array;
      else if (const auto *C = llvm::dyn_cast<gpumerge::CallExpr>(&X))
        N = C->Callee;
      if (!N.empty() && DeclaredNames.count(N))
        fail("'" + N + "', which names a variable where it is inlined", Loc);
    });
  }

  // --- statements -------------------------------------------------------

  StmtPtr withLine(StmtPtr S, SourceLocation L) {
    S->setLine(lineOf(L));
    return S;
  }

  /// \p S into \p Into, after what the helpers it calls put before it.
  void lowerInto(const clang::Stmt *S, BlockStmt &Into) {
    if (const auto *DS = llvm::dyn_cast<clang::DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        hoistInto(Into, [&](std::vector<StmtPtr> &Out) {
          if (lowerPointerAlias(D))
            return;
          std::vector<StmtPtr> Stores;
          Out.push_back(lowerVarDecl(D, Stores));
          for (StmtPtr &St : Stores)
            Out.push_back(std::move(St));
        });
      return;
    }
    if (llvm::isa<NullStmt>(S))
      return;
    if (const auto *W = llvm::dyn_cast<WhileStmt>(S))
      if (StmtPtr L = lowerWhileAsFor(*W, Into)) {
        Into.Body.push_back(std::move(L));
        return;
      }
    hoistInto(Into, [&](std::vector<StmtPtr> &Out) {
      Out.push_back(lowerOneStmt(S));
    });
  }

  /// \p D as a declaration; an initialized local array's elements are
  /// stored by the statements of \p Stores, after it.
  StmtPtr lowerVarDecl(const Decl *D, std::vector<StmtPtr> &Stores) {
    const auto *V = llvm::dyn_cast<VarDecl>(D);
    if (!V)
      return failStmt("declaration in a kernel", D->getBeginLoc());
    declareLocal(*V);
    QualType Q = V->getType();
    std::vector<std::int64_t> Extents;
    while (const auto *A = Ctx.getAsConstantArrayType(Q)) {
      Extents.push_back(A->getSize().getSExtValue());
      Q = A->getElementType();
    }
    if (Q->isArrayType())
      return failStmt("variable-length array '" + V->getNameAsString() + "'",
                      V->getBeginLoc());
    Type T = lowerType(Q, V->getBeginLoc());
    if (V->hasAttr<CUDASharedAttr>() ||
        V->getType().getAddressSpace() == LangAS::opencl_local) {
      if (Q.isVolatileQualified()) // warp-synchronous code
        return failStmt("volatile shared array '" + V->getNameAsString() + "'",
                        V->getBeginLoc());
      T.Space = AddressSpace::Shared;
    } else if (V->isStaticLocal())
      return failStmt("static local variable", V->getBeginLoc());
    ExprPtr Init;
    // `float4 v;`: CUDA's vectors have a trivial default constructor.
    const auto *Construct =
        V->hasInit() ? llvm::dyn_cast<CXXConstructExpr>(strip(V->getInit()))
                     : nullptr;
    bool Uninitialized = Construct && Construct->getNumArgs() == 0 &&
                         !Construct->requiresZeroInitialization() &&
                         Construct->getConstructor()->isTrivial();
    if (V->hasInit() && !Uninitialized) {
      if (!Extents.empty()) {
        if (T.Space == AddressSpace::Shared || Extents.size() != 1 ||
            T.VectorWidth != 1)
          return failStmt("initialized local array", V->getBeginLoc());
        Stores = arrayInitStores(*V, T, Extents[0]);
      } else {
        Init = lowerExpr(V->getInit());
      }
    }
    auto DS =
        std::make_unique<gpumerge::DeclStmt>(nameOf(*V), T, std::move(Init));
    DS->Extents = Extents;
    return withLine(std::move(DS), V->getBeginLoc());
  }

  /// `int cases[3] = {1, 1, 1};`, `float acc[8] = {0};`: a store of each
  /// element (the ones the list leaves out are zero), so the passes see the
  /// array as written element by element. \p T: the element type.
  std::vector<StmtPtr> arrayInitStores(const VarDecl &V, const Type &T,
                                       std::int64_t Count) {
    std::vector<StmtPtr> Stores;
    const auto *List = llvm::dyn_cast<InitListExpr>(strip(V.getInit()));
    if (!List) {
      fail("initialized local array", V.getBeginLoc());
      return Stores;
    }
    for (std::int64_t I = 0; I < Count; ++I) {
      const clang::Expr *E =
          I < List->getNumInits() ? List->getInit(I) : nullptr;
      ExprPtr Value =
          !E || llvm::isa<ImplicitValueInitExpr>(E) ? zeroOf(T) : lowerExpr(E);
      std::vector<ExprPtr> Index;
      Index.push_back(intLit(I));
      auto Element = std::make_unique<ArrayRef>(nameOf(V), std::move(Index), T);
      Element->Space = AddressSpace::Private;
      Stores.push_back(withLine(std::make_unique<AssignStmt>(std::move(Element),
                                                             AssignOp::Set,
                                                             std::move(Value)),
                                V.getBeginLoc()));
    }
    return Stores;
  }

  std::optional<AssignOp> assignOp(BinaryOperatorKind K) {
    switch (K) {
    case BO_Assign:
      return AssignOp::Set;
    case BO_AddAssign:
      return AssignOp::Add;
    case BO_SubAssign:
      return AssignOp::Sub;
    case BO_MulAssign:
      return AssignOp::Mul;
    case BO_DivAssign:
      return AssignOp::Div;
    default:
      return std::nullopt;
    }
  }

  /// \p S as one statement (a block where the helpers it calls put
  /// statements before it).
  StmtPtr lowerStmt(const clang::Stmt *S) {
    BlockStmt B;
    lowerInto(S, B);
    if (B.Body.size() == 1)
      return std::move(B.Body.front());
    auto R = std::make_unique<BlockStmt>();
    R->Body = std::move(B.Body);
    return withLine(std::move(R), S->getBeginLoc());
  }

  /// \p S, whose inlined calls put what they need before it into Hoisted;
  /// null for a call of a void helper, which is all in Hoisted.
  StmtPtr lowerOneStmt(const clang::Stmt *S) {
    SourceLocation Loc = S->getBeginLoc();
    if (const auto *C = llvm::dyn_cast<CompoundStmt>(S)) {
      auto B = std::make_unique<BlockStmt>();
      for (const clang::Stmt *Child : C->body())
        lowerInto(Child, *B);
      return withLine(std::move(B), Loc);
    }
    if (llvm::isa<clang::DeclStmt>(S)) {
      auto B = std::make_unique<BlockStmt>();
      lowerInto(S, *B);
      if (B->Body.size() == 1)
        return std::move(B->Body.front());
      return withLine(std::move(B), Loc);
    }
    if (llvm::isa<NullStmt>(S))
      return withLine(std::make_unique<BlockStmt>(), Loc);
    if (const auto *E = llvm::dyn_cast<clang::Expr>(S))
      return lowerExprStmt(strip(E));
    if (const auto *I = llvm::dyn_cast<clang::IfStmt>(S)) {
      if (I->getInit() || I->getConditionVariable())
        return failStmt("declaration in an if condition", Loc);
      return withLine(std::make_unique<gpumerge::IfStmt>(
                          lowerExpr(I->getCond()), lowerStmt(I->getThen()),
                          I->getElse() ? lowerStmt(I->getElse()) : nullptr),
                      Loc);
    }
    if (const auto *F = llvm::dyn_cast<clang::ForStmt>(S))
      return lowerFor(*F);
    if (const auto *A = llvm::dyn_cast<AttributedStmt>(S))
      if (StmtPtr L = lowerUnrollHint(*A))
        return L;
    if (const auto *R = llvm::dyn_cast<clang::ReturnStmt>(S))
      return withLine(
          std::make_unique<gpumerge::ReturnStmt>(
              R->getRetValue() ? lowerExpr(R->getRetValue()) : nullptr),
          Loc);
    if (llvm::isa<WhileStmt>(S))
      return failStmt("while loop", Loc);
    if (llvm::isa<DoStmt>(S))
      return failStmt("do-while loop", Loc);
    if (llvm::isa<SwitchStmt>(S))
      return failStmt("switch statement", Loc);
    // A jump of the innermost loop (a switch is refused above). In a while
    // loop read as a for loop, continue would now run the step that ends
    // the body, which it skipped.
    if (llvm::isa<BreakStmt>(S) || llvm::isa<ContinueStmt>(S)) {
      bool Break = llvm::isa<BreakStmt>(S);
      if (LoopKinds.empty())
        return failStmt(Break ? "break statement" : "continue statement", Loc);
      if (!Break && LoopKinds.back())
        return failStmt("continue in a while loop (it skips the step at "
                        "the end of the body)",
                        Loc);
      return withLine(std::make_unique<JumpStmt>(Break), Loc);
    }
    if (llvm::isa<GotoStmt>(S))
      return failStmt("goto statement", Loc);
    return failStmt("statement '" + sourceText(S->getSourceRange()) + "'", Loc);
  }

  /// The condition of `assert(c)` as the C library's macro expands it
  /// (`static_cast<bool>(c) ? void(0) : __assert_fail(...)`); null for any
  /// other expression.
  static const clang::Expr *assertedCondition(const clang::Expr *E) {
    const auto *C = llvm::dyn_cast<ConditionalOperator>(E->IgnoreParens());
    if (!C)
      return nullptr;
    const auto *Fail =
        llvm::dyn_cast<clang::CallExpr>(C->getFalseExpr()->IgnoreParenCasts());
    const FunctionDecl *FD = Fail ? Fail->getDirectCallee() : nullptr;
    if (!FD || FD->getNameAsString() != "__assert_fail")
      return nullptr;
    const clang::Expr *Cond = C->getCond()->IgnoreParenImpCasts();
    if (const auto *Cast = llvm::dyn_cast<CXXStaticCastExpr>(Cond))
      Cond = Cast->getSubExpr();
    return Cond;
  }

  StmtPtr lowerExprStmt(const clang::Expr *E) {
    SourceLocation Loc = E->getBeginLoc();
    // `assert(c);`: a call the CUDA printer spells back (the OpenCL one
    // defines it away: OpenCL C has none).
    if (const clang::Expr *Cond = assertedCondition(E)) {
      std::vector<ExprPtr> Args;
      Args.push_back(lowerExpr(Cond));
      return withLine(
          std::make_unique<gpumerge::ExprStmt>(
              std::make_unique<gpumerge::CallExpr>(
                  "assert", std::move(Args), Type::scalar(ScalarKind::Void))),
          Loc);
    }
    if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E)) {
      if (B->isAssignmentOp()) {
        auto Op = assignOp(B->getOpcode());
        // `x %= m`, `f <<= 1`, `mask |= b`: KIR's assignments are =, +=, -=,
        // *=, /=; the others are written out, `x = x % m`, their target a
        // variable or an element (lowering refuses side effects in it).
        if (!Op && B->isCompoundAssignmentOp())
          if (auto Bin = binaryOp(
                  BinaryOperator::getOpForCompoundAssignment(B->getOpcode()))) {
            if (isCudaVector(B->getLHS()->getType()) ||
                llvm::isa<clang::MemberExpr>(strip(B->getLHS())))
              return failStmt("compound assignment '" +
                                  B->getOpcodeStr().str() + "' to a component",
                              Loc);
            ExprPtr Target = lowerExpr(B->getLHS());
            ExprPtr Value =
                binary(*Bin, Target->clone(), lowerExpr(B->getRHS()));
            return withLine(std::make_unique<AssignStmt>(std::move(Target),
                                                         AssignOp::Set,
                                                         std::move(Value)),
                            Loc);
          }
        if (!Op)
          return failStmt(
              "compound assignment '" + B->getOpcodeStr().str() + "'", Loc);
        if (StmtPtr C =
                lowerComponentStore(strip(B->getLHS()), *Op, B->getRHS(), Loc))
          return C;
        return withLine(std::make_unique<AssignStmt>(lowerExpr(B->getLHS()),
                                                     *Op,
                                                     lowerExpr(B->getRHS())),
                        Loc);
      }
    }
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E)) {
      if (U->isIncrementDecrementOp()) {
        if (StmtPtr C = lowerComponentStore(strip(U->getSubExpr()),
                                            U->isIncrementOp() ? AssignOp::Add
                                                               : AssignOp::Sub,
                                            nullptr, Loc))
          return C;
        return withLine(std::make_unique<AssignStmt>(
                            lowerExpr(U->getSubExpr()),
                            U->isIncrementOp() ? AssignOp::Add : AssignOp::Sub,
                            intLit(1)),
                        Loc);
      }
    }
    // `c[i] = v;` of CUDA's vectors: their implicit operator=.
    if (const auto *O = llvm::dyn_cast<CXXOperatorCallExpr>(E);
        O && O->getOperator() == OO_Equal && O->getNumArgs() == 2 &&
        isCudaVector(O->getArg(0)->getType()))
      return withLine(std::make_unique<AssignStmt>(lowerExpr(O->getArg(0)),
                                                   AssignOp::Set,
                                                   lowerExpr(O->getArg(1))),
                      Loc);
    if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E)) {
      if (const FunctionDecl *FD = C->getDirectCallee()) {
        if (const FunctionDecl *Def = inlinedHelper(*FD)) {
          inlineCall(*C, *Def, Loc); // its value, if any, unused
          return nullptr;
        }
        if (StmtPtr S = lowerSinCos(*C, *FD, Loc))
          return S;
        std::string Name = FD->getNameAsString();
        if (Name == "__syncthreads" || Name == "barrier")
          return withLine(std::make_unique<SyncStmt>(), Loc);
        if (Name == "gpumerge_global_sync")
          return withLine(std::make_unique<GlobalSyncStmt>(), Loc);
      }
    }
    return withLine(std::make_unique<gpumerge::ExprStmt>(lowerExpr(E)), Loc);
  }

  /// CUDA's `sincosf(x, &s, &c)` (sincos, __sincosf) as `s = sinf(x); c =
  /// cosf(x);`, the first put before the second (Hoisted): where s and c
  /// are variables the kernel declares and x reads neither. Null for any
  /// other call.
  StmtPtr lowerSinCos(const clang::CallExpr &C, const FunctionDecl &FD,
                      SourceLocation Loc) {
    static const std::map<std::string, std::pair<const char *, const char *>>
        Parts = {{"sincosf", {"sinf", "cosf"}},
                 {"sincos", {"sin", "cos"}},
                 {"__sincosf", {"__sinf", "__cosf"}}};
    auto It = Parts.find(FD.getNameAsString());
    if (It == Parts.end() || isUserCode(FD.getLocation()) ||
        C.getNumArgs() != 3 || Ctx.getLangOpts().OpenCL)
      return nullptr;
    std::vector<const VarDecl *> Out;
    for (unsigned I = 1; I < 3; ++I) {
      const auto *U = llvm::dyn_cast<clang::UnaryOperator>(strip(C.getArg(I)));
      const auto *R =
          U && U->getOpcode() == UO_AddrOf
              ? llvm::dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParens())
              : nullptr;
      const auto *V = R ? llvm::dyn_cast<VarDecl>(R->getDecl()) : nullptr;
      if (!V || !V->isLocalVarDeclOrParm() || !V->getType()->isFloatingType() ||
          Substituted.count(V))
        return nullptr;
      Out.push_back(V);
    }
    ExprPtr X = lowerExpr(C.getArg(0));
    bool ReadsOut = false;
    walkExpr(*X, [&](const Expr &E) {
      if (const auto *V = llvm::dyn_cast<VarRef>(&E))
        ReadsOut |= V->Name == nameOf(*Out[0]) || V->Name == nameOf(*Out[1]);
    });
    if (ReadsOut)
      return failStmt("sincos of a variable it sets", Loc);
    auto Part = [&](const char *Fn, const VarDecl &V, ExprPtr Arg) {
      gpumerge::Type T = lowerType(V.getType(), Loc);
      std::vector<ExprPtr> Args;
      Args.push_back(std::move(Arg));
      return withLine(
          std::make_unique<AssignStmt>(
              var(nameOf(V), T), AssignOp::Set,
              std::make_unique<gpumerge::CallExpr>(Fn, std::move(Args), T)),
          Loc);
    };
    Hoisted.push_back(Part(It->second.first, *Out[0], X->clone()));
    return Part(It->second.second, *Out[1], std::move(X));
  }

  /// The iterator a loop-control expression names, or null.
  static const VarDecl *iterOf(const clang::Expr *E) {
    const auto *D = llvm::dyn_cast<DeclRefExpr>(strip(E));
    return D ? llvm::dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  }

  /// Canonical loops only (§3.2): for (i = S; i < B; i += c) with
  /// i++, ++i, i--, i += c, i -= c, i = i + c; <, <=, !=, >, >= (either side).
  /// `#pragma unroll [N]` before a for loop: the loop with its hint
  /// (ForStmt::Unroll, UnrollFull); null for other attributes, which are
  /// refused as before.
  StmtPtr lowerUnrollHint(const AttributedStmt &A) {
    const auto *F = llvm::dyn_cast<clang::ForStmt>(A.getSubStmt());
    if (!F)
      return nullptr;
    unsigned Count = 0;
    bool Full = false;
    for (const clang::Attr *At : A.getAttrs()) {
      const auto *H = llvm::dyn_cast<LoopHintAttr>(At);
      if (!H)
        return nullptr;
      if (H->getOption() == LoopHintAttr::UnrollCount) {
        std::optional<llvm::APSInt> V =
            H->getValue() ? H->getValue()->getIntegerConstantExpr(Ctx)
                          : std::nullopt;
        if (!V || V->isNegative() || V->getZExtValue() > 4096)
          return nullptr;
        Count = unsigned(V->getZExtValue());
      } else if (H->getOption() == LoopHintAttr::Unroll) {
        if (H->getState() == LoopHintAttr::Disable)
          Count = 1;
        else
          Full = true;
      } else {
        return nullptr;
      }
    }
    StmtPtr L = lowerFor(*F);
    if (auto *Loop = llvm::dyn_cast<gpumerge::ForStmt>(L.get())) {
      Loop->Unroll = Count;
      Loop->UnrollFull = Full && Count == 0;
    }
    return L;
  }

  StmtPtr lowerFor(const clang::ForStmt &F) {
    return lowerLoop(
        {F.getInit(), F.getCond(), F.getInc(), F.getBody(), F.getBeginLoc()});
  }

  /// A loop's parts: a for loop's, or a while loop's read as one
  /// (WhileAsFor).
  struct LoopParts {
    const clang::Stmt *Init;
    const clang::Expr *Cond, *Inc;
    const clang::Stmt *Body;
    SourceLocation Loc;
    /// For a while loop: its iterator and start, taken from the statement
    /// before it; the body's last statement is the increment (Inc), left
    /// out of the body.
    const VarDecl *Iter = nullptr;
    ExprPtr Start = nullptr;
  };

  /// `int j = 0; while (j < n) { ...; j++; }` as `for (j = 0; j < n; j++)`
  /// when the statement before the loop (last in \p Into) starts the
  /// iterator and the body ends by stepping it; null otherwise (the loop is
  /// then refused as before).
  StmtPtr lowerWhileAsFor(const WhileStmt &W, BlockStmt &Into) {
    const auto *Body = llvm::dyn_cast<CompoundStmt>(W.getBody());
    if (!Body || Body->size() < 2 || Into.Body.empty() ||
        W.getConditionVariable())
      return nullptr;
    const auto *Inc = llvm::dyn_cast<clang::Expr>(Body->body_back());
    if (!Inc)
      return nullptr;
    Inc = strip(Inc);
    const VarDecl *Iter = nullptr;
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(Inc))
      Iter = U->isIncrementDecrementOp() ? iterOf(U->getSubExpr()) : nullptr;
    else if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(Inc))
      Iter = B->isAssignmentOp() ? iterOf(B->getLHS()) : nullptr;
    if (!Iter)
      return nullptr;
    StmtPtr &Prev = Into.Body.back();
    ExprPtr Start;
    if (auto *D = llvm::dyn_cast<gpumerge::DeclStmt>(Prev.get());
        D && D->Name == nameOf(*Iter) && D->Init && D->Extents.empty()) {
      Start = std::move(D->Init); // `int j;` stays before the loop
    } else if (auto *A = llvm::dyn_cast<AssignStmt>(Prev.get());
               A && A->Op == AssignOp::Set) {
      auto *V = llvm::dyn_cast<VarRef>(A->LHS.get());
      if (!V || V->Name != nameOf(*Iter))
        return nullptr;
      Start = std::move(A->RHS);
      Into.Body.pop_back();
    } else {
      return nullptr;
    }
    LoopParts Parts{nullptr, W.getCond(), Inc, Body, W.getBeginLoc()};
    Parts.Iter = Iter;
    Parts.Start = std::move(Start);
    return lowerLoop(std::move(Parts));
  }

  StmtPtr lowerLoop(LoopParts F) {
    SourceLocation Loc = F.Loc;
    static const char *EveryIteration =
        "in a loop's condition or step (it runs at every iteration)";
    auto L = std::make_unique<gpumerge::ForStmt>();
    const VarDecl *Iter = nullptr;
    if (F.Iter) {
      Iter = F.Iter;
      L->Init = std::move(F.Start);
      L->DeclaresIter = false;
    } else if (const auto *DS =
                   llvm::dyn_cast_or_null<clang::DeclStmt>(F.Init)) {
      if (!DS->isSingleDecl())
        return failStmt("loop declaring several variables", Loc);
      Iter = llvm::dyn_cast<VarDecl>(DS->getSingleDecl());
      if (!Iter || !Iter->hasInit())
        return failStmt("loop without an initialized iterator", Loc);
      declareLocal(*Iter);
      L->Init = lowerExpr(Iter->getInit());
      L->DeclaresIter = true;
    } else if (const auto *B =
                   llvm::dyn_cast_or_null<clang::BinaryOperator>(F.Init);
               B && B->getOpcode() == BO_Assign) {
      Iter = iterOf(B->getLHS());
      if (!Iter)
        return failStmt("loop initializing a non-variable", Loc);
      L->Init = lowerExpr(B->getRHS());
      L->DeclaresIter = false;
    } else {
      return failStmt("loop without a canonical initialization", Loc);
    }
    L->Iter = nameOf(*Iter);
    L->IterType = lowerType(Iter->getType(), Loc);
    if (!L->IterType.isInteger())
      return failStmt("loop over a non-integer iterator", Loc);

    const auto *Cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
        F.Cond ? strip(F.Cond) : nullptr);
    auto Op = Cond ? binaryOp(Cond->getOpcode()) : std::nullopt;
    if (!Op || !(isComparison(*Op) && *Op != BinaryOp::EQ))
      return failStmt("loop without a canonical condition", Loc);
    if (iterOf(Cond->getLHS()) == Iter) {
      L->CondOp = *Op;
      L->Bound = lowerWithoutHoisting(Cond->getRHS(), EveryIteration);
    } else if (iterOf(Cond->getRHS()) == Iter) {
      // `n > i` is `i < n`.
      L->CondOp = swapComparison(*Op);
      L->Bound = lowerWithoutHoisting(Cond->getLHS(), EveryIteration);
    } else {
      return failStmt("loop condition not on the iterator", Loc);
    }

    const clang::Expr *Inc = F.Inc ? strip(F.Inc) : nullptr;
    std::optional<std::int64_t> Step;
    auto ConstantOf = [&](const clang::Expr *E) -> std::optional<std::int64_t> {
      clang::Expr::EvalResult R;
      if (E->EvaluateAsInt(R, Ctx))
        return R.Val.getInt().getExtValue();
      return std::nullopt;
    };
    // The increment's amount as written and whether it is added: the
    // constant or expression after `+=`, `-=`, `i = i + `, `i = i - `.
    const clang::Expr *Amount = nullptr;
    bool Adds = true;
    if (const auto *U = llvm::dyn_cast_or_null<clang::UnaryOperator>(Inc)) {
      if (U->isIncrementDecrementOp() && iterOf(U->getSubExpr()) == Iter)
        Step = U->isIncrementOp() ? 1 : -1;
    } else if (const auto *B =
                   llvm::dyn_cast_or_null<clang::BinaryOperator>(Inc)) {
      if (iterOf(B->getLHS()) == Iter) {
        if (B->getOpcode() == BO_AddAssign || B->getOpcode() == BO_SubAssign) {
          Amount = B->getRHS();
          Adds = B->getOpcode() == BO_AddAssign;
        } else if (B->getOpcode() == BO_Assign) {
          const auto *Sum =
              llvm::dyn_cast<clang::BinaryOperator>(strip(B->getRHS()));
          if (Sum &&
              (Sum->getOpcode() == BO_Add || Sum->getOpcode() == BO_Sub)) {
            if (iterOf(Sum->getLHS()) == Iter) {
              Amount = Sum->getRHS();
              Adds = Sum->getOpcode() == BO_Add;
            } else if (Sum->getOpcode() == BO_Add &&
                       iterOf(Sum->getRHS()) == Iter) {
              Amount = Sum->getLHS();
            }
          }
        }
      }
    }
    if (Amount) {
      if (auto C = ConstantOf(Amount)) {
        Step = Adds ? *C : -*C;
      } else {
        // A loop-invariant step (`j += nt`): its direction comes from the
        // condition, which must stop a rising loop from above (or a falling
        // one from below) for the loop to end.
        bool Rising = L->CondOp == BinaryOp::LT || L->CondOp == BinaryOp::LE;
        bool Falling = L->CondOp == BinaryOp::GT || L->CondOp == BinaryOp::GE;
        if (!(Adds ? Rising : Falling))
          return failStmt("loop with a non-constant step and a condition "
                          "that does not bound it (" +
                              std::string(Adds ? "+=" : "-=") + " with '" +
                              binaryOpSpelling(L->CondOp) + "')",
                          Loc);
        L->StepExpr = lowerWithoutHoisting(Amount, EveryIteration);
        Step = Adds ? 1 : -1;
      }
    }
    if (!Step || *Step == 0)
      return failStmt("loop without a constant or loop-invariant step", Loc);
    L->Step = *Step;
    if (L->StepExpr) {
      std::string Bad;
      walkExpr(*L->StepExpr, [&](const Expr &X) {
        if (!Bad.empty())
          return;
        if (auto *B = llvm::dyn_cast<BuiltinRef>(&X)) {
          // The same for every thread of the grid: block and grid sizes.
          switch (B->Which) {
          case Builtin::Bdimx:
          case Builtin::Bdimy:
          case Builtin::Gdimx:
          case Builtin::Gdimy:
          case Builtin::Gsizex:
          case Builtin::Gsizey:
            break;
          default:
            Bad = "a thread position";
          }
        } else if (llvm::isa<ArrayRef>(X) || llvm::isa<gpumerge::CallExpr>(X) ||
                   llvm::isa<MemberExpr>(X)) {
          Bad = "'" + printExprDebug(X) + "'";
        } else if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
          if (V->Name == L->Iter)
            Bad = "the iterator";
        }
      });
      if (!Bad.empty())
        return failStmt("loop step '" + printExprDebug(*L->StepExpr) +
                            "' that depends on " + Bad,
                        Loc);
    }
    LoopKinds.push_back(F.Iter != nullptr);
    LoopIters.push_back(Iter);
    if (F.Iter) {
      // The while loop's body without its last statement, the increment.
      auto B = std::make_unique<BlockStmt>();
      B->setLine(lineOf(F.Body->getBeginLoc()));
      const auto *C = llvm::cast<CompoundStmt>(F.Body);
      for (auto It = C->body_begin(); It + 1 != C->body_end(); ++It)
        lowerInto(*It, *B);
      L->Body = std::move(B);
    } else {
      L->Body = lowerStmt(F.Body);
    }
    LoopKinds.pop_back();
    LoopIters.pop_back();
    if (!llvm::isa<BlockStmt>(*L->Body)) {
      auto B = std::make_unique<BlockStmt>();
      B->setLine(L->Body->getLine());
      B->Body.push_back(std::move(L->Body));
      L->Body = std::move(B);
    }
    // The analyses rely on S, S+Inc, ...: the body must not move the iterator.
    bool Modified = false;
    walkStmts(*L->Body, [&](Stmt &X) {
      if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
        if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
          Modified |= V->Name == L->Iter;
    });
    if (Modified)
      return failStmt("loop iterator '" + L->Iter + "' modified in the body",
                      Loc);
    // A step expression must not change while the loop runs.
    if (L->StepExpr) {
      std::set<std::string> Used;
      walkExpr(*L->StepExpr, [&](const Expr &X) {
        if (auto *V = llvm::dyn_cast<VarRef>(&X))
          Used.insert(V->Name);
      });
      std::string Changed;
      walkStmts(*L->Body, [&](Stmt &X) {
        if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
          if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
            if (Used.count(V->Name) && Changed.empty())
              Changed = V->Name;
      });
      if (!Changed.empty())
        return failStmt("loop step '" + printExprDebug(*L->StepExpr) +
                            "' changed in the body ('" + Changed +
                            "' is assigned)",
                        Loc);
    }
    return withLine(std::move(L), Loc);
  }
};

} // namespace

bool isKernelDecl(const FunctionDecl &FD) {
  return FD.hasAttr<CUDAGlobalAttr>() || FD.hasAttr<OpenCLKernelAttr>();
}

std::variant<std::unique_ptr<Function>, LoweringFailure>
lowerFunction(const FunctionDecl &FD, ASTContext &Ctx, Preprocessor &PP,
              Module &M) {
  return Lowering(Ctx, PP, M).run(FD);
}

} // namespace gpumerge
