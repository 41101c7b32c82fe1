// A whole program that says its size only as a #define passed down to the
// launch, as PolyBench does (size-hints.test).
#include <cstdio>
#include <cuda_runtime.h>

#ifndef GEMM_N
#define GEMM_N 128
#endif

__global__ void gemm(int n, float alpha, const float *a, const float *b,
                     float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float s = 0.0f;
    for (int k = 0; k < n; k++)
      s += alpha * a[i * n + k] * b[k * n + j];
    c[i * n + j] = s;
  }
}

static void run(int n, const float *a, const float *b, float *c) {
  dim3 block(32, 8);
  dim3 grid((n + 31) / 32, (n + 7) / 8);
  gemm<<<grid, block>>>(n, 1.5f, a, b, c);
}

int main() {
  int n = GEMM_N;
  float *a, *b, *c;
  cudaMalloc(&a, sizeof(float) * n * n);
  cudaMalloc(&b, sizeof(float) * n * n);
  cudaMalloc(&c, sizeof(float) * n * n);
  run(n, a, b, c);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
