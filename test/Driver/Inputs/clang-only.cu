// Builds with gpumerge's Clang but not with nvcc's host compiler: the flags
// given cannot build the input with nvcc, so nothing can be compared.
#if !defined(__clang__)
#error this file is read by Clang only
#endif
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
