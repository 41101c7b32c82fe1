//===- Lowering.h - The lowering of one function ---------------*- C++ -*-===//
//
// Internal to lib/Frontend: the class that lowers one FunctionDecl to KIR
// (Lower.h), declared here so that its steps live in files of their own:
// types and expressions (Lower.cpp), statements and loops (LowerStmt.cpp),
// and the helpers lowered where they are called (LowerInline.cpp,
// Inlining.h).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_LOWERING_H
#define GPUMERGE_FRONTEND_LOWERING_H

#include "Frontend/Inlining.h"
#include "Frontend/Lower.h"
#include "Frontend/PointerChains.h"
#include "IR/Kernel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Preprocessor.h"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

// As in the files of the class: Clang's names unqualified, but where KIR has
// one of its own (Expr, Stmt, CallExpr ...). Internal to lib/Frontend.
using namespace clang;

namespace gpumerge {

/// Half for CUDA's __half, BFloat16 for __nv_bfloat16 (the toolkit's structs,
/// const or not); nullopt for any other type.
std::optional<ScalarKind> halfPrecisionKind(QualType Q);

/// Lowers one function: a kernel, or a helper kept as a call. One object a
/// function; typedefs, macros and constants it reads go to the module.
class Lowering {
public:
  Lowering(ASTContext &Ctx, Preprocessor &PP, Module &M)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), PP(PP), M(M) {}

  /// \p FD as KIR, or the first construct it cannot express (lowerFunction,
  /// Lower.h).
  std::variant<std::unique_ptr<Function>, LoweringFailure>
  run(const FunctionDecl &FD);

private:
  ASTContext &Ctx;
  SourceManager &SM;
  Preprocessor &PP;
  Module &M;
  std::optional<LoweringFailure> Failure;
  bool UsesDialect = false;
  bool CurrentIsKernel = false;
  std::vector<Param> ConstantArrays;
  std::array<std::int64_t, 2> FixedBlock = {0, 0};
  bool FixedBlockConflict = false;
  /// The loops around the statement lowered, innermost last: true for a
  /// while loop read as a for loop; and their iterators.
  std::vector<bool> LoopKinds;
  std::vector<const VarDecl *> LoopIters;
  /// What the function's body assigns (PointerChains.h).
  Assigned Changed;
  /// A local pointer into an array parameter (`row = a + i * w`): the
  /// parameter, and the offset (null: none) its elements are read at.
  struct Alias {
    const VarDecl *Base = nullptr;
    ExprPtr Offset;
  };
  std::map<const VarDecl *, Alias> Aliases;

  // Helpers that take pointers, lowered where they are called (Inlining.h).
  /// The helpers being inlined, innermost last, and the lines of the calls.
  struct InlineFrame {
    const FunctionDecl *Callee;
    unsigned CallLine;
  };
  std::vector<InlineFrame> Inlined;
  /// Their parameters and locals as the function lowered declares them.
  std::map<const VarDecl *, std::string> Renamed;
  /// Their parameters read as the arguments' values (or, for a reference
  /// or a pointer to a variable, as what the argument names).
  std::map<const VarDecl *, ExprPtr> Substituted;
  /// Their pointer parameters that point at one variable (`&x`).
  std::map<const VarDecl *, const VarDecl *> PointsAtVariable;
  /// The names the function lowered declares, with those declared for
  /// inlined helpers; and every name it refers to besides.
  std::set<std::string> DeclaredNames, TakenNames;
  /// What the inlined calls of the statement being lowered put before it.
  std::vector<StmtPtr> Hoisted;
  /// Why the expression being lowered cannot have statements put before
  /// it (it is evaluated only under a condition, or again and again); null
  /// where it can.
  const char *NoHoist = nullptr;
  /// Statements lowered from inlined helpers (a bound on what duplicating
  /// the rest of a body after an early return can grow to).
  unsigned InlinedStatements = 0;

  unsigned lineOf(SourceLocation L) const {
    return SM.getExpansionLineNumber(L);
  }
  void fail(const std::string &What, SourceLocation L);
  ExprPtr failExpr(const std::string &What, SourceLocation L) {
    fail(What, L);
    return intLit(0);
  }
  StmtPtr failStmt(const std::string &What, SourceLocation L) {
    fail(What, L);
    return std::make_unique<BlockStmt>();
  }

  /// Written by the user: in the main file or a header of theirs (a
  /// typedef or macro there keeps its name in the output; the included
  /// header defines it again), not a system header or our prelude.
  bool isUserCode(SourceLocation L) const;

  /// The source text of the token at \p Loc's spelling ("100U").
  std::string tokenText(SourceLocation Loc) const;

  // --- types -------------------------------------------------------------
  void noteTypedef(const TypedefNameDecl *TD);
  /// Where \p TL spells its scalar with an object-like macro of the user's
  /// whose tokens are all the type's (`#define DATA_TYPE float`, `DATA_TYPE
  /// *a`), sets \p T's TypedefName to the macro, so the output keeps it (a
  /// rebuild with -DDATA_TYPE=double builds, and its launcher runs the
  /// input's kernel then), and notes its definition for translations.
  /// CUDA inputs only.
  void spellTypeMacro(TypeLoc TL, Type &T);
  /// The template arguments \p C, a texture or surface fetch of the CUDA
  /// library (`tex2D<float>(tex, x, y)`), was written with: "<float>". They
  /// are kept, for nothing deduces them and without them nvcc finds no
  /// tex2D to call. "" where a macro wrote them; nullopt for other calls.
  std::optional<std::string>
  textureTemplateArgs(const clang::CallExpr &C,
                      const FunctionDecl &Callee) const;

  // --- vectors -------------------------------------------------------------
  /// CUDA's float2, int4, uchar4 ...: the toolkit's struct of fields x, y
  /// (z, w) of one scalar type, named as OpenCL names the same vector (its
  /// declaration in vector_types.h, not the user's code). Null for any
  /// other type.
  const RecordDecl *cudaVectorRecord(QualType Q) const;
  bool isCudaVector(QualType Q) const { return cudaVectorRecord(Q); }

  /// The KIR vector type of CUDA's vector struct \p RD (cudaVectorRecord).
  Type cudaVectorType(const RecordDecl &RD, QualType Q, SourceLocation Loc);

  /// `make_float4(a, b, c, d)`, `float4{a, b}`, OpenCL's `(float4)(a, b, c,
  /// d)`: a vector built from \p Parts (missing ones are zero), or null
  /// where this is not such a construction.
  ExprPtr vectorLiteral(QualType Q, llvm::ArrayRef<const clang::Expr *> Parts,
                        SourceLocation Loc);

  /// A store to one component of a vector, `v.x = e` or `c[i].y += e` (\p
  /// RHS null: `v.x++`, \p Op Add or Sub): the store of the whole vector
  /// that KIR writes (VectorComponents.h). Null where \p LHS is no component.
  StmtPtr lowerComponentStore(const clang::Expr *LHS, AssignOp Op,
                              const clang::Expr *RHS, SourceLocation Loc);

  Type lowerScalar(QualType Q, SourceLocation Loc);

  // --- 16-bit floats (LowerHalf.cpp) ---------------------------------------
  /// An expression of CUDA's __half or __nv_bfloat16 made of the toolkit's
  /// operators, constructors, conversions and intrinsics (`a * b`,
  /// `__half(x)`, `__half2float(h)`); \p Handled false for any other.
  ExprPtr lowerHalfPrecision(const clang::Expr *E, bool &Handled);
  /// `h = v;`, `h += v;` of a 16-bit float, its operator a call; null for
  /// another operator.
  StmtPtr lowerHalfAssign(const CXXOperatorCallExpr &O, SourceLocation Loc);

  AddressSpace lowerSpace(LangAS AS);

  Type lowerType(QualType Q, SourceLocation Loc);

  /// A read of file-scope constant array \p V (`__constant__ float w[9]`
  /// in CUDA, `__constant float w[9] = {...}` in OpenCL): read-only, kept
  /// as the input names it. One the host fills is recorded on the function
  /// (an OpenCL translation passes it as a parameter); one with an
  /// initializer on the module (a translation declares it again).
  ExprPtr lowerConstantArray(const VarDecl &V, std::vector<ExprPtr> Indices,
                             const ArraySubscriptExpr &A, SourceLocation Loc);

  // --- expressions -------------------------------------------------------
  /// The zero of scalar type \p T: `T()` in a template, the elements an
  /// initializer list leaves out.
  static ExprPtr zeroOf(const gpumerge::Type &T);

  static const clang::Expr *strip(const clang::Expr *E);

  /// Does \p V have an initializer the input wrote? Not `float4 v;` nor
  /// `__constant__ __half w[4];`, whose default construction (trivial, no
  /// zeroing) Clang records as an initializer.
  static bool hasWrittenInit(const VarDecl &V);

  /// threadIdx.x and friends: a property access on a CUDA built-in variable.
  ExprPtr lowerCudaBuiltin(const PseudoObjectExpr &PO);

  /// get_global_id(0) and the other OpenCL work-item functions.
  ExprPtr lowerWorkItemCall(llvm::StringRef Name, const clang::CallExpr &C,
                            bool &Handled);

  /// The spelling of the literal token at \p Loc when it is one token of
  /// the user's text ("100U", "'a'"); empty when it cannot be read back.
  std::string literalSpelling(SourceLocation Loc) const;

  /// An integer literal written as an object-like macro (`#define WIDTH
  /// 2048`) keeps the macro's name so the output reads like the input.
  void noteMacro(IntLit &L, SourceLocation Loc);

  /// A file-scope constant (FileConstants.h) read as its value and printed
  /// by its name, which a translation declares again with that value.
  ExprPtr lowerFileConstant(const VarDecl &V, bool Qualified,
                            SourceLocation Loc);

  std::optional<BinaryOp> binaryOp(BinaryOperatorKind K);

  ExprPtr lowerExpr(const clang::Expr *E);

  ExprPtr lowerExprImpl(const clang::Expr *E);

  /// A literal, `T()` of an arithmetic T, or a template's integer
  /// parameter; \p Handled false where \p E is none of them.
  ExprPtr lowerLiteral(const clang::Expr *E, SourceLocation Loc, bool &Handled);

  /// A variable (local, parameter, file-scope constant, the dialect's
  /// built-ins) or an enumerator.
  ExprPtr lowerDeclRef(const DeclRefExpr &D, SourceLocation Loc);

  /// `a[i][j]` of a parameter, a local or shared array, a constant array,
  /// or what an inlined helper's pointer parameter aliases.
  ExprPtr lowerSubscript(const ArraySubscriptExpr &A, SourceLocation Loc);

  ExprPtr lowerUnary(const clang::UnaryOperator &U, SourceLocation Loc);
  ExprPtr lowerBinary(const clang::BinaryOperator &B, SourceLocation Loc);

  /// A vector's component (OpenCL's `v.x`, CUDA's `p.x`), a copy of a CUDA
  /// vector, or a vector literal; \p Handled false where \p E is none.
  ExprPtr lowerVectorExpr(const clang::Expr *E, SourceLocation Loc,
                          bool &Handled);

  /// Element \p Indices of the array \p BV names (a pointer parameter, a
  /// local or __shared__ array), of type \p Elem.
  ExprPtr arrayRef(const VarDecl &BV, std::vector<ExprPtr> Indices,
                   QualType Elem, SourceLocation Loc);

  /// `*p`, `*(p + i)`, `*(i + p)`, `*(p - 1 + i)` of a pointer parameter (or
  /// local pointer) to scalars: p[0], p[i], p[-1 + i]. Other dereferences
  /// are refused.
  ExprPtr lowerDeref(const clang::UnaryOperator &U, SourceLocation Loc) {
    return lowerPointee(U.getSubExpr(), U.getType(), Loc);
  }

  /// The element \p Pointer points at, of type \p Elem: `p + i - 1` as
  /// p[i - 1], where p is a pointer parameter or local.
  ExprPtr lowerPointee(const clang::Expr *Pointer, QualType Elem,
                       SourceLocation Loc);

  /// What \p T reaches: a pointer's pointee, an array's element (an alias
  /// may point into a local or shared array, LowerInline.cpp).
  QualType elementOf(QualType T) const {
    if (const clang::ArrayType *A = Ctx.getAsArrayType(T))
      return A->getElementType();
    return T->getPointeeType();
  }

  /// Does pointer \p V point at scalars or vectors (not at pointers or
  /// rows of a 2-D array)?
  static bool pointsToElements(const VarDecl &V) {
    QualType Pointee = V.getType()->getPointeeType();
    return !Pointee->isPointerType() && !Pointee->isArrayType();
  }

  /// The offsets of a pointer chain added up (`- i + 1`, the first
  /// negated), or null for none.
  ExprPtr
  sumOffsets(const std::vector<std::pair<const clang::Expr *, bool>> &Offsets);

  /// The index of \p A's element \p Index in its array parameter (its
  /// first element, `*out`, at the offset unwidened: nothing is added).
  static std::vector<ExprPtr> aliasIndex(const Alias &A, ExprPtr Index);

  /// A variable offset of 32 bits widened to 64 (`(long long)(i * w)`):
  /// pointer arithmetic does not wrap where an int sum would.
  static ExprPtr widenedOffset(ExprPtr More);

  /// `const float *row = a + i * w;` (or `= &a[i * w]`, or into another
  /// such pointer): a local pointer into an array parameter that is never
  /// moved, whose offset's variables do not change while it is in scope
  /// (set once, or iterators of the loops around it) and read no array the
  /// kernel writes. Its elements are read as the parameter's (`row[j]` is
  /// a[i * w + j]), the offset widened to 64 bits as pointer arithmetic
  /// has it; the declaration itself is left out. True when \p D is such a
  /// pointer, or a local pointer refused as one (with the reason).
  bool lowerPointerAlias(const Decl *D);

  /// `p += k;` (or `p -= k`, `p++`) moving array parameter \p P, as
  /// PyTorch-style kernels move their pointers to the thread's row: a
  /// statement of its own in a block of the kernel (its body, or a guard's
  /// block that nothing after reads p from), outside loops, by an offset
  /// that does not change. What follows reads p[j] as the parameter's
  /// element k + j (an alias of the parameter onto itself,
  /// lowerPointerAlias's reading); nothing is emitted for the move. Any
  /// other assignment to a pointer is refused: the analyses would read
  /// p[0] as one element for every thread.
  StmtPtr lowerPointerMove(const VarDecl &P, const clang::Expr &E,
                           SourceLocation Loc);
  /// The statements of the kernel's blocks (expressions stripped), each
  /// with its block: where a pointer parameter may move.
  std::map<const clang::Stmt *, const clang::Stmt *> BlockOf;
  const clang::Stmt *KernelBody = nullptr;

  /// Why offset \p E may change between a pointer's declaration and its
  /// uses ("'k', which changes"); empty when it cannot.
  std::string unstableOffset(const clang::Expr &E);

  /// CUDA's `__ldg(&a[i])` or `__ldg(a + i)`: a load through the read-only
  /// data cache, which reads a[i] as a plain load does wherever the kernel
  /// does not write what it reads so (the texture variant puts such reads
  /// through the cache again where it may). Null when the argument is not
  /// an element of an array gpumerge follows.
  ExprPtr lowerLdg(const clang::CallExpr &C, SourceLocation Loc);

  /// A built-in whose value or effect involves the other threads of a warp
  /// or sub-group, or of the block beyond a barrier: __shfl_down_sync,
  /// __ballot_sync, __syncwarp, __syncthreads_or, OpenCL's sub_group_* and
  /// work_group_*. Read as a plain call, thread merge would pair each
  /// thread with another's lane.
  static bool isWarpLevel(llvm::StringRef Name);

  /// What \p E is, in the words of the language, with its text: the reason
  /// a kernel is passed through (never a Clang class name).
  std::string describeExpr(const clang::Expr &E) const;

  /// The user's text of \p R (one line, at most 60 characters), or empty.
  std::string sourceText(SourceRange R) const;

  // --- calls (LowerCall.cpp) ---------------------------------------------

  /// A call: inlined, a built-in, a vector literal, a load, or a call of
  /// the function's name; refused where merged threads would change it.
  ExprPtr lowerCall(const clang::CallExpr &C, SourceLocation Loc);

  /// Why a call of \p Callee, named \p Name, is refused before its
  /// arguments are lowered (an atomic, a surface access, a warp-level
  /// operation, a barrier, a function defined in another file); empty
  /// where it is not.
  std::string refusedCall(const FunctionDecl &Callee,
                          const std::string &Name) const;

  /// Why a call of \p Callee, which gpumerge does not lower, is refused:
  /// out of sight, it reads the thread's position; empty where it does not.
  std::string unseenPositionRead(const FunctionDecl &Callee,
                                 const std::string &Name) const;

  /// Argument \p A of a call, with the integer conversion the call makes.
  ExprPtr lowerCallArgument(const clang::Expr *A);

  /// The namespace qualifier call \p C of \p Callee keeps in the output.
  std::string callScope(const clang::CallExpr &C,
                        const FunctionDecl &Callee) const;

  // --- helpers that take pointers, inlined (Inlining.h) ------------------

  /// \p V's name in the function lowered: a helper's local or parameter
  /// under the name it was declared with there.
  std::string nameOf(const VarDecl &V) const {
    auto It = Renamed.find(&V);
    return It != Renamed.end() ? It->second : V.getNameAsString();
  }

  /// \p Base, or `Base_1`, `Base_2` ...: a name that nothing in the
  /// function lowered declares or refers to yet, now declared.
  std::string freshName(const std::string &Base);

  /// A local of an inlined helper gets a name of its own in the function
  /// lowered (it may be inlined twice, or share a name with the kernel's).
  void declareLocal(const VarDecl &V) {
    if (!Inlined.empty())
      Renamed[&V] = freshName(V.getNameAsString());
  }

  /// `p[0]` or `*p` where a helper's pointer p points at variable \p V.
  ExprPtr variablePointee(const VarDecl &V, const std::vector<ExprPtr> &Index,
                          SourceLocation Loc);

  /// Runs \p Lower, which adds statements to its argument, and puts them
  /// into \p Into after what the inlined calls among them put before them.
  template <typename LowerFn> void hoistInto(BlockStmt &Into, LowerFn Lower) {
    std::vector<StmtPtr> Outer = std::exchange(Hoisted, {});
    std::vector<StmtPtr> Made;
    Lower(Made);
    for (StmtPtr &S : Hoisted)
      Into.Body.push_back(std::move(S));
    for (StmtPtr &S : Made)
      if (S)
        Into.Body.push_back(std::move(S));
    Hoisted = std::move(Outer);
  }

  /// \p E lowered where no statement can be put before it, for \p Why.
  ExprPtr lowerWithoutHoisting(const clang::Expr *E, const char *Why);

  /// The definition of \p Callee where a call of it is lowered as its body.
  const FunctionDecl *inlinedHelper(const FunctionDecl &Callee) const;

  /// \p E as a value of type \p T: converted where its type is another
  /// (the conversions C makes at a call and a return, which KIR spells).
  static ExprPtr convertTo(ExprPtr E, const gpumerge::Type &T);

  /// May \p E, an argument, stand for its parameter wherever a helper's
  /// body reads it (\p Uses times): it reads no array element (which the
  /// body may write) and no variable the body may change (\p Written: their
  /// addresses are arguments), and it is small where it is read again?
  static bool isFixedValue(const Expr &E, unsigned Uses,
                           const std::set<std::string> &Written);

  /// Binds \p P, a pointer parameter of \p Callee, to argument \p Arg: as
  /// the array the argument points into (an array parameter or a local or
  /// shared array, at the argument's offset), or as the variable it points
  /// at. \p Fixed: the offset must read nothing the body may change (it is
  /// read again at every use). False, with the failure, where it cannot.
  bool bindPointer(const ParmVarDecl &P, const clang::Expr *Arg,
                   const std::string &Callee, bool Fixed, SourceLocation Loc);

  /// Does \p E read an array element (which a helper inlined may change
  /// before it reads \p E again)? Calls left in KIR read no memory: they
  /// are math, or helpers of scalars.
  static bool readsArray(const Expr &E);

  /// How a helper's result reaches the expression that called it: the
  /// variable its returns store (none for void), declared by the only
  /// return where the body ends in its only one.
  struct InlineResult {
    std::string Name;
    gpumerge::Type T;
    bool Declare = false;
  };

  /// The call \p C of helper \p Def (Inlining.h) lowered as its body: a
  /// body `{ return E; }` as E, its parameters read as the arguments; any
  /// other before the statement that calls it (Hoisted), its parameters
  /// and locals declared under names of their own and its returns stored
  /// to a result, which is the call's value. Null for a void helper.
  ExprPtr inlineCall(const clang::CallExpr &C, const FunctionDecl &Def,
                     SourceLocation Loc);

  /// A helper's body of returns only (ReturnChain) as the expression `c1 ?
  /// a1 : c2 ? a2 : b` of type \p RT. All but the first condition run only
  /// as chosen, so what they call puts nothing before the call.
  ExprPtr lowerReturnChain(const ReturnChain &Chain, const gpumerge::Type &RT);

  /// The statements \p List of an inlined helper's body into \p Into, each
  /// return a store of its value to \p R. An if that returns takes the rest
  /// of the list into the branches that do not: `if (c) return a; s; return
  /// b;` is `if (c) r = a; else { s; r = b; }`.
  void lowerInlinedList(std::vector<const clang::Stmt *> List,
                        const InlineResult &R, BlockStmt &Into);

  /// `return e;` of an inlined helper: e stored to its result.
  void storeResult(const clang::ReturnStmt &Ret, const InlineResult &R,
                   BlockStmt &Into);

  /// A name an inlined helper refers to at file scope (a constant, a macro,
  /// a helper it calls) that the function lowered declares for a variable
  /// of its own, which would stand for it where the body is inlined.
  void checkNotCaptured(const Expr &E, SourceLocation Loc);

  // --- statements -------------------------------------------------------

  StmtPtr withLine(StmtPtr S, SourceLocation L) {
    S->setLine(lineOf(L));
    return S;
  }

  /// \p S into \p Into, after what the helpers it calls put before it.
  void lowerInto(const clang::Stmt *S, BlockStmt &Into);

  /// \p D as a declaration; an initialized local array's elements are
  /// stored by the statements of \p Stores, after it.
  StmtPtr lowerVarDecl(const Decl *D, std::vector<StmtPtr> &Stores);

  /// `int cases[3] = {1, 1, 1};`, `float acc[8] = {0};`: a store of each
  /// element (the ones the list leaves out are zero), so the passes see the
  /// array as written element by element. \p T: the element type.
  std::vector<StmtPtr> arrayInitStores(const VarDecl &V, const Type &T,
                                       std::int64_t Count);

  std::optional<AssignOp> assignOp(BinaryOperatorKind K);

  /// \p S as one statement (a block where the helpers it calls put
  /// statements before it).
  StmtPtr lowerStmt(const clang::Stmt *S);

  /// \p S, whose inlined calls put what they need before it into Hoisted;
  /// null for a call of a void helper, which is all in Hoisted.
  StmtPtr lowerOneStmt(const clang::Stmt *S);

  /// The condition of `assert(c)` as the C library's macro expands it
  /// (`static_cast<bool>(c) ? void(0) : __assert_fail(...)`); null for any
  /// other expression.
  static const clang::Expr *assertedCondition(const clang::Expr *E);

  StmtPtr lowerExprStmt(const clang::Expr *E);

  /// CUDA's `sincosf(x, &s, &c)` (sincos, __sincosf) as `s = sinf(x); c =
  /// cosf(x);`, the first put before the second (Hoisted): where s and c
  /// are variables the kernel declares and x reads neither. Null for any
  /// other call.
  StmtPtr lowerSinCos(const clang::CallExpr &C, const FunctionDecl &FD,
                      SourceLocation Loc);

  /// The iterator a loop-control expression names, or null.
  static const VarDecl *iterOf(const clang::Expr *E) {
    const auto *D = llvm::dyn_cast<DeclRefExpr>(strip(E));
    return D ? llvm::dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  }

  /// Canonical loops only (§3.2): for (i = S; i < B; i += c) with
  /// i++, ++i, i--, i += c, i -= c, i = i + c; <, <=, !=, >, >= (either side).
  /// `#pragma unroll [N]` before a for loop: the loop with its hint
  /// (ForStmt::Unroll, UnrollFull); null for other attributes, which are
  /// refused as before.
  StmtPtr lowerUnrollHint(const AttributedStmt &A);

  StmtPtr lowerFor(const clang::ForStmt &F) {
    return lowerLoop(
        {F.getInit(), F.getCond(), F.getInc(), F.getBody(), F.getBeginLoc()});
  }

  /// A loop's parts: a for loop's, or a while loop's read as one
  /// (WhileAsFor).
  struct LoopParts {
    const clang::Stmt *Init;
    const clang::Expr *Cond, *Inc;
    const clang::Stmt *Body;
    SourceLocation Loc;
    /// For a while loop: its iterator and start, taken from the statement
    /// before it; the body's last statement is the increment (Inc), left
    /// out of the body.
    const VarDecl *Iter = nullptr;
    ExprPtr Start = nullptr;
  };

  /// `int j = 0; while (j < n) { ...; j++; }` as `for (j = 0; j < n; j++)`
  /// when the statement before the loop (last in \p Into) starts the
  /// iterator and the body ends by stepping it; null otherwise (the loop is
  /// then refused as before).
  StmtPtr lowerWhileAsFor(const WhileStmt &W, BlockStmt &Into);

  StmtPtr lowerLoop(LoopParts F);

  // lowerLoop's parts: each lowers its part of F into L and returns why the
  // loop is refused, empty where it is not.

  /// The start: a declaration, an assignment, or the while loop's
  /// statement before it; sets \p Iter.
  std::string lowerLoopInit(LoopParts &F, gpumerge::ForStmt &L,
                            const VarDecl *&Iter);
  /// The condition, a comparison of the iterator (either side).
  std::string lowerLoopCond(const LoopParts &F, const VarDecl *Iter,
                            gpumerge::ForStmt &L);
  /// The step: a constant, or an expression the same for every thread at
  /// every iteration in the direction the condition bounds.
  std::string lowerLoopStep(const LoopParts &F, const VarDecl *Iter,
                            gpumerge::ForStmt &L);
  /// The step of a loop over \p Iter whose increment is \p Inc: in \p Step
  /// where it is `++`/`--`; otherwise the amount as written in \p Amount
  /// and whether it is added in \p Adds: the constant or expression after
  /// `+=`, `-=`, `i = i + `, `i = i - `.
  static void loopIncrement(const clang::Expr *Inc, const VarDecl *Iter,
                            std::optional<std::int64_t> &Step,
                            const clang::Expr *&Amount, bool &Adds);
  /// The body, as a block (a while loop's without its increment).
  void lowerLoopBody(const LoopParts &F, const VarDecl *Iter,
                     gpumerge::ForStmt &L);
};

} // namespace gpumerge

#endif
