// clang-format off
// Helpers that take pointers or references, inlined where they are called.
#define TWICE(v) ((v) + (v))
const int SCALE = 3;

// An expression helper: its int parameters take unsigned arguments.
__device__ float at(const float *a, int r, int c, int w) {
  return a[r * w + c];
}

// Statements, and a local named like the kernel's own.
__device__ float scaled(const float *a, int i) {
  float s = a[i];
  s *= SCALE;
  return s;
}

#pragma gpumerge size(n=4096)
#pragma gpumerge output(y)
__global__ void rows(const float *a, float *y, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = at(a, i, 0, n) + scaled(a, i);
    y[i] = s;
  }
}

__device__ float rec(const float *a, int i) {
  return i <= 0 ? a[0] : rec(a, i - 1);
}

// keep: refused, so written as it is
__global__ void recursive(const float *a, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = TWICE(rec(a, i));   /* as written */
}

__device__ int find(const int *a, int n, int v) {
  for (int k = 0; k < n; k++)
    if (a[k] == v)
      return k;
  return -1;
}

__global__ void finder(const int *a, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = find(a, n, i);
}

// Returns only: read as `i >= n ? 0.0f : x[i]`, which runs where it is.
__device__ float clamped(const float *x, int i, int n) {
  if (i >= n)
    return 0.0f;
  return x[i];
}

__global__ void shortcut(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && clamped(x, i + 1, n) > 0.0f && scaled(x, i) > 1.0f)
    y[i] = 1.0f;
}

__global__ void choose(const float *a, const float *b, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = at(i % 2 ? a : b, i, 0, n);
}

__global__ void shadow(const float *a, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int SCALE = 2;
  if (i < n)
    y[i] = scaled(a, i) * SCALE;
}

// A helper of returns only reads as one expression: it may stand after &&.
#pragma gpumerge size(n=4096)
#pragma gpumerge output(y)
__global__ void ahead(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && clamped(x, i + 1, n) > 0.0f)
    y[i] = clamped(x, i + 1, n);
}

// A pointer the helper sets into what it is given, which is the kernel's
// own array (this crashed the lowering: an alias of an array, not of a
// pointer).
__device__ float after(float *buf, int k) {
  float *head = &buf[1];
  return head[k];
}

#pragma gpumerge size(n=4096)
#pragma gpumerge output(y)
__global__ void own(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t[3];
    t[0] = x[i];
    t[1] = 2.0f * x[i];
    t[2] = t[1] + 1.0f;
    y[i] = after(t, 1);
  }
}

// A helper that writes through its pointers, given offsets of the thread's
// position (threadIdx.x is a call to Clang: it had refused them as "offset
// by a call"; they cannot change while the helper runs).
__device__ void swap2(float *p, float *q) {
  float t = *p;
  *p = *q;
  *q = t;
}

#pragma gpumerge size(n=4096)
#pragma gpumerge output(y)
__global__ void pairs(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    swap2(y + 2 * i, &y[2 * blockIdx.x * blockDim.x + 2 * threadIdx.x + 1]);
}
