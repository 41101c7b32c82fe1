//===- LowerStmt.cpp - Statements and loops to KIR -----------------------===//
//
// The Lowering class (Lowering.h): statements, declarations and loops.
//
//===----------------------------------------------------------------------===//
#include "Frontend/Lowering.h"
#include "IR/Printer.h"

using namespace clang;

namespace gpumerge {

void Lowering::lowerInto(const clang::Stmt *S, BlockStmt &Into) {
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
  hoistInto(Into,
            [&](std::vector<StmtPtr> &Out) { Out.push_back(lowerOneStmt(S)); });
}

StmtPtr Lowering::lowerVarDecl(const Decl *D, std::vector<StmtPtr> &Stores) {
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
  if (const TypeSourceInfo *TSI = V->getTypeSourceInfo();
      TSI && Extents.empty())
    spellTypeMacro(TSI->getTypeLoc(), T);
  if (V->hasAttr<CUDASharedAttr>() ||
      V->getType().getAddressSpace() == LangAS::opencl_local) {
    if (Q.isVolatileQualified()) // warp-synchronous code
      return failStmt("volatile shared array '" + V->getNameAsString() + "'",
                      V->getBeginLoc());
    T.Space = AddressSpace::Shared;
  } else if (V->isStaticLocal())
    return failStmt("static local variable", V->getBeginLoc());
  ExprPtr Init;
  if (hasWrittenInit(*V)) {
    if (!Extents.empty()) {
      if (T.Space == AddressSpace::Shared || Extents.size() != 1 ||
          T.VectorWidth != 1)
        return failStmt("initialized local array", V->getBeginLoc());
      // The list becomes stores after the declaration: a const array
      // (a table of coefficients) is declared without const to take them.
      T.IsConst = false;
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

std::vector<StmtPtr> Lowering::arrayInitStores(const VarDecl &V, const Type &T,
                                               std::int64_t Count) {
  std::vector<StmtPtr> Stores;
  const auto *List = llvm::dyn_cast<InitListExpr>(strip(V.getInit()));
  if (!List) {
    fail("initialized local array", V.getBeginLoc());
    return Stores;
  }
  for (std::int64_t I = 0; I < Count; ++I) {
    const clang::Expr *E = I < List->getNumInits() ? List->getInit(I) : nullptr;
    ExprPtr Value =
        !E || llvm::isa<ImplicitValueInitExpr>(E) ? zeroOf(T) : lowerExpr(E);
    std::vector<ExprPtr> Index;
    Index.push_back(intLit(I));
    auto Element = std::make_unique<ArrayRef>(nameOf(V), std::move(Index), T);
    Element->Space = AddressSpace::Private;
    Stores.push_back(
        withLine(std::make_unique<AssignStmt>(std::move(Element), AssignOp::Set,
                                              std::move(Value)),
                 V.getBeginLoc()));
  }
  return Stores;
}

std::optional<AssignOp> Lowering::assignOp(BinaryOperatorKind K) {
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

StmtPtr Lowering::lowerStmt(const clang::Stmt *S) {
  BlockStmt B;
  lowerInto(S, B);
  if (B.Body.size() == 1)
    return std::move(B.Body.front());
  auto R = std::make_unique<BlockStmt>();
  R->Body = std::move(B.Body);
  return withLine(std::move(R), S->getBeginLoc());
}

StmtPtr Lowering::lowerOneStmt(const clang::Stmt *S) {
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
  // What it reads and writes, and in which thread, is out of KIR's sight.
  if (llvm::isa<AsmStmt>(S))
    return failStmt("inline asm '" + sourceText(S->getSourceRange()) +
                        "' (not modelled: what it reads and writes is out "
                        "of sight)",
                    Loc);
  return failStmt("statement '" + sourceText(S->getSourceRange()) + "'", Loc);
}

const clang::Expr *Lowering::assertedCondition(const clang::Expr *E) {
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

StmtPtr Lowering::lowerExprStmt(const clang::Expr *E) {
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
  // A pointer assigned: a pointer parameter moved, or refused.
  auto AssignedPointer = [&](const clang::Expr *Target) -> const VarDecl * {
    const auto *R = llvm::dyn_cast<DeclRefExpr>(strip(Target));
    const auto *V = R ? llvm::dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    return V && V->getType()->isPointerType() ? V : nullptr;
  };
  if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E);
      B && B->isAssignmentOp())
    if (const VarDecl *P = AssignedPointer(B->getLHS()))
      return lowerPointerMove(*P, *E, Loc);
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E);
      U && U->isIncrementDecrementOp())
    if (const VarDecl *P = AssignedPointer(U->getSubExpr()))
      return lowerPointerMove(*P, *E, Loc);
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
            return failStmt("compound assignment '" + B->getOpcodeStr().str() +
                                "' to a component",
                            Loc);
          ExprPtr Target = lowerExpr(B->getLHS());
          ExprPtr Value = binary(*Bin, Target->clone(), lowerExpr(B->getRHS()));
          return withLine(std::make_unique<AssignStmt>(std::move(Target),
                                                       AssignOp::Set,
                                                       std::move(Value)),
                          Loc);
        }
      if (!Op)
        return failStmt("compound assignment '" + B->getOpcodeStr().str() + "'",
                        Loc);
      if (StmtPtr C =
              lowerComponentStore(strip(B->getLHS()), *Op, B->getRHS(), Loc))
        return C;
      return withLine(std::make_unique<AssignStmt>(lowerExpr(B->getLHS()), *Op,
                                                   lowerExpr(B->getRHS())),
                      Loc);
    }
  }
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E)) {
    if (U->isIncrementDecrementOp()) {
      if (StmtPtr C = lowerComponentStore(
              strip(U->getSubExpr()),
              U->isIncrementOp() ? AssignOp::Add : AssignOp::Sub, nullptr, Loc))
        return C;
      return withLine(std::make_unique<AssignStmt>(
                          lowerExpr(U->getSubExpr()),
                          U->isIncrementOp() ? AssignOp::Add : AssignOp::Sub,
                          intLit(1)),
                      Loc);
    }
  }
  // `c[i] = h;`, `s += a[i] * b[i];` of 16-bit floats: their operators.
  if (const auto *O = llvm::dyn_cast<CXXOperatorCallExpr>(E);
      O && O->getNumArgs() >= 1 && halfPrecisionKind(O->getArg(0)->getType()))
    if (StmtPtr S = lowerHalfAssign(*O, Loc))
      return S;
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

StmtPtr Lowering::lowerSinCos(const clang::CallExpr &C, const FunctionDecl &FD,
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

StmtPtr Lowering::lowerUnrollHint(const AttributedStmt &A) {
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

StmtPtr Lowering::lowerWhileAsFor(const WhileStmt &W, BlockStmt &Into) {
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

/// What a loop's condition and step are lowered for: they run at every
/// iteration, so nothing in them is hoisted before the loop.
static const char *const EveryIteration =
    "in a loop's condition or step (it runs at every iteration)";

std::string Lowering::lowerLoopInit(LoopParts &F, gpumerge::ForStmt &L,
                                    const VarDecl *&Iter) {
  if (F.Iter) {
    Iter = F.Iter;
    L.Init = std::move(F.Start);
    L.DeclaresIter = false;
  } else if (const auto *DS = llvm::dyn_cast_or_null<clang::DeclStmt>(F.Init)) {
    if (!DS->isSingleDecl())
      return "loop declaring several variables";
    Iter = llvm::dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!Iter || !Iter->hasInit())
      return "loop without an initialized iterator";
    declareLocal(*Iter);
    L.Init = lowerExpr(Iter->getInit());
    L.DeclaresIter = true;
  } else if (const auto *B =
                 llvm::dyn_cast_or_null<clang::BinaryOperator>(F.Init);
             B && B->getOpcode() == BO_Assign) {
    Iter = iterOf(B->getLHS());
    if (!Iter)
      return "loop initializing a non-variable";
    L.Init = lowerExpr(B->getRHS());
    L.DeclaresIter = false;
  } else {
    return "loop without a canonical initialization";
  }
  L.Iter = nameOf(*Iter);
  L.IterType = lowerType(Iter->getType(), F.Loc);
  if (!L.IterType.isInteger())
    return "loop over a non-integer iterator";
  return "";
}

std::string Lowering::lowerLoopCond(const LoopParts &F, const VarDecl *Iter,
                                    gpumerge::ForStmt &L) {
  const auto *Cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      F.Cond ? strip(F.Cond) : nullptr);
  auto Op = Cond ? binaryOp(Cond->getOpcode()) : std::nullopt;
  if (!Op || !(isComparison(*Op) && *Op != BinaryOp::EQ))
    return "loop without a canonical condition";
  if (iterOf(Cond->getLHS()) == Iter) {
    L.CondOp = *Op;
    L.Bound = lowerWithoutHoisting(Cond->getRHS(), EveryIteration);
  } else if (iterOf(Cond->getRHS()) == Iter) {
    // `n > i` is `i < n`.
    L.CondOp = swapComparison(*Op);
    L.Bound = lowerWithoutHoisting(Cond->getLHS(), EveryIteration);
  } else {
    return "loop condition not on the iterator";
  }
  return "";
}

void Lowering::loopIncrement(const clang::Expr *Inc, const VarDecl *Iter,
                             std::optional<std::int64_t> &Step,
                             const clang::Expr *&Amount, bool &Adds) {
  if (const auto *U = llvm::dyn_cast_or_null<clang::UnaryOperator>(Inc)) {
    if (U->isIncrementDecrementOp() && iterOf(U->getSubExpr()) == Iter)
      Step = U->isIncrementOp() ? 1 : -1;
    return;
  }
  const auto *B = llvm::dyn_cast_or_null<clang::BinaryOperator>(Inc);
  if (!B || iterOf(B->getLHS()) != Iter)
    return;
  if (B->getOpcode() == BO_AddAssign || B->getOpcode() == BO_SubAssign) {
    Amount = B->getRHS();
    Adds = B->getOpcode() == BO_AddAssign;
  } else if (B->getOpcode() == BO_Assign) {
    const auto *Sum = llvm::dyn_cast<clang::BinaryOperator>(strip(B->getRHS()));
    if (Sum && (Sum->getOpcode() == BO_Add || Sum->getOpcode() == BO_Sub)) {
      if (iterOf(Sum->getLHS()) == Iter) {
        Amount = Sum->getRHS();
        Adds = Sum->getOpcode() == BO_Add;
      } else if (Sum->getOpcode() == BO_Add && iterOf(Sum->getRHS()) == Iter) {
        Amount = Sum->getLHS();
      }
    }
  }
}

/// What step expression \p Step of a loop over \p Iter depends on that is
/// not the same for every thread of the grid at every iteration: a thread
/// position, an array element, a call, the iterator; empty where nothing.
static std::string stepDependence(const Expr &Step, const std::string &Iter) {
  std::string Bad;
  walkExpr(Step, [&](const Expr &X) {
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
      if (V->Name == Iter)
        Bad = "the iterator";
    }
  });
  return Bad;
}

std::string Lowering::lowerLoopStep(const LoopParts &F, const VarDecl *Iter,
                                    gpumerge::ForStmt &L) {
  const clang::Expr *Inc = F.Inc ? strip(F.Inc) : nullptr;
  std::optional<std::int64_t> Step;
  const clang::Expr *Amount = nullptr;
  bool Adds = true;
  loopIncrement(Inc, Iter, Step, Amount, Adds);
  if (Amount) {
    clang::Expr::EvalResult R;
    if (Amount->EvaluateAsInt(R, Ctx)) {
      std::int64_t C = R.Val.getInt().getExtValue();
      Step = Adds ? C : -C;
    } else {
      // A loop-invariant step (`j += nt`): its direction comes from the
      // condition, which must stop a rising loop from above (or a falling
      // one from below) for the loop to end.
      bool Rising = L.CondOp == BinaryOp::LT || L.CondOp == BinaryOp::LE;
      bool Falling = L.CondOp == BinaryOp::GT || L.CondOp == BinaryOp::GE;
      if (!(Adds ? Rising : Falling))
        return "loop with a non-constant step and a condition "
               "that does not bound it (" +
               std::string(Adds ? "+=" : "-=") + " with '" +
               binaryOpSpelling(L.CondOp) + "')";
      L.StepExpr = lowerWithoutHoisting(Amount, EveryIteration);
      Step = Adds ? 1 : -1;
    }
  }
  if (!Step || *Step == 0)
    return "loop without a constant or loop-invariant step";
  L.Step = *Step;
  if (L.StepExpr)
    if (std::string Bad = stepDependence(*L.StepExpr, L.Iter); !Bad.empty())
      return "loop step '" + printExprDebug(*L.StepExpr) +
             "' that depends on " + Bad;
  return "";
}

void Lowering::lowerLoopBody(const LoopParts &F, const VarDecl *Iter,
                             gpumerge::ForStmt &L) {
  LoopKinds.push_back(F.Iter != nullptr);
  LoopIters.push_back(Iter);
  if (F.Iter) {
    // The while loop's body without its last statement, the increment.
    auto B = std::make_unique<BlockStmt>();
    B->setLine(lineOf(F.Body->getBeginLoc()));
    const auto *C = llvm::cast<CompoundStmt>(F.Body);
    for (auto It = C->body_begin(); It + 1 != C->body_end(); ++It)
      lowerInto(*It, *B);
    L.Body = std::move(B);
  } else {
    L.Body = lowerStmt(F.Body);
  }
  LoopKinds.pop_back();
  LoopIters.pop_back();
  if (!llvm::isa<BlockStmt>(*L.Body)) {
    auto B = std::make_unique<BlockStmt>();
    B->setLine(L.Body->getLine());
    B->Body.push_back(std::move(L.Body));
    L.Body = std::move(B);
  }
}

/// Why the body of \p L breaks what the analyses rely on, S, S+Inc, ...: it
/// moves the iterator, or changes what the step expression reads; empty
/// where it does neither.
static std::string loopBodyChanges(const gpumerge::ForStmt &L) {
  bool Modified = false;
  walkStmts(*L.Body, [&](Stmt &X) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        Modified |= V->Name == L.Iter;
  });
  if (Modified)
    return "loop iterator '" + L.Iter + "' modified in the body";
  // A step expression must not change while the loop runs.
  if (!L.StepExpr)
    return "";
  std::set<std::string> Used;
  walkExpr(*L.StepExpr, [&](const Expr &X) {
    if (auto *V = llvm::dyn_cast<VarRef>(&X))
      Used.insert(V->Name);
  });
  std::string Changed;
  walkStmts(*L.Body, [&](Stmt &X) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&X))
      if (auto *V = llvm::dyn_cast<VarRef>(A->LHS.get()))
        if (Used.count(V->Name) && Changed.empty())
          Changed = V->Name;
  });
  if (Changed.empty())
    return "";
  return "loop step '" + printExprDebug(*L.StepExpr) +
         "' changed in the body ('" + Changed + "' is assigned)";
}

StmtPtr Lowering::lowerLoop(LoopParts F) {
  SourceLocation Loc = F.Loc;
  auto L = std::make_unique<gpumerge::ForStmt>();
  const VarDecl *Iter = nullptr;
  if (std::string Why = lowerLoopInit(F, *L, Iter); !Why.empty())
    return failStmt(Why, Loc);
  if (std::string Why = lowerLoopCond(F, Iter, *L); !Why.empty())
    return failStmt(Why, Loc);
  if (std::string Why = lowerLoopStep(F, Iter, *L); !Why.empty())
    return failStmt(Why, Loc);
  lowerLoopBody(F, Iter, *L);
  if (std::string Why = loopBodyChanges(*L); !Why.empty())
    return failStmt(Why, Loc);
  return withLine(std::move(L), Loc);
}

} // namespace gpumerge
