//===- OpenCLEmitter.h - KIR as OpenCL C 1.2 --------------------*- C++ -*-===//
//
// The OpenCL printer: built-ins as get_global_id(0) and the like, __local
// arrays, images for the texture variant, barrier(CLK_LOCAL_MEM_FENCE).
// makeEmitter(Language::OpenCL, OS) makes one; the class is here for the
// verifier's race-checking form (RaceCheck.cpp), which prints as it does.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_OPENCLEMITTER_H
#define GPUMERGE_CODEGEN_OPENCLEMITTER_H

#include "CodeGen/MathSpellings.h"
#include "IR/Printer.h"

namespace gpumerge {

/// The OpenCL name of CUDA's 3-vector \p T (Type::Packed): gpumerge_float3.
inline std::string openclPackedVectorName(const Type &T) {
  return "gpumerge_" + scalarName(T.Scalar, 3);
}
/// Its definition, a struct of three lanes as CUDA lays them out.
inline std::string openclPackedVectorTypedef(const Type &T) {
  Type Lane = T.lane();
  return "typedef struct { " + scalarName(Lane.Scalar) + " x, y, z; } " +
         openclPackedVectorName(T) + ";";
}

class OpenCLEmitter : public Printer {
public:
  using Printer::Printer;

protected:
  /// get_global_id is a size_t already: only a signed position converts.
  void printWidePosition(const BuiltinRef &R, int Parent) override {
    if (R.getType().Scalar == ScalarKind::ULong)
      printBuiltin(R.Which);
    else
      Printer::printWidePosition(R, Parent);
  }
  void printBuiltin(Builtin B) override {
    unsigned D = builtinDimension(B);
    switch (B) {
    case Builtin::Idx:
    case Builtin::Idy:
    case Builtin::Idz:
      OS << "get_global_id(" << D << ")";
      return;
    case Builtin::Tidx:
    case Builtin::Tidy:
    case Builtin::Tidz:
      OS << "get_local_id(" << D << ")";
      return;
    case Builtin::Bidx:
    case Builtin::Bidy:
    case Builtin::Bidz:
      OS << "get_group_id(" << D << ")";
      return;
    case Builtin::Bdimx:
    case Builtin::Bdimy:
    case Builtin::Bdimz:
      OS << "get_local_size(" << D << ")";
      return;
    case Builtin::Gdimx:
    case Builtin::Gdimy:
      OS << "get_num_groups(" << D << ")";
      return;
    case Builtin::Gsizex:
    case Builtin::Gsizey:
      OS << "get_global_size(" << D << ")";
      return;
    }
  }
  std::string addressSpaceQualifier(AddressSpace S) const override {
    switch (S) {
    case AddressSpace::Global:
      return "__global ";
    case AddressSpace::Shared:
      return "__local ";
    case AddressSpace::Constant:
      return "__constant ";
    case AddressSpace::Private:
      return "";
    }
    return "";
  }
  std::string sharedQualifier() const override { return "__local "; }
  std::string restrictQualifier() const override { return "restrict "; }
  // texture-memory: float, int and unsigned int arrays are image1d_buffer_t
  // (the host makes them from the buffers, FILE.texture.h), read with
  // read_imagef(a_img, i).x; other element types (double) stay buffers,
  // `const` and `restrict`, OpenCL's way to say read-only.
  void printTextureParam(const Param &P) override {
    if (Current->Plan->readsAsImage(P.Name, P.Ty.element())) {
      OS << "__read_only image1d_buffer_t "
         << textureParamName(*Current, P.Name, Language::OpenCL);
      return;
    }
    printPointerParam(P, true, restrictQualifier());
  }
  void printTextureRead(const ArrayRef &A, const Param &P) override {
    Type T = P.Ty.element();
    if (!Current->Plan->readsAsImage(P.Name, T)) {
      printArrayRead(A);
      return;
    }
    OS << (T.Scalar == ScalarKind::Float ? "read_imagef("
           : T.Scalar == ScalarKind::Int ? "read_imagei("
                                         : "read_imageui(")
       << textureParamName(*Current, P.Name, Language::OpenCL) << ", ";
    ExprPtr Index = flatIndex(A, P);
    bool Cast = Index->getType().Scalar != ScalarKind::Int ||
                Index->getType().IsPointer;
    if (Cast)
      OS << "(int)(";
    printExpr(*Index, 2);
    // A vector read (vectorize) is the whole texel of a four-channel image.
    OS << (Cast ? ")" : "") << (A.VectorWidth > 1 ? ")" : ").x");
  }
  void printSync() override { OS << "barrier(CLK_LOCAL_MEM_FENCE);"; }
  // OpenCL has no cp.async: the copy is an assignment, complete when it
  // returns, and the waits have nothing to wait for.
  void printAsyncCopy(const AssignStmt &A) override {
    printAssign(A);
    OS << " // cp.async in CUDA";
  }
  void printPipeline(const PipelineStmt &P) override {
    OS << (P.Operation == PipelineStmt::Op::Commit
               ? "// CUDA: __pipeline_commit();"
               : "// CUDA: __pipeline_wait_prior(" + std::to_string(P.Prior) +
                     ");");
  }
  /// CUDA's float3 is a struct of three floats in OpenCL, whose float3 has
  /// four (openclPackedVectorName). A 16-bit float is a float (OpenCL C
  /// without cl_khr_fp16 has no half values), whatever the input names it.
  std::string typeName(const Type &T) const override {
    if (T.isHalfPrecision()) {
      Type F = T;
      F.Scalar = ScalarKind::Float;
      F.TypedefName.clear();
      return Printer::typeName(F);
    }
    if (T.Packed && T.TypedefName.empty())
      return openclPackedVectorName(T);
    return Printer::typeName(T);
  }
  // 16-bit floats (CUDA's __half, __nv_bfloat16): computed as floats,
  // rounded after each operation; in global and constant memory a half
  // array read and written with vload_half and vstore_half_rte, a bfloat16
  // one as its bits (ushort); in local and private memory floats.
  std::string storageTypeName(const Type &Elem) const override;
  bool printHalfPrecision(const Expr &E, int Parent) override;
  void printArrayRead(const ArrayRef &A) override;
  void printAssign(const AssignStmt &A) override;
  void printVectorLiteral(const CallExpr &C) override {
    if (C.getType().Packed) { // a struct: (gpumerge_float3){x, y, z}
      Type Vec = C.getType();
      Vec.TypedefName.clear();
      OS << "(" << typeName(Vec) << "){";
      printArgs(C.Args);
      OS << "}";
      return;
    }
    OS << "(" << typeName(C.getType()) << ")(";
    printArgs(C.Args);
    OS << ")";
  }
  void printSignature(const Function &F) override {
    if (F.IsKernel)
      OS << "__kernel ";
    if (F.Overloaded)
      OS << "__attribute__((overloadable)) ";
    OS << typeName(F.ReturnType) << " " << F.Name << "(";
    for (size_t I = 0; I < F.Params.size(); ++I) {
      if (I)
        OS << ", ";
      printParam(F.Params[I]);
    }
    // A CUDA __constant__ array the host fills: an OpenCL argument.
    for (const Param &C : F.ConstantArrays) {
      OS << (F.Params.empty() && &C == &F.ConstantArrays.front() ? "" : ", ");
      printParam(C);
    }
    OS << ")";
  }
  std::string calleeName(const std::string &Callee,
                         const Type &Result) const override {
    return openclSpelling(Callee, Result).Name;
  }
  std::string trailingArgs(const std::string &Callee,
                           const Type &Result) const override {
    return openclSpelling(Callee, Result).TrailingArgs;
  }
  std::string calleeScope(const std::string &) const override { return ""; }

private:
  /// The expression printHalfPrecision is printing unrounded, inside its
  /// rounding.
  const Expr *Unrounded = nullptr;
  /// The index of \p A into its array's elements, flat (vload_half's).
  ExprPtr storedIndex(const ArrayRef &A) const;
};

} // namespace gpumerge

#endif
