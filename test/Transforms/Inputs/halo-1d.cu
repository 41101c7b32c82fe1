// 1-D stencils: an asymmetric reach (i - 1 .. i + 2) in a block the
// positions assume (128 threads), and an in-place update, whose array is
// written and so stays in global memory.
__global__ void smooth(int n, const float *A, float *B) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i > 1 && i < n - 2)
    B[i] = 0.25f * (A[i - 1] + A[i] + A[i + 1] + A[i + 2]);
}
__global__ void inplace(int n, float *A) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    A[i] = A[i - 1] + A[i + 1];
}
