//===- LowerInline.cpp - Helpers lowered where called --------------------===//
//
// The Lowering class (Lowering.h): calls of the helpers that take pointers
// or references, lowered as their bodies (Inlining.h).
//
//===----------------------------------------------------------------------===//
#include "Frontend/Lowering.h"

using namespace clang;

namespace gpumerge {

std::string Lowering::freshName(const std::string &Base) {
  std::string Name = Base;
  for (unsigned N = 1; TakenNames.count(Name); ++N)
    Name = Base + "_" + std::to_string(N);
  TakenNames.insert(Name);
  DeclaredNames.insert(Name);
  return Name;
}

ExprPtr Lowering::variablePointee(const VarDecl &V,
                                  const std::vector<ExprPtr> &Index,
                                  SourceLocation Loc) {
  const auto *Zero =
      Index.size() == 1 ? llvm::dyn_cast<IntLit>(Index[0].get()) : nullptr;
  if (!Zero || Zero->Value != 0)
    return failExpr(
        "a pointer to the variable '" + nameOf(V) + "' read at an offset", Loc);
  return var(nameOf(V), lowerType(V.getType(), Loc));
}

ExprPtr Lowering::lowerWithoutHoisting(const clang::Expr *E, const char *Why) {
  const char *Outer = std::exchange(NoHoist, Why);
  ExprPtr R = lowerExpr(E);
  NoHoist = Outer;
  return R;
}

const FunctionDecl *Lowering::inlinedHelper(const FunctionDecl &Callee) const {
  const FunctionDecl *Def = nullptr;
  if (!Callee.hasBody(Def) || !Def || isKernelDecl(*Def) ||
      !isUserCode(Def->getLocation()) || !takesPointers(*Def))
    return nullptr;
  return Def;
}

ExprPtr Lowering::convertTo(ExprPtr E, const gpumerge::Type &T) {
  const gpumerge::Type &From = E->getType();
  if (From.Scalar == T.Scalar && From.VectorWidth == T.VectorWidth &&
      From.IsPointer == T.IsPointer)
    return E;
  gpumerge::Type To = T;
  To.IsConst = false;
  return std::make_unique<gpumerge::CastExpr>(To, std::move(E));
}

bool Lowering::isFixedValue(const Expr &E, unsigned Uses,
                            const std::set<std::string> &Written) {
  bool Fixed = true;
  unsigned Nodes = 0;
  walkExpr(E, [&](const Expr &X) {
    ++Nodes;
    if (llvm::isa<ArrayRef>(X))
      Fixed = false;
    if (const auto *V = llvm::dyn_cast<VarRef>(&X); V && Written.count(V->Name))
      Fixed = false;
  });
  return Fixed && (Uses <= 1 || Nodes <= 8);
}

bool Lowering::bindPointer(const ParmVarDecl &P, const clang::Expr *Arg,
                           const std::string &Callee, bool Fixed,
                           SourceLocation Loc) {
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
  if (auto It = PointsAtVariable.find(C->Base); It != PointsAtVariable.end()) {
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
  if (!Ctx.hasSameUnqualifiedType(P.getType()->getPointeeType(),
                                  elementOf(BaseType))) {
    fail(Why + " to another element type", Loc);
    return false;
  }
  if (ExprPtr More = sumOffsets(C->Offsets)) {
    if (Fixed && readsArray(*More)) {
      fail(Why + " offset by an array element", Loc);
      return false;
    }
    More = widenedOffset(std::move(More));
    Offset = Offset ? add(std::move(Offset), std::move(More)) : std::move(More);
  }
  // A row pointer (`double phi[][NY]`) takes the indices of the array it
  // names, which an offset would shift by rows, not elements.
  if (Offset && P.getType()->getPointeeType()->isArrayType()) {
    fail(Why + ", a row at an offset", Loc);
    return false;
  }
  Aliases[&P] = {Base, std::move(Offset)};
  return true;
}

bool Lowering::readsArray(const Expr &E) {
  bool Reads = false;
  walkExpr(E, [&](const Expr &X) { Reads |= llvm::isa<ArrayRef>(X); });
  return Reads;
}

ExprPtr Lowering::inlineCall(const clang::CallExpr &C, const FunctionDecl &Def,
                             SourceLocation Loc) {
  std::string Name = Def.getNameAsString();
  for (const InlineFrame &F : Inlined)
    if (F.Callee == &Def)
      return failExpr("recursive call of '" + Name + "'", Loc);
  if (Inlined.size() >= 8)
    return failExpr("helpers that take pointers called more than 8 deep", Loc);
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
      ExprPtr L = lowerExpr(A);
      if (const auto *E = llvm::dyn_cast<ArrayRef>(L.get()))
        for (const ExprPtr &I : E->Indices)
          if (readsArray(*I))
            return failExpr("reference argument '" +
                                sourceText(Arg->getSourceRange()) + "' to '" +
                                Name + "' indexed by an array element",
                            Loc);
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
    if (!Own.Variables.count(P) &&
        (Value || isFixedValue(*V, usesOf(*Body, *P), Written))) {
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
      R.Declare = returnsOnlyAtEnd(*Body);
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

ExprPtr Lowering::lowerReturnChain(const ReturnChain &Chain,
                                   const gpumerge::Type &RT) {
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

void Lowering::lowerInlinedList(std::vector<const clang::Stmt *> List,
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
      return withLine(std::move(Block), B ? B->getBeginLoc() : If->getEndLoc());
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

void Lowering::storeResult(const clang::ReturnStmt &Ret, const InlineResult &R,
                           BlockStmt &Into) {
  if (!Ret.getRetValue() || R.Name.empty())
    return;
  hoistInto(Into, [&](std::vector<StmtPtr> &Out) {
    ExprPtr V = convertTo(lowerExpr(Ret.getRetValue()), R.T);
    if (R.Declare)
      Out.push_back(
          std::make_unique<gpumerge::DeclStmt>(R.Name, R.T, std::move(V)));
    else
      Out.push_back(std::make_unique<AssignStmt>(var(R.Name, R.T),
                                                 AssignOp::Set, std::move(V)));
    Out.back()->setLine(lineOf(Ret.getBeginLoc()));
  });
}

void Lowering::checkNotCaptured(const Expr &E, SourceLocation Loc) {
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

} // namespace gpumerge
