// clang-format off
// Threads past the domain return before the barrier the others wait at:
// OpenCL leaves that undefined, and PoCL's runs of it differ from run to
// run (HeCBench's surfel_render_tile is written so).
__global__ void early(const float *a, float *c, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  t[threadIdx.x] = a[i];
  __syncthreads();
  c[i] = t[threadIdx.x] + t[(threadIdx.x + 1) % 256];
}

// Every thread passes the barrier, then those past the domain return.
__global__ void late(const float *a, float *c, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i >= n)
    return;
  c[i] = t[threadIdx.x] + t[(threadIdx.x + 1) % 256];
}
