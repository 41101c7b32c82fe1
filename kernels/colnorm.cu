// colnorm: the norm of column c of an m x n matrix a (row-major), one step of
// a Gram-Schmidt orthogonalization: thread 0 alone sums the column, the
// others do nothing. No `#pragma gpumerge size`: one thread is one thread at
// any size.
// launch: block (256), grid (1)
__global__ void colnorm(const float *a, float *norm, int m, int n, int c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0) {
    float s = 0.0f;
    for (int r = 0; r < m; r++)
      s += a[r * n + c] * a[r * n + c];
    norm[c] = sqrtf(s);
  }
}
