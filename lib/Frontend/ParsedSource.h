//===- ParsedSource.h - One parse of a source by Clang ----------*- C++ -*-===//
//
// How the frontend runs Clang on a source: a kernel-only CUDA file with a
// small prelude (the fast path), host code (or what the prelude does not
// declare) with the CUDA toolkit's headers, OpenCL with its default header.
// What a parse gives back: the AST with the diagnostics Clang printed and
// where its errors are (ContainErrors.h weighs them), and the function
// definitions it holds, sorted as kernels, device helpers and host code, of
// the main file and of the files of the user's it includes (Frontend.cpp
// lowers them).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_PARSEDSOURCE_H
#define GPUMERGE_FRONTEND_PARSEDSOURCE_H

#include "Frontend/FrontendOptions.h"
#include "IR/Kernel.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace gpumerge {

/// Clang's resource directory (builtin headers): the one LLVM was built with
/// when it exists, else found beside the running clang libraries.
llvm::Expected<std::string> findClangResourceDir();

/// Prints the diagnostics and remembers where the errors are, so errors in
/// host code alone (an API the installed toolkit removed) need not stop
/// the kernels.
class ErrorRecorder : public clang::DiagnosticConsumer {
public:
  ErrorRecorder(llvm::raw_ostream &OS, clang::DiagnosticOptions *Opts)
      : Printer(OS, Opts) {}
  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override;
  void EndSourceFile() override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;
  struct Error {
    unsigned Line; ///< in File
    std::string Message;
    clang::FileID File; ///< where it is (expanded), any file
    unsigned FileOffset;
    unsigned ID; ///< Clang's diagnostic
    /// For err_ref_bad_target: the function referenced.
    const clang::FunctionDecl *Referenced;
  };
  std::vector<Error> Errors;
  bool Fatal = false;

private:
  clang::TextDiagnosticPrinter Printer;
};

/// Collects function definitions of the main file: kernels and helpers.
class FunctionCollector
    : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  std::vector<const clang::FunctionDecl *> Kernels, Helpers, Host;
  /// Kernels defined in a header or source file of the user's that the main
  /// file includes (main.cu including kernel.cu).
  std::vector<const clang::FunctionDecl *> IncludedKernels;
  /// Host functions defined there (a test harness's common.h).
  std::vector<const clang::FunctionDecl *> IncludedHost;
  /// Device functions defined there (Function::Included).
  std::vector<const clang::FunctionDecl *> IncludedHelpers;
  void run(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
};

/// One parse of the source: the AST with the diagnostics Clang printed and
/// where its errors are. The recorder is declared first so that it outlives
/// the AST whose diagnostics it consumes.
struct ParsedSource {
  std::unique_ptr<ErrorRecorder> Recorder;
  std::string DiagText;
  std::unique_ptr<clang::ASTUnit> AST;
};

/// Parses \p M's source with the kernel-only prelude or, for host code (or
/// when that fails), with the CUDA toolkit's headers. An error only where
/// Clang builds no AST at all (errors in it are the caller's to weigh).
llvm::Expected<ParsedSource> parseModuleSource(Module &M,
                                               const FrontendOptions &Opts);

/// \p Text, or "cannot parse FILE" where Clang printed nothing, as an error.
llvm::Error parseError(const std::string &Text, const std::string &FileName);

/// The file \p FD is defined in.
clang::FileID fileIdOf(const clang::FunctionDecl &FD,
                       const clang::SourceManager &SM);

/// The file \p FD is defined in, as messages name it: \p MainName for the
/// main file.
std::string fileOf(const clang::FunctionDecl &FD,
                   const clang::SourceManager &SM, const std::string &MainName);

/// Where \p FD is written in its file, from its first attribute to its
/// closing brace.
SourceSpan spanOf(const clang::FunctionDecl &FD,
                  const clang::SourceManager &SM);

/// The definition of the template that \p FD instantiates, from its
/// `template <...>` to the closing brace: where the optimized kernels of its
/// instantiations follow it.
SourceSpan templateSpanOf(const clang::FunctionDecl &FD,
                          const clang::SourceManager &SM);

} // namespace gpumerge

#endif
