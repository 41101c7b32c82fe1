// tmv: transposed matrix-vector multiplication y = A^T * x, A is h x w
// (row-major), x has h elements, y has w. One work-item per output element
// (= per column of A): y[i] = sum_j A[j*w+i] * x[j].
// launch: global (w) rounded up to a multiple of local (256)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__kernel void tmv(__global const float *a, __global const float *x,
                  __global float *y, int w, int h) {
  int i = get_global_id(0);
  if (i < w) {
    float sum = 0.0f;
    for (int j = 0; j != h; ++j)
      sum += a[j * w + i] * x[j];
    y[i] = sum;
  }
}
