// Matrix-vector products launched, as PolyBench launches its 1-D kernels,
// with blocks of 32 x 8 threads over a grid one block high: each element is
// computed by the eight threads of its column.
#include <cuda_runtime.h>

#define ROWS_X 32
#define ROWS_Y 8

// Sets its element, then adds into it: a copy leaves what one leaves.
__global__ void rowsum(const float *a, const float *x, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    t[i] = 0.0f;
    for (int j = 0; j < n; j++)
      t[i] += a[i * n + j] * x[j];
  }
}

// Adds into what the host set: every copy adds again.
__global__ void rowacc(const float *a, const float *x, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int j = 0; j < n; j++)
      t[i] += a[i * n + j] * x[j];
  }
}

void products(const float *a, const float *x, float *t, float *u, int n) {
  dim3 block(ROWS_X, ROWS_Y);
  dim3 grid((n + ROWS_X - 1) / ROWS_X, 1);
  rowsum<<<grid, block>>>(a, x, t, n);
  rowacc<<<grid, block>>>(a, x, u, n);
  cudaDeviceSynchronize();
}
