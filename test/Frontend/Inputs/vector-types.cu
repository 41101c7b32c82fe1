// clang-format off
// CUDA's vector types as values (kernels/nbody.cu has float4 particles):
// float2 complex numbers, uchar4 pixels, a float4 weight passed by value,
// double2 built from an initializer list, stores to single components
// (y[i].x = re, z.y = -v.x), 3-vectors.
typedef float2 cplx;
typedef float3 point3;

// Complex matrix-vector product, one thread per row.
__global__ void zmv(const cplx *a, const cplx *x, cplx *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float re = 0.0f, im = 0.0f;
    for (int j = 0; j < w; j++) {
      cplx p = a[i * w + j];
      cplx q = x[j];
      re += p.x * q.x - p.y * q.y;
      im += p.x * q.y + p.y * q.x;
    }
    y[i].x = re;
    y[i].y = im;
  }
}

// Transpose of complex numbers, each multiplied by -i.
__global__ void tp_rot(const float2 *a, float2 *b, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float2 v = a[y * w + x];
    float2 z;
    z.x = v.y;
    z.y = -v.x;
    b[x * h + y] = z;
  }
}

__global__ void gray(const uchar4 *img, float *out, float4 wt, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    uchar4 p = img[y * w + x];
    out[y * w + x] = wt.x * p.x + wt.y * p.y + wt.z * p.z + wt.w * p.w;
  }
}

__global__ void scale2(double2 *v, const int *k, double s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double2 t = {v[i].x * s, 0.0};
    float2 u = {k[i] * 0.5f};
    int2 d = make_int2(k[i], 2 * k[i]);
    float2 e{};
    t.y = v[i].y * s + u.x + d.y - e.y;
    t.y += 1.0;
    v[i] = t;
    v[i].x++;
  }
}

// 3-vectors: 12 bytes in CUDA, a struct in the OpenCL translation (OpenCL's
// float3 takes 16).
__global__ void norm3(const point3 *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i].x + a[i].y + a[i].z;
}

// A transpose of RGB pixels that swaps red and blue.
__global__ void bgr_tp(const uchar3 *img, uchar3 *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    uchar3 p = img[y * w + x];
    out[x * h + y] = make_uchar3(p.z, p.y, p.x);
  }
}
