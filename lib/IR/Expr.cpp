//===- Expr.cpp - KIR expressions -----------------------------------------===//
#include "IR/Expr.h"

namespace gpumerge {

const char *builtinName(Builtin B) {
  switch (B) {
  case Builtin::Idx:
    return "idx";
  case Builtin::Idy:
    return "idy";
  case Builtin::Tidx:
    return "tidx";
  case Builtin::Tidy:
    return "tidy";
  case Builtin::Bidx:
    return "bidx";
  case Builtin::Bidy:
    return "bidy";
  case Builtin::Bdimx:
    return "bdimx";
  case Builtin::Bdimy:
    return "bdimy";
  case Builtin::Gdimx:
    return "gdimx";
  case Builtin::Gdimy:
    return "gdimy";
  case Builtin::Gsizex:
    return "gsizex";
  case Builtin::Gsizey:
    return "gsizey";
  case Builtin::Idz:
    return "idz";
  case Builtin::Tidz:
    return "tidz";
  case Builtin::Bidz:
    return "bidz";
  case Builtin::Bdimz:
    return "bdimz";
  }
  return "?";
}

unsigned builtinDimension(Builtin B) {
  switch (B) {
  case Builtin::Idy:
  case Builtin::Tidy:
  case Builtin::Bidy:
  case Builtin::Bdimy:
  case Builtin::Gdimy:
  case Builtin::Gsizey:
    return 1;
  case Builtin::Idz:
  case Builtin::Tidz:
  case Builtin::Bidz:
  case Builtin::Bdimz:
    return 2;
  default:
    return 0;
  }
}

bool isPosition(Builtin B) {
  return B == Builtin::Idx || B == Builtin::Idy || B == Builtin::Idz;
}

bool isWidePosition(const Expr &E) {
  const auto *R = llvm::dyn_cast<BuiltinRef>(&E);
  return R && isPosition(R->Which) && R->getType().is64BitInteger();
}

const char *unaryOpSpelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  }
  return "?";
}

const char *binaryOpSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::LT:
    return "<";
  case BinaryOp::GT:
    return ">";
  case BinaryOp::LE:
    return "<=";
  case BinaryOp::GE:
    return ">=";
  case BinaryOp::EQ:
    return "==";
  case BinaryOp::NE:
    return "!=";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::LAnd:
    return "&&";
  case BinaryOp::LOr:
    return "||";
  }
  return "?";
}

int binaryOpPrecedence(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Rem:
    return 13;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return 12;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return 11;
  case BinaryOp::LT:
  case BinaryOp::GT:
  case BinaryOp::LE:
  case BinaryOp::GE:
    return 10;
  case BinaryOp::EQ:
  case BinaryOp::NE:
    return 9;
  case BinaryOp::BitAnd:
    return 8;
  case BinaryOp::BitXor:
    return 7;
  case BinaryOp::BitOr:
    return 6;
  case BinaryOp::LAnd:
    return 5;
  case BinaryOp::LOr:
    return 4;
  }
  return 0;
}

bool isComparison(BinaryOp Op) {
  int P = binaryOpPrecedence(Op);
  return P == 10 || P == 9;
}

BinaryOp swapComparison(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::LT:
    return BinaryOp::GT;
  case BinaryOp::GT:
    return BinaryOp::LT;
  case BinaryOp::LE:
    return BinaryOp::GE;
  case BinaryOp::GE:
    return BinaryOp::LE;
  default:
    return Op;
  }
}

ExprPtr CallExpr::clone() const {
  std::vector<ExprPtr> A;
  for (const ExprPtr &E : Args)
    A.push_back(E->clone());
  auto C = std::make_unique<CallExpr>(Callee, std::move(A), getType());
  C->Scope = Scope;
  return withCommon(std::move(C));
}

ExprPtr ArrayRef::clone() const {
  std::vector<ExprPtr> I;
  for (const ExprPtr &E : Indices)
    I.push_back(E->clone());
  auto R =
      withCommon(std::make_unique<ArrayRef>(Array, std::move(I), getType()));
  R->Space = Space;
  R->VectorWidth = VectorWidth;
  return R;
}

ExprPtr intLit(std::int64_t V) { return std::make_unique<IntLit>(V); }
ExprPtr builtin(Builtin B) { return std::make_unique<BuiltinRef>(B); }
ExprPtr var(const std::string &Name, Type T) {
  return std::make_unique<VarRef>(Name, std::move(T));
}
ExprPtr binary(BinaryOp Op, ExprPtr L, ExprPtr R) {
  Type T = isComparison(Op) || Op == BinaryOp::LAnd || Op == BinaryOp::LOr
               ? Type::scalar(ScalarKind::Int)
               : L->getType();
  if (!isComparison(Op) && R->getType().isFloating() &&
      !L->getType().isFloating())
    T = R->getType();
  unsigned Line = L->getLine();
  auto B = std::make_unique<BinaryExpr>(Op, std::move(L), std::move(R), T);
  B->setLine(Line);
  return B;
}
ExprPtr add(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Add, std::move(L), std::move(R));
}
ExprPtr mul(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Mul, std::move(L), std::move(R));
}

void walkExpr(const Expr &E, const std::function<void(const Expr &)> &F) {
  F(E);
  const_cast<Expr &>(E).forEachChild([&](ExprPtr &C) { walkExpr(*C, F); });
}

bool mentionsVar(const Expr &E, const std::set<std::string> &Names) {
  bool Found = false;
  walkExpr(E, [&](const Expr &X) {
    if (const auto *V = llvm::dyn_cast<VarRef>(&X))
      Found |= Names.count(V->Name) > 0;
  });
  return Found;
}

ExprPtr rewriteExpr(ExprPtr E, const std::function<ExprPtr(Expr &)> &F) {
  E->forEachChild([&](ExprPtr &C) { C = rewriteExpr(std::move(C), F); });
  if (ExprPtr R = F(*E))
    return R;
  return E;
}

bool exprEquals(const Expr &A, const Expr &B) {
  if (A.getKind() != B.getKind())
    return false;
  switch (A.getKind()) {
  case Expr::Kind::IntLit:
    return llvm::cast<IntLit>(A).Value == llvm::cast<IntLit>(B).Value;
  case Expr::Kind::FloatLit:
    return llvm::cast<FloatLit>(A).Value == llvm::cast<FloatLit>(B).Value;
  case Expr::Kind::VarRef:
    return llvm::cast<VarRef>(A).Name == llvm::cast<VarRef>(B).Name;
  case Expr::Kind::BuiltinRef:
    return llvm::cast<BuiltinRef>(A).Which == llvm::cast<BuiltinRef>(B).Which;
  case Expr::Kind::Unary:
    if (llvm::cast<UnaryExpr>(A).Op != llvm::cast<UnaryExpr>(B).Op)
      return false;
    break;
  case Expr::Kind::Binary:
    if (llvm::cast<BinaryExpr>(A).Op != llvm::cast<BinaryExpr>(B).Op)
      return false;
    break;
  case Expr::Kind::Call:
    if (llvm::cast<CallExpr>(A).Callee != llvm::cast<CallExpr>(B).Callee ||
        llvm::cast<CallExpr>(A).Scope != llvm::cast<CallExpr>(B).Scope ||
        llvm::cast<CallExpr>(A).Args.size() !=
            llvm::cast<CallExpr>(B).Args.size())
      return false;
    break;
  case Expr::Kind::Cast:
    if (A.getType() != B.getType())
      return false;
    break;
  case Expr::Kind::ArrayRef:
    if (llvm::cast<ArrayRef>(A).Array != llvm::cast<ArrayRef>(B).Array ||
        llvm::cast<ArrayRef>(A).VectorWidth !=
            llvm::cast<ArrayRef>(B).VectorWidth ||
        llvm::cast<ArrayRef>(A).Indices.size() !=
            llvm::cast<ArrayRef>(B).Indices.size())
      return false;
    break;
  case Expr::Kind::Member:
    if (llvm::cast<MemberExpr>(A).Member != llvm::cast<MemberExpr>(B).Member)
      return false;
    break;
  case Expr::Kind::Select:
    break;
  }
  std::vector<const Expr *> CA, CB;
  const_cast<Expr &>(A).forEachChild(
      [&](ExprPtr &C) { CA.push_back(C.get()); });
  const_cast<Expr &>(B).forEachChild(
      [&](ExprPtr &C) { CB.push_back(C.get()); });
  if (CA.size() != CB.size())
    return false;
  for (size_t I = 0; I < CA.size(); ++I)
    if (!exprEquals(*CA[I], *CB[I]))
      return false;
  return true;
}

} // namespace gpumerge
