// Dynamic parallelism (nvcc -rdc=true): a kernel launching a kernel.
__global__ void child(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] += 1.0f;
}

__global__ void parent(float *a, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    child<<<(n + 255) / 256, 256>>>(a,  n);
}

__global__ void scale(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f * b[i];
}
