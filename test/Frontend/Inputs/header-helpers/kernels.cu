// Kernels calling helpers of an included header.
#include "helpers.h"

// A pure helper: optimized, and verified (the translation defines it).
__global__ void scaled(const float *a, const float *b, float *c, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < w) {
    float s = 0.0f;
    for (int k = 0; k < w; k++)
      s += a[y * w + k] * b[k * w + x];
    c[y * w + x] = util::twice(s);
  }
}

// A helper reading threadIdx: no thread merge.
__global__ void biased(const float *a, const float *b, float *c, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < w) {
    float s = lane();
    for (int k = 0; k < w; k++)
      s += a[y * w + k] * b[k * w + x];
    c[y * w + x] = s;
  }
}

// A helper template reading threadIdx: a call gpumerge cannot look into.
__global__ void biasedT(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + laneOf<float>();
}

// A helper gpumerge cannot lower.
__global__ void counted(const int *a, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = steps(a[i]);
}
