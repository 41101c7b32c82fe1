//===- Expr.h - KIR expressions ---------------------------------*- C++ -*-===//
//
// Expressions of the kernel IR. Thread built-ins (idx, tidx, bidx, ...) are
// first-class nodes so analyses never pattern-match text, and every array
// access is one ArrayRef node whose indices the affine analysis reads.
// Trees own their children (unique_ptr); clone() copies deeply.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_EXPR_H
#define GPUMERGE_IR_EXPR_H

#include "IR/Type.h"

#include "llvm/Support/Casting.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gpumerge {

class Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// The thread-position built-ins of the paper (§3), in X and Y.
enum class Builtin {
  Idx,    ///< blockIdx.x*blockDim.x+threadIdx.x, get_global_id(0)
  Idy,    ///< ... in Y, get_global_id(1)
  Tidx,   ///< threadIdx.x, get_local_id(0)
  Tidy,   ///< threadIdx.y
  Bidx,   ///< blockIdx.x, get_group_id(0)
  Bidy,   ///< blockIdx.y
  Bdimx,  ///< blockDim.x, get_local_size(0)
  Bdimy,  ///< blockDim.y
  Gdimx,  ///< gridDim.x, get_num_groups(0)
  Gdimy,  ///< gridDim.y
  Gsizex, ///< gridDim.x*blockDim.x, get_global_size(0)
  Gsizey,
  /// blockIdx.z*blockDim.z+threadIdx.z, get_global_id(2): the layer of a
  /// 3-D grid. Optimized kernels run blocks one layer deep (block z = 1),
  /// so idz is uniform within their blocks.
  Idz,
  /// threadIdx.z, blockIdx.z, blockDim.z: only while lowering, which folds
  /// them into idz or refuses the kernel.
  Tidz,
  Bidz,
  Bdimz,
};
/// "idx", "tidy", ...: the paper's names, used by the debug printer and the
/// analysis report.
const char *builtinName(Builtin B);
/// 0 for the X built-ins, 1 for Y, 2 for Z.
unsigned builtinDimension(Builtin B);
/// Is \p B a thread's position in the grid (idx, idy, idz)?
bool isPosition(Builtin B);

enum class UnaryOp { Neg, Plus, Not, BitNot };
enum class BinaryOp {
  Mul,
  Div,
  Rem,
  Add,
  Sub,
  Shl,
  Shr,
  LT,
  GT,
  LE,
  GE,
  EQ,
  NE,
  BitAnd,
  BitXor,
  BitOr,
  LAnd,
  LOr
};
const char *unaryOpSpelling(UnaryOp Op);
const char *binaryOpSpelling(BinaryOp Op);
/// C precedence, larger binds tighter (Mul 13 ... LOr 4).
int binaryOpPrecedence(BinaryOp Op);
bool isComparison(BinaryOp Op);
/// The comparison with its operands swapped: `a < b` is `b > a`.
BinaryOp swapComparison(BinaryOp Op);

class Expr {
public:
  enum class Kind {
    IntLit,
    FloatLit,
    VarRef,
    BuiltinRef,
    Unary,
    Binary,
    Select,
    Call,
    Cast,
    ArrayRef,
    Member,
  };
  Kind getKind() const { return K; }
  const Type &getType() const { return Ty; }
  void setType(const Type &T) { Ty = T; }
  unsigned getLine() const { return Line; }
  void setLine(unsigned L) { Line = L; }

  virtual ~Expr() = default;
  virtual ExprPtr clone() const = 0;
  /// Calls \p F on each direct child slot (so callers may replace children).
  virtual void forEachChild(const std::function<void(ExprPtr &)> &F) {}

protected:
  Expr(Kind K, Type T) : K(K), Ty(std::move(T)) {}
  template <typename T>
  std::unique_ptr<T> withCommon(std::unique_ptr<T> E) const {
    E->Line = Line;
    return E;
  }

private:
  Kind K;
  Type Ty;
  unsigned Line = 0;
};

class IntLit : public Expr {
public:
  IntLit(std::int64_t V, Type T = Type::scalar(ScalarKind::Int))
      : Expr(Kind::IntLit, std::move(T)), Value(V) {}
  std::int64_t Value;
  /// WIDTH when it came from `#define WIDTH 2048`, or from the file-scope
  /// constant `const int WIDTH = 2048;`: printed by that name.
  std::string MacroName;
  /// As written ("100U", "0xFFFFFFFFu", "'a'"); empty for literals a pass
  /// made, which print from Value with the suffix of their type. The
  /// spelling keeps an unsigned or long literal's type in the output.
  std::string Spelling;
  ExprPtr clone() const override {
    auto E = withCommon(std::make_unique<IntLit>(Value, getType()));
    E->MacroName = MacroName;
    E->Spelling = Spelling;
    return E;
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::IntLit; }
};

class FloatLit : public Expr {
public:
  FloatLit(double V, std::string Spelling, Type T)
      : Expr(Kind::FloatLit, std::move(T)), Value(V),
        Spelling(std::move(Spelling)) {}
  double Value;
  std::string Spelling; ///< as written: "0.5f", "1.0"
  /// kScale when it came from the file-scope `const float kScale = 0.5f;`
  /// (IntLit's MacroName, for floating values): printed by that name, and
  /// Spelling holds the value.
  std::string MacroName;
  ExprPtr clone() const override {
    auto E = withCommon(std::make_unique<FloatLit>(Value, Spelling, getType()));
    E->MacroName = MacroName;
    return E;
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::FloatLit; }
};

/// A local variable, loop iterator or kernel parameter, by its source name.
class VarRef : public Expr {
public:
  VarRef(std::string Name, Type T)
      : Expr(Kind::VarRef, std::move(T)), Name(std::move(Name)) {}
  std::string Name;
  ExprPtr clone() const override {
    return withCommon(std::make_unique<VarRef>(Name, getType()));
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::VarRef; }
};

/// A built-in, typed int; a thread position the input computes in 64 bits
/// (`(size_t)blockIdx.x * blockDim.x + threadIdx.x`) keeps that type, and
/// prints so (see isWidePosition).
class BuiltinRef : public Expr {
public:
  explicit BuiltinRef(Builtin B, Type T = Type::scalar(ScalarKind::Int))
      : Expr(Kind::BuiltinRef, std::move(T)), Which(B) {}
  Builtin Which;
  ExprPtr clone() const override {
    return withCommon(std::make_unique<BuiltinRef>(Which, getType()));
  }
  static bool classof(const Expr *E) {
    return E->getKind() == Kind::BuiltinRef;
  }
};

/// Is \p E a thread position computed in 64 bits, as the input wrote it?
bool isWidePosition(const Expr &E);

class UnaryExpr : public Expr {
public:
  UnaryExpr(UnaryOp Op, ExprPtr Sub, Type T)
      : Expr(Kind::Unary, std::move(T)), Op(Op), Sub(std::move(Sub)) {}
  UnaryOp Op;
  ExprPtr Sub;
  ExprPtr clone() const override {
    return withCommon(std::make_unique<UnaryExpr>(Op, Sub->clone(), getType()));
  }
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    F(Sub);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Unary; }
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(BinaryOp Op, ExprPtr L, ExprPtr R, Type T)
      : Expr(Kind::Binary, std::move(T)), Op(Op), LHS(std::move(L)),
        RHS(std::move(R)) {}
  BinaryOp Op;
  ExprPtr LHS, RHS;
  ExprPtr clone() const override {
    return withCommon(std::make_unique<BinaryExpr>(Op, LHS->clone(),
                                                   RHS->clone(), getType()));
  }
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    F(LHS);
    F(RHS);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Binary; }
};

/// cond ? t : f
class SelectExpr : public Expr {
public:
  SelectExpr(ExprPtr C, ExprPtr T, ExprPtr F, Type Ty)
      : Expr(Kind::Select, std::move(Ty)), Cond(std::move(C)),
        TrueVal(std::move(T)), FalseVal(std::move(F)) {}
  ExprPtr Cond, TrueVal, FalseVal;
  ExprPtr clone() const override {
    return withCommon(std::make_unique<SelectExpr>(
        Cond->clone(), TrueVal->clone(), FalseVal->clone(), getType()));
  }
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    F(Cond);
    F(TrueVal);
    F(FalseVal);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Select; }
};

/// A call of a math function or a __device__ helper, by name.
class CallExpr : public Expr {
public:
  CallExpr(std::string Callee, std::vector<ExprPtr> Args, Type T)
      : Expr(Kind::Call, std::move(T)), Callee(std::move(Callee)),
        Args(std::move(Args)) {}
  std::string Callee;
  std::vector<ExprPtr> Args;
  /// "a::b::" where the callee is a function of the user's declared in
  /// namespace b within a (`util::words(n)`): what names it from file
  /// scope in CUDA; OpenCL, which has no namespaces, leaves it out.
  std::string Scope;
  ExprPtr clone() const override;
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    for (ExprPtr &A : Args)
      F(A);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Call; }
};

/// An explicit conversion `(float)e`; implicit conversions are not kept (C's
/// rules recreate them when the same declarations are emitted).
class CastExpr : public Expr {
public:
  CastExpr(Type To, ExprPtr Sub)
      : Expr(Kind::Cast, std::move(To)), Sub(std::move(Sub)) {}
  ExprPtr Sub;
  ExprPtr clone() const override {
    return withCommon(std::make_unique<CastExpr>(getType(), Sub->clone()));
  }
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    F(Sub);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Cast; }
};

/// One access to an array: `a[i*w + k]` (one index) or `a[y][x]` (a true 2-D
/// array, one index per dimension, outermost first). The array is a pointer
/// parameter or a shared/local array, named as in the source.
class ArrayRef : public Expr {
public:
  ArrayRef(std::string Array, std::vector<ExprPtr> Indices, Type ElemTy)
      : Expr(Kind::ArrayRef, std::move(ElemTy)), Array(std::move(Array)),
        Indices(std::move(Indices)) {}
  std::string Array;
  std::vector<ExprPtr> Indices;
  AddressSpace Space = AddressSpace::Global;
  /// The array read or written as vectors of this many elements (§3.1):
  /// `((float2 *)a)[i]`, the index counting vectors. 1 for plain accesses;
  /// only the vectorize pass, which runs last, makes others.
  unsigned VectorWidth = 1;
  ExprPtr clone() const override;
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    for (ExprPtr &I : Indices)
      F(I);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::ArrayRef; }
};

/// A vector component: v.x, v.y, v.z, v.w.
class MemberExpr : public Expr {
public:
  MemberExpr(ExprPtr Base, std::string Member, Type T)
      : Expr(Kind::Member, std::move(T)), Base(std::move(Base)),
        Member(std::move(Member)) {}
  ExprPtr Base;
  std::string Member;
  ExprPtr clone() const override {
    return withCommon(
        std::make_unique<MemberExpr>(Base->clone(), Member, getType()));
  }
  void forEachChild(const std::function<void(ExprPtr &)> &F) override {
    F(Base);
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Member; }
};

/// The callee name of a vector built from its components, `make_float2(a, b)`
/// in CUDA and `(float2)(a, b)` in OpenCL; the call's type is the vector.
inline constexpr const char *VectorLiteralCallee = "gpumerge_vector";

// Builders, for passes and tests.
ExprPtr intLit(std::int64_t V);
ExprPtr builtin(Builtin B);
ExprPtr var(const std::string &Name, Type T = Type::scalar(ScalarKind::Int));
ExprPtr binary(BinaryOp Op, ExprPtr L, ExprPtr R);
ExprPtr add(ExprPtr L, ExprPtr R);
ExprPtr mul(ExprPtr L, ExprPtr R);

/// Visits \p E and every expression below it, parents first.
void walkExpr(const Expr &E, const std::function<void(const Expr &)> &F);
/// Does \p E read a variable named in \p Names?
bool mentionsVar(const Expr &E, const std::set<std::string> &Names);
/// Rewrites bottom-up: \p F may return a replacement for a node (or null to
/// keep it). Returns the new root.
ExprPtr rewriteExpr(ExprPtr E, const std::function<ExprPtr(Expr &)> &F);

/// Structural equality (names, values, operators; types ignored).
bool exprEquals(const Expr &A, const Expr &B);

} // namespace gpumerge

#endif
