//===- CudaEmitter.cpp - KIR as CUDA C++ ----------------------------------===//
#include "CodeGen/Emitter.h"
#include "CodeGen/MathSpellings.h"

namespace gpumerge {
namespace {

class CudaEmitter : public Printer {
public:
  using Printer::Printer;

protected:
  int builtinPrecedence(Builtin B) const override {
    switch (B) {
    case Builtin::Idx:
    case Builtin::Idy:
    case Builtin::Idz:
      return 12; // blockIdx.x * blockDim.x + threadIdx.x
    case Builtin::Gsizex:
    case Builtin::Gsizey:
      return 13; // gridDim.x * blockDim.x
    default:
      return 16;
    }
  }
  /// As the input wrote it: `(size_t)blockIdx.x * blockDim.x + threadIdx.x`,
  /// a product in 64 bits.
  void printWidePosition(const BuiltinRef &R, int Parent) override {
    char L = "xyz"[builtinDimension(R.Which)];
    bool Paren = Parent > 12;
    OS << (Paren ? "(" : "") << "(" << typeName(R.getType()) << ")blockIdx."
       << L << " * blockDim." << L << " + threadIdx." << L
       << (Paren ? ")" : "");
  }
  void printBuiltin(Builtin B) override {
    char L = "xyz"[builtinDimension(B)];
    const char *D = builtinDimension(B) == 0 ? "x" : "y";
    switch (B) {
    case Builtin::Idx:
    case Builtin::Idy:
    case Builtin::Idz:
      OS << "blockIdx." << L << " * blockDim." << L << " + threadIdx." << L;
      return;
    case Builtin::Tidx:
    case Builtin::Tidy:
    case Builtin::Tidz:
      OS << "threadIdx." << L;
      return;
    case Builtin::Bidx:
    case Builtin::Bidy:
    case Builtin::Bidz:
      OS << "blockIdx." << L;
      return;
    case Builtin::Bdimx:
    case Builtin::Bdimy:
    case Builtin::Bdimz:
      OS << "blockDim." << L;
      return;
    case Builtin::Gdimx:
    case Builtin::Gdimy:
      OS << "gridDim." << D;
      return;
    case Builtin::Gsizex:
    case Builtin::Gsizey:
      OS << "gridDim." << D << " * blockDim." << D;
      return;
    }
  }
  std::string typeName(const Type &T) const override {
    if (!T.TypedefName.empty())
      return T.TypedefName;
    if (T.VectorWidth == 1) {
      switch (T.Scalar) {
      case ScalarKind::Char:
        return T.SpelledSigned ? "signed char" : "char";
      case ScalarKind::UChar:
        return "unsigned char";
      case ScalarKind::UShort:
        return "unsigned short";
      case ScalarKind::UInt:
        return "unsigned int";
      case ScalarKind::Long:
        return T.SpelledLong ? "long" : "long long";
      case ScalarKind::ULong:
        return T.SpelledLong ? "unsigned long" : "unsigned long long";
      default:
        break;
      }
    }
    return Printer::typeName(T);
  }
  // texture-memory, object form: `cudaTextureObject_t a_tex` read with
  // tex1Dfetch<float>(a_tex, i) (the launcher creates the object); ldg form:
  // `const float *__restrict__ a` read with __ldg(&a[i]); restrict form: the
  // same parameter read as a[i].
  void printTextureParam(const Param &P) override {
    if (Current->Plan->Texture == TextureForm::Object) {
      OS << "cudaTextureObject_t "
         << textureParamName(*Current, P.Name, Language::Cuda);
      return;
    }
    printPointerParam(P, true, restrictQualifier());
  }
  void printTextureRead(const ArrayRef &A, const Param &P) override {
    // A vector read (vectorize) fetches float4 from a four-channel object,
    // or __ldg's float4 overload.
    Type T = A.VectorWidth > 1 ? A.getType() : P.Ty.element();
    if (A.VectorWidth > 1)
      T.TypedefName.clear();
    if (Current->Plan->Texture == TextureForm::Object) {
      OS << "tex1Dfetch<" << typeName(T) << ">("
         << textureParamName(*Current, P.Name, Language::Cuda) << ", ";
      printExpr(*flatIndex(A, P), 2);
      OS << ")";
      return;
    }
    if (Current->Plan->Texture == TextureForm::Restrict) {
      printArrayAccess(A);
      return;
    }
    OS << "__ldg(&";
    printArrayAccess(A);
    OS << ")";
  }
  std::string calleeName(const std::string &Callee,
                         const Type &Result) const override {
    return cudaSpelling(Callee, Result);
  }
};

} // namespace

std::unique_ptr<Printer> makeCudaEmitter(llvm::raw_ostream &OS) {
  return std::make_unique<CudaEmitter>(OS);
}

} // namespace gpumerge
