//===- CallSites.h - Kernel launches in host code ---------------*- C++ -*-===//
//
// Internal to lib/Frontend. Finds every `k<<<grid, block[, smem[, stream]]>>>
// (args)` of the main file and every other use of a kernel's name there
// (cudaFuncSetAttribute(k, ...), a function pointer), so the emitter can
// rewrite launches into launcher calls, and knows when it cannot.
//
// A launch in a template that leaves its kernel to the template's
// instantiations (`scale<<<g, b>>>(x, n)` with x a `T *`) is read through
// them: it has a site per kernel they launch there, and for a kernel
// template the template's parameters as written (M.KernelTemplates), from
// which CodeGen writes the dispatcher such a launch calls (TemplateLaunch.h).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_CALLSITES_H
#define GPUMERGE_FRONTEND_CALLSITES_H

#include "IR/Kernel.h"

#include "clang/AST/ASTContext.h"

namespace gpumerge {

/// Appends the kernel launches and other kernel uses of the main file to
/// M.CallSites, in source order, and the kernel templates whose launches
/// call a dispatcher to M.KernelTemplates.
void collectKernelCallSites(clang::ASTContext &Ctx, Module &M);

} // namespace gpumerge

#endif
