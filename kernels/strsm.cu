// strsm: triangular solve with multiple right-hand sides, L * X = B.
// L is n x n lower triangular (row-major, non-unit diagonal), B is n x m and
// is overwritten by X. One thread per column x of B, forward substitution
// over the rows in order; the inner loop bound is the outer iterator.
// launch: block (256), grid (ceil(m/256))
#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(b)
__global__ void strsm(const float *l, float *b, int n, int m) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < m) {
    for (int i = 0; i < n; i++) {
      float sum = b[i * m + x];
      for (int j = 0; j < i; j++)
        sum -= l[i * n + j] * b[j * m + x];
      b[i * m + x] = sum / l[i * n + i];
    }
  }
}
