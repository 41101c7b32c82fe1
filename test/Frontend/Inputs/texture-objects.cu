// A texture object read with its element type written, beside a plain
// array: tex2D<float> deduces nothing from its arguments, so the rewritten
// kernel must keep both the <float> and the cudaTextureObject_t.
#include <cuda_runtime.h>

__global__ void weigh(cudaTextureObject_t tex, const float *b, float *out,
                      int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2D<float>(tex, x, y) * b[x * h + y];
}
