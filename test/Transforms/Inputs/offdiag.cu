// clang-format off
// An outer product that leaves out its diagonal: the guard's x != y is not
// convex in the positions, so the branch for whole groups tests every copy.
// b is read only but not declared const: it is printed __restrict__ too.
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(c)
__global__ void offdiag(const float *a, float *b, float *c, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h && x != y)
    c[y * w + x] = a[y] * b[x];
}
