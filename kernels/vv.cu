// vv: vector-vector multiplication (outer product) C = a * b^T, a has h
// elements, b has w, C is h x w: C[y*w+x] = a[y] * b[x].
// launch: block (16,16), grid (ceil(w/16), ceil(h/16))
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(c)
__global__ void vv(const float *a, const float *b, float *c, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    c[y * w + x] = a[y] * b[x];
}
