// Each output sums a nest of m * q terms (mixed signs), split across lanes
// along j: the lanes' partial sums reassociate all m * q of them.
#pragma gpumerge size(rows=4096, m=4096, q=4096)
__global__ void nested(const float *a, float *y, int rows, int m, int q) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int j = 0; j < m; j++)
      for (int l = 0; l < q; l++)
        acc += a[(j * q + l) * rows + r] * 3.0f;
    y[r] = y[r] + acc;
  }
}

// An inner loop over the outer iterator: j + 1 terms for each j.
#pragma gpumerge size(rows=4096, m=4096)
__global__ void triangle(const float *a, float *y, int rows, int m) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int j = 0; j < m; j++)
      for (int l = 0; l <= j; l++)
        acc += a[(j * m + l) * rows + r];
    y[r] = acc;
  }
}
