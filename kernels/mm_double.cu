// mm_double: double-precision matrix multiplication C = A * B, C is h x w,
// A is h x k, B is k x w (row-major). One thread per element of C.
// launch: block (16,16), grid (ceil(w/16), ceil(h/16))
#pragma gpumerge size(w=2048, h=2048, k=2048)
#pragma gpumerge output(c)
__global__ void mm_double(const double *a, const double *b, double *c, int w,
                          int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    double sum = 0.0;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}
