//===- Lower.h - Clang AST to KIR -------------------------------*- C++ -*-===//
//
// Internal to lib/Frontend. Lowers one FunctionDecl to a KIR Function, or
// says which construct (and line) it cannot express.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_LOWER_H
#define GPUMERGE_FRONTEND_LOWER_H

#include "IR/Kernel.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/Preprocessor.h"

#include <variant>

namespace gpumerge {

struct LoweringFailure {
  std::string Construct;
  unsigned Line = 0;
};

/// A __global__ (CUDA) or __kernel (OpenCL) function.
bool isKernelDecl(const clang::FunctionDecl &FD);

/// "a::b::" for a function declared in namespace b within a: what names it
/// from file scope. Anonymous and inline namespaces need no qualifier.
std::string namespaceQualifier(const clang::FunctionDecl &FD);

/// "ext.h:2": where \p Loc is expanded, the file by its name alone; "" for
/// an invalid location.
std::string fileAndLine(clang::SourceLocation Loc,
                        const clang::SourceManager &SM);

/// Lowers \p FD. Typedefs and object-like macros the body uses are added to
/// \p M (once each), so an emitter can write them again.
std::variant<std::unique_ptr<Function>, LoweringFailure>
lowerFunction(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
              clang::Preprocessor &PP, Module &M);

} // namespace gpumerge

#endif
