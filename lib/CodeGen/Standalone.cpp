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

std::string emitStandaloneCuda(const Function &F) {
  std::map<std::string, std::string> Typedefs; // name → the scalar it names
  std::map<std::string, std::string> Macros;   // name → its value
  auto NoteType = [&](const Type &T) {
    if (!T.TypedefName.empty())
      Typedefs.emplace(T.TypedefName, scalarName(T.Scalar, T.VectorWidth));
  };
  for (const Param &P : F.Params)
    NoteType(P.Ty);
  NoteType(F.ReturnType);
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
      NoteType(D->Ty);
  });
  walkExprs(*F.Body, [&](const Expr &E) {
    NoteType(E.getType());
    if (auto *L = llvm::dyn_cast<IntLit>(&E); L && !L->MacroName.empty())
      Macros.emplace(L->MacroName, valueSpelling(*L));
    if (auto *L = llvm::dyn_cast<FloatLit>(&E); L && !L->MacroName.empty())
      Macros.emplace(L->MacroName, valueSpelling(*L));
  });
  std::string Out;
  for (const auto &[Name, Scalar] : Typedefs)
    Out += "typedef " + Scalar + " " + Name + ";\n";
  for (const auto &[Name, Value] : Macros)
    Out += llvm::formatv(Value[0] == '-' ? "#define {0} ({1})\n"
                                         : "#define {0} {1}\n",
                         Name, Value)
               .str();
  return asyncCopyInclude(F) + Out + emitFunction(F, Language::Cuda);
}

} // namespace gpumerge
