//===- Verifier.h - Structural checks of KIR --------------------*- C++ -*-===//
//
// Run after the frontend and after every pass: each name used is declared in
// scope (a parameter, a local, a loop iterator, a shared array), assignment
// targets are assignable, loops step, arrays are indexed once per dimension.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_VERIFIER_H
#define GPUMERGE_IR_VERIFIER_H

#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

namespace gpumerge {

/// Errors name the function, the problem and the source line.
llvm::Error verifyFunction(const Function &F);

} // namespace gpumerge

#endif
