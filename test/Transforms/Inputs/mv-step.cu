// mv with a loop-invariant step s: the loop is not tiled (tiles need step 1),
// merged threads keep it as it is.
#pragma gpumerge size(w=4096, h=4096, s=1)
__global__ void mvs(const float *a, const float *b, float *c, int w, int h, int s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float sum = 0.0f;
    for (int j = 0; j < w; j += s)
      sum += a[i * w + j] * b[j];
    c[i] = sum;
  }
}
