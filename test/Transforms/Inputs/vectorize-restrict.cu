// clang-format off
// STREAM's triad as benchmarks write it: no guard (the launch is the
// domain) and every array __restrict__. The promise lets the float4 merge
// reorder the accesses without knowing how far the arrays reach.
__global__ void triad(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, float s) {
  int gid = threadIdx.x + (blockIdx.x * blockDim.x);
  C[gid] = A[gid] + s * B[gid];
}

// The same without the promise: the launcher checks that the arrays do not
// overlap as far as the naive launch reaches.
__global__ void triad_aliasable(const float *A, const float *B, float *C,
                                float s) {
  int gid = threadIdx.x + (blockIdx.x * blockDim.x);
  C[gid] = A[gid] + s * B[gid];
}

// Guarded and __restrict__: no overlap check at the launch either.
__global__ void triad_guarded(const float *__restrict__ A,
                              const float *__restrict__ B,
                              float *__restrict__ C, float s, int n) {
  int gid = threadIdx.x + (blockIdx.x * blockDim.x);
  if (gid < n)
    C[gid] = A[gid] + s * B[gid];
}
