// The domain, 100 threads, must hold a whole tile of 256.
__global__ void s1(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 100) {
    float s = 0;
    for (int j = 1; j < n; j++)
      s += a[j] * b[i];
    b[i] = s;
  }
}
