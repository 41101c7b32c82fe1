// tp: matrix transpose, in is h x w (row-major), out is w x h:
// out[x*h + y] = in[y*w + x]. One thread per element (x = column of in).
// launch: block (16,16), grid (ceil(w/16), ceil(h/16))
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(out)
__global__ void tp(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}
