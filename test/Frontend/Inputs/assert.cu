// clang-format off
// CUDA's device-side assert: kept in every kernel printed from the input
// (each merged copy checks its own), left out of an OpenCL translation.
#include <cassert>

__global__ void checked(int n, int m, const float *a, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    assert(m > 0);
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += a[i * m + j];
    assert(s == s); // not NaN
    y[i] = s;
  }
}
