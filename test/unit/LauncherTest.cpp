//===- LauncherTest.cpp - Launch code from a LaunchPlan -------------------===//
//
// Plans made by hand, as the passes will make them: the CUDA launcher checks
// what the plan needs and launches the optimized kernel or the naive one; the
// module keeps both kernels; host launches are rewritten and nothing else of
// the host code changes; the OpenCL header compiles as C and computes the
// right NDRange; plans that cannot be honoured leave the input's kernel. The
// emitted CUDA compiles with nvcc, warning-free.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Launcher.h"
#include "Analysis/Domain.h"
#include "Analysis/Reruns.h"
#include "CodeGen/Emitter.h"
#include "Frontend/Frontend.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>

#include "gtest/gtest.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

const char *MM = GuardedMMSource;

std::unique_ptr<Module> parse(const std::string &Source,
                              const std::string &FileName) {
  auto M = parseSource(Source, FileName, {});
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

std::string readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(B)) << Path;
  return B ? (*B)->getBuffer().str() : "";
}

std::shared_ptr<const Expr> shared(ExprPtr E) { return E; }

/// The plan of LaunchPlan.h's example: blocks of 32 x 8, four rows per
/// thread, the extent from mm's guard, the i loop tiled by 32, a and b kept
/// on chip while c is written.
LaunchPlan mmPlan(const Function &Naive) {
  LaunchPlan P;
  P.Dims = 2;
  P.Block = {32, 8};
  P.Coverage = {1, 4};
  KernelDomain D = findDomain(Naive);
  for (unsigned Dim = 0; Dim < 2; ++Dim) {
    EXPECT_EQ(D.Bounds[Dim].size(), 1u);
    if (!D.Bounds[Dim].empty())
      P.Extent[Dim] = shared(D.Bounds[Dim].front().Bound->clone());
  }
  P.Preconditions.push_back(
      {shared(binary(BinaryOp::EQ, binary(BinaryOp::Rem, var("k"), intLit(32)),
                     intLit(0))),
       "the i loop is tiled by 32"});
  P.Disjoint = {{"a", "c"}, {"b", "c"}};
  P.Elements["a"] = shared(mul(var("h"), var("k")));
  P.Elements["b"] = shared(mul(var("k"), var("w")));
  P.Elements["c"] = shared(mul(var("h"), var("w")));
  P.SharedBytes = 2 * 32 * 32 * 4;
  return P;
}

/// A replacement for \p Naive: its clone (the test needs no real pass)
/// with \p P.
std::unique_ptr<Function> withPlan(const Function &Naive, LaunchPlan P) {
  auto F = Naive.clone();
  F->Plan = std::move(P);
  return F;
}

bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

std::string tempDir() {
  llvm::SmallString<128> Dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("gpumerge-launcher", Dir));
  return std::string(Dir);
}

std::string writeTemp(const std::string &Dir, const std::string &Name,
                      const std::string &Text) {
  std::string Path = Dir + "/" + Name;
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  EXPECT_FALSE(EC) << Path;
  OS << Text;
  return Path;
}

/// Runs \p Program with \p Args; returns its exit code and, in \p Output,
/// what it printed.
int run(const std::string &Program, std::vector<std::string> Args,
        std::string &Output) {
  llvm::SmallString<128> Log;
  llvm::sys::fs::createTemporaryFile("gpumerge-launcher", "log", Log);
  std::vector<llvm::StringRef> Argv = {Program};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(),
                                                Log.str()};
  int RC = llvm::sys::ExecuteAndWait(Program, Argv, std::nullopt, Redirects);
  Output = readFile(std::string(Log));
  llvm::sys::fs::remove(Log);
  return RC;
}

std::string findNvcc() {
  if (auto P = llvm::sys::findProgramByName("nvcc"))
    return *P;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc"))
    return "/usr/local/cuda/bin/nvcc";
  return "";
}

/// Compiles (and with \p Link, links) CUDA file \p Path with every warning
/// an error; "" when it worked, else nvcc's output.
std::string nvccErrors(const std::string &Nvcc, const std::string &Path,
                       bool Link) {
  std::string Out;
  std::vector<std::string> Args = {"-arch=sm_80", "-Werror", "all-warnings",
                                   "-Xcompiler",
                                   // Our pragmas are for gpumerge.
                                   "-Wall,-Wextra,-Werror,-Wno-unknown-pragmas",
                                   Path, "-o", Path + (Link ? ".bin" : ".o")};
  if (!Link)
    Args.insert(Args.begin(), "-c");
  int RC = run(Nvcc, Args, Out);
  return RC == 0 ? "" : "nvcc exit " + std::to_string(RC) + ":\n" + Out;
}

TEST(Launcher, CudaLauncherChecksThePlan) {
  auto M = parse(MM, "mm.cu");
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  auto Opt = withPlan(Naive, mmPlan(Naive));
  ASSERT_FALSE(bool(checkLaunchPlan(*Opt)));
  std::string L = emitCudaLauncher(*Opt);
  SCOPED_TRACE(L);
  EXPECT_TRUE(contains(L, "[[maybe_unused]] static void gpumerge_launch_mm("
                          "dim3 grid, dim3 block,\n    size_t smem, "
                          "cudaStream_t stream, const float *a, const float "
                          "*b, float *c,\n    int w, int h, int k) {"));
  // The domain from the guard, at least one 32 x 32 tile of it.
  EXPECT_TRUE(contains(L, "const long long extent_x = (long long)w;"));
  EXPECT_TRUE(contains(L, "const long long extent_y = (long long)h;"));
  EXPECT_TRUE(contains(L, "ok = ok && blocks_x > 0;"));
  EXPECT_TRUE(contains(L, "ok = ok && blocks_y > 0;"));
  // The grid fits, and the last tile's positions are ints.
  EXPECT_TRUE(contains(L, "ok = ok && blocks_x * 32 <= 2147483647LL && "
                          "blocks_y <= 65535 &&\n      (extent_y + 7) / 8 <= "
                          "65535;"));
  // The naive launch covered exactly the domain.
  EXPECT_TRUE(contains(L, "ok = ok && (long long)grid.x * block.x >= "
                          "extent_x;"));
  EXPECT_TRUE(contains(L, "ok = ok && (long long)grid.y * block.y >= "
                          "extent_y;"));
  EXPECT_TRUE(contains(L, "ok = ok && (long long)grid.z * block.z == 1;"));
  // The precondition, with why.
  EXPECT_TRUE(contains(L, "// the i loop is tiled by 32\n  ok = ok && (k % 32 "
                          "== 0);"));
  // Both disjoint pairs, as byte ranges.
  EXPECT_TRUE(contains(L, "const size_t a_bytes = (size_t)((long long)h * "
                          "(long long)k) * sizeof(*a);"));
  EXPECT_TRUE(contains(L, "const size_t c_bytes = (size_t)((long long)h * "
                          "(long long)w) * sizeof(*c);"));
  EXPECT_TRUE(contains(L, "ok = ok && ((const char *)a + a_bytes <= (const "
                          "char *)c ||\n      (const char *)c + c_bytes <= "
                          "(const char *)a);"));
  EXPECT_TRUE(contains(L, "ok = ok && ((const char *)b + b_bytes <= (const "
                          "char *)c ||\n      (const char *)c + c_bytes <= "
                          "(const char *)b);"));
  // The launches: the whole tiles, the edges they leave, or the fallback.
  EXPECT_TRUE(contains(L, "  if (ok) {\n    mm<<<dim3((unsigned)blocks_x, "
                          "(unsigned)blocks_y), dim3(32, 8), 0,\n        "
                          "stream>>>(a, b, c, w, h, k);\n"));
  EXPECT_TRUE(contains(L, "const long long blocks_y = extent_y / 32;"));
  EXPECT_TRUE(contains(L, "    const long long done_x = blocks_x * 32;\n"
                          "    const long long done_y = blocks_y * 32;\n"
                          "    if (done_x < extent_x)\n"
                          "      mm_edge<<<dim3((unsigned)((extent_x - done_x "
                          "+ 31) / 32),\n"));
  EXPECT_TRUE(contains(L, "(int)done_x, (int)extent_x, 0, (int)extent_y);\n"
                          "    if (done_y < extent_y)\n"));
  EXPECT_TRUE(contains(L, "0, (int)done_x, (int)done_y, (int)extent_y);\n"
                          "  } else {\n    mm_naive<<<grid, block, smem, "
                          "stream>>>(a, b, c, w, h, k);\n  }\n}\n"));
  for (llvm::StringRef Line : llvm::split(L, '\n'))
    EXPECT_LE(Line.size(), 80u) << Line.str();
}

TEST(Launcher, SameLaunchAndGuardedPlans) {
  auto M = parse(MM, "mm.cu");
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  LaunchPlan Same;
  Same.Dims = 2;
  Same.SameLaunch = true;
  Same.Preconditions.push_back(
      {shared(binary(BinaryOp::GT, var("k"), intLit(0))), ""});
  auto Opt = withPlan(Naive, Same);
  std::string L = emitCudaLauncher(*Opt);
  EXPECT_FALSE(contains(L, "extent")) << L;
  EXPECT_TRUE(contains(L, "ok = ok && (k > 0);")) << L;
  EXPECT_TRUE(contains(L, "if (ok)\n    mm<<<grid, block, smem, stream>>>(a, "
                          "b, c, w, h, k);"))
      << L;

  // A merged kernel that keeps its guard: the grid rounds up.
  LaunchPlan Guarded = mmPlan(Naive);
  Guarded.GuardsDomain = true;
  L = emitCudaLauncher(*withPlan(Naive, Guarded));
  EXPECT_TRUE(contains(L, "const long long blocks_x = (extent_x + 31) / 32;"))
      << L;
  EXPECT_TRUE(contains(L, "ok = ok && extent_x > 0;\n")) << L;
  EXPECT_FALSE(contains(L, "% 32 == 0;\n  ok = ok && extent_y")) << L;
  // Its last tile reaches past the domain: where that passes 2^31 (w within
  // a tile of it), the int positions would wrap, and the input runs.
  EXPECT_TRUE(contains(L, "ok = ok && blocks_x * 32 <= 2147483647LL && "
                          "blocks_y <= 65535"))
      << L;
}

TEST(Launcher, NamesOfTheLauncherDoNotClashWithParameters) {
  auto M = parse("__global__ void k(float *grid, int block, int ok) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i < block) grid[i] = ok;\n}\n",
                 "k.cu");
  ASSERT_TRUE(M);
  LaunchPlan P;
  P.Block = {128, 1};
  P.Extent[0] = shared(var("block"));
  std::string L = emitCudaLauncher(*withPlan(*M->kernels()[0], P));
  EXPECT_TRUE(contains(L, "(dim3 grid_, dim3 block_,\n    size_t smem, "
                          "cudaStream_t stream, float *grid, int block, int "
                          "ok) {"))
      << L;
  EXPECT_TRUE(contains(L, "bool ok_ = true;")) << L;
  EXPECT_TRUE(contains(L, "(long long)grid_.y * block_.y == 1;")) << L;
}

TEST(Launcher, CopiesOfAThreadInRowsTheKernelDoesNotIndex) {
  // PolyBench launches its 1-D kernels with 32 x 8 blocks: eight copies of
  // each thread. atax's leave what one leaves; mvt's add their sums again.
  auto Launcher = [](const std::string &Body) {
    auto M = parse("__global__ void k(const float *a, const float *x, float "
                   "*y, int n) {\n  int i = blockIdx.x * blockDim.x + "
                   "threadIdx.x;\n  if (i < n) {\n" +
                       Body + "\n  }\n}\n",
                   "k.cu");
    EXPECT_TRUE(M);
    const Function &Naive = *M->kernels()[0];
    LaunchPlan P;
    P.Block = {128, 1};
    P.Extent[0] = shared(var("n"));
    std::map<std::string, std::shared_ptr<const Expr>> Counts = {
        {"a", shared(mul(var("n"), var("n")))},
        {"x", shared(var("n"))},
        {"y", shared(var("n"))}};
    P.requireDisjoint("a", "y", Counts);
    P.requireDisjoint("x", "y", Counts);
    allowHarmlessCopies(P, Naive);
    return emitCudaLauncher(*withPlan(Naive, P));
  };
  std::string Atax = Launcher("y[i] = 0;\nfor (int j = 0; j < n; j++)\n  "
                              "y[i] += a[i * n + j] * x[j];");
  EXPECT_FALSE(contains(Atax, "block.y == 1")) << Atax;
  EXPECT_FALSE(contains(Atax, "block.z == 1")) << Atax;
  EXPECT_TRUE(contains(Atax, "// Where it has more than one thread in Y or "
                             "Z, the threads that differ only\n  // there "
                             "compute the same elements"))
      << Atax;
  EXPECT_TRUE(contains(Atax, "ok = ok && (long long)grid.x * block.x >= "
                             "extent_x;"))
      << Atax;
  std::string Mvt = Launcher("for (int j = 0; j < n; j++)\n  y[i] += a[i * "
                             "n + j] * x[j];");
  EXPECT_TRUE(contains(Mvt, "ok = ok && (long long)grid.y * block.y == 1;"))
      << Mvt;
  EXPECT_TRUE(contains(Mvt, "ok = ok && (long long)grid.z * block.z == 1;"))
      << Mvt;
  EXPECT_FALSE(contains(Mvt, "more than one thread")) << Mvt;
}

TEST(Launcher, ModuleKeepsTheNaiveKernelAndCompiles) {
  auto M = parse(MM, "mm.cu");
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  auto Opt = withPlan(Naive, mmPlan(Naive));
  EmittedModule E =
      llvm::cantFail(emitModule(*M, Language::Cuda, {{"mm", Opt.get()}}));
  EXPECT_TRUE(E.Warnings.empty());
  size_t NaiveAt = E.Text.find("__global__ void mm_naive(");
  size_t OptAt = E.Text.find("__global__ void mm(");
  size_t LauncherAt = E.Text.find("static void gpumerge_launch_mm(");
  ASSERT_NE(NaiveAt, std::string::npos) << E.Text;
  ASSERT_NE(OptAt, std::string::npos) << E.Text;
  ASSERT_NE(LauncherAt, std::string::npos) << E.Text;
  EXPECT_LT(NaiveAt, OptAt);
  EXPECT_LT(OptAt, LauncherAt);
  EXPECT_TRUE(contains(E.Text, "}\n\n__global__ void mm(")) << E.Text;

  // Translated: both kernels, no launcher in OpenCL...
  EmittedModule CL =
      llvm::cantFail(emitModule(*M, Language::OpenCL, {{"mm", Opt.get()}}));
  EXPECT_TRUE(contains(CL.Text, "__kernel void mm_naive(")) << CL.Text;
  EXPECT_TRUE(contains(CL.Text, "__kernel void mm(")) << CL.Text;
  EXPECT_FALSE(contains(CL.Text, "gpumerge_launch")) << CL.Text;
  // ... and the launcher in CUDA from OpenCL.
  auto MCL = parse(CL.Text, "mm_out.cl");
  ASSERT_TRUE(MCL);
  const Function *NaiveCL = MCL->find("mm_naive");
  ASSERT_TRUE(NaiveCL);
  auto OptCL = withPlan(*NaiveCL, mmPlan(*NaiveCL));
  EmittedModule CU = llvm::cantFail(
      emitModule(*MCL, Language::Cuda, {{"mm_naive", OptCL.get()}}));
  EXPECT_TRUE(contains(CU.Text, "__global__ void mm_naive_naive(")) << CU.Text;
  EXPECT_TRUE(contains(CU.Text, "static void gpumerge_launch_mm_naive("))
      << CU.Text;

  std::string Nvcc = findNvcc();
  if (Nvcc.empty())
    GTEST_SKIP() << "nvcc not found: the emitted CUDA is not compiled";
  std::string Dir = tempDir();
  EXPECT_EQ(nvccErrors(Nvcc, writeTemp(Dir, "mm.cu", E.Text), false), "");
  EXPECT_EQ(nvccErrors(Nvcc, writeTemp(Dir, "mm_cl.cu", CU.Text), false), "");
  llvm::sys::fs::remove_directories(Dir);
}

TEST(Launcher, OpenCLHeaderCompilesAndComputesTheNDRange) {
  auto M = parse(MM, "mm.cu");
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  auto Opt = withPlan(Naive, mmPlan(Naive));
  EXPECT_EQ(emitOpenCLLaunchHeader(*M, {{"mm", &Naive}}), "");
  std::string H = emitOpenCLLaunchHeader(*M, {{"mm", Opt.get()}});
  SCOPED_TRACE(H);
  EXPECT_TRUE(contains(H, "#ifndef GPUMERGE_MM_LAUNCH_H\n"));
  EXPECT_TRUE(contains(H, "#include <stddef.h>\n#include <stdint.h>\n"));
  EXPECT_TRUE(contains(H, "static inline int gpumerge_mm_ndrange(const size_t "
                          "naive_global[2], int w,\n    int h, int k, "
                          "uintptr_t a, uintptr_t b, uintptr_t c, size_t "
                          "global[2],\n    size_t local[2], gpumerge_edges "
                          "*edges) {"));
  EXPECT_TRUE(contains(H, "} gpumerge_edges;\n"));
  EXPECT_TRUE(contains(H, "ok = ok && (long long)naive_global[0] >= "
                          "extent_x;"));
  EXPECT_TRUE(contains(H, "const uintptr_t a_bytes = (uintptr_t)((long "
                          "long)h * (long long)k) * 4u;"));
  EXPECT_TRUE(contains(H, "ok = ok && (a + a_bytes <= c || c + c_bytes <= "
                          "a);"));
  // The kernel's int positions stay below 2^31 in both dimensions.
  EXPECT_TRUE(contains(H, "ok = ok && blocks_x * 32 <= 2147483647LL && "
                          "blocks_y * 32 <= 2147483647LL;"));

  llvm::ErrorOr<std::string> CC = llvm::sys::findProgramByName("cc");
  if (!CC)
    GTEST_SKIP() << "no C compiler: the header is not compiled";
  std::string Dir = tempDir();
  writeTemp(Dir, "mm.global.h", H);
  // 64 x 64 with k = 64 runs optimized (global = extent / coverage), with
  // no edges; 48 x 64 too, with mm_edge over the 16 columns past the tile;
  // k = 33, a width of 16, an overlap or a naive range too small runs
  // mm_naive.
  std::string Main = writeTemp(Dir, "main.c", R"(#include "mm.global.h"
#include <stdio.h>
static int t(size_t nx, size_t ny, int w, int h, int k, uintptr_t c) {
  size_t naive[2] = {nx, ny}, g[2], l[2];
  gpumerge_edges e;
  int r = gpumerge_mm_ndrange(naive, w, h, k, 0, (uintptr_t)1 << 40, c, g, l,
                              &e),
      i;
  printf("%d %zu %zu %zu %zu", r, g[0], g[1], l[0], l[1]);
  for (i = 0; i < e.count; i++)
    printf(" | %zu %zu %zu %zu %d %d %d %d", e.global[i][0], e.global[i][1],
           e.local[0], e.local[1], e.bounds[i][0], e.bounds[i][1],
           e.bounds[i][2], e.bounds[i][3]);
  printf("\n");
  return r;
}
int main(void) {
  uintptr_t far = (uintptr_t)1 << 41;
  t(64, 64, 64, 64, 64, far);
  t(64, 64, 64, 64, 33, far);
  t(48, 64, 48, 64, 64, far);
  t(16, 64, 16, 64, 64, far);
  t(64, 64, 64, 64, 64, 4 * 64 * 64 - 4);
  t(32, 64, 64, 64, 64, far);
  return 0;
}
)");
  std::string Out;
  ASSERT_EQ(run(*CC,
                {"-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", Main,
                 "-o", Dir + "/main"},
                Out),
            0)
      << Out;
  ASSERT_EQ(run(Dir + "/main", {}, Out), 0) << Out;
  EXPECT_EQ(Out, "1 64 16 32 8\n"
                 "0 64 64 0 0\n"
                 "1 32 16 32 8 | 32 64 32 8 32 48 0 64\n"
                 "0 16 64 0 0\n"
                 "0 64 64 0 0\n"
                 "0 32 64 0 0\n");
  llvm::sys::fs::remove_directories(Dir);
}

TEST(Launcher, UnusablePlansLeaveTheInputKernel) {
  auto M = parse(MM, "mm.cu");
  ASSERT_TRUE(M);
  const Function &Naive = *M->kernels()[0];
  LaunchPlan Bad = mmPlan(Naive);
  Bad.Preconditions.push_back(
      {shared(binary(BinaryOp::LT, builtin(Builtin::Idx), var("w"))), ""});
  auto Opt = withPlan(Naive, Bad);
  llvm::Error E = checkLaunchPlan(*Opt);
  ASSERT_TRUE(bool(E));
  EXPECT_TRUE(contains(llvm::toString(std::move(E)), "scalar parameters"));

  LaunchPlan NoCount = mmPlan(Naive);
  NoCount.Elements.erase("b");
  auto Opt2 = withPlan(Naive, NoCount);
  EmittedModule Out =
      llvm::cantFail(emitModule(*M, Language::Cuda, {{"mm", Opt2.get()}}));
  ASSERT_EQ(Out.Warnings.size(), 1u);
  EXPECT_TRUE(contains(Out.Warnings[0], "element count of 'b'"))
      << Out.Warnings[0];
  EXPECT_EQ(Out.Text, llvm::cantFail(emitModule(*M, Language::Cuda)).Text);
  EXPECT_EQ(emitOpenCLLaunchHeader(*M, {{"mm", Opt2.get()}}), "");

  // The input already has an mm_naive.
  auto Clash = parse(std::string(MM) + "__global__ void mm_naive(float *p) "
                                       "{}\n",
                     "mm.cu");
  ASSERT_TRUE(Clash);
  auto Opt3 = withPlan(*Clash->kernels()[0], mmPlan(*Clash->kernels()[0]));
  EXPECT_TRUE(contains(launchPlanProblem(*Clash, *Opt3, Language::Cuda),
                       "already uses the name 'mm_naive'"));
}

//===----------------------------------------------------------------------===//
// Host code: launches rewritten, everything else kept.
//===----------------------------------------------------------------------===//

const std::string SaxpyApp =
    std::string(GPUMERGE_SOURCE_DIR) + "/kernels/saxpy_app.cu";

TEST(LaunchSites, FrontendRecordsLaunches) {
  std::string Src = readFile(SaxpyApp);
  auto M = parse(Src, SaxpyApp);
  ASSERT_TRUE(M);
  ASSERT_EQ(M->CallSites.size(), 2u);
  auto Text = [&](const SourceSpan &S) {
    return Src.substr(S.Begin, S.End - S.Begin);
  };
  const KernelCallSite &A = M->CallSites[0], &B = M->CallSites[1];
  EXPECT_EQ(A.Kernel, "saxpy");
  EXPECT_EQ(Text(A.Call), "saxpy<<<grid, block>>>(n, alpha, dx, dy)");
  EXPECT_EQ(Text(A.Callee), "saxpy");
  ASSERT_EQ(A.Config.size(), 2u);
  EXPECT_EQ(Text(A.Config[1]), "block");
  ASSERT_EQ(A.Args.size(), 4u);
  EXPECT_EQ(Text(A.Args[3]), "dy");
  EXPECT_TRUE(A.NotRewritable.empty()) << A.NotRewritable;
  EXPECT_FALSE(A.PrototypeBegin);
  EXPECT_EQ(Text(B.Call), "saxpy<<<grid, block, 0, stream>>>(n, alpha, dx, "
                          "dy)");
  ASSERT_EQ(B.Config.size(), 4u);
  EXPECT_EQ(Text(B.Config[3]), "stream");
  auto LineOf = [&](const std::string &Text) {
    return 1 + std::count(Src.begin(), Src.begin() + Src.find(Text), '\n');
  };
  EXPECT_EQ(A.Call.Line, LineOf("saxpy<<<grid, block>>>"));
  EXPECT_EQ(B.Call.Line, LineOf("saxpy<<<grid, block, 0, stream>>>"));
}

/// saxpy_app.cu written with a replacement of saxpy carrying \p P.
EmittedModule emitSaxpyApp(const Module &M, LaunchPlan P) {
  auto Opt = withPlan(*M.find("saxpy"), std::move(P));
  return llvm::cantFail(emitModule(M, Language::Cuda, {{"saxpy", Opt.get()}}));
}

TEST(LaunchSites, SaxpyAppHostCodeKeptLaunchesRewritten) {
  std::string Src = readFile(SaxpyApp);
  auto M = parse(Src, SaxpyApp);
  ASSERT_TRUE(M);
  LaunchPlan Tiled;
  Tiled.Block = {256, 1};
  Tiled.Extent[0] = shared(var("n"));
  LaunchPlan Same;
  Same.SameLaunch = true;
  Same.Preconditions.push_back(
      {shared(binary(BinaryOp::GT, var("n"), intLit(0))), "n is positive"});
  for (const LaunchPlan &P : {Tiled, Same}) {
    EmittedModule E = emitSaxpyApp(*M, P);
    EXPECT_TRUE(E.Warnings.empty());
    // Everything before the kernel is the input's, byte for byte.
    unsigned KernelBegin = M->find("saxpy")->Span.Begin;
    EXPECT_EQ(E.Text.substr(0, KernelBegin), Src.substr(0, KernelBegin));
    // After it: the host code, with the two launches (and nothing else)
    // replaced by launcher calls.
    std::string Host = Src.substr(Src.find("static bool close_enough"));
    for (auto [From, To] :
         {std::pair<std::string, std::string>{
              "saxpy<<<grid, block>>>(n, alpha, dx, dy)",
              "gpumerge_launch_saxpy(grid, block, 0, 0, n, alpha, dx, dy)"},
          {"saxpy<<<grid, block, 0, stream>>>(n, alpha, dx, dy)",
           "gpumerge_launch_saxpy(grid, block, 0, stream, n, alpha, dx, "
           "dy)"}}) {
      size_t At = Host.find(From);
      ASSERT_NE(At, std::string::npos);
      Host.replace(At, From.size(), To);
    }
    ASSERT_GE(E.Text.size(), Host.size());
    EXPECT_EQ(E.Text.substr(E.Text.size() - Host.size()), Host);
    // Between them: naive, optimized, launcher.
    std::string Middle =
        E.Text.substr(KernelBegin, E.Text.size() - Host.size() - KernelBegin);
    EXPECT_TRUE(contains(Middle, "__global__ void saxpy_naive(int n, float "
                                 "alpha, const float *x, float *y) {"))
        << Middle;
    EXPECT_TRUE(contains(Middle, "}\n\n__global__ void saxpy(int n")) << Middle;
    EXPECT_TRUE(contains(Middle, "}\n\n// The launch of saxpy")) << Middle;
    EXPECT_TRUE(
        contains(Middle, P.SameLaunch ? "// n is positive" : "blocks_x > 0"))
        << Middle;
    EXPECT_TRUE(contains(Middle, "}\n\n")) << Middle;

    std::string Nvcc = findNvcc();
    if (Nvcc.empty())
      GTEST_SKIP() << "nvcc not found: the program is not compiled";
    std::string Dir = tempDir();
    EXPECT_EQ(nvccErrors(Nvcc, writeTemp(Dir, "app.cu", E.Text), true), "");
    llvm::sys::fs::remove_directories(Dir);
  }
}

TEST(LaunchSites, LaunchBeforeTheKernelGetsADeclaration) {
  const char *Src = R"(#include <cuda_runtime.h>
__global__ void scale(float *v, int n);

void run(float *v, int n) {
  scale<<<(n + 127) / 128, 128>>>(v, n);
}

__global__ void scale(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2.0f;
}

int main() {
  run(nullptr, 0);
  return 0;
}
)";
  auto M = parse(Src, "scale.cu");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->CallSites.size(), 1u);
  ASSERT_TRUE(M->CallSites[0].PrototypeBegin);
  EXPECT_EQ(*M->CallSites[0].PrototypeBegin,
            std::string(Src).find("__global__ void scale(float *v, int n);"));
  LaunchPlan P;
  P.Block = {128, 1};
  P.Extent[0] = shared(var("n"));
  auto Opt = withPlan(*M->kernels()[0], P);
  EmittedModule E =
      llvm::cantFail(emitModule(*M, Language::Cuda, {{"scale", Opt.get()}}));
  EXPECT_TRUE(E.Warnings.empty());
  EXPECT_TRUE(contains(E.Text, "#include <cuda_runtime.h>\n// Defined after "
                               "scale; launches before it call it.\n"
                               "[[maybe_unused]] static void "
                               "gpumerge_launch_scale("))
      << E.Text;
  // The prototype declares the input's signature, which the fallback keeps.
  EXPECT_TRUE(
      contains(E.Text, "n);\n__global__ void scale_naive(float *v, int n);"))
      << E.Text;
  EXPECT_TRUE(contains(E.Text, "  gpumerge_launch_scale((n + 127) / 128, 128, "
                               "0, 0, v, n);\n"))
      << E.Text;
  std::string Nvcc = findNvcc();
  if (Nvcc.empty())
    GTEST_SKIP() << "nvcc not found: the program is not compiled";
  std::string Dir = tempDir();
  EXPECT_EQ(nvccErrors(Nvcc, writeTemp(Dir, "scale.cu", E.Text), true), "");
  llvm::sys::fs::remove_directories(Dir);
}

TEST(LaunchSites, LaunchesThatCannotBeRewrittenKeepTheInputKernel) {
  const char *Src = R"(#include <cuda_runtime.h>
#define LAUNCH(k, n, v) k<<<(n + 127) / 128, 128>>>(v, n)
__global__ void scale(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2.0f;
}
__global__ void shift(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += 1.0f;
}
int main() {
  float *v = nullptr;
  LAUNCH(scale, 0, v);
  cudaFuncSetCacheConfig(shift, cudaFuncCachePreferL1);
  shift<<<1, 128>>>(v, 0);
  return 0;
}
)";
  auto M = parse(Src, "two.cu");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->CallSites.size(), 3u);
  EXPECT_TRUE(contains(M->CallSites[0].NotRewritable, "macro"))
      << M->CallSites[0].NotRewritable;
  EXPECT_EQ(M->CallSites[0].Call.Line, 15u);
  EXPECT_TRUE(contains(M->CallSites[1].NotRewritable, "other than"))
      << M->CallSites[1].NotRewritable;
  EXPECT_TRUE(M->CallSites[2].NotRewritable.empty());
  LaunchPlan P;
  P.Block = {128, 1};
  P.Extent[0] = shared(var("n"));
  auto Scale = withPlan(*M->find("scale"), P);
  auto Shift = withPlan(*M->find("shift"), P);
  EmittedModule E = llvm::cantFail(emitModule(
      *M, Language::Cuda, {{"scale", Scale.get()}, {"shift", Shift.get()}}));
  ASSERT_EQ(E.Warnings.size(), 2u);
  EXPECT_TRUE(contains(E.Warnings[0], "two.cu:3: kernel 'scale' written "
                                      "unoptimized: two.cu:15:"))
      << E.Warnings[0];
  EXPECT_EQ(E.Text, Src);
}

TEST(LaunchSites, ParenthesesNamespacesAndTemplates) {
  const char *Src = R"(#include <cuda_runtime.h>
namespace ns {
__global__ void q(float *v, int n) {}
}
__global__ void k(float *v, int n) {}
__global__ void k(double *v, int n) {}
template <typename T> void run(T *v, int n) { k<<<1, 128>>>(v, n); }
void go(float *v) {
  (ns::q)<<<1, 2>>>(v, 3);
}
)";
  auto M = parse(Src, "t.cu");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->CallSites.size(), 3u);
  // A template's unresolved k names both overloads.
  EXPECT_TRUE(contains(M->CallSites[0].NotRewritable, "template"));
  const KernelCallSite &Q = M->CallSites[2];
  EXPECT_EQ(Q.Kernel, "q");
  EXPECT_TRUE(Q.NotRewritable.empty()) << Q.NotRewritable;
  LaunchPlan P;
  P.SameLaunch = true;
  auto Opt = withPlan(*M->find("q"), P);
  EmittedModule E =
      llvm::cantFail(emitModule(*M, Language::Cuda, {{"q", Opt.get()}}));
  EXPECT_TRUE(E.Warnings.empty());
  EXPECT_TRUE(contains(E.Text, "  ns::gpumerge_launch_q(1, 2, 0, 0, v, 3);\n"))
      << E.Text;
}

} // namespace
