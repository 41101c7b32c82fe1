// The read-side transpose: the write is coalesced, the read of in moves by
// h elements between neighbouring threads.
#pragma gpumerge size(w=4096, h=4096)
__global__ void rtp(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = in[x * h + y];
}
