// A 2-D array at a squared row: the probe records flat indices, which a
// 2-D access does not give, so the analysis's error stands.
__global__ void rows(const float (*in)[64], float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i * i][i % 64];
}
