// A __shared__ cuda::barrier (nvcc: a warning about its dynamic
// initialization; Clang: an error).
#include <cooperative_groups.h>
#include <cuda/barrier>

__global__ void staged(float *a, int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] *=  3.0f;
  bar.arrive_and_wait();
}

__global__ void scale(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f * b[i];
}
