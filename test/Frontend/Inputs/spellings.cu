// Kernels whose spellings must survive: macros and typedefs from a header,
// unsigned and hexadecimal literals, comments.
#include "poly.h"

/* y = A x over rows of NX columns */
__global__ void mvk(const DATA_TYPE *a, const DATA_TYPE *x, DATA_TYPE *y,
                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    DATA_TYPE s = 0;
    for (int j = 0; j < NX; j++) // NX columns
      s += a[i * NX + j] * x[j];
    y[i] = s;
  }
}

// Counts, per row, the elements e with e - 8 < 5U: unsigned, so the
// negative differences wrap and do not count.
__global__ void count(const int *a, unsigned *c, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    unsigned s = 0x0u;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] - 8 < 5U ? 1U : 0U;
    c[i] = s & 0xFFFFFFFFu;
  }
}
