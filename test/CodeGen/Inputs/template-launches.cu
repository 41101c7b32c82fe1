// Launches that function templates leave to their instantiations, as
// templated CUDA libraries write them (BabelStream's copy<T>, a BLAS's
// gemm<T>): the host template's T picks the kernel template's.
#include <cstdio>
#include <cuda_runtime.h>

// y = alpha * x + y
template <typename T>
__global__ void axpy(const T *x, T *y, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

// Declared again after its definition, its parameters unnamed: the
// dispatcher takes the definition's names.
template <typename U> __global__ void axpy(const U *, U *, U, int);

// c = a * b with rows of a padded by PAD elements.
template <typename T, int PAD>
__global__ void mm(const T *a, const T *b, T *c, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    T sum = 0;
    for (int p = 0; p < k; p++)
      sum += a[y * (k + PAD) + p] * b[p * w + x];
    c[y * w + x] = sum;
  }
}

// A copy of any element type: of a struct, gpumerge optimizes nothing, and
// that instantiation runs as written.
template <typename T>
__global__ void copy(const T *from, T *to, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    to[i] = from[i];
}

namespace blas {
// x = alpha * x, in a namespace, with a template argument left to its
// default and a parameter named as the dispatcher's own.
template <typename T, int UNROLL = 1>
__global__ void scal(T *grid, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    grid[i] = alpha * grid[i] * UNROLL;
}
} // namespace blas

// Launched before its definition: its dispatcher, written after it, cannot
// be called there, so its launch stays as written.
template <typename T> __global__ void later(const T *x, T *y, int n);

struct Pair {
  float first, second;
};

// Not a template, launched with arguments of the host template's types.
__global__ void negate(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = -x[i];
}

template <typename T> void negateAll(const T *x, T *y, int n) {
  negate<<<(n + 127) / 128, 128>>>(x, y, n);
}

template <typename T>
void run(const T *x, T *y, const T *a, const T *b, T *c, int n, int w, int h,
         int k) {
  axpy<<<(n + 255) / 256, 256>>>(x, y, (T)2, n);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  mm<T, 1><<<grid, block>>>(a, b, c, w, h, k);
  copy<<<(n + 255) / 256, 256>>>(x, y, n);
  blas::scal<<<(n + 255) / 256, 256>>>(y, (T)3, n);
  later<<<(n + 255) / 256, 256>>>(x, y, n);
}

template <typename T> __global__ void later(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] - y[i];
}

int main() {
  // Addresses only: the launches are recorded, not run
  // (test/tools/launch-recorder.cpp).
  float *f = (float *)0x10000000;
  double *d = (double *)0x20000000;
  Pair *p = (Pair *)0x30000000;
  const int n = 1003, w = 131, h = 133, k = 29;
  run(f, f + 0x100000, f + 0x200000, f + 0x300000, f + 0x400000, n, w, h, k);
  run(d, d + 0x100000, d + 0x200000, d + 0x300000, d + 0x400000, n, w, h, k);
  // Misaligned for float4: the input's kernel runs.
  run(f + 1, f + 0x100001, f + 0x200000, f + 0x300000, f + 0x400000, n, w, h,
      k);
  copy<<<(n + 255) / 256, 256>>>(p, p + 0x100000, n);
  negateAll(f, f + 0x100000, n);
  printf("done\n");
  return 0;
}
