// Batch test input: y = a*x + b*y, one element per thread.
__global__ void axpby(float *y, const float *x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + b * y[i];
}
