//===- Standalone.cpp - One kernel as a translation unit of its own -------===//
//
// ptxas measures a kernel compiled alone (registers, spills), without the
// rest of the user's file. Rewritten kernels keep the user's spellings:
// typedef'd element types (DATA_TYPE) and #define'd sizes (WIDTH), which
// that lone file must define again, from the values gpumerge read.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Emitter.h"

#include "IR/Printer.h"
#include "IR/Stmt.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace gpumerge {

/// \p Body inside the namespaces of \p Scope ("a::b::"), where the input
/// defined the function.
static std::string inScope(llvm::StringRef Scope, const std::string &Body) {
  std::string Open, Close;
  while (!Scope.empty()) {
    auto [Name, Rest] = Scope.split("::");
    Open += "namespace " + Name.str() + " {\n";
    Close += "}\n";
    Scope = Rest;
  }
  return Open + Body + Close;
}

std::string emitStandaloneCuda(const Function &F,
                               const std::vector<const Function *> &Helpers) {
  std::map<std::string, std::string> Typedefs; // name → the scalar it names
  std::map<std::string, std::string> Macros;   // name → its value
  auto NoteType = [&](const Type &T) {
    if (!T.TypedefName.empty())
      Typedefs.emplace(T.TypedefName, scalarName(T.Scalar, T.VectorWidth));
  };
  std::vector<const Function *> All = Helpers;
  All.push_back(&F);
  for (const Function *G : All) {
    for (const Param &P : G->Params)
      NoteType(P.Ty);
    NoteType(G->ReturnType);
    walkStmts(*G->Body, [&](Stmt &S) {
      if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
        NoteType(D->Ty);
    });
    walkExprs(*G->Body, [&](const Expr &E) {
      NoteType(E.getType());
      if (auto *L = llvm::dyn_cast<IntLit>(&E); L && !L->MacroName.empty())
        Macros.emplace(L->MacroName, valueSpelling(*L));
      if (auto *L = llvm::dyn_cast<FloatLit>(&E); L && !L->MacroName.empty())
        Macros.emplace(L->MacroName, valueSpelling(*L));
    });
  }
  std::string Out;
  for (const auto &[Name, Scalar] : Typedefs)
    Out += "typedef " + Scalar + " " + Name + ";\n";
  for (const auto &[Name, Value] : Macros)
    Out += llvm::formatv(Value[0] == '-' ? "#define {0} ({1})\n"
                                         : "#define {0} {1}\n",
                         Name, Value)
               .str();
  for (const Function *H : Helpers)
    Out += inScope(H->Scope, emitFunction(*H, Language::Cuda));
  return asyncCopyInclude(F) + Out + emitFunction(F, Language::Cuda);
}

} // namespace gpumerge
