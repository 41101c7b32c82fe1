// mv: matrix-vector multiplication y = A * x, A is h x w (row-major),
// x has w elements, y has h. One work-item per row: y[i] = sum_j A[i*w+j] *
// x[j]. launch: global (h) rounded up to a multiple of local (256)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__kernel void mv(__global const float *a, __global const float *x,
                 __global float *y, int w, int h) {
  int i = get_global_id(0);
  if (i < h) {
    float sum = 0.0f;
    for (int j = 0; j < w; j++)
      sum += a[i * w + j] * x[j];
    y[i] = sum;
  }
}
