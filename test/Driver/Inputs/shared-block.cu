// clang-format off
// A block of at most 64 threads: t is indexed by the thread's position.
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__global__ void blocksum(const float *x, float *y, int n) {
  __shared__ float t[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x;
  t[l] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < l + 1; k++)
      s += t[k];
    y[i] = s;
  }
}
