// idioms: naive kernels written with what code by others uses, which
// gpumerge reads as the plain accesses they stand for: a pointer to a row
// (`row = a + i * w`) and to an output element, assert, __ldg, a compound
// store (`y[i] += ...`), the compound operators %= and <<=, and sizes and
// coefficients named by file-scope constants; an unguarded kernel whose
// arrays are __restrict__; a grid-stride loop written C89 style; a thread's
// own array initialized by a list.
// launch: block (256), grid (ceil(h/256)) for rownorm, ceil(n/256) for the
// others; triad's launch is its domain
#include <cassert>

const int TAPS = 5;
constexpr float kWeight = 0.2f;

// y[i] = sum_j a[i*w+j]^2: the squared norm of row i of the h x w matrix a.
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__global__ void rownorm(const float *a, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    assert(w > 0);
    const float *row = a + i * w;
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += row[j] * row[j];
    float *out = y + i;
    *out = s;
  }
}

// y[i] += alpha * x[i], x read through the read-only data cache.
#pragma gpumerge size(n=16777216)
#pragma gpumerge output(y)
__global__ void axpy_ldg(const float *x, float *y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += alpha * __ldg(&x[i]);
}

// y[i] = ((x[i] mod m) << 1) for ints, m > 0.
#pragma gpumerge size(n=16777216, m=7)
#pragma gpumerge output(y)
__global__ void wrap(const int *x, int *y, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = x[i];
    v %= m;
    v <<= 1;
    y[i] = v;
  }
}

// y[i] = the mean of the TAPS values x[i*TAPS .. i*TAPS + TAPS-1]: the trip
// and the weight are file-scope constants.
#pragma gpumerge size(n=4194304)
#pragma gpumerge output(y)
__global__ void window(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
      s += x[i * TAPS + k];
    y[i] = kWeight * s;
  }
}

// STREAM's triad as benchmarks write it: no guard (the launch is the
// domain, a multiple of the block) and the arrays __restrict__.
#pragma gpumerge output(c)
__global__ void triad(const float *__restrict__ a, const float *__restrict__ b,
                      float *__restrict__ c, float s) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  c[i] = a[i] + s * b[i];
}

// p[i] += v[i] * dt over a grid-stride loop written C89 style: the position,
// the stride and dp declared first, dp set before anything reads it in
// each iteration (so each stands alone).
#pragma gpumerge size(n=16777216)
#pragma gpumerge output(p)
__global__ void drift(int n, float dt, float *__restrict__ p,
                      const float *__restrict__ v) {
  int i, stride;
  float dp;
  stride = blockDim.x * gridDim.x;
  for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    dp = v[i] * dt;
    p[i] = p[i] + dp;
  }
}

// y[i] = (x[i] ^ key[3]) | (1 + (x[i] ^ key[5])) through a thread's own
// array initialized by a list: every thread reads key[3] and key[5], which
// thread merge shares, and each merged copy has its own array.
#pragma gpumerge size(n=16777216)
#pragma gpumerge output(y)
__global__ void mix(const unsigned *x, const unsigned *key, unsigned *y,
                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned state[2] = {0u, 1u};
    state[0] = x[i] ^ key[3];
    state[1] = state[1] + (x[i] ^ key[5]);
    y[i] = state[0] | state[1];
  }
}
