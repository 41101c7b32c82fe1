// clang-format off
// What a file written for nvcc 13 counts on: the CCCL headers under
// include/cccl, nvcc's version macros, the host compiler's omp.h, min and
// max in host code, the sm_80 warp reductions behind cooperative groups,
// and a header of its own with host code Clang does not take.
#include "harness.h"
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda/std/type_traits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <omp.h>

#if !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 12
#error "nvcc 12 or newer defines __CUDACC_VER_MAJOR__"
#endif

namespace cg = cooperative_groups;

// Cooperative groups: passed through as written.
__global__ void warp_sum(const int *in, int *out, int n) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int s = cg::reduce(warp, v, cg::plus<int>());
  if (warp.thread_rank() == 0)
    atomicAdd(out, s);
}

// A naive kernel: optimized.
__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

int main() {
  const int w = 1000, h = 1003;
  static_assert(cuda::std::is_same<float, float>::value, "libcu++");
  double t0 = omp_get_wtime();
  float *a, *x, *y;
  cudaMalloc(&a, sizeof(float) * w * h);
  cudaMalloc(&x, sizeof(float) * w);
  cudaMalloc(&y, sizeof(float) * h);
  int blocks = max(1, min((h + 255) / 256, 65535));
  mv<<<blocks, 256>>>(a, x, y, w, h);
  float host[4] = {0, 1, 2, 3};
  printf("%d bad, %.3f s\n", count_bad(y, host, 4), omp_get_wtime() - t0);
  return 0;
}
