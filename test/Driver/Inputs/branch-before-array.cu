// The first row takes a source value, the others an update from the row
// above: the read of h at row i - 1 sits in the branch row 0 never takes.
#define PITCH 512
__global__ void boundary(int nx, int ny, const float *src, float *e,
                         const float *h, int t) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    if (i == 0)
      e[i * PITCH + j] = src[t];
    else
      e[i * PITCH + j] =
          e[i * PITCH + j] - 0.5f * (h[i * PITCH + j] - h[(i - 1) * PITCH + j]);
  }
}
