// mm: matrix multiplication C = A * B, C is h x w, A is h x k, B is k x w
// (row-major, flattened). One work-item per element of C: x = column, y = row.
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096, k=4096)
#pragma gpumerge output(c)
__kernel void mm(__global const float *a, __global const float *b,
                 __global float *c, int w, int h, int k) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}
