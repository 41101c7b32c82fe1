// clang-format off
// The compound assignments KIR writes out: %=, <<=, >>=, &=, |=, ^=.
__global__ void bits(int n, int m, const unsigned *x, unsigned *y, int *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned v = x[i];
    v <<= 2;
    v ^= x[i] >> 3;
    v |= 1u;
    v &= 0xffffu;
    y[i] = v;
    y[i] >>= 1;
    int r = i;
    r %= m;
    z[i] = r + 1;
    z[i] %= 7;
  }
}
