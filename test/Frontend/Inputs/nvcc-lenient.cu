// What nvcc takes with a warning and clang refuses in C++17 by default:
// `register` locals, a narrowing conversion in braces, in a kernel and in
// host code, and a macro right after a string literal. Kept as written
// (clang-format would put a space after the literal):
// clang-format off
#include <cstdio>

#define COUNT "d"

#pragma gpumerge size(n=4096)
__global__ void rowsum(float *out, const float *a, int n) {
  register int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    register float s = 0.0f;
    for (int j = 0; j < n; j++)
      s += a[i * n + j];
    out[i] = s;
  }
}

void launch(float *out, const float *a, int n, double scale) {
  int blocks[1] = {(n + 255) / 256 * scale};
  std::printf("%"COUNT" blocks\n", blocks[0]);
  rowsum<<<blocks[0], 256>>>(out, a, n);
}
