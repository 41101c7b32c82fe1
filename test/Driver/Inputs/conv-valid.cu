// A valid 2-D convolution: the output is (w - f + 1) x (h - f + 1), its
// bounds locals of the kernel.
__global__ void conv_valid(const float *in, const float *filt, float *out,
                           int w, int h, int f) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int ow = w - f + 1;
  int oh = h - f + 1;
  if (x < ow && y < oh) {
    float s = 0.0f;
    for (int i = 0; i < f; i++)
      for (int j = 0; j < f; j++)
        s += in[(y + i) * w + x + j] * filt[i * f + j];
    out[y * ow + x] = s;
  }
}
