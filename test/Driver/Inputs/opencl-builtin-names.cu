// CUDA kernels named like OpenCL built-in functions (step, dot): verify runs
// them under other names in its OpenCL translation.
__global__ void step(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] > 0.0f ? 1.0f : 0.0f;
}
__global__ void dot(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}
