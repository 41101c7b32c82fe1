// The host program includes the kernel's source file.
#include <cuda_runtime.h>
#include "kern.cu"
int main() {
  float *v;
  cudaMalloc(&v, 400);
  twice<<<1, 128>>>(v, 100);
  return 0;
}
