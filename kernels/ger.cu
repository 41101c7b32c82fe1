// ger: the BLAS rank-1 update A += alpha * x * y^T, A m x n row-major,
// x m elements, y n elements, in place. The author promises with
// __restrict__ that no array aliases another.
// launch: block (16,16), grid (ceil(n/16), ceil(m/16))
#pragma gpumerge size(m=4096, n=4096)
#pragma gpumerge output(a)
__global__ void ger(int m, int n, float alpha, const float *__restrict__ x,
                    const float *__restrict__ y, float *__restrict__ a) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n)
    a[row * n + col] += alpha * x[row] * y[col];
}
