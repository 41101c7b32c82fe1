// [[...]] after the return type: nvcc warns, Clang refuses.
__global__ void [[maybe_unused]] mark(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 1.0f;
}

template <class T> __device__ [[nodiscard]] T twice(T x) { return x + x; }

__global__ void doubled(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = twice(a[i]);
}

__global__ void scale(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f * b[i];
}

__device__ int [[maybe_unused]] hits;

__global__ void count(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = hits;
}
