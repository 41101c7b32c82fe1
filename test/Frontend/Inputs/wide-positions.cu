// Kernels that compute their positions and indices in 64 bits, as code for
// arrays past 2^32 elements does.

// Each way of converting part of the position: the product's factors to 64
// bits (i, j) or to 32 (p) is the position; the product or the thread index
// converted alone (k, m) wraps the product at 2^32 first, and is not.
__global__ void forms(float *a, const float *b, int n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  long j = blockDim.x * (long)blockIdx.x + (int)threadIdx.x;
  size_t k = (size_t)(blockIdx.x * blockDim.x) + threadIdx.x;
  size_t m = blockIdx.x * blockDim.x + (size_t)threadIdx.x;
  unsigned p = (int)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[j] + b[k] + b[m] + b[p];
}

#pragma gpumerge size(w=4096, h=4096)
__global__ void mm(const float *a, const float *b, float *c, int w, int h) {
  size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    float s = 0.0f;
    for (int k = 0; k < w; k++)
      s += a[row * w + k] * b[k * (size_t)w + col];
    c[row * w + col] = s;
  }
}

// A signed position.
__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

// The positions in 32 bits, widened: the products are 64-bit all the same.
#pragma gpumerge size(w=4096, h=4096)
__global__ void tp(const float *in, float *out, int w, int h) {
  size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  size_t y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

__global__ void tmv(const float *a, const float *x, float *y, int w, int h) {
  unsigned long long i =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < w) {
    float s = 0.0f;
    for (int j = 0; j < h; j++)
      s += a[j * (unsigned long long)w + i] * x[j];
    y[i] = s;
  }
}

// A stencil: its halo tile's row starts and bounds in 64 bits too.
__global__ void jacobi(const float *in, float *out, int w, int h) {
  size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
    out[y * w + x] = 0.2f * (in[y * w + x] + in[(y - 1) * w + x] +
                             in[(y + 1) * w + x] + in[y * w + x - 1] +
                             in[y * w + x + 1]);
}
