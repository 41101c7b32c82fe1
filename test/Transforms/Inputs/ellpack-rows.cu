// Sparse matrix-vector products in ELLPACK form: column-major val and cols,
// so each thread's row reads neighbouring elements across the warp.
// ellpack_rows runs a loop of its own length per thread; ellpack_fixed, one
// of a common length.
__global__ void ellpack_rows(const float *val, const int *cols,
                             const int *lengths, const float *x, float *out,
                             int dim) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < dim) {
    float result = 0.0f;
    int max = lengths[t];
    for (int i = 0; i < max; i++) {
      int ind = i * dim + t;
      result += val[ind] * x[cols[ind]];
    }
    out[t] = result;
  }
}

__global__ void ellpack_fixed(const float *val, const int *cols,
                              const float *x, float *out, int dim, int nnz) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < dim) {
    float result = 0.0f;
    for (int i = 0; i < nnz; i++)
      result += val[i * dim + t] * x[cols[i * dim + t]];
    out[t] = result;
  }
}
