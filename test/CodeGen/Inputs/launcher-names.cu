// What a launcher must name as the input does: a kernel whose array has the
// kernel's own name (HeCBench's zeropoint), and arrays of signed char,
// which char * does not convert to (HeCBench's ising).
__global__ void offset(const float *x, float *offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    offset[i] = x[i] + 1.0f;
}

__global__ void flip(const signed char *in, signed char *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    signed char v = in[i];
    out[i] = -v;
  }
}
