// mv declared before the host code that launches it and defined after:
// the optimized texture kernel (another signature in the object form)
// must not clash with the prototype, and the launch goes through the
// launcher, which is declared at the prototype.
#include <cstdio>
__global__ void mv(const float *a, const float *x, float *y, int w, int h);

void run(const float *a, const float *x, float *y, int w, int h) {
  mv<<<(h + 255) / 256, 256>>>(a, x, y, w, h);
}

__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float sum = 0.0f;
    for (int j = 0; j < w; j++)
      sum += a[i * w + j] * x[j];
    y[i] = sum;
  }
}
int main() { return 0; }
