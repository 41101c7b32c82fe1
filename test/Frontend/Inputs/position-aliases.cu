// Positions spelled with locals that name the built-ins, as much code
// written from the CUDA samples does.
#define BLOCK 16

__global__ void mm(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int bx = blockIdx.x, by = blockIdx.y;
  int row = by * BLOCK + ty;
  int col = bx * BLOCK + tx;
  if (row < h && col < w) {
    float s = 0.0f;
    for (int k = 0; k < w; k++)
      s += a[row * w + k] * b[k * w + col];
    c[row * w + col] = s;
  }
}

__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  const unsigned tid = threadIdx.x;
  const unsigned bid = blockIdx.x;
  const unsigned bdim = blockDim.x;
  unsigned i = bid * bdim + tid;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

// A 64-bit alias of a factor: the position in 64 bits.
__global__ void scale(const float *a, float *b, int n) {
  long bx = blockIdx.x;
  long i = bx * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = 2.0f * a[i];
}

// tx read again stays; b, assigned, is no alias; t, a 64-bit alias of the
// thread index alone, would wrap the product at 2^32 first.
__global__ void kept(float *a, const float *x, int n) {
  int tx = threadIdx.x;
  int b = blockIdx.x;
  b = b + 0;
  long t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tx;
  int j = b * blockDim.x + threadIdx.x;
  long k = blockIdx.x * blockDim.x + t;
  if (i < n)
    a[i] = x[i] + x[j] + x[k] + tx;
}
