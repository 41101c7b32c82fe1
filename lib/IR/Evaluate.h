//===- Evaluate.h - Integer expressions over known scalars ------*- C++ -*-===//
//
// Launch preconditions (`k % 32 == 0`), extents and guards are KIR
// expressions over a kernel's scalar parameters; --verify and the tests
// evaluate them at concrete sizes the way C would (truncating division,
// comparisons and logic give 0 or 1).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_EVALUATE_H
#define GPUMERGE_IR_EVALUATE_H

#include "IR/Expr.h"

#include <map>
#include <optional>

namespace gpumerge {

/// The value of \p E when every variable has its value in \p Values, or
/// nullopt when a variable is unknown, something is not an integer
/// expression, or it divides by zero.
std::optional<std::int64_t>
evaluateInteger(const Expr &E,
                const std::map<std::string, std::int64_t> &Values);

} // namespace gpumerge

#endif
