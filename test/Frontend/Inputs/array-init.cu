// clang-format off
// Counts in a thread's own arrays, initialized by lists: `{1, 1, 1}` and
// `{0}` (the rest zero), as HeCBench's chi2 writes them.
__global__ void counts(const char *snp, float *out, int rows, int cols) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < cols) {
    int cases[3] = {1, 1, 1};
    float acc[4] = {0};
    for (int m = 0; m < rows; m++) {
      char y = snp[m * cols + tid];
      if (y == '0') { cases[0]++; }
      else if (y == '1') { cases[1]++; }
      else { cases[2]++; }
      acc[m % 4] += 1.0f;
    }
    out[tid] = cases[0] * 1.0f + cases[1] * 2.0f + cases[2] * 3.0f + acc[0] - acc[3];
  }
}

// A const table of coefficients, as HeCBench's goulash writes one: its
// declaration loses const where the list becomes stores (a const array
// cannot be assigned).
__global__ void poly(const double *x, double *y, long n) {
  long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double coef[5] = {1.5, -0.25, 0.125, 2.0e-3, -1.0e-4};
  double s = 0;
  for (int j = 4; j >= 0; j--)
    s = coef[j] + x[i] * s;
  y[i] = s;
}
