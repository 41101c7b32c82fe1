// strsm: triangular solve with multiple right-hand sides, L * X = B.
// L is n x n lower triangular (row-major, non-unit diagonal), B is n x m and
// is overwritten by X. One work-item per column x of B, forward substitution
// over the rows in order; the inner loop bound is the outer iterator.
// launch: global (m) rounded up to a multiple of local (256)
#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(b)
__kernel void strsm(__global const float *l, __global float *b, int n, int m) {
  int x = get_global_id(0);
  if (x < m) {
    for (int i = 0; i < n; i++) {
      float sum = b[i * m + x];
      for (int j = 0; j < i; j++)
        sum -= l[i * n + j] * b[j * m + x];
      b[i * m + x] = sum / l[i * n + i];
    }
  }
}
