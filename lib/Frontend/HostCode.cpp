//===- HostCode.cpp - A CUDA file without its host code -------------------===//
#include "Frontend/HostCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <cctype>

namespace gpumerge {

using namespace clang;

/// Is \p FD host code: neither a kernel nor a function written __device__
/// (Clang's implicit __host__ __device__ on lambdas and members does not
/// count)? A constexpr function stays: kernels may call it.
static bool isHostFunction(const FunctionDecl &FD) {
  if (FD.hasAttr<CUDAGlobalAttr>() || FD.isConstexpr())
    return false;
  const auto *Device = FD.getAttr<CUDADeviceAttr>();
  return !Device || Device->isImplicit();
}

/// Is \p VD a host variable at file scope that device code cannot use?
static bool isHostVariable(const VarDecl &VD) {
  if (!VD.isFileVarDecl() || VD.hasAttr<CUDADeviceAttr>() ||
      VD.hasAttr<CUDAConstantAttr>() || VD.hasAttr<CUDASharedAttr>())
    return false;
  return !VD.isConstexpr() && !VD.getType().isConstQualified();
}

namespace {
class HostCodeFinder {
public:
  HostCodeFinder(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
    Text = SM.getBufferData(SM.getMainFileID());
  }
  std::vector<SourceSpan> Spans;

  void visit(const DeclContext &DC) {
    for (const Decl *D : DC.decls()) {
      if (D->isImplicit())
        continue;
      if (const auto *NS = llvm::dyn_cast<NamespaceDecl>(D)) {
        visit(*NS);
      } else if (const auto *LS = llvm::dyn_cast<LinkageSpecDecl>(D)) {
        // `extern "C" void f() {...}` goes whole, `extern "C"` included.
        if (LS->hasBraces())
          visit(*LS);
        else if (const auto *FD =
                     LS->decls_empty()
                         ? nullptr
                         : llvm::dyn_cast<FunctionDecl>(*LS->decls_begin());
                 FD && isHostFunction(*FD))
          add(*LS, FD);
        else if (const auto *VD = LS->decls_empty() ? nullptr
                                                    : llvm::dyn_cast<VarDecl>(
                                                          *LS->decls_begin());
                 VD && isHostVariable(*VD))
          add(*LS, nullptr);
      } else if (const auto *FT = llvm::dyn_cast<FunctionTemplateDecl>(D)) {
        if (isHostFunction(*FT->getTemplatedDecl()))
          add(*FT, FT->getTemplatedDecl());
      } else if (const auto *FD = llvm::dyn_cast<FunctionDecl>(D)) {
        if (isHostFunction(*FD))
          add(*FD, FD);
      } else if (const auto *VD = llvm::dyn_cast<VarDecl>(D)) {
        if (isHostVariable(*VD))
          add(*VD, nullptr);
      }
    }
  }

private:
  const SourceManager &SM;
  llvm::StringRef Text;

  /// \p D's text in the main file, from its first attribute or specifier to
  /// its closing brace or semicolon; nothing when it is not all there.
  void add(const Decl &D, const FunctionDecl *FD) {
    SourceLocation B = SM.getExpansionLoc(D.getBeginLoc());
    SourceLocation E = SM.getExpansionLoc(D.getEndLoc());
    if (B.isInvalid() || E.isInvalid() || !SM.isInMainFile(B) ||
        !SM.isInMainFile(E))
      return;
    unsigned Begin = SM.getFileOffset(B), End = SM.getFileOffset(E);
    // `__host__ void f()`: the attribute's macro may precede the specifiers.
    for (const Attr *A : D.attrs()) {
      SourceLocation L = SM.getExpansionLoc(A->getLocation());
      if (L.isValid() && SM.isInMainFile(L))
        Begin = std::min(Begin, SM.getFileOffset(L));
    }
    // A C++11 attribute's location is its name: `[[` precedes it.
    unsigned Before = Begin;
    while (Before > 0 &&
           std::isspace(static_cast<unsigned char>(Text[Before - 1])))
      --Before;
    if (Before >= 2 && Text.substr(Before - 2, 2) == "[[")
      Begin = Before - 2;
    if (End < Begin || End >= Text.size())
      return;
    ++End; // past the last token's first character: the token follows
    while (End < Text.size() &&
           (std::isalnum(static_cast<unsigned char>(Text[End])) ||
            Text[End] == '_'))
      ++End;
    // A declaration without a body ends at its semicolon; one declarator of
    // several at its comma (the next declarator's span starts over).
    if (!FD || !FD->doesThisDeclarationHaveABody()) {
      unsigned At = End;
      while (At < Text.size() &&
             std::isspace(static_cast<unsigned char>(Text[At])))
        ++At;
      if (At < Text.size() && (Text[At] == ';' || Text[At] == ','))
        End = At + 1;
    }
    SourceSpan S;
    S.Begin = Begin;
    S.End = End;
    S.Line = SM.getExpansionLineNumber(B);
    Spans.push_back(S);
  }
};
} // namespace

std::vector<SourceSpan> hostCodeSpans(ASTContext &Ctx) {
  HostCodeFinder Finder(Ctx);
  Finder.visit(*Ctx.getTranslationUnitDecl());
  std::sort(Finder.Spans.begin(), Finder.Spans.end(),
            [](const SourceSpan &A, const SourceSpan &B) {
              return A.Begin < B.Begin;
            });
  return std::move(Finder.Spans);
}

std::string withoutHostCode(const std::string &Text,
                            const std::vector<SourceSpan> &Host) {
  std::string Out = Text;
  for (const SourceSpan &S : Host) {
    // A preprocessor line inside (an #if around part of a body) stays, so
    // every conditional keeps its other half.
    bool LineStart = S.Begin == 0 || Out[S.Begin - 1] == '\n';
    bool Directive = false;
    for (unsigned I = S.Begin; I < S.End && I < Out.size(); ++I) {
      char C = Out[I];
      if (LineStart && !std::isspace(static_cast<unsigned char>(C)))
        Directive = C == '#';
      if (C == '\n') {
        LineStart = true;
        Directive = false;
        continue;
      }
      if (!std::isspace(static_cast<unsigned char>(C)))
        LineStart = false;
      if (!Directive)
        Out[I] = ' ';
    }
  }
  return Out;
}

llvm::Expected<std::string> deviceCodeOf(const std::string &Text,
                                         const std::string &FileName,
                                         const FrontendOptions &Opts) {
  FrontendOptions Cuda = Opts;
  Cuda.Lang = Language::Cuda;
  auto M = parseSource(Text, FileName, Cuda);
  if (!M)
    return M.takeError();
  return withoutHostCode((*M)->Source, (*M)->HostCode);
}

} // namespace gpumerge
