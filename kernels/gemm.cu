// gemm (PolyBench style): C = alpha * A * B + beta * C, C is ni x nj, A is
// ni x nk, B is nk x nj (row-major). One thread per element of C; row and
// column go through local variables and out-of-range threads return early.
// launch: block (32,8), grid (ceil(nj/32), ceil(ni/8))
typedef float DATA_TYPE;

#pragma gpumerge size(ni=4096, nj=4096, nk=4096)
#pragma gpumerge output(c)
__global__ void gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                     const DATA_TYPE *a, const DATA_TYPE *b, DATA_TYPE *c) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= ni || col >= nj)
    return;
  DATA_TYPE acc = 0;
  for (int k = 0; k < nk; k += 1)
    acc += a[row * nk + k] * b[k * nj + col];
  c[row * nj + col] = alpha * acc + beta * c[row * nj + col];
}
