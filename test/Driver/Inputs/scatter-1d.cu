// A scatter whose targets are distinct on verify's inputs: idx steers a
// write, and verify draws it as a permutation.
__global__ void scatter(const int *idx, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[idx[i]] = v[i];
}
