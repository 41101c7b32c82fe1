//===- LowerCall.cpp - Calls of functions ---------------------------------===//
//
// The Lowering class (Lowering.h): a call in a kernel or helper. A helper
// lowered where it is called is inlined (LowerInline.cpp), OpenCL's
// work-item functions become built-ins, make_float4 a vector literal, __ldg
// a plain load; what merged threads would change is refused (atomics,
// warp-level operations, surface objects, a function out of sight that
// reads the thread's position); every other call stays a call of the
// function's name.
//
//===----------------------------------------------------------------------===//
#include "Frontend/Lower.h"
#include "Frontend/Lowering.h"
#include "Frontend/Templates.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <set>

using namespace clang;

namespace gpumerge {

namespace {
/// Finds a read of the thread's position (threadIdx, blockIdx, blockDim,
/// gridDim, OpenCL's get_global_id & co., PTX's %tid, %laneid & co. in
/// inline asm) in a function body or in what it calls.
class PositionReads : public RecursiveASTVisitor<PositionReads> {
public:
  bool Found = false;
  std::set<const FunctionDecl *> Seen;

  void search(const FunctionDecl &FD) {
    const FunctionDecl *Def = nullptr;
    if (!FD.hasBody(Def) || !Seen.insert(Def).second)
      return;
    TraverseStmt(Def->getBody());
  }
  /// The plain name of \p D; empty for an operator's or a constructor's.
  static llvm::StringRef nameOf(const NamedDecl &D) {
    const IdentifierInfo *I = D.getIdentifier();
    return I ? I->getName() : llvm::StringRef();
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    llvm::StringRef N = nameOf(*E->getDecl());
    if (N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
        N == "gridDim")
      Found = true;
    return !Found;
  }
  /// PTX's special registers of the position (`mov.u32 %0, %%laneid;`).
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    llvm::StringRef Asm = S->getAsmString()->getString();
    for (const char *Register : {"%tid", "%ntid", "%ctaid", "%nctaid",
                                 "%laneid", "%warpid", "%lanemask"})
      Found |= Asm.contains(Register);
    return !Found;
  }
  bool VisitCallExpr(clang::CallExpr *C) {
    if (const FunctionDecl *Callee = C->getDirectCallee()) {
      llvm::StringRef N = nameOf(*Callee);
      if (N.startswith("get_global_") || N.startswith("get_local_") ||
          N == "get_group_id" || N == "get_num_groups")
        Found = true;
      else
        search(*Callee);
    }
    return !Found;
  }
};
} // namespace

/// Does \p FD, or what it calls, read the thread's position?
static bool readsThreadPosition(const FunctionDecl &FD) {
  PositionReads R;
  R.search(FD);
  return R.Found;
}

std::string Lowering::refusedCall(const FunctionDecl &Callee,
                                  const std::string &Name) const {
  if (llvm::StringRef(Name).startswith("atomic") ||
      llvm::StringRef(Name).startswith("atom_") ||
      llvm::StringRef(Name).startswith("__nv_atomic_"))
    return "atomic operation '" + Name + "'";
  // A surface store (surf2Dwrite(v, s, x * 4, y)) or load goes through a
  // cudaSurfaceObject_t, which KIR does not model and no translation or
  // verify run can bind.
  if (llvm::StringRef N(Name); N.startswith("surf") &&
                               (N.endswith("write") || N.endswith("read")) &&
                               !isUserCode(Callee.getLocation()))
    return std::string(N.endswith("write") ? "surface store '"
                                           : "surface load '") +
           Name + "' (surface objects are not modelled)";
  if (isWarpLevel(Name))
    return "warp-level operation '" + Name +
           "' (it exchanges values with other threads, which merged threads "
           "would change)";
  if (Name == "__syncthreads" || Name == "barrier" ||
      Name == "gpumerge_global_sync")
    return "barrier inside an expression";
  // A function of the user's that this file only declares is defined in
  // another translation unit: it may read the thread's position, which
  // merged threads change, and no translation can run it.
  if (const FunctionDecl *Def = nullptr;
      !Callee.isImplicit() && isUserCode(Callee.getLocation()) &&
      !Callee.getBuiltinID() && !Callee.hasBody(Def))
    return "call of '" + Name + "', declared at " +
           fileAndLine(Callee.getLocation(), SM) +
           " but not defined in what gpumerge reads (it is defined in another "
           "file, which it cannot see)";
  return "";
}

std::string Lowering::unseenPositionRead(const FunctionDecl &Callee,
                                         const std::string &Name) const {
  // A function gpumerge does not lower stays a call, which merged threads
  // would make for each of theirs: a helper template of a header of the
  // user's, or a library's function (CUB's, a system header's). Only where
  // it does not read the thread's position (the input's helpers and its
  // headers' are lowered, and markPositionHelpers sees what they read).
  bool Lowered =
      isUserCode(Callee.getLocation()) && !Callee.isTemplateInstantiation();
  if (Lowered || SM.isInMainFile(SM.getExpansionLoc(Callee.getLocation())) ||
      !readsThreadPosition(Callee))
    return "";
  return "call of '" + Name + "', defined at " +
         fileAndLine(Callee.getLocation(), SM) +
         (isUserCode(Callee.getLocation()) ? ", a template of an included file"
                                           : ", a library's function") +
         " that reads the thread's position (threadIdx, blockIdx, ...), which "
         "merged threads would change";
}

ExprPtr Lowering::lowerCallArgument(const clang::Expr *A) {
  ExprPtr Arg = lowerExpr(A);
  // An integer converted for the call (an int i to __umul24's unsigned)
  // keeps its conversion: OpenCL's overloads (mul24) need arguments of one
  // type.
  QualType From = strip(A)->getType(), To = A->getType();
  if (To->isIntegerType() && From->isIntegerType() &&
      Ctx.getCanonicalType(From).getUnqualifiedType() !=
          Ctx.getCanonicalType(To).getUnqualifiedType() &&
      !llvm::isa<IntLit>(*Arg))
    Arg = std::make_unique<gpumerge::CastExpr>(lowerType(To, A->getBeginLoc()),
                                               std::move(Arg));
  return Arg;
}

std::string Lowering::callScope(const clang::CallExpr &C,
                                const FunctionDecl &Callee) const {
  // A function of the user's in a namespace (`util::words(n)`, HeCBench's
  // `dUtils::TruthWordNum`) keeps its qualifier in CUDA: without it, the
  // merged copies' calls did not compile. A helper template's instance
  // is gpumerge's own, at file scope.
  // A library's function keeps the qualifier as the input wrote it
  // (`wu::half(s)` came out `half(s)`, which nvcc did not compile, or
  // which names another function); unwritten, the library's namespaces
  // are its own business.
  std::string Scope;
  if (isUserCode(Callee.getLocation()) && !Callee.isTemplateInstantiation())
    Scope = namespaceQualifier(Callee);
  else if (const auto *R = llvm::dyn_cast<DeclRefExpr>(
               C.getCallee()->IgnoreParenImpCasts());
           R && R->getQualifier()) {
    llvm::raw_string_ostream OS(Scope);
    R->getQualifier()->print(OS, Ctx.getPrintingPolicy());
  }
  return Scope;
}

ExprPtr Lowering::lowerCall(const clang::CallExpr &C, SourceLocation Loc) {
  const FunctionDecl *Callee = C.getDirectCallee();
  if (!Callee)
    return failExpr("indirect call", Loc);
  std::string Name = Callee->getNameAsString();
  // A member function (`cg::this_thread_block().thread_rank()`,
  // `acc.get()`, a struct's operator, `Counter::next()`): as a call of its
  // name it would lose its object and class (the output called an
  // undefined `thread_rank()`), and what it reads is out of sight.
  if (const auto *Method = llvm::dyn_cast<CXXMethodDecl>(Callee))
    return failExpr("call of member function '" +
                        Method->getQualifiedNameAsString() + "'",
                    Loc);
  if (const FunctionDecl *Def = inlinedHelper(*Callee)) {
    if (ExprPtr V = inlineCall(C, *Def, Loc))
      return V;
    return failExpr("the value of void function '" + Name + "'", Loc);
  }
  bool Handled;
  if (ExprPtr B = lowerWorkItemCall(Name, C, Handled); Handled)
    return B;
  if (llvm::StringRef(Name).startswith("make_") && isCudaVector(C.getType()) &&
      !isUserCode(Callee->getLocation()))
    return vectorLiteral(C.getType(),
                         llvm::ArrayRef(C.getArgs(), C.getNumArgs()), Loc);
  if (std::string Why = refusedCall(*Callee, Name); !Why.empty())
    return failExpr(Why, Loc);
  if (Name == "__ldg" && !isUserCode(Callee->getLocation()))
    if (ExprPtr R = lowerLdg(C, Loc))
      return R;
  std::vector<ExprPtr> Args;
  for (const clang::Expr *A : C.arguments()) {
    if (A->getType()->isPointerType())
      return failExpr("pointer argument to '" + Name + "'", Loc);
    if (llvm::isa<CXXDefaultArgExpr>(A)) // __syncwarp(), mask left out
      return failExpr("call of '" + Name + "' with a default argument", Loc);
    Args.push_back(lowerCallArgument(A));
  }
  if (std::string Why = unseenPositionRead(*Callee, Name); !Why.empty())
    return failExpr(Why, Loc);
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
  if (std::optional<std::string> Written = textureTemplateArgs(C, *Callee)) {
    if (Written->empty())
      return failExpr("call of '" + Name +
                          "' with template arguments written in a macro",
                      Loc);
    Name += *Written;
  }
  auto Call = std::make_unique<gpumerge::CallExpr>(Name, std::move(Args),
                                                   lowerType(C.getType(), Loc));
  Call->Scope = callScope(C, *Callee);
  return Call;
}

} // namespace gpumerge
