// Kernels that move their pointer parameters to the thread's row, as
// PyTorch-style code does. Before gpumerge followed the move, its analyses
// read a[j] after `a += i * m` as one row for every thread: the tiled
// kernel shared the first row with the whole block, and a float2 read of
// dout[0], dout[1] after `dout += i` was taken as aligned.
#include <cstdint>

__global__ void rowsum(const float *a, float *b, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  a += i * m;
  float s = 0.0f;
  for (int j = 0; j < m; j++)
    s += a[j];
  b[i] = s;
}

__global__ void pairs(const float *__restrict__ dout, float *__restrict__ dx,
                      uint64_t n) {
  auto i = (uint64_t)blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n)
    return;
  dx += i;
  dout += i;
  dx[0] = dout[0] + dout[1];
}

// Read before the move, and moved twice (the second time back by one).
__global__ void before(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float first = a[0];
  a += i;
  a--;
  if (i < n)
    b[i] = a[1] - first;
}

// Moved in the guard's block, read only there.
__global__ void guarded(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b += i;
    b[0] = a[i];
  }
}

// Moves gpumerge does not follow: the kernel is written as it is.
__global__ void after(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b += i;
    b[0] = a[i];
  }
  if (i == 0)
    b[n] = 0.0f;
}

__global__ void stepped(const float *a, float *b, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++) {
      s += a[i];
      a += n;
    }
    b[i] = s;
  }
}

__global__ void swapped(const float *a, const float *c, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a = c;
  if (i < n)
    b[i] = a[i];
}
