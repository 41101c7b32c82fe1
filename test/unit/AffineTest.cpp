//===- AffineTest.cpp - Affine forms and the accesses of a kernel ---------===//
//
// AffineForm arithmetic and printing; toAffine through single-assignment
// locals, loop iterators and size parameters, and what it refuses (reassigned
// locals, division); collectAccesses on mm (kinds, reads and writes, lines,
// loops) and on true 2-D arrays (flattened with the inner extents).
//
//===----------------------------------------------------------------------===//

#include "Analysis/Affine.h"
#include "Analysis/Accesses.h"
#include "Frontend/Frontend.h"
#include "IR/Printer.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace gpumerge {
/// Readable failure messages: "idy*w + i" instead of bytes. (Only this file
/// of AnalysisTests prints AffineForms.)
void PrintTo(const AffineForm &F, std::ostream *OS) { *OS << F.str(); }
} // namespace gpumerge

namespace {

AffineForm thread(const std::string &N) {
  return AffineForm::variable({AffineVar::Kind::Thread, N});
}
AffineForm loop(const std::string &N) {
  return AffineForm::variable({AffineVar::Kind::Loop, N});
}
AffineForm symbol(const std::string &N) {
  return AffineForm::variable({AffineVar::Kind::Symbol, N});
}
AffineForm constant(std::int64_t C) { return AffineForm::constant(C); }

const AffineVar Idx{AffineVar::Kind::Thread, "idx"};
const AffineVar Idy{AffineVar::Kind::Thread, "idy"};
const AffineVar I{AffineVar::Kind::Loop, "i"};
const AffineVar W{AffineVar::Kind::Symbol, "w"};

std::unique_ptr<Module> parse(const std::string &Source,
                              const std::string &FileName = "x.cu") {
  auto M = parseSource(Source, FileName, {});
  if (!M) {
    ADD_FAILURE() << "parse failed: " << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

/// The only kernel of \p M (fails the test when there is not exactly one).
const Function *onlyKernel(const Module *M) {
  if (!M)
    return nullptr;
  auto K = M->kernels();
  if (K.size() != 1) {
    ADD_FAILURE() << "expected one kernel, got " << K.size()
                  << (M->PassedThrough.empty()
                          ? std::string()
                          : "; passed through: " +
                                M->PassedThrough[0].Construct);
    return nullptr;
  }
  return K[0];
}

/// The first array access to \p Array under \p F.
const ArrayRef *firstAccess(const Function &F, const std::string &Array) {
  const ArrayRef *Found = nullptr;
  walkExprs(*F.Body, [&](const Expr &E) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(&E))
      if (R->Array == Array && !Found)
        Found = R;
  });
  return Found;
}

std::vector<const Access *> accessesTo(const std::vector<Access> &All,
                                       const std::string &Array) {
  std::vector<const Access *> R;
  for (const Access &A : All)
    if (A.Array == Array)
      R.push_back(&A);
  return R;
}

// --- AffineForm
// ----------------------------------------------------------------

TEST(AffineForm, ConstantsAndVariables) {
  EXPECT_TRUE(constant(0).Terms.empty());
  EXPECT_EQ(constant(0).asConstant(), std::optional<std::int64_t>(0));
  EXPECT_EQ(constant(5).asConstant(), std::optional<std::int64_t>(5));
  EXPECT_EQ(constant(5).constantTerm(), 5);
  EXPECT_TRUE(constant(5).isConstant());
  EXPECT_FALSE(thread("idx").isConstant());
  EXPECT_EQ(thread("idx").asConstant(), std::nullopt);
  EXPECT_EQ(thread("idx").constantTerm(), 0);
  EXPECT_EQ(constant(0).str(), "0");
  EXPECT_EQ(constant(-3).str(), "-3");
}

TEST(AffineForm, AdditionAndSubtraction) {
  AffineForm A = thread("idx") + constant(3);
  AffineForm B = thread("idx").scaled(2) + loop("i");
  AffineForm S = A + B; // 3*idx + i + 3
  EXPECT_EQ(S.coefficientOf(Idx).asConstant(), std::optional<std::int64_t>(3));
  EXPECT_EQ(S.coefficientOf(I).asConstant(), std::optional<std::int64_t>(1));
  EXPECT_EQ(S.constantTerm(), 3);
  EXPECT_EQ(S.Terms.size(), 3u);

  // Cancelling terms disappear: no zero coefficients are kept.
  AffineForm D = A - A;
  EXPECT_TRUE(D.Terms.empty());
  EXPECT_TRUE(D.isConstant());
  AffineForm E = S - thread("idx").scaled(3);
  EXPECT_EQ(E, loop("i") + constant(3));
  EXPECT_FALSE(E.mentions(AffineVar::Kind::Thread));
  EXPECT_TRUE(E.mentions(AffineVar::Kind::Loop));
  EXPECT_EQ(E.str(), "i + 3");
  EXPECT_EQ((thread("idx") - loop("i") - constant(1)).str(), "idx - i - 1");
}

TEST(AffineForm, Multiplication) {
  // (idy + 1) * w = idy*w + w
  AffineForm P = (thread("idy") + constant(1)) * symbol("w");
  EXPECT_EQ(P, thread("idy") * symbol("w") + symbol("w"));
  EXPECT_TRUE(P.isAffine());
  EXPECT_EQ(P.coefficientOf(Idy), symbol("w"));
  // Products commute: the monomial is sorted.
  EXPECT_EQ(symbol("w") * thread("idy"), thread("idy") * symbol("w"));
  // (idx + 2) * (idx - 2) = idx*idx - 4: not affine.
  AffineForm Q = (thread("idx") + constant(2)) * (thread("idx") - constant(2));
  EXPECT_EQ(Q.constantTerm(), -4);
  EXPECT_EQ(Q.Terms.size(), 2u);
  EXPECT_FALSE(Q.isAffine());
  // Multiplying by a constant form is scaling.
  EXPECT_EQ(thread("idx") * constant(4), thread("idx").scaled(4));
  EXPECT_TRUE((thread("idx") * constant(0)).Terms.empty());
}

TEST(AffineForm, Scaled) {
  AffineForm F = thread("idx") + loop("i").scaled(3) + constant(-2);
  AffineForm G = F.scaled(-2);
  EXPECT_EQ(G.coefficientOf(Idx).asConstant(), std::optional<std::int64_t>(-2));
  EXPECT_EQ(G.coefficientOf(I).asConstant(), std::optional<std::int64_t>(-6));
  EXPECT_EQ(G.constantTerm(), 4);
  EXPECT_TRUE(F.scaled(0).Terms.empty());
  EXPECT_EQ(F.scaled(1), F);
}

TEST(AffineForm, CoefficientOfAndWithout) {
  // idy*w + 2*idy + i + 7
  AffineForm F = thread("idy") * symbol("w") + thread("idy").scaled(2) +
                 loop("i") + constant(7);
  EXPECT_EQ(F.coefficientOf(Idy), symbol("w") + constant(2));
  EXPECT_FALSE(F.coefficientOf(Idy).isConstant());
  EXPECT_EQ(F.coefficientOf(I), constant(1));
  EXPECT_TRUE(F.coefficientOf(Idx).Terms.empty());
  EXPECT_EQ(F.coefficientOf(W), thread("idy"));
  EXPECT_EQ(F.without(Idy), loop("i") + constant(7));
  EXPECT_EQ(F.without(I), thread("idy") * symbol("w") +
                              thread("idy").scaled(2) + constant(7));
  EXPECT_EQ(F.without(Idx), F);
}

TEST(AffineForm, IsAffine) {
  EXPECT_TRUE((thread("idy") * symbol("w") + loop("i")).isAffine());
  EXPECT_TRUE((symbol("w") * symbol("h") + thread("idx")).isAffine());
  EXPECT_FALSE((thread("idx") * loop("i")).isAffine());
  EXPECT_FALSE((thread("idx") * thread("idy")).isAffine());
  EXPECT_FALSE((loop("i") * loop("j") + constant(1)).isAffine());
  EXPECT_TRUE(constant(3).isAffine());
}

TEST(AffineForm, VariablesAndMentions) {
  AffineForm F = thread("idy") * symbol("w") + loop("k") + thread("idx") +
                 loop("i").scaled(2);
  auto T = F.variables(AffineVar::Kind::Thread);
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0].Name, "idx");
  EXPECT_EQ(T[1].Name, "idy");
  auto L = F.variables(AffineVar::Kind::Loop);
  ASSERT_EQ(L.size(), 2u);
  EXPECT_EQ(L[0].Name, "i");
  EXPECT_EQ(L[1].Name, "k");
  EXPECT_TRUE(F.mentions(AffineVar::Kind::Symbol));
  EXPECT_FALSE(loop("i").mentions(AffineVar::Kind::Symbol));
}

TEST(AffineForm, Str) {
  EXPECT_EQ((thread("idy") * symbol("w") + loop("i")).str(), "idy*w + i");
  // Thread variables first, whatever the order of construction.
  EXPECT_EQ((loop("i") + thread("idy") * symbol("w")).str(), "idy*w + i");
  EXPECT_EQ((constant(3) + loop("i") + thread("idy") * symbol("w")).str(),
            "idy*w + i + 3");
  EXPECT_EQ((symbol("w") + thread("idx")).str(), "idx + w");
  EXPECT_EQ(thread("idx").scaled(-1).str(), "-idx");
}

// --- toAffine
// ------------------------------------------------------------------

const char *const RowKernel = R"(
__global__ void k(const float *a, float *c, int w, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += a[row * w + k];
  c[row] = s;
}
)";

TEST(ToAffine, ThroughSingleAssignmentLocals) {
  auto M = parse(RowKernel);
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto Defs = singleAssignmentLocals(*F);
  EXPECT_EQ(Defs.count("row"), 1u);
  EXPECT_EQ(Defs.count("s"), 0u); // s += ... reassigns it
  EXPECT_EQ(Defs.count("k"), 0u); // a loop iterator

  const ArrayRef *A = firstAccess(*F, "a");
  ASSERT_NE(A, nullptr);
  AffineContext Ctx;
  Ctx.Definitions = Defs;
  Ctx.LoopIterators = {"k"};
  Ctx.Symbols = {"w", "n"};
  auto Form = toAffine(*A->Indices[0], Ctx);
  ASSERT_TRUE(Form.has_value());
  EXPECT_EQ(*Form, thread("idy") * symbol("w") + loop("k"));
  EXPECT_EQ(Form->str(), "idy*w + k");

  // Without knowing k is an iterator the index cannot be expressed.
  Ctx.LoopIterators.clear();
  EXPECT_FALSE(toAffine(*A->Indices[0], Ctx).has_value());
  // Without the definition of row either.
  Ctx.LoopIterators = {"k"};
  Ctx.Definitions.clear();
  EXPECT_FALSE(toAffine(*A->Indices[0], Ctx).has_value());
}

TEST(ToAffine, C89AssignmentAfterDeclarationDefines) {
  // `int x; x = e;` at the top of the body defines x as e, unless x is
  // read before it, assigned again, or assigned inside control flow.
  auto M = parse(R"(
__global__ void k(const float *a, float *c, int n) {
  int x, y, z, u;
  float s;
  s = a[0];
  y = x;
  x = blockIdx.x * blockDim.x + threadIdx.x;
  z = x + 1;
  z = z + 1;
  if (n > 0)
    u = 2;
  c[x + y + z + u] = s;
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto Defs = singleAssignmentLocals(*F);
  EXPECT_EQ(Defs.count("x"), 0u); // read (by y = x) before its assignment
  EXPECT_EQ(Defs.count("y"), 1u);
  EXPECT_EQ(Defs.count("s"), 1u);
  EXPECT_EQ(Defs.count("z"), 0u); // assigned twice
  EXPECT_EQ(Defs.count("u"), 0u); // under an if
}

TEST(ToAffine, ReassignedLocalIsUnresolved) {
  auto M = parse(R"(
__global__ void k(const float *a, float *c, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int j = x;
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    s += a[j];
    j += 2;
  }
  c[x] = s;
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto Defs = singleAssignmentLocals(*F);
  EXPECT_EQ(Defs.count("j"), 0u);
  EXPECT_EQ(Defs.count("x"), 1u);

  auto All = collectAccesses(*F);
  auto A = accessesTo(All, "a");
  ASSERT_EQ(A.size(), 1u);
  EXPECT_EQ(A[0]->Kind, IndexKind::Unresolved);
  EXPECT_FALSE(A[0]->Index.has_value());
  EXPECT_EQ(A[0]->IndexText, "j");
  auto C = accessesTo(All, "c");
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(C[0]->Kind, IndexKind::Predefined);
  ASSERT_TRUE(C[0]->Index.has_value());
  EXPECT_EQ(*C[0]->Index, thread("idx"));
}

TEST(ToAffine, OperatorsItRefusesAndAccepts) {
  auto M = parse(R"(
__global__ void k(const float *a, float *c, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  c[x / 2] = a[x % 2];
  c[x << 2] = a[n - 1 - x];
  c[(x + 1) * 4] = a[x * x];
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  ASSERT_EQ(All.size(), 6u);
  // c[x / 2]: division.
  EXPECT_EQ(All[0].Array, "c");
  EXPECT_EQ(All[0].Kind, IndexKind::Unresolved);
  EXPECT_FALSE(All[0].Index.has_value());
  // a[x % 2]: remainder.
  EXPECT_EQ(All[1].Array, "a");
  EXPECT_EQ(All[1].Kind, IndexKind::Unresolved);
  // c[x << 2] = 4*idx.
  ASSERT_TRUE(All[2].Index.has_value());
  EXPECT_EQ(*All[2].Index, thread("idx").scaled(4));
  // a[n - 1 - x] = -idx + n - 1.
  ASSERT_TRUE(All[3].Index.has_value());
  EXPECT_EQ(*All[3].Index, symbol("n") - constant(1) - thread("idx"));
  EXPECT_EQ(All[3].Kind, IndexKind::Predefined);
  // c[(x + 1) * 4] = 4*idx + 4.
  ASSERT_TRUE(All[4].Index.has_value());
  EXPECT_EQ(*All[4].Index, thread("idx").scaled(4) + constant(4));
  // a[x * x]: not affine.
  EXPECT_EQ(All[5].Kind, IndexKind::Unresolved);
  EXPECT_FALSE(All[5].Index.has_value());
}

// --- collectAccesses
// -----------------------------------------------------------

TEST(Accesses, MatrixMultiplication) {
  auto M = parseFile(std::string(GPUMERGE_SOURCE_DIR) + "/kernels/mm.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const Function *F = onlyKernel(M->get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  ASSERT_EQ(All.size(), 3u);

  // sum += a[y * k + i] * b[i * w + x];   (line 13)
  EXPECT_EQ(All[0].Array, "a");
  EXPECT_EQ(All[0].Kind, IndexKind::Loop);
  EXPECT_FALSE(All[0].IsWrite);
  EXPECT_EQ(All[0].Line, 13u);
  EXPECT_EQ(All[0].IndexText, "y * k + i");
  ASSERT_TRUE(All[0].Index.has_value());
  EXPECT_EQ(All[0].Index->str(), "idy*k + i");
  EXPECT_EQ(All[0].ElementBytes, 4u);
  ASSERT_EQ(All[0].Loops.size(), 1u);
  EXPECT_EQ(All[0].Loops[0].Iter, "i");
  EXPECT_EQ(All[0].Loops[0].Start, std::optional<std::int64_t>(0));
  EXPECT_EQ(All[0].Loops[0].Step, 1);
  EXPECT_NE(All[0].Loops[0].Loop, nullptr);
  EXPECT_NE(All[0].Ref, nullptr);

  EXPECT_EQ(All[1].Array, "b");
  EXPECT_EQ(All[1].Kind, IndexKind::Loop);
  EXPECT_FALSE(All[1].IsWrite);
  EXPECT_EQ(All[1].Line, 13u);
  ASSERT_TRUE(All[1].Index.has_value());
  EXPECT_EQ(*All[1].Index, loop("i") * symbol("w") + thread("idx"));
  EXPECT_EQ(All[1].Loops.size(), 1u);

  // c[y * w + x] = sum;   (line 14)
  EXPECT_EQ(All[2].Array, "c");
  EXPECT_EQ(All[2].Kind, IndexKind::Predefined);
  EXPECT_TRUE(All[2].IsWrite);
  EXPECT_EQ(All[2].Line, 14u);
  ASSERT_TRUE(All[2].Index.has_value());
  EXPECT_EQ(*All[2].Index, thread("idy") * symbol("w") + thread("idx"));
  EXPECT_TRUE(All[2].Loops.empty());
}

TEST(Accesses, ReadModifyWriteAndConstantIndex) {
  auto M = parse(R"(
__global__ void k(const double *a, double *c, float *f) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  c[x] += a[x];
  f[3] = 0.0f;
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  ASSERT_EQ(All.size(), 4u);
  // c[x] += a[x]: c written and read, then a read.
  EXPECT_EQ(All[0].Array, "c");
  EXPECT_TRUE(All[0].IsWrite);
  EXPECT_EQ(All[1].Array, "c");
  EXPECT_FALSE(All[1].IsWrite);
  EXPECT_EQ(All[2].Array, "a");
  EXPECT_FALSE(All[2].IsWrite);
  EXPECT_EQ(All[2].ElementBytes, 8u);
  EXPECT_EQ(All[2].Kind, IndexKind::Predefined);
  EXPECT_EQ(All[3].Array, "f");
  EXPECT_EQ(All[3].Kind, IndexKind::Constant);
  EXPECT_EQ(All[3].ElementBytes, 4u);
  EXPECT_EQ(All[3].Index, std::optional<AffineForm>(constant(3)));
}

TEST(Accesses, SharedMemoryIsNotCollected) {
  auto M = parse(R"(
__global__ void k(const float *a, float *c) {
  __shared__ float s[16];
  s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  c[blockIdx.x * blockDim.x + threadIdx.x] = s[15 - threadIdx.x];
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  ASSERT_EQ(All.size(), 2u);
  EXPECT_EQ(All[0].Array, "a");
  EXPECT_EQ(All[1].Array, "c");
  EXPECT_TRUE(All[1].IsWrite);
  EXPECT_EQ(*All[0].Index, thread("idx"));
}

TEST(Accesses, TwoDimensionalArrayIsFlattened) {
  auto M = parse(R"(
__global__ void k(float (*a)[1024], const float (*b)[1024], int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  for (int i = 2; i < n; i += 4)
    a[y][x] += b[i][x + 1];
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  ASSERT_EQ(All.size(), 3u);
  EXPECT_EQ(All[0].Array, "a");
  EXPECT_TRUE(All[0].IsWrite);
  EXPECT_EQ(All[0].IndexText, "y][x");
  ASSERT_TRUE(All[0].Index.has_value());
  EXPECT_EQ(*All[0].Index, thread("idy").scaled(1024) + thread("idx"));
  EXPECT_EQ(All[0].Kind, IndexKind::Predefined);

  EXPECT_EQ(All[2].Array, "b");
  ASSERT_TRUE(All[2].Index.has_value());
  EXPECT_EQ(*All[2].Index,
            loop("i").scaled(1024) + thread("idx") + constant(1));
  EXPECT_EQ(All[2].Kind, IndexKind::Loop);
  ASSERT_EQ(All[2].Loops.size(), 1u);
  EXPECT_EQ(All[2].Loops[0].Start, std::optional<std::int64_t>(2));
  EXPECT_EQ(All[2].Loops[0].Step, 4);
}

TEST(Accesses, NestedLoopsOutermostFirst) {
  auto M = parse(R"(
__global__ void k(const float *a, float *c, int w, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = x; j < n; j++)
    for (int i = 0; i < n; i += 2)
      s += a[j * w + i];
  c[x] = s;
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  auto A = accessesTo(All, "a");
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(A[0]->Loops.size(), 2u);
  EXPECT_EQ(A[0]->Loops[0].Iter, "j");
  EXPECT_EQ(A[0]->Loops[0].Start, std::nullopt); // starts at idx
  EXPECT_EQ(A[0]->Loops[1].Iter, "i");
  EXPECT_EQ(A[0]->Loops[1].Step, 2);
  EXPECT_EQ(A[0]->Kind, IndexKind::Loop);
  ASSERT_TRUE(A[0]->Index.has_value());
  // j starts at the thread position x: the start is folded into the index
  // (see LoopStartingAtThreadPosition), j then counts from 0.
  EXPECT_EQ(*A[0]->Index,
            (thread("idx") + loop("j")) * symbol("w") + loop("i"));
  // After the loops, no loop is around c[x].
  auto C = accessesTo(All, "c");
  ASSERT_EQ(C.size(), 1u);
  EXPECT_TRUE(C[0]->Loops.empty());
}

// for (j = x; ...; j += 1024) a[j]: j is idx + 1024*k, not a thread-invariant
// iterator. Either the start is folded in (the form mentions idx) or the
// index is unresolved; a bare "j" claims every thread reads the same element.
TEST(Accesses, LoopStartingAtThreadPosition) {
  auto M = parse(R"(
__global__ void k(const float *a, float *c, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = x; j < n; j += 1024)
    s += a[j];
  c[x] = s;
}
)");
  const Function *F = onlyKernel(M.get());
  ASSERT_NE(F, nullptr);
  auto All = collectAccesses(*F);
  auto A = accessesTo(All, "a");
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(A[0]->Loops.size(), 1u);
  EXPECT_EQ(A[0]->Loops[0].Start, std::nullopt);
  bool Honest = A[0]->Kind == IndexKind::Unresolved ||
                (A[0]->Index && A[0]->Index->mentions(AffineVar::Kind::Thread));
  EXPECT_TRUE(Honest) << "index of a[j] classified "
                      << indexKindName(A[0]->Kind) << " as "
                      << (A[0]->Index ? A[0]->Index->str() : "-");
}

TEST(Accesses, IndexKindNames) {
  EXPECT_STREQ(indexKindName(IndexKind::Constant), "constant");
  EXPECT_STREQ(indexKindName(IndexKind::Predefined), "predefined");
  EXPECT_STREQ(indexKindName(IndexKind::Loop), "loop");
  EXPECT_STREQ(indexKindName(IndexKind::Unresolved), "unresolved");
}

} // namespace
