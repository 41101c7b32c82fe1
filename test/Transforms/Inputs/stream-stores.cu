// Merged threads whose stores must combine too (vectorize.test). planes:
// each pixel's three values come out of branches, so only whole tiles put
// the copies' stores side by side (float4 each, an edge kernel for the
// rest). marks: a store under a data-dependent condition stays scalar in
// every merged form, 4 elements from its neighbour's: no merge.
#pragma gpumerge size(w=1000, h=37)
#pragma gpumerge output(p, q)
__global__ void planes(const float *src, float *p, float *q, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float pv, qv;
    if (x > 0 && x < w - 1) {
      pv = 0.5f * (src[y * w + x - 1] + src[y * w + x + 1]);
      qv = src[y * w + x] - pv;
    } else {
      pv = src[y * w + x];
      qv = 0.0f;
    }
    p[y * w + x] = pv;
    q[y * w + x] = qv;
  }
}

#pragma gpumerge size(n=4099)
#pragma gpumerge output(m)
__global__ void marks(const float *v, float *m, float t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = v[i];
    if (a > t)
      m[i] = a - t;
  }
}

// Compound stores (`y[i] += ...`): written out on the merge's copy, the
// copies' reads of y and their stores combine (one float4 each); the
// operand keeps its parentheses.
#pragma gpumerge size(n=4099)
#pragma gpumerge output(y)
__global__ void accumulate(const float *x, const float *z, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] -= x[i] + z[i];
}
