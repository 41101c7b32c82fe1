// A scatter: each thread writes where idx says. Where idx holds one value
// twice, two threads write one element and which of them wins depends on
// the order they run in; the optimized kernel's order is not the input's.
__global__ void scatter2d(const int *idx, const float *v, float *out, int w,
                          int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[idx[x * h + y]] = v[x * h + y];
}
