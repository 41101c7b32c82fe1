// Cases for the vectorize pass (test/Transforms/vectorize.test).

// pairs at 2*i+1, 2*i+2: neighbours, but the first is odd: not combined.
#pragma gpumerge size(n=4096)
__global__ void odd_pair(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[2 * i + 1] + in[2 * i + 2];
}

// Swaps each pair: the second value is read before the first store, so the
// combined store may only run when in and out do not overlap.
#pragma gpumerge size(n=4096)
__global__ void swap_pairs(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[2 * i] = in[2 * i + 1];
    out[2 * i + 1] = in[2 * i];
  }
}

// Four neighbours from rows of stride w (q quads used per row): aligned pairs
// only where w is even, which the launch checks; doubles make 16-byte
// vectors.
#pragma gpumerge size(q=1024, w=4096, h=4096)
__global__ void row_quads(const double *in, double *out, int q, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < q && y < h)
    out[y * w + 4 * x] = in[y * w + 4 * x] * in[y * w + 4 * x + 1] -
                         in[y * w + 4 * x + 2] * in[y * w + 4 * x + 3];
}
