// Calls of member functions: each lost its object as a call of its name
// (`cg::this_thread_block().thread_rank()` came out `thread_rank()`, which
// nvcc did not compile, and thread merge copied it into every merged copy).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

struct Offset {
  float v;
  __device__ float get() const { return v; }
  static __device__ float unit() { return 1.0f; }
};

struct Vec2 {
  float x, y;
  __device__ Vec2 operator+(const Vec2 &o) const { return {x + o.x, y + o.y}; }
};

__device__ float4 operator*(float4 a, float s) {
  return make_float4(a.x * s, a.y * s, a.z * s, a.w * s);
}

__global__ void ranked(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + cg::this_thread_block().thread_rank();
}

__global__ void shifted(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + Offset{2.0f}.get();
}

__global__ void unitShifted(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + Offset::unit();
}

// A free operator of the user's stays a call that CUDA compiles.
__global__ void scaled4(const float4 *a, float4 *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] * 2.0f;
}

// Nothing member-like: optimized.
__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

int main() { return 0; }
