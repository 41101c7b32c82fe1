// mm_macro: matrix multiplication C = A * B written with access macros,
// C is m x n, A is m x k, B is k x n (row-major; the leading dimensions are
// k for A and n for B and C).
// One thread per element of C.
// launch: block (BLOCK_X, BLOCK_Y) = (16,16),
//         grid (ceil(n/BLOCK_X), ceil(m/BLOCK_Y))
// BLOCK_X and BLOCK_Y document the intended launch; the kernel does not use
// them.
#define BLOCK_X 16
#define BLOCK_Y 16
#define A(i, j) a[(i)*k + (j)]
#define B(i, j) b[(i)*n + (j)]
#define C(i, j) c[(i)*n + (j)]

#pragma gpumerge size(m=4096, n=4096, k=4096)
#pragma gpumerge output(c)
__global__ void mm_macro(const float *a, const float *b, float *c, int m, int n,
                         int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float sum = 0.0f;
    for (int i = 0; i < k; ++i)
      sum += A(row, i) * B(i, col);
    C(row, col) = sum;
  }
}
