// Kernels calling functions of the user's declared in namespaces: one from
// a header (HeCBench's logic-rewrite calls dUtils::TruthWordNum so), one
// from this file.
#include "namespaced-calls.h"

namespace local {
__device__ float cube(float x) { return x * x * x; }
} // namespace local

__global__ void ranges(const int *sizes, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = util::words(sizes[i]);
}

__global__ void cubes(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = local::cube(x[i]) + 1.0f;
}
