//===- LowerHalf.cpp - CUDA's 16-bit floats ------------------------------===//
//
// The Lowering class (Lowering.h): __half and __nv_bfloat16, which
// cuda_fp16.h and cuda_bf16.h define as structs with operators,
// constructors and conversions. Their expressions become KIR's: `a * b` of
// two halves a Binary of type Half, `__half(x)` and `__float2half(x)` a
// Cast to Half, `float(h)` and `__half2float(h)` a Cast to float. Every
// other function of the toolkit's stays a call, as any library function.
//
//===----------------------------------------------------------------------===//
#include "Frontend/Lowering.h"

using namespace clang;

namespace gpumerge {

std::optional<ScalarKind> halfPrecisionKind(QualType Q) {
  const auto *RD = Q->getAsRecordDecl();
  if (!RD || !RD->getIdentifier())
    return std::nullopt;
  llvm::StringRef Name = RD->getName();
  if (Name == "__half")
    return ScalarKind::Half;
  if (Name == "__nv_bfloat16")
    return ScalarKind::BFloat16;
  return std::nullopt;
}

namespace {

/// The toolkit's conversions that are a KIR cast: the value rounded to
/// nearest even into the 16-bit type, or converted out of it (to an integer
/// toward zero, as C converts).
const std::map<std::string, ScalarKind> &halfConversions() {
  static const std::map<std::string, ScalarKind> Table = {
      {"__float2half", ScalarKind::Half},
      {"__float2half_rn", ScalarKind::Half},
      {"__int2half_rn", ScalarKind::Half},
      {"__uint2half_rn", ScalarKind::Half},
      {"__short2half_rn", ScalarKind::Half},
      {"__ushort2half_rn", ScalarKind::Half},
      {"__float2bfloat16", ScalarKind::BFloat16},
      {"__float2bfloat16_rn", ScalarKind::BFloat16},
      {"__int2bfloat16_rn", ScalarKind::BFloat16},
      {"__uint2bfloat16_rn", ScalarKind::BFloat16},
      {"__half2float", ScalarKind::Float},
      {"__bfloat162float", ScalarKind::Float},
      {"__half2int_rz", ScalarKind::Int},
      {"__half2uint_rz", ScalarKind::UInt},
      {"__bfloat162int_rz", ScalarKind::Int},
      {"__bfloat162uint_rz", ScalarKind::UInt},
  };
  return Table;
}

/// The toolkit's arithmetic and comparisons of two 16-bit floats, each
/// rounded once as the operator is (`__hadd(a, b)` is `a + b`).
const std::map<std::string, BinaryOp> &halfOperations() {
  static const std::map<std::string, BinaryOp> Table = {
      {"__hadd", BinaryOp::Add},    {"__hsub", BinaryOp::Sub},
      {"__hmul", BinaryOp::Mul},    {"__hdiv", BinaryOp::Div},
      {"__hadd_rn", BinaryOp::Add}, {"__hsub_rn", BinaryOp::Sub},
      {"__hmul_rn", BinaryOp::Mul}, {"__heq", BinaryOp::EQ},
      {"__hne", BinaryOp::NE},      {"__hlt", BinaryOp::LT},
      {"__hle", BinaryOp::LE},      {"__hgt", BinaryOp::GT},
      {"__hge", BinaryOp::GE},
  };
  return Table;
}

} // namespace

ExprPtr Lowering::lowerHalfPrecision(const clang::Expr *E, bool &Handled) {
  Handled = true;
  SourceLocation Loc = E->getBeginLoc();
  // `__half(x)`, `(__half)x`, `static_cast<float>(h)`: the conversion the
  // cast makes, once (the constructor or conversion function inside it).
  if (const auto *C = llvm::dyn_cast<ExplicitCastExpr>(E)) {
    const clang::Expr *Sub = strip(C->getSubExpr());
    if (halfPrecisionKind(C->getType()) ||
        (llvm::isa<CXXMemberCallExpr>(Sub) &&
         halfPrecisionKind(llvm::cast<CXXMemberCallExpr>(Sub)
                               ->getImplicitObjectArgument()
                               ->getType()))) {
      ExprPtr V = lowerExpr(Sub);
      Type T = lowerType(C->getType(), Loc);
      if (V->getType() == T)
        return V;
      if (const auto *Inner = llvm::dyn_cast<gpumerge::CastExpr>(V.get());
          Inner && Inner->getType().isHalfPrecision() == T.isHalfPrecision())
        return std::make_unique<gpumerge::CastExpr>(T, Inner->Sub->clone());
      return std::make_unique<gpumerge::CastExpr>(T, std::move(V));
    }
  }
  if (const auto *C = llvm::dyn_cast<CXXConstructExpr>(E);
      C && halfPrecisionKind(C->getType())) {
    Type T = lowerType(C->getType(), Loc);
    if (C->getNumArgs() == 1 && C->getConstructor()->isCopyOrMoveConstructor())
      return lowerExpr(C->getArg(0));
    if (C->getNumArgs() == 0)
      return zeroOf(T);
    if (C->getNumArgs() == 1 &&
        strip(C->getArg(0))->getType()->isArithmeticType())
      return std::make_unique<gpumerge::CastExpr>(T, lowerExpr(C->getArg(0)));
    return failExpr("construction of '" + C->getType().getAsString() +
                        "' from '" + C->getArg(0)->getType().getAsString() +
                        "'",
                    Loc);
  }
  // `float f = h;`: the struct's conversion function.
  if (const auto *M = llvm::dyn_cast<CXXMemberCallExpr>(E))
    if (const auto *Conv =
            llvm::dyn_cast_or_null<CXXConversionDecl>(M->getMethodDecl());
        Conv && halfPrecisionKind(M->getImplicitObjectArgument()->getType())) {
      Type To = lowerType(Conv->getConversionType(), Loc);
      if (To.isHalfPrecision() || To.IsPointer || To.VectorWidth != 1)
        return failExpr(
            "conversion of '" +
                M->getImplicitObjectArgument()->getType().getAsString() +
                "' to '" + Conv->getConversionType().getAsString() + "'",
            Loc);
      return std::make_unique<gpumerge::CastExpr>(
          To, lowerExpr(M->getImplicitObjectArgument()));
    }
  // `a * b`, `-a`, `a < b` of 16-bit floats: the toolkit's operators.
  if (const auto *O = llvm::dyn_cast<CXXOperatorCallExpr>(E);
      O && O->getNumArgs() >= 1 && halfPrecisionKind(O->getArg(0)->getType())) {
    OverloadedOperatorKind K = O->getOperator();
    if (O->getNumArgs() == 1 && (K == OO_Minus || K == OO_Plus))
      return std::make_unique<UnaryExpr>(
          K == OO_Minus ? UnaryOp::Neg : UnaryOp::Plus, lowerExpr(O->getArg(0)),
          lowerType(O->getType(), Loc));
    if (O->getNumArgs() == 2 && !O->isAssignmentOp() &&
        halfPrecisionKind(O->getArg(1)->getType()))
      if (auto Op = binaryOp(BinaryOperator::getOverloadedOpcode(K)))
        return std::make_unique<BinaryExpr>(*Op, lowerExpr(O->getArg(0)),
                                            lowerExpr(O->getArg(1)),
                                            lowerType(O->getType(), Loc));
    return failExpr(
        O->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus
            ? "assignment inside an expression"
            : "operator '" + std::string(getOperatorSpelling(K)) + "' of '" +
                  O->getArg(0)->getType().getAsString() + "'",
        Loc);
  }
  if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E)) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (Callee && !isUserCode(Callee->getLocation())) {
      std::string Name = Callee->getNameAsString();
      if (auto It = halfConversions().find(Name);
          It != halfConversions().end() && C->getNumArgs() == 1) {
        Type T = lowerType(C->getType(), Loc);
        if (T.Scalar == It->second)
          return std::make_unique<gpumerge::CastExpr>(T,
                                                      lowerExpr(C->getArg(0)));
      }
      if (auto It = halfOperations().find(Name);
          It != halfOperations().end() && C->getNumArgs() == 2 &&
          halfPrecisionKind(C->getArg(0)->getType()) &&
          halfPrecisionKind(C->getArg(1)->getType()))
        return std::make_unique<BinaryExpr>(It->second, lowerExpr(C->getArg(0)),
                                            lowerExpr(C->getArg(1)),
                                            lowerType(C->getType(), Loc));
      if (Name == "__hneg" && C->getNumArgs() == 1 &&
          halfPrecisionKind(C->getArg(0)->getType()))
        return std::make_unique<UnaryExpr>(UnaryOp::Neg,
                                           lowerExpr(C->getArg(0)),
                                           lowerType(C->getType(), Loc));
    }
  }
  Handled = false;
  return nullptr;
}

StmtPtr Lowering::lowerHalfAssign(const CXXOperatorCallExpr &O,
                                  SourceLocation Loc) {
  OverloadedOperatorKind K = O.getOperator();
  if (K == OO_PlusPlus || K == OO_MinusMinus)
    return failStmt("increment or decrement of '" +
                        O.getArg(0)->getType().getAsString() + "'",
                    Loc);
  std::optional<AssignOp> Op;
  if (O.getNumArgs() == 2 && O.isAssignmentOp())
    Op = K == OO_Equal ? std::optional(AssignOp::Set)
                       : assignOp(BinaryOperator::getOverloadedOpcode(K));
  if (!Op)
    return nullptr;
  ExprPtr Target = lowerExpr(O.getArg(0));
  ExprPtr Value = lowerExpr(O.getArg(1));
  // `h = 1.0f` (its operator=(float)), `h += h2`: the value in the type.
  if (!Value->getType().isHalfPrecision() ||
      Value->getType().Scalar != Target->getType().Scalar) {
    Type T = Target->getType();
    T.IsConst = false;
    Value = std::make_unique<gpumerge::CastExpr>(T, std::move(Value));
  }
  return withLine(
      std::make_unique<AssignStmt>(std::move(Target), *Op, std::move(Value)),
      Loc);
}

} // namespace gpumerge
