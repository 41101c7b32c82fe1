// What the OpenCL translation of a CUDA file missed (HeCBench's cfd,
// langevin and vmc): each kernel here built in CUDA, and verify skipped it
// because its translation did not build on PoCL.

// A typedef of an anonymous struct, which no kernel gpumerge lowers can use.
typedef struct {
  float x, y, z;
} Float3;

__device__ float norm2(const Float3 v) { return v.x * v.x + v.y * v.y; }

__global__ void lengths(const Float3 *v, float *n, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    n[i] = norm2(v[i]);
}

__global__ void fill(float *d, float val, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    d[i] = val;
}

// CUDA's float hyperbolic functions: OpenCL's overloaded cosh and sinh.
__global__ void langevin(const float *x, float *y, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    y[i] = coshf(x[i]) / sinhf(x[i] + 2.0f) + cbrtf(x[i]) + erff(x[i]);
}

// C++ overloads of one helper; only the second calls another helper, which
// verify's program of decay must hold too.
__device__ double halved(double x) { return 0.5 * x; }
__device__ __forceinline__ float EXP(float x) { return expf(x); }
__device__ __forceinline__ double EXP(double x) { return exp(halved(x)); }

__global__ void decay(const float *x, const double *u, float *y, double *v,
                      int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    y[i] = EXP(-x[i]);
    v[i] = EXP(-u[i]);
  }
}

// CUDA's integer intrinsics that OpenCL C has by another name.
__global__ void bits(const unsigned *a, const unsigned *b, int *c,
                     unsigned *d, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    c[i] = __popc(a[i]) - __popc(b[i]) + __clz(a[i] >> 3);
    d[i] = __umulhi(a[i], b[i]) + __uhadd(a[i], b[i]) + __urhadd(a[i], 7u);
  }
}

// CUDA's SIMD intrinsics (HeCBench's Relu_impl2 calls __vmaxs4): bytes and
// halfwords of a word, defined by the translation as gpumerge_vmaxs4 & co.
__global__ void relu4(const unsigned *x, unsigned *y, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    y[i] = __vmaxs4(x[i], 0u);
}

__global__ void sad(const unsigned *a, const unsigned *b, unsigned *d, int w,
                    int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    unsigned s = 0;
    for (int j = 0; j < w; j++)
      s += __vsadu4(a[i * w + j], b[j]) + __vsetgts2(a[i * w + j], b[j]);
    d[i] = s;
  }
}
