// A surface store: one kernel paints a cudaSurfaceObject_t, one scales.
__global__ void paint(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    surf2Dwrite(1.0f, s, x * 4,  y); // spacing kept
}

__global__ void peek(cudaSurfaceObject_t s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = surf1Dread<float>(s, i * 4);
}

__global__ void scale(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f * b[i];
}
