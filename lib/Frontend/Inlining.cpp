//===- Inlining.cpp - Helpers inlined where they are called ---------------===//

#include "Frontend/Inlining.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"

namespace gpumerge {

using namespace clang;

bool takesPointers(const FunctionDecl &Def) {
  if (llvm::isa<CXXMethodDecl>(Def))
    return false;
  for (const ParmVarDecl *P : Def.parameters()) {
    QualType T = P->getType();
    if (T->isPointerType() ||
        (T->isReferenceType() && !T->getPointeeType().isConstQualified()))
      return true;
  }
  return false;
}

/// The value \p S returns: `return e;`, or `{ return e; }`; null for
/// anything else.
static const Expr *returnedValue(const Stmt *S) {
  if (const auto *C = llvm::dyn_cast_or_null<CompoundStmt>(S))
    S = C->size() == 1 ? C->body_front() : nullptr;
  const auto *R = llvm::dyn_cast_or_null<ReturnStmt>(S);
  return R ? R->getRetValue() : nullptr;
}

std::optional<ReturnChain> returnChain(const FunctionDecl &Def) {
  const auto *Body = llvm::dyn_cast_or_null<CompoundStmt>(Def.getBody());
  if (!Body || Body->body_empty())
    return std::nullopt;
  ReturnChain Chain;
  for (const Stmt *S : Body->body()) {
    if (Chain.Last)
      return std::nullopt; // after the last return, or an if-else's
    if (const Expr *V = returnedValue(S)) {
      Chain.Last = V;
      continue;
    }
    const auto *If = llvm::dyn_cast<IfStmt>(S);
    if (!If || If->getInit() || If->getConditionVariable())
      return std::nullopt;
    const Expr *Then = returnedValue(If->getThen());
    if (!Then)
      return std::nullopt;
    Chain.Cases.push_back({If->getCond(), Then});
    if (If->getElse() && !(Chain.Last = returnedValue(If->getElse())))
      return std::nullopt;
  }
  if (!Chain.Last)
    return std::nullopt;
  return Chain;
}

bool containsReturn(const Stmt *S) {
  if (!S)
    return false;
  if (llvm::isa<ReturnStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsReturn(C))
      return true;
  return false;
}

bool alwaysReturns(const Stmt *S) {
  if (!S)
    return false;
  if (llvm::isa<ReturnStmt>(S))
    return true;
  if (const auto *C = llvm::dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *X : C->body())
      if (alwaysReturns(X))
        return true;
    return false;
  }
  if (const auto *I = llvm::dyn_cast<IfStmt>(S))
    return alwaysReturns(I->getThen()) && alwaysReturns(I->getElse());
  return false;
}

bool returnsOnlyAtEnd(const CompoundStmt &Body) {
  if (Body.body_empty() || !llvm::isa<ReturnStmt>(Body.body_back()))
    return false;
  for (const Stmt *S : Body.body())
    if (S != Body.body_back() && containsReturn(S))
      return false;
  return true;
}

unsigned usesOf(const Stmt &Body, const VarDecl &V) {
  unsigned N = 0;
  if (const auto *R = llvm::dyn_cast<DeclRefExpr>(&Body))
    N += R->getDecl() == &V;
  for (const Stmt *C : Body.children())
    if (C)
      N += usesOf(*C, V);
  return N;
}

std::vector<const Stmt *> statementsOf(const Stmt *S) {
  std::vector<const Stmt *> List;
  if (const auto *C = llvm::dyn_cast_or_null<CompoundStmt>(S))
    List.assign(C->body_begin(), C->body_end());
  else if (S)
    List.push_back(S);
  return List;
}

static void collectNames(const Stmt *S, std::set<std::string> &Declared,
                         std::set<std::string> &All) {
  if (!S)
    return;
  if (const auto *D = llvm::dyn_cast<DeclStmt>(S))
    for (const Decl *X : D->decls())
      if (const auto *V = llvm::dyn_cast<VarDecl>(X)) {
        Declared.insert(V->getNameAsString());
        All.insert(V->getNameAsString());
      }
  if (const auto *R = llvm::dyn_cast<DeclRefExpr>(S))
    All.insert(R->getDecl()->getNameAsString());
  for (const Stmt *C : S->children())
    collectNames(C, Declared, All);
}

static void collectFileScopeNames(const Stmt *S, std::set<std::string> &Out) {
  if (!S)
    return;
  if (const auto *R = llvm::dyn_cast<DeclRefExpr>(S)) {
    const auto *V = llvm::dyn_cast<VarDecl>(R->getDecl());
    if (!V || !V->isLocalVarDeclOrParm())
      Out.insert(R->getDecl()->getNameAsString());
  }
  for (const Stmt *C : S->children())
    collectFileScopeNames(C, Out);
}

std::set<std::string> fileScopeNamesIn(const FunctionDecl &FD) {
  std::set<std::string> Out;
  collectFileScopeNames(FD.getBody(), Out);
  return Out;
}

void namesOf(const FunctionDecl &FD, std::set<std::string> &Declared,
             std::set<std::string> &All) {
  for (const ParmVarDecl *P : FD.parameters()) {
    Declared.insert(P->getNameAsString());
    All.insert(P->getNameAsString());
  }
  collectNames(FD.getBody(), Declared, All);
}

} // namespace gpumerge
