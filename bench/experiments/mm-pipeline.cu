// An experiment, not built with gpumerge: does a cp.async pipeline of the
// shared tiles pay on an sm_80/sm_90 GPU for the shape of gpumerge's h100 mm
// (16x16 threads, 8x8 outputs each, columns cyclic by 16, b's columns
// grouped by 4), and does a larger register tile? Hand-written variants of
// that kernel, timed at 4096^3 and compared with the first:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o mmexp mm-pipeline.cu && ./mmexp
// Results: bench/results/mm-pipeline-NVIDIA_H100_80GB_HBM3-2026-11-26.txt.
#include <cstdio>
#include <cstdlib>
#include <cuda_pipeline.h>
#include <vector>

template <int KT, int STAGES, bool ASYNC, int AV, int MINB = 2, int NJ = 8>
__global__ void __launch_bounds__(256, MINB)
    mmk(const float *a, const float *b, float *c, int w, int k) {
  constexpr int AP = AV == 4 ? KT + 4 : KT + 1;
  __shared__ __align__(16) float a_s[STAGES][128][AP];
  constexpr int BW = NJ * 16;
  __shared__ __align__(16) float b_s[STAGES][KT][BW];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int bx = blockIdx.x, by = blockIdx.y;
  float acc[8][NJ];
#pragma unroll
  for (int r = 0; r < 8; r++)
#pragma unroll
    for (int j = 0; j < NJ; j++)
      acc[r][j] = 0.0f;
  auto load = [&](int s, int i0) {
    if (AV == 4) {
      for (int l = tid; l < 128 * KT / 4; l += 256) {
        int r = l / (KT / 4), cc = l % (KT / 4) * 4;
        const float *src = &a[(by * 128 + r) * k + i0 + cc];
        if (ASYNC)
          __pipeline_memcpy_async(&a_s[s][r][cc], src, 16);
        else
          *(float4 *)&a_s[s][r][cc] = *(const float4 *)src;
      }
    } else {
      for (int l = tid; l < 128 * KT; l += 256) {
        int r = l / KT, cc = l % KT;
        const float *src = &a[(by * 128 + r) * k + i0 + cc];
        if (ASYNC)
          __pipeline_memcpy_async(&a_s[s][r][cc], src, 4);
        else
          a_s[s][r][cc] = *src;
      }
    }
    for (int l = tid; l < KT * BW; l += 256) {
      int r = l / BW, col = l % BW, j = col / 16, t = col % 16;
      float *dst = &b_s[s][r][j / 4 * 64 + j % 4 + t * 4];
      const float *src = &b[(i0 + r) * w + bx * BW + col];
      if (ASYNC)
        __pipeline_memcpy_async(dst, src, 4);
      else
        *dst = *src;
    }
  };
  auto compute = [&](int s) {
#pragma unroll
    for (int i = 0; i < KT; i++) {
      float av[8], bv[NJ];
#pragma unroll
      for (int r = 0; r < 8; r++)
        av[r] = a_s[s][ty * 8 + r][i];
#pragma unroll
      for (int g = 0; g < NJ / 4; g++) {
        float4 bq = *(const float4 *)&b_s[s][i][g * 64 + tx * 4];
        bv[g * 4] = bq.x;
        bv[g * 4 + 1] = bq.y;
        bv[g * 4 + 2] = bq.z;
        bv[g * 4 + 3] = bq.w;
      }
#pragma unroll
      for (int r = 0; r < 8; r++)
#pragma unroll
        for (int j = 0; j < NJ; j++)
          acc[r][j] += av[r] * bv[j];
    }
  };
  const int nt = k / KT;
  if (!ASYNC) {
    for (int t = 0; t < nt; t++) {
      load(0, t * KT);
      __syncthreads();
      compute(0);
      __syncthreads();
    }
  } else {
    for (int s = 0; s < STAGES - 1; s++) {
      if (s < nt)
        load(s, s * KT);
      __pipeline_commit();
    }
    for (int t = 0; t < nt; t++) {
      int nx = t + STAGES - 1;
      if (nx < nt)
        load(nx % STAGES, nx * KT);
      __pipeline_commit();
      __pipeline_wait_prior(STAGES - 1);
      __syncthreads();
      compute(t % STAGES);
      __syncthreads();
    }
  }
#pragma unroll
  for (int r = 0; r < 8; r++)
#pragma unroll
    for (int j = 0; j < NJ; j++)
      c[((by * 16 + ty) * 8 + r) * w + bx * BW + j * 16 + tx] = acc[r][j];
}

// b's column index for thread tx, copy j: b_s position j/4*64 + j%4 + tx*4
// (the compute reads bv[j] for j = 0..3 at tx*4 + j, 4..7 at 64 + tx*4 + j-4).

template <int KT, int S, bool A, int AV, int MINB = 2, int NJ = 8>
float timeit(const char *name, const float *a, const float *b, float *c, int n,
             std::vector<float> &out) {
  dim3 block(16, 16), grid(n / (NJ * 16), n / 128);
  mmk<KT, S, A, AV, MINB, NJ><<<grid, block>>>(a, b, c, n, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("%s: %s\n", name, cudaGetErrorString(e));
    return -1;
  }
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  float best = 1e9;
  for (int rep = 0; rep < 7; rep++) {
    cudaEventRecord(t0);
    mmk<KT, S, A, AV, MINB, NJ><<<grid, block>>>(a, b, c, n, n);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms;
    cudaEventElapsedTime(&ms, t0, t1);
    if (ms < best)
      best = ms;
  }
  out.resize((size_t)n * n);
  cudaMemcpy(out.data(), c, out.size() * 4, cudaMemcpyDeviceToHost);
  cudaFuncAttributes at;
  cudaFuncGetAttributes(&at, mmk<KT, S, A, AV, MINB, NJ>);
  printf("%-28s %7.3f ms %8.1f GFLOP/s regs %d smem %zu\n", name, best,
         2.0 * n * n * n / best / 1e6, at.numRegs, at.sharedSizeBytes);
  return best;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "mm-pipeline: no CUDA device\n");
    return 1;
  }
  const int n = 4096;
  std::vector<float> ha((size_t)n * n), hb((size_t)n * n);
  srand(1);
  for (auto &x : ha)
    x = (rand() % 1000) / 1000.0f - 0.5f;
  for (auto &x : hb)
    x = (rand() % 1000) / 1000.0f - 0.3f;
  float *a, *b, *c;
  cudaMalloc(&a, ha.size() * 4);
  cudaMalloc(&b, hb.size() * 4);
  cudaMalloc(&c, ha.size() * 4);
  cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice);
  std::vector<float> ref, o;
  timeit<32, 1, false, 1>("sync  kt32 (as generated)", a, b, c, n, ref);
  // Spot-check the reference against the CPU.
  double maxe = 0;
  for (int s = 0; s < 64; s++) {
    int i = (s * 977) % n, j = (s * 1319 + 7) % n;
    double acc = 0;
    for (int q = 0; q < n; q++)
      acc += (double)ha[(size_t)i * n + q] * hb[(size_t)q * n + j];
    maxe = std::max(maxe, std::abs(acc - ref[(size_t)i * n + j]) /
                              (std::abs(acc) + 1));
  }
  printf("reference vs CPU: max rel err %.2e\n", maxe);
  auto cmp = [&](float ms) {
    double m = 0;
    for (size_t i = 0; i < o.size(); i++)
      m = std::max(m, (double)std::abs(o[i] - ref[i]));
    printf("    max abs diff vs reference %.2e\n", m);
  };
  cmp(timeit<16, 2, true, 1>("async kt16 x2", a, b, c, n, o));
  cmp(timeit<16, 1, false, 1, 1, 16>("8x16 sync kt16", a, b, c, n, o));
  cmp(timeit<8, 2, true, 1, 1, 16>("8x16 async kt8 x2", a, b, c, n, o));
  cmp(timeit<8, 3, true, 1, 1, 16>("8x16 async kt8 x3", a, b, c, n, o));
  cmp(timeit<8, 3, true, 4, 1, 16>("8x16 async kt8 x3 a 16B", a, b, c, n, o));
  cmp(timeit<12, 2, true, 1, 1, 16>("8x16 async kt12 x2", a, b, c, n, o));
  return 0;
}
