//===- OpenCLEmitter.cpp - KIR as OpenCL C 1.2 ----------------------------===//
#include "CodeGen/OpenCLEmitter.h"
#include "CodeGen/Emitter.h"
#include "IR/HalfPrecision.h"

namespace gpumerge {

std::unique_ptr<Printer> makeOpenCLEmitter(llvm::raw_ostream &OS) {
  return std::make_unique<OpenCLEmitter>(OS);
}

/// Is \p A an element of a 16-bit float array kept as 16 bits (a kernel's
/// array in global or constant memory)?
static bool storedHalfPrecision(const ArrayRef &A) {
  return A.getType().isHalfPrecision() &&
         (A.Space == AddressSpace::Global || A.Space == AddressSpace::Constant);
}

std::string OpenCLEmitter::storageTypeName(const Type &Elem) const {
  if (Elem.Scalar == ScalarKind::Half)
    return "half";
  if (Elem.Scalar == ScalarKind::BFloat16)
    return "ushort";
  return typeName(Elem);
}

ExprPtr OpenCLEmitter::storedIndex(const ArrayRef &A) const {
  if (A.Indices.size() == 1)
    return A.Indices[0]->clone();
  const Param *P = Current ? Current->findParam(A.Array) : nullptr;
  if (!P && Current)
    for (const Param &C : Current->ConstantArrays)
      if (C.Name == A.Array)
        P = &C;
  if (!P)
    return flatIndex(A, llvm::ArrayRef<std::int64_t>());
  return flatIndex(A, *P);
}

void OpenCLEmitter::printArrayRead(const ArrayRef &A) {
  if (!storedHalfPrecision(A)) {
    Printer::printArrayRead(A);
    return;
  }
  if (A.getType().Scalar == ScalarKind::Half) {
    OS << "vload_half(";
    printExpr(*storedIndex(A), 2);
    OS << ", " << A.Array << ")";
    return;
  }
  OS << "gpumerge_bf16_to_float(";
  Printer::printArrayRead(A);
  OS << ")";
}

bool OpenCLEmitter::printHalfPrecision(const Expr &E, int Parent) {
  if (&E == Unrounded)
    return false;
  ScalarKind K = E.getType().Scalar;
  if (const auto *C = llvm::dyn_cast<CastExpr>(&E)) {
    const Type &From = C->Sub->getType();
    if (From.Scalar == K) { // a conversion to itself
      printExpr(*C->Sub, Parent);
      return true;
    }
    OS << openclRoundingFunction(K) << "(";
    if (From.Scalar != ScalarKind::Float || From.IsPointer) {
      OS << "(float)";
      printExpr(*C->Sub, 14);
    } else {
      printExpr(*C->Sub, 2);
    }
    OS << ")";
    return true;
  }
  // What computes a new value rounds it (a comparison is no 16-bit float);
  // a variable, an element, a negation or a choice holds one already, and
  // so does a literal the type holds (0.0f).
  if (const auto *L = llvm::dyn_cast<FloatLit>(&E);
      L && float(L->Value) == roundToHalfPrecision(K, float(L->Value)))
    return false;
  if (!llvm::isa<BinaryExpr>(E) && !llvm::isa<CallExpr>(E) &&
      !llvm::isa<FloatLit>(E))
    return false;
  const Expr *Outer = Unrounded;
  Unrounded = &E;
  OS << openclRoundingFunction(K) << "(";
  printExpr(E, 2);
  OS << ")";
  Unrounded = Outer;
  return true;
}

void OpenCLEmitter::printAssign(const AssignStmt &A) {
  const Type &T = A.LHS->getType();
  if (!T.isHalfPrecision()) {
    Printer::printAssign(A);
    return;
  }
  // The value assigned, rounded by printExpr: `s += x` is s = round(s + x).
  ExprPtr Value = A.RHS->clone();
  if (std::optional<BinaryOp> Op = assignBinaryOp(A.Op)) {
    Value = binary(*Op, A.LHS->clone(), std::move(Value));
    Value->setType(T.element());
  }
  const auto *Stored = llvm::dyn_cast<ArrayRef>(A.LHS.get());
  if (!Stored || !storedHalfPrecision(*Stored)) {
    printAssignTarget(A);
    OS << " = ";
    printExpr(*Value, 2);
    OS << ";";
    return;
  }
  if (T.Scalar == ScalarKind::Half) {
    OS << "vstore_half_rte(";
    printExpr(*Value, 2);
    OS << ", ";
    printExpr(*storedIndex(*Stored), 2);
    OS << ", " << Stored->Array << ");";
    return;
  }
  Printer::printArrayAccess(*Stored);
  OS << " = gpumerge_float_to_bf16(";
  printExpr(*Value, 2);
  OS << ");";
}

} // namespace gpumerge
