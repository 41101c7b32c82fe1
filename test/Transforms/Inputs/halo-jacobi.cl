// 5-point Jacobi step over the interior of an n x m grid (row stride m).
__kernel void jacobi(__global const float *a, __global float *b, int n, int m) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i > 0 && i < n - 1 && j > 0 && j < m - 1)
    b[i * m + j] = 0.2f * (a[i * m + j] + a[(i - 1) * m + j] + a[(i + 1) * m + j] +
                           a[i * m + j - 1] + a[i * m + j + 1]);
}
