#include "declared-only.h"

__device__ float later(float x); // defined below: gpumerge sees it
__device__ int elsewhere(int i); // defined in another file

__global__ void apply(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = lib_transform(x[i]) /* as written */;
}

__global__ void ranks(int *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    r[i] = elsewhere(i);
}

__global__ void halve(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = later(x[i]);
}

__device__ float later(float x) { return 0.5f * x; }
