// A kernel declared before main with non-const pointers, launched there and
// defined after it.
#include <cstdio>
__global__ void scale(float *in, float *out, int n);

int main() {
  float *a, *b;
  cudaMalloc(&a, 400 * sizeof(float));
  cudaMalloc(&b, 400 * sizeof(float));
  scale<<<(400 + 127) / 128, 128>>>(a, b, 400);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}

__global__ void scale(float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; // where
  if (i < n)
    out[i] = 2.0f * in[i];
}
