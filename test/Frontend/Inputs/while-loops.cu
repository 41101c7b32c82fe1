// A while loop of canonical form (started just before, stepped last) is
// read as a for loop; any other while loop keeps the kernel as written.
__global__ void colsum(int n, const float *a, float *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    int j = 0;
    while (j < n) {
      s += a[j * n + i] * a[i * n + j];
      j++;
    }
    b[i] = s + j;
  }
}
__global__ void notcanon(int n, const float *a, float *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = a[i];
    while (s > 1.0f) {
      s = s * 0.5f;
    }
    b[i] = s;
  }
}
