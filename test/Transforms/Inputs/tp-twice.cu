// Two transposes with a global barrier between them: out = 2 * in, through
// tmp = in transposed. Each phase writes or reads tmp across the rows, so
// each gets its own optimized kernel, plan and launcher.
#pragma gpumerge size(w=4096, h=4096)
__global__ void tp_twice(const float *in, float *tmp, float *out, int w,
                         int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    tmp[x * h + y] = in[y * w + x];
  gpumerge_global_sync();
  if (x < w && y < h)
    out[y * w + x] = tmp[x * h + y] * 2.0f;
}
