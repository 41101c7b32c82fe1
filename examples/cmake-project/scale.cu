#include "scale.cuh"

__global__ void scale(float *v, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= f;
}

void scaleOnDevice(float *v, float f, int n) {
  scale<<<(n + 255) / 256, 256>>>(v, f, n);
}
