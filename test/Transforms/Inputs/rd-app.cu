// A whole CUDA program launching rd, a reduction with a global barrier:
// once before the kernel's definition (through its prototype) and twice
// after it. Prints PASSED when the sum of n ones is n.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

__global__ void rd(const float *in, float *partial, float *out, int n,
                   int nt);

static void reduce_on(cudaStream_t s, const float *in, float *partial,
                      float *out, int n, int nt) {
  rd<<<(nt + 255) / 256, 256, 0, s>>>(in, partial, out, n, nt);
}

__global__ void rd(const float *in, float *partial, float *out, int n,
                   int nt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nt) {
    float sum = 0.0f;
    for (int j = i; j < n; j += nt)
      sum += in[j];
    partial[i] = sum;
  }
  gpumerge_global_sync();
  if (i == 0) {
    float total = 0.0f;
    for (int j = 0; j < nt; j++)
      total += partial[j];
    out[0] = total;
  }
}

int main() {
  const int n = 100003, nt = 1000;
  std::vector<float> ones(n, 1.0f);
  float *in, *partial, *out, result = 0;
  if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess) {
    std::printf("no GPU\n");
    return 0;
  }
  cudaMalloc(&partial, nt * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemcpy(in, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  rd<<<(nt + 255) / 256, 256>>>(in, partial, out, n, nt);
  cudaStream_t s;
  cudaStreamCreate(&s);
  reduce_on(s, in, partial, out, n, nt);
  cudaStreamSynchronize(s);
  cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost);
  bool ok = result == float(n);
  std::printf("%s: %f\n", ok ? "PASSED" : "FAILED", result);
  return ok ? 0 : 1;
}
