// Kernels calling functions of a library's header.
#include <warp_util.h>

// Reads threadIdx inside the library: passed through.
__global__ void laned(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + wu::laneId();
}

// Reads %laneid in inline asm inside the library: passed through.
__global__ void lanedAsm(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + wu::laneIdAsm();
}

// A pure library function: optimized.
__global__ void halved(const float *a, const float *b, float *c, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < w) {
    float s = 0.0f;
    for (int k = 0; k < w; k++)
      s += a[y * w + k] * b[k * w + x];
    c[y * w + x] = wu::half(s);
  }
}
