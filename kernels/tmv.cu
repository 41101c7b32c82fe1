// tmv: transposed matrix-vector multiplication y = A^T * x, A is h x w
// (row-major), x has h elements, y has w. One thread per output element
// (= per column of A): y[i] = sum_j A[j*w+i] * x[j].
// launch: block (256), grid (ceil(w/256))
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__global__ void tmv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < w) {
    float sum = 0.0f;
    for (int j = 0; j != h; ++j)
      sum += a[j * w + i] * x[j];
    y[i] = sum;
  }
}
