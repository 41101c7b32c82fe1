// Tables in constant memory: one the host fills (cudaMemcpyToSymbol), one
// with an initializer. Kernels read them as written; verify fills the first
// with random values (an argument of the OpenCL translation).
#include <cuda_runtime.h>
#define FW 5
__constant__ float filt[FW];
__constant__ float taps[2][3] = {{0.25f, 0.5f, 0.25f}, {-1.0f, 0.0f, 1.0f}};
__device__ float scratch[16];

__global__ void conv1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - FW + 1) {
    float s = 0.0f;
    for (int j = 0; j < FW; j++)
      s += in[i + j] * filt[j]; // a __constant__ read
    out[i] = s;
  }
}

__global__ void rows(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = taps[y % 2][0] * in[y * w + x] + taps[y % 2][2];
}

__device__ float weight(int j) { return filt[j]; }

__global__ void viaHelper(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = weight(i % FW) * in[i];
}

__global__ void fromDevice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scratch[i % 16] * in[i];
}

void run(const float *h_filt, const float *in, float *out, int n) {
  cudaMemcpyToSymbol(filt, h_filt, sizeof(float) * FW);
  conv1d<<<(n + 255) / 256, 256>>>(in, out, n);
}
