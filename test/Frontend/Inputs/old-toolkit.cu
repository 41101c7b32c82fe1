// Host code written for a CUDA toolkit before 12: cudaThreadSynchronize and
// texture references, which CUDA 12 and 13 removed.
#include <cstdio>
#include <cuda_runtime.h>

texture<float, 1, cudaReadModeElementType> t_in;

// Reads through a texture reference: passed through as written.
__global__ void fetch(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch(t_in, i);
}

// An ordinary naive kernel beside it: optimized.
__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

void run(float *a, float *x, float *y, float *out, int w, int h) {
  cudaBindTexture(0, t_in, x, w * sizeof(float));
  fetch<<<(w + 255) / 256, 256>>>(out, w);
  mv<<<(h + 255) / 256, 256>>>(a, x, y, w, h);
  cudaThreadSynchronize();
  cudaUnbindTexture(t_in);
}
