// Sparse matrix-vector product in CSR form, one thread per row: each row's
// loop runs from rowDelimiters[row] to rowDelimiters[row + 1].
__global__ void spmv_csr(const float *val, const int *cols,
                         const int *rowDelimiters, const float *x, int dim,
                         float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < dim) {
    float t = 0.0f;
    int start = rowDelimiters[row];
    int end = rowDelimiters[row + 1];
    for (int j = start; j < end; j++)
      t += val[j] * x[cols[j]];
    out[row] = t;
  }
}
