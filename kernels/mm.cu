// mm: matrix multiplication C = A * B, C is h x w, A is h x k, B is k x w
// (row-major, flattened). One thread per element of C: x = column, y = row.
// launch: block (16,16), grid (ceil(w/16), ceil(h/16))
#pragma gpumerge size(w=4096, h=4096, k=4096)
#pragma gpumerge output(c)
__global__ void mm(const float *a, const float *b, float *c, int w, int h,
                   int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}
