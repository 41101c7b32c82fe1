// clang-format off
// Pointers into array parameters (a row, an output element): read as the
// elements they reach. Those that move, or whose offset changes or is read
// from an array the kernel writes, are refused with why.
__global__ void rowsum(int n, int m, const float *a, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float *row = a + i * m; // this row
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += row[j];
    float *out = y + i;
    *out = s;
  }
}

__global__ void scaled_rows(int n, int c, const float *inp, float *out, const float *w) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    const float *x = inp + r * c;
    float *o = &out[r * c];
    for (int k = 0; k < c; k++) {
      const float *wk = w + k;
      o[k] = x[k] * wk[0] + *(x + k);
    }
  }
}

__global__ void moved(int n, const float *a, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float *p = a + i;
    p++;
    y[i] = *p;
  }
}

__global__ void changing(int n, const float *a, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  const float *p = a + k;
  k = i;
  if (i < n)
    y[i] = p[i];
}

__global__ void indirect(int n, int *idx, const float *a, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float *p = a + idx[i];
    idx[i] = 0;
    y[i] = p[0];
  }
}
