//===- HostCode.cpp - A CUDA file without its host code -------------------===//
#include "Frontend/HostCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

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

/// Is \p VD a variable at file scope written with none of __device__,
/// __constant__, __shared__ (Clang makes some const ones __constant__)?
static bool isHostScopeVariable(const VarDecl &VD) {
  auto Written = [&](const Attr *A) { return A && !A->isImplicit(); };
  return VD.isFileVarDecl() && !Written(VD.getAttr<CUDADeviceAttr>()) &&
         !Written(VD.getAttr<CUDAConstantAttr>()) &&
         !Written(VD.getAttr<CUDASharedAttr>());
}

/// Is \p VD a host variable at file scope that device code cannot use?
static bool isHostVariable(const VarDecl &VD) {
  return isHostScopeVariable(VD) && !VD.isConstexpr() &&
         !VD.getType().isConstQualified();
}

/// The classes and variables device code names: in kernels, __device__
/// functions (parameters and bodies), device variables and the initializers
/// of const ones.
class DeviceTypes : public RecursiveASTVisitor<DeviceTypes> {
public:
  explicit DeviceTypes(const SourceManager &SM) : SM(SM) {}

  std::set<const CXXRecordDecl *> Named;
  std::set<const VarDecl *> NamedVars;

  // The toolkit's headers name no class or variable of the user's; host
  // functions (methods, constructors, templates' instantiations: every
  // kind reaches here) and host variables name nothing device code needs.
  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!llvm::isa<TranslationUnitDecl>(D) &&
        SM.isInSystemHeader(D->getLocation()))
      return true;
    if (const auto *FD = llvm::dyn_cast<FunctionDecl>(D);
        FD && isHostFunction(*FD))
      return true;
    if (const auto *VD = llvm::dyn_cast<VarDecl>(D); VD && isHostVariable(*VD))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  // A class's own members are not a use of it.
  bool TraverseCXXRecordDecl(CXXRecordDecl *RD) {
    for (Decl *D : RD->decls())
      if (!TraverseDecl(D))
        return false;
    return true;
  }
  // Through typedefs, pointers, arrays and references.
  bool VisitTypeLoc(TypeLoc TL) {
    QualType T = TL.getType().getCanonicalType();
    while (!T.isNull() &&
           (T->isPointerType() || T->isReferenceType() || T->isArrayType()))
      T = T->isArrayType() ? QualType(T->getArrayElementTypeNoTypeQual(), 0)
                           : T->getPointeeType().getCanonicalType();
    if (!T.isNull())
      name(T->getAsCXXRecordDecl());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *VD = llvm::dyn_cast<VarDecl>(E->getDecl()))
      NamedVars.insert(VD->getCanonicalDecl());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    name(E->getConstructor()->getParent());
    return true;
  }
  bool shouldVisitTemplateInstantiations() const { return true; }

private:
  const SourceManager &SM;

  /// \p RD and its bases are named (its members' types are visited anyway).
  void name(const CXXRecordDecl *RD) {
    if (!RD || !Named.insert(RD->getCanonicalDecl()).second ||
        !RD->hasDefinition())
      return;
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases())
      name(Base.getType()->getAsCXXRecordDecl());
  }
};

/// Is \p RD a class of host code: a definition standing alone (not a
/// typedef's or a variable's), its member functions all host code, that
/// device code never names (Rodinia's timer class, whose std::vector NVRTC
/// has no header for; streamcluster's struct of a pthread_barrier_t *)?
static bool isHostClass(const CXXRecordDecl &RD,
                        const std::set<const CXXRecordDecl *> &DeviceNamed) {
  if (!RD.isThisDeclarationADefinition() || RD.getDescribedClassTemplate() ||
      RD.isEmbeddedInDeclarator() || RD.isLambda() ||
      DeviceNamed.count(RD.getCanonicalDecl()))
    return false;
  for (const Decl *D : RD.decls()) {
    if (const auto *FT = llvm::dyn_cast<FunctionTemplateDecl>(D))
      D = FT->getTemplatedDecl();
    if (const auto *MD = llvm::dyn_cast<CXXMethodDecl>(D)) {
      if (MD->isImplicit())
        continue;
      if (!isHostFunction(*MD))
        return false;
    }
  }
  return true;
}

static bool isSpace(char C) {
  return std::isspace(static_cast<unsigned char>(C));
}

namespace {
/// A file of the user's in the parse: the main file or one it includes
/// (through files of the user's), with its host code.
struct UserFile {
  std::string Name;
  llvm::StringRef Text;
  std::vector<std::pair<unsigned, unsigned>> Host; ///< [Begin, End) offsets
  std::map<unsigned, FileID> Included; ///< line of the #include → the file
  std::set<unsigned> Entered; ///< lines of every #include the parse entered
};

class DeviceCodeWriter {
public:
  DeviceCodeWriter(ASTContext &Ctx)
      : SM(Ctx.getSourceManager()), LangOpts(Ctx.getLangOpts()) {
    findUserFiles();
    DeviceTypes Types(SM);
    Types.TraverseDecl(Ctx.getTranslationUnitDecl());
    DeviceNamed = std::move(Types.Named);
    DeviceVars = std::move(Types.NamedVars);
    visit(*Ctx.getTranslationUnitDecl());
  }

  std::string write() { return write(SM.getMainFileID()); }

private:
  const SourceManager &SM;
  const LangOptions &LangOpts;
  std::map<FileID, UserFile> Files;
  std::set<const CXXRecordDecl *> DeviceNamed;
  std::set<const VarDecl *> DeviceVars;

  /// A host variable, or a const one device code never names (Rodinia's
  /// `const float r = -f;`, which NVRTC would initialize on the device).
  bool isHostCode(const VarDecl &VD) const {
    return isHostScopeVariable(VD) &&
           (isHostVariable(VD) || !DeviceVars.count(VD.getCanonicalDecl()));
  }

  /// The main file, then every file entered from a file of the user's that
  /// is not a system header (the toolkit's are), in the order entered.
  void findUserFiles() {
    FileID Main = SM.getMainFileID();
    Files[Main] = {SM.getFileEntryRefForID(Main)
                       ? SM.getFileEntryRefForID(Main)->getName().str()
                       : "",
                   SM.getBufferData(Main),
                   {},
                   {},
                   {}};
    for (unsigned I = 1, E = SM.local_sloc_entry_size(); I < E; ++I) {
      const SrcMgr::SLocEntry &Entry = SM.getLocalSLocEntry(I);
      if (!Entry.isFile())
        continue;
      SourceLocation Start =
          SourceLocation::getFromRawEncoding(Entry.getOffset());
      FileID ID = SM.getFileID(Start);
      SourceLocation From = Entry.getFile().getIncludeLoc();
      if (ID.isInvalid() || ID == Main || From.isInvalid())
        continue;
      auto Parent = Files.find(SM.getFileID(SM.getExpansionLoc(From)));
      if (Parent == Files.end())
        continue;
      unsigned Line = SM.getExpansionLineNumber(From);
      Parent->second.Entered.insert(Line);
      auto Ref = SM.getFileEntryRefForID(ID);
      if (SM.isInSystemHeader(Start) || !Ref)
        continue;
      Parent->second.Included[Line] = ID;
      Files[ID] = {Ref->getName().str(), SM.getBufferData(ID), {}, {}, {}};
    }
  }

  void visit(const DeclContext &DC) {
    for (const Decl *D : DC.decls()) {
      if (D->isImplicit())
        continue;
      if (const auto *NS = llvm::dyn_cast<NamespaceDecl>(D)) {
        visit(*NS);
      } else if (const auto *LS = llvm::dyn_cast<LinkageSpecDecl>(D)) {
        // `extern "C" void f() {...}` goes whole, `extern "C"` included.
        const Decl *Only =
            LS->hasBraces() || LS->decls_empty() ? nullptr : *LS->decls_begin();
        if (LS->hasBraces())
          visit(*LS);
        else if (const auto *FD = llvm::dyn_cast_or_null<FunctionDecl>(Only);
                 FD && isHostFunction(*FD))
          add(*LS, FD);
        else if (const auto *VD = llvm::dyn_cast_or_null<VarDecl>(Only);
                 VD && isHostCode(*VD))
          add(*LS, nullptr);
      } else if (const auto *FT = llvm::dyn_cast<FunctionTemplateDecl>(D)) {
        if (isHostFunction(*FT->getTemplatedDecl())) {
          add(*FT, FT->getTemplatedDecl());
          for (const FunctionDecl *Spec : FT->specializations())
            if (Spec->getTemplateSpecializationKind() >=
                TSK_ExplicitInstantiationDeclaration)
              addExplicitInstantiation(Spec->getPointOfInstantiation());
        }
      } else if (const auto *FD = llvm::dyn_cast<FunctionDecl>(D)) {
        if (isHostFunction(*FD))
          add(*FD, FD);
      } else if (const auto *VD = llvm::dyn_cast<VarDecl>(D)) {
        if (isHostCode(*VD))
          add(*VD, nullptr);
      } else if (const auto *RD = llvm::dyn_cast<CXXRecordDecl>(D)) {
        if (isHostClass(*RD, DeviceNamed))
          add(*RD, nullptr);
      }
    }
  }

  /// \p D's text, from its first attribute or specifier to its closing
  /// brace or semicolon, when all of it is in one file of the user's.
  void add(const Decl &D, const FunctionDecl *FD) {
    SourceLocation B = SM.getExpansionLoc(D.getBeginLoc());
    SourceLocation E = SM.getExpansionLoc(D.getEndLoc());
    if (B.isInvalid() || E.isInvalid())
      return;
    FileID ID = SM.getFileID(B);
    auto File = Files.find(ID);
    if (File == Files.end() || SM.getFileID(E) != ID)
      return;
    llvm::StringRef Text = File->second.Text;
    unsigned Begin = SM.getFileOffset(B);
    // `__host__ void f()`: the attribute's macro may precede the specifiers.
    for (const Attr *A : D.attrs()) {
      SourceLocation L = SM.getExpansionLoc(A->getLocation());
      if (L.isValid() && SM.getFileID(L) == ID)
        Begin = std::min(Begin, SM.getFileOffset(L));
    }
    // A C++11 attribute's location is its name: `[[` precedes it.
    unsigned Before = Begin;
    while (Before > 0 && isSpace(Text[Before - 1]))
      --Before;
    if (Before >= 2 && Text.substr(Before - 2, 2) == "[[")
      Begin = Before - 2;
    unsigned End =
        SM.getFileOffset(Lexer::getLocForEndOfToken(E, 0, SM, LangOpts));
    if (End <= Begin || End > Text.size())
      return;
    // A declaration without a body ends at its semicolon; one declarator of
    // several at its comma (the next declarator's span starts over).
    if (!FD || !FD->doesThisDeclarationHaveABody()) {
      unsigned At = End;
      while (At < Text.size() && isSpace(Text[At]))
        ++At;
      if (At < Text.size() && (Text[At] == ';' || Text[At] == ','))
        End = At + 1;
    }
    File->second.Host.push_back({Begin, End});
  }

  /// `[extern] template void f<float>(float *);`, whose name is at \p Name:
  /// the statement has no declaration of its own in the AST, so its text is
  /// found around the name (back to `template`, on to the `;`).
  void addExplicitInstantiation(SourceLocation Name) {
    if (Name.isInvalid() || Name.isMacroID())
      return;
    auto File = Files.find(SM.getFileID(Name));
    if (File == Files.end())
      return;
    llvm::StringRef Text = File->second.Text;
    size_t At = SM.getFileOffset(Name);
    size_t Begin = Text.substr(0, At).rfind("template");
    size_t End = Text.find(';', At);
    if (Begin == llvm::StringRef::npos || End == llvm::StringRef::npos ||
        Text.slice(Begin, At).find_first_of(";{}#") != llvm::StringRef::npos)
      return;
    llvm::StringRef Before = Text.substr(0, Begin).rtrim();
    if (Before.endswith("extern"))
      Begin = Before.size() - 6;
    File->second.Host.push_back({unsigned(Begin), unsigned(End + 1)});
  }

  /// \p ID's text with its host code blanked (every character but newlines
  /// a space; a preprocessor line inside, such as an #if around part of a
  /// body, stays so every conditional keeps its other half) and its
  /// includes of the user's files written in place.
  std::string write(FileID ID) {
    const UserFile &F = Files.at(ID);
    std::string Out = F.Text.str();
    for (auto [Begin, End] : F.Host) {
      // A `#` that starts a line in a comment or literal is no directive.
      enum { Code, LineComment, BlockComment, Literal } In = Code;
      char Quote = 0;
      bool LineStart = Begin == 0 || F.Text[Begin - 1] == '\n';
      bool Directive = false;
      for (unsigned I = Begin; I < End; ++I) {
        char C = F.Text[I];
        char Next = I + 1 < End ? F.Text[I + 1] : 0;
        if (C == '\n') {
          LineStart = true;
          Directive = false;
          if (In == LineComment)
            In = Code;
          continue;
        }
        if (LineStart && !isSpace(C)) {
          Directive = In == Code && C == '#';
          LineStart = false;
        }
        if (In == Code && C == '/' && (Next == '/' || Next == '*')) {
          In = Next == '/' ? LineComment : BlockComment;
          Out[I] = Directive ? C : ' ';
          if (!Directive)
            Out[I + 1] = ' ';
          ++I;
          continue;
        }
        if (In == BlockComment && C == '*' && Next == '/') {
          In = Code;
          Out[I] = Directive ? C : ' ';
          if (!Directive)
            Out[I + 1] = ' ';
          ++I;
          continue;
        }
        bool DigitSeparator =
            C == '\'' && I > 0 && llvm::isAlnum(F.Text[I - 1]);
        if (In == Code && (C == '"' || C == '\'') && !DigitSeparator) {
          In = Literal;
          Quote = C;
        } else if (In == Literal && C == '\\') {
          if (!Directive)
            Out[I] = ' ';
          if (Next && Next != '\n' && !Directive)
            Out[I + 1] = ' ';
          ++I;
          continue;
        } else if (In == Literal && C == Quote) {
          In = Code;
        }
        if (!Directive)
          Out[I] = ' ';
      }
    }
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    llvm::StringRef(Out).split(Lines, '\n');
    std::string Result;
    for (unsigned N = 0; N < Lines.size(); ++N) {
      llvm::StringRef Line = Lines[N];
      if (N)
        Result += '\n';
      auto Child = F.Included.find(N + 1);
      if (Child != F.Included.end()) {
        Result += "#line 1 \"" + quoted(Files.at(Child->second).Name) + "\"\n";
        Result += write(Child->second);
        Result +=
            "\n#line " + std::to_string(N + 2) + " \"" + quoted(F.Name) + "\"";
        continue;
      }
      // A quoted include not entered (guarded or #pragma once, already in):
      // NVRTC would read the file again, host code and all.
      llvm::StringRef T = Line.ltrim();
      if (!F.Entered.count(N + 1) && T.consume_front("#") &&
          T.ltrim().startswith("include") &&
          T.ltrim().drop_front(7).ltrim().startswith("\""))
        continue;
      Result += Line.str();
    }
    return Result;
  }

  static std::string quoted(llvm::StringRef Path) {
    std::string Out;
    for (char C : Path) {
      if (C == '\\' || C == '"')
        Out += '\\';
      Out += C;
    }
    return Out;
  }
};
} // namespace

std::string deviceCode(ASTContext &Ctx) {
  return DeviceCodeWriter(Ctx).write();
}

} // namespace gpumerge
