// A loop of 5 iterations: tiling it by 32 would need 5 % 32 == 0.
__global__ void s5(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int j = 0; j < 5; j++)
      s += a[j] * b[i];
    b[i] = s;
  }
}
