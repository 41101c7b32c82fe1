// clang-format off
// Warp-level built-ins read or wait for other threads of the warp: merged
// threads would pair each thread with another's lane.
__global__ void colsum_shfl(const float *a, float *b, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += a[j * n + i];
    s += __shfl_down_sync(0xffffffff, s, 1, 32);
    b[i] = s;
  }
}

__global__ void vote(const float *a, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = __ballot_sync(0xffffffff, a[i] > 0.0f);
}

__global__ void warp_wait(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] *= 2.0f;
    __syncwarp(0xffffffff);
  }
}

__global__ void block_or(const float *a, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = __syncthreads_or(i < n && a[i] > 0.0f);
}
