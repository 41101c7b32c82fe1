// clang-format off
// Indices that are not affine: a substitution table read at an unsigned
// char (256 entries), a ring read modulo its size, and a gather through an
// int array, which nothing bounds.
__global__ void substitute(unsigned char *y, const unsigned char *x,
                           const unsigned char *sbox, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sbox[x[i]] ^ sbox[(x[i] >> 4) & 0x7];
}

__global__ void ring(float *y, const float *x, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < k; j++)
      s += x[(i + j) % n];
    y[i] = s;
  }
}

__global__ void gather(float *y, const int *idx, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[idx[i]];
}
