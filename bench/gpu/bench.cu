// GPU benchmark of gpumerge's two variants against the naive kernels, cuBLAS
// and a copy kernel, over the paper's ten kernels and gemm, with CUDA events
// (a warm-up, then the median of several runs).
//
// Built by `scripts/bench-gpu --run DIR` against DIR/variants.cuh, which
// `scripts/bench-gpu --prepare DIR` writes: for each kernel K and variant V
// (global, texture) a struct K_V with
//   launch(stream, grid, block, args...)  the output's launcher (it checks
//                                         the preconditions and runs the
//                                         optimized kernel or K_naive), or
//                                         the kernel itself when passed through
//   naive(stream, grid, block, args...)   the input kernel (its phases, for a
//                                         split kernel)
//   optimized()                           the optimized kernels' addresses
// Which path a launcher took is read from a CUDA graph captured from one call
// (its kernel nodes name the functions that ran), never guessed.
//
//   bench N...      e.g. bench 4096 4000; prints one tab-separated line per
//                   measurement: R kernel N version ms work unit path err
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "variants.cuh"

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

using Launch = std::function<void(cudaStream_t)>;

int Runs = 7;
int Failures = 0;

__global__ void copyScalar(const float *in, float *out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void copyVector(const float4 *in, float4 *out, long long n4) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = in[i];
}

// Pseudo-random values in [Lo, Lo + 1), different per seed and element.
__global__ void fillRandom(float *p, long long n, unsigned seed, float lo) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned x = unsigned(i) * 2654435761u ^ (seed * 0x9E3779B9u);
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    p[i] = lo + float(x >> 8) / float(1u << 24);
  }
}

// Lower triangular, diagonally dominant: the forward substitution stays
// bounded.
__global__ void makeLower(float *l, int n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long long)n * n) {
    int r = int(i / n), c = int(i % n);
    if (c > r)
      l[i] = 0;
    else if (c == r)
      l[i] = float(n);
  }
}

float *alloc(long long n) {
  float *p;
  CHECK(cudaMalloc(&p, std::max<long long>(n, 1) * sizeof(float)));
  return p;
}

float *randomArray(long long n, unsigned seed, float lo = -0.5f) {
  float *p = alloc(n);
  fillRandom<<<unsigned((n + 255) / 256), 256>>>(p, n, seed, lo);
  CHECK(cudaGetLastError());
  return p;
}

void copyTo(float *dst, const float *src, long long n) {
  CHECK(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice));
}

float medianMs(const Launch &L) {
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  CHECK(cudaEventRecord(A));
  L(0); // warm-up, timed to keep slow kernels within the run's budget
  CHECK(cudaEventRecord(B));
  CHECK(cudaEventSynchronize(B));
  float First = 0;
  CHECK(cudaEventElapsedTime(&First, A, B));
  int N = First > 200 ? 3 : Runs;
  std::vector<float> Ms;
  for (int R = 0; R < N; ++R) {
    CHECK(cudaEventRecord(A));
    L(0);
    CHECK(cudaEventRecord(B));
    CHECK(cudaEventSynchronize(B));
    float T = 0;
    CHECK(cudaEventElapsedTime(&T, A, B));
    Ms.push_back(T);
  }
  CHECK(cudaGetLastError());
  std::sort(Ms.begin(), Ms.end());
  CHECK(cudaEventDestroy(A));
  CHECK(cudaEventDestroy(B));
  return Ms[Ms.size() / 2];
}

// Which kernels one call of \p L launches: "optimized" when all of them are
// in \p Optimized, "fallback" when none is, "mixed" otherwise (a split kernel
// whose phases went different ways), "unknown" when the call cannot be
// captured into a graph.
std::string pathTaken(const Launch &L, const void *const *Optimized) {
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  cudaGraph_t G = nullptr;
  std::string Path = "unknown";
  if (cudaStreamBeginCapture(S, cudaStreamCaptureModeThreadLocal) ==
      cudaSuccess) {
    L(S);
    if (cudaStreamEndCapture(S, &G) == cudaSuccess && G) {
      size_t N = 0;
      CHECK(cudaGraphGetNodes(G, nullptr, &N));
      std::vector<cudaGraphNode_t> Nodes(N);
      CHECK(cudaGraphGetNodes(G, Nodes.data(), &N));
      int Opt = 0, Other = 0;
      for (cudaGraphNode_t Node : Nodes) {
        cudaGraphNodeType T;
        CHECK(cudaGraphNodeGetType(Node, &T));
        if (T != cudaGraphNodeTypeKernel)
          continue;
        cudaKernelNodeParams P;
        CHECK(cudaGraphKernelNodeGetParams(Node, &P));
        bool IsOpt = false;
        for (const void *const *K = Optimized; *K; ++K)
          IsOpt |= P.func == *K;
        (IsOpt ? Opt : Other)++;
      }
      Path = Opt && !Other   ? "optimized"
             : !Opt && Other ? "fallback"
             : Opt           ? "mixed"
                             : "unknown";
      CHECK(cudaGraphDestroy(G));
    }
  }
  cudaGetLastError(); // a failed capture leaves an error behind
  CHECK(cudaStreamDestroy(S));
  return Path;
}

void print(const char *Kernel, int N, const char *Version, float Ms,
           double Work, const char *Unit, const std::string &Path, double Err) {
  std::printf("R\t%s\t%d\t%s\t%.4f\t%.6g\t%s\t%s\t%.3g\n", Kernel, N, Version,
              Ms, Work, Unit, Path.c_str(), Err);
  std::fflush(stdout);
}

// One kernel: the naive launch and each variant's launcher on the same
// inputs; \p Reset restores in-place outputs before a checked run, \p Out
// and \p OutLen name the output compared against the naive one.
struct Case {
  const char *Name;
  int N;
  double Work;
  const char *Unit;
  double Tolerance = 1e-3;
  std::function<void()> Reset = [] {};
  std::vector<std::pair<float *, long long>> Outputs;
};

template <typename V>
void variant(const Case &C, const char *Version, const Launch &L,
             const std::vector<std::vector<float>> &Want) {
  std::string Path = pathTaken(L, V::optimized());
  C.Reset();
  L(0);
  CHECK(cudaDeviceSynchronize());
  double Err = 0;
  for (size_t I = 0; I < C.Outputs.size(); ++I) {
    std::vector<float> Got(C.Outputs[I].second);
    CHECK(cudaMemcpy(Got.data(), C.Outputs[I].first, Got.size() * sizeof(float),
                     cudaMemcpyDeviceToHost));
    for (size_t J = 0; J < Got.size(); ++J) {
      double D =
          std::fabs(double(Want[I][J]) - Got[J]) / (1 + std::fabs(Want[I][J]));
      Err = std::isnan(D) ? INFINITY : std::max(Err, D);
    }
  }
  if (!(Err <= C.Tolerance)) {
    std::fprintf(stderr, "%s N=%d %s: max rel error %.3g\n", C.Name, C.N,
                 Version, Err);
    ++Failures;
  }
  float Ms = medianMs(L);
  print(C.Name, C.N, Version, Ms, C.Work, C.Unit, Path, Err);
}

// Times the naive launch, records its outputs, then the two variants.
template <typename G, typename T>
void run(const Case &C, const Launch &Naive, const Launch &Global,
         const Launch &Texture) {
  C.Reset();
  Naive(0);
  CHECK(cudaDeviceSynchronize());
  std::vector<std::vector<float>> Want;
  for (const auto &O : C.Outputs) {
    Want.emplace_back(O.second);
    CHECK(cudaMemcpy(Want.back().data(), O.first, O.second * sizeof(float),
                     cudaMemcpyDeviceToHost));
  }
  print(C.Name, C.N, "naive", medianMs(Naive), C.Work, C.Unit, "naive", 0);
  variant<G>(C, "global", Global, Want);
  variant<T>(C, "texture", Texture, Want);
}

unsigned blocks(long long n, int b) { return unsigned((n + b - 1) / b); }

void benchCopy(int N) {
  long long n = (long long)N * N;
  float *In = randomArray(n, 99), *Out = alloc(n);
  double Bytes = 8.0 * n;
  float Scalar = medianMs([&](cudaStream_t S) {
    copyScalar<<<blocks(n, 256), 256, 0, S>>>(In, Out, n);
  });
  print("copy", N, "scalar", Scalar, Bytes, "GB/s", "-", 0);
  float Vector = medianMs([&](cudaStream_t S) {
    copyVector<<<blocks(n / 4, 256), 256, 0, S>>>((const float4 *)In,
                                                  (float4 *)Out, n / 4);
  });
  print("copy", N, "float4", Vector, Bytes, "GB/s", "-", 0);
  CHECK(cudaFree(In));
  CHECK(cudaFree(Out));
}

void benchMm(cublasHandle_t H, int N) {
  float *A = randomArray((long long)N * N, 1),
        *B = randomArray((long long)N * N, 2);
  float *C = alloc((long long)N * N);
  Case K{"mm", N, 2.0 * N * N * N, "GFLOP/s"};
  K.Outputs = {{C, (long long)N * N}};
  dim3 Blk(16, 16), Grd(blocks(N, 16), blocks(N, 16));
  run<mm_global, mm_texture>(
      K,
      [&](cudaStream_t S) { mm_global::naive(S, Grd, Blk, A, B, C, N, N, N); },
      [&](cudaStream_t S) { mm_global::launch(S, Grd, Blk, A, B, C, N, N, N); },
      [&](cudaStream_t S) {
        mm_texture::launch(S, Grd, Blk, A, B, C, N, N, N);
      });
  const float One = 1, Zero = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  float Ms = medianMs([&](cudaStream_t S) {
    cublasSetStream(H, S);
    cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, B, N, A, N, &Zero,
                C, N);
  });
  print("mm", N, "cublas", Ms, K.Work, K.Unit, "-", 0);
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  CHECK(cudaFree(C));
}

void benchGemm(cublasHandle_t H, int N) {
  long long n2 = (long long)N * N;
  float *A = randomArray(n2, 3), *B = randomArray(n2, 4),
        *C0 = randomArray(n2, 5);
  float *C = alloc(n2);
  const float Alpha = 1.5f, Beta = 0.5f;
  Case K{"gemm", N, 2.0 * N * N * N, "GFLOP/s"};
  K.Outputs = {{C, n2}};
  K.Reset = [&] { copyTo(C, C0, n2); };
  dim3 Blk(32, 8), Grd(blocks(N, 32), blocks(N, 8));
  run<gemm_global, gemm_texture>(
      K,
      [&](cudaStream_t S) {
        gemm_global::naive(S, Grd, Blk, N, N, N, Alpha, Beta, A, B, C);
      },
      [&](cudaStream_t S) {
        gemm_global::launch(S, Grd, Blk, N, N, N, Alpha, Beta, A, B, C);
      },
      [&](cudaStream_t S) {
        gemm_texture::launch(S, Grd, Blk, N, N, N, Alpha, Beta, A, B, C);
      });
  float Ms = medianMs([&](cudaStream_t S) {
    cublasSetStream(H, S);
    cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &Alpha, B, N, A, N, &Beta,
                C, N);
  });
  print("gemm", N, "cublas", Ms, K.Work, K.Unit, "-", 0);
  for (float *P : {A, B, C0, C})
    CHECK(cudaFree(P));
}

// mv (y = A x) and tmv (y = A^T x), A N x N row-major; cuBLAS sees A as the
// column-major A^T.
void benchMv(cublasHandle_t H, int N, bool Transposed) {
  long long n2 = (long long)N * N;
  float *A = randomArray(n2, 6), *X = randomArray(N, 7), *Y = alloc(N);
  const char *Name = Transposed ? "tmv" : "mv";
  Case K{Name, N, 4.0 * n2, "GB/s"};
  K.Outputs = {{Y, N}};
  dim3 Blk(256), Grd(blocks(N, 256));
  if (Transposed)
    run<tmv_global, tmv_texture>(
        K,
        [&](cudaStream_t S) { tmv_global::naive(S, Grd, Blk, A, X, Y, N, N); },
        [&](cudaStream_t S) { tmv_global::launch(S, Grd, Blk, A, X, Y, N, N); },
        [&](cudaStream_t S) {
          tmv_texture::launch(S, Grd, Blk, A, X, Y, N, N);
        });
  else
    run<mv_global, mv_texture>(
        K,
        [&](cudaStream_t S) { mv_global::naive(S, Grd, Blk, A, X, Y, N, N); },
        [&](cudaStream_t S) { mv_global::launch(S, Grd, Blk, A, X, Y, N, N); },
        [&](cudaStream_t S) {
          mv_texture::launch(S, Grd, Blk, A, X, Y, N, N);
        });
  const float One = 1, Zero = 0;
  float Ms = medianMs([&](cudaStream_t S) {
    cublasSetStream(H, S);
    cublasSgemv(H, Transposed ? CUBLAS_OP_N : CUBLAS_OP_T, N, N, &One, A, N, X,
                1, &Zero, Y, 1);
  });
  print(Name, N, "cublas", Ms, K.Work, K.Unit, "-", 0);
  for (float *P : {A, X, Y})
    CHECK(cudaFree(P));
}

void benchTp(int N) {
  long long n2 = (long long)N * N;
  float *In = randomArray(n2, 8), *Out = alloc(n2);
  Case K{"tp", N, 8.0 * n2, "GB/s"};
  K.Tolerance = 0;
  K.Outputs = {{Out, n2}};
  dim3 Blk(16, 16), Grd(blocks(N, 16), blocks(N, 16));
  run<tp_global, tp_texture>(
      K, [&](cudaStream_t S) { tp_global::naive(S, Grd, Blk, In, Out, N, N); },
      [&](cudaStream_t S) { tp_global::launch(S, Grd, Blk, In, Out, N, N); },
      [&](cudaStream_t S) { tp_texture::launch(S, Grd, Blk, In, Out, N, N); });
  CHECK(cudaFree(In));
  CHECK(cudaFree(Out));
}

// conv: N x N image, 32 x 32 filter (Table II), valid outputs.
void benchConv(int N) {
  const int F = 32, O = N - F + 1;
  float *Img = randomArray((long long)N * N, 9), *Filt = randomArray(F * F, 10);
  float *Out = alloc((long long)O * O);
  Case K{"conv", N, 2.0 * O * O * F * F, "GFLOP/s"};
  K.Outputs = {{Out, (long long)O * O}};
  dim3 Blk(16, 16), Grd(blocks(O, 16), blocks(O, 16));
  run<conv_global, conv_texture>(
      K,
      [&](cudaStream_t S) {
        conv_global::naive(S, Grd, Blk, Img, Filt, Out, N, N, F, F);
      },
      [&](cudaStream_t S) {
        conv_global::launch(S, Grd, Blk, Img, Filt, Out, N, N, F, F);
      },
      [&](cudaStream_t S) {
        conv_texture::launch(S, Grd, Blk, Img, Filt, Out, N, N, F, F);
      });
  for (float *P : {Img, Filt, Out})
    CHECK(cudaFree(P));
}

// vv: the outer product, N x N outputs (4 bytes written each).
void benchVv(int N) {
  float *A = randomArray(N, 11), *B = randomArray(N, 12),
        *C = alloc((long long)N * N);
  Case K{"vv", N, 4.0 * N * N, "GB/s"};
  K.Outputs = {{C, (long long)N * N}};
  dim3 Blk(16, 16), Grd(blocks(N, 16), blocks(N, 16));
  run<vv_global, vv_texture>(
      K, [&](cudaStream_t S) { vv_global::naive(S, Grd, Blk, A, B, C, N, N); },
      [&](cudaStream_t S) { vv_global::launch(S, Grd, Blk, A, B, C, N, N); },
      [&](cudaStream_t S) { vv_texture::launch(S, Grd, Blk, A, B, C, N, N); });
  for (float *P : {A, B, C})
    CHECK(cudaFree(P));
}

// saxpy over N*N elements (16M at 4096, Table II's n), y in place.
void benchSaxpy(int N) {
  long long n = (long long)N * N;
  float *X = randomArray(n, 13), *Y0 = randomArray(n, 14), *Y = alloc(n);
  const float Alpha = 2.5f;
  Case K{"saxpy", N, 12.0 * n, "GB/s"};
  K.Outputs = {{Y, n}};
  K.Reset = [&] { copyTo(Y, Y0, n); };
  dim3 Blk(256), Grd(blocks(n, 256));
  int In = int(n);
  run<saxpy_global, saxpy_texture>(
      K,
      [&](cudaStream_t S) {
        saxpy_global::naive(S, Grd, Blk, In, Alpha, X, Y);
      },
      [&](cudaStream_t S) {
        saxpy_global::launch(S, Grd, Blk, In, Alpha, X, Y);
      },
      [&](cudaStream_t S) {
        saxpy_texture::launch(S, Grd, Blk, In, Alpha, X, Y);
      });
  for (float *P : {X, Y0, Y})
    CHECK(cudaFree(P));
}

// rd: the sum of N*N floats (16M at 4096) with nt = 4096 partial sums; its
// two phases run through the split launcher. Inputs in [0, 1): no
// cancellation, so the relative error measures summation order only.
void benchRd(int N) {
  long long n = (long long)N * N;
  const int Nt = 4096;
  float *In = randomArray(n, 15, 0.0f), *Partial = alloc(Nt), *Out = alloc(1);
  Case K{"rd", N, 4.0 * n, "GB/s"};
  K.Outputs = {{Out, 1}};
  dim3 Blk(256), Grd(blocks(Nt, 256));
  int In32 = int(n);
  run<rd_global, rd_texture>(
      K,
      [&](cudaStream_t S) {
        rd_global::naive(S, Grd, Blk, In, Partial, Out, In32, Nt);
      },
      [&](cudaStream_t S) {
        rd_global::launch(S, Grd, Blk, In, Partial, Out, In32, Nt);
      },
      [&](cudaStream_t S) {
        rd_texture::launch(S, Grd, Blk, In, Partial, Out, In32, Nt);
      });
  for (float *P : {In, Partial, Out})
    CHECK(cudaFree(P));
}

// strsm: L X = B, n = m = N, B overwritten (restored before checked runs;
// the timed runs solve again in place, the same work).
void benchStrsm(int N) {
  long long n2 = (long long)N * N;
  float *L = randomArray(n2, 16), *B0 = randomArray(n2, 17), *B = alloc(n2);
  makeLower<<<blocks(n2, 256), 256>>>(L, N);
  CHECK(cudaGetLastError());
  Case K{"strsm", N, 1.0 * N * N * N, "GFLOP/s"};
  K.Outputs = {{B, n2}};
  K.Reset = [&] { copyTo(B, B0, n2); };
  dim3 Blk(256), Grd(blocks(N, 256));
  run<strsm_global, strsm_texture>(
      K, [&](cudaStream_t S) { strsm_global::naive(S, Grd, Blk, L, B, N, N); },
      [&](cudaStream_t S) { strsm_global::launch(S, Grd, Blk, L, B, N, N); },
      [&](cudaStream_t S) { strsm_texture::launch(S, Grd, Blk, L, B, N, N); });
  for (float *P : {L, B0, B})
    CHECK(cudaFree(P));
}

// demosaicing: an N x N Bayer mosaic into three planes (4 bytes read and
// 12 written per pixel).
void benchDemosaicing(int N) {
  long long n2 = (long long)N * N;
  float *Bayer = randomArray(n2, 18), *R = alloc(n2), *G = alloc(n2),
        *Bl = alloc(n2);
  Case K{"demosaicing", N, 16.0 * n2, "GB/s"};
  K.Outputs = {{R, n2}, {G, n2}, {Bl, n2}};
  dim3 Blk(16, 16), Grd(blocks(N, 16), blocks(N, 16));
  run<demosaicing_global, demosaicing_texture>(
      K,
      [&](cudaStream_t S) {
        demosaicing_global::naive(S, Grd, Blk, Bayer, R, G, Bl, N, N);
      },
      [&](cudaStream_t S) {
        demosaicing_global::launch(S, Grd, Blk, Bayer, R, G, Bl, N, N);
      },
      [&](cudaStream_t S) {
        demosaicing_texture::launch(S, Grd, Blk, Bayer, R, G, Bl, N, N);
      });
  for (float *P : {Bayer, R, G, Bl})
    CHECK(cudaFree(P));
}

void benchImregionmax(int N) {
  long long n2 = (long long)N * N;
  float *In = randomArray(n2, 19), *Out = alloc(n2);
  Case K{"imregionmax", N, 8.0 * n2, "GB/s"};
  K.Tolerance = 0;
  K.Outputs = {{Out, n2}};
  dim3 Blk(16, 16), Grd(blocks(N, 16), blocks(N, 16));
  run<imregionmax_global, imregionmax_texture>(
      K,
      [&](cudaStream_t S) {
        imregionmax_global::naive(S, Grd, Blk, In, Out, N, N);
      },
      [&](cudaStream_t S) {
        imregionmax_global::launch(S, Grd, Blk, In, Out, N, N);
      },
      [&](cudaStream_t S) {
        imregionmax_texture::launch(S, Grd, Blk, In, Out, N, N);
      });
  CHECK(cudaFree(In));
  CHECK(cudaFree(Out));
}

} // namespace

int main(int argc, char **argv) {
  if (const char *R = std::getenv("BENCH_RUNS"))
    Runs = std::max(1, std::atoi(R));
  std::vector<int> Sizes;
  for (int I = 1; I < argc; ++I)
    Sizes.push_back(std::atoi(argv[I]));
  if (Sizes.empty())
    Sizes = {4096, 4000};
  cudaDeviceProp P;
  CHECK(cudaGetDeviceProperties(&P, 0));
  int Clock = 0, MemClock = 0;
  cudaDeviceGetAttribute(&Clock, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&MemClock, cudaDevAttrMemoryClockRate, 0);
  std::printf("DEVICE\t%s\t%d SMs\t%d MHz\t%d MHz memory\n", P.name,
              P.multiProcessorCount, Clock / 1000, MemClock / 1000);
  cublasHandle_t H;
  if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  for (int N : Sizes) {
    benchCopy(N);
    benchMm(H, N);
    benchGemm(H, N);
    benchMv(H, N, false);
    benchMv(H, N, true);
    benchTp(N);
    benchConv(N);
    benchVv(N);
    benchSaxpy(N);
    benchRd(N);
    benchStrsm(N);
    benchDemosaicing(N);
    benchImregionmax(N);
  }
  cublasDestroy(H);
  if (Failures)
    std::printf("FAILED %d\n", Failures);
  else
    std::printf("PASSED\n");
  return Failures ? 1 : 0;
}
