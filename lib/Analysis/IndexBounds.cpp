//===- IndexBounds.cpp - What values an integer expression takes ----------===//

#include "Analysis/IndexBounds.h"

#include <algorithm>

namespace gpumerge {

using Range = std::optional<IndexRange>;

/// The values of an integer type of 32 bits or fewer.
static Range typeRange(const Type &T) {
  if (T.IsPointer || T.VectorWidth != 1)
    return std::nullopt;
  switch (T.Scalar) {
  case ScalarKind::Bool:
    return IndexRange{0, 1};
  case ScalarKind::Char:
    return IndexRange{-128, 127};
  case ScalarKind::UChar:
    return IndexRange{0, 255};
  case ScalarKind::Short:
    return IndexRange{-32768, 32767};
  case ScalarKind::UShort:
    return IndexRange{0, 65535};
  case ScalarKind::Int:
    return IndexRange{-2147483648LL, 2147483647LL};
  case ScalarKind::UInt:
    return IndexRange{0, 4294967295LL};
  default:
    return std::nullopt;
  }
}

static bool within(const IndexRange &R, const IndexRange &Of) {
  return R.Lo >= Of.Lo && R.Hi <= Of.Hi;
}

/// The smallest 2^k - 1 at or above \p V (V >= 0).
static std::int64_t allOnesAbove(std::int64_t V) {
  std::int64_t M = 0;
  while (M < V)
    M = M * 2 + 1;
  return M;
}

static Range binaryBounds(BinaryOp Op, const Range &L, const Range &R) {
  if (isComparison(Op) || Op == BinaryOp::LAnd || Op == BinaryOp::LOr)
    return IndexRange{0, 1};
  auto Const = [](const Range &X) { return X && X->Lo == X->Hi; };
  switch (Op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Mul: {
    if (!L || !R)
      return std::nullopt;
    std::int64_t C[4];
    std::int64_t A[2] = {L->Lo, L->Hi}, B[2] = {R->Lo, R->Hi};
    for (int I = 0; I < 2; ++I)
      for (int J = 0; J < 2; ++J) {
        bool Over = Op == BinaryOp::Add
                        ? __builtin_add_overflow(A[I], B[J], &C[I * 2 + J])
                    : Op == BinaryOp::Sub
                        ? __builtin_sub_overflow(A[I], B[J], &C[I * 2 + J])
                        : __builtin_mul_overflow(A[I], B[J], &C[I * 2 + J]);
        if (Over)
          return std::nullopt;
      }
    return IndexRange{*std::min_element(C, C + 4), *std::max_element(C, C + 4)};
  }
  case BinaryOp::Div:
    // Truncation towards zero keeps the order of the dividends.
    if (L && Const(R) && R->Lo > 0)
      return IndexRange{L->Lo / R->Lo, L->Hi / R->Lo};
    return std::nullopt;
  case BinaryOp::Rem:
    // The remainder has the dividend's sign and a smaller magnitude than
    // the divisor.
    if (L && R && R->Lo > 0) {
      std::int64_t M = R->Hi - 1;
      if (L->Lo >= 0)
        return IndexRange{0, std::min(L->Hi, M)};
      return IndexRange{std::max(L->Lo, -M),
                        std::min(std::max(L->Hi, std::int64_t{0}), M)};
    }
    return std::nullopt;
  case BinaryOp::BitAnd:
    if (L && R && L->Lo >= 0 && R->Lo >= 0)
      return IndexRange{0, std::min(L->Hi, R->Hi)};
    if (L && L->Lo >= 0)
      return IndexRange{0, L->Hi};
    if (R && R->Lo >= 0)
      return IndexRange{0, R->Hi};
    return std::nullopt;
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
    if (L && R && L->Lo >= 0 && R->Lo >= 0)
      return IndexRange{0, allOnesAbove(std::max(L->Hi, R->Hi))};
    return std::nullopt;
  case BinaryOp::Shr:
    if (L && L->Lo >= 0 && Const(R) && R->Lo >= 0 && R->Lo < 63)
      return IndexRange{L->Lo >> R->Lo, L->Hi >> R->Lo};
    return std::nullopt;
  case BinaryOp::Shl:
    if (L && L->Lo >= 0 && L->Hi < (1LL << 32) && Const(R) && R->Lo >= 0 &&
        R->Lo < 31)
      return IndexRange{L->Lo << R->Lo, L->Hi << R->Lo};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

static Range boundsImpl(const Expr &E, const AffineContext &Ctx,
                        const std::map<std::string, IndexRange> &Ranges,
                        unsigned Depth) {
  if (Depth > 32)
    return typeRange(E.getType());
  auto Sub = [&](const Expr &X) {
    return boundsImpl(X, Ctx, Ranges, Depth + 1);
  };
  Range R;
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    std::int64_t V = llvm::cast<IntLit>(E).Value;
    return IndexRange{V, V};
  }
  case Expr::Kind::BuiltinRef: {
    auto It = Ranges.find(builtinName(llvm::cast<BuiltinRef>(E).Which));
    if (It != Ranges.end())
      R = It->second;
    break;
  }
  case Expr::Kind::VarRef: {
    const std::string &N = llvm::cast<VarRef>(E).Name;
    if (auto It = Ranges.find(N); It != Ranges.end())
      R = It->second;
    else if (auto D = Ctx.Definitions.find(N);
             D != Ctx.Definitions.end() && !Ctx.LoopIterators.count(N))
      R = Sub(*D->second);
    break;
  }
  case Expr::Kind::Unary: {
    const auto &U = llvm::cast<UnaryExpr>(E);
    Range S = Sub(*U.Sub);
    if (U.Op == UnaryOp::Not)
      R = IndexRange{0, 1};
    else if (S && U.Op == UnaryOp::Plus)
      R = S;
    else if (S && U.Op == UnaryOp::Neg)
      R = IndexRange{-S->Hi, -S->Lo};
    else if (S && U.Op == UnaryOp::BitNot)
      R = IndexRange{-S->Hi - 1, -S->Lo - 1};
    break;
  }
  case Expr::Kind::Binary: {
    const auto &B = llvm::cast<BinaryExpr>(E);
    R = binaryBounds(B.Op, Sub(*B.LHS), Sub(*B.RHS));
    break;
  }
  case Expr::Kind::Select: {
    const auto &S = llvm::cast<SelectExpr>(E);
    Range T = Sub(*S.TrueVal), F = Sub(*S.FalseVal);
    if (T && F)
      R = IndexRange{std::min(T->Lo, F->Lo), std::max(T->Hi, F->Hi)};
    break;
  }
  case Expr::Kind::Cast:
    R = Sub(*llvm::cast<CastExpr>(E).Sub);
    break;
  default: // an element read, a call, a vector component
    break;
  }
  // What the type holds bounds the rest, and a result past it wraps.
  Range T = typeRange(E.getType());
  if (!R || (T && !within(*R, *T)))
    return T;
  return R;
}

std::optional<IndexRange>
indexBounds(const Expr &E, const AffineContext &Ctx,
            const std::map<std::string, IndexRange> &Ranges) {
  return boundsImpl(E, Ctx, Ranges, 0);
}

} // namespace gpumerge
