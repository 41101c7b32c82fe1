// A host function that does not compile here (a helper of the user's build
// we do not see): the kernels are still processed; a kernel it names gets no
// launch plan (its launches there cannot all be seen).
#include <cuda_runtime.h>

__global__ void scale(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2.0f;
}

__global__ void mv(const float *a, const float *x, float *y, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) {
    float s = 0.0f;
    for (int j = 0; j < w; j++)
      s += a[i * w + j] * x[j];
    y[i] = s;
  }
}

void broken(float *v, int n) {
  scale<<<(n + 255) / 256, 256>>>(v, n);
  helperFromElsewhere(v);
}

void fine(const float *a, const float *x, float *y, int w, int h) {
  mv<<<(h + 255) / 256, 256>>>(a, x, y, w, h);
}
