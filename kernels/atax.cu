// atax (PolyBench atax, kernel 1): tmp = A * x, A is nx x ny (row-major),
// x has ny elements, tmp has nx. One thread per row:
// tmp[i] = sum_j A[i*ny+j] * x[j].
// launch: block (256), grid (ceil(nx/256))
#pragma gpumerge size(nx=4096, ny=4096)
#pragma gpumerge output(tmp)
__global__ void atax_kernel1(const float *a, const float *x, float *tmp, int nx,
                             int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) {
    tmp[i] = 0;
    for (int j = 0; j < ny; j++)
      tmp[i] += a[i * ny + j] * x[j];
  }
}
