// madd_rowx: matrix addition C = A + B (h x w, row-major) written the way
// that maps the row to x: row = blockIdx.x*blockDim.x + threadIdx.x. Every
// access has x in its row index, so neighbouring threads are a row apart and
// none coalesces; exchanging idx and idy (§3.3) makes them all coalesce.
// launch: block (16,16), grid (ceil(h/16), ceil(w/16))
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(c)
__global__ void madd_rowx(const float *a, const float *b, float *c, int w,
                          int h) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < h && col < w)
    c[row * w + col] = a[row * w + col] + b[row * w + col];
}
