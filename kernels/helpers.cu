// helpers: naive kernels that read and write their arrays through helpers
// of their own, which gpumerge inlines where they are called: a helper
// returning an element (at), one with a loop over a row it is given a
// pointer to (dot), one with early returns (clamped), results through
// pointers to the caller's variables (minmax), a store through a helper
// (put), a reference parameter (acc), and a thread's own array passed to a
// helper (firstsum).
// launch: block (256), grid (ceil(h/256)) for mvdot, ceil(n/256) for
// spread3, sum4 and ramp; block (16, 16), grid (ceil(n/16), ceil(n/16)) for
// mmat

// The element (i, j) of a matrix of w columns.
__device__ float at(const float *a, int i, int j, int w) {
  return a[i * w + j];
}

// The dot product of n elements of a and b.
__device__ float dot(const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}

// y = A x through a helper: row i of A starts at a + i * w.
#pragma gpumerge size(w=2048, h=2048)
#pragma gpumerge output(y)
__global__ void mvdot(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h)
    y[i] = dot(a + i * w, x, w);
}

// c = a * b, each element read through at().
#pragma gpumerge size(n=1024)
#pragma gpumerge output(c)
__global__ void mmat(const float *a, const float *b, float *c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float s = 0.0f;
    for (int k = 0; k < n; k++)
      s += at(a, row, k, n) * at(b, k, col, n);
    c[row * n + col] = s;
  }
}

// Zero outside [0, n): an early return.
__device__ float clamped(const float *x, int i, int n) {
  if (i < 0)
    return 0.0f;
  if (i >= n)
    return 0.0f;
  return x[i];
}

// Two results through pointers to the caller's variables.
__device__ void minmax(float p, float q, float *lo, float *hi) {
  if (p < q) {
    *lo = p;
    *hi = q;
  } else {
    *lo = q;
    *hi = p;
  }
}

// A store through a helper.
__device__ void put(float *out, int i, float v) { out[i] = v; }

// y[i] = the spread of the three-point neighbourhood of x[i].
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__global__ void spread3(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float lo, hi, s = 0.0f;
    minmax(clamped(x, i - 1, n), clamped(x, i + 1, n), &lo, &hi);
    s = hi - lo;
    float lo2, hi2;
    minmax(x[i], s, &lo2, &hi2);
    put(y, i, hi2 - lo2 + lo);
  }
}

// Accumulates into a reference.
__device__ void acc(float &s, float v) { s += v; }

// y[i] = the sum of the 4 elements x[4i .. 4i+3], through acc.
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__global__ void sum4(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < 4; k++)
      acc(s, x[4 * i + k]);
    acc(y[i], s);
  }
}

// The sum of the first n of a thread's own values.
__device__ float firstsum(const float *t, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += t[k];
  return s;
}

// y[i] = the sum of x[i .. i+3] weighted by 1, 2, 3, 4, kept in a private
// array.
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__global__ void ramp(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 3 < n) {
    float t[4];
    for (int k = 0; k < 4; k++)
      t[k] = (k + 1) * x[i + k];
    y[i] = firstsum(t, 4);
  }
}
