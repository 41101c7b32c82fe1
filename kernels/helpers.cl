// helpers (OpenCL): kernels that read and write their arrays through
// helpers of their own, which gpumerge inlines where they are called; the
// kernels of helpers.cu, sum4 through pointers where helpers.cu takes a
// reference.
// launch: local (256), global ceil(h/256)*256 for mvdot, ceil(n/256)*256
// for spread3, ramp and sum4; local (16, 16), global ceil(n/16)*16 in both
// dimensions for mmat

float at(__global const float *a, int i, int j, int w) {
  return a[i * w + j];
}

float dot(__global const float *a, __global const float *b, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}

#pragma gpumerge size(w=2048, h=2048)
#pragma gpumerge output(y)
__kernel void mvdot(__global const float *a, __global const float *x,
                    __global float *y, int w, int h) {
  int i = get_global_id(0);
  if (i < h)
    y[i] = dot(a + i * w, x, w);
}

#pragma gpumerge size(n=1024)
#pragma gpumerge output(c)
__kernel void mmat(__global const float *a, __global const float *b,
                   __global float *c, int n) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  if (row < n && col < n) {
    float s = 0.0f;
    for (int k = 0; k < n; k++)
      s += at(a, row, k, n) * at(b, k, col, n);
    c[row * n + col] = s;
  }
}

float clamped(__global const float *x, int i, int n) {
  if (i < 0)
    return 0.0f;
  if (i >= n)
    return 0.0f;
  return x[i];
}

void minmax(float p, float q, float *lo, float *hi) {
  if (p < q) {
    *lo = p;
    *hi = q;
  } else {
    *lo = q;
    *hi = p;
  }
}

void put(__global float *out, int i, float v) { out[i] = v; }

#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__kernel void spread3(__global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float lo, hi, s = 0.0f;
    minmax(clamped(x, i - 1, n), clamped(x, i + 1, n), &lo, &hi);
    s = hi - lo;
    float lo2, hi2;
    minmax(x[i], s, &lo2, &hi2);
    put(y, i, hi2 - lo2 + lo);
  }
}

// The sum of the first n of a thread's own values.
float firstsum(const float *t, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += t[k];
  return s;
}

// y[i] = the sum of x[i .. i+3] weighted by 1, 2, 3, 4, kept in a private
// array.
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__kernel void ramp(__global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i + 3 < n) {
    float t[4];
    for (int k = 0; k < 4; k++)
      t[k] = (k + 1) * x[i + k];
    y[i] = firstsum(t, 4);
  }
}

// Accumulates into what s points at: a thread's own variable, or an output
// element (OpenCL C has no references: helpers.cu's acc takes one).
void acc(float *s, float v) { *s += v; }
void acc_global(__global float *s, float v) { *s += v; }

// y[i] += the sum of the 4 elements x[4i .. 4i+3], through acc.
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__kernel void sum4(__global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < 4; k++)
      acc(&s, x[4 * i + k]);
    acc_global(&y[i], s);
  }
}
