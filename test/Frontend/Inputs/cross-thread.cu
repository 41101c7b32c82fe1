// clang-format off
// Warp-level built-ins read or wait for other threads of the warp; a
// volatile shared array is how warp-synchronous code shares values without
// a barrier. Merged threads would pair each thread with another's lane.
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

// A volatile global array keeps its qualifier: nothing else writes what a
// naive kernel reads while it runs (the contract of every array), so the
// kernel is optimized; __ldg, which would cache it, is not used.
__global__ void mv_volatile(const float *a, volatile float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

__global__ void warp_sync_sum(const float *a, float *b, int n) {
  volatile __shared__ float s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    s[threadIdx.x % 64] = a[i];
    b[i] = s[threadIdx.x % 64] + s[(threadIdx.x + 1) % 64];
  }
}
