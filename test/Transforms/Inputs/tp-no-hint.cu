// A transpose without `#pragma gpumerge size` and without host code: only
// --size says the sizes it runs at.
__global__ void tpn(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}
