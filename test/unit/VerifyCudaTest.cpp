//===- VerifyCudaTest.cpp - What --verify builds on a CUDA device ---------===//
//
// No GPU is needed to check what a verify run on one would build: the host
// code a CUDA file and the files it includes leave out (HostCode.h), and
// that the input's device code as written and the output's as emitted
// compile with NVRTC, with every kernel verify launches found by name.
//
//===----------------------------------------------------------------------===//
#include "Runtime/VerifyCuda.h"
#include "CodeGen/Emitter.h"
#include "Frontend/Frontend.h"
#include "Runtime/Nvrtc.h"
#include "Transforms/PassRegistry.h"

#include "TestKernels.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace gpumerge {
namespace {

/// NVRTC: the CUDA toolkit is on every machine these tests run on (nvcc
/// builds the emitted files), so its absence is a failure.
Nvrtc &nvrtc() {
  auto N = Nvrtc::get();
  if (!N) {
    ADD_FAILURE() << llvm::toString(N.takeError());
    std::abort();
  }
  return *N;
}

size_t lines(const std::string &S) {
  return size_t(std::count(S.begin(), S.end(), '\n'));
}

const char *HostAndDevice = R"(#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
class Timer { // Rodinia's: a host class NVRTC has no <vector> for
  std::vector<float> times;
public:
  void add(float t) { times.push_back(t); }
};
struct Args { // streamcluster's: host code, a type NVRTC has no header for
  FILE *log;
};
struct Base { float w; }; // named as a base of a named class
typedef struct : Base { float v; } Boxed; // named through its typedef
struct Pair { // device code names it: a host constructor does not matter
  float x, y;
  Pair(float a) : x(a), y(a) {}
};
#define N 64
typedef float real;
const int Width = 16;
const float Half = 0.5f;
const float MinusHalf = -Half; // host only: NVRTC cannot initialize it
__constant__ real Weights[4];
float *d_a, *d_b;
double seconds = 0.0005; // past a literal that is not one identifier
static cudaStream_t Stream;
void run(cudaStream_t s, float *a);
__host__ __device__ inline real twice(real x) { return 2 * x; }
__device__ real square(real x) { return x * x; }
__global__ void kp(Pair p, const Boxed *b, float *a) {
  a[threadIdx.x] = p.x + p.y + b[0].v + b[0].w;
}
__global__ void k(real *a, int n);
template <typename T> __global__ void tk(T *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] + T(1);
}
__global__ void k(real *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < Width * N) a[i] = twice(square(a[i])) + Weights[i % 4];
}
template <typename T> void launch(T *a, int n) {
  tk<T><<<(n + 255) / 256, 256>>>(a, n);
}
template void launch<float>(float *a, int n); // Rodinia's dwt2d
extern template void launch<int>(int *, int);
namespace host {
__host__ int checked(cudaError_t e) {
#ifdef VERBOSE
  printf("%d\n", int(e));
#endif
  return e == cudaSuccess;
}
} // namespace host
extern "C" void go(float *a) { k<<<1, N>>>(a, N); }
int main() {
  /* Rodinia's dwt2d: directives in a comment are not directives
  #ifdef NEVER
  #endif */
  const char *s = "/*", *t = "#"; // a comment's opener in a literal
  size_t big = 1'000'000;
#if 1 // a directive in the body stays
  cudaMalloc(&d_a, N * sizeof(float));
#endif
  launch(d_a, N);
  run(Stream, d_a);
  return host::checked(cudaDeviceSynchronize()) ? 0 : 1;
}
)";

TEST(HostCode, LeavesKernelsHelpersTablesAndTypes) {
  auto M = parseText(HostAndDevice);
  ASSERT_TRUE(M);
  const std::string &Device = M->DeviceCode;
  EXPECT_EQ(lines(Device), lines(M->Source)); // NVRTC's lines are the file's
  for (const char *Kept :
       {"#include <cuda_runtime.h>", "#define N 64", "typedef float real;",
        "const int Width = 16;", "__constant__ real Weights[4];",
        "__host__ __device__ inline real twice", "__device__ real square",
        "__global__ void k(real *a, int n);", "struct Pair {",
        "Pair(float a) : x(a), y(a) {}", "struct Base { float w; };",
        "typedef struct : Base {", "template <typename T> __global__",
        "a[i] = twice(square(a[i])) + Weights[i % 4];", "namespace host {",
        "#ifdef VERBOSE", "#endif", "#if 1 // a directive"})
    EXPECT_NE(Device.find(Kept), std::string::npos) << Kept << "\n" << Device;
  for (const char *Gone : {"d_a", "seconds", "0005", "cudaStream_t", "void run",
                           "void launch", "<<<", "checked", "printf", "extern",
                           "main", "cudaMalloc", "template void"})
    EXPECT_EQ(Device.find(Gone), std::string::npos) << Gone << "\n" << Device;

  auto Out = nvrtc().compile(Device, "x.cu", 9, 0, {}, {"k", "tk<float>"});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError()) << "\n" << Device;
  EXPECT_EQ(Out->LoweredNames.size(), 2u);
}

/// \p Text written to \p Dir/\p Name.
void writeFile(const std::string &Dir, const std::string &Name,
               const std::string &Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Dir + "/" + Name, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Text;
}

TEST(HostCode, IncludedFilesOfTheUsersLoseTheirHostCodeToo) {
  // PolyBench's shape: the program includes its timing code, host code
  // with host headers; a guarded header and a #pragma once one included
  // twice each; a system header kept as an include.
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("hostcode", Dir));
  writeFile(std::string(Dir), "timing.c",
            "#include <sys/time.h>\n"
            "double now() {\n  struct timeval t;\n  gettimeofday(&t, 0);\n"
            "  return t.tv_sec + t.tv_usec * 1e-6;\n}\n");
  writeFile(std::string(Dir), "guarded.h",
            "#ifndef GUARDED_H\n#define GUARDED_H\n#define SCALE 3\n"
            "__device__ float scaled(float x) { return SCALE * x; }\n"
            "void host_only(const char *msg);\n#endif\n");
  writeFile(std::string(Dir), "once.h",
            "#pragma once\n#include \"guarded.h\"\n"
            "__device__ float twice(float x) { return 2 * x; }\n"
            "float *host_buffer;\n");
  writeFile(std::string(Dir), "main.cu",
            "#include <cstdio>\n#include \"timing.c\"\n#include \"once.h\"\n"
            "#include \"guarded.h\"\n#include \"once.h\"\n"
            "__global__ void k(float *a, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) a[i] = scaled(twice(a[i]));\n}\n"
            "int main() {\n  double t = now();\n  host_only(\"x\");\n"
            "  std::printf(\"%f\\n\", t);\n}\n");
  auto M = parseFile(std::string(Dir) + "/main.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const std::string &Device = (*M)->DeviceCode;
  for (const char *Kept :
       {"#include <cstdio>", "#include <sys/time.h>", "#define SCALE 3",
        "__device__ float scaled", "__device__ float twice", "/timing.c\"",
        "/guarded.h\"", "/once.h\"", "#line 3 \"",
        "a[i] = scaled(twice(a[i]));"})
    EXPECT_NE(Device.find(Kept), std::string::npos) << Kept << "\n" << Device;
  for (const char *Gone :
       {"gettimeofday", "host_only", "host_buffer", "int main",
        "#include \"once.h\"", "#include \"guarded.h\""})
    EXPECT_EQ(Device.find(Gone), std::string::npos) << Gone << "\n" << Device;
  // Each file is written once, where the parse entered it.
  EXPECT_EQ(Device.find("__device__ float twice"),
            Device.rfind("__device__ float twice"));
  auto Out =
      nvrtc().compile(Device, std::string(Dir) + "/main.cu", 9, 0, {}, {"k"});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError()) << "\n" << Device;
  llvm::sys::fs::remove_directories(Dir);
}

TEST(HostCode, TheEmittedFileIsParsedForItsOwn) {
  // The output's host code includes what gpumerge wrote (launchers).
  std::string Emitted = std::string(HostAndDevice) +
                        "void gpumerge_launch_k(dim3 g, dim3 b, size_t s, "
                        "cudaStream_t t, real *a, int n) {\n"
                        "  k<<<g, b, s, t>>>(a, n);\n}\n";
  auto Device = deviceCodeOf(Emitted, "x.cu", {});
  ASSERT_TRUE(bool(Device)) << llvm::toString(Device.takeError());
  EXPECT_EQ(Device->find("gpumerge_launch_k"), std::string::npos) << *Device;
  EXPECT_NE(Device->find("__global__ void k(real *a, int n) {"),
            std::string::npos);
}

/// \p F through the default pipeline of \p V for h100, each pass on a copy
/// that is dropped where the pass fails (as the driver runs them).
std::unique_ptr<Function> optimize(const Function &F, MemoryVariant V,
                                   const MachineDescription &MD) {
  std::unique_ptr<Function> Work = F.clone();
  PassContext Ctx{MD, V};
  for (const std::string &Name : defaultPipeline(V, MD)) {
    std::unique_ptr<Function> Next = Work->clone();
    std::string Why;
    auto R = passRegistry().at(Name).Run(*Next, Ctx, Why);
    if (!R) {
      llvm::consumeError(R.takeError());
      continue;
    }
    if (*R)
      Work = std::move(Next);
  }
  return Work;
}

TEST(VerifyCuda, InputAndOutputBuildWithNvrtc) {
  MachineDescription MD = shippedTarget("h100");
  // Host code (saxpy_app), macros (mm_macro), a typedef'd element type
  // (gemm), 3-D grids (bmm), edges, several kernels (multi), a transpose.
  for (const char *File : {"saxpy_app.cu", "mm.cu", "mm_macro.cu", "gemm.cu",
                           "bmm.cu", "multi.cu", "tp.cu", "mv.cu"}) {
    SCOPED_TRACE(File);
    auto M = parseKernelFile(File);
    ASSERT_TRUE(M);
    std::vector<std::string> Naive;
    for (const Function *F : M->kernels())
      Naive.push_back(F->TemplateCall.empty() ? F->Name : F->TemplateCall);
    bool ReferenceBuilt = false;
    for (MemoryVariant V : {MemoryVariant::Global, MemoryVariant::Texture}) {
      SCOPED_TRACE(memoryVariantName(V));
      std::vector<std::unique_ptr<Function>> Optimized;
      std::map<std::string, const Function *> Replacements;
      std::vector<std::string> Launched;
      unsigned Planned = 0;
      for (const Function *F : M->kernels()) {
        Optimized.push_back(optimize(*F, V, MD));
        const Function &O = *Optimized.back();
        Replacements[F->Name] = &O;
        if (!O.Plan || O.Plan->SameLaunch)
          continue;
        ++Planned;
        Launched.push_back(O.Name);
        Launched.push_back(fallbackCall(*F));
        if (O.Plan->hasEdges())
          Launched.push_back(edgeName(F->Name));
      }
      EXPECT_GT(Planned, 0u) << "nothing optimized: the test tests nothing";
      auto P = cudaVerifyPrograms(*M, Replacements, {});
      ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
      EXPECT_EQ(P->ReferenceNote,
                "the CUDA input as written (host code left out)");
      std::string Emitted =
          llvm::cantFail(emitModule(*M, Language::Cuda, Replacements)).Text;
      EXPECT_EQ(lines(P->Candidate), lines(Emitted));
      EXPECT_EQ(P->Candidate.find("gpumerge_launch_"), std::string::npos);
      EXPECT_EQ(P->Candidate.find("cudaGetLastError"), std::string::npos);
      // async-prefetch's cp.async and its header build with NVRTC too.
      if (V == MemoryVariant::Global && llvm::StringRef(File) == "mm.cu") {
        EXPECT_NE(P->Candidate.find("__pipeline_memcpy_async"),
                  std::string::npos);
      }
      if (!ReferenceBuilt) {
        auto R = nvrtc().compile(P->Reference, File, 9, 0, {}, Naive);
        ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
        EXPECT_EQ(R->LoweredNames.size(), Naive.size());
        ReferenceBuilt = true;
      }
      auto C = nvrtc().compile(P->Candidate, File, 9, 0, {}, Launched);
      ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError()) << "\n"
                           << P->Candidate;
      EXPECT_EQ(C->LoweredNames.size(), Launched.size())
          << llvm::join(Launched, ", ");
    }
  }
}

// Kernels in namespaces are found by their qualified names (the output
// keeps them there), and `register` locals, which nvcc takes and NVRTC
// refuses in C++17, are defined away: both were skipped on an H100.
TEST(VerifyCuda, NamespacedKernelsAndRegisterLocalsBuildWithNvrtc) {
  auto M = parseText(R"(
namespace blas {
template <typename T> __global__ void scal(T *x, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= alpha;
}
namespace {
__global__ void rowsum(float *out, const float *a, int n) {
  register int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    register float s = 0.0f;
    for (int j = 0; j < n; j++)
      s += a[i * n + j];
    out[i] = s;
  }
}
} // namespace
} // namespace blas
void run(float *x, float *out, int n) {
  blas::scal<float><<<(n + 255) / 256, 256>>>(x, 2.0f, n);
  blas::rowsum<<<(n + 255) / 256, 256>>>(out, x, n);
}
)");
  ASSERT_TRUE(M);
  std::vector<std::string> Written;
  for (const Function *F : M->kernels())
    Written.push_back(cudaKernelName(*F));
  EXPECT_EQ(Written,
            (std::vector<std::string>{"blas::scal<float>", "blas::rowsum"}));
  MachineDescription MD = shippedTarget("h100");
  std::vector<std::unique_ptr<Function>> Optimized;
  std::map<std::string, const Function *> Replacements;
  std::vector<std::string> Launched;
  for (const Function *F : M->kernels()) {
    Optimized.push_back(optimize(*F, MemoryVariant::Global, MD));
    const Function &O = *Optimized.back();
    Replacements[F->Name] = &O;
    if (!O.Plan || O.Plan->SameLaunch)
      continue;
    Launched.push_back(cudaKernelName(*F, O.Name));
    Launched.push_back(cudaKernelName(*F, fallbackCall(*F)));
  }
  ASSERT_FALSE(Launched.empty()) << "nothing optimized: the test tests nothing";
  auto P = cudaVerifyPrograms(*M, Replacements, {});
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto R = nvrtc().compile(P->Reference, "x.cu", 9, 0, {}, Written);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->LoweredNames.size(), Written.size());
  auto C = nvrtc().compile(P->Candidate, "x.cu", 9, 0, {}, Launched);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError()) << "\n" << P->Candidate;
  EXPECT_EQ(C->LoweredNames.size(), Launched.size())
      << llvm::join(Launched, ", ");
}

TEST(VerifyCuda, OpenCLInputIsRefused) {
  auto M = parseKernelFile("mm.cl");
  ASSERT_TRUE(M);
  auto P = cudaVerifyPrograms(*M, {}, {});
  ASSERT_FALSE(bool(P));
  EXPECT_NE(llvm::toString(P.takeError()).find("this input is OpenCL"),
            std::string::npos);
}

} // namespace
} // namespace gpumerge
