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

#include <algorithm>
#include <map>
#include <set>

using namespace clang;

namespace gpumerge {
namespace {

/// The kernels that the instantiations of templates launch, by where the
/// template writes the launch: what a launch the template leaves to them
/// runs.
class InstantiatedLaunches : public RecursiveASTVisitor<InstantiatedLaunches> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *CE) {
    if (!CE->isTypeDependent()) {
      auto &Kernels = Callees[CE->getBeginLoc().getRawEncoding()];
      if (std::find(Kernels.begin(), Kernels.end(), CE->getDirectCallee()) ==
          Kernels.end())
        Kernels.push_back(CE->getDirectCallee());
    }
    return true;
  }

  /// The kernels launched at \p Loc, each once (null for a launch through
  /// anything but a function's name).
  std::vector<const FunctionDecl *> at(SourceLocation Loc) const {
    auto It = Callees.find(Loc.getRawEncoding());
    return It == Callees.end() ? std::vector<const FunctionDecl *>()
                               : It->second;
  }

private:
  std::map<SourceLocation::UIntTy, std::vector<const FunctionDecl *>> Callees;
};

class CallSiteVisitor : public RecursiveASTVisitor<CallSiteVisitor> {
public:
  CallSiteVisitor(ASTContext &Ctx, Module &M)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), M(M) {
    Instantiated.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

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
    const clang::Expr *Callee = CE->getCallee()->IgnoreParenImpCasts();
    if (auto *ULE = llvm::dyn_cast<UnresolvedLookupExpr>(Callee)) {
      leftToInstantiations(*CE, *ULE);
      return true;
    }
    const FunctionDecl *K = CE->getDirectCallee();
    if (!K || !isKernelDecl(*K))
      return true;
    auto *Ref = llvm::dyn_cast<DeclRefExpr>(Callee);
    if (Ref)
      Callees.insert(Ref);
    if (!SM.isInMainFile(SM.getExpansionLoc(CE->getBeginLoc())))
      return true;
    // `ns::k` of `ns::k<float>`: the launcher's name replaces k<float>.
    std::optional<SourceRange> Name;
    if (Ref)
      Name = SourceRange(Ref->getBeginLoc(), Ref->getNameInfo().getEndLoc());
    KernelCallSite C = launchSite(*CE, *K, Name);
    C.PrototypeBegin = prototypeBegin(*K);
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
    notRewritable(*K, Loc,
                  "is used other than by a <<<>>> launch, which would see a "
                  "kernel with a different launch");
    return true;
  }

  /// A kernel named in a call whose callee a template leaves unresolved.
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
    SourceLocation Loc = SM.getExpansionLoc(E->getBeginLoc());
    if (Launched.count(E) || !SM.isInMainFile(Loc))
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
  /// The site of the launch \p CE of kernel \p K, named by \p Name (`ns::k`
  /// of `ns::k<float>`) when written plainly: its byte ranges, and why it
  /// cannot be rewritten when it cannot.
  KernelCallSite launchSite(const CUDAKernelCallExpr &CE, const FunctionDecl &K,
                            std::optional<SourceRange> Name) {
    SourceLocation Loc = SM.getExpansionLoc(CE.getBeginLoc());
    KernelCallSite C;
    C.Kernel = kernelInstanceName(K);
    C.Written = K.getNameAsString();
    std::string Why;
    auto Span = [&](const clang::Expr *E, const char *What) {
      std::optional<SourceSpan> S = fileSpan(E->getSourceRange());
      if (!S && Why.empty())
        Why = std::string("its ") + What + " is written in a macro";
      return S.value_or(SourceSpan());
    };
    C.Call = Span(&CE, "launch");
    C.Call.Line = SM.getExpansionLineNumber(Loc);
    if (Name) {
      std::optional<SourceSpan> S = fileSpan(*Name);
      if (!S && Why.empty())
        Why = "its kernel name is written in a macro";
      C.Callee = S.value_or(SourceSpan());
    } else {
      C.Callee = Span(CE.getCallee()->IgnoreParenImpCasts(), "kernel name");
    }
    if (const clang::CallExpr *Config = CE.getConfig())
      for (const clang::Expr *A : Config->arguments()) {
        if (llvm::isa<CXXDefaultArgExpr>(A))
          break; // smem and stream when not written
        C.Config.push_back(Span(A, "configuration"));
      }
    for (const clang::Expr *A : CE.arguments()) {
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
    return C;
  }

  /// A launch in a template whose kernel the template's instantiations
  /// choose (`scale<<<g, b>>>(x, n)` with x a `T *`). Where the name is one
  /// kernel template, or one kernel, and every instantiation launches that
  /// template's instantiation (or that kernel), it has a site per kernel
  /// launched: a kernel template's launch calls the template's dispatcher
  /// (KernelTemplate). Otherwise the kernels it names are recorded as
  /// unresolved, by VisitUnresolvedLookupExpr.
  void leftToInstantiations(const CUDAKernelCallExpr &CE,
                            const UnresolvedLookupExpr &ULE) {
    if (!SM.isInMainFile(SM.getExpansionLoc(CE.getBeginLoc())) ||
        ULE.getNumDecls() != 1)
      return;
    const NamedDecl *Named = (*ULE.decls_begin())->getUnderlyingDecl();
    const auto *Template = llvm::dyn_cast<FunctionTemplateDecl>(Named);
    const FunctionDecl *Plain = llvm::dyn_cast<FunctionDecl>(Named);
    const FunctionDecl *Pattern =
        Template ? Template->getTemplatedDecl() : Plain;
    if (!Pattern || !isKernelDecl(*Pattern))
      return;
    // What the instantiations launch there: the template's instantiations,
    // or the kernel itself, and nothing else.
    std::vector<const FunctionDecl *> Kernels;
    for (const FunctionDecl *K : Instantiated.at(CE.getBeginLoc())) {
      const NamedDecl *Of = K;
      if (K && Template)
        Of = K->getPrimaryTemplate();
      if (!Of || Of->getCanonicalDecl() != Named->getCanonicalDecl())
        return;
      Kernels.push_back(K);
    }
    // A kernel template's launch that no instantiation makes stays as
    // written: the template is the input's kernel, never optimized in place.
    if (Kernels.empty() && !Template)
      return;
    Launched.insert(&ULE);
    if (Kernels.empty())
      return;
    std::string Why = Template ? dispatcherProblem(*Template) : "";
    std::optional<SourceSpan> Args;
    if (ULE.hasExplicitTemplateArgs()) {
      Args = fileSpan(SourceRange(ULE.getLAngleLoc(), ULE.getRAngleLoc()));
      if (!Args && Why.empty())
        Why = "its template arguments are written in a macro";
    }
    for (const FunctionDecl *K : Kernels) {
      KernelCallSite C = launchSite(
          CE, *K,
          SourceRange(ULE.getBeginLoc(), ULE.getNameInfo().getEndLoc()));
      if (Template) {
        C.Template = Template->getNameAsString();
        C.TemplateArgs = Args;
      } else {
        C.PrototypeBegin = prototypeBegin(*K);
      }
      if (C.NotRewritable.empty() && !Why.empty())
        C.NotRewritable = "launch of kernel '" + C.Kernel +
                          "' cannot call a generated launcher: " + Why;
      M.CallSites.push_back(std::move(C));
    }
  }

  /// Why kernel template \p T can have no dispatcher, or "" when it can,
  /// which is then among M.KernelTemplates: its template parameters and
  /// parameters named and written in the main file, no pack, no default
  /// argument, and no other kernel template of its name dispatched.
  std::string dispatcherProblem(const FunctionTemplateDecl &T) {
    std::string Name = T.getNameAsString();
    auto [It, New] =
        DispatchedTemplates.try_emplace(Name, DispatchedTemplate{&T, ""});
    if (It->second.Decl->getCanonicalDecl() != T.getCanonicalDecl())
      return "two kernel templates are named '" + Name + "'";
    if (!New)
      return It->second.Problem;
    auto Fail = [&](std::string Why) { return It->second.Problem = Why; };
    // The definition's names: a declaration may name the parameters
    // otherwise, or not at all.
    const FunctionTemplateDecl *Def = &T;
    for (const RedeclarableTemplateDecl *R : T.redecls())
      if (const auto *F = llvm::dyn_cast<FunctionTemplateDecl>(R);
          F && F->getTemplatedDecl()->doesThisDeclarationHaveABody())
        Def = F;
    KernelTemplate KT;
    KT.Name = Name;
    const TemplateParameterList *TPL = Def->getTemplateParameters();
    std::optional<SourceSpan> Header = fileSpan(TPL->getSourceRange());
    if (!Header)
      return Fail("the kernel template's parameters are not written plainly "
                  "in this file");
    KT.Header = M.text(*Header);
    for (const NamedDecl *P : *TPL) {
      if (P->isParameterPack() || P->getName().empty())
        return Fail("the kernel template has a parameter pack or an unnamed "
                    "template parameter");
      KT.Arguments.push_back(P->getNameAsString());
    }
    for (const ParmVarDecl *P : Def->getTemplatedDecl()->parameters()) {
      std::string Param = P->getNameAsString();
      if (Param.empty())
        return Fail("the kernel template's definition leaves a parameter "
                    "unnamed");
      if (P->hasDefaultArg())
        return Fail("the kernel's parameter '" + Param +
                    "' has a default argument");
      std::optional<SourceSpan> S = fileSpan(P->getSourceRange());
      if (!S)
        return Fail("the kernel's parameter '" + Param +
                    "' is written in a macro");
      KT.Params.push_back(M.text(*S));
      KT.ParamNames.push_back(P->getNameAsString());
    }
    M.KernelTemplates.push_back(std::move(KT));
    return "";
  }

  void unresolved(const FunctionDecl &K, SourceLocation Loc) {
    if (isKernelDecl(K))
      notRewritable(K, Loc,
                    "is named where a template leaves the call unresolved");
  }

  /// Records that kernel \p K, named at \p Loc, is used there in a way no
  /// launcher can stand for: "kernel 'K' " followed by \p Why.
  void notRewritable(const FunctionDecl &K, SourceLocation Loc,
                     llvm::StringRef Why) {
    KernelCallSite C;
    C.Kernel = kernelInstanceName(K);
    C.Call.Begin = C.Call.End = SM.getFileOffset(Loc);
    C.Call.Line = SM.getExpansionLineNumber(Loc);
    C.NotRewritable = "kernel '" + C.Kernel + "' " + Why.str();
    M.CallSites.push_back(std::move(C));
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  Module &M;
  const FunctionDecl *Current = nullptr;
  std::set<const DeclRefExpr *> Callees;
  /// Names of kernels that leftToInstantiations recorded, or left as
  /// written.
  std::set<const UnresolvedLookupExpr *> Launched;
  /// Kernel templates by name, with why each has no dispatcher ("" where
  /// it has one, among M.KernelTemplates).
  struct DispatchedTemplate {
    const FunctionTemplateDecl *Decl;
    std::string Problem;
  };
  std::map<std::string, DispatchedTemplate> DispatchedTemplates;
  InstantiatedLaunches Instantiated;

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
