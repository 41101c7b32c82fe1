// Kernel templates as CUDA programs write them: one body for float and
// double, a block size as a template argument. gpumerge optimizes each
// instantiation that a launch names; the templates stay as written.
#include <cstdio>
#include <cuda_runtime.h>

#define SCALE_BLOCK 256

// y = alpha * x + y over n elements, for any element type.
template <typename T>
__global__ void axpy(const T *x, T *y, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

// c = a * b (w columns, h rows, k inner) with rows of a TILE-aligned
// stride: the template argument is a number used in the body.
template <typename T, int STRIDE_PAD>
__global__ void mm(const T *a, const T *b, T *c, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    T sum = 0;
    for (int p = 0; p < k; p++)
      sum += a[y * (k + STRIDE_PAD) + p] * b[p * w + x];
    c[y * w + x] = sum;
  }
}

namespace blas {
// x = alpha * x, launched with the namespace written out.
template <typename T> __global__ void scal(T *x, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = alpha * x[i];
}
} // namespace blas

// Launched only from a host template, where the launch is resolved per
// instantiation: it calls a dispatcher that launches the instantiation.
template <typename T>
__global__ void scaleInto(const T *x, T *y, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = v * x[i];
}

template <typename T> void scaleAll(const T *x, T *y, T v, int n) {
  scaleInto<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(x, y, v, n);
}

// A helper template and `T()`: the optimized kernel calls the helper's
// instantiation, written after the helper's template.
template <typename T> __device__ T squared(T v) { return v * v; }

template <typename T>
__global__ void rowsumsq(const T *a, T *s, int w, int h) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < h) {
    T acc = T();
    for (int x = 0; x < w; ++x)
      acc += squared(a[y * w + x]);
    s[y] = acc;
  }
}

// Integer arguments of two types: addk<1> and addk<1u> are two kernels.
template <auto N> __global__ void addk(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] + N;
}

int main() {
  const int n = 1000, w = 77, h = 45, k = 29;
  float *xf, *yf, *a, *b, *c;
  double *xd, *yd;
  cudaMalloc(&xf, n * sizeof(float));
  cudaMalloc(&yf, n * sizeof(float));
  cudaMalloc(&xd, n * sizeof(double));
  cudaMalloc(&yd, n * sizeof(double));
  cudaMalloc(&a, h * (k + 1) * sizeof(float));
  cudaMalloc(&b, k * w * sizeof(float));
  cudaMalloc(&c, h * w * sizeof(float));
  scaleAll(yf, xf, 1.0f, n);
  axpy<float><<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(xf, yf, 2.0f, n);
  axpy<<<(n + 127) / 128, 128>>>(xd, yd, 0.5, n);
  blas::scal<float><<<(n + 255) / 256, 256>>>(yf, 3.0f, n);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  mm<float, 1><<<grid, block>>>(a, b, c, w, h, k);
  rowsumsq<<<(h + 127) / 128, 128>>>(b, c, w, h);
  addk<1><<<(n + 255) / 256, 256>>>(xf, yf, n);
  addk<1u><<<(n + 255) / 256, 256>>>(xf, yf, n);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
