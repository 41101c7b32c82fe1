//===- CallSites.cpp - Kernel launches in host code -----------------------===//
//
// Byte ranges come from Lexer::makeFileCharRange, which maps a range to the
// file when it is written there contiguously (also when the whole range is
// one macro argument) and fails otherwise: such a launch is recorded as not
// rewritable instead of being edited wrongly.
//
//===----------------------------------------------------------------------===//
#include "Frontend/CallSites.h"
#include "Frontend/Lower.h"
#include "Frontend/Templates.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <set>

using namespace clang;

namespace gpumerge {
namespace {

class CallSiteVisitor : public RecursiveASTVisitor<CallSiteVisitor> {
public:
  CallSiteVisitor(ASTContext &Ctx, Module &M)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), M(M) {}

  bool TraverseDecl(Decl *D) {
    auto *FD = llvm::dyn_cast_or_null<FunctionDecl>(D);
    if (!FD)
      return RecursiveASTVisitor::TraverseDecl(D);
    const FunctionDecl *Saved = Current;
    Current = FD;
    bool Result = RecursiveASTVisitor::TraverseDecl(D);
    Current = Saved;
    return Result;
  }

  // Parents are visited before their children, so a launch's callee is
  // known as such when its DeclRefExpr is reached.
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *CE) {
    const FunctionDecl *K = CE->getDirectCallee();
    if (!K || !isKernelDecl(*K))
      return true;
    if (auto *Ref =
            llvm::dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      Callees.insert(Ref);
    SourceLocation Loc = SM.getExpansionLoc(CE->getBeginLoc());
    if (!SM.isInMainFile(Loc))
      return true;
    KernelCallSite C;
    C.Kernel = kernelInstanceName(*K);
    C.Written = K->getNameAsString();
    C.PrototypeBegin = prototypeBegin(*K);
    std::string Why;
    auto Span = [&](const clang::Expr *E, const char *What) {
      std::optional<SourceSpan> S = fileSpan(E->getSourceRange());
      if (!S && Why.empty())
        Why = std::string("its ") + What + " is written in a macro";
      return S.value_or(SourceSpan());
    };
    C.Call = Span(CE, "launch");
    C.Call.Line = SM.getExpansionLineNumber(Loc);
    // `ns::k` of `ns::k<float>`: the launcher's name replaces k<float>.
    const clang::Expr *Callee = CE->getCallee()->IgnoreParenImpCasts();
    if (auto *Ref = llvm::dyn_cast<DeclRefExpr>(Callee)) {
      std::optional<SourceSpan> S = fileSpan(
          SourceRange(Ref->getBeginLoc(), Ref->getNameInfo().getEndLoc()));
      if (!S && Why.empty())
        Why = "its kernel name is written in a macro";
      C.Callee = S.value_or(SourceSpan());
    } else {
      C.Callee = Span(Callee, "kernel name");
    }
    if (const clang::CallExpr *Config = CE->getConfig())
      for (const clang::Expr *A : Config->arguments()) {
        if (llvm::isa<CXXDefaultArgExpr>(A))
          break; // smem and stream when not written
        C.Config.push_back(Span(A, "configuration"));
      }
    for (const clang::Expr *A : CE->arguments()) {
      if (llvm::isa<CXXDefaultArgExpr>(A)) {
        if (Why.empty())
          Why = "it leaves an argument to the kernel's default";
        break;
      }
      C.Args.push_back(Span(A, "argument"));
    }
    if (Why.empty() &&
        !llvm::StringRef(M.Source)
             .substr(C.Callee.Begin, C.Callee.End - C.Callee.Begin)
             .endswith(C.Written))
      Why = "the kernel is not named plainly";
    if (Why.empty() && C.Config.size() < 2)
      Why = "its launch configuration is not written out";
    if (Why.empty() && Current &&
        (Current->hasAttr<CUDADeviceAttr>() || isKernelDecl(*Current)))
      Why = "it is in device code (dynamic parallelism)";
    if (!Why.empty())
      C.NotRewritable = "launch of kernel '" + C.Kernel +
                        "' cannot call a generated launcher: " + Why;
    M.CallSites.push_back(std::move(C));
    return true;
  }

  /// Any other mention of a kernel in host code (taken by address, passed
  /// to cudaFuncSetAttribute, ...) would see the optimized kernel.
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *K = llvm::dyn_cast<FunctionDecl>(E->getDecl());
    if (!K || !isKernelDecl(*K) || Callees.count(E))
      return true;
    SourceLocation Loc = SM.getExpansionLoc(E->getBeginLoc());
    if (!SM.isInMainFile(Loc))
      return true;
    KernelCallSite C;
    C.Kernel = kernelInstanceName(*K);
    C.Call.Begin = C.Call.End = SM.getFileOffset(Loc);
    C.Call.Line = SM.getExpansionLineNumber(Loc);
    C.NotRewritable = "kernel '" + C.Kernel +
                      "' is used other than by a <<<>>> launch, which would "
                      "see a kernel with a different launch";
    M.CallSites.push_back(std::move(C));
    return true;
  }

  /// A kernel named in a call whose callee a template leaves unresolved.
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
    SourceLocation Loc = SM.getExpansionLoc(E->getBeginLoc());
    if (!SM.isInMainFile(Loc))
      return true;
    for (const NamedDecl *D : E->decls()) {
      const NamedDecl *U = D->getUnderlyingDecl();
      if (const auto *K = llvm::dyn_cast<FunctionDecl>(U))
        unresolved(*K, Loc);
      // A kernel template named there may stand for any instantiation.
      if (const auto *T = llvm::dyn_cast<FunctionTemplateDecl>(U))
        for (const FunctionDecl *K : T->specializations())
          unresolved(*K, Loc);
    }
    return true;
  }

private:
  void unresolved(const FunctionDecl &K, SourceLocation Loc) {
    if (!isKernelDecl(K))
      return;
    KernelCallSite C;
    C.Kernel = kernelInstanceName(K);
    C.Call.Begin = C.Call.End = SM.getFileOffset(Loc);
    C.Call.Line = SM.getExpansionLineNumber(Loc);
    C.NotRewritable = "kernel '" + C.Kernel +
                      "' is named where a template leaves the call "
                      "unresolved";
    M.CallSites.push_back(std::move(C));
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  Module &M;
  const FunctionDecl *Current = nullptr;
  std::set<const DeclRefExpr *> Callees;

  std::optional<SourceSpan> fileSpan(SourceRange R) const {
    CharSourceRange C = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
    if (C.isInvalid() || !SM.isInMainFile(C.getBegin()))
      return std::nullopt;
    SourceSpan S;
    S.Begin = SM.getFileOffset(C.getBegin());
    S.End = SM.getFileOffset(C.getEnd());
    S.Line = SM.getSpellingLineNumber(C.getBegin());
    return S;
  }

  /// Where \p K's first declaration begins (its attributes, such as
  /// __global__, included), when it is a prototype at file scope of the main
  /// file.
  std::optional<unsigned> prototypeBegin(const FunctionDecl &K) const {
    const FunctionDecl *First = K.getFirstDecl();
    if (First->doesThisDeclarationHaveABody() ||
        !First->getLexicalDeclContext()->isFileContext())
      return std::nullopt;
    SourceLocation Begin = SM.getExpansionLoc(First->getOuterLocStart());
    for (const Attr *A : First->attrs()) {
      SourceLocation L = SM.getExpansionLoc(A->getLocation());
      if (L.isValid() && SM.isInMainFile(L) &&
          SM.isBeforeInTranslationUnit(L, Begin))
        Begin = L;
    }
    if (!SM.isInMainFile(Begin))
      return std::nullopt;
    return SM.getFileOffset(Begin);
  }
};

} // namespace

void collectKernelCallSites(ASTContext &Ctx, Module &M) {
  CallSiteVisitor V(Ctx, M);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::stable_sort(M.CallSites.begin(), M.CallSites.end(),
                   [](const KernelCallSite &A, const KernelCallSite &B) {
                     return A.Call.Begin < B.Call.Begin;
                   });
}

} // namespace gpumerge
