// mv: matrix-vector multiplication y = A * x, A is h x w (row-major),
// x has w elements, y has h. One thread per row: y[i] = sum_j A[i*w+j] * x[j].
// launch: block (256), grid (ceil(h/256))
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float sum = 0.0f;
    for (int j = 0; j < w; j++)
      sum += a[i * w + j] * x[j];
    y[i] = sum;
  }
}
