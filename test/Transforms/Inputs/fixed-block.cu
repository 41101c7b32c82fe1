// Thread positions written with the block size as a number (a #define, as
// suites do), and a guard through a local.
#include <cuda_runtime.h>
#define BLOCK 256

__global__ void mv(int n, const float *A, const float *x, float *y) {
  int i = blockIdx.x * BLOCK + threadIdx.x; // assumes blocks of BLOCK
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++)
      s += A[i * n + j] * x[j];
    y[i] = s;
  }
}

__global__ void twosizes(int n, float *a) {
  int i = blockIdx.x * 256 + threadIdx.x;
  int k = blockIdx.x * 128 + threadIdx.x;
  if (i < n && k < n)
    a[i] = a[k] + 1.0f;
}

__global__ void valid(const float *img, float *out, int w, int h, int f) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int ow = w - f + 1;
  if (x < ow && y < h - f + 1) {
    float s = 0.0f;
    for (int i = 0; i < f; i++)
      s += img[(y + i) * w + x];
    out[y * ow + x] = s;
  }
}

void run(int n, const float *A, const float *x, float *y, float *out) {
  mv<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, A, x, y);
  valid<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(A, out, n, n, 3);
}
