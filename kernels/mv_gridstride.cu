// mv_gridstride: y = A * x as mv.cu computes it, A h x w (row-major), with
// the rows walked by a grid-stride loop: any grid computes every row, each
// thread taking rows i, i + gridDim.x * blockDim.x, ... The stride is named
// once before the loop, as much CUDA code writes it.
// launch: block (256), grid (132), sized for the device, not the data
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__global__ void mv_gridstride(const float *a, const float *x, float *y, int w,
                              int h) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < h; i += stride) {
    float sum = 0.0f;
    for (int j = 0; j < w; j++)
      sum += a[i * w + j] * x[j];
    y[i] = sum;
  }
}
