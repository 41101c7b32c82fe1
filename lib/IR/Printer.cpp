//===- Printer.cpp - Print KIR as C-like source ---------------------------===//
#include "IR/Printer.h"
#include "IR/VectorComponents.h"

#include <cstdio>
#include <cstdlib>

namespace gpumerge {

std::string Printer::typeName(const Type &T) const {
  if (!T.TypedefName.empty())
    return T.TypedefName;
  if (T.Scalar == ScalarKind::UInt && T.VectorWidth == 1)
    return "unsigned int";
  return scalarName(T.Scalar, T.VectorWidth);
}

std::string Printer::addressSpaceQualifier(AddressSpace S) const { return ""; }

void Printer::printArgs(const std::vector<ExprPtr> &Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    if (I)
      OS << ", ";
    printExpr(*Args[I], 2);
  }
}

void Printer::printVectorLiteral(const CallExpr &C) {
  Type Vec = C.getType();
  Vec.TypedefName.clear(); // make_float4, whatever the user calls float4
  OS << "make_" << typeName(Vec) << "(";
  printArgs(C.Args);
  OS << ")";
}

void Printer::printVectorBase(const ArrayRef &A) {
  const Param *P = Current ? Current->findParam(A.Array) : nullptr;
  Type Vec = A.getType();
  Vec.TypedefName.clear();
  OS << "((" << addressSpaceQualifier(A.Space)
     << (P && P->Ty.IsConst ? "const " : "") << typeName(Vec) << " *)"
     << A.Array << ")";
}

const Param *Printer::textureParam(const std::string &Array) const {
  if (!Current || !Current->Plan || !Current->Plan->readsThroughTexture(Array))
    return nullptr;
  const Param *P = Current->findParam(Array);
  return P && P->isArray() ? P : nullptr;
}

ExprPtr Printer::flatIndex(const ArrayRef &A,
                           llvm::ArrayRef<std::int64_t> InnerExtents) {
  ExprPtr Flat = A.Indices.front()->clone();
  for (size_t I = 1; I < A.Indices.size(); ++I) {
    std::int64_t Extent = I - 1 < InnerExtents.size() ? InnerExtents[I - 1] : 1;
    Flat = add(mul(std::move(Flat), intLit(Extent)), A.Indices[I]->clone());
  }
  return Flat;
}

void Printer::printTextureParam(const Param &P) {
  OS << "texture<" << typeName(P.Ty.element()) << "> " << P.Name;
}

void Printer::printTextureRead(const ArrayRef &A, const Param &P) {
  OS << "texfetch(" << A.Array << ", ";
  printExpr(*flatIndex(A, P), 2);
  OS << ")";
}

void Printer::printParam(const Param &P) {
  if (textureParam(P.Name)) {
    printTextureParam(P);
    return;
  }
  if (!P.Ty.IsPointer) {
    OS << typeName(P.Ty) << " " << P.Name;
    return;
  }
  bool Restrict = P.Restrict || (Current && Current->Plan &&
                                 Current->Plan->restricts(P.Name));
  printPointerParam(P, P.Ty.IsConst, Restrict ? restrictQualifier() : "");
}

void Printer::printPointerParam(const Param &P, bool Const,
                                llvm::StringRef Restrict) {
  const Type &T = P.Ty;
  OS << addressSpaceQualifier(T.Space);
  if (Const)
    OS << "const ";
  if (T.IsVolatile)
    OS << "volatile ";
  OS << storageTypeName(T.element());
  if (T.InnerExtents.empty()) {
    OS << " *" << Restrict << P.Name;
    return;
  }
  OS << " (*" << Restrict << P.Name << ")";
  for (std::int64_t X : T.InnerExtents)
    OS << "[" << X << "]";
}

void Printer::printArrayAccess(const ArrayRef &A) {
  if (A.VectorWidth > 1)
    printVectorBase(A);
  else
    OS << A.Array;
  for (const ExprPtr &I : A.Indices) {
    OS << "[";
    printExpr(*I);
    OS << "]";
  }
}

void Printer::printParams(const Function &F) {
  for (size_t I = 0; I < F.Params.size(); ++I) {
    if (I)
      OS << ", ";
    printParam(F.Params[I]);
  }
}

void Printer::printSignature(const Function &F) {
  OS << (F.IsKernel ? "__global__ " : "__device__ ") << typeName(F.ReturnType)
     << " ";
  if (F.IsKernel && F.Plan && F.Plan->MinBlocksPerSM)
    OS << "__launch_bounds__(" << F.Plan->Block[0] * F.Plan->Block[1] << ", "
       << F.Plan->MinBlocksPerSM << ") ";
  OS << F.Name << "(";
  printParams(F);
  OS << ")";
}

void Printer::printFunction(const Function &F) {
  const Function *Outer = Current;
  Current = &F;
  printSignature(F);
  OS << " ";
  printStmt(*F.Body);
  OS << "\n";
  Current = Outer;
}

void Printer::printPrototype(const Function &F) {
  const Function *Outer = Current;
  Current = &F;
  printSignature(F);
  OS << ";\n";
  Current = Outer;
}

void Printer::printDecl(const DeclStmt &D) {
  if (D.Ty.Space == AddressSpace::Shared)
    OS << sharedQualifier();
  if (D.Ty.IsConst)
    OS << "const ";
  OS << typeName(D.Ty.element()) << " " << D.Name;
  for (std::int64_t X : D.Extents)
    OS << "[" << X << "]";
  if (D.Init) {
    OS << " = ";
    printExpr(*D.Init);
  }
  OS << ";";
}

/// Bodies of if/for: a block prints as `{...}`, anything else on its own line.
void Printer::printBody(const Stmt &S) {
  if (llvm::isa<BlockStmt>(S)) {
    OS << " ";
    printStmt(S);
    return;
  }
  OS << "\n";
  ++Indent;
  indent();
  printStmt(S);
  --Indent;
}

void Printer::printStmt(const Stmt &S) {
  switch (S.getKind()) {
  case Stmt::Kind::Block: {
    OS << "{\n";
    ++Indent;
    for (const StmtPtr &C : llvm::cast<BlockStmt>(S).Body) {
      indent();
      printStmt(*C);
      OS << "\n";
    }
    --Indent;
    indent();
    OS << "}";
    return;
  }
  case Stmt::Kind::Decl:
    printDecl(llvm::cast<DeclStmt>(S));
    return;
  case Stmt::Kind::Assign: {
    const auto &A = llvm::cast<AssignStmt>(S);
    if (A.Async)
      printAsyncCopy(A);
    else
      printAssign(A);
    return;
  }
  case Stmt::Kind::If: {
    const auto &I = llvm::cast<IfStmt>(S);
    OS << "if (";
    printExpr(*I.Cond);
    OS << ")";
    printBody(*I.Then);
    if (I.Else) {
      if (llvm::isa<BlockStmt>(*I.Then))
        OS << " else";
      else {
        OS << "\n";
        indent();
        OS << "else";
      }
      if (llvm::isa<IfStmt>(*I.Else)) {
        OS << " ";
        printStmt(*I.Else);
      } else {
        printBody(*I.Else);
      }
    }
    return;
  }
  case Stmt::Kind::For: {
    const auto &L = llvm::cast<ForStmt>(S);
    if (L.Unroll > 0 || L.UnrollFull) {
      OS << "#pragma unroll";
      if (L.Unroll > 0)
        OS << " " << L.Unroll;
      OS << "\n";
      indent();
    }
    OS << "for (";
    if (L.DeclaresIter)
      OS << typeName(L.IterType) << " ";
    OS << L.Iter << " = ";
    printExpr(*L.Init);
    OS << "; " << L.Iter << " " << binaryOpSpelling(L.CondOp) << " ";
    printExpr(*L.Bound, binaryOpPrecedence(L.CondOp) + 1);
    OS << "; " << L.Iter;
    if (L.StepExpr) {
      OS << (L.Step > 0 ? " += " : " -= ");
      printExpr(*L.StepExpr);
    } else if (L.Step == 1)
      OS << "++";
    else if (L.Step == -1)
      OS << "--";
    else if (L.Step > 0)
      OS << " += " << L.Step;
    else
      OS << " -= " << -L.Step;
    OS << ")";
    printBody(*L.Body);
    return;
  }
  case Stmt::Kind::Sync:
    printSync();
    return;
  case Stmt::Kind::GlobalSync:
    printGlobalSync();
    return;
  case Stmt::Kind::Return: {
    const auto &R = llvm::cast<ReturnStmt>(S);
    OS << "return";
    if (R.Value) {
      OS << " ";
      printExpr(*R.Value);
    }
    OS << ";";
    return;
  }
  case Stmt::Kind::ExprStmt:
    printExpr(*llvm::cast<ExprStmt>(S).E);
    OS << ";";
    return;
  case Stmt::Kind::Jump:
    OS << (llvm::cast<JumpStmt>(S).IsBreak ? "break;" : "continue;");
    return;
  case Stmt::Kind::Pipeline:
    printPipeline(llvm::cast<PipelineStmt>(S));
    return;
  }
}

void Printer::printAssign(const AssignStmt &A) {
  printAssignTarget(A);
  AssignOp Op = A.Op;
  const Expr *Value = A.RHS.get();
  // A store to one component, as the user wrote it (VectorComponents.h).
  if (std::optional<StoredComponent> C = storedComponent(A);
      C && spellsComponentStore(A)) {
    OS << "." << vectorComponentName(C->Index, A.LHS->getType().VectorWidth);
    Op = C->Op;
    Value = C->Value;
  }
  OS << " " << assignOpSpelling(Op) << " ";
  printExpr(*Value);
  OS << ";";
}

void Printer::printAsyncCopy(const AssignStmt &A) {
  OS << "__pipeline_memcpy_async(&";
  printExpr(*A.LHS, 15);
  OS << ", &";
  printExpr(*A.RHS, 15);
  OS << ", sizeof(" << typeName(A.LHS->getType()) << "));";
}

void Printer::printPipeline(const PipelineStmt &P) {
  if (P.Operation == PipelineStmt::Op::Commit)
    OS << "__pipeline_commit();";
  else
    OS << "__pipeline_wait_prior(" << P.Prior << ");";
}

/// The suffix that gives a literal of \p K its type: `U` for unsigned int,
/// `L`/`UL` for 64-bit integers (long in CUDA on LP64 hosts and in OpenCL).
static const char *integerSuffix(ScalarKind K) {
  switch (K) {
  case ScalarKind::UInt:
  case ScalarKind::UChar:
  case ScalarKind::UShort:
    return "U";
  case ScalarKind::Long:
    return "L";
  case ScalarKind::ULong:
    return "UL";
  default:
    return "";
  }
}

std::string valueSpelling(const Expr &Lit) {
  if (const auto *F = llvm::dyn_cast<FloatLit>(&Lit))
    return F->Spelling;
  return std::to_string(llvm::cast<IntLit>(Lit).Value) +
         integerSuffix(Lit.getType().Scalar);
}

std::string floatSpelling(double V, ScalarKind K) {
  bool Single = K == ScalarKind::Float;
  std::string S;
  for (int Digits = 1; Digits <= 17; ++Digits) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%.*g", Digits, V);
    S = Buf;
    double Back = std::strtod(S.c_str(), nullptr);
    if (Single ? float(Back) == float(V) : Back == V)
      break;
  }
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return Single ? S + "f" : S;
}

void Printer::printWidePosition(const BuiltinRef &R, int Parent) {
  Type T = R.getType();
  T.TypedefName.clear(); // size_t, int64_t: not every language has them
  bool Paren = Parent > 14;
  OS << (Paren ? "(" : "") << "(" << typeName(T) << ")";
  bool Inner = builtinPrecedence(R.Which) < 15;
  OS << (Inner ? "(" : "");
  printBuiltin(R.Which);
  OS << (Inner ? ")" : "") << (Paren ? ")" : "");
}

/// Would printing \p U's operand right after its sign make `--` or `++`?
static bool formsIncrement(const UnaryExpr &U) {
  if (U.Op != UnaryOp::Neg && U.Op != UnaryOp::Plus)
    return false;
  if (const auto *S = llvm::dyn_cast<UnaryExpr>(U.Sub.get()))
    return S->Op == U.Op;
  if (U.Op != UnaryOp::Neg)
    return false;
  if (const auto *L = llvm::dyn_cast<IntLit>(U.Sub.get()))
    return L->Value < 0 && L->MacroName.empty();
  if (const auto *L = llvm::dyn_cast<FloatLit>(U.Sub.get()))
    return L->MacroName.empty() && !L->Spelling.empty() &&
           L->Spelling[0] == '-';
  return false;
}

void Printer::printExpr(const Expr &E, int Parent) {
  if (E.getType().isHalfPrecision() && printHalfPrecision(E, Parent))
    return;
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    const auto &L = llvm::cast<IntLit>(E);
    if (!L.MacroName.empty()) {
      OS << L.MacroName;
    } else if (!L.Spelling.empty()) {
      OS << L.Spelling;
    } else {
      bool Paren = L.Value < 0 && Parent > 14;
      OS << (Paren ? "(" : "") << L.Value << integerSuffix(L.getType().Scalar)
         << (Paren ? ")" : "");
    }
    return;
  }
  case Expr::Kind::FloatLit: {
    const auto &L = llvm::cast<FloatLit>(E);
    OS << (L.MacroName.empty() ? L.Spelling : L.MacroName);
    return;
  }
  case Expr::Kind::VarRef:
    OS << llvm::cast<VarRef>(E).Name;
    return;
  case Expr::Kind::BuiltinRef: {
    if (isWidePosition(E)) {
      printWidePosition(llvm::cast<BuiltinRef>(E), Parent);
      return;
    }
    Builtin B = llvm::cast<BuiltinRef>(E).Which;
    bool Paren = builtinPrecedence(B) < Parent;
    if (Paren)
      OS << "(";
    printBuiltin(B);
    if (Paren)
      OS << ")";
    return;
  }
  case Expr::Kind::Unary: {
    const auto &U = llvm::cast<UnaryExpr>(E);
    bool Paren = Parent > 14;
    if (Paren)
      OS << "(";
    OS << unaryOpSpelling(U.Op);
    // -(-a) and -(-1) must not print as --a or --1 (a decrement).
    printExpr(*U.Sub, formsIncrement(U) ? 15 : 14);
    if (Paren)
      OS << ")";
    return;
  }
  case Expr::Kind::Binary: {
    const auto &B = llvm::cast<BinaryExpr>(E);
    int P = binaryOpPrecedence(B.Op);
    bool Paren = P < Parent;
    if (Paren)
      OS << "(";
    printExpr(*B.LHS, P);
    OS << " " << binaryOpSpelling(B.Op) << " ";
    printExpr(*B.RHS, P + 1);
    if (Paren)
      OS << ")";
    return;
  }
  case Expr::Kind::Select: {
    const auto &S = llvm::cast<SelectExpr>(E);
    bool Paren = Parent > 3;
    if (Paren)
      OS << "(";
    printExpr(*S.Cond, 4);
    OS << " ? ";
    printExpr(*S.TrueVal, 3);
    OS << " : ";
    printExpr(*S.FalseVal, 3);
    if (Paren)
      OS << ")";
    return;
  }
  case Expr::Kind::Call: {
    const auto &C = llvm::cast<CallExpr>(E);
    if (C.Callee == VectorLiteralCallee) {
      printVectorLiteral(C);
      return;
    }
    OS << calleeScope(C.Scope) << calleeName(C.Callee, C.getType()) << "(";
    printArgs(C.Args);
    OS << trailingArgs(C.Callee, C.getType()) << ")";
    return;
  }
  case Expr::Kind::Cast: {
    const auto &C = llvm::cast<CastExpr>(E);
    bool Paren = Parent > 14;
    if (Paren)
      OS << "(";
    OS << "(" << typeName(C.getType()) << ")";
    printExpr(*C.Sub, 14);
    if (Paren)
      OS << ")";
    return;
  }
  case Expr::Kind::ArrayRef: {
    const auto &A = llvm::cast<ArrayRef>(E);
    if (const Param *P =
            A.Space == AddressSpace::Global ? textureParam(A.Array) : nullptr) {
      printTextureRead(A, *P);
      return;
    }
    printArrayRead(A);
    return;
  }
  case Expr::Kind::Member: {
    const auto &M = llvm::cast<MemberExpr>(E);
    printExpr(*M.Base, 16);
    OS << "." << M.Member;
    return;
  }
  }
}

std::string printFunctionDebug(const Function &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  Printer(OS).printFunction(F);
  return OS.str();
}

std::string printExprDebug(const Expr &E) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  Printer(OS).printExpr(E);
  return OS.str();
}

} // namespace gpumerge
