// Two kernels in one file: `odd` calls a CUDA intrinsic that gpumerge's
// OpenCL translation has no spelling for, so its reference cannot build on
// PoCL; `scale` needs nothing from it.
__global__ void scale(float *y, const float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = s * x[i];
}

__global__ void odd(unsigned *y, const unsigned *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __funnelshift_l(x[i], 1u, 3);
}
