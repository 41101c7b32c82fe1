// PolyBench-style 2-D convolution: coefficients assigned after their
// declarations, the row stride a macro, the guard's bounds in any order.
#define NJ 203
__global__ void conv(int ni, float *A, float *B) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  float c11, c12, c21;
  c11 = +0.2f; c12 = -0.3f; c21 = 0.5f;
  if ((i < ni - 1) && (j < NJ - 1) && (i > 0) && (j > 0)) {
    B[i * NJ + j] = c11 * A[(i - 1) * NJ + (j - 1)] + c21 * A[(i - 1) * NJ + (j + 0)] +
                    c12 * A[(i + 1) * NJ + (j + 1)] + A[i * NJ + j];
  }
}
