// Loops marked as CUDA code often marks them: a count, no count (whole),
// and 1 (not unrolled). The kernel is optimized like one without them.
#define TAPS 5
#pragma gpumerge size(w = 1024, h = 1024, k = 1024)
__global__ void mmu(const float *a, const float *b, float *c, int w, int h,
                    int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
#pragma unroll 4
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}

#pragma gpumerge size(n = 4096)
__global__ void smooth(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
#pragma unroll
    for (int t = 0; t < TAPS; t++)
      s += in[i + t] * (t + 1);
    float u = 0.0f;
#pragma unroll 1
    for (int t = 0; t < 3; t++)
      u += in[i + t] * in[i + t];
    out[i] = s - u;
  }
}
