// gemm_accum: C += A * B, C is m x n, A is m x k, B is k x n (row-major),
// written the common way that accumulates straight into global memory: each
// thread reads and writes its element of C once per iteration.
// launch: block (16,16), grid (ceil(n/16), ceil(m/16))
#pragma gpumerge size(m=4096, n=4096, k=4096)
#pragma gpumerge output(c)
__global__ void gemm_accum(const float *a, const float *b, float *c, int m,
                           int n, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) {
    for (int l = 0; l < k; l = l + 1)
      c[i * n + j] += a[i * k + l] * b[l * n + j];
  }
}
