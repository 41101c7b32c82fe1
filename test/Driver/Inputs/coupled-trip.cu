// The domain n in whole tiles and the j loop's n - 1 iterations in whole
// tiles of 32: n % 256 == 0 and (n - 1) % 32 == 0 never hold together.
__global__ void s1(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int j = 1; j < n; j++)
      s += a[j] * b[i];
    b[i] = s;
  }
}
