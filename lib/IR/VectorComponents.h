//===- VectorComponents.h - Stores to one component of a vector -*- C++ -*-===//
//
// `v.y = e;` and `c[i].x += e;` write one component of a vector (CUDA's
// float4 or OpenCL's). KIR writes only whole values, so every analysis sees
// the variable or element written where it is: the frontend lowers a
// component store to a store of the whole vector, the other components read
// back, and the printers spell it as the user did.
//
//   v.y = e;          →  v = make_float4(v.x, e, v.z, v.w);   (KIR)
//   c[i].x += e;      →  c[i] = make_float2(c[i].x + e, c[i].y);
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_VECTORCOMPONENTS_H
#define GPUMERGE_IR_VECTORCOMPONENTS_H

#include "IR/Stmt.h"

#include <optional>

namespace gpumerge {

/// The name of component \p K of a vector of \p Width: x, y, z, w up to
/// four, s0 ... sf beyond (OpenCL).
std::string vectorComponentName(unsigned K, unsigned Width);
/// The component \p Name ("x", "s3", "S3") selects, or none for a swizzle
/// of several ("xy", "lo").
std::optional<unsigned> vectorComponentIndex(const std::string &Name,
                                             unsigned Width);

/// `Target.<K> Op= Value` as a store of the whole vector \p Target (a
/// VarRef or an ArrayRef of a vector type).
StmtPtr componentStore(ExprPtr Target, unsigned K, AssignOp Op, ExprPtr Value);

/// What a store of the whole vector that componentStore made writes: one
/// component, with the operator and value the user wrote (`Op=`).
struct StoredComponent {
  unsigned Index;
  AssignOp Op;
  const Expr *Value;
};
/// \p A read as a store to one component, when every other component of its
/// vector literal reads back the target's own.
std::optional<StoredComponent> storedComponent(const AssignStmt &A);

} // namespace gpumerge

#endif
