// A transpose that reads across rows (tmp[x*h + y]) and writes along them:
// no pass tiles it, yet neighbouring blocks read one partition on gtx285.
#pragma gpumerge size(w=4096, h=4096)
__global__ void tpr(const float *tmp, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tmp[x * h + y] * 2.0f;
}
