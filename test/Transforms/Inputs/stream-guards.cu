// Streaming kernels whose guards keep more than the domain's upper bounds.
#define STRIDE 64

// A Jacobi-style copy of the interior: lower bounds in both dimensions, a
// macro row stride.
__global__ void interior(int n, float *a, const float *b) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    a[i * STRIDE + j] = b[i * STRIDE + j];
}

// Every third element skipped: the guard does not hold on a whole run when
// it holds at its ends.
__global__ void sparse(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i % 3 != 1)
    y[i] = 2.0f * x[i] + 1.0f;
}

// Unsigned positions: n - 2u wraps for n < 2.
__global__ void wrapping(unsigned n, const float *x, float *y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 2u)
    y[i] = x[i] - 0.5f;
}
