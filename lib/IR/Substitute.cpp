//===- Substitute.cpp - Replace built-ins and variables in KIR ------------===//
#include "IR/Substitute.h"

namespace gpumerge {

static std::function<ExprPtr(Expr &)> builtinRewriter(Builtin B,
                                                      const Expr &With) {
  return [B, &With](Expr &E) -> ExprPtr {
    auto *R = llvm::dyn_cast<BuiltinRef>(&E);
    if (!R || R->Which != B)
      return nullptr;
    // A position the input computes in 64 bits stays in 64 bits: its
    // products (`i * w` with i the position) must not wrap at 2^32.
    if (isWidePosition(*R) && With.getType() != R->getType())
      return std::make_unique<CastExpr>(R->getType(), With.clone());
    return With.clone();
  };
}

static std::function<ExprPtr(Expr &)> varRewriter(const std::string &Name,
                                                  const Expr &With) {
  return [&Name, &With](Expr &E) -> ExprPtr {
    auto *V = llvm::dyn_cast<VarRef>(&E);
    return V && V->Name == Name ? With.clone() : nullptr;
  };
}

void substituteBuiltin(Stmt &S, Builtin B, const Expr &With) {
  rewriteExprs(S, builtinRewriter(B, With));
}
void substituteVar(Stmt &S, const std::string &Name, const Expr &With) {
  rewriteExprs(S, varRewriter(Name, With));
}
ExprPtr substituteBuiltin(ExprPtr E, Builtin B, const Expr &With) {
  return rewriteExpr(std::move(E), builtinRewriter(B, With));
}
ExprPtr substituteVar(ExprPtr E, const std::string &Name, const Expr &With) {
  return rewriteExpr(std::move(E), varRewriter(Name, With));
}

} // namespace gpumerge
