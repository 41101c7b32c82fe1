//===- FileConstants.h - File-scope constants as literals -------*- C++ -*-===//
//
// Internal to lib/Frontend. Naive kernels name their fixed sizes and
// coefficients at file scope as often as with macros,
//
//   const int DIM = 30;                 // PolyBench's and Rodinia's sizes
//   constexpr float kAlpha = 0.5f;
//   __constant int N = 4;               // OpenCL's program-scope constants
//
// and the lowering reads each such name as its value, printed by the name
// (the IntLit or FloatLit's MacroName) so the output reads like the input.
// Here: which variables qualify, and their values.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_FILECONSTANTS_H
#define GPUMERGE_FRONTEND_FILECONSTANTS_H

#include "clang/AST/Decl.h"

#include <cstdint>
#include <string>
#include <variant>

namespace gpumerge {

/// The value of a file-scope constant: an integer (signed or not, as its
/// type is) or a floating value, exact in a double.
using ConstantValue = std::variant<std::int64_t, double>;

/// \p V's value when it is a constant the kernel may read as a literal: a
/// const (or constexpr, or OpenCL __constant) integer or float/double
/// variable of a namespace, not volatile, whose initializer the compiler
/// evaluates to a finite value that an int64_t or double holds; and its
/// plain name names it where it is read: the reference is not \p Qualified
/// (`ns::N`), or N is declared at file scope or in an anonymous namespace.
/// Otherwise the reason it is not one, for the refusal ("global variable
/// 'n' (...)").
std::variant<ConstantValue, std::string>
fileConstantValue(const clang::VarDecl &V, bool Qualified);

} // namespace gpumerge

#endif
