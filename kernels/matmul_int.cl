// matmul_int: integer matrix multiplication C = A * B, C is h x w, A is h x k,
// B is k x w (row-major, int elements; wraps on overflow in practice, so use
// small inputs). One work-item per element of C.
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096, k=4096)
#pragma gpumerge output(c)
__kernel void matmul_int(__global const int *a, __global const int *b,
                         __global int *c, int w, int h, int k) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h) {
    int sum = 0;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}
