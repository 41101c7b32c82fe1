// An experiment, not built with gpumerge: what holds rd at 81% of the copy
// bandwidth on an H100 (bench/results/NVIDIA_H100_80GB_HBM3-2026-11-26.md:
// 0.0313 ms for 16M floats, the float4 copy of the same bytes 100%)? rd is
// two launches, phase 0 split by split-reduction (32 partial sums x 32
// lanes per block of 1024, scalar loads, 128 blocks for nt = 4096) and
// phase 1 (one block of 256 lanes over the 4096 partials). Hand-written
// variants of phase 0, the fused form (the last block to finish adds the
// partials: no second launch), and a one-kernel float4 reduction as the
// bound, timed at rd's bench shape (n = 4096^2, nt = 4096):
//   nvcc -O3 -arch=sm_90 -std=c++17 -o rdexp rd-lanes.cu && ./rdexp
// Each variant's sum is checked against a double sum on the host.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(X)                                                               \
  do {                                                                         \
    cudaError_t E = (X);                                                       \
    if (E != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(E));                                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int Threads = 1024;

// Phase 0: VEC consecutive partial sums per thread (a float4 load for 4),
// LANES threads per group of VEC sums, 1024 threads a block; lane l of
// partial i sums in[i + l * nt], in[i + (l + LANES) * nt], ... as the
// generated kernel does for VEC 1, LANES 32. With FUSE, the last block to
// finish sums the nt partials into out[0] (phase 1 in the same launch).
template <int VEC, int LANES, bool FUSE>
__global__ void __launch_bounds__(Threads)
    phase0(const float *in, float *partial, float *out, int n, int nt,
           unsigned *done) {
  constexpr int Groups = Threads / LANES, Sums = Groups * VEC;
  __shared__ float red[LANES][Sums];
  const int g = threadIdx.x % Groups, lane = threadIdx.x / Groups;
  const int i = (blockIdx.x * Groups + g) * VEC;
  float s[VEC] = {};
  if (i < nt) {
#pragma unroll 8
    for (long long j = i + (long long)lane * nt; j < n;
         j += (long long)LANES * nt) {
      if constexpr (VEC == 4) {
        float4 v = *(const float4 *)&in[j];
        s[0] += v.x;
        s[1] += v.y;
        s[2] += v.z;
        s[3] += v.w;
      } else {
        s[0] += in[j];
      }
    }
  }
#pragma unroll
  for (int k = 0; k < VEC; k++)
    red[lane][g * VEC + k] = s[k];
  __syncthreads();
#pragma unroll
  for (int h = LANES / 2; h > 0; h /= 2) {
    if (lane < h)
#pragma unroll
      for (int k = 0; k < VEC; k++)
        red[lane][g * VEC + k] += red[lane + h][g * VEC + k];
    __syncthreads();
  }
  if (lane == 0 && i < nt)
#pragma unroll
    for (int k = 0; k < VEC; k++)
      partial[i + k] = red[0][g * VEC + k];
  if (!FUSE)
    return;
  // The last block: every other block's partials are visible once its
  // ticket is taken after a fence.
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    last = atomicAdd(done, 1) == gridDim.x - 1;
  __syncthreads();
  if (!last)
    return;
  __shared__ float tot[Threads];
  float t = 0.0f;
  for (int j = threadIdx.x; j < nt; j += Threads)
    t += ((volatile float *)partial)[j];
  tot[threadIdx.x] = t;
  __syncthreads();
  for (int h = Threads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h)
      tot[threadIdx.x] += tot[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = tot[0];
    *done = 0; // for the next launch
  }
}

// Phase 1 as generated: one block of 256 lanes over the partials.
__global__ void phase1(const float *partial, float *out, int nt) {
  __shared__ float tot[256];
  float t = 0.0f;
#pragma unroll 8
  for (int j = threadIdx.x; j < nt; j += 256)
    t += partial[j];
  tot[threadIdx.x] = t;
  __syncthreads();
  for (int h = 128; h > 0; h /= 2) {
    if (threadIdx.x < h)
      tot[threadIdx.x] += tot[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[0] = tot[0];
}

// The bound: one kernel, float4 grid-stride loads, a block sum per block
// added atomically (another summation order; out zeroed before).
__global__ void __launch_bounds__(Threads)
    oneKernel(const float4 *in, float *out, long long n4) {
  __shared__ float tot[Threads];
  float t = 0.0f;
  for (long long j = blockIdx.x * (long long)Threads + threadIdx.x; j < n4;
       j += (long long)gridDim.x * Threads) {
    float4 v = in[j];
    t += v.x + v.y + v.z + v.w;
  }
  tot[threadIdx.x] = t;
  __syncthreads();
  for (int h = Threads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h)
      tot[threadIdx.x] += tot[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, tot[0]);
}

__global__ void copy4(const float4 *in, float4 *out, long long n4) {
  long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (j < n4)
    out[j] = in[j];
}

template <typename F> float medianMs(F Launch, int Runs = 21) {
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  Launch(); // warm-up
  std::vector<float> Ms;
  for (int R = 0; R < Runs; ++R) {
    CHECK(cudaEventRecord(A));
    Launch();
    CHECK(cudaEventRecord(B));
    CHECK(cudaEventSynchronize(B));
    float T = 0;
    CHECK(cudaEventElapsedTime(&T, A, B));
    Ms.push_back(T);
  }
  CHECK(cudaGetLastError());
  std::sort(Ms.begin(), Ms.end());
  return Ms[Ms.size() / 2];
}

int main() {
  const int N = 4096, Nt = 4096;
  const int n = N * N;
  std::vector<float> H(n);
  unsigned Seed = 15;
  double Exact = 0;
  for (int I = 0; I < n; ++I) {
    Seed = Seed * 1664525u + 1013904223u;
    H[I] = float(Seed >> 8) / float(1 << 24);
    Exact += H[I];
  }
  float *In, *Partial, *Out, *Copy;
  unsigned *Done;
  CHECK(cudaMalloc(&In, n * sizeof(float)));
  CHECK(cudaMalloc(&Copy, n * sizeof(float)));
  CHECK(cudaMalloc(&Partial, Nt * sizeof(float)));
  CHECK(cudaMalloc(&Out, sizeof(float)));
  CHECK(cudaMalloc(&Done, sizeof(unsigned)));
  CHECK(cudaMemset(Done, 0, sizeof(unsigned)));
  CHECK(cudaMemcpy(In, H.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaDeviceProp P;
  CHECK(cudaGetDeviceProperties(&P, 0));
  std::printf("# rd-lanes on %s, %d SMs; n = %d, nt = %d; median of 21\n",
              P.name, P.multiProcessorCount, n, Nt);

  const double Bytes = double(n) * 4;
  float CopyMs = medianMs([&] {
    copy4<<<(n / 4 + 255) / 256, 256>>>((const float4 *)In, (float4 *)Copy,
                                        n / 4);
  });
  // The copy moves twice rd's bytes: rd's share of its bandwidth.
  auto Report = [&](const char *Name, float Ms) {
    float Got = 0;
    CHECK(cudaMemcpy(&Got, Out, sizeof(float), cudaMemcpyDeviceToHost));
    double Err = std::fabs(Got - Exact) / Exact;
    std::printf("%-34s %8.4f ms %7.1f GB/s %5.0f%% of copy  rel err %.1e%s\n",
                Name, Ms, Bytes / Ms / 1e6, 100.0 * (CopyMs / 2) / Ms, Err,
                Err > 1e-4 ? "  WRONG" : "");
  };
  std::printf("%-34s %8.4f ms %7.1f GB/s (read + write)\n", "copy float4",
              CopyMs, 2 * Bytes / CopyMs / 1e6);

  auto TwoLaunches = [&](auto Kernel, int SumsPerBlock, const char *Name) {
    float Ms = medianMs([&] {
      Kernel<<<(Nt + SumsPerBlock - 1) / SumsPerBlock, Threads>>>(
          In, Partial, Out, n, Nt, Done);
      phase1<<<1, 256>>>(Partial, Out, Nt);
    });
    Report(Name, Ms);
  };
  auto Fused = [&](auto Kernel, int SumsPerBlock, const char *Name) {
    float Ms = medianMs([&] {
      Kernel<<<(Nt + SumsPerBlock - 1) / SumsPerBlock, Threads>>>(
          In, Partial, Out, n, Nt, Done);
    });
    Report(Name, Ms);
  };
  // Groups * VEC sums a block: (1024 / LANES) * VEC.
  TwoLaunches(phase0<1, 32, false>, 32, "scalar 32 lanes (as generated)");
  TwoLaunches(phase0<1, 64, false>, 16, "scalar 64 lanes");
  TwoLaunches(phase0<4, 128, false>, 32, "float4 128 lanes");
  TwoLaunches(phase0<4, 256, false>, 16, "float4 256 lanes");
  Fused(phase0<1, 32, true>, 32, "scalar 32 lanes, fused");
  Fused(phase0<1, 64, true>, 16, "scalar 64 lanes, fused");
  Fused(phase0<4, 128, true>, 32, "float4 128 lanes, fused");
  Fused(phase0<4, 256, true>, 16, "float4 256 lanes, fused");
  float PhaseOnly = medianMs([&] {
    phase0<1, 32, false><<<Nt / 32, Threads>>>(In, Partial, Out, n, Nt, Done);
  });
  std::printf("%-34s %8.4f ms (phase 0 alone)\n", "scalar 32 lanes", PhaseOnly);
  float One = medianMs([&] {
    cudaMemsetAsync(Out, 0, sizeof(float));
    oneKernel<<<P.multiProcessorCount * 2, Threads>>>((const float4 *)In, Out,
                                                      n / 4);
  });
  Report("one kernel, float4 (the bound)", One);
  return 0;
}
