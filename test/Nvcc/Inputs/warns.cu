// A kernel gpumerge optimizes (mm's shape), then a #warning the rewrite must
// report at this file's own line 16, however many lines the rewrite added.
__global__ void mm(const float *a, const float *b, float *c, int w, int h,
                   int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}

void host() {}
#warning "line sixteen of warns.cu"
