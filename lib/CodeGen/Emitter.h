//===- Emitter.h - CUDA and OpenCL source from KIR --------------*- C++ -*-===//
//
// Readable kernels in either language from KIR: names from the source, the
// thread built-ins spelled as the language spells them. A module is written
// back either in place (same language: host code, comments and pragmas kept
// byte for byte, each lowered function replaced) or as a new file (the other
// language: typedefs, macros, helpers and kernels).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_EMITTER_H
#define GPUMERGE_CODEGEN_EMITTER_H

#include "CodeGen/Launcher.h" // launch code for kernels with a LaunchPlan
#include "IR/Kernel.h"
#include "IR/Printer.h"

#include "llvm/Support/Error.h"

#include <map>
#include <set>

namespace gpumerge {

/// A printer for \p L writing to \p OS.
std::unique_ptr<Printer> makeEmitter(Language L, llvm::raw_ostream &OS);

/// One function in \p L.
std::string emitFunction(const Function &F, Language L);
/// \p F in CUDA as a file of its own (for ptxas): the typedefs and #define'd
/// sizes its spellings (and its helpers') name come first, then \p Helpers,
/// the helpers it calls (Module::helpersCalled: each before its callers).
std::string emitStandaloneCuda(const Function &F,
                               const std::vector<const Function *> &Helpers);
/// The #include a CUDA file needs for \p F's asynchronous copies
/// (async-prefetch's __pipeline_memcpy_async), or empty where it has none.
std::string asyncCopyInclude(const Function &F);
/// One expression in \p L (for reports and launch code).
std::string emitExpr(const Expr &E, Language L);

/// Appends \p Line indented by \p Indent and broken before column 80:
/// code after `&& `, `|| ` or `, ` where it can (LLVM style keeps operators
/// at the end of the line), continued 4 columns further; a `// ` comment at
/// spaces, continued as a comment.
void emitLine(std::string &Out, unsigned Indent, llvm::StringRef Line);

struct EmittedModule {
  std::string Text;
  /// Kernels that could not be written in the output language, with why.
  std::vector<std::string> Warnings;
  /// Was a kernel written unoptimized because of a gpumerge bug (a warning
  /// names it)?
  bool InternalError = false;
};

/// Writes \p M in \p L. \p Replacements maps a function name to the KIR that
/// stands for it in the output (the optimized kernel); functions not named
/// there are written from M. A replacement with a LaunchPlan is written
/// after the input's kernel renamed fallbackName(name), and in CUDA followed
/// by its launcher (Launcher.h); the launches of host code kept in place
/// call the launcher. A plan that cannot be used (launchPlanProblem) leaves
/// the input's kernel alone in the output, with a warning. \p Extra is
/// appended after the functions.
///
/// Written in place, the replacements are edits of the input text. Where two
/// edits overlap (a gpumerge bug), the kernels that made them are written
/// unoptimized, with a warning, and InternalError is set; where no kernel
/// made them, the result is an error and nothing should be written.
llvm::Expected<EmittedModule>
emitModule(const Module &M, Language L,
           const std::map<std::string, const Function *> &Replacements = {},
           const std::string &Extra = "");

/// \p M translated to \p L (not its own language) with only the functions
/// named in \p Only: the kernels one verification runs and the helpers they
/// call (Module::callClosure). Another kernel of the file that cannot be
/// written or built in \p L then costs that kernel alone.
EmittedModule emitTranslatedPart(
    const Module &M, Language L, const std::set<std::string> &Only,
    const std::map<std::string, const Function *> &Replacements = {});

} // namespace gpumerge

#endif
