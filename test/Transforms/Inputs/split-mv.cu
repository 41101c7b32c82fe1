// Row sums of a row-major matrix: the loop reads along the row.
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__global__ void rowdot(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float sum = 0.0f;
    for (int j = 0; j < w; j++)
      sum += a[i * w + j] * x[j];
    y[i] = sum; // the epilogue, run by lane 0
  }
}
