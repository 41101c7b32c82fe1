// gemm (PolyBench style): C = alpha * A * B + beta * C, C is ni x nj, A is
// ni x nk, B is nk x nj (row-major). One work-item per element of C; row and
// column go through local variables and out-of-range work-items return early.
// launch: global (nj, ni) rounded up to a multiple of local (32,8)
typedef float DATA_TYPE;

#pragma gpumerge size(ni=4096, nj=4096, nk=4096)
#pragma gpumerge output(c)
__kernel void gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                   __global const DATA_TYPE *a, __global const DATA_TYPE *b,
                   __global DATA_TYPE *c) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  if (row >= ni || col >= nj)
    return;
  DATA_TYPE acc = 0;
  for (int k = 0; k < nk; k += 1)
    acc += a[row * nk + k] * b[k * nj + col];
  c[row * nj + col] = alpha * acc + beta * c[row * nj + col];
}
