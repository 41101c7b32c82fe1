// out = transpose(in) * 2 for an h x w matrix, on the device.
#include "scale.cuh"

#include <cuda_runtime.h>

// The naive transpose: its writes are uncoalesced, which gpumerge fixes
// through shared memory.
__global__ void transpose(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// Returns 0, or the CUDA error (no device, ...).
int transposeTwice(const float *in, float *out, int w, int h) {
  size_t bytes = sizeof(float) * w * h;
  float *din = nullptr, *dout = nullptr;
  cudaError_t e = cudaMalloc(&din, bytes);
  if (e == cudaSuccess)
    e = cudaMalloc(&dout, bytes);
  if (e == cudaSuccess)
    e = cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    transpose<<<grid, block>>>(din, dout, w, h);
    scale<<<(w * h + 127) / 128, 128>>>(dout, 2.0f, w * h);
    e = cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
  }
  cudaFree(din);
  cudaFree(dout);
  return e;
}
