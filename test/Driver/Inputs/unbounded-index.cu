// Indices no range analysis bounds, which verify measures (ExtentProbe.h).

// mm whose B rows mirror at the end: tiled, B's size from a probe run.
__global__ void mirrored(const float *a, const float *b, float *c, int w,
                         int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.0f;
    for (int i = 0; i < k; i++) {
      int r = i;
      if (r >= k - 2)
        r = 2 * (k - 2) - r;
      s += a[y * k + i] * b[r * w + x];
    }
    c[y * w + x] = s;
  }
}

// A square index: past the probe's first guess of a size, so measured
// again with the larger one.
__global__ void squared(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i * i * 16] + 1.0f;
}

// Reads before its array at the first row: the input itself is out of
// bounds, which no size mends.
__global__ void before(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int xx = x - 1;
    if (xx > w - 1)
      xx = w - 1;
    out[y * w + x] = in[y * w + xx];
  }
}

// Compressed rows: the loop's range and the gather's index come from the
// data, which verify draws from 0 for arrays whose values index others.
__global__ void spmv(const int *rows, const int *cols, const float *vals,
                     const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = rows[i]; j < rows[i + 1]; j++)
      s += vals[j] * x[cols[j]];
    y[i] = s;
  }
}
