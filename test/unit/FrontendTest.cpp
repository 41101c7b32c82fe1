//===- FrontendTest.cpp - CUDA and OpenCL source to KIR -------------------===//
//
// parseSource on small kernels: kernels and helpers are found in both
// languages; the usual spellings of the global thread position fold to idx;
// canonical loops are recognized (and n > i flipped to i < n); constructs KIR
// cannot express pass the kernel through with the construct and line; syntax
// errors come back as errors with file:line:col; pragmas, typedefs, macros,
// the paper's dialect, 2-D array parameters and source spans are kept.
//
//===----------------------------------------------------------------------===//

#include "Frontend/Frontend.h"
#include "IR/Printer.h"
#include "IR/Verifier.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

/// Parses \p Source as \p FileName; a parse error fails the test and gives
/// null.
std::unique_ptr<Module> parse(const std::string &Source,
                              const std::string &FileName = "x.cu") {
  auto M = parseSource(Source, FileName, {});
  if (!M) {
    ADD_FAILURE() << "parse of " << FileName
                  << " failed: " << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

/// The declaration of local \p Name in \p F, or null.
const DeclStmt *findDecl(const Function &F, const std::string &Name) {
  const DeclStmt *Found = nullptr;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
      if (D->Name == Name && !Found)
        Found = D;
  });
  return Found;
}

/// The first loop of \p F, or null.
const ForStmt *firstLoop(const Function &F) {
  const ForStmt *Found = nullptr;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&S))
      if (!Found)
        Found = L;
  });
  return Found;
}

/// The first array access to \p Array in \p F, or null.
const ArrayRef *firstAccess(const Function &F, const std::string &Array) {
  const ArrayRef *Found = nullptr;
  walkExprs(*F.Body, [&](const Expr &E) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(&E))
      if (R->Array == Array && !Found)
        Found = R;
  });
  return Found;
}

bool isBuiltin(const Expr *E, Builtin B) {
  const auto *R = llvm::dyn_cast_or_null<BuiltinRef>(E);
  return R && R->Which == B;
}

void expectVerifies(const Function &F) {
  llvm::Error E = verifyFunction(F);
  EXPECT_FALSE(bool(E)) << (E ? llvm::toString(std::move(E)) : "");
}

// --- finding kernels ---------------------------------------------------------

TEST(Frontend, FindsCudaKernelsAndHelpers) {
  auto M = parse(R"(
__device__ float twice(float v) { return 2.0f * v; }
__global__ void first(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n)
    a[x] = twice(a[x]);
}
__global__ void second(float *b) {
  b[threadIdx.x] = 0.0f;
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Lang, Language::Cuda);
  EXPECT_FALSE(M->HasHostCode);
  EXPECT_TRUE(M->PassedThrough.empty());
  auto K = M->kernels();
  ASSERT_EQ(K.size(), 2u);
  EXPECT_EQ(K[0]->Name, "first");
  EXPECT_EQ(K[1]->Name, "second");
  ASSERT_EQ(K[0]->Params.size(), 2u);
  EXPECT_EQ(K[0]->Params[0].Name, "a");
  EXPECT_TRUE(K[0]->Params[0].isArray());
  EXPECT_EQ(K[0]->Params[0].Ty.Space, AddressSpace::Global);
  EXPECT_EQ(K[0]->Params[0].Ty.Scalar, ScalarKind::Float);
  EXPECT_FALSE(K[0]->Params[1].isArray());

  const Function *H = M->find("twice");
  ASSERT_NE(H, nullptr);
  EXPECT_FALSE(H->IsKernel);
  EXPECT_EQ(H->ReturnType.Scalar, ScalarKind::Float);
  EXPECT_TRUE(K[0]->IsKernel);
  EXPECT_EQ(M->Functions.size(), 3u);
  EXPECT_NE(printFunctionDebug(*K[0]).find("twice(a[x])"), std::string::npos)
      << printFunctionDebug(*K[0]);
  for (const Function *F : K)
    expectVerifies(*F);
}

TEST(Frontend, FindsOpenCLKernels) {
  auto M = parse(R"(
float scale(float v, float s) { return v * s; }
__kernel void saxpy(__global const float *x, __global float *y, float alpha,
                    int n) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = scale(x[i], alpha) + y[i];
}
)",
                 "x.cl");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Lang, Language::OpenCL);
  auto K = M->kernels();
  ASSERT_EQ(K.size(), 1u);
  EXPECT_EQ(K[0]->Name, "saxpy");
  ASSERT_EQ(K[0]->Params.size(), 4u);
  EXPECT_EQ(K[0]->Params[0].Ty.Space, AddressSpace::Global);
  EXPECT_TRUE(K[0]->Params[0].Ty.IsConst);
  EXPECT_FALSE(K[0]->Params[1].Ty.IsConst);
  const Function *H = M->find("scale");
  ASSERT_NE(H, nullptr);
  EXPECT_FALSE(H->IsKernel);
  expectVerifies(*K[0]);
}

TEST(Frontend, LanguageFromFileName) {
  EXPECT_EQ(languageOfFile("k.cl"), Language::OpenCL);
  EXPECT_EQ(languageOfFile("dir/k.cu"), Language::Cuda);
  EXPECT_EQ(languageOfFile("k.cuh"), Language::Cuda);
}

// --- thread positions --------------------------------------------------------

struct PositionCase {
  const char *FileName;
  const char *Spelling;
  Builtin Expected;
};

class ThreadPosition : public ::testing::TestWithParam<PositionCase> {};

TEST_P(ThreadPosition, FoldsToOneBuiltin) {
  const PositionCase &C = GetParam();
  bool CL = llvm::StringRef(C.FileName).endswith(".cl");
  std::string Src = std::string(CL ? "__kernel void k(__global float *a) {\n"
                                   : "__global__ void k(float *a) {\n") +
                    "  int x = " + C.Spelling + ";\n  a[x] = 1.0f;\n}\n";
  auto M = parse(Src, C.FileName);
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  const DeclStmt *D = findDecl(F, "x");
  ASSERT_NE(D, nullptr);
  ASSERT_TRUE(D->Init);
  EXPECT_TRUE(isBuiltin(D->Init.get(), C.Expected))
      << C.Spelling << " lowered to " << printExprDebug(*D->Init);
  std::string Debug = printFunctionDebug(F);
  std::string Want = std::string("int x = ") + builtinName(C.Expected) + ";";
  EXPECT_NE(Debug.find(Want), std::string::npos) << Debug;
}

INSTANTIATE_TEST_SUITE_P(
    Spellings, ThreadPosition,
    ::testing::Values(
        PositionCase{"x.cu", "blockIdx.x*blockDim.x+threadIdx.x", Builtin::Idx},
        PositionCase{"x.cu", "threadIdx.x + blockIdx.x*blockDim.x",
                     Builtin::Idx},
        PositionCase{"x.cu", "blockDim.x*blockIdx.x+threadIdx.x", Builtin::Idx},
        PositionCase{"x.cu", "(blockIdx.x * blockDim.x) + threadIdx.x",
                     Builtin::Idx},
        PositionCase{"x.cu", "blockIdx.y*blockDim.y+threadIdx.y", Builtin::Idy},
        PositionCase{"x.cu", "threadIdx.y", Builtin::Tidy},
        PositionCase{"x.cl",
                     "get_group_id(0)*get_local_size(0)+get_local_id(0)",
                     Builtin::Idx},
        PositionCase{"x.cl", "get_global_id(0)", Builtin::Idx},
        PositionCase{"x.cl", "get_global_id(1)", Builtin::Idy},
        PositionCase{"x.cl", "get_local_id(1)", Builtin::Tidy}));

TEST(Frontend, MixedDimensionsDoNotFold) {
  // blockIdx.x*blockDim.y + threadIdx.x is not a thread position.
  auto M = parse(R"(
__global__ void k(float *a) {
  int x = blockIdx.x * blockDim.y + threadIdx.x;
  a[x] = 1.0f;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const DeclStmt *D = findDecl(*M->kernels()[0], "x");
  ASSERT_NE(D, nullptr);
  EXPECT_FALSE(llvm::isa<BuiltinRef>(*D->Init)) << printExprDebug(*D->Init);
  EXPECT_EQ(printExprDebug(*D->Init), "bidx * bdimy + tidx");
}

// --- canonical loops ---------------------------------------------------------

struct LoopCase {
  const char *Header; ///< the text between `for (` and `)`
  std::int64_t Step;
  BinaryOp CondOp;
  const char *Bound; ///< debug spelling
  bool DeclaresIter;
};

class CanonicalLoop : public ::testing::TestWithParam<LoopCase> {};

TEST_P(CanonicalLoop, Recognized) {
  const LoopCase &C = GetParam();
  std::string Src = std::string("__global__ void k(float *a, int n) {\n"
                                "  int i;\n"
                                "  float s = 0.0f;\n"
                                "  for (") +
                    C.Header +
                    ")\n"
                    "    s += a[i];\n"
                    "  a[0] = s;\n"
                    "}\n";
  auto M = parse(Src);
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u)
      << (M->PassedThrough.empty() ? "" : M->PassedThrough[0].Construct);
  const ForStmt *L = firstLoop(*M->kernels()[0]);
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->Iter, "i");
  EXPECT_EQ(L->Step, C.Step) << C.Header;
  EXPECT_EQ(L->CondOp, C.CondOp) << C.Header;
  ASSERT_TRUE(L->Bound);
  EXPECT_EQ(printExprDebug(*L->Bound), C.Bound) << C.Header;
  EXPECT_EQ(L->DeclaresIter, C.DeclaresIter) << C.Header;
  EXPECT_EQ(L->getLine(), 4u);
  ASSERT_TRUE(L->Init);
  expectVerifies(*M->kernels()[0]);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, CanonicalLoop,
    ::testing::Values(
        LoopCase{"int i = 0; i < n; i++", 1, BinaryOp::LT, "n", true},
        LoopCase{"int i = 0; i < n; ++i", 1, BinaryOp::LT, "n", true},
        LoopCase{"int i = 0; i < n; i += 2", 2, BinaryOp::LT, "n", true},
        LoopCase{"int i = 0; i < n; i = i + 1", 1, BinaryOp::LT, "n", true},
        LoopCase{"int i = 0; i < n; i = 3 + i", 3, BinaryOp::LT, "n", true},
        LoopCase{"int i = 0; n > i; i++", 1, BinaryOp::LT, "n", true},
        LoopCase{"int i = 0; n - 1 >= i; i++", 1, BinaryOp::LE, "n - 1", true},
        LoopCase{"int i = 0; i <= n - 1; i++", 1, BinaryOp::LE, "n - 1", true},
        LoopCase{"int i = n - 1; i >= 0; i--", -1, BinaryOp::GE, "0", true},
        LoopCase{"int i = n; i > 0; i -= 4", -4, BinaryOp::GT, "0", true},
        LoopCase{"i = 0; i != n; i++", 1, BinaryOp::NE, "n", false}));

TEST(Frontend, NonConstantStepPassesThrough) {
  auto M = parse(R"(
__global__ void k(float *a, int n) {
  for (int i = 1; i < n; i *= 2)
    a[i] = 0.0f;
}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(M->kernels().empty());
  ASSERT_EQ(M->PassedThrough.size(), 1u);
  EXPECT_EQ(M->PassedThrough[0].Kernel, "k");
  EXPECT_NE(M->PassedThrough[0].Construct.find("step"), std::string::npos)
      << M->PassedThrough[0].Construct;
  EXPECT_EQ(M->PassedThrough[0].Line, 3u);
}

TEST(Frontend, LoopInvariantStepLowers) {
  auto M = parse(R"(
__global__ void k(float *a, int n, int nt) {
  int stride = blockDim.x * gridDim.x;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += nt)
    a[j] = 0.0f;
  for (int j = n - 1; j >= 0; j -= stride)
    a[j] += 1.0f;
  for (int j = 0; j < n; j = j + blockDim.x * gridDim.x)
    a[j] += 2.0f;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u)
      << (M->PassedThrough.empty() ? "" : M->PassedThrough[0].Construct);
  std::vector<const ForStmt *> Loops;
  walkStmts(*M->kernels()[0]->Body, [&](Stmt &S) {
    if (auto *L = llvm::dyn_cast<ForStmt>(&S))
      Loops.push_back(L);
  });
  ASSERT_EQ(Loops.size(), 3u);
  const char *Steps[] = {"nt", "stride", "bdimx * gdimx"};
  const std::int64_t Directions[] = {1, -1, 1};
  for (unsigned I = 0; I < 3; ++I) {
    ASSERT_FALSE(Loops[I]->hasConstantStep());
    EXPECT_EQ(printExprDebug(*Loops[I]->StepExpr), Steps[I]);
    EXPECT_EQ(Loops[I]->Step, Directions[I]);
  }
  std::string Cuda = printFunctionDebug(*M->kernels()[0]);
  EXPECT_NE(Cuda.find("j += nt)"), std::string::npos) << Cuda;
  EXPECT_NE(Cuda.find("j -= stride)"), std::string::npos) << Cuda;
}

TEST(Frontend, StepThatIsNotLoopInvariantPassesThrough) {
  const char *Cases[][2] = {
      // source of the loop, what the reason names
      {"for (int j = 0; j < n; j += threadIdx.x + 1) a[j] = 0.0f;",
       "depends on a thread position"},
      {"for (int j = 0; j < n; j += s) { a[j] = 0.0f; s = s + 1; }",
       "changed in the body ('s' is assigned)"},
      {"for (int j = 0; j < n; j += a[0]) a[j] = 0.0f;", "depends on"},
      {"for (int j = 0; j != n; j += s) a[j] = 0.0f;",
       "does not bound it (+= with '!=')"},
      {"for (int j = n; j > 0; j += s) a[j] = 0.0f;",
       "does not bound it (+= with '>')"},
  };
  for (auto &C : Cases) {
    auto M = parse(std::string("__global__ void k(float *a, int n) {\n"
                               "  int s = n / 8 + 1;\n  ") +
                   C[0] + "\n}\n");
    ASSERT_TRUE(M);
    ASSERT_EQ(M->PassedThrough.size(), 1u) << C[0];
    EXPECT_NE(M->PassedThrough[0].Construct.find(C[1]), std::string::npos)
        << C[0] << ": " << M->PassedThrough[0].Construct;
  }
}

TEST(Frontend, IteratorModifiedInBodyPassesThrough) {
  auto M = parse(R"(
__global__ void k(float *a, int n) {
  for (int i = 0; i < n; i++) {
    a[i] = 0.0f;
    i = i + 1;
  }
}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(M->kernels().empty());
  ASSERT_EQ(M->PassedThrough.size(), 1u);
  EXPECT_NE(M->PassedThrough[0].Construct.find("'i'"), std::string::npos)
      << M->PassedThrough[0].Construct;
}

// --- passed through ----------------------------------------------------------

TEST(Frontend, WhileLoopPassesKernelThrough) {
  const std::string Src = R"(__global__ void ok(float *a) {
  a[threadIdx.x] = 0.0f;
}
__global__ void spin(float *a, int n) {
  int i = 0;
  while (i < n) { // stepped before its last statement: not a for loop
    i++;
    a[i - 1] = 1.0f;
  }
}
)";
  auto M = parse(Src);
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  EXPECT_EQ(M->kernels()[0]->Name, "ok");
  EXPECT_EQ(M->find("spin"), nullptr);
  ASSERT_EQ(M->PassedThrough.size(), 1u);
  const Unsupported &U = M->PassedThrough[0];
  EXPECT_EQ(U.Kernel, "spin");
  EXPECT_NE(U.Construct.find("while"), std::string::npos) << U.Construct;
  EXPECT_EQ(U.Line, 6u);
  // The span still covers the kernel's text, for writing it back unchanged.
  ASSERT_LE(U.Span.End, Src.size());
  ASSERT_LT(U.Span.Begin, U.Span.End);
  std::string Text = Src.substr(U.Span.Begin, U.Span.End - U.Span.Begin);
  EXPECT_EQ(Text.rfind("__global__ void spin", 0), 0u) << Text;
  EXPECT_EQ(Text.back(), '}') << Text;
  EXPECT_EQ(U.Span.Line, 4u);
}

TEST(Frontend, AtomicPassesKernelThrough) {
  auto M = parse(R"(
__global__ void histogram(const unsigned int *data, unsigned int *hist,
                          int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[data[i] % nbins], 1u);
}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(M->kernels().empty());
  ASSERT_EQ(M->PassedThrough.size(), 1u);
  EXPECT_EQ(M->PassedThrough[0].Kernel, "histogram");
  EXPECT_NE(M->PassedThrough[0].Construct.find("atomic"), std::string::npos)
      << M->PassedThrough[0].Construct;
  EXPECT_EQ(M->PassedThrough[0].Line, 6u);
}

TEST(Frontend, KernelCallingUnloweredHelperPassesThrough) {
  auto M = parse(R"(
__device__ float bad(float v) {
  while (v < 1.0f)
    v += 0.5f;
  return v;
}
__global__ void k(float *a) {
  a[0] = bad(a[0]);
}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(M->kernels().empty());
  EXPECT_EQ(M->find("bad"), nullptr);
  const Unsupported *K = nullptr;
  for (const Unsupported &U : M->PassedThrough)
    if (U.Kernel == "k")
      K = &U;
  ASSERT_NE(K, nullptr);
  EXPECT_NE(K->Construct.find("bad"), std::string::npos) << K->Construct;
}

// --- errors
// --------------------------------------------------------------------

TEST(Frontend, SyntaxErrorGivesFileLineColumn) {
  auto M = parseSource("__global__ void k(float *a) {\n"
                       "  a[0] = 1.0f\n"
                       "  a[1] = 2.0f;\n"
                       "}\n",
                       "x.cu", {});
  ASSERT_FALSE(bool(M));
  std::string Msg = llvm::toString(M.takeError());
  // "expected ';' after expression" points just past `1.0f`.
  EXPECT_NE(Msg.find("x.cu:2:14"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("error"), std::string::npos) << Msg;
}

TEST(Frontend, UndeclaredNameIsAnErrorInOpenCL) {
  auto M = parseSource("__kernel void k(__global float *a) {\n"
                       "  a[0] = undeclared_thing;\n"
                       "}\n",
                       "x.cl", {});
  ASSERT_FALSE(bool(M));
  std::string Msg = llvm::toString(M.takeError());
  EXPECT_NE(Msg.find("x.cl:2:10"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("error"), std::string::npos) << Msg;
}

TEST(Frontend, MalformedPragmaIsAnError) {
  auto M = parseSource("#pragma gpumerge size(w=abc)\n"
                       "__global__ void k(float *a) { a[0] = 0.0f; }\n",
                       "x.cu", {});
  ASSERT_FALSE(bool(M));
  std::string Msg = llvm::toString(M.takeError());
  EXPECT_NE(Msg.find("x.cu:1"), std::string::npos) << Msg;
}

// --- what is kept for the emitters
// --------------------------------------------

TEST(Frontend, PragmaHintsApplyToTheNextKernel) {
  auto M = parse(R"(
#pragma gpumerge size(w=4096, h=100)
#pragma gpumerge output(c)
__global__ void first(float *c, int w, int h) {
  c[0] = 0.0f;
}
__global__ void second(float *d) {
  d[0] = 0.0f;
}
#pragma gpumerge size(n=7)
__global__ void third(float *e, int n) {
  e[0] = 0.0f;
}
)");
  ASSERT_TRUE(M);
  const Function *F = M->find("first");
  ASSERT_NE(F, nullptr);
  std::map<std::string, std::int64_t> Want = {{"w", 4096}, {"h", 100}};
  EXPECT_EQ(F->SizeHints, Want);
  EXPECT_EQ(F->OutputHints, std::vector<std::string>{"c"});
  const Function *S = M->find("second");
  ASSERT_NE(S, nullptr);
  EXPECT_TRUE(S->SizeHints.empty());
  EXPECT_TRUE(S->OutputHints.empty());
  const Function *T = M->find("third");
  ASSERT_NE(T, nullptr);
  std::map<std::string, std::int64_t> WantT = {{"n", 7}};
  EXPECT_EQ(T->SizeHints, WantT);
}

// A whole program says the sizes it launches a kernel with (PolyBench:
// `int ni = NI;` in main, passed down to the launch): those are the
// kernel's size hints, followed through locals and every call of a
// function, unless a value is written after its initialization, its
// address is taken, or two launches disagree. A pragma's hint wins.
TEST(Frontend, LaunchedSizesAreHints) {
  auto M = parse(R"(
#include <cuda_runtime.h>
#define N 300
__global__ void k(float *a, int n, int m, int t, int q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = m + t + q;
}
__global__ void two(float *a, int n) { a[0] = n; }
#pragma gpumerge size(n=4096)
__global__ void hinted(float *a, int n, int m) { a[0] = n + m; }
__global__ void moved(float *a, int n, int m) { a[0] = n + m; }
static void run(float *a, int n, int m) {
  for (int t = 0; t < 3; t++)
    k<<<n / 256 + 1, 256>>>(a, n, m + 1, t, (int)sizeof(float));
}
static void grow(int *p) { *p += 1; }
int main() {
  int n = N;
  int m = n * 2;
  float *a = 0;
  run(a, n, m);
  run(a, N, 600);
  two<<<1, 1>>>(a, n);
  two<<<1, 1>>>(a, m);
  hinted<<<1, 1>>>(a, n, m);
  int g = 7, h = 8;
  grow(&g);
  h = h + 1;
  moved<<<1, 1>>>(a, g, h);
  return 0;
}
)");
  ASSERT_TRUE(M);
  using Hints = std::map<std::string, std::int64_t>;
  const Function *K = M->find("k");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->SizeHints, (Hints{{"n", 300}, {"m", 601}, {"q", 4}}));
  const Function *Two = M->find("two");
  ASSERT_NE(Two, nullptr);
  EXPECT_TRUE(Two->SizeHints.empty()) << "two launches disagree on n";
  const Function *H = M->find("hinted");
  ASSERT_NE(H, nullptr);
  EXPECT_EQ(H->SizeHints, (Hints{{"n", 4096}, {"m", 600}}));
  const Function *Moved = M->find("moved");
  ASSERT_NE(Moved, nullptr);
  EXPECT_TRUE(Moved->SizeHints.empty())
      << "g's address is taken and h is written: neither keeps its value";
}

// The hints before a kernel that is passed through are that kernel's: the
// next (lowered) kernel must not inherit them.
TEST(Frontend, PragmaHintsOfAPassedThroughKernelDoNotLeak) {
  auto M = parse(R"(
#pragma gpumerge size(n=5)
#pragma gpumerge output(a)
__global__ void spin(float *a, int n) {
  int i = 0;
  while (i < n) { // stepped before its last statement: not a for loop
    i++;
    a[i - 1] = 0.0f;
  }
}
__global__ void good(float *b) {
  b[threadIdx.x] = 1.0f;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->PassedThrough.size(), 1u);
  const Function *G = M->find("good");
  ASSERT_NE(G, nullptr);
  EXPECT_TRUE(G->SizeHints.empty())
      << "good got size hint n=" << G->SizeHints.begin()->second;
  EXPECT_TRUE(G->OutputHints.empty())
      << "good got output hint " << G->OutputHints[0];
}

TEST(Frontend, TypedefElementTypeIsKept) {
  auto M = parse(R"(
typedef float DATA_TYPE;
__global__ void k(DATA_TYPE alpha, const DATA_TYPE *a, DATA_TYPE *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  DATA_TYPE t = alpha * a[i];
  if (i < n)
    c[i] = t;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  const Param *A = F.findParam("a");
  ASSERT_NE(A, nullptr);
  EXPECT_TRUE(A->Ty.IsPointer);
  EXPECT_EQ(A->Ty.Scalar, ScalarKind::Float);
  EXPECT_EQ(A->Ty.TypedefName, "DATA_TYPE");
  const Param *Alpha = F.findParam("alpha");
  ASSERT_NE(Alpha, nullptr);
  EXPECT_EQ(Alpha->Ty.TypedefName, "DATA_TYPE");
  const DeclStmt *T = findDecl(F, "t");
  ASSERT_NE(T, nullptr);
  EXPECT_EQ(T->Ty.TypedefName, "DATA_TYPE");

  ASSERT_EQ(M->Typedefs.size(), 1u);
  EXPECT_EQ(M->Typedefs[0].first, "DATA_TYPE");
  EXPECT_NE(M->Typedefs[0].second.find("typedef float DATA_TYPE"),
            std::string::npos)
      << M->Typedefs[0].second;
  std::string Debug = printFunctionDebug(F);
  EXPECT_NE(Debug.find("const DATA_TYPE *a"), std::string::npos) << Debug;
}

TEST(Frontend, MacroConstantKeepsItsName) {
  auto M = parse(R"(
#define WIDTH 2048
#define UNUSED 7
__global__ void k(float *a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  a[y * WIDTH + x] = 0.0f;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const ArrayRef *R = firstAccess(*M->kernels()[0], "a");
  ASSERT_NE(R, nullptr);
  ASSERT_EQ(R->Indices.size(), 1u);
  // y * WIDTH + x
  const auto *Sum = llvm::dyn_cast<BinaryExpr>(R->Indices[0].get());
  ASSERT_NE(Sum, nullptr);
  const auto *Prod = llvm::dyn_cast<BinaryExpr>(Sum->LHS.get());
  ASSERT_NE(Prod, nullptr);
  const auto *W = llvm::dyn_cast<IntLit>(Prod->RHS.get());
  ASSERT_NE(W, nullptr);
  EXPECT_EQ(W->Value, 2048);
  EXPECT_EQ(W->MacroName, "WIDTH");
  EXPECT_EQ(printExprDebug(*R), "a[y * WIDTH + x]");
  ASSERT_EQ(M->Macros.size(), 1u);
  EXPECT_EQ(M->Macros[0].first, "WIDTH");
  EXPECT_EQ(M->Macros[0].second, "#define WIDTH 2048");
}

TEST(Frontend, PaperDialect) {
  auto M = parse(R"(#define WIDTH 2048
__global__ void k(float *a, float *b) {
  a[idy * WIDTH + idx] = 0.0f;
  __syncthreads();
  b[idx] = a[tidx];
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  EXPECT_TRUE(F.PaperDialect);
  const ArrayRef *B = firstAccess(F, "b");
  ASSERT_NE(B, nullptr);
  EXPECT_TRUE(isBuiltin(B->Indices[0].get(), Builtin::Idx))
      << printExprDebug(*B);
  ASSERT_EQ(F.Body->Body.size(), 3u);
  EXPECT_TRUE(llvm::isa<GlobalSyncStmt>(*F.Body->Body[1]));
  EXPECT_EQ(F.Body->Body[1]->getLine(), 4u);
  std::string Debug = printFunctionDebug(F);
  EXPECT_NE(Debug.find("a[idy * WIDTH + idx] = 0.0f;"), std::string::npos)
      << Debug;
  EXPECT_NE(Debug.find("gpumerge_global_sync();"), std::string::npos) << Debug;
  expectVerifies(F);
}

TEST(Frontend, OrdinaryKernelIsNotPaperDialect) {
  auto M = parse(R"(
__global__ void k(float *a) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  a[idx] = 0.0f;
  __syncthreads();
  a[idx] += 1.0f;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  EXPECT_FALSE(F.PaperDialect);
  // A local named idx shadows the dialect's: it is a variable.
  const ArrayRef *A = firstAccess(F, "a");
  ASSERT_NE(A, nullptr);
  EXPECT_TRUE(llvm::isa<VarRef>(*A->Indices[0]));
  bool SawSync = false, SawGlobalSync = false;
  walkStmts(*F.Body, [&](Stmt &S) {
    SawSync |= llvm::isa<SyncStmt>(S);
    SawGlobalSync |= llvm::isa<GlobalSyncStmt>(S);
  });
  EXPECT_TRUE(SawSync);
  EXPECT_FALSE(SawGlobalSync);
}

TEST(Frontend, ExplicitGlobalSync) {
  auto M = parse(R"(
__global__ void k(float *a) {
  a[threadIdx.x] = 0.0f;
  gpumerge_global_sync();
  a[threadIdx.x] += 1.0f;
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  ASSERT_EQ(F.Body->Body.size(), 3u);
  EXPECT_TRUE(llvm::isa<GlobalSyncStmt>(*F.Body->Body[1]));
}

TEST(Frontend, TwoDimensionalArrayParameter) {
  auto M = parse(R"(
__global__ void k(float (*a)[1024], const float (*b)[1024]) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  a[y][x] = b[x][y];
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  const Param *A = F.findParam("a");
  ASSERT_NE(A, nullptr);
  EXPECT_TRUE(A->Ty.IsPointer);
  EXPECT_EQ(A->Ty.InnerExtents, std::vector<std::int64_t>{1024});
  EXPECT_EQ(A->Ty.Scalar, ScalarKind::Float);
  const Param *B = F.findParam("b");
  ASSERT_NE(B, nullptr);
  EXPECT_TRUE(B->Ty.IsConst);
  const ArrayRef *R = firstAccess(F, "a");
  ASSERT_NE(R, nullptr);
  ASSERT_EQ(R->Indices.size(), 2u);
  EXPECT_EQ(printExprDebug(*R), "a[y][x]");
  EXPECT_EQ(R->Space, AddressSpace::Global);
  expectVerifies(F);
}

TEST(Frontend, SpanCoversTheWholeDefinition) {
  const std::string Src = R"(// a comment
#define N 4
__global__ void k(float *a) {
  a[threadIdx.x] = N;
}

int host_helper(int v) { return v + 1; }
)";
  auto M = parse(Src);
  ASSERT_TRUE(M);
  EXPECT_TRUE(M->HasHostCode);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  ASSERT_LT(F.Span.Begin, F.Span.End);
  ASSERT_LE(F.Span.End, Src.size());
  std::string Text = Src.substr(F.Span.Begin, F.Span.End - F.Span.Begin);
  EXPECT_EQ(Text.rfind("__global__", 0), 0u) << Text;
  ASSERT_FALSE(Text.empty());
  EXPECT_EQ(Text.back(), '}') << Text;
  EXPECT_EQ(Text, "__global__ void k(float *a) {\n"
                  "  a[threadIdx.x] = N;\n"
                  "}");
  EXPECT_EQ(F.Span.Line, 3u);
  EXPECT_EQ(M->Source, Src);
  EXPECT_EQ(M->FileName, "x.cu");
}

TEST(Frontend, SharedArrayDeclaration) {
  auto M = parse(R"(
__global__ void k(float *a) {
  __shared__ float s[16][17];
  s[threadIdx.y][threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[threadIdx.x][threadIdx.y];
}
)");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  const DeclStmt *S = findDecl(F, "s");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->Ty.Space, AddressSpace::Shared);
  EXPECT_EQ(S->Extents, (std::vector<std::int64_t>{16, 17}));
  const ArrayRef *R = firstAccess(F, "s");
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Space, AddressSpace::Shared);
  expectVerifies(F);
}

TEST(Frontend, StatementLines) {
  auto M = parse("__global__ void k(float *a, int n) {\n" // 1
                 "  int x = threadIdx.x;\n"               // 2
                 "\n"                                     // 3
                 "  if (x < n)\n"                         // 4
                 "    a[x] = 0.0f;\n"                     // 5
                 "}\n");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  ASSERT_EQ(F.Body->Body.size(), 2u);
  EXPECT_EQ(F.Body->Body[0]->getLine(), 2u);
  EXPECT_EQ(F.Body->Body[1]->getLine(), 4u);
  const auto *If = llvm::dyn_cast<IfStmt>(F.Body->Body[1].get());
  ASSERT_NE(If, nullptr);
  EXPECT_EQ(If->Then->getLine(), 5u);
  const ArrayRef *R = firstAccess(F, "a");
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->getLine(), 5u);
}

TEST(Frontend, OpenCLLocalMemoryAndBarrier) {
  auto M = parse(R"(
__kernel void k(__global float *a) {
  __local float s[64];
  s[get_local_id(0)] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  a[get_global_id(0)] = s[63 - get_local_id(0)];
}
)",
                 "x.cl");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->kernels().size(), 1u);
  const Function &F = *M->kernels()[0];
  EXPECT_FALSE(F.PaperDialect);
  const DeclStmt *S = findDecl(F, "s");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->Ty.Space, AddressSpace::Shared);
  EXPECT_EQ(S->Extents, std::vector<std::int64_t>{64});
  ASSERT_EQ(F.Body->Body.size(), 4u);
  EXPECT_TRUE(llvm::isa<SyncStmt>(*F.Body->Body[2]));
  const ArrayRef *R = firstAccess(F, "s");
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Space, AddressSpace::Shared);
  EXPECT_TRUE(isBuiltin(R->Indices[0].get(), Builtin::Tidx));
  const ArrayRef *A = firstAccess(F, "a");
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(A->Space, AddressSpace::Global);
  expectVerifies(F);
}

/// Every file of the corpus parses; every function lowered from it verifies;
/// every kernel but the deliberately unsupported ones is lowered.
TEST(Frontend, CorpusLowersAndVerifies) {
  std::string Dir = std::string(GPUMERGE_SOURCE_DIR) + "/kernels";
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Ext = llvm::sys::path::extension(It->path());
    if (Ext == ".cu" || Ext == ".cl")
      Files.push_back(It->path());
  }
  ASSERT_FALSE(EC) << EC.message();
  std::sort(Files.begin(), Files.end());
  ASSERT_GE(Files.size(), 20u);
  unsigned Kernels = 0;
  for (const std::string &Path : Files) {
    SCOPED_TRACE(Path);
    std::string Name = llvm::sys::path::stem(Path).str();
    auto M = parseFile(Path, {});
    if (!M) {
      std::string Msg = llvm::toString(M.takeError());
      // Host code needs the CUDA toolkit's headers, which may be absent.
      if (Msg.find("CUDA toolkit") != std::string::npos)
        continue;
      ADD_FAILURE() << Msg;
      continue;
    }
    for (const auto &F : (*M)->Functions) {
      llvm::Error E = verifyFunction(*F);
      EXPECT_FALSE(bool(E))
          << F->Name << ": " << (E ? llvm::toString(std::move(E)) : "");
      EXPECT_FALSE(F->Body->Body.empty()) << F->Name;
    }
    Kernels += (*M)->kernels().size();
    if (Name == "histogram_atomic") {
      ASSERT_EQ((*M)->PassedThrough.size(), 1u);
      EXPECT_NE((*M)->PassedThrough[0].Construct.find("atomic"),
                std::string::npos);
      EXPECT_EQ((*M)->PassedThrough[0].Line, 12u);
      continue;
    }
    // rd's first loop steps by the parameter nt (`j += nt`), which KIR's
    // constant-step ForStmt does not express.
    if (Name == "rd")
      continue;
    EXPECT_FALSE((*M)->kernels().empty());
    for (const Unsupported &U : (*M)->PassedThrough)
      ADD_FAILURE() << U.Kernel << " passed through: " << U.Construct
                    << " at line " << U.Line;
  }
  EXPECT_GE(Kernels, 30u);
}

TEST(Frontend, CorpusPaperDialectFile) {
  auto M = parseFile(
      std::string(GPUMERGE_SOURCE_DIR) + "/kernels/mm_paper_dialect.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ((*M)->kernels().size(), 1u);
  const Function &F = *(*M)->kernels()[0];
  EXPECT_TRUE(F.PaperDialect);
  // float a[WIDTH][WIDTH] as a parameter is float (*a)[2048].
  const Param *A = F.findParam("a");
  ASSERT_NE(A, nullptr);
  EXPECT_TRUE(A->Ty.IsPointer);
  EXPECT_EQ(A->Ty.InnerExtents, std::vector<std::int64_t>{2048});
  std::string Debug = printFunctionDebug(F);
  EXPECT_NE(Debug.find("sum += a[idy][i] * b[i][idx];"), std::string::npos)
      << Debug;
  EXPECT_NE(Debug.find("i < WIDTH"), std::string::npos) << Debug;
  const ForStmt *L = firstLoop(F);
  ASSERT_NE(L, nullptr);
  EXPECT_FALSE(L->DeclaresIter);
  EXPECT_EQ(F.OutputHints, std::vector<std::string>{"c"});
}

} // namespace
