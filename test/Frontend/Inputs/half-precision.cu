// CUDA's 16-bit floats: __half and __nv_bfloat16 as storage and arithmetic.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef half fp16;

#define TILE 16

// C = alpha * A * B + beta * C, every operation in half precision.
template <typename T>
__global__ void gemm_h(T *a, T *b, T *c, int M, int K, int N, T alpha,
                       T beta) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row < M && col < N) {
    T s = 0;
    for (int k = 0; k < K; k++)
      s += a[row * K + k] * b[k * N + col];
    c[row * N + col] = alpha * s + beta * c[row * N + col];
  }
}

// Half inputs, float accumulation.
__global__ void mm_mixed(const fp16 *a, const fp16 *b, float *c, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0.0f;
    for (int k = 0; k < n; k++)
      s += __half2float(a[i * n + k]) * __half2float(b[k * n + j]);
    c[i * n + j] = s;
  }
}

__global__ void axpy_h(const __half *x, const __half *y, __half *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = __hadd(x[i], __hmul(y[i], __float2half(0.1f))) + hsqrt(__habs(x[i])) +
           __hfma(x[i], y[i], hexp(__hneg(y[i])));
}

__global__ void scale_bf(const __nv_bfloat16 *x, __nv_bfloat16 *y, float s,
                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __float2bfloat16(__bfloat162float(x[i]) * s) + x[i];
}

// A sum of halves: split into partial sums it would round otherwise.
__global__ void rowsum_h(const __half *a, __half *s, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half t = __float2half(0.0f);
    for (int j = 0; j < m; j++)
      t += a[i * m + j];
    s[i] = t;
  }
}

// Not lowered: pairs of halves, an increment.
__global__ void pairs_h(const __half2 *x, __half2 *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __hadd2(x[i], x[i]);
}

__global__ void bump_h(__half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half h = y[i];
    h++;
    y[i] = h;
  }
}

void run(__half *a, __half *b, __half *c, int n) {
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), block(TILE, TILE);
  gemm_h<<<grid, block>>>(a, b, c, n, n, n, __half(2.0f), __half(0.5f));
}

// A table of halves: its initializer is CUDA's text, which no translation
// declares again; the host's __constant__ array is an argument in OpenCL.
__constant__ __half taps[3] = {__half_raw{0x3400}, __half_raw{0x3800},
                               __half_raw{0x3400}};
__constant__ __half gains[4];

__global__ void smooth_h(const __half *x, __half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = taps[0] * x[i] + taps[1] * x[i + 1] + taps[2] * x[i + 2];
}

__global__ void gain_h(const __half *x, __half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = gains[i % 4] * x[i];
}
