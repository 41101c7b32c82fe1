//===- Printer.h - Print KIR as C-like source -------------------*- C++ -*-===//
//
// One printer for the debug dump and both emitters: statements, expressions
// with minimal parentheses, declarations. What differs between CUDA, OpenCL
// and the debug form (built-ins, qualifiers, barriers, math names) are virtual
// hooks; the debug form prints the paper's names (idx, tidx, ...).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_PRINTER_H
#define GPUMERGE_IR_PRINTER_H

#include "IR/Kernel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace gpumerge {

class Printer {
public:
  explicit Printer(llvm::raw_ostream &OS) : OS(OS) {}
  virtual ~Printer() = default;

  void printFunction(const Function &F);
  /// \p F's signature alone, as a prototype (`float half(float x);`).
  void printPrototype(const Function &F);
  void printStmt(const Stmt &S);
  void printExpr(const Expr &E, int ParentPrecedence = 0);
  /// The parameter declarations of \p F, comma-separated, as its signature
  /// writes them (for generated host code that takes the same arguments).
  void printParams(const Function &F);
  /// How the language spells \p T ("unsigned int", "uint", "DATA_TYPE").
  std::string typeSpelling(const Type &T) const { return typeName(T); }

protected:
  llvm::raw_ostream &OS;
  unsigned Indent = 0;

  // --- hooks ---------------------------------------------------------------
  /// Prints a built-in; returns the precedence of what it printed (16 for a
  /// primary such as get_global_id(0), 12 for a sum such as
  /// blockIdx.x * blockDim.x + threadIdx.x) so the caller can parenthesize.
  virtual int builtinPrecedence(Builtin B) const { return 16; }
  virtual void printBuiltin(Builtin B) { OS << builtinName(B); }
  /// A position the input computes in 64 bits (isWidePosition): by default
  /// the position converted, `(long)idx`.
  virtual void printWidePosition(const BuiltinRef &R, int Parent);
  virtual std::string typeName(const Type &T) const;
  virtual std::string addressSpaceQualifier(AddressSpace S) const;
  virtual void printSignature(const Function &F);
  virtual void printSync() { OS << "__syncthreads();"; }
  virtual void printGlobalSync() { OS << "gpumerge_global_sync();"; }
  /// An asynchronous copy (AssignStmt::Async) and the pipeline statements:
  /// CUDA's spelling here, a plain assignment and comments in OpenCL.
  virtual void printAsyncCopy(const AssignStmt &A);
  virtual void printPipeline(const PipelineStmt &P);
  virtual std::string calleeName(const std::string &Callee,
                                 const Type &ResultType) const {
    return Callee;
  }
  /// The namespaces naming a callee from file scope (CallExpr::Scope).
  virtual std::string calleeScope(const std::string &Scope) const {
    return Scope;
  }
  /// Arguments the target language adds after a call's own (", 0.0f, 1.0f"
  /// where CUDA's __saturatef(x) becomes clamp(x, 0.0f, 1.0f)).
  virtual std::string trailingArgs(const std::string &Callee,
                                   const Type &ResultType) const {
    return "";
  }
  virtual std::string sharedQualifier() const { return "__shared__ "; }
  /// A pointer no other parameter aliases (LaunchPlan::RestrictArrays):
  /// `__restrict__ ` (CUDA), `restrict ` (OpenCL).
  virtual std::string restrictQualifier() const { return "__restrict__ "; }
  /// A vector from its components: `make_float2(a, b)` (CUDA) or
  /// `(float2)(a, b)` (OpenCL); the debug form is CUDA's.
  virtual void printVectorLiteral(const CallExpr &C);
  /// The texture variant (texture-memory): a parameter of the kernel being
  /// printed that its plan reads through the texture path, and a read of it.
  /// The debug form marks both; the emitters spell each language's form.
  virtual void printTextureParam(const Param &P);
  virtual void printTextureRead(const ArrayRef &A, const Param &P);
  /// An array element read in an expression, other than through the
  /// texture path: `a[i]`. The verifier's race check (RaceCheck.h) prints
  /// its shared arrays' reads through a check.
  virtual void printArrayRead(const ArrayRef &A) { printArrayAccess(A); }
  /// What an assignment assigns to (`a[i]`, `sum`), written by \p A.
  virtual void printAssignTarget(const AssignStmt &A) { printExpr(*A.LHS); }
  /// How an array parameter's elements of type \p Elem are stored: the
  /// type's name but in OpenCL, which stores 16-bit floats it computes as
  /// floats (`half *`, `ushort *`).
  virtual std::string storageTypeName(const Type &Elem) const {
    return typeName(Elem);
  }
  /// \p E, an operation, conversion or literal of a 16-bit float type,
  /// where the language computes it in a wider one and rounds (OpenCL);
  /// false where it is printed as any other.
  virtual bool printHalfPrecision(const Expr &E, int Parent) { return false; }
  /// \p Args, comma-separated (a call's, a vector literal's).
  void printArgs(const std::vector<ExprPtr> &Args);
  /// May \p A, a store of a whole vector that changes one component, be
  /// printed as the component store it stands for (`v.x = e;`)?
  virtual bool spellsComponentStore(const AssignStmt &A) const { return true; }

  /// The function printFunction is printing (null elsewhere: printParams
  /// called alone prints the parameters as declared, for host code).
  const Function *Current = nullptr;
  /// Is \p Array read through the texture path in Current?
  const Param *textureParam(const std::string &Array) const;
  /// The index of \p A into its array's elements in row-major order (a
  /// true 2-D array's a[y][x] is y * N + x).
  ExprPtr flatIndex(const ArrayRef &A, const Param &P) const {
    return flatIndex(A, P.Ty.InnerExtents);
  }
  /// The same for an array whose dimensions after the first have
  /// \p InnerExtents (a __shared__ array's extents but the first).
  static ExprPtr flatIndex(const ArrayRef &A,
                           llvm::ArrayRef<std::int64_t> InnerExtents);

  // --- helpers -------------------------------------------------------------
  void printParam(const Param &P);
  void printDecl(const DeclStmt &D);
  /// `lhs op= rhs;`, the statement as written (an async copy's too). OpenCL
  /// writes the assignments of 16-bit floats otherwise.
  virtual void printAssign(const AssignStmt &A);
  void printBody(const Stmt &S);
  /// `((const float2 *)a)`: array \p A seen as vectors of its VectorWidth.
  void printVectorBase(const ArrayRef &A);
  /// `a[i]`, `a[y][x]` or `((float2 *)a)[i]`: an access as the array.
  void printArrayAccess(const ArrayRef &A);
  /// A pointer parameter: qualifier, `const` when \p Const, the element
  /// type and `*` \p Restrict name (or `(*` \p Restrict name`)[N]`).
  void printPointerParam(const Param &P, bool Const, llvm::StringRef Restrict);
  void indent() { OS.indent(Indent * 2); }
};

/// The debug form of a function (paper's built-in names), for --emit-steps
/// headers, tests and debugging.
std::string printFunctionDebug(const Function &F);
std::string printExprDebug(const Expr &E);

/// The value of the literal \p Lit (an IntLit or a FloatLit) as written in
/// a definition of the macro or file-scope constant it is named by: `30`,
/// `5U`, `-3`, `0.5f`.
std::string valueSpelling(const Expr &Lit);

/// The shortest literal that reads back as \p V in type \p K (Float or
/// Double): `0.5f`, `0.017453292f`, `4.0`.
std::string floatSpelling(double V, ScalarKind K);

} // namespace gpumerge

#endif
