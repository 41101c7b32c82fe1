//===- Lower.cpp - Clang AST to KIR ---------------------------------------===//
//
// A direct recursive lowering: statements and expressions of the kernel body
// map one to one onto KIR nodes; parentheses and implicit conversions are
// dropped (the printer and C's rules recreate them); CUDA's threadIdx.x and
// OpenCL's get_local_id(0) become the same built-in, and the usual ways of
// writing the global position (bidx*bdimx+tidx in any order, through locals
// that name the built-ins, in 64 bits) fold to idx.
// Here: the function, its types and expressions; its statements and loops
// are LowerStmt.cpp's, its calls LowerCall.cpp's, the helpers lowered where
// called LowerInline.cpp's (the class: Lowering.h).
//
//===----------------------------------------------------------------------===//
#include "Frontend/FileConstants.h"
#include "Frontend/Lowering.h"
#include "Frontend/Prelude.h"
#include "Frontend/Templates.h"
#include "IR/Printer.h"
#include "IR/VectorComponents.h"

#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

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
/// different constant sets \p Conflict. Conversions of the parts to an
/// integer of 32 bits or more are seen through; where one is to 64 bits
/// (`(size_t)blockIdx.x * blockDim.x + threadIdx.x`, computed so for grids
/// past 2^32 threads), the position keeps that type (isWidePosition).
/// \p Aliases: locals that only name a built-in (`int tx = threadIdx.x;`),
/// read as that built-in converted to the local's type.
ExprPtr foldThreadPosition(
    Expr &E, std::array<std::int64_t, 2> &Fixed, bool &Conflict,
    const std::map<std::string, const Expr *> *Aliases = nullptr) {
  auto *Add = llvm::dyn_cast<BinaryExpr>(&E);
  if (!Add || Add->Op != BinaryOp::Add)
    return nullptr;
  // The type of the sum in C: unsigned int, unless a factor of the product
  // is converted to 64 bits (unsigned where any such conversion is). Only
  // there: `(size_t)(bid * bdim)` and `bid * bdim + (size_t)tid` wrap the
  // product at 2^32, and stay as written.
  std::optional<Type> Wide;
  auto Through = [&](const Expr *X, bool Factor = false) {
    while (true) {
      const Expr *Sub = nullptr;
      if (const auto *C = llvm::dyn_cast<CastExpr>(X))
        Sub = C->Sub.get();
      else if (const auto *V = llvm::dyn_cast<VarRef>(X); V && Aliases)
        if (auto It = Aliases->find(V->Name); It != Aliases->end())
          Sub = It->second;
      if (!Sub)
        return X;
      const Type &T = X->getType();
      if (T.is64BitInteger()) {
        if (!Factor)
          return X;
        if (!Wide || (T.Scalar == ScalarKind::ULong &&
                      Wide->Scalar != ScalarKind::ULong))
          Wide = T;
      } else if (T.IsPointer || T.VectorWidth != 1 ||
                 (T.Scalar != ScalarKind::Int &&
                  T.Scalar != ScalarKind::UInt)) {
        return X;
      }
      X = Sub;
    }
  };
  auto IsBuiltin = [&](const Expr *X, Builtin B, bool Factor = false) {
    auto *R = llvm::dyn_cast<BuiltinRef>(Through(X, Factor));
    return R && R->Which == B;
  };
  // The block size in `bid * size`: 0 for bdim, the constant, or -1.
  auto BlockOffset = [&](const Expr *X, Builtin Bid,
                         Builtin Bdim) -> std::int64_t {
    auto *M = llvm::dyn_cast<BinaryExpr>(Through(X));
    if (!M || M->Op != BinaryOp::Mul)
      return -1;
    const Expr *Size = IsBuiltin(M->LHS.get(), Bid, true)   ? M->RHS.get()
                       : IsBuiltin(M->RHS.get(), Bid, true) ? M->LHS.get()
                                                            : nullptr;
    if (!Size)
      return -1;
    if (IsBuiltin(Size, Bdim, true))
      return 0;
    if (auto *L = llvm::dyn_cast<IntLit>(Through(Size, true));
        L && L->Value > 0)
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
    Wide.reset();
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
      auto R = std::make_unique<BuiltinRef>(
          X.Id, Wide ? *Wide : Type::scalar(ScalarKind::Int));
      R->setLine(E.getLine());
      return R;
    }
    ++D;
  }
  return nullptr;
}

/// Locals that only name a built-in of the block or thread, declared once
/// and never assigned again (`int tx = threadIdx.x; int bx = blockIdx.x;`),
/// each with the built-in: the position written with them
/// (`bx * blockDim.x + tx`) is the thread's position all the same.
std::map<std::string, const Expr *> builtinAliases(Stmt &Body,
                                                   const Function &F) {
  std::map<std::string, const Expr *> Aliases;
  std::map<std::string, unsigned> Declared;
  std::set<std::string> Assigned;
  walkStmts(Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S)) {
      ++Declared[D->Name];
      const auto *B = llvm::dyn_cast_or_null<BuiltinRef>(D->Init.get());
      const Type &T = D->Ty;
      bool Word = !T.IsPointer && T.VectorWidth == 1 &&
                  (T.Scalar == ScalarKind::Int || T.Scalar == ScalarKind::UInt);
      if (B && !isPosition(B->Which) && D->Extents.empty() &&
          (Word || T.is64BitInteger()))
        Aliases[D->Name] = B;
    } else if (auto *A = llvm::dyn_cast<AssignStmt>(&S)) {
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Assigned.insert(V->Name);
    } else if (auto *L = llvm::dyn_cast<ForStmt>(&S)) {
      Assigned.insert(L->Iter);
    }
  });
  for (auto It = Aliases.begin(); It != Aliases.end();)
    if (Declared[It->first] != 1 || Assigned.count(It->first) ||
        F.findParam(It->first))
      It = Aliases.erase(It);
    else
      ++It;
  return Aliases;
}

/// Folds the positions written with \p Aliases, then drops the aliases
/// nothing reads any more: a kernel whose locals only spelled its position
/// reads no built-in but the position, as one written without them does.
void foldThroughAliases(Stmt &Body, const Function &F,
                        std::array<std::int64_t, 2> &Fixed, bool &Conflict) {
  std::map<std::string, const Expr *> Aliases = builtinAliases(Body, F);
  if (Aliases.empty())
    return;
  rewriteExprs(Body, [&](Expr &X) {
    return foldThreadPosition(X, Fixed, Conflict, &Aliases);
  });
  std::set<std::string> Read;
  walkExprs(Body, [&](const Expr &X) {
    if (const auto *V = llvm::dyn_cast<VarRef>(&X))
      Read.insert(V->Name);
  });
  walkStmts(Body, [&](Stmt &S) {
    if (auto *B = llvm::dyn_cast<BlockStmt>(&S))
      llvm::erase_if(B->Body, [&](const StmtPtr &St) {
        const auto *D = llvm::dyn_cast<DeclStmt>(St.get());
        return D && Aliases.count(D->Name) && !Read.count(D->Name);
      });
  });
}

} // namespace

std::variant<std::unique_ptr<Function>, LoweringFailure>
Lowering::run(const FunctionDecl &FD) {
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
    if (const TypeSourceInfo *TSI = P->getTypeSourceInfo())
      spellTypeMacro(TSI->getTypeLoc(), KP.Ty);
    KP.Restrict = KP.Ty.IsPointer && P->getType().isRestrictQualified();
    if (const auto *A = Ctx.getAsConstantArrayType(P->getOriginalType()))
      KP.DeclaredRows = A->getSize().getSExtValue();
    if (KP.Ty.IsPointer && KP.Ty.Space == AddressSpace::Private)
      KP.Ty.Space = AddressSpace::Global; // CUDA kernel pointers
    F->Params.push_back(std::move(KP));
  }
  Changed = assignedIn(*FD.getBody());
  KernelBody = FD.getBody();
  BlockOf.clear();
  std::function<void(const clang::Stmt *)> Blocks = [&](const clang::Stmt *S) {
    if (!S)
      return;
    if (const auto *C = llvm::dyn_cast<CompoundStmt>(S))
      for (const clang::Stmt *X : C->body())
        BlockOf[llvm::isa<clang::Expr>(X) ? strip(llvm::cast<clang::Expr>(X))
                                          : X] = C;
    for (const clang::Stmt *X : S->children())
      Blocks(X);
  };
  Blocks(KernelBody);
  namesOf(FD, DeclaredNames, TakenNames);
  StmtPtr Body = lowerStmt(FD.getBody());
  foldThroughAliases(*Body, *F, FixedBlock, FixedBlockConflict);
  // Threads of one layer of a 3-D grid: idz only (see Builtin::Idz).
  walkExprs(*Body, [&](const Expr &E) {
    const auto *B = llvm::dyn_cast<BuiltinRef>(&E);
    if (B && builtinDimension(B->Which) == 2 && B->Which != Builtin::Idz &&
        !Failure)
      Failure = LoweringFailure{
          Ctx.getLangOpts().OpenCL
              ? std::string(B->Which == Builtin::Tidz   ? "get_local_id(2)"
                            : B->Which == Builtin::Bidz ? "get_group_id(2)"
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

void Lowering::fail(const std::string &What, SourceLocation L) {
  if (Failure)
    return;
  Failure = LoweringFailure{What, lineOf(L)};
  // Where a helper is inlined: its line, and the call's.
  if (!Inlined.empty())
    Failure->Construct += " (in '" + Inlined.back().Callee->getNameAsString() +
                          "', which gpumerge inlines where line " +
                          std::to_string(Inlined.front().CallLine) +
                          " calls it)";
}

std::string namespaceQualifier(const FunctionDecl &FD) {
  std::string Qualifier;
  for (const DeclContext *C = FD.getDeclContext(); C; C = C->getParent())
    if (const auto *N = dyn_cast<NamespaceDecl>(C))
      if (!N->isAnonymousNamespace() && !N->isInline())
        Qualifier = N->getName().str() + "::" + Qualifier;
  return Qualifier;
}

bool Lowering::isUserCode(SourceLocation L) const {
  SourceLocation E = SM.getExpansionLoc(L);
  if (SM.isInMainFile(E))
    return true;
  if (E.isInvalid() || SM.isInSystemHeader(E))
    return false;
  return SM.getFilename(E) != PreludePath;
}

std::string fileAndLine(SourceLocation Loc, const SourceManager &SM) {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return "";
  return (llvm::sys::path::filename(P.getFilename()) + ":" +
          llvm::Twine(P.getLine()))
      .str();
}

std::string Lowering::tokenText(SourceLocation Loc) const {
  SourceLocation S = SM.getSpellingLoc(Loc);
  return Lexer::getSourceText(CharSourceRange::getTokenRange(S, S), SM,
                              Ctx.getLangOpts())
      .str();
}

const clang::Expr *Lowering::strip(const clang::Expr *E) {
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

ExprPtr Lowering::lowerCudaBuiltin(const PseudoObjectExpr &PO) {
  const auto *Prop =
      llvm::dyn_cast<MSPropertyRefExpr>(PO.getSyntacticForm()->IgnoreParens());
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

ExprPtr Lowering::lowerWorkItemCall(llvm::StringRef Name,
                                    const clang::CallExpr &C, bool &Handled) {
  Handled = false;
  static const std::pair<const char *, std::pair<Builtin, Builtin>> Table[] = {
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

std::string Lowering::literalSpelling(SourceLocation Loc) const {
  std::string Text = tokenText(Loc);
  if (Text.empty() || Text.find_first_of(" \t\n\\") != std::string::npos)
    return "";
  return Text;
}

void Lowering::noteMacro(IntLit &L, SourceLocation Loc) {
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

ExprPtr Lowering::lowerFileConstant(const VarDecl &V, bool Qualified,
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

std::optional<BinaryOp> Lowering::binaryOp(BinaryOperatorKind K) {
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

ExprPtr Lowering::lowerExpr(const clang::Expr *E) {
  ExprPtr R = lowerExprImpl(strip(E));
  R->setLine(lineOf(E->getBeginLoc()));
  if (!Inlined.empty())
    checkNotCaptured(*R, E->getBeginLoc());
  return rewriteExpr(std::move(R), [&](Expr &X) {
    return foldThreadPosition(X, FixedBlock, FixedBlockConflict);
  });
}

ExprPtr Lowering::lowerLiteral(const clang::Expr *E, SourceLocation Loc,
                               bool &Handled) {
  Handled = true;
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
    auto R = std::make_unique<IntLit>(Unsigned ? std::int64_t(V.getZExtValue())
                                               : V.getSExtValue(),
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
  Handled = false;
  return nullptr;
}

ExprPtr Lowering::lowerDeclRef(const DeclRefExpr &D, SourceLocation Loc) {
  const ValueDecl *VD = D.getDecl();
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
    return lowerFileConstant(*Var, D.hasQualifier(), Loc);
  }
  if (auto It = Substituted.find(Var); It != Substituted.end())
    return It->second->clone();
  if (Aliases.count(Var) || PointsAtVariable.count(Var))
    return failExpr("pointer '" + Var->getNameAsString() +
                        "' used other than to index it",
                    Loc);
  return var(nameOf(*Var), lowerType(Var->getType(), Loc));
}

ExprPtr Lowering::lowerSubscript(const ArraySubscriptExpr &A,
                                 SourceLocation Loc) {
  std::vector<ExprPtr> Indices;
  const clang::Expr *Base = &A;
  while (const auto *S = llvm::dyn_cast<ArraySubscriptExpr>(strip(Base))) {
    Indices.insert(Indices.begin(), lowerExpr(S->getIdx()));
    Base = S->getBase();
  }
  const auto *BD = llvm::dyn_cast<DeclRefExpr>(strip(Base));
  const auto *BV = BD ? llvm::dyn_cast<VarDecl>(BD->getDecl()) : nullptr;
  if (BV && !BV->isLocalVarDeclOrParm()) {
    if (BV->hasAttr<CUDAConstantAttr>() ||
        BV->getType().getAddressSpace() == LangAS::opencl_constant)
      return lowerConstantArray(*BV, std::move(Indices), A, Loc);
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
      return arrayRef(*It->second.Base, std::move(Indices), A.getType(), Loc);
    if (Indices.size() != 1)
      return failExpr("pointer '" + BV->getNameAsString() + "' indexed twice",
                      Loc);
    return arrayRef(*It->second.Base,
                    aliasIndex(It->second, std::move(Indices[0])), A.getType(),
                    Loc);
  }
  return arrayRef(*BV, std::move(Indices), A.getType(), Loc);
}

ExprPtr Lowering::lowerUnary(const clang::UnaryOperator &U,
                             SourceLocation Loc) {
  std::optional<UnaryOp> Op;
  switch (U.getOpcode()) {
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
    return lowerDeref(U, Loc);
  case UO_AddrOf:
    return failExpr("address-of operator", Loc);
  default:
    return failExpr("increment or decrement inside an expression", Loc);
  }
  return std::make_unique<UnaryExpr>(*Op, lowerExpr(U.getSubExpr()),
                                     lowerType(U.getType(), Loc));
}

ExprPtr Lowering::lowerBinary(const clang::BinaryOperator &B,
                              SourceLocation Loc) {
  if (B.isAssignmentOp())
    return failExpr("assignment inside an expression", Loc);
  auto Op = binaryOp(B.getOpcode());
  if (!Op)
    return failExpr("operator '" + B.getOpcodeStr().str() + "'", Loc);
  if (B.getLHS()->getType()->isPointerType() ||
      B.getRHS()->getType()->isPointerType())
    return failExpr("pointer arithmetic", Loc);
  ExprPtr L = lowerExpr(B.getLHS());
  ExprPtr R =
      B.isLogicalOp()
          ? lowerWithoutHoisting(B.getRHS(), "after && or || (it runs only "
                                             "when the left side decides)")
          : lowerExpr(B.getRHS());
  return std::make_unique<BinaryExpr>(*Op, std::move(L), std::move(R),
                                      lowerType(B.getType(), Loc));
}

ExprPtr Lowering::lowerVectorExpr(const clang::Expr *E, SourceLocation Loc,
                                  bool &Handled) {
  Handled = true;
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
    return vectorLiteral(I->getType(),
                         llvm::ArrayRef(I->getInits(), I->getNumInits()), Loc);
  if (const auto *C = llvm::dyn_cast<CompoundLiteralExpr>(E);
      C && C->getType()->isVectorType())
    if (const auto *I = llvm::dyn_cast<InitListExpr>(C->getInitializer()))
      return vectorLiteral(
          C->getType(), llvm::ArrayRef(I->getInits(), I->getNumInits()), Loc);
  Handled = false;
  return nullptr;
}

ExprPtr Lowering::lowerExprImpl(const clang::Expr *E) {
  SourceLocation Loc = E->getBeginLoc();
  bool Handled = false;
  if (ExprPtr L = lowerLiteral(E, Loc, Handled); Handled)
    return L;
  if (const auto *D = llvm::dyn_cast<DeclRefExpr>(E))
    return lowerDeclRef(*D, Loc);
  if (const auto *PO = llvm::dyn_cast<PseudoObjectExpr>(E))
    return lowerCudaBuiltin(*PO);
  if (const auto *A = llvm::dyn_cast<ArraySubscriptExpr>(E))
    return lowerSubscript(*A, Loc);
  if (ExprPtr H = lowerHalfPrecision(E, Handled); Handled)
    return H;
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E))
    return lowerUnary(*U, Loc);
  if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E))
    return lowerBinary(*B, Loc);
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
  if (ExprPtr V = lowerVectorExpr(E, Loc, Handled); Handled)
    return V;
  if (const auto *S = llvm::dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
    clang::Expr::EvalResult R;
    if (S->EvaluateAsInt(R, Ctx))
      return intLit(R.Val.getInt().getExtValue());
    return failExpr("sizeof of a variable-size type", Loc);
  }
  if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E))
    return lowerCall(*C, Loc);
  return failExpr(describeExpr(*E), Loc);
}

ExprPtr Lowering::lowerLdg(const clang::CallExpr &C, SourceLocation Loc) {
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

bool Lowering::isWarpLevel(llvm::StringRef Name) {
  for (llvm::StringRef Prefix :
       {"__shfl", "__ballot", "__any", "__all", "__activemask", "__syncwarp",
        "__match_", "__reduce_", "__syncthreads_", "sub_group_", "work_group_",
        "intel_sub_group", "get_sub_group", "get_num_sub_group",
        "get_max_sub_group", "get_enqueued_num_sub_group"})
    if (Name.startswith(Prefix))
      return true;
  return false;
}

std::string Lowering::describeExpr(const clang::Expr &E) const {
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

std::string Lowering::sourceText(SourceRange R) const {
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

bool isKernelDecl(const FunctionDecl &FD) {
  return FD.hasAttr<CUDAGlobalAttr>() || FD.hasAttr<OpenCLKernelAttr>();
}

std::variant<std::unique_ptr<Function>, LoweringFailure>
lowerFunction(const FunctionDecl &FD, ASTContext &Ctx, Preprocessor &PP,
              Module &M) {
  return Lowering(Ctx, PP, M).run(FD);
}

} // namespace gpumerge
